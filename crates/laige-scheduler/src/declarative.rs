//! The declarative front end: systems declare a phase and their access; the scheduler
//! derives the DAG and rejects unsafe conflicts with the declaration that fixes them.
//!
//! Rules, per DAG:
//! - In one phase, two writers of a component need a path between them, and so do a plain
//!   reader and a writer (`unordered_writers`, `ambiguous_read`). `reads_fresh` adds the
//!   edge after the writers; `reads_snapshot` reads last tick's value and needs none.
//! - Across phases, a system waits only for earlier-phase systems it conflicts with or has
//!   an edge to: an unrelated straggler never delays the next phase.
//! - `after` / `before` stay inside a DAG; DAGs of one track run concurrently, so they must
//!   not conflict; tracks run in order.
//! - An exclusive system runs alone in its phase.

pub(crate) mod build;
mod layout;
mod pairs;

pub use layout::{DagDecl, Layout, Phases};

use laige_registry::Registry;

use crate::flat::system_ref;
use crate::{EdgeCause, Schedule, ScheduleError, SystemRef};

/// Builds a schedule from a registry placed into `layout` by the declarative rules.
///
/// The order is Kahn's algorithm over the derived edges, smallest id first, track by
/// track. The schedule keeps the strong edges ([`EdgeCause::is_strong`]: `after`, `before`,
/// exclusivity); the others order only data that overlap, and executors derive those from
/// access. [`explain_declared`] lists every edge.
///
/// # Errors
///
/// The first failing check, as a [`ScheduleError`]; its event is emitted (rate limited).
pub fn schedule_declared<R>(
    registry: &Registry<R>,
    layout: &Layout,
) -> Result<Schedule, ScheduleError> {
    build::build(registry, layout).inspect_err(|err| {
        registry.diagnostics().report(err.key(), || err.emit());
    })
}

/// One edge of a declarative build: `later` runs after `earlier` because of `cause`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DeclaredEdge {
    /// The system that goes first.
    pub earlier: SystemRef,
    /// The system that waits.
    pub later: SystemRef,
    /// The declaration behind the edge.
    pub cause: EdgeCause,
}

/// Every edge that shaped the declarative order, with its cause: why `Render` waits for
/// `Movement`. Executors keep only the strong ones ([`EdgeCause::is_strong`]) and derive
/// the rest from access; this is for explaining and testing an order.
///
/// # Errors
///
/// As for [`schedule_declared`] (no event is emitted).
pub fn explain_declared<R>(
    registry: &Registry<R>,
    layout: &Layout,
) -> Result<Vec<DeclaredEdge>, ScheduleError> {
    let derived = build::derive(registry, layout)?;
    Ok(derived
        .graph
        .edges()
        .iter()
        .map(|edge| named(registry, edge))
        .collect())
}

/// A graph edge with its systems and components named.
pub(crate) fn named<R>(registry: &Registry<R>, edge: &crate::graph::Edge) -> DeclaredEdge {
    DeclaredEdge {
        earlier: system_ref(registry, usize::from(edge.earlier)),
        later: system_ref(registry, usize::from(edge.later)),
        cause: EdgeCause::from_cause(edge.cause, |c| registry.component_name(c)),
    }
}
