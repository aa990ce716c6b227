//! Declarative build failures: each names the systems, the component and the fix.

use std::fmt;

use laige_diag::{EventKey, Severity, Subsystem};
use laige_registry::ComponentName;

use crate::SystemRef;

/// Which declaration an edge comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EdgeCause {
    /// `dependent.after("dependency")` (or its `depends_on`).
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
}

/// One step of a reported cycle: `system` runs after `next` because of `cause`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CycleStep {
    /// The waiting system.
    pub system: SystemRef,
    /// The system it waits for (the next step's system).
    pub waits_for: SystemRef,
    /// The declaration behind the wait.
    pub cause: EdgeCause,
}

/// Why a declarative layout and registry cannot be built into a schedule. Checks run in
/// the order of the variants and the first failure wins; there is no switch to suppress
/// any of them.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum DeclError {
    /// The layout itself is inconsistent.
    LayoutInvalid {
        /// What is wrong, and how to fix it.
        problem: &'static str,
        /// The DAG or track involved.
        name: &'static str,
    },
    /// A system names a DAG the layout does not have.
    UnknownDag {
        /// The system.
        system: SystemRef,
        /// The name it gave.
        dag: &'static str,
        /// The closest DAG name, if any.
        suggestion: Option<&'static str>,
    },
    /// A system names a phase its DAG does not have.
    UnknownPhase {
        /// The system.
        system: SystemRef,
        /// Its DAG.
        dag: &'static str,
        /// The name it gave.
        phase: &'static str,
        /// The closest phase name, if any.
        suggestion: Option<&'static str>,
    },
    /// An `after`, `before` or `after_weak` entry names no registered system.
    UnknownSystem {
        /// The declaring system.
        system: SystemRef,
        /// `after`, `before` or `after_weak`.
        declaration: &'static str,
        /// The unknown name.
        missing: &'static str,
        /// Its position in the declaration.
        position: usize,
        /// The closest registered name, if any.
        suggestion: Option<&'static str>,
    },
    /// An `after`, `before` or `after_weak` edge joins systems of different DAGs.
    CrossDagEdge {
        /// The declaring system.
        system: SystemRef,
        /// `after`, `before` or `after_weak`.
        declaration: &'static str,
        /// The system it names.
        other: SystemRef,
        /// The declaring system's DAG.
        system_dag: &'static str,
        /// The other system's DAG.
        other_dag: &'static str,
    },
    /// An `after`, `before` or `after_weak` edge makes a system run before a system of an
    /// earlier phase.
    PhaseInversion {
        /// The declaring system.
        system: SystemRef,
        /// `after`, `before` or `after_weak`.
        declaration: &'static str,
        /// The system it names.
        other: SystemRef,
        /// The phase that would run too early.
        early_phase: &'static str,
        /// The phase it would overtake.
        late_phase: &'static str,
    },
    /// `reads_snapshot` of a component that keeps no previous-tick value.
    SnapshotUnversioned {
        /// The system.
        system: SystemRef,
        /// The component.
        component: ComponentName,
    },
    /// The edges form a cycle; one concrete path is reported.
    Cycle(Vec<CycleStep>),
    /// Two writers of a component share a phase with no order between them.
    UnorderedWriters {
        /// The component.
        component: ComponentName,
        /// The lower-id writer.
        first: SystemRef,
        /// The other writer.
        second: SystemRef,
        /// The shared phase.
        phase: &'static str,
    },
    /// A plain reader shares a phase with an unordered writer of the component.
    AmbiguousRead {
        /// The component.
        component: ComponentName,
        /// The reader.
        reader: SystemRef,
        /// The writer.
        writer: SystemRef,
        /// The shared phase.
        phase: &'static str,
    },
    /// Two DAGs of one track, which run concurrently, conflict on a component.
    DagConflict {
        /// The component.
        component: ComponentName,
        /// A system of the first DAG.
        first: SystemRef,
        /// Its DAG.
        first_dag: &'static str,
        /// A system of the second DAG.
        second: SystemRef,
        /// Its DAG.
        second_dag: &'static str,
    },
}

