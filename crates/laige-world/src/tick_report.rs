//! What the last tick did, system by system: whether each ran, and what became of the
//! commands it recorded.
//!
//! [`World::run_systems`](crate::World::run_systems) fills one [`TickReport`] per tick, in
//! place: it is sized when the schedule is prepared (or on the first tick after systems are
//! registered), so a steady-state tick allocates nothing for it. A tick costs it nothing per
//! quiet system: every system of the schedule starts as [`SystemOutcome::Ran`] (the baseline,
//! laid out once per schedule), and only the entries a tick changes (a failure, a panic, a
//! skip, commands) are written, and restored at the start of the next tick. A game loop reads it through [`World::tick_report`](crate::World::tick_report)
//! without a `tracing` subscriber.

use std::fmt;

use laige_registry::{Registry, SystemId};
use laige_scheduler::Schedule;

use crate::events_report::EventsReport;
pub use laige_storage::command::{ApplyStats, CommandKind, CommandSkipReason, SkippedCommand};

/// Why a scheduled system did not run this tick. Recorded by the layer that decided it
/// (a run condition, an event trigger, a throttle, load shedding, a failure policy).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum SkipReason {
    /// Its run condition was false.
    RunConditionFalse,
    /// It runs on events and none were waiting.
    EventsEmpty,
    /// It runs at a lower rate than the tick and this tick was not its turn.
    Throttled,
    /// It was shed to keep the tick within its budget.
    Shed,
    /// A system it depends on failed or panicked this tick.
    DependencyFailed {
        /// The failed dependency.
        dependency: SystemId,
    },
    /// The tick was aborted before the system ran (the executor refused its track, or a
    /// failure policy stopped the tick).
    Aborted,
}

impl SkipReason {
    /// The reason's token in records and traces: `run_condition_false`, `events_empty`,
    /// `throttled`, `shed`, `dependency_failed`, `aborted`.
    pub const fn token(self) -> &'static str {
        match self {
            SkipReason::RunConditionFalse => "run_condition_false",
            SkipReason::EventsEmpty => "events_empty",
            SkipReason::Throttled => "throttled",
            SkipReason::Shed => "shed",
            SkipReason::DependencyFailed { .. } => "dependency_failed",
            SkipReason::Aborted => "aborted",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::RunConditionFalse => f.write_str("its run condition was false"),
            SkipReason::EventsEmpty => f.write_str("no events were waiting"),
            SkipReason::Throttled => f.write_str("throttled: not its turn this tick"),
            SkipReason::Shed => f.write_str("shed to keep the tick within budget"),
            SkipReason::DependencyFailed { dependency } => {
                write!(f, "its dependency (system id {dependency}) failed")
            }
            SkipReason::Aborted => f.write_str("the tick was aborted before it ran"),
        }
    }
}

/// How a system's run went this tick.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[non_exhaustive]
pub enum SystemOutcome {
    /// Not in the schedule the tick ran (or no tick ran yet).
    #[default]
    NotScheduled,
    /// It ran to the end.
    Ran,
    /// A typed system returned `Err`, or a parameter could not be fetched; its commands were
    /// dropped ([`TickError::SystemFailed`](crate::TickError::SystemFailed)).
    Failed,
    /// It panicked; its commands were dropped
    /// ([`TickError::Panicked`](crate::TickError::Panicked)).
    Panicked,
    /// It was scheduled but did not run.
    Skipped(SkipReason),
}

/// What one system did in the last tick.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SystemReport {
    /// The system.
    pub id: SystemId,
    /// Its registration name.
    pub name: &'static str,
    /// Whether it ran, failed, panicked or was skipped.
    pub outcome: SystemOutcome,
    /// Its commands carried out this tick.
    pub commands_applied: u32,
    /// Its commands skipped this tick.
    pub commands_skipped: u32,
    /// The first of them skipped, in recording order.
    pub first_skip: Option<SkippedCommand>,
}

impl SystemReport {
    fn new(id: SystemId, name: &'static str) -> Self {
        Self {
            id,
            name,
            outcome: SystemOutcome::NotScheduled,
            commands_applied: 0,
            commands_skipped: 0,
            first_skip: None,
        }
    }
}

/// Per tick, per system: how its run went and what became of its commands. Filled in place
/// by [`World::run_systems`](crate::World::run_systems) and read through
/// [`World::tick_report`](crate::World::tick_report); it is replaced by the next tick's.
#[derive(Clone, Debug, Default)]
pub struct TickReport {
    /// Ticks run so far; this report is of tick `tick` (0: none ran yet).
    tick: u64,
    /// By [`SystemId::index`].
    systems: Vec<SystemReport>,
    applied: usize,
    skipped: usize,
    /// The system of the first skipped command, in schedule order.
    first_skip: Option<SystemId>,
    /// The stamp of the schedule the baseline was laid out for.
    baseline: Option<u64>,
    /// By index: whether the system is in that schedule (its baseline is `Ran`).
    scheduled: Vec<bool>,
    /// The entries this tick changed from the baseline, each once (`changed[i]` tells).
    dirty: Vec<usize>,
    changed: Vec<bool>,
    /// What the event queues overflowed and dropped unread.
    events: EventsReport,
}

impl TickReport {
    /// The tick this report is of, counting from 1; 0 before the first tick.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Every registered system's report, by [`SystemId::index`].
    pub fn systems(&self) -> &[SystemReport] {
        &self.systems
    }

