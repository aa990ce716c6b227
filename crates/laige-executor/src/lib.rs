//! The laige parallel executor: a schedule's DAG on a persistent thread pool, with results
//! bit-identical to the sequential order.
//!
//! A [`Plan`] is the execution-shaped form of a [`Schedule`](laige_scheduler::Schedule):
//! per track, the systems in sequential order and the edges between them (every explicit
//! `after` edge, plus every pair that conflicts, ordered as in the sequential order). The
//! [`Executor`] owns a pool of worker threads, started once, and runs one track at a time:
//! a system starts as soon as every system it waits for has finished, on whichever thread
//! is free, the calling thread included. Tracks are barriers. A tick allocates nothing.
//! Each thread claims from its own ready set and steals when that runs dry, taking the
//! system with the longest measured chain after it first; a thread left idle spins only
//! briefly (only as many threads as there are cores spin for long), then naps or parks, and
//! is woken when work appears. A system can split its own work into batches
//! ([`run_batches`], what the World's `par_each` runs on) that the idle threads help with.
//!
//! [`Mode::Auto`] runs a track sequentially while its measured work is too small for
//! threads to pay off ([`AUTO_PARALLEL_NANOS`]), and on the pool otherwise. A panicking
//! system does not stop its track or poison the pool: the track finishes and
//! [`Executor::run_track`] returns [`ExecError::SystemPanicked`] naming it.
//!
//! What it does **not** know: components, worlds, commands. It never looks at what a
//! system touches and never decides what conflicts; it trusts the plan's edges (the strong
//! edges and the conflicts it was built from, computed above it as data) and the host's
//! safety contract ([`SharedHost`]). Sequential equivalence
//! comes from the plan ordering every conflicting pair, plus the World applying command
//! buffers per track in sequential order; the executor only keeps the plan's edges.
//!
//! # Example
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! use laige_executor::{Executor, ExecutorOptions, Mode, Plan, SharedHost};
//! use laige_registry::{ComponentId, Registry, SystemDef, SystemId};
//!
//! /// A world of one counter per component.
//! struct Counters([AtomicU64; 2]);
//! type Run = fn(&Counters);
//!
//! // SAFETY: systems only touch atomics, so any overlap is sound.
//! unsafe impl SharedHost<Run> for Counters {
//!     unsafe fn run_system(&self, _: SystemId, run: &Run) {
//!         run(self)
//!     }
//! }
//!
//! fn bump_a(w: &Counters) { w.0[0].fetch_add(1, Ordering::Relaxed); }
//! fn bump_b(w: &Counters) { w.0[1].fetch_add(1, Ordering::Relaxed); }
//!
//! let (a, b) = (ComponentId::new(1).unwrap(), ComponentId::new(2).unwrap());
//! let mut registry = Registry::<Run>::new();
//! registry.register_component(a);
//! registry.register_component(b);
//! registry.register(SystemDef::new("BumpA", bump_a as Run).budget_ms(1.0).writes(a)).unwrap();
//! registry.register(SystemDef::new("BumpB", bump_b as Run).budget_ms(1.0).writes(b)).unwrap();
//! registry.register(SystemDef::new("ReadA", bump_b as Run).budget_ms(1.0).reads(a)).unwrap();
//!
//! let schedule = laige_scheduler::schedule(&registry).unwrap();
//! let plan = Plan::build_from_access(&schedule, &registry);
//! // ReadA waits for BumpA (a conflict); BumpB waits for nothing.
//! let ids: Vec<u32> = plan.predecessors(SystemId::new(3).unwrap()).map(|id| id.get()).collect();
//! assert_eq!(ids, [1]);
//!
//! let mut executor = Executor::new(ExecutorOptions { threads: 2, mode: Mode::Parallel, time_systems: true });
//! let world = Counters([AtomicU64::new(0), AtomicU64::new(0)]);
//! for t in 0..plan.track_count() {
//!     let report = executor.run_track(&plan, t, registry.runs(), &world).unwrap();
//!     assert_eq!(report.systems, 3);
//! }
//! assert_eq!(world.0[0].load(Ordering::Relaxed), 1);
//! assert_eq!(world.0[1].load(Ordering::Relaxed), 2);
//! ```
#![deny(missing_docs)]

mod batch;
mod error;
mod executor;
mod handshake;
mod host;
mod idle;
mod order;
mod plan;
mod pool;
mod shared;
mod sync;
mod work;

#[cfg(all(test, loom))]
mod loom_tests;

pub use batch::run_batches;
pub use error::drop_payload;
pub use error::{ExecError, PANIC_MESSAGE_BYTES, PanicMessage};
pub use executor::{
    AUTO_PARALLEL_NANOS, AUTO_SAMPLE_EVERY, AUTO_SEQUENTIAL_NANOS, ChosenMode, Executor,
    ExecutorOptions, Mode, TrackReport,
};
pub use host::{Exclusive, PerSystem, SharedHost};
pub use order::WAKE_WORTH_NANOS;
pub use plan::{EdgeReason, Plan};
