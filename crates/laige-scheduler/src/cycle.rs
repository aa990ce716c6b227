//! A reported dependency cycle: each step's system and the declaration it waits by, kept
//! as ids and resolved to names only when printed.

use std::fmt;

use laige_registry::{ComponentId, ComponentName, Names};
use smallvec::SmallVec;

use crate::SystemRef;
use crate::cause::{Cause, id_at};

/// Which declaration an edge comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EdgeCause {
    /// `dependent.after("dependency")`, or its `depends_on` (the same declaration).
    After,
    /// `dependency.before("dependent")`.
    Before,
    /// `dependent.after_weak("dependency")`: an order that binds only where data overlap.
    AfterWeak,
    /// The dependent or the dependency runs alone in its phase.
    Exclusive,
    /// The dependent `reads_fresh` a component the dependency writes in the same phase.
    Fresh(ComponentName),
    /// The two conflict on a component across phases; the earlier phase goes first.
    PhaseOrder(ComponentName),
}

impl EdgeCause {
    /// Whether an executor must keep the edge whatever the data: explicit `after` and
    /// `before`, and exclusivity. The others only order data that overlap, which the
    /// executor derives from access itself.
    pub const fn is_strong(self) -> bool {
        matches!(
            self,
            EdgeCause::After | EdgeCause::Before | EdgeCause::Exclusive
        )
    }

    /// The named form of a graph cause; `component` names a component by its index.
    pub(crate) fn from_cause(
        cause: Cause,
        component: impl Fn(ComponentId) -> ComponentName,
    ) -> Self {
        let named = |index: u8| {
            component(ComponentId::from_index(usize::from(index)).expect("a component index"))
        };
        match cause {
            Cause::After => EdgeCause::After,
            Cause::Before => EdgeCause::Before,
            Cause::AfterWeak => EdgeCause::AfterWeak,
            Cause::Exclusive => EdgeCause::Exclusive,
            Cause::Fresh(c) => EdgeCause::Fresh(named(c)),
            Cause::PhaseOrder(c) => EdgeCause::PhaseOrder(named(c)),
        }
    }
}

/// One step of a reported cycle: `system` runs after `waits_for` because of `cause`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CycleStep {
    /// The waiting system.
    pub system: SystemRef,
    /// The system it waits for (the next step's system).
    pub waits_for: SystemRef,
    /// The declaration behind the wait.
    pub cause: EdgeCause,
}

/// One step as the cycle keeps it: the waiting system's 0-based position and the cause.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Step {
    pub(crate) system: u8,
    pub(crate) cause: Cause,
}

/// How many steps a cycle holds inline; a longer one (there are at most 256 systems) moves
/// to the heap, once, on this error path.
const INLINE_STEPS: usize = 24;

/// One concrete dependency cycle, in walk order: each system waits for the next, and the
/// last waits for the first, which closes the cycle.
///
/// Three bytes a step (a system's index and the cause); the names come from the registry's
/// shared [`Names`] when the cycle is printed, so an error holding it stays small and a
/// cycle of up to 24 systems is reported without allocating.
#[derive(Clone)]
pub struct Cycle {
    names: Names,
    steps: SmallVec<[Step; INLINE_STEPS]>,
}

impl Cycle {
    pub(crate) fn new(names: Names, steps: &[Step]) -> Self {
        Self {
            names,
            steps: SmallVec::from_slice(steps),
        }
    }

    fn system(&self, step: usize) -> SystemRef {
        let id = id_at(usize::from(self.steps[step].system));
        SystemRef {
            id,
            name: self.names.system(id),
        }
    }