impl DeclError {
    /// The event name, without the `system/` prefix.
    pub const fn event(&self) -> &'static str {
        match self {
            DeclError::LayoutInvalid { .. } => "layout_invalid",
            DeclError::UnknownDag { .. } => "unknown_dag",
            DeclError::UnknownPhase { .. } => "unknown_phase",
            DeclError::UnknownSystem { .. } => "dep_missing",
            DeclError::CrossDagEdge { .. } => "cross_dag_edge",
            DeclError::PhaseInversion { .. } => "phase_inversion",
            DeclError::SnapshotUnversioned { .. } => "snapshot_unversioned",
            DeclError::Cycle(_) => "dependency_cycle",
            DeclError::UnorderedWriters { .. } => "unordered_writers",
            DeclError::AmbiguousRead { .. } => "ambiguous_read",
            DeclError::DagConflict { .. } => "dag_conflict",
        }
    }

    /// The rate-limit key of this failure's event.
    pub const fn key(&self) -> EventKey {
        EventKey::new(Subsystem::System, self.event(), Severity::Warn)
    }

    /// Emits this failure's structured event.
    pub fn emit(&self) {
        macro_rules! warn {
            ($name:literal $(, $($field:tt)*)?) => {
                tracing::warn!(name: $name, target: "laige", $($($field)*,)? "{}", self)
            };
        }
        match self {
            DeclError::LayoutInvalid { name, .. } => warn!("system/layout_invalid", name),
            DeclError::UnknownDag { system, dag, .. } => {
                warn!("system/unknown_dag", system = system.name, dag)
            }
            DeclError::UnknownPhase { system, phase, .. } => {
                warn!("system/unknown_phase", system = system.name, phase)
            }
            DeclError::UnknownSystem {
                system,
                missing,
                position,
                ..
            } => {
                warn!(
                    "system/dep_missing",
                    system = system.name,
                    missing_dep = missing,
                    position
                )
            }
            DeclError::CrossDagEdge { system, other, .. } => {
                warn!(
                    "system/cross_dag_edge",
                    system = system.name,
                    other = other.name
                )
            }
            DeclError::PhaseInversion { system, other, .. } => {
                warn!(
                    "system/phase_inversion",
                    system = system.name,
                    other = other.name
                )
            }
            DeclError::SnapshotUnversioned { system, component } => warn!(
                "system/snapshot_unversioned",
                system = system.name,
                component_id = component.id.get()
            ),
            DeclError::Cycle(steps) => warn!("system/dependency_cycle", cycle = %CycleNames(steps)),
            DeclError::UnorderedWriters {
                component,
                first,
                second,
                ..
            } => warn!(
                "system/unordered_writers",
                component_id = component.id.get(),
                first_writer = first.name,
                second_writer = second.name
            ),
            DeclError::AmbiguousRead {
                component,
                reader,
                writer,
                ..
            } => warn!(
                "system/ambiguous_read",
                component_id = component.id.get(),
                reader = reader.name,
                writer = writer.name
            ),
            DeclError::DagConflict {
                component,
                first,
                second,
                ..
            } => warn!(
                "system/dag_conflict",
                component_id = component.id.get(),
                first = first.name,
                second = second.name
            ),
        }
    }
}

struct CycleNames<'a>(&'a [CycleStep]);

impl fmt::Display for CycleNames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(step.system.name)?;
        }
        Ok(())
    }
}

fn did_you_mean(f: &mut fmt::Formatter<'_>, suggestion: Option<&'static str>) -> fmt::Result {
    match suggestion {
        Some(it) => write!(f, ": did you mean `{it}`?"),
        None => Ok(()),
    }
}

