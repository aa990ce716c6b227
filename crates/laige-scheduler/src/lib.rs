//! The laige scheduler: a registry in, a deterministic and validated execution order out.
//!
//! [`schedule`] resolves every `depends_on` name, orders the systems with Kahn's algorithm
//! taking the smallest ready [`SystemId`](laige_registry::SystemId) first, and checks the declared access. Without
//! dependencies the order is exactly the registration order; a system only ever moves
//! later, behind what it depends on. Forward dependencies are legal.
//!
//! Checks, first failure wins: `needs_layout` (a declarative feature without a layout),
//! `dep_missing` (with a "did you mean" suggestion),
//! `dependency_cycle` (one concrete cycle and the declaration that closes it),
//! `double_writer`. Then each reader ordered before the writer of a component it reads
//! raises a `read_before_write` warning, kept on the [`Schedule`] as data and emitted as an
//! event; the schedule still succeeds.
//!
//! [`ScheduleGraph`] draws a schedule for people and tools: systems clustered by track, DAG
//! and phase, every edge with its cause, as Graphviz DOT, Mermaid or versioned JSON. It
//! takes the edges from where the rules already state them ([`explain_declared`], the flat
//! `depends_on` and `read_before_write` rules) and allocates, at setup or debug time.
//!
//! What it does **not** do: it never runs a system and never looks at a World, and
//! [`schedule`] never allocates: its whole state lives in fixed arrays on the stack. The
//! declarative build and the graph export allocate, once, at setup. The order is a pure
//! function of the registration order, the specs and the declared access: no hash order,
//! address or clock can reach it.
//!
//! # Example
//!
//! ```
//! use laige_registry::{Registry, SystemDef};
//! use laige_scheduler::schedule;
//!
//! fn noop(_: &mut ()) {}
//! let def = |name, deps| SystemDef::new(name, noop as fn(&mut ())).budget_ms(1.0).depends_on(deps);
//!
//! let mut registry = Registry::new();
//! for (name, deps) in [("KatA", "KatB"), ("KatB", ""), ("KatC", "KatB, KatA"), ("KatD", ""), ("KatE", "KatD, KatC")] {
//!     registry.register(def(name, deps)).unwrap();
//! }
//! let schedule = schedule(&registry).unwrap();
//! let order: Vec<u32> = schedule.order().iter().map(|id| id.get()).collect();
//! assert_eq!(order, [2, 1, 3, 4, 5]);
//! assert_eq!(schedule.order_hash(), 0xaef3282f393ab332);
//!
//! // The same schedule as a picture: `dot -Tsvg` renders this.
//! let graph = laige_scheduler::ScheduleGraph::new(&schedule, &registry, None).unwrap();
//! assert!(graph.to_dot().starts_with("// laige schedule graph"));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// `ScheduleError` is large by design (see its definition); it is returned once, at setup.
#![allow(clippy::result_large_err)]

mod declarative;
mod error;
mod export;
mod schedule;
mod sort;
mod table;
mod validate;

pub use declarative::{
    CycleStep, DagDecl, DeclError, DeclaredEdge, EdgeCause, Layout, Phases, explain_declared,
    schedule_declared,
};
pub use error::{Cycle, CycleNames, ReadBeforeWrite, ScheduleError, SystemRef};
pub use export::{
    ExportError, FrontEnd, GraphCause, GraphComponent, GraphEdge, GraphSystem, JSON_VERSION,
    ScheduleGraph,
};
pub use schedule::{MAX_KEPT_WARNINGS, MAX_TRACKS, Schedule};
pub use table::ScheduleTable;

use laige_registry::Registry;

/// Computes and validates the execution order of `registry`'s systems.
///
/// Pure: it reads the registry and emits events, nothing else. Success emits only the
/// `read_before_write` warnings.
///
/// # Errors
///
/// The first failing check, as a [`ScheduleError`]; its event is emitted (rate limited).
pub fn schedule<R>(registry: &Registry<R>) -> Result<Schedule, ScheduleError> {
    let mut schedule = Schedule::new(registry.len(), registry.identity());
    match compute(registry, &mut schedule) {
        Ok(()) => Ok(schedule),
        Err(err) => {
            registry.diagnostics().report(err.key(), || err.emit());
            Err(err)
        }
    }
}

/// The flat rules cannot honour declarative features; refusing them beats ignoring them.
fn needs_no_layout<R>(registry: &Registry<R>) -> Result<(), ScheduleError> {
    match declarative_feature(registry) {
        Some((i, feature)) => Err(ScheduleError::NeedsLayout {
            system: sort::system_ref(registry, i),
            feature,
        }),
        None => Ok(()),
    }
}

/// The first system (by position) using a feature only a layout gives meaning to, and
/// that feature's name.
pub(crate) fn declarative_feature<R>(registry: &Registry<R>) -> Option<(usize, &'static str)> {
    registry.iter().enumerate().find_map(|(i, record)| {
        let placement = record.placement();
        let feature = if !record.before().is_empty() {
            "before"
        } else if !record.after_weak().is_empty() {
            "after_weak"
        } else if !placement.dag.is_empty() {
            "in_dag"
        } else if !placement.phase.is_empty() {
            "in_phase"
        } else if record.is_exclusive() {
            "exclusive_phase"
        } else {
            return None;
        };
        Some((i, feature))
    })
}

/// Fills `schedule` (fresh for `registry`) in place: a `Schedule` is 11 KiB, and moving
/// one through a `Result` per step would cost more than the sort.
fn compute<R>(registry: &Registry<R>, schedule: &mut Schedule) -> Result<(), ScheduleError> {
    if registry.is_empty() {
        schedule.end_track();
        return Ok(());
    }
    needs_no_layout(registry)?;
    let backward = sort::resolve(registry, schedule)?;
    if let Err(placed) = sort::order(registry.len(), schedule, backward) {
        return Err(ScheduleError::DependencyCycle(sort::find_cycle(
            registry, &placed,
        )));
    }
    let written = validate::single_writers(registry)?;
    schedule.end_track();
    validate::reads_before_writes(registry, &written, schedule);
    Ok(())
}
