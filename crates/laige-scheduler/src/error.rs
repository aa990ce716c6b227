//! Scheduling failures, one type for both front ends, and the `read_before_write` warning.

use std::fmt;

use laige_diag::{EventKey, Rendered, Text};
use laige_registry::ComponentName;

use crate::{Cycle, SystemRef};

/// Why a registry cannot be scheduled, by either front end. Checks run in order and the
/// first failure wins: for the flat rules `needs_layout`, `dep_missing`, `dependency_cycle`,
/// `double_writer`; for a layout `layout_invalid`, `unknown_dag`, `unknown_phase`,
/// `dep_missing`, `cross_dag_edge`, `phase_inversion`, `snapshot_unversioned`,
/// `dependency_cycle`, `unordered_writers`, `ambiguous_read`, `dag_conflict`. There is no
/// switch to suppress any of them.
///
/// Small (no variant holds more than a few names) and never allocated for: a cycle keeps
/// its steps as ids ([`Cycle`]).
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
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
    /// A `depends_on` (or `after`) entry names no registered system.
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
    /// The edges form a cycle; one concrete cycle is reported, each step with its cause.
    DependencyCycle(Cycle),
    /// Two systems declare a write of the same component (flat rules).
    DoubleWriter {
        /// The component written twice (the lowest such id).
        component: ComponentName,
        /// The lowest-id writer.
        first_writer: SystemRef,
        /// The next writer.
        second_writer: SystemRef,
    },
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
    /// A `before` or `after_weak` entry names no registered system.
    UnknownSystem {
        /// The declaring system.
        system: SystemRef,
        /// `before` or `after_weak`.
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
    /// A typed system takes a plain `Res<T>` or `ResMut<T>` of a resource the world does not
    /// hold when the schedule is built (the World's check; the schedulers never return it).
    ResourceMissing {
        /// The system.
        system: SystemRef,
        /// The resource's type name.
        resource: &'static str,
    },
}

laige_diag::diagnostics! {
    const ScheduleError in System;
    ResourceMissing { system, %resource }
        => warn resource_missing { system = system.name, resource }
        |f| match resource.raw().split_once(" \"") {
            // A named resource's display name, `Grid "terrain"`.
            Some((ty, name)) => {
                let (ty, name) = (Text::name(ty), Text::name(name.trim_end_matches('"')));
                write!(
                    f,
                    "system {system} takes `NamedRes` (or `NamedResMut`) of `{resource}`, but the \
                     world holds no value for it when the schedule is built: insert it with \
                     `world.insert_named_resource(\"{name}\", ..)` first, or take \
                     `Option<NamedRes<{ty}, ..>>` to run without it"
                )
            }
            None => write!(
                f,
                "system {system} takes `Res<{resource}>` (or `ResMut`), but the world holds no \
                 `{resource}` when the schedule is built: insert it with \
                 `world.insert_resource(..)` first, or take `Option<Res<{resource}>>` to run \
                 without it"
            ),
        };
    NeedsLayout { system, %feature } => warn needs_layout { system = system.name, feature }
        "{system} declares `{feature}`, which only the declarative scheduler honours: set a \
         layout (`World::set_layout`, `schedule_declared`), or order it with `.after(..)` (its \
         depends_on spec)";
    DepMissing { system, %missing_dep, position, %suggestion }
        => warn dep_missing { system = system.name, missing_dep, position }
        |f| {
            write!(
                f,
                "{system} runs after `{missing_dep}` (entry {position} of its `.after(..)` \
                 list, its depends_on spec), but no system has that name"
            )?;
            match suggestion {
                Some(name) => write!(f, ": did you mean `{name}`?"),
                None => write!(f, ": register it, or remove it from {system}'s `.after(..)`"),
            }
        };
    DependencyCycle(cycle) => warn dependency_cycle { cycle = Rendered(cycle.names()) }
        |f| write!(f, "{cycle}");
    DoubleWriter { component, first_writer, second_writer }
        => warn double_writer {
            component_id = component.id.get(),
            first_writer = first_writer.name,
            second_writer = second_writer.name,
        }
        "{first_writer} and {second_writer} both declare a write of {component}: one writer per \
         component under the flat rules, even when one runs after the other; merge the two \
         writes into one system, have one of them write a different component, or set a \
         declarative layout (`world.set_layout(Layout::new().dag(..))`), which orders writers \
         by `.after` and phases";
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
             tick's value: if it should see this tick's, add `.after(\"{}\")` to {reader} (its \
             depends_on spec)",
            writer.escaped_name()
        );
}

impl ReadBeforeWrite {
    /// The warning's rate-limit key.
    pub const KEY: EventKey = Self::EVENTS[0];
}

fn did_you_mean(f: &mut fmt::Formatter<'_>, suggestion: Option<impl fmt::Display>) -> fmt::Result {
    match suggestion {
        Some(it) => write!(f, ": did you mean `{it}`?"),
        None => Ok(()),
    }
}
