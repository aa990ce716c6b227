//! Scheduling failures and the `read_before_write` warning.

use std::fmt;

use arrayvec::ArrayVec;
use laige_diag::{EventKey, Rendered, Text};
use laige_registry::{ComponentName, MAX_SYSTEMS, SystemId};

/// A system as reports name it: id and registration name.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SystemRef {
    /// The system's id.
    pub id: SystemId,
    /// The system's registration name.
    pub name: &'static str,
}

impl SystemRef {
    /// The name as messages show it: escaped and bounded ([`Text`]), without backticks.
    pub fn escaped_name(&self) -> Text<&'static str> {
        Text::name(self.name)
    }
}

impl fmt::Display for SystemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.escaped_name())
    }
}

/// One concrete dependency cycle: `systems[0]` depends on `systems[1]`, ..., and the last
/// one depends on `systems[0]`. That last declaration closes the cycle.
///
/// Held inline (a cycle has at most [`MAX_SYSTEMS`] systems), so reporting one allocates
/// nothing.
#[derive(Clone, PartialEq, Eq)]
pub struct Cycle {
    systems: ArrayVec<SystemRef, MAX_SYSTEMS>,
}

impl Cycle {
    pub(crate) const fn new() -> Self {
        Self {
            systems: ArrayVec::new_const(),
        }
    }

    pub(crate) fn push(&mut self, system: SystemRef) {
        self.systems.push(system);
    }

    /// The systems on the cycle, in walk order.
    pub fn systems(&self) -> impl ExactSizeIterator<Item = SystemRef> + '_ {
        self.systems.iter().copied()
    }

    /// How many systems are on the cycle (1 for a self-dependency).
    pub fn len(&self) -> usize {
        self.systems.len()
    }

    /// Always false: a cycle has at least one system.
    pub fn is_empty(&self) -> bool {
        self.systems.is_empty()
    }

    /// The declaration that closes the cycle: `(dependent, dependency)`, meaning
    /// `dependent` lists `dependency` in its `depends_on`.
    pub fn closing_edge(&self) -> (SystemRef, SystemRef) {
        let first = self.systems().next().expect("a cycle is never empty");
        let last = self.systems().last().expect("a cycle is never empty");
        (last, first)
    }

    /// The contract's `cycle` field: names joined by `,` in walk order, e.g. `CycA,CycB`.
    pub fn names(&self) -> CycleNames<'_> {
        CycleNames(self)
    }
}

impl fmt::Debug for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.systems().map(|it| it.name))
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

/// Why a registry cannot be scheduled. Checks run in order and the first failure wins:
/// `needs_layout`, `dep_missing`, `dependency_cycle`, `double_writer`.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
// The cycle is stored inline (about 6 KiB) so that scheduling never allocates, not even
// to report a failure; it is returned once, at setup.
#[allow(clippy::large_enum_variant)]
pub enum ScheduleError {
    /// A system uses a declarative feature (`before`, `after_weak`, a DAG or phase, an
    /// exclusive phase) that the flat front end cannot honour: it needs a layout.
    NeedsLayout {
        /// The system.
        system: SystemRef,
        /// The feature, as declared (`before`, `after_weak`, `in_dag`, `in_phase`,
        /// `exclusive_phase`).
        feature: &'static str,
    },
    /// A `depends_on` entry names no registered system.
    DepMissing {
        /// The system whose spec has the unknown name.
        system: SystemRef,
        /// The unknown name as written.
        missing_dep: &'static str,
        /// The 0-based position of the name in the spec.
        position: usize,
        /// The closest registered name, when one is close enough to be a typo.
        suggestion: Option<&'static str>,
    },
    /// The `depends_on` edges form a cycle; one concrete cycle is reported.
    DependencyCycle(Cycle),
    /// Two systems declare a write of the same component.
    DoubleWriter {
        /// The component written twice (the lowest such id).
        component: ComponentName,
        /// The lowest-id writer.
        first_writer: SystemRef,
        /// The next writer.
        second_writer: SystemRef,
    },
}

laige_diag::diagnostics! {
    const ScheduleError in System;
    NeedsLayout { system, %feature } => warn needs_layout { system = system.name, feature }
        "{system} declares `{feature}`, which only the declarative scheduler honours: set a \
         layout (`World::set_layout`, `schedule_declared`), or use depends_on";
    DepMissing { system, %missing_dep, position, %suggestion }
        => warn dep_missing { system = system.name, missing_dep, position }
        |f| {
            write!(
                f,
                "{system} depends on `{missing_dep}` (entry {position} of its depends_on), but \
                 no system has that name"
            )?;
            match suggestion {
                Some(name) => write!(f, ": did you mean `{name}`?"),
                None => write!(f, ": register it, or remove it from {system}'s depends_on"),
            }
        };
    DependencyCycle(cycle) => warn dependency_cycle { cycle = Rendered(cycle.names()) }
        |f| {
            let (dependent, dependency) = cycle.closing_edge();
            if cycle.len() == 1 {
                return write!(
                    f,
                    "{dependent} depends on itself: remove `{}` from its depends_on",
                    dependent.escaped_name()
                );
            }
            write!(f, "dependency cycle: ")?;
            for (i, system) in cycle.systems().enumerate() {
                if i > 0 {
                    write!(f, " depends on ")?;
                }
                write!(f, "{system}")?;
            }
            write!(
                f,
                " depends on {dependency}; break it by removing `{}` from {dependent}'s \
                 depends_on (or another edge of the cycle)",
                dependency.escaped_name()
            )
        };
    DoubleWriter { component, first_writer, second_writer }
        => warn double_writer {
            component_id = component.id.get(),
            first_writer = first_writer.name,
            second_writer = second_writer.name,
        }
        "{first_writer} and {second_writer} both declare a write of {component}: one writer per \
         component; merge the two writes into one system or have one of them write a different \
         component";
}

impl ScheduleError {
    /// The contract's error code; every scheduling failure is `invalid_argument`.
    pub const fn code(&self) -> &'static str {
        "invalid_argument"
    }
}

impl std::error::Error for ScheduleError {}

/// A system that reads a component runs before the system that writes it, so it sees the
/// previous tick's value. A warning: the schedule is still valid.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct ReadBeforeWrite {
    /// The system that reads early.
    pub reader: SystemRef,
    /// The system that writes later.
    pub writer: SystemRef,
    /// The component involved.
    pub component: ComponentName,
}

laige_diag::diagnostics! {
    const ReadBeforeWrite in System;
    { reader, writer, component }
        => warn read_before_write {
            reader = reader.name,
            writer = writer.name,
            component_id = component.id.get(),
        }
        |f| write!(
            f,
            "{reader} reads {component} before {writer} writes it, so it sees the previous \
             tick's value: if it should see this tick's, add `{}` to {reader}'s depends_on",
            writer.escaped_name()
        );
}

impl ReadBeforeWrite {
    /// The warning's rate-limit key.
    pub const KEY: EventKey = Self::EVENTS[0];
}