    /// The systems on the cycle, in walk order.
    pub fn systems(&self) -> impl ExactSizeIterator<Item = SystemRef> + '_ {
        (0..self.steps.len()).map(|i| self.system(i))
    }

    /// Each step: the system, the one it waits for, and why.
    pub fn steps(&self) -> impl ExactSizeIterator<Item = CycleStep> + '_ {
        (0..self.steps.len()).map(|i| self.step(i))
    }

    fn step(&self, i: usize) -> CycleStep {
        CycleStep {
            system: self.system(i),
            waits_for: self.system((i + 1) % self.steps.len()),
            cause: EdgeCause::from_cause(self.steps[i].cause, |c| self.names.component(c)),
        }
    }

    /// How many systems are on the cycle (1 for a system that waits for itself).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Always false: a cycle has at least one system.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The declaration that closes the cycle: `(waiting, waited_for)`, the last system and
    /// the first. For `depends_on`, `waiting` lists `waited_for` in its spec.
    pub fn closing_edge(&self) -> (SystemRef, SystemRef) {
        let last = self.step(self.steps.len() - 1);
        (last.system, last.waits_for)
    }

    /// The contract's `cycle` field: the names joined by `,` in walk order, e.g. `CycA,CycB`.
    pub fn names(&self) -> CycleNames<'_> {
        CycleNames(self)
    }
}

impl PartialEq for Cycle {
    /// Cycles are equal when they walk the same systems for the same causes.
    fn eq(&self, other: &Self) -> bool {
        self.steps == other.steps
    }
}

impl Eq for Cycle {}

impl fmt::Debug for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.steps().map(|it| (it.system.name, it.cause)))
            .finish()
    }
}

/// Renders a cycle as the contract's comma-joined name list, without allocating.
#[derive(Clone, Copy, Debug)]
pub struct CycleNames<'a>(&'a Cycle);

impl fmt::Display for CycleNames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, system) in self.0.systems().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(system.name)?;
        }
        Ok(())
    }
}

/// The message: every step with its cause, then how to break the closing one. The same
/// words whichever front end found the cycle.
impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dependency cycle: ")?;
        for step in self.steps() {
            write!(
                f,
                "{} waits for {} ({}), ",
                step.system,
                step.waits_for,
                CauseText(&step)
            )?;
        }
        let last = self.step(self.len() - 1);
        write!(f, "which closes the cycle: {}", FixText(&last))?;
        // A declaration can be removed: another edge of a longer cycle would do too.
        let removable = !matches!(last.cause, EdgeCause::PhaseOrder(_) | EdgeCause::Exclusive);
        if removable && self.len() > 1 {
            write!(f, " (or break another edge)")?;
        }
        Ok(())
    }
}

struct CauseText<'a>(&'a CycleStep);

impl fmt::Display for CauseText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let CycleStep {
            system,
            waits_for,
            cause,
        } = self.0;
        match cause {
            EdgeCause::After => write!(f, "{}'s after(\"{}\")", system, waits_for.escaped_name()),
            EdgeCause::Before => write!(f, "{}'s before(\"{}\")", waits_for, system.escaped_name()),
            EdgeCause::AfterWeak => write!(
                f,
                "{}'s after_weak(\"{}\")",
                system,
                waits_for.escaped_name()
            ),
            EdgeCause::Exclusive => write!(f, "an exclusive phase"),
            EdgeCause::Fresh(c) => write!(f, "{system} reads_fresh {c}, which {waits_for} writes"),
            EdgeCause::PhaseOrder(c) => {
                write!(f, "{waits_for}'s phase comes first and both touch {c}")
            }
        }
    }
}

struct FixText<'a>(&'a CycleStep);

impl fmt::Display for FixText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let CycleStep {
            system,
            waits_for,
            cause,
        } = self.0;
        match cause {
            EdgeCause::After => write!(
                f,
                "remove `{}` from {system}'s after",
                waits_for.escaped_name()
            ),
            EdgeCause::Before => write!(
                f,
                "remove `{}` from {waits_for}'s before",
                system.escaped_name()
            ),
            EdgeCause::Fresh(c) => write!(f, "make {system}'s read of {c} a reads_snapshot"),
            EdgeCause::PhaseOrder(_) => write!(
                f,
                "break one of the explicit edges, or move a system to another phase"
            ),
            EdgeCause::AfterWeak => write!(
                f,
                "remove `{}` from {system}'s after_weak",
                waits_for.escaped_name()
            ),
            EdgeCause::Exclusive => write!(f, "break one of the explicit edges"),
        }
    }
}
