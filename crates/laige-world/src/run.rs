//! Running systems on the World: scheduling, the sequential tick, and the parallel tick.
//!
//! A tick runs the schedule track by track. After each track the systems' command buffers
//! are applied in the track's sequential order, whichever way the track ran; that, and the
//! plan ordering every conflicting pair as the sequential order does, is why world state is
//! bit-identical for any worker count.

use std::fmt;

use laige_diag::TickClock;
use laige_executor::{ChosenMode, ExecError, Executor, ExecutorOptions, Plan, SharedHost};
use laige_registry::{Registry, SystemId};
use laige_runner::{RunError, Runner, RunnerOptions, TimingStats};
use laige_scheduler::{DeclError, Layout, Schedule, ScheduleError};

use crate::world::SystemState;
use crate::{Storage, SystemContext, SystemFn, SystemHost, SystemMeta, World, WorldError};

/// How the World runs ticks: the sequential runner (timing and budgets), an optional
/// parallel executor, the declarative layout, and the plan cached for the executor.
#[derive(Debug)]
pub(crate) struct Runtime {
    runner: Runner,
    layout: Option<Layout>,
    executor: Option<Executor>,
    plan: Option<CachedPlan>,
    ticked: bool,
}

#[derive(Debug)]
struct CachedPlan {
    schedule: u64,
    archetypes: usize,
    plan: Plan,
}

impl Runtime {
    pub(crate) fn new(timing: bool, clock: TickClock) -> Self {
        Self {
            runner: Runner::with_clock(RunnerOptions { timing }, clock),
            layout: None,
            executor: None,
            plan: None,
            ticked: false,
        }
    }
}

/// Why [`World::schedule`] produced no schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
// `ScheduleError` is large by design (scheduling never allocates, not even for its
// errors); this is returned once, at setup.
#[allow(clippy::large_enum_variant)]
pub enum SchedulingError {
    /// The flat laige rules failed (no layout set).
    Flat(ScheduleError),
    /// The declarative rules failed (a layout is set).
    Declared(DeclError),
}

impl fmt::Display for SchedulingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulingError::Flat(err) => err.fmt(f),
            SchedulingError::Declared(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for SchedulingError {}

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
    /// The executor refused the track before running anything.
    Exec(ExecError),
    /// Applying commands failed.
    Apply(WorldError),
}

