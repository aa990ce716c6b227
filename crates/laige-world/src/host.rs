//! The integration points for runners and executors: building a system's context while the
//! registry is borrowed separately, and applying command buffers in schedule order.
//!
//! A sequential tick is
//!
//! ```
//! # use laige_world::{World, WorldOptions};
//! # let mut world = World::new(WorldOptions::default());
//! # world.system("Noop", || {}).register().unwrap();
//! # let order: Vec<_> = world.registry().iter().map(|r| r.id()).collect();
//! // `order` comes from the scheduler: `schedule(world.registry())?.order()`.
//! let (registry, mut host) = world.split_for_run();
//! for &id in &order {
//!     let run = *registry.run(id).unwrap();
//!     host.run(id, &run).unwrap();
//! }
//! world.apply_commands(order.iter().copied()).unwrap();
//! ```
//!
//! [`SystemHost`] also implements the runner's [`Host`] trait, so
//! `runner.run(&schedule, registry, &mut host)` drives it directly.

use std::error::Error;

use laige_registry::{Registry, SystemId};
use laige_runner::Host;

use crate::command::ApplyStats;
use crate::gate::Gate;
use crate::system::BoxError;
use crate::world::{RunEnd, SystemState};
use crate::{
    Queries, Storage, SystemContext, SystemOutcome, SystemRun, TickError, TickReport, World,
    WorldError,
};

/// Runs systems of one world by id, building each one's fresh [`SystemContext`].
///
/// It holds the storage and each system's command buffer and PRNG exclusively, so it runs
/// systems one at a time, each through a view made with [`Queries::exclusive`]. A parallel
/// executor takes the parts ([`SystemHost::parts`]) and builds views itself through the
/// `unsafe` [`Queries::new`], under the access proof of its schedule.
#[derive(Debug)]
pub struct SystemHost<'w> {
    storage: &'w mut Storage,
    registry: &'w Registry<SystemRun>,
    systems: &'w mut [SystemState],
    /// How many systems this host ran were left unsettled ([`SystemState::is_settled`]).
    unsettled: usize,
    /// The tick's skips, when the World runs a tick through this host.
    gate: Option<&'w Gate>,
}

impl<'w> SystemHost<'w> {
    pub(crate) fn new(
        storage: &'w mut Storage,
        registry: &'w Registry<SystemRun>,
        systems: &'w mut [SystemState],
    ) -> Self {
        Self {
            storage,
            registry,
            systems,
            unsettled: 0,
            gate: None,
        }
    }

    /// This host with the tick's skips: a skipped system is not run, and a failed one is
    /// recorded for its successors.
    pub(crate) fn with_gate(mut self, gate: &'w Gate) -> Self {
        self.gate = Some(gate);
        self
    }

    /// How many of the systems this host ran through [`Host::run_system`] left something
    /// for the tick to settle after the track: a panic, a failure, or commands to apply.
    pub(crate) fn unsettled(&self) -> usize {
        self.unsettled
    }

    /// A fresh context for system `id`.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered.
    pub fn context(&mut self, id: SystemId) -> Result<SystemContext<'_>, WorldError> {
        SystemHost::new(self.storage, self.registry, self.systems).into_context(id)
    }

    /// A fresh context for system `id`, holding the host's borrows.
    fn into_context(self, id: SystemId) -> Result<SystemContext<'w>, WorldError> {
        let Self {
            storage,
            registry,
            systems,
            ..
        } = self;
        let state = state_of(storage, registry, systems, id)?;
        let (meta, commands, rng, batches) = state.parts_with_batches();
        let view = Queries::exclusive(storage, Some(meta));
        Ok(SystemContext::with_batches(
            view, meta, commands, rng, batches,
        ))
    }

    /// Runs system `id`, whose registry entry is `run`: a low-level system's `fn` with a
    /// fresh context, or a typed system's function with its parameters. A typed system's
    /// failure is kept in its state ([`SystemState::failure`]); a panic unwinds to the
    /// caller.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered; nothing runs.
    pub fn run(&mut self, id: SystemId, run: &SystemRun) -> Result<(), WorldError> {
        let state = state_of(self.storage, self.registry, self.systems, id)?;
        state.run(&mut &mut *self.storage, run);
        Ok(())
    }

    /// The parts, for an executor that builds views itself: the storage, the registry, and
    /// the per-system states indexed by [`SystemId::index`].
    pub fn parts(&mut self) -> (&Storage, &'w Registry<SystemRun>, &mut [SystemState]) {
        (self.storage, self.registry, self.systems)
    }
}

/// System `id`'s state, or the reported error of an unknown id.
fn state_of<'s>(
    storage: &Storage,
    registry: &Registry<SystemRun>,
    systems: &'s mut [SystemState],
    id: SystemId,
) -> Result<&'s mut SystemState, WorldError> {
    match systems.get_mut(id.index()) {
        Some(state) => Ok(state),
        None => Err(storage.report(WorldError::UnknownSystem {
            id: id.get(),
            systems: registry.len(),
        })),
    }
}

