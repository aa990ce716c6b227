//! Scheduling failures and the `read_before_write` warning.

use std::fmt;

use laige_diag::{EventKey, Severity, Subsystem};
use laige_registry::{ComponentName, MAX_SYSTEMS, SystemId};

/// A system as reports name it: id and registration name.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SystemRef {
    /// The system's id.
    pub id: SystemId,
    /// The system's registration name.
    pub name: &'static str,
}

impl fmt::Display for SystemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name)
    }
}

/// One concrete dependency cycle: `systems[0]` depends on `systems[1]`, ..., and the last
/// one depends on `systems[0]`. That last declaration closes the cycle.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Cycle {
    systems: [Option<SystemRef>; MAX_SYSTEMS],
    len: usize,
}

impl Cycle {
    pub(crate) const fn new() -> Self {
        Self {
            systems: [None; MAX_SYSTEMS],
            len: 0,
        }
    }

    pub(crate) fn push(&mut self, system: SystemRef) {
        self.systems[self.len] = Some(system);
        self.len += 1;
    }

    /// The systems on the cycle, in walk order.
    pub fn systems(&self) -> impl ExactSizeIterator<Item = SystemRef> + '_ {
        self.systems[..self.len]
            .iter()
            .map(|it| it.expect("cycle entries are set"))
    }

    /// How many systems are on the cycle (1 for a self-dependency).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a cycle has at least one system.
    pub fn is_empty(&self) -> bool {
        self.len == 0
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
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
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

impl ScheduleError {
    /// The event name, without the `system/` prefix.
    pub const fn event(&self) -> &'static str {
        match self {
            ScheduleError::NeedsLayout { .. } => "needs_layout",
            ScheduleError::DepMissing { .. } => "dep_missing",
            ScheduleError::DependencyCycle(_) => "dependency_cycle",
            ScheduleError::DoubleWriter { .. } => "double_writer",
        }
    }

    /// The contract's error code; every scheduling failure is `invalid_argument`.
    pub const fn code(&self) -> &'static str {
        "invalid_argument"
    }

    /// The rate-limit key of this failure's event.
    pub const fn key(&self) -> EventKey {
        EventKey::new(Subsystem::System, self.event(), Severity::Warn)
    }

    /// Emits this failure's structured event with the contract's field keys.
    pub fn emit(&self) {
        match self {
            ScheduleError::NeedsLayout { system, feature } => tracing::warn!(
                name: "system/needs_layout",
                target: "laige",
                system = system.name,
                feature,
                "{self}"
            ),
            ScheduleError::DepMissing {
                system,
                missing_dep,
                position,
                ..
            } => tracing::warn!(
                name: "system/dep_missing",
                target: "laige",
                system = system.name,
                missing_dep,
                position,
                "{self}"
            ),
            ScheduleError::DependencyCycle(cycle) => tracing::warn!(
                name: "system/dependency_cycle",
                target: "laige",
                cycle = %cycle.names(),
                "{self}"
            ),
            ScheduleError::DoubleWriter {
                component,
                first_writer,
                second_writer,
            } => {
                tracing::warn!(
                    name: "system/double_writer",
                    target: "laige",
                    component_id = component.id.get(),
                    first_writer = first_writer.name,
                    second_writer = second_writer.name,
                    "{self}"
                )
            }
        }
    }
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::NeedsLayout { system, feature } => write!(
                f,
                "{system} declares `{feature}`, which only the declarative scheduler honours: \
                 set a layout (`World::set_layout`, `schedule_declared`), or order it with \
                 `.after(..)` (its depends_on spec)"
            ),
            ScheduleError::DepMissing {
                system,
                missing_dep,
                position,
                suggestion,
            } => {
                write!(
                    f,
                    "{system} runs after `{missing_dep}` (entry {position} of its `.after(..)` \
                     list, its depends_on spec), but no system has that name"
                )?;
                match suggestion {
                    Some(name) => write!(f, ": did you mean `{name}`?"),
                    None => write!(
                        f,
                        ": register it, or remove it from {system}'s `.after(..)`"
                    ),
                }
            }
            ScheduleError::DependencyCycle(cycle) => {
                let (dependent, dependency) = cycle.closing_edge();
                if cycle.len() == 1 {
                    return write!(
                        f,
                        "{dependent} runs after itself: remove `{}` from its `.after(..)` (its \
                         depends_on spec)",
                        dependent.name
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
                     `.after(..)` (its depends_on spec), or another edge of the cycle",
                    dependency.name
                )
            }
            ScheduleError::DoubleWriter {
                component,
                first_writer,
                second_writer,
            } => write!(
                f,
                "{first_writer} and {second_writer} both declare a write of {component}: one writer per component; merge the two writes into one system \
                 or have one of them write a different component"
            ),
        }
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

impl ReadBeforeWrite {
    /// The warning's rate-limit key.
    pub const KEY: EventKey = EventKey::new(Subsystem::System, "read_before_write", Severity::Warn);

    /// Emits the warning's structured event.
    pub fn emit(&self) {
        tracing::warn!(
            name: "system/read_before_write",
            target: "laige",
            reader = self.reader.name,
            writer = self.writer.name,
            component_id = self.component.id.get(),
            "{self}"
        );
    }
}

impl fmt::Display for ReadBeforeWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ReadBeforeWrite {
            reader,
            writer,
            component,
        } = self;
        write!(
            f,
            "{reader} reads {component} before {writer} writes it, so it sees the \
             previous tick's value: if it should see this tick's, add `.after(\"{}\")` to \
             {reader} (its depends_on spec)",
            writer.name
        )
    }
}