impl fmt::Display for DeclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclError::LayoutInvalid { problem, name } => write!(f, "layout: `{name}` {problem}"),
            DeclError::UnknownDag {
                system,
                dag,
                suggestion,
            } => {
                write!(
                    f,
                    "{system} is placed in DAG `{dag}`, which the layout does not declare"
                )?;
                did_you_mean(f, *suggestion)
            }
            DeclError::UnknownPhase {
                system,
                dag,
                phase,
                suggestion,
            } => {
                write!(
                    f,
                    "{system} is placed in phase `{phase}`, which DAG `{dag}` does not declare"
                )?;
                did_you_mean(f, *suggestion)
            }
            DeclError::UnknownSystem {
                system,
                declaration,
                missing,
                position,
                suggestion,
            } => {
                write!(
                    f,
                    "{system}'s {declaration}(\"{missing}\") (entry {position}) names no registered system"
                )?;
                did_you_mean(f, *suggestion)
            }
            DeclError::CrossDagEdge {
                system,
                declaration,
                other,
                system_dag,
                other_dag,
            } => write!(
                f,
                "{system} (DAG `{system_dag}`) declares {declaration}(\"{}\"), but {other} is in DAG \
                 `{other_dag}`: edges stay inside one DAG; to order across DAGs, put them in \
                 different tracks (tracks run in order)",
                other.name
            ),
            DeclError::PhaseInversion {
                system,
                declaration,
                other,
                early_phase,
                late_phase,
            } => write!(
                f,
                "{system}'s {declaration}(\"{}\") would run phase `{late_phase}` work before phase \
                 `{early_phase}` work, against the phase order: remove the edge, or move one of \
                 the two systems to the other's phase",
                other.name
            ),
            DeclError::SnapshotUnversioned { system, component } => write!(
                f,
                "{system} reads_snapshot {component}, which keeps no previous-tick value: register \
                 {component} as versioned, or use reads / reads_fresh"
            ),
            DeclError::Cycle(steps) => {
                write!(f, "dependency cycle: ")?;
                for step in steps {
                    write!(
                        f,
                        "{} waits for {} ({}), ",
                        step.system,
                        step.waits_for,
                        CauseText(step)
                    )?;
                }
                let last = steps.last().expect("a cycle has a step");
                write!(f, "which closes the cycle: ")?;
                write!(f, "{}", FixText(last))
            }
            DeclError::UnorderedWriters {
                component,
                first,
                second,
                phase,
            } => write!(
                f,
                "{first} and {second} both write {component} in phase `{phase}` with no order \
                 between them: add `.after(\"{}\")` to {second} (or `.before(\"{}\")` to {first})",
                first.name, second.name
            ),
            DeclError::AmbiguousRead {
                component,
                reader,
                writer,
                phase,
            } => write!(
                f,
                "{reader} reads {component} in phase `{phase}`, which {writer} writes with no order \
                 between them: add `.after(\"{}\")` to {reader}, or declare `reads_fresh` (see this \
                 tick's value) or `reads_snapshot` (see last tick's) for {component}",
                writer.name
            ),
            DeclError::DagConflict {
                component,
                first,
                first_dag,
                second,
                second_dag,
            } => write!(
                f,
                "{first} (DAG `{first_dag}`) and {second} (DAG `{second_dag}`) conflict on \
                 {component}, but DAGs of one track run concurrently: move one DAG to another \
                 track, or have one system use `reads_snapshot`"
            ),
        }
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
            EdgeCause::After => write!(f, "{}'s after(\"{}\")", system, waits_for.name),
            EdgeCause::Before => write!(f, "{}'s before(\"{}\")", waits_for, system.name),
            EdgeCause::AfterWeak => write!(f, "{}'s after_weak(\"{}\")", system, waits_for.name),
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
            EdgeCause::After => {
                write!(
                    f,
                    "remove `{}` from {system}'s after (or break another edge)",
                    waits_for.name
                )
            }
            EdgeCause::Before => {
                write!(
                    f,
                    "remove `{}` from {waits_for}'s before (or break another edge)",
                    system.name
                )
            }
            EdgeCause::Fresh(c) => write!(
                f,
                "make {system}'s read of {c} a reads_snapshot (or break another edge)"
            ),
            EdgeCause::PhaseOrder(_) => {
                write!(
                    f,
                    "break one of the explicit edges, or move a system to another phase"
                )
            }
            EdgeCause::AfterWeak => write!(
                f,
                "remove `{}` from {system}'s after_weak (or break another edge)",
                waits_for.name
            ),
            EdgeCause::Exclusive => write!(f, "break one of the explicit edges"),
        }
    }
}

impl std::error::Error for DeclError {}
