//! Registering systems: the typed builder, and each system's command buffer and PRNG.

use laige_registry::{Access, Budget, Io, RegisterError, Registry, SystemDef, SystemId};

use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_executor::{PanicMessage, drop_payload};

use crate::{CommandBuffer, Prng, SystemFn, World};

/// What the world keeps per registered system besides its registry record: its command
/// buffer and, in a deterministic world, its PRNG substream.
#[derive(Debug)]
pub struct SystemState {
    commands: CommandBuffer,
    rng: Option<Prng>,
    /// The panic this system's last run ended in, until the tick settles it.
    panicked: Option<PanicMessage>,
}

impl SystemState {
    /// The system's command buffer.
    pub fn commands(&self) -> &CommandBuffer {
        &self.commands
    }

    /// The system's PRNG substream; `None` in a non-deterministic world.
    pub fn rng(&self) -> Option<&Prng> {
        self.rng.as_ref()
    }

    /// The command buffer and PRNG, mutably, to build a context from.
    pub fn parts_mut(&mut self) -> (&mut CommandBuffer, Option<&mut Prng>) {
        (&mut self.commands, self.rng.as_mut())
    }

    /// Runs `run` (one run of this system), keeping a panic here instead of letting it
    /// unwind into the runner or a worker: both ways of running a track contain a panic
    /// the same way, and [`SystemState::take_panic`] settles it after the track.
    pub(crate) fn contain(&mut self, run: impl FnOnce(&mut CommandBuffer, Option<&mut Prng>)) {
        let res = catch_unwind(AssertUnwindSafe(|| {
            run(&mut self.commands, self.rng.as_mut());
        }));
        if let Err(payload) = res {
            self.panicked = Some(PanicMessage::from_payload(&*payload));
            drop_payload(payload);
        }
    }

    /// The panic of this system's last run, if it panicked; its half-recorded commands are
    /// dropped, so they never reach the world.
    pub(crate) fn take_panic(&mut self) -> Option<PanicMessage> {
        let message = self.panicked.take()?;
        self.commands.clear();
        Some(message)
    }
}

impl World {
    /// The system registry (names, budgets, dependencies, declared access).
    pub fn registry(&self) -> &Registry<SystemFn> {
        &self.registry
    }

    /// Registers a system from a raw definition; prefer [`World::system`], which resolves
    /// component types for you. On success the system gets its command buffer and, in a
    /// deterministic world, the PRNG substream `Prng::derive_substream(seed, id)`.
    ///
    /// # Errors
    ///
    /// The registry's [`RegisterError`], reported as its `system/...` event.
    pub fn register_system(&mut self, def: SystemDef<SystemFn>) -> Result<SystemId, RegisterError> {
        let id = self.registry.register(def)?;
        let rng = self
            .options()
            .deterministic
            .then(|| Prng::derive_substream(self.options().seed, id.get()));
        self.systems.push(SystemState {
            commands: CommandBuffer::new(),
            rng,
            panicked: None,
        });
        debug_assert_eq!(self.systems.len(), id.get() as usize);
        Ok(id)
    }

    /// Starts registering the system `name` running `run`:
    /// `world.system("Movement", movement).budget_ms(1.0).after("Input").writes::<Pos>().reads::<Vel>().register()`.
    pub fn system(&mut self, name: &'static str, run: SystemFn) -> SystemBuilder<'_> {
        SystemBuilder {
            world: self,
            def: SystemDef::new(name, run),
        }
    }

    /// The state of system `id`, if registered.
    pub fn system_state(&self, id: SystemId) -> Option<&SystemState> {
        self.systems.get(id.index())
    }

    /// The command buffer of system `id`, if registered.
    pub fn system_commands(&self, id: SystemId) -> Option<&CommandBuffer> {
        self.system_state(id).map(SystemState::commands)
    }

    /// The PRNG substream of system `id`, if registered and the world is deterministic.
    pub fn system_rng(&self, id: SystemId) -> Option<&Prng> {
        self.system_state(id).and_then(SystemState::rng)
    }
}

/// A typed system registration: declares access by component type, so user code never
/// handles [`ComponentId`](laige_registry::ComponentId)s. Finish with
/// [`SystemBuilder::register`].
#[must_use = "a system is registered only by `.register()`"]
#[derive(Debug)]
pub struct SystemBuilder<'w> {
    world: &'w mut World,
    def: SystemDef<SystemFn>,
}

