//! The sequential runner: one system at a time, in schedule order.

use laige_diag::TickClock;
use laige_registry::{Registry, SystemId};
use laige_scheduler::Schedule;

use crate::{Host, RunError, SlotProblem, Timing, TimingStats};

/// How a [`Runner`] behaves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RunnerOptions {
    /// Time every system run and check it against its budget (on by default).
    pub timing: bool,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        Self { timing: true }
    }
}

/// Runs a [`Schedule`] on a [`Host`], one system at a time, and keeps each system's timing.
#[derive(Debug)]
pub struct Runner {
    options: RunnerOptions,
    timing: Timing,
    clock: TickClock,
}

impl Default for Runner {
    fn default() -> Self {
        Self::with_options(RunnerOptions::default())
    }
}

impl Runner {
    /// A runner with timing on.
    pub fn new() -> Self {
        Self::default()
    }

    /// A runner with the given options, timing on the machine's fast clock.
    pub fn with_options(options: RunnerOptions) -> Self {
        Self::with_clock(options, TickClock::new())
    }

    /// A runner with the given options, timing systems on `clock` (a test's
    /// [`TickClock::manual`] makes every measured duration its choice).
    pub fn with_clock(options: RunnerOptions, clock: TickClock) -> Self {
        Self {
            options,
            timing: Timing::new(),
            clock,
        }
    }

    /// The clock systems are timed with.
    pub fn clock(&self) -> &TickClock {
        &self.clock
    }

    /// The runner's options.
    pub fn options(&self) -> RunnerOptions {
        self.options
    }

    /// Switches per-system timing on or off.
    pub fn set_timing(&mut self, on: bool) {
        self.options.timing = on;
    }

    /// The timing table.
    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// The timing table, for executors that measure runs themselves.
    pub fn timing_mut(&mut self) -> &mut Timing {
        &mut self.timing
    }

    /// The timing snapshot of `id`.
    pub fn timing_stats(&self, id: SystemId) -> Option<TimingStats> {
        self.timing.stats(id)
    }

    /// Runs every system of `schedule` on `host`, in order.
    ///
    /// Systems over budget still run: timing only observes.
    ///
    /// # Errors
    ///
    /// A stale or malformed schedule, before anything runs (see [`check`]).
    pub fn run<R>(
        &mut self,
        schedule: &Schedule,
        registry: &Registry<R>,
        host: &mut impl Host<R>,
    ) -> Result<(), RunError> {
        check(schedule, registry)?;
        self.run_checked(schedule.order(), registry, host);
        Ok(())
    }

    /// Runs `order` (a schedule's order, or one of its tracks) on `host`, for a caller that
    /// already [`check`]ed the schedule against `registry` this tick, such as a World that
    /// applies commands between tracks. An id past the registry, which `check` rules out,
    /// runs nothing.
    pub fn run_checked<R>(
        &mut self,
        order: &[SystemId],
        registry: &Registry<R>,
        host: &mut impl Host<R>,
    ) {
        let runs = registry.runs();
        if !self.options.timing {
            for &id in order {
                if let Some(run) = runs.get(id.index()) {
                    host.run_system(id, run);
                }
            }
            return;
        }
        let records = registry.records();
        let diag = registry.diagnostics();
        // One clock read per system boundary: a system's sample runs from the end of the
        // previous one, so it also carries the runner's few nanoseconds of bookkeeping.
        let mut start = self.clock.raw();
        for &id in order {
            let (Some(run), Some(record)) = (runs.get(id.index()), records.get(id.index())) else {
                continue;
            };
            host.run_system(id, run);
            let end = self.clock.raw();
            let nanos = self.clock.delta_as_nanos(start, end);
            self.timing.observe(record, nanos, diag);
            start = end;
        }
    }
}

/// Checks that `schedule` can run on `registry`, emitting the failure's event if not.
///
/// A schedule is stale when it was computed from another registry or for a different
/// number of systems. A hand-built schedule is checked entry by entry: every id must be in
/// range and appear once, and every slot must be filled.
///
/// # Errors
///
/// [`RunError::ScheduleStale`] or [`RunError::ScheduleInvalid`].
pub fn check<R>(schedule: &Schedule, registry: &Registry<R>) -> Result<(), RunError> {
    let res = check_quiet(schedule, registry);
    if let Err(err) = &res {
        registry.diagnostics().report(err.key(), || err.emit());
    }
    res
}

fn check_quiet<R>(schedule: &Schedule, registry: &Registry<R>) -> Result<(), RunError> {
    let foreign = schedule
        .registry_identity()
        .is_some_and(|it| it != registry.identity());
    if foreign || schedule.system_count() != registry.len() {
        return Err(RunError::ScheduleStale {
            scheduled_systems: schedule.system_count(),
            current_systems: registry.len(),
            foreign,
        });
    }
    if schedule.is_verified() {
        return Ok(());
    }
    let systems = registry.len();
    let mut seen_at = [None; laige_registry::MAX_SYSTEMS];
    for (slot, id) in schedule.order().iter().enumerate() {
        let problem = if id.index() >= systems {
            SlotProblem::OutOfRange { systems }
        } else if let Some(first_slot) = seen_at[id.index()] {
            SlotProblem::Repeated { first_slot }
        } else {
            seen_at[id.index()] = Some(slot);
            continue;
        };
        return Err(RunError::ScheduleInvalid {
            slot,
            id: id.get(),
            problem,
        });
    }
    if schedule.order().len() < systems {
        return Err(RunError::ScheduleInvalid {
            slot: schedule.order().len(),
            id: 0,
            problem: SlotProblem::Unfilled { systems },
        });
    }
    Ok(())
}