    /// System `id`'s report, if it was registered when the tick ran.
    pub fn system(&self, id: impl Into<SystemId>) -> Option<&SystemReport> {
        self.systems.get(id.into().index())
    }

    /// Commands carried out this tick, over every system.
    pub fn commands_applied(&self) -> usize {
        self.applied
    }

    /// Commands skipped this tick, over every system.
    pub fn commands_skipped(&self) -> usize {
        self.skipped
    }

    /// The first skipped command in schedule order, with its system's report.
    pub fn first_skip(&self) -> Option<(&SystemReport, &SkippedCommand)> {
        let system = self.system(self.first_skip?)?;
        Some((system, system.first_skip.as_ref()?))
    }

    /// What the event queues overflowed and dropped unread this tick.
    pub fn events(&self) -> &EventsReport {
        &self.events
    }

    pub(crate) fn events_mut(&mut self) -> &mut EventsReport {
        &mut self.events
    }

    /// Whether every scheduled system ran, every command was carried out, and no event
    /// overflowed or was dropped unread.
    pub fn is_clean(&self) -> bool {
        self.skipped == 0
            && self.events.is_clean()
            && self
                .systems
                .iter()
                .all(|it| matches!(it.outcome, SystemOutcome::Ran | SystemOutcome::NotScheduled))
    }

    /// Records how system `id`'s run went, for a layer that decides whether systems run (run
    /// conditions, throttles, failure policies); the World records ran, failed and panicked
    /// itself. An id not registered when the tick began is ignored.
    pub fn set_outcome(&mut self, id: impl Into<SystemId>, outcome: SystemOutcome) {
        if let Some(system) = self.touch(id.into()) {
            system.outcome = outcome;
        }
    }

    /// System `id`'s entry, marked as changed this tick.
    fn touch(&mut self, id: SystemId) -> Option<&mut SystemReport> {
        let index = id.index();
        let changed = self.changed.get_mut(index)?;
        if !*changed {
            *changed = true;
            // Within capacity: each entry is pushed once per tick.
            self.dirty.push(index);
        }
        self.systems.get_mut(index)
    }

    /// Sizes the report for every system of `registry`; allocates only when systems were
    /// registered since. Returns whether it did (the baseline is then laid out again).
    pub(crate) fn size_for<R>(&mut self, registry: &Registry<R>) -> bool {
        if self.systems.len() == registry.len() {
            return false;
        }
        self.systems.clear();
        self.systems.extend(
            registry
                .iter()
                .map(|record| SystemReport::new(record.id(), record.name())),
        );
        let n = self.systems.len();
        self.scheduled.resize(n, false);
        self.changed.clear();
        self.changed.resize(n, false);
        self.dirty.clear();
        self.dirty.reserve(n);
        self.baseline = None;
        true
    }

    /// Starts the next tick's report for `schedule`: every system of it `Ran`, every other
    /// `NotScheduled`, no command counted. Restores only what the last tick changed, unless
    /// the schedule or the systems changed.
    pub(crate) fn begin<R>(&mut self, registry: &Registry<R>, schedule: &Schedule) {
        self.size_for(registry);
        self.tick += 1;
        self.applied = 0;
        self.skipped = 0;
        self.first_skip = None;
        self.events.clear();
        if self.baseline != Some(schedule.stamp()) {
            self.lay_out(schedule);
            return;
        }
        for &index in &self.dirty {
            let system = &mut self.systems[index];
            *system = SystemReport::new(system.id, system.name);
            if self.scheduled[index] {
                system.outcome = SystemOutcome::Ran;
            }
            self.changed[index] = false;
        }
        self.dirty.clear();
    }

    /// Lays out the baseline for `schedule`: setup-time work, once per schedule.
    #[cold]
    #[inline(never)]
    fn lay_out(&mut self, schedule: &Schedule) {
        for (system, scheduled) in self.systems.iter_mut().zip(&mut self.scheduled) {
            *system = SystemReport::new(system.id, system.name);
            *scheduled = false;
        }
        for &id in schedule.order() {
            if let Some(system) = self.systems.get_mut(id.index()) {
                system.outcome = SystemOutcome::Ran;
                self.scheduled[id.index()] = true;
            }
        }
        self.changed.fill(false);
        self.dirty.clear();
        self.baseline = Some(schedule.stamp());
    }

    /// Marks every system of a track with `outcome` (the executor refused the track).
    #[cold]
    pub(crate) fn mark(&mut self, track: &[SystemId], outcome: SystemOutcome) {
        for &id in track {
            self.set_outcome(id, outcome);
        }
    }

    /// Counts what applying system `id`'s buffers did.
    pub(crate) fn record_apply(&mut self, id: SystemId, stats: &ApplyStats) {
        if stats.applied == 0 && stats.skipped == 0 {
            return;
        }
        self.applied += stats.applied;
        self.skipped += stats.skipped;
        if self.first_skip.is_none() && stats.first_skip.is_some() {
            self.first_skip = Some(id);
        }
        let Some(system) = self.touch(id) else {
            return;
        };
        system.commands_applied = system.commands_applied.saturating_add(stats.applied as u32);
        system.commands_skipped = system.commands_skipped.saturating_add(stats.skipped as u32);
        if system.first_skip.is_none() {
            system.first_skip = stats.first_skip;
        }
    }
}
