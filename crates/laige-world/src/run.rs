//! Running systems on the World: scheduling, the sequential tick, and the parallel tick.
//!
//! A tick runs the schedule track by track. After each track the systems' command buffers
//! are applied in the track's sequential order, whichever way the track ran; that, and the
//! plan ordering every conflicting pair as the sequential order does, is why world state is
//! bit-identical for any worker count.

use laige_diag::ClockSpan;
use laige_executor::{ChosenMode, ExecError, Executor, ExecutorOptions, Plan};
use laige_registry::{ComponentSet, Conflicts, LiveTables, SystemId, SystemSet};
use laige_runner::{RunError, Runner, TimingStats};
use laige_scheduler::{Layout, Schedule, ScheduleError, SystemRef};

use crate::gate::{FailurePolicy, PredsKey};
use crate::parallel_host::ParallelHost;
use crate::runtime::{CachedPlan, Runtime};
use crate::world::SystemState;
use crate::{
    SkipReason, SkippedCommand, SystemHost, SystemOutcome, TickError, TickReport, World, WorldError,
};

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
    /// The first failing check; its event is emitted too. After the scheduler's checks,
    /// [`ScheduleError::ResourceMissing`] for a typed system taking a plain `Res<T>` or
    /// `ResMut<T>` of a resource the world does not hold yet.
    pub fn schedule(&self) -> Result<Schedule, ScheduleError> {
        let schedule = match &self.runtime.layout {
            None => laige_scheduler::schedule(&self.registry),
            Some(layout) => laige_scheduler::schedule_declared(&self.registry, layout),
        }?;
        self.check_required_resources()?;
        Ok(schedule)
    }

    /// [`ScheduleError::ResourceMissing`] for the first typed system (in registration
    /// order) whose plain `Res`/`ResMut` names a resource the world does not hold.
    fn check_required_resources(&self) -> Result<(), ScheduleError> {
        let missing = self
            .required_resources
            .iter()
            .find(|&&(_, resource, _)| self.storage.resources().ptr(resource).is_none());
        let Some(&(id, _, resource)) = missing else {
            return Ok(());
        };
        let err = ScheduleError::ResourceMissing {
            system: SystemRef {
                id,
                name: self.registry.get(id).map_or("?", |it| it.name()),
            },
            resource,
        };
        self.registry.diagnostics().report(err.key(), || err.emit());
        Err(err)
    }

    /// Does ahead of time, for `schedule`, the setup work a tick would otherwise do on its
    /// first run, so that tick costs what every later one costs and allocates nothing the
    /// systems themselves do not: it checks the schedule against the registry, builds the
    /// executor's plan over the tables that exist now (when an executor is set), lays out a
    /// timeline's or a checksum record's rows, and sizes the versioned components' snapshots.
    ///
    /// Optional: a tick does whatever of this is still missing, and the results are the
    /// same either way. Prepare again after changing the schedule, the executor or the
    /// recorders; entities spawned since need no new prepare, but a new archetype makes the
    /// next parallel tick rebuild the plan. The snapshots the first tick's readers see are
    /// still taken at that tick, so setup between `prepare` and the first tick is seen.
    ///
    /// # Errors
    ///
    /// [`RunError::ScheduleStale`] or [`RunError::ScheduleInvalid`] when `schedule` cannot
    /// run on this world (its event is emitted); nothing is prepared then.
    pub fn prepare_schedule(&mut self, schedule: &Schedule) -> Result<(), RunError> {
        laige_runner::check(schedule, &self.registry)?;
        if self.runtime.executor.is_some() {
            let archetypes = self.storage.archetypes().len();
            if !self.runtime.plan_is_current(schedule, archetypes) {
                self.rebuild_plan(schedule, archetypes);
            }
        }
        self.prepare_observers(schedule);
        self.prepare_gate(schedule);
        self.runtime.report.size_for(&self.registry);
        if !self.runtime.ticked {
            // Sized now; the first tick refreshes them again for what it starts from.
            self.end_tick();
        }
        Ok(())
    }

    /// Runs every system of `schedule` once: one tick's system phase. Track by track, on
    /// the parallel executor if one is set ([`World::use_executor`]) or one at a time
    /// otherwise; each track's commands are applied after it, in schedule order. Then the
    /// versioned components' snapshots are refreshed ([`World::end_tick`]), so next tick's
    /// snapshot readers see this tick's final values.
    ///
    /// # Errors
    ///
    /// A stale or malformed schedule (nothing ran), a panicking or failing system (the rest
    /// ran), or a failure to apply commands.
    pub fn run_systems(&mut self, schedule: &Schedule) -> Result<(), TickError> {
        laige_runner::check(schedule, &self.registry)?;
        if !self.runtime.ticked {
            // Snapshot readers of the first tick see the state the world was set up with.
            self.end_tick();
            self.runtime.ticked = true;
        }
        self.observe_tick_start(schedule);
        self.runtime.gate.begin_tick();
        self.runtime.report.begin(&self.registry, schedule);
        self.begin_events_tick(schedule);
        let mut first_error = None;
        for (t, track) in schedule.tracks().enumerate() {
            self.assign_change_ticks(track);
            self.prepare_gate(schedule);
            self.observe_track_start();
            let unsettled = if self.runtime.executor.is_some() {
                match self.run_track_parallel(schedule, t) {
                    Ok(unsettled) => unsettled,
                    Err(err) => {
                        first_error.get_or_insert(TickError::Exec(err));
                        let aborted = SystemOutcome::Skipped(SkipReason::Aborted);
                        self.runtime.report.mark(track, aborted);
                        // Nothing ran; settle whatever the buffers hold, as after any track.
                        track.len()
                    }
                }
            } else {
                let mut host =
                    SystemHost::new(&mut self.storage, &self.registry, &mut self.systems)
                        .with_gate(&self.runtime.gate);
                // Checked once above, for every track.
                self.runtime
                    .runner
                    .run_checked(track, &self.registry, &mut host);
                host.unsettled()
            };
            self.observe_track_ran();
            if self.runtime.gate.is_active() {
                self.report_gate_skips(track);
            }
            self.runtime.gate.end_track();
            // The track's commands apply at a tick after every system of the track.
            self.storage.advance_change_tick();
            // A track whose systems left no panic, failure or command costs nothing more.
            if unsettled > 0
                && let Some(err) = self.settle_track(track)
            {
                first_error.get_or_insert(err);
            }
            self.observe_track(t);
        }
        if let Some(err) = self.end_events_tick() {
            first_error.get_or_insert(err);
        }
        self.end_tick();
        self.observe_tick_end();
        match first_error {
            Some(err) => Err(err),
            None => self.commands_skipped().map_or(Ok(()), Err),
        }
    }

    /// Gives each system of `track` the change tick its run starts at: one tick each, in the
    /// track's schedule order, so a system ordered after another (explicitly or by a
    /// conflict) runs at a later tick, on any runner and worker count.
    pub(crate) fn assign_change_ticks(&mut self, track: &[SystemId]) {
        for &id in track {
            let tick = self.storage.advance_change_tick();
            if let Some(state) = self.systems.get_mut(id.index()) {
                state.set_next_tick(tick);
            }
        }
    }

    /// What the last tick did, per system: how each run went, and its commands applied and
    /// skipped with the first skip's reason. Filled by [`World::run_systems`]; a game loop
    /// that keeps running through a [`TickError`] reads the detail here.
    pub fn tick_report(&self) -> &TickReport {
        &self.runtime.report
    }

    /// The tick report, for a layer above the World that decides whether systems run (run
    /// conditions, throttles, failure policies) and records why one was skipped
    /// ([`TickReport::set_outcome`]).
    pub fn tick_report_mut(&mut self) -> &mut TickReport {
        &mut self.runtime.report
    }

    /// The error naming the first command this tick skipped, reported as
    /// `system/commands_skipped`; `None` when every command was carried out.
    fn commands_skipped(&self) -> Option<TickError> {
        let report = &self.runtime.report;
        let (system, first) = report.first_skip()?;
        Some(self.report_skips(system.id, system.name, report.commands_skipped(), *first))
    }

    #[cold]
    #[inline(never)]
    fn report_skips(
        &self,
        system: SystemId,
        name: &'static str,
        skipped: usize,
        first: SkippedCommand,
    ) -> TickError {
        let err = TickError::CommandsSkipped {
            system,
            name,
            skipped,
            first,
        };
        self.registry.diagnostics().report(err.key(), || err.emit());
        err
    }

    /// What a tick does after a track some of whose systems panicked, failed or recorded
    /// commands: their panics are settled first, then the commands applied (a failed run's
    /// dropped). The first error of the two.
    #[inline(never)]
    pub(crate) fn settle_track(&mut self, track: &[SystemId]) -> Option<TickError> {
        let panicked = self.settle_panics(track);
        let finished = self.finish_track(track);
        panicked.or(finished.err())
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
            self.runtime.report.set_outcome(id, SystemOutcome::Panicked);
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

    /// Runs track `t` on the executor; returns how many of its systems left something to
    /// settle, as the sequential host counts them.
    fn run_track_parallel(&mut self, schedule: &Schedule, t: usize) -> Result<usize, ExecError> {
        let archetypes = self.storage.archetypes().len();
        if !self.runtime.plan_is_current(schedule, archetypes) {
            self.rebuild_plan(schedule, archetypes);
        }
        let Runtime {
            runner,
            executor,
            plan,
            gate,
            ..
        } = &mut self.runtime;
        let (executor, plan) = match (executor, plan) {
            (Some(executor), Some(cached)) => (executor, &cached.plan),
            // Unreachable (the plan was just built); settle the whole track as after any.
            _ => return Ok(usize::MAX),
        };
        let host = ParallelHost::new(&self.storage, &mut self.systems, gate);
        // The host contains every system's panic itself (`SystemState::run_contained`), so the
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
        // `run_track` returned after every worker finished the track, so every count is in.
        res.map(|_| host.unsettled())
    }

    /// Setup-time work, kept out of the tick's code: a new schedule, or new archetypes since
    /// the plan was built. The World hands the plan what it must order as data: the
    /// schedule's strong edges and the conflicts over the live tables.
    #[cold]
    #[inline(never)]
    fn rebuild_plan(&mut self, schedule: &Schedule, archetypes: usize) {
        let plan = Plan::build(
            schedule,
            &schedule.strong_edges(&self.registry),
            &self.live_conflicts(),
        );
        self.runtime.plan = Some(CachedPlan {
            schedule: schedule.stamp(),
            archetypes,
            plan,
        });
    }

    /// What a failure skips from now on, on the sequential runner and the executor alike:
    /// `policy`. A failed system's commands are dropped and it is reported under any.
    pub fn set_failure_policy(&mut self, policy: FailurePolicy) {
        self.runtime.gate.policy = policy;
    }

    /// Skips system `id` in the next tick, for `reason`: it is not run, it records no
    /// commands, and its successors run (a skip is not a failure). For a layer above that
    /// decides whether systems run: a throttle, load shedding, a run condition. The request
    /// holds for one tick; ask again for the next.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered.
    pub fn skip_next_tick(
        &mut self,
        id: impl Into<SystemId>,
        reason: SkipReason,
    ) -> Result<(), WorldError> {
        let id = id.into();
        self.runtime.gate.size_for(self.registry.len());
        let (status, cause) = reason.code();
        if self.registry.get(id).is_err() || !self.runtime.gate.request(id.index(), status, cause) {
            return Err(self.storage.report(WorldError::UnknownSystem {
                id: id.get(),
                systems: self.registry.len(),
            }));
        }
        Ok(())
    }

    /// Why system `id` did not run in the last tick: a requested skip or the failure
    /// policy's; `None` when it ran (or failed, or was not scheduled).
    pub fn last_skip(&self, id: impl Into<SystemId>) -> Option<SkipReason> {
        let (status, cause) = self.runtime.gate.status(id.into().index());
        SkipReason::from_code(status, cause)
    }

    /// The failure policy ([`FailurePolicy::Isolate`] unless set).
    pub fn failure_policy(&self) -> FailurePolicy {
        self.runtime.gate.policy
    }

    /// Writes the skips of `track` (requested, or decided by the failure policy) into the
    /// tick report, over the `Ran` it was marked with.
    #[cold]
    #[inline(never)]
    fn report_gate_skips(&mut self, track: &[SystemId]) {
        for &id in track {
            if let Some(reason) = self.last_skip(id) {
                self.runtime
                    .report
                    .set_outcome(id, SystemOutcome::Skipped(reason));
            }
        }
    }

    /// Sizes the tick's skip tables and, under a policy that propagates failures, builds
    /// each system's predecessors once per schedule (and, under `AbortTick`, per set of live
    /// tables): setup-time work, so a tick that finds them current allocates nothing.
    fn prepare_gate(&mut self, schedule: &Schedule) {
        let policy = self.runtime.gate.policy;
        self.runtime.gate.size_for(self.registry.len());
        if policy == FailurePolicy::Continue {
            return;
        }
        let archetypes = match policy {
            FailurePolicy::AbortTick => self.storage.archetypes().len(),
            _ => 0,
        };
        let key = PredsKey {
            schedule: schedule.stamp(),
            archetypes,
            policy,
        };
        if !self.runtime.gate.preds_match(key) {
            self.rebuild_gate_preds(schedule, key);
        }
    }

    /// Per system, the systems whose failure it inherits: its strong edges under `Isolate`;
    /// under `AbortTick` also the earlier systems of its track it conflicts with, which is
    /// what the executor's plan orders before it.
    #[cold]
    #[inline(never)]
    fn rebuild_gate_preds(&mut self, schedule: &Schedule, key: PredsKey) {
        let mut preds = schedule.strong_edges(&self.registry);
        if key.policy == FailurePolicy::AbortTick {
            let conflicts = self.live_conflicts();
            for track in schedule.tracks() {
                let mut earlier = SystemSet::EMPTY;
                for &id in track {
                    if let Some(set) = preds.get_mut(id.index()) {
                        *set = set.union(&conflicts.of(id).intersection(&earlier));
                    }
                    earlier.insert(id);
                }
            }
        }
        self.runtime.gate.set_preds(key, preds);
    }

    /// Which systems may touch the same data now, by the registry's one rule
    /// ([`SystemRecord::conflict_with`](laige_registry::SystemRecord::conflict_with)) over
    /// the tables that exist: the World knows the tables and the resources, so it hands them
    /// down as data and the plan only orders what it is told (0008). Archetypes never
    /// disappear and new ones appear only between tracks, when the plan is rebuilt.
    fn live_conflicts(&self) -> Conflicts {
        let tables: Vec<ComponentSet> = self
            .storage
            .archetypes()
            .iter()
            .map(|it| *it.signature())
            .collect();
        let components = self.storage.components();
        let live =
            LiveTables::new(&tables, components.resources()).with_sparse(components.sparse());
        self.registry.conflicts(Some(&live))
    }

    /// Runs ticks on a persistent pool of worker threads from now on (`threads` counts the
    /// calling thread; 0 means every core). Per-system timing follows [`World::set_timing`].
    pub fn use_executor(&mut self, options: ExecutorOptions) {
        let options = ExecutorOptions {
            time_systems: self.runtime.time_systems(),
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

    /// How each track ran in the last tick on the executor (auto mode decides per track):
    /// one entry per track of the schedule the executor's plan was built for; empty without
    /// an executor or before its first tick.
    pub fn last_modes(&self) -> &[Option<ChosenMode>] {
        let (Some(executor), Some(cached)) = (&self.runtime.executor, &self.runtime.plan) else {
            return &[];
        };
        let modes = executor.last_modes();
        &modes[..cached.plan.track_count().min(modes.len())]
    }

    /// The plan the executor runs: the schedule's DAG with access conflicts.
    pub fn plan(&self) -> Option<&Plan> {
        self.runtime.plan.as_ref().map(|it| &it.plan)
    }

    /// Switches per-system timing and budget checks on or off (on by default).
    pub fn set_timing(&mut self, on: bool) {
        self.runtime.set_timing(on);
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
    pub fn timing_stats(&self, id: impl Into<SystemId>) -> Result<TimingStats, WorldError> {
        let id = id.into();
        let unknown = || WorldError::UnknownSystem {
            id: id.get(),
            systems: self.registry.len(),
        };
        self.registry.get(id).map_err(|_| unknown())?;
        self.runtime.runner.timing_stats(id).ok_or_else(unknown)
    }

    /// Keeps each system's last span (its raw clock readings and the thread that ran it)
    /// from now on, or stops; recording a timeline keeps them too.
    pub fn keep_system_spans(&mut self, on: bool) {
        self.runtime.keep_spans(on);
    }

    /// The span of system `id`'s last run, on the runner or the executor: raw readings of
    /// the world's clock ([`WorldOptions::clock`](crate::WorldOptions::clock)) and the
    /// thread index. All zero unless spans are kept ([`World::keep_system_spans`]).
    pub fn last_span(&self, id: impl Into<SystemId>) -> ClockSpan {
        self.runtime.last_span(id.into())
    }

    /// The sequential runner, for its timing table.
    pub fn runner(&self) -> &Runner {
        &self.runtime.runner
    }
}