laige_diag::diagnostics! {
    TickError in System;
    Run(err) => err;
    Panicked { system, %name, %message }
        => error system_panicked { system = name, id = system.get(), message = message.as_ref() }
        "system `{name}` panicked: {message}: the rest of its track ran and its commands of this \
         tick were dropped; the next tick runs normally. Fix the system, or handle the failure \
         inside it";
    Exec(err) => err;
    Apply(err) => err;
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

impl World {
    /// Switches to the declarative front end: [`World::schedule`] places the systems into
    /// `layout`'s tracks, DAGs and phases and derives the DAG from their access.
    pub fn set_layout(&mut self, layout: Layout) {
        self.runtime.layout = Some(layout);
    }

    /// The declarative layout, if one is set.
    pub fn layout(&self) -> Option<&Layout> {
        self.runtime.layout.as_ref()
    }

    /// Computes and validates the execution order: the flat laige rules, or the
    /// declarative rules when a layout is set. Compute it again after registering systems.
    ///
    /// # Errors
    ///
    /// The first failing check; its event is emitted too.
    #[allow(clippy::result_large_err)] // see `SchedulingError`
    pub fn schedule(&self) -> Result<Schedule, SchedulingError> {
        match &self.runtime.layout {
            None => laige_scheduler::schedule(&self.registry).map_err(SchedulingError::Flat),
            Some(layout) => laige_scheduler::schedule_declared(&self.registry, layout)
                .map_err(SchedulingError::Declared),
        }
    }

    /// Runs every system of `schedule` once: one tick's system phase. Track by track, on
    /// the parallel executor if one is set ([`World::use_executor`]) or one at a time
    /// otherwise; each track's commands are applied after it, in schedule order. Then the
    /// versioned components' snapshots are refreshed ([`World::end_tick`]), so next tick's
    /// snapshot readers see this tick's final values.
    ///
    /// # Errors
    ///
    /// A stale or malformed schedule (nothing ran), a panicking system (the rest ran), or a
    /// failure to apply commands.
    pub fn run_systems(&mut self, schedule: &Schedule) -> Result<(), TickError> {
        laige_runner::check(schedule, &self.registry)?;
        if !self.runtime.ticked {
            // Snapshot readers of the first tick see the state the world was set up with.
            self.end_tick();
            self.runtime.ticked = true;
        }
        let mut first_error = None;
        for (t, track) in schedule.tracks().enumerate() {
            if self.runtime.executor.is_some() {
                if let Err(err) = self.run_track_parallel(schedule, t) {
                    first_error.get_or_insert(TickError::Exec(err));
                }
            } else {
                let mut host = SystemHost::new(&self.storage, &self.registry, &mut self.systems);
                // Checked once above, for every track.
                self.runtime
                    .runner
                    .run_checked(track, &self.registry, &mut host);
            }
            if let Some(err) = self.settle_panics(track) {
                first_error.get_or_insert(err);
            }
            if let Err(err) = self.apply_commands(track.iter().copied()) {
                first_error.get_or_insert(TickError::Apply(err));
            }
        }
        self.end_tick();
        first_error.map_or(Ok(()), Err)
    }

    /// Settles the panics of `track`'s systems, in schedule order, whichever way the track
    /// ran: each panicked system's half-recorded commands are dropped and one
    /// `system/system_panicked` event is reported for it. Returns the first as the error.
    fn settle_panics(&mut self, track: &[SystemId]) -> Option<TickError> {
        let mut first = None;
        for &id in track {
            let Some(message) = self
                .systems
                .get_mut(id.index())
                .and_then(SystemState::take_panic)
            else {
                continue;
            };
            let name = self.registry.get(id).map_or("?", |it| it.name());
            let err = TickError::Panicked {
                system: id,
                name,
                message: message.to_string().into(),
            };
            self.registry.diagnostics().report(err.key(), || err.emit());
            first.get_or_insert(err);
        }
        first
    }

    fn run_track_parallel(&mut self, schedule: &Schedule, t: usize) -> Result<(), ExecError> {
        let archetypes = self.storage.archetypes().len();
        let cached = self.runtime.plan.as_ref();
        if cached.is_none_or(|it| it.schedule != schedule.stamp() || it.archetypes != archetypes) {
            // Setup-time work: a new schedule, or new archetypes since the plan was built.
            let plan = Plan::build(schedule, |a, b| self.conflict(a, b));
            self.runtime.plan = Some(CachedPlan {
                schedule: schedule.stamp(),
                archetypes,
                plan,
            });
        }
        let Runtime {
            runner,
            executor,
            plan,
            ..
        } = &mut self.runtime;
        let (executor, plan) = match (executor, plan) {
            (Some(executor), Some(cached)) => (executor, &cached.plan),
            _ => return Ok(()),
        };
        let host = ParallelHost {
            storage: &self.storage,
            registry: &self.registry,
            systems: self.systems.as_mut_ptr(),
            len: self.systems.len(),
        };
        // The host contains every system's panic itself (`SystemState::contain`), so the
        // executor never sees one; `settle_panics` reports them after the track.
        let res = executor.run_track(plan, t, self.registry.runs(), &host);
        if runner.options().timing {
            // Budget events go out here, on the calling thread, in schedule order: the
            // warning sequence does not depend on which worker ran what.
            let diag = self.registry.diagnostics();
            for &id in plan.track(t) {
                let record = &self.registry.records()[id.index()];
                runner
                    .timing_mut()
                    .observe(record, executor.last_duration(id), diag);
            }
        }
        res.map(|_| ())
    }

    /// Whether systems `a` and `b` may touch the same data now: one writes a component the
    /// other reads or writes, in a table both may visit (their `matching` footprints and
    /// the component all present), or a shared resource. Archetypes never disappear and new
    /// ones appear only between tracks, when the plan is rebuilt.
    fn conflict(&self, a: SystemId, b: SystemId) -> bool {
        let (Ok(ra), Ok(rb)) = (self.registry.get(a), self.registry.get(b)) else {
            return true;
        };
        let shared = ra
            .writes()
            .intersection(&rb.writes().union(rb.reads()))
            .union(&rb.writes().intersection(ra.reads()));
        if shared.is_empty() {
            return false;
        }
        if shared.intersects(self.storage.components().resources()) {
            return true;
        }
        let footprint = ra.matching().union(rb.matching());
        let archetypes = self.storage.archetypes();
        shared.iter().any(|c| {
            self.storage
                .tables_with(c)
                .iter()
                .any(|entry| footprint.is_subset(archetypes[entry.table() as usize].signature()))
        })
    }

    /// Runs ticks on a persistent pool of worker threads from now on (`threads` counts the
    /// calling thread; 0 means every core). Per-system timing follows [`World::set_timing`].
    pub fn use_executor(&mut self, options: ExecutorOptions) {
        let options = ExecutorOptions {
            time_systems: self.runtime.runner.options().timing,
            ..options
        };
        self.runtime.executor = Some(Executor::with_clock(
            options,
            self.runtime.runner.clock().clone(),
        ));
        self.runtime.plan = None;
    }

    /// Runs ticks one system at a time on the calling thread from now on (the default).
    pub fn use_sequential(&mut self) {
        self.runtime.executor = None;
        self.runtime.plan = None;
    }

    /// The parallel executor, if one is set.
    pub fn executor(&self) -> Option<&Executor> {
        self.runtime.executor.as_ref()
    }

    /// How each track ran in the last tick on the executor (auto mode decides per track).
    pub fn last_modes(&self) -> &[Option<ChosenMode>] {
        self.runtime
            .executor
            .as_ref()
            .map_or(&[], Executor::last_modes)
    }

    /// The plan the executor runs: the schedule's DAG with access conflicts.
    pub fn plan(&self) -> Option<&Plan> {
        self.runtime.plan.as_ref().map(|it| &it.plan)
    }

    /// Switches per-system timing and budget checks on or off (on by default).
    pub fn set_timing(&mut self, on: bool) {
        self.runtime.runner.set_timing(on);
        if let Some(executor) = &self.runtime.executor {
            let options = ExecutorOptions {
                time_systems: on,
                ..executor.options()
            };
            self.runtime.executor = Some(Executor::with_clock(
                options,
                self.runtime.runner.clock().clone(),
            ));
        }
    }

    /// Whether per-system timing is on.
    pub fn timing(&self) -> bool {
        self.runtime.runner.options().timing
    }

    /// The timing of system `id`: runs, last duration, budget breaches, window p99.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered.
    pub fn timing_stats(&self, id: SystemId) -> Result<TimingStats, WorldError> {
        let unknown = || WorldError::UnknownSystem {
            id: id.get(),
            systems: self.registry.len(),
        };
        self.registry.get(id).map_err(|_| unknown())?;
        self.runtime.runner.timing_stats(id).ok_or_else(unknown)
    }

    /// The sequential runner, for its timing table.
    pub fn runner(&self) -> &Runner {
        &self.runtime.runner
    }
}

/// Runs systems of one world from several threads at once.
struct ParallelHost<'w> {
    storage: &'w Storage,
    registry: &'w Registry<SystemFn>,
    systems: *mut SystemState,
    len: usize,
}

