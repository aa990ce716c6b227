//! Why one system waits for another, in the graph's compact form, and the id of a 0-based
//! position: what the graph that records edges and the cycle that reports them share.

use laige_registry::{ComponentId, SystemId};

/// Why one system waits for another, as the graph keeps it: a tag and, for the causes that
/// come from access, the component's 0-based index. Two bytes; [`crate::EdgeCause`] is the
/// named form.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub(crate) enum Cause {
    After,
    Before,
    AfterWeak,
    Exclusive,
    Fresh(u8),
    PhaseOrder(u8),
}

impl Cause {
    pub(crate) fn fresh(component: ComponentId) -> Self {
        Cause::Fresh(component.index() as u8)
    }

    pub(crate) fn phase_order(component: ComponentId) -> Self {
        Cause::PhaseOrder(component.index() as u8)
    }
}

/// The id of the system at 0-based position `index` (inline: the generic callers are
/// compiled in other crates).
#[inline]
pub(crate) fn id_at(index: usize) -> SystemId {
    SystemId::new(index as u32 + 1).expect("index + 1 is never 0")
}
