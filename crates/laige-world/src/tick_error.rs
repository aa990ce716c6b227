//! What a tick returns when it fails.

use laige_executor::ExecError;
use laige_registry::SystemId;
use laige_runner::RunError;

use crate::{SkippedCommand, WorldError};

/// Why a tick failed. Its event was emitted where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TickError {
    /// The schedule is stale or malformed; nothing ran.
    Run(RunError),
    /// A system panicked (on the sequential runner or the executor alike); the rest of its
    /// track still ran and the next tick runs normally. The commands every panicked system
    /// recorded this tick were dropped; this names the first in schedule order, and each
    /// one was reported as a `system/system_panicked` event.
    Panicked {
        /// The system.
        system: SystemId,
        /// Its registration name.
        name: &'static str,
        /// Its panic message, when the payload was text (truncated). Boxed, so the error
        /// stays small; only this path allocates, and a panic allocated already.
        message: Box<str>,
    },
    /// A typed system's run failed: it returned `Err`, or a parameter could not be fetched
    /// (a missing resource). As after a panic, the rest of its track ran, its commands of
    /// this tick were dropped, and the next tick runs it again; each failed system was
    /// reported as a `system/system_failed` event, and this names the first in schedule
    /// order.
    SystemFailed {
        /// The system.
        system: SystemId,
        /// Its registration name.
        name: &'static str,
        /// The error's message. Boxed, as for `Panicked`: only a failure allocates.
        message: Box<str>,
    },
    /// The executor refused the track before running anything.
    Exec(ExecError),
    /// Applying commands failed.
    Apply(WorldError),
    /// Commands recorded this tick could not be carried out (the entity limit, a stale
    /// target, a refused bundle): they were skipped and the rest of the tick ran. This names
    /// the first in schedule order; [`World::tick_report`](crate::World::tick_report) has
    /// every system's counts. Returned only when no system failed or panicked this tick.
    CommandsSkipped {
        /// The system that recorded the first skipped command.
        system: SystemId,
        /// Its registration name.
        name: &'static str,
        /// How many commands the tick skipped, over every system.
        skipped: usize,
        /// The first skipped command and why.
        first: SkippedCommand,
    },
    /// A writer emitted more events in one run than its queue's capacity; the events past
    /// it were not stored, and the rest of the tick ran. This names the first overflow (by
    /// queue registration order, then the writers' schedule order);
    /// [`World::tick_report`](crate::World::tick_report) counts every one
    /// ([`TickReport::events`](crate::TickReport::events)).
    EventsOverflowed {
        /// The writer.
        system: SystemId,
        /// Its registration name.
        name: &'static str,
        /// The event type's name (the queue).
        event: &'static str,
        /// The queue's capacity per writer and run.
        capacity: usize,
        /// How many events that run emitted past it.
        dropped: u32,
    },
}

laige_diag::diagnostics! {
    TickError in System;
    Run(err) => err;
    Panicked { system, %name, %message }
        => error system_panicked { system = name, id = system.get(), message = message.as_ref() }
        "system `{name}` panicked: {message}: the rest of its track ran and its commands of this \
         tick were dropped; the next tick runs normally. Fix the system, or handle the failure \
         inside it";
    SystemFailed { system, %name, %message }
        => error system_failed { system = name, id = system.get(), error = message.as_ref() }
        "system `{name}` failed: {message}: the rest of its track ran and its commands of this \
         tick were dropped; the next tick runs it again. Fix the cause, or handle the error \
         inside the system";
    Exec(err) => err;
    Apply(err) => err;
    CommandsSkipped { system, %name, skipped, first }
        => warn commands_skipped {
            system = name,
            id = system.get(),
            skipped,
            command = laige_diag::Rendered(&first.command),
        }
        |f| write!(
            f,
            "system `{name}`: {skipped} command(s) of this tick could not be carried out and \
             were skipped; the first, {}. The rest of the tick ran; `world.tick_report()` has \
             every system's counts",
            // The command and its cause name up to three things (system, type, entity).
            laige_diag::Text::with_limit(first, 4 * laige_diag::NAME_LIMIT)
        );
    EventsOverflowed { system, %name, %event, capacity, dropped }
        => error events_overflowed { system = name, id = system.get(), event, capacity, dropped }
        "system `{name}` emitted {dropped} `{event}` event(s) past the queue's capacity of \
         {capacity} per writer and run, and those were not stored; the rest of the tick ran. \
         Register the queue with a larger capacity (`world.register_events::<{event}>(n)`), \
         or emit fewer";
}

impl std::error::Error for TickError {}

impl From<RunError> for TickError {
    fn from(err: RunError) -> Self {
        TickError::Run(err)
    }
}

impl From<WorldError> for TickError {
    fn from(err: WorldError) -> Self {
        TickError::Apply(err)
    }
}