impl Host<SystemRun> for SystemHost<'_> {
    /// Runs system `id`; an unknown id runs nothing (and is reported as `ecs/system_unknown`).
    /// A panic is kept in the system's state, not unwound into the runner: the World settles
    /// it after the track, as it does for a track run on the executor.
    fn run_system(&mut self, id: SystemId, run: &SystemRun) {
        let gate = self.gate;
        if let Some(gate) = gate
            && gate.is_active()
            && gate.skips(id)
        {
            return;
        }
        // The error was reported; the runner checked the schedule against the registry first.
        let Ok(state) = state_of(self.storage, self.registry, self.systems, id) else {
            return;
        };
        match state.run_contained(&mut *self.storage, run) {
            RunEnd::Settled => {}
            RunEnd::Unsettled => {
                if state.take_events_skip()
                    && let Some(gate) = gate
                {
                    gate.record_skip(id, crate::gate::code::EVENTS_EMPTY);
                }
                self.unsettled += 1;
                if let Some(gate) = gate
                    && state.is_troubled()
                {
                    gate.record_failure(id);
                }
            }
            RunEnd::Skipped => {
                if let Some(gate) = gate {
                    gate.record_condition_skip(id);
                }
            }
        }
    }
}

impl World {
    /// Splits the world into its registry and a host that runs systems, so a runner can read
    /// the registry while the host builds contexts.
    pub fn split_for_run(&mut self) -> (&Registry<SystemRun>, SystemHost<'_>) {
        let host = SystemHost::new(&mut self.storage, &self.registry, &mut self.systems);
        (&self.registry, host)
    }

    /// A fresh context for system `id`, for running it by hand (tests, tools).
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered.
    pub fn context(&mut self, id: impl Into<SystemId>) -> Result<SystemContext<'_>, WorldError> {
        self.split_for_run().1.into_context(id.into())
    }

    /// Applies the command buffers of the systems in `order` (the schedule's order), one
    /// buffer after the other, each in recording order, and empties them. So when two systems
    /// insert the same component on one entity, the later one in `order` wins, and entities
    /// spawned by commands get their ids in that order. Stale targets are skipped and reported.
    /// The buffer of a system whose run failed since the last apply
    /// ([`SystemState::failure`]) is dropped instead, with the failure: a failed run changes
    /// nothing.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] for an id in `order` that is not registered: it is
    /// reported and skipped, the other buffers are still applied, and the first such error
    /// is returned.
    pub fn apply_commands(
        &mut self,
        order: impl IntoIterator<Item = SystemId>,
    ) -> Result<ApplyStats, WorldError> {
        self.apply_in_order(order, None, |_, _, _| {})
    }

    /// [`World::apply_commands`], handing each dropped failure to `failed` with the registry
    /// that names its system, and counting each system's commands in `report` if given.
    fn apply_in_order(
        &mut self,
        order: impl IntoIterator<Item = SystemId>,
        mut report: Option<&mut TickReport>,
        mut failed: impl FnMut(&Registry<SystemRun>, SystemId, BoxError),
    ) -> Result<ApplyStats, WorldError> {
        let mut stats = ApplyStats::default();
        let mut first_error = None;
        for id in order {
            let Some(state) = self.systems.get_mut(id.index()) else {
                let err = WorldError::UnknownSystem {
                    id: id.get(),
                    systems: self.registry.len(),
                };
                first_error.get_or_insert(self.storage.report(err));
                continue;
            };
            if let Some(failure) = state.drop_failed_commands() {
                stats.dropped_buffers += 1;
                if let Some(report) = report.as_deref_mut() {
                    report.set_outcome(id, SystemOutcome::Failed);
                }
                failed(&self.registry, id, failure);
                continue;
            }
            if state.is_settled() {
                continue;
            }
            // A system's own buffer was bound to this world by its commands, so it is never foreign.
            // The system's own commands, then its `par_each` batches' in batch order.
            let (_, commands, _, batches) = state.parts_with_batches();
            let mut system = self.storage.apply_commands(commands)?;
            for buffer in batches.used_buffers() {
                system += self.storage.apply_commands(buffer)?;
            }
            if let Some(report) = report.as_deref_mut() {
                report.record_apply(id, &system);
            }
            stats += system;
        }
        match first_error {
            Some(err) => Err(err),
            None => Ok(stats),
        }
    }

    /// What a tick does after each track: applies the track's command buffers (a failed
    /// run's are dropped) and reports each failed run, in schedule order, as
    /// `system/system_failed`. The first failure, else the first apply error.
    pub(crate) fn finish_track(&mut self, track: &[SystemId]) -> Result<(), TickError> {
        let mut first_failure = None;
        // Taken out for the apply, which borrows the world; moving it allocates nothing.
        let mut report = std::mem::take(&mut self.runtime.report);
        let applied = self.apply_in_order(
            track.iter().copied(),
            Some(&mut report),
            |registry, id, failure| {
                let err = report_failure(registry, id, &*failure);
                first_failure.get_or_insert(err);
            },
        );
        self.runtime.report = report;
        match (first_failure, applied) {
            (Some(err), _) => Err(err),
            (None, Err(err)) => Err(TickError::Apply(err)),
            (None, Ok(_)) => Ok(()),
        }
    }
}

/// The error of system `id`'s failed run, reported (`system/system_failed`).
#[cold]
fn report_failure(
    registry: &Registry<SystemRun>,
    id: SystemId,
    failure: &(dyn Error + Send + Sync),
) -> TickError {
    // Only this path allocates: a failure allocated its error already.
    let err = TickError::SystemFailed {
        system: id,
        name: registry.get(id).map_or("?", |it| it.name()),
        message: failure.to_string().into(),
    };
    registry.diagnostics().report(err.key(), || err.emit());
    err
}
