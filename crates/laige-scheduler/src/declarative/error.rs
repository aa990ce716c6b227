//! Declarative build failures: each names the systems, the component and the fix.

use std::fmt;

use laige_diag::Rendered;
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

laige_diag::diagnostics! {
    const DeclError in System;
    LayoutInvalid { problem, %name } => warn layout_invalid { name } "layout: `{name}` {problem}";
    UnknownDag { system, %dag, %suggestion } => warn unknown_dag { system = system.name, dag }
        |f| {
            write!(f, "{system} is placed in DAG `{dag}`, which the layout does not declare")?;
            did_you_mean(f, suggestion)
        };
    UnknownPhase { system, %dag, %phase, %suggestion }
        => warn unknown_phase { system = system.name, phase }
        |f| {
            write!(
                f,
                "{system} is placed in phase `{phase}`, which DAG `{dag}` does not declare"
            )?;
            did_you_mean(f, suggestion)
        };
    UnknownSystem { system, %declaration, %missing, position, %suggestion }
        => warn dep_missing { system = system.name, missing_dep = missing, position }
        |f| {
            write!(
                f,
                "{system}'s {declaration}(\"{missing}\") (entry {position}) names no registered \
                 system"
            )?;
            did_you_mean(f, suggestion)
        };
    CrossDagEdge { system, %declaration, other, %system_dag, %other_dag }
        => warn cross_dag_edge { system = system.name, other = other.name }
        |f| write!(
            f,
            "{system} (DAG `{system_dag}`) declares {declaration}(\"{}\"), but {other} is in DAG \
             `{other_dag}`: edges stay inside one DAG; to order across DAGs, put them in \
             different tracks (tracks run in order)",
            other.escaped_name()
        );
    PhaseInversion { system, %declaration, other, %early_phase, %late_phase }
        => warn phase_inversion { system = system.name, other = other.name }
        |f| write!(
            f,
            "{system}'s {declaration}(\"{}\") would run phase `{late_phase}` work before phase \
             `{early_phase}` work, against the phase order: remove the edge, or move one of \
             the two systems to the other's phase",
            other.escaped_name()
        );
    SnapshotUnversioned { system, component }
        => warn snapshot_unversioned { system = system.name, component_id = component.id.get() }
        "{system} reads_snapshot {component}, which keeps no previous-tick value: register \
         {component} as versioned, or use reads / reads_fresh";
    Cycle(steps) => warn dependency_cycle { cycle = Rendered(CycleNames(steps)) }
        |f| {
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
        };
    UnorderedWriters { component, first, second, %phase }
        => warn unordered_writers {
            component_id = component.id.get(),
            first_writer = first.name,
            second_writer = second.name,
        }
        |f| write!(
            f,
            "{first} and {second} both write {component} in phase `{phase}` with no order \
             between them: add `.after(\"{}\")` to {second} (or `.before(\"{}\")` to {first})",
            first.escaped_name(),
            second.escaped_name()
        );
    AmbiguousRead { component, reader, writer, %phase }
        => warn ambiguous_read {
            component_id = component.id.get(),
            reader = reader.name,
            writer = writer.name,
        }
        |f| write!(
            f,
            "{reader} reads {component} in phase `{phase}`, which {writer} writes with no order \
             between them: add `.after(\"{}\")` to {reader}, or declare `reads_fresh` (see this \
             tick's value) or `reads_snapshot` (see last tick's) for {component}",
            writer.escaped_name()
        );
    DagConflict { component, first, %first_dag, second, %second_dag }
        => warn dag_conflict {
            component_id = component.id.get(),
            first = first.name,
            second = second.name,
        }
        "{first} (DAG `{first_dag}`) and {second} (DAG `{second_dag}`) conflict on {component}, \
         but DAGs of one track run concurrently: move one DAG to another track, or have one \
         system use `reads_snapshot`";
}

/// The contract's `cycle` field: the waiting systems' names joined by `,`.
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

fn did_you_mean(f: &mut fmt::Formatter<'_>, suggestion: Option<impl fmt::Display>) -> fmt::Result {
    match suggestion {
        Some(it) => write!(f, ": did you mean `{it}`?"),
        None => Ok(()),
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
            EdgeCause::After => {
                write!(
                    f,
                    "remove `{}` from {system}'s after (or break another edge)",
                    waits_for.escaped_name()
                )
            }
            EdgeCause::Before => {
                write!(
                    f,
                    "remove `{}` from {waits_for}'s before (or break another edge)",
                    system.escaped_name()
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
                waits_for.escaped_name()
            ),
            EdgeCause::Exclusive => write!(f, "break one of the explicit edges"),
        }
    }
}

impl std::error::Error for DeclError {}
