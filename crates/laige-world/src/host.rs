//! The integration points for runners and executors: building a system's context while the
//! registry is borrowed separately, and applying command buffers in schedule order.
//!
//! A sequential tick is
//!
//! ```
//! # use laige_world::{World, WorldOptions, SystemContext};
//! # fn noop(_: &mut SystemContext<'_>) {}
//! # let mut world = World::new(WorldOptions::default());
//! # world.system("Noop", noop).budget_ms(1.0).register().unwrap();
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

use laige_registry::{Registry, SystemId};
use laige_runner::Host;

use crate::command::ApplyStats;
use crate::world::SystemState;
use crate::{Storage, SystemContext, SystemFn, SystemMeta, World, WorldError};

/// Runs systems of one world by id, building each one's fresh [`SystemContext`].
///
/// It holds the storage shared and each system's command buffer and PRNG exclusively, so
/// it can run systems one at a time safely. A parallel executor takes the parts
/// ([`SystemHost::parts`]) and builds contexts itself through the `unsafe`
/// [`SystemContext::new`], under the access proof of its schedule.
#[derive(Debug)]
pub struct SystemHost<'w> {
    storage: &'w Storage,
    registry: &'w Registry<SystemFn>,
    systems: &'w mut [SystemState],
}

impl<'w> SystemHost<'w> {
    pub(crate) fn new(
        storage: &'w Storage,
        registry: &'w Registry<SystemFn>,
        systems: &'w mut [SystemState],
    ) -> Self {
        Self {
            storage,
            registry,
            systems,
        }
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
        let storage = self.storage;
        let (meta, state) = self.into_state(id)?;
        let (commands, rng) = state.parts_mut();
        // SAFETY: the host holds the storage shared for 'w and no `&mut` to it exists (the
        // world is borrowed mutably by the host); the host is consumed, so this is the only
        // context made from its borrows, and no other context can access any component
        // meanwhile.
        Ok(unsafe { SystemContext::new(storage, meta, commands, rng) })
    }

    /// System `id`'s declared access and its state, holding the host's borrows.
    fn into_state(self, id: SystemId) -> Result<(SystemMeta, &'w mut SystemState), WorldError> {
        let unknown = || WorldError::UnknownSystem {
            id: id.get(),
            systems: self.registry.len(),
        };
        let Ok(record) = self.registry.get(id) else {
            return Err(self.storage.report(unknown()));
        };
        let Some(state) = self.systems.get_mut(id.index()) else {
            return Err(self.storage.report(unknown()));
        };
        Ok((SystemMeta::of(record), state))
    }

    /// Runs system `id`: builds its fresh context and calls `run` with it.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered; nothing runs.
    pub fn run(&mut self, id: SystemId, run: &SystemFn) -> Result<(), WorldError> {
        let mut ctx = self.context(id)?;
        run(&mut ctx);
        Ok(())
    }

    /// The parts, for an executor that builds contexts itself: the storage, the registry,
    /// and the per-system states indexed by [`SystemId::index`].
    pub fn parts(&mut self) -> (&'w Storage, &'w Registry<SystemFn>, &mut [SystemState]) {
        (self.storage, self.registry, self.systems)
    }
}

impl Host<SystemFn> for SystemHost<'_> {
    /// Runs system `id`; an unknown id runs nothing (and is reported as `ecs/system_unknown`).
    /// A panic is kept in the system's state, not unwound into the runner: the World settles
    /// it after the track, as it does for a track run on the executor.
    fn run_system(&mut self, id: SystemId, run: &SystemFn) {
        let storage = self.storage;
        // The error was reported; the runner checked the schedule against the registry first.
        let Ok((meta, state)) =
            SystemHost::new(storage, self.registry, self.systems).into_state(id)
        else {
            return;
        };
        state.contain(|commands, rng| {
            // SAFETY: as in `into_context`: the host holds the storage shared and the world
            // mutably, and this context is the only one alive while the system runs.
            let mut ctx = unsafe { SystemContext::new(storage, meta, commands, rng) };
            run(&mut ctx);
        });
    }
}

impl World {
    /// Splits the world into its registry and a host that runs systems, so a runner can read
    /// the registry while the host builds contexts.
    pub fn split_for_run(&mut self) -> (&Registry<SystemFn>, SystemHost<'_>) {
        let host = SystemHost::new(&self.storage, &self.registry, &mut self.systems);
        (&self.registry, host)
    }

    /// A fresh context for system `id`, for running it by hand (tests, tools).
    ///
    /// # Errors
    ///
    /// [`WorldError::UnknownSystem`] when `id` is not registered.
    pub fn context(&mut self, id: SystemId) -> Result<SystemContext<'_>, WorldError> {
        self.split_for_run().1.into_context(id)
    }

    /// Applies the command buffers of the systems in `order` (the schedule's order), one
    /// buffer after the other, each in recording order, and empties them. So when two systems
    /// insert the same component on one entity, the later one in `order` wins, and entities
    /// spawned by commands get their ids in that order. Stale targets are skipped and reported.
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
            // A system's own buffer was bound to this world by its commands, so it is never foreign.
            let (commands, _) = state.parts_mut();
            stats += self.storage.apply(commands)?;
        }
        match first_error {
            Some(err) => Err(err),
            None => Ok(stats),
        }
    }
}