impl SystemBuilder<'_> {
    /// Sets the time budget in milliseconds (rounded to Q16.16).
    pub fn budget_ms(mut self, ms: f32) -> Self {
        self.def = self.def.budget_ms(ms);
        self
    }

    /// Sets the time budget.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.def = self.def.budget(budget);
        self
    }

    /// Sets the `depends_on` spec: the names of the systems this one runs after, comma
    /// separated (`"Input, Physics"`). Calling it again replaces the spec.
    pub fn after(mut self, spec: &'static str) -> Self {
        self.def = self.def.depends_on(spec);
        self
    }

    /// Declares that the system reads `T`. A type not registered makes registration fail
    /// with `io_unregistered`.
    pub fn reads<T: 'static>(self) -> Self {
        self.io::<T>(Access::Read)
    }

    /// Declares that the system reads `T` and must see this tick's writes of it (the
    /// declarative front end orders it after same-phase writers). Queries treat it as a read.
    pub fn reads_fresh<T: 'static>(self) -> Self {
        self.io::<T>(Access::ReadFresh)
    }

    /// Declares that the system reads the previous tick's value of the versioned `T`,
    /// through the snapshot API (`ctx.snapshot`, `ctx.each_snapshot`, `Snapshot<&T>`).
    /// Live queries of `T` stay refused for such a system: it sees a frozen copy, which is
    /// why it never conflicts with `T`'s writers.
    pub fn reads_snapshot<T: 'static>(self) -> Self {
        self.io::<T>(Access::ReadSnapshot)
    }

    /// Declares that the system runs before the named systems (declarative front end).
    pub fn before(mut self, spec: &'static str) -> Self {
        self.def = self.def.before(spec);
        self
    }

    /// Declares that the system runs after the named systems where their data overlap
    /// (declarative front end): the order is fixed, but where the two touch disjoint
    /// tables the executor may run them at once.
    pub fn after_weak(mut self, spec: &'static str) -> Self {
        self.def = self.def.after_weak(spec);
        self
    }

    /// Places the system in a DAG of the world's layout (declarative front end).
    pub fn in_dag(mut self, dag: &'static str) -> Self {
        self.def = self.def.in_dag(dag);
        self
    }

    /// Places the system in a phase of its DAG (declarative front end).
    pub fn in_phase(mut self, phase: &'static str) -> Self {
        self.def = self.def.in_phase(phase);
        self
    }

    /// Makes the system run alone in its phase (declarative front end).
    pub fn exclusive_phase(mut self) -> Self {
        self.def = self.def.exclusive_phase();
        self
    }

    /// Declares that every table the system touches holds `T`: each of its queries must
    /// require `T` (checked at every query). Systems that conflict by type but whose
    /// tables are disjoint then run at once on the parallel executor.
    pub fn matching<T: 'static>(mut self) -> Self {
        match self.world.component_id::<T>() {
            Some(id) => self.def = self.def.matching(id),
            None => self.def.matching_unresolved = true,
        }
        self
    }

    /// Applies `f` to the raw definition, for options without a typed method here.
    pub fn with(mut self, f: impl FnOnce(SystemDef<SystemFn>) -> SystemDef<SystemFn>) -> Self {
        self.def = f(self.def);
        self
    }

    /// Declares that the system writes (and may read) `T`.
    pub fn writes<T: 'static>(self) -> Self {
        self.io::<T>(Access::Write)
    }

    fn io<T: 'static>(mut self, access: Access) -> Self {
        let component = self.world.component_id::<T>();
        self.def = self.def.io(Io { component, access });
        self
    }

    /// The definition built so far.
    pub fn def(&self) -> &SystemDef<SystemFn> {
        &self.def
    }

    /// Registers the system, as [`World::register_system`].
    ///
    /// # Errors
    ///
    /// As for [`World::register_system`].
    pub fn register(self) -> Result<SystemId, RegisterError> {
        self.world.register_system(self.def)
    }
}
