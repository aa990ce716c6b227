//! How the World runs ticks: the sequential runner, the optional executor, the declarative
//! layout and the plan cached for the executor. `run.rs` drives them; this module knows
//! nothing of the World, so the World's definition can hold it without importing the tick.

use laige_diag::{ClockSpan, TickClock};
use laige_executor::{Executor, Plan};
use laige_registry::SystemId;
use laige_runner::{Runner, RunnerOptions};
use laige_scheduler::{Layout, Schedule};

use crate::TickReport;
use crate::gate::Gate;

/// How the World runs ticks: the sequential runner (timing and budgets), an optional
/// parallel executor, the declarative layout, and the plan cached for the executor.
#[derive(Debug)]
pub(crate) struct Runtime {
    pub(crate) runner: Runner,
    pub(crate) layout: Option<Layout>,
    pub(crate) executor: Option<Executor>,
    pub(crate) plan: Option<CachedPlan>,
    pub(crate) ticked: bool,
    /// The tick's skips: asked for by a layer above, or decided by the failure policy.
    pub(crate) gate: Gate,
    /// What the last tick did, filled in place.
    pub(crate) report: TickReport,
}

#[derive(Debug)]
pub(crate) struct CachedPlan {
    pub(crate) schedule: u64,
    pub(crate) archetypes: usize,
    pub(crate) plan: Plan,
}

impl Runtime {
    pub(crate) fn new(timing: bool, clock: TickClock) -> Self {
        Self {
            runner: Runner::with_clock(RunnerOptions { timing }, clock),
            layout: None,
            executor: None,
            plan: None,
            ticked: false,
            gate: Gate::default(),
            report: TickReport::default(),
        }
    }

    /// The clock systems are timed with.
    pub(crate) fn clock(&self) -> &TickClock {
        self.runner.clock()
    }

    /// Whether the cached plan was built for `schedule` over `archetypes` tables.
    #[inline]
    pub(crate) fn plan_is_current(&self, schedule: &Schedule, archetypes: usize) -> bool {
        self.plan
            .as_ref()
            .is_some_and(|it| it.schedule == schedule.stamp() && it.archetypes == archetypes)
    }

    /// Whether the executor must time systems: for budgets, or for a timeline's spans.
    pub(crate) fn time_systems(&self) -> bool {
        self.runner.options().timing || self.runner.keeps_spans()
    }

    /// Switches per-system timing and budget checks on or off, on the runner and the
    /// executor (whose pool keeps running).
    pub(crate) fn set_timing(&mut self, on: bool) {
        self.runner.set_timing(on);
        self.sync_time_systems();
    }

    /// Keeps each system's span from now on (or stops), on the runner and the executor.
    pub(crate) fn keep_spans(&mut self, on: bool) {
        self.runner.keep_spans(on);
        self.sync_time_systems();
    }

    /// Tells the executor whether to time systems, after the runner's options changed.
    fn sync_time_systems(&mut self) {
        let time_systems = self.time_systems();
        if let Some(executor) = &mut self.executor {
            executor.set_time_systems(time_systems);
        }
    }

    /// The span of system `id`'s last run: the executor's when one is set, else the runner's.
    pub(crate) fn last_span(&self, id: SystemId) -> ClockSpan {
        match &self.executor {
            Some(executor) => executor.last_span(id),
            None => self.runner.last_span(id).unwrap_or_default(),
        }
    }
}
