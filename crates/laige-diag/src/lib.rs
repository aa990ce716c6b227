//! Rate-limited structured diagnostics for laige, emitted as `tracing` events.
//!
//! Every laige failure path reports twice: it returns an error value, and it emits one
//! structured event (`system/double_writer`, `ecs/stale_entity_access`, ...) whose name and
//! field keys are part of the contract.
//! This crate owns the second half: the per-key rate limiter (contract §4) that keeps a
//! failure repeated every tick from flooding the log, and the `rate_limited` summaries.
//!
//! It does **not** know what a system, a schedule or a world is: callers hand it an
//! [`EventKey`] and a closure that emits the actual `tracing` event.
//! It installs no subscriber; the application chooses where events go.
//! It also renders the plain-text tables of human-facing reports ([`TextTable`]).
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use laige_diag::{Diagnostics, EventKey, ManualClock, Severity, Subsystem};
//!
//! let clock = Arc::new(ManualClock::default());
//! let diag = Diagnostics::with_clock(Duration::from_secs(1), clock.clone());
//! let key = EventKey::new(Subsystem::System, "double_writer", Severity::Warn);
//!
//! let mut emitted = 0;
//! for _ in 0..3 {
//!     diag.report(key, || emitted += 1);
//! }
//! assert_eq!(emitted, 1); // the two repeats inside the window were counted, not emitted
//! assert_eq!(diag.pending_suppressed(key), 2);
//!
//! clock.advance(Duration::from_secs(1));
//! diag.report(key, || emitted += 1); // a `rate_limited` summary goes out first, then this
//! assert_eq!(emitted, 2);
//! assert_eq!(diag.pending_suppressed(key), 0);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod clock;
mod limiter;
mod table;

pub use clock::{Clock, ManualClock, MonotonicClock, TickClock};
pub use limiter::{Batch, DEFAULT_RATE_WINDOW, Diagnostics, EventKey, Severity, Subsystem};
pub use table::TextTable;
