//! Schedule-level run failures: nothing runs when one is returned.

use std::fmt;

use laige_diag::{EventKey, Severity, Subsystem};

/// Why [`Runner::run`](crate::Runner::run) ran nothing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum RunError {
    /// The schedule was computed for another registry, or before systems were added.
    ScheduleStale {
        /// How many systems the schedule was computed for.
        scheduled_systems: usize,
        /// How many systems the registry has now.
        current_systems: usize,
        /// Whether the schedule comes from a different registry altogether.
        foreign: bool,
    },
    /// A hand-built schedule names an id that is 0, out of range, repeated, or leaves a
    /// slot empty (reported as id 0).
    ScheduleInvalid {
        /// The 0-based slot of the first bad entry.
        slot: usize,
        /// The id found there.
        id: u32,
    },
}

impl RunError {
    /// The event name, without the `system/` prefix.
    pub const fn event(&self) -> &'static str {
        match self {
            RunError::ScheduleStale { .. } => "schedule_stale",
            RunError::ScheduleInvalid { .. } => "schedule_invalid",
        }
    }

    /// The rate-limit key of this failure's event.
    pub const fn key(&self) -> EventKey {
        EventKey::new(Subsystem::System, self.event(), Severity::Warn)
    }

    /// Emits the failure's structured event with the contract's field keys.
    pub fn emit(&self) {
        match *self {
            RunError::ScheduleStale {
                scheduled_systems,
                current_systems,
                ..
            } => tracing::warn!(
                name: "system/schedule_stale",
                target: "laige",
                scheduled_systems,
                current_systems,
                "{self}"
            ),
            RunError::ScheduleInvalid { slot, id } => tracing::warn!(
                name: "system/schedule_invalid",
                target: "laige",
                slot,
                id,
                "{self}"
            ),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RunError::ScheduleStale { foreign: true, .. } => write!(
                f,
                "the schedule was computed from another registry: compute it from this one"
            ),
            RunError::ScheduleStale {
                scheduled_systems,
                current_systems,
                ..
            } => write!(
                f,
                "the schedule was computed for {}, but the registry has {} now: compute the \
                 schedule again after registering systems",
                Systems(scheduled_systems),
                Systems(current_systems)
            ),
            RunError::ScheduleInvalid { slot, id } => write!(
                f,
                "the schedule's slot {slot} holds system id {id}, which is 0, out of range or \
                 repeated: use the scheduler's schedule, or list every id exactly once"
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// "1 system", "2 systems".
struct Systems(usize);

impl fmt::Display for Systems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => write!(f, "1 system"),
            n => write!(f, "{n} systems"),
        }
    }
}
