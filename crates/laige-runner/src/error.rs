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
    /// A hand-built schedule names an id that is out of range or repeated, or leaves a slot
    /// empty (reported as id 0).
    ScheduleInvalid {
        /// The 0-based slot of the first bad entry.
        slot: usize,
        /// The id found there; 0 for an empty slot.
        id: u32,
        /// Which of the three it is.
        problem: SlotProblem,
    },
}

/// What is wrong with the first bad slot of a hand-built schedule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SlotProblem {
    /// The id is above the registry's highest id.
    OutOfRange {
        /// How many systems the registry has (its highest id).
        systems: usize,
    },
    /// The id already stands in an earlier slot.
    Repeated {
        /// The earlier slot.
        first_slot: usize,
    },
    /// The schedule lists fewer ids than the registry has systems, so this slot is empty.
    Unfilled {
        /// How many systems the registry has.
        systems: usize,
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
                Count(*scheduled_systems, "system"),
                Count(*current_systems, "system")
            )
        };
    ScheduleInvalid { slot, id, problem } => warn schedule_invalid { slot, id }
        |f| {
            match problem {
                SlotProblem::OutOfRange { systems } => write!(
                    f,
                    "the schedule's slot {slot} holds system id {id}, which is out of range (the \
                     registry has {})",
                    Count(*systems, "system")
                ),
                SlotProblem::Repeated { first_slot } => write!(
                    f,
                    "the schedule's slot {slot} holds system id {id}, which is repeated (slot \
                     {first_slot} holds it already)"
                ),
                SlotProblem::Unfilled { systems } => write!(
                    f,
                    "the schedule's slot {slot} is empty (it lists {} for {})",
                    Count(*slot, "id"),
                    Count(*systems, "system")
                ),
            }?;
            write!(f, ": use the scheduler's schedule, or list every id exactly once")
        };
}

impl std::error::Error for RunError {}

/// "1 system", "2 systems": a count and its noun, plural unless the count is 1.
struct Count(usize, &'static str);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Count(n, noun) = *self;
        let plural = if n == 1 { "" } else { "s" };
        write!(f, "{n} {noun}{plural}")
    }
}