// SAFETY: the raw pointer is only dereferenced at `systems[id.index()]` by the thread
// running system `id`, and the executor never runs one system twice at once, so no two
// threads touch the same `SystemState`; `Storage` and `Registry` are `Sync`.
unsafe impl Sync for ParallelHost<'_> {}

// SAFETY: `run_system` gives each system exclusive access to its own state and shared
// access to the storage through `SystemContext::new`, whose contract (no concurrently
// running system conflicts with this one) is exactly what the executor guarantees for
// the plan it runs; the plan orders every pair whose declared access conflicts.
unsafe impl SharedHost<SystemFn> for ParallelHost<'_> {
    unsafe fn run_system(&self, id: SystemId, run: &SystemFn) {
        let (Ok(record), true) = (self.registry.get(id), id.index() < self.len) else {
            return;
        };
        // SAFETY: in bounds (checked above); only this call touches system `id`'s state
        // while it runs (see the `Sync` impl), and `self.systems` outlives the tick.
        let state = unsafe { &mut *self.systems.add(id.index()) };
        let meta = SystemMeta::of(record);
        state.contain(|commands, rng| {
            // SAFETY: the caller guarantees no concurrently running system conflicts with
            // this one, which is `SystemContext::new`'s contract; the storage is not borrowed
            // mutably during a tick.
            let mut ctx = unsafe { SystemContext::new(self.storage, meta, commands, rng) };
            run(&mut ctx);
        });
    }
}
