//! laige-runtime: the tick driver over a [`World`](laige_world::World).
//!
//! A [`Runtime`] owns a World and its schedule and runs ticks at a fixed rate: in real time
//! ([`Runtime::run_frame`]) or one at a time ([`Runtime::step`]), both through the same
//! tick. Its metronome is drift-free (the next target is the previous target plus the
//! interval), it waits by sleeping and then spinning the last stretch (the threshold
//! measured at start-up), and when behind it catches up at most
//! [`RuntimeOptions::max_catch_up`] ticks and drops the rest of the backlog, reported, so a
//! slow host never spirals.
//!
//! Systems read the fixed step from the [`FixedTime`] resource, never measured time. The
//! overload ladder ([`OverloadLevel`], [`SystemPolicy`]) throttles, sheds and lowers the
//! rate under load; its decisions take effect at tick boundaries, and in lockstep mode the
//! level is an input the caller confirms for a tick, so peers stay identical. Every tick is
//! recorded in a [`Telemetry`] ring sized once. docs/api/runtime.md has the options, the
//! ladder's defaults and the telemetry fields.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod clock;
mod error;
mod options;
mod overload;
mod runtime;
mod telemetry;
mod time;

pub use clock::RuntimeClock;
pub use error::RuntimeError;
pub use options::{OverloadOptions, RuntimeOptions};
pub use overload::{LevelName, OverloadLevel, Priority, SystemPolicy};
pub use runtime::{FrameSummary, MAX_PENDING_CONFIRMATIONS, Runtime};
pub use telemetry::{SystemTelemetry, Telemetry, TickTelemetry, outcome_name};
pub use time::{FixedTime, FrameTime};
