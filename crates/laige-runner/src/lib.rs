//! The laige sequential runner: executes a schedule, one system at a time, every tick.
//!
//! [`Runner::run`] first [`check`]s the schedule against the registry: a schedule computed
//! before more systems were registered, or from another registry, is stale
//! (`schedule_stale`); a hand-built one with a missing, repeated or out-of-range id is
//! malformed (`schedule_invalid`). Either way nothing runs. Then every system runs in
//! order on a [`Host`], which builds the system's fresh context; and, unless switched off,
//! each run is timed into a 64-sample window and checked against its budget
//! (`budget_overrun`, `budget_critical`).
//!
//! What it does **not** do: it never orders systems (the scheduler did), never touches
//! component storage (the host does), and never lets timing change what runs. A healthy
//! tick allocates nothing and emits nothing.
//!
//! # Example
//!
//! ```
//! use laige_registry::{Registry, SystemDef, SystemId};
//! use laige_runner::Runner;
//!
//! type Run = fn(&mut Vec<&'static str>);
//! fn first(log: &mut Vec<&'static str>) { log.push("first") }
//! fn second(log: &mut Vec<&'static str>) { log.push("second") }
//!
//! let mut registry = Registry::<Run>::new();
//! registry.register(SystemDef::new("second", second as Run).budget_ms(1.0).depends_on("first")).unwrap();
//! registry.register(SystemDef::new("first", first as Run).budget_ms(1.0)).unwrap();
//! let schedule = laige_scheduler::schedule(&registry).unwrap();
//!
//! // The host: build each system's context (here, the log) and call it.
//! let mut log = Vec::new();
//! let mut runner = Runner::new();
//! runner.run(&schedule, &registry, &mut |_id: SystemId, run: &Run| run(&mut log)).unwrap();
//! assert_eq!(log, ["first", "second"]);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod host;
mod runner;
mod timing;

pub use error::{RunError, SlotProblem};
pub use host::Host;
pub use runner::{Runner, RunnerOptions, check};
pub use timing::{CRITICAL_MULTIPLIER, Timing, TimingStats, TimingTable, WINDOW_SAMPLES};
