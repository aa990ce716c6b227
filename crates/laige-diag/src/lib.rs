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
//! Each failure type states its events once, in a [`diagnostics!`] table, from which its
//! `event`, `key`, `emit` and `Display` are derived. Every name or message the application
//! wrote reaches a field or a message only through [`Text`], which escapes control
//! characters and bounds the length (`missing_dep` to 63 bytes and `cycle` to 255, as the
//! contract says, any other name to 255).
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
mod diagnostic;
mod limiter;
mod table;
mod text;

pub use clock::{Clock, ManualClock, MonotonicClock, TickClock};
#[doc(hidden)]
pub use diagnostic::hold_field;
pub use diagnostic::{Diagnostic, FieldValue, HeldField, Rendered};
pub use limiter::{Batch, DEFAULT_RATE_WINDOW, Diagnostics, EventKey, Severity, Subsystem};
pub use table::TextTable;
pub use text::{Escape, FieldText, NAME_LIMIT, TRUNCATION_MARKER, Text, field_limit};

/// What the [`diagnostics!`] expansion names; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use tracing;
}
