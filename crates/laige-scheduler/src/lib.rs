//! The laige scheduler: a registry in, a deterministic and validated execution order out.
//!
//! [`schedule`] resolves every `depends_on` name, orders the systems with Kahn's algorithm
//! taking the smallest ready [`SystemId`](laige_registry::SystemId) first, and checks the declared access. Without
//! dependencies the order is exactly the registration order; a system only ever moves
//! later, behind what it depends on. Forward dependencies are legal.
//!
//! Checks, first failure wins: `needs_layout` (a declarative feature without a layout),
//! `dep_missing` (with a "did you mean" suggestion),
//! `dependency_cycle` (one concrete cycle, each step's cause and the declaration that closes
//! it), `double_writer`. Then each reader ordered before the writer of a component it reads
//! raises a `read_before_write` warning, kept on the [`Schedule`] as data and emitted as an
//! event; the schedule still succeeds.
//!
//! [`schedule_declared`] places the systems in a [`Layout`] of tracks, DAGs and phases and
//! derives the edges from their access. Both front ends build one graph, sort it with one
//! stable Kahn sort and report a cycle with one walk; the flat rules are a policy over that
//! pipeline. Both fail with one [`ScheduleError`], so a failure reads the same whichever
//! found it. Conflicts between systems are the registry's one rule
//! ([`SystemRecord::conflict_with`](laige_registry::SystemRecord::conflict_with)).
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

mod cause;
mod cycle;
mod declarative;
mod error;
mod export;
mod flat;
mod graph;
mod schedule;
mod system_ref;
mod table;

pub use cycle::{Cycle, CycleNames, CycleStep, EdgeCause};
pub use declarative::{DagDecl, DeclaredEdge, Layout, Phases, explain_declared, schedule_declared};
pub use error::{ReadBeforeWrite, ScheduleError};
pub use export::{
    ExportError, FrontEnd, GraphCause, GraphComponent, GraphEdge, GraphSystem, JSON_VERSION,
    ScheduleGraph,
};
pub use schedule::{MAX_KEPT_WARNINGS, MAX_TRACKS, Schedule};
pub use system_ref::SystemRef;
pub use table::ScheduleTable;

use laige_registry::Registry;

/// Computes and validates the execution order of `registry`'s systems by the flat laige
/// rules.
///
/// Pure: it reads the registry and emits events, nothing else. Success emits only the
/// `read_before_write` warnings. Never allocates.
///
/// # Errors
///
/// The first failing check, as a [`ScheduleError`]; its event is emitted (rate limited).
pub fn schedule<R>(registry: &Registry<R>) -> Result<Schedule, ScheduleError> {
    flat::schedule(registry).inspect_err(|err| {
        registry.diagnostics().report(err.key(), || err.emit());
    })
}
