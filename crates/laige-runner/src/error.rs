//! Schedule-level run failures: nothing runs when one is returned.

use std::fmt;

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

laige_diag::diagnostics! {
    const RunError in System;
    ScheduleStale { scheduled_systems, current_systems, foreign }
        => warn schedule_stale { scheduled_systems, current_systems }
        |f| if *foreign {
            write!(
                f,
                "the schedule was computed from another registry: compute it from this one"
            )
        } else {
            write!(
                f,
                "the schedule was computed for {}, but the registry has {} now: compute the \
                 schedule again after registering systems",
                Systems(*scheduled_systems),
                Systems(*current_systems)
            )
        };
    ScheduleInvalid { slot, id } => warn schedule_invalid { slot, id }
        "the schedule's slot {slot} holds system id {id}, which is 0, out of range or \
         repeated: use the scheduler's schedule, or list every id exactly once";
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
