//! Registering systems: the builder, and what the world keeps per system (its meta, command
//! buffer, PRNG stream, and a typed system's function with its parameters' state).

use std::borrow::Cow;
use std::error::Error;
use std::fmt;

use laige_registry::{Access, Budget, Io, RegisterError, Registry, SystemDef, SystemId};

use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_executor::{PanicMessage, drop_payload};

use super::names::{NameList, SystemHandle, SystemNames, intern};
use crate::events::ReactiveCheck;
use crate::observers::in_system_span;
use crate::par::BatchScratch;
use crate::system::{BoxError, BoxedSystem, IntoSystem, ParamInit, ParamNeeds, SystemWorld};
use crate::{
    CommandBuffer, Prng, Queries, Storage, SystemContext, SystemFn, SystemMeta, SystemRun, World,
};

/// How a host reaches the storage for one system's run: the checked view of the system
/// whose meta it is handed.
pub trait ViewSource {
    /// The view of the system `meta` describes.
    fn view<'s>(&'s mut self, meta: &'s SystemMeta) -> Queries<'s>;
}

/// A storage held exclusively: its views need no proof.
impl ViewSource for &mut Storage {
    #[inline]
    fn view<'s>(&'s mut self, meta: &'s SystemMeta) -> Queries<'s> {
        Queries::exclusive(self, Some(meta))
    }
}

/// What the world keeps per registered system besides its registry record: its meta (as
/// contexts see it), its command buffer, its PRNG substream, and for a typed system its
/// boxed function with the parameters' state and the failure of its last run.
pub struct SystemState {
    meta: SystemMeta,
    commands: CommandBuffer,
    rng: Prng,
    /// What its `par_each` loops keep between runs: per-batch command buffers.
    batches: BatchScratch,
    typed: Option<BoxedSystem>,
    failure: Option<BoxError>,
    /// The panic this system's last run ended in, until the tick settles it. Boxed, so the
    /// state every run touches stays small; only a panic allocates it, and a panic allocated
    /// already.
    panicked: Option<Box<PanicMessage>>,
    /// A reactive system's checks, one per queue it reads (empty: not reactive).
    reactive: Vec<ReactiveCheck>,
    /// Whether its last run was skipped because no queue held an event for it.
    events_skipped: bool,
}

impl fmt::Debug for SystemState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SystemState")
            .field("meta", &self.meta)
            .field("commands", &self.commands)
            .field("rng", &self.rng)
            .field("typed", &self.typed.is_some())
            .field("failure", &self.failure)
            .field("panicked", &self.panicked)
            .finish()
    }
}

impl SystemState {
    /// The id, name and declared access, as the system's contexts see them.
    pub fn meta(&self) -> &SystemMeta {
        &self.meta
    }

    /// The system's command buffer.
    pub fn commands(&self) -> &CommandBuffer {
        &self.commands
    }

    /// The system's PRNG substream.
    pub fn rng(&self) -> &Prng {
        &self.rng
    }

    /// Why a run of the system failed since its commands were last applied, if one did (a
    /// typed system that returned `Err`, or could not fetch a parameter). Those commands are
    /// never applied: [`World::apply_commands`] drops them with the failure, and
    /// [`World::run_systems`] reports the failure first.
    pub fn failure(&self) -> Option<&(dyn Error + Send + Sync + 'static)> {
        self.failure.as_deref()
    }

    /// Takes the failure of the last run, leaving none.
    pub fn take_failure(&mut self) -> Option<BoxError> {
        self.failure.take()
    }

    /// The meta, command buffer and PRNG, to build a context from.
    pub fn parts_mut(&mut self) -> (&SystemMeta, &mut CommandBuffer, &mut Prng) {
        (&self.meta, &mut self.commands, &mut self.rng)
    }

    /// [`SystemState::parts_mut`] and the scratch of the system's `par_each` loops.
    pub(crate) fn parts_with_batches(
        &mut self,
    ) -> (
        &SystemMeta,
        &mut CommandBuffer,
        &mut Prng,
        &mut BatchScratch,
    ) {
        (
            &self.meta,
            &mut self.commands,
            &mut self.rng,
            &mut self.batches,
        )
    }

    /// Runs the system once: a low-level system's `fn` with a fresh context, or a typed
    /// system's function with its parameters, over the view `view` makes from the system's
    /// meta (the host's way to reach the storage: exclusively, or under the executor's
    /// proof). A typed system's failure is kept (see [`SystemState::failure`]) until its
    /// commands are next applied, which drops them with it.
    #[inline]
    pub fn run(&mut self, storage: &mut impl ViewSource, run: &SystemRun) {
        let view = storage.view(&self.meta);
        // A reactive system with nothing to read is skipped; the host records why.
        self.events_skipped =
            !self.reactive.is_empty() && !self.reactive.iter().any(|it| it(&view, self.meta.id()));
        if self.events_skipped {
            return;
        }
        // Typed systems first: they are the usual form, and the world pairs a typed mark
        // with its box, so the box alone tells.
        match (&mut self.typed, run.as_fn()) {
            (Some(typed), _) => {
                let world = SystemWorld {
                    view,
                    meta: &self.meta,
                    commands: &mut self.commands,
                    rng: &mut self.rng,
                    batches: &self.batches,
                };
                typed.run(world, &mut self.failure);
            }
            (None, Some(run)) => {
                let mut ctx = SystemContext::with_batches(
                    view,
                    &self.meta,
                    &mut self.commands,
                    &mut self.rng,
                    &self.batches,
                );
                run(&mut ctx);
            }
            // Only the world makes a typed mark, and always with its box.
            (None, None) => {}
        }
    }

    /// Whether the tick has nothing to do for this system after its run: no panic to report,
    /// no failure, and a command buffer that applying would not change
    /// ([`CommandBuffer::is_idle`]). The hosts count the systems that are not, so a track of
    /// systems that recorded nothing skips settling altogether.
    #[inline]
    pub(crate) fn is_settled(&mut self) -> bool {
        // Without branches between the tests: this runs after every system.
        let troubled = self.panicked.is_some() | self.failure.is_some() | self.events_skipped;
        !troubled & self.commands.is_idle() & self.batches.is_idle()
    }

    /// Whether the last run was skipped for want of events (a reactive system), clearing it.
    #[inline]
    pub(crate) fn take_events_skip(&mut self) -> bool {
        std::mem::take(&mut self.events_skipped)
    }

    /// Makes the system reactive, with one check per queue it reads.
    pub(crate) fn set_reactive(&mut self, checks: Vec<ReactiveCheck>) {
        self.reactive = checks;
    }

    /// Whether the last run panicked or failed (until the tick settles it).
    #[inline]
    pub(crate) fn is_troubled(&self) -> bool {
        self.panicked.is_some() | self.failure.is_some()
    }

    /// When a run failed since the last apply: drops the recorded commands, never to be
    /// applied, and returns the failure.
    pub(crate) fn drop_failed_commands(&mut self) -> Option<BoxError> {
        let failure = self.failure.take()?;
        self.commands.clear();
        self.batches.clear();
        Some(failure)
    }

    /// [`SystemState::run`] inside the system's span, keeping a panic here instead of letting
    /// it unwind into the runner or a worker: both ways of running a track run a system this
    /// way, and [`SystemState::take_panic`] settles a panic after the track. Returns
    /// [`SystemState::is_settled`], which both count to skip settling a quiet track.
    #[inline]
    pub(crate) fn run_contained(&mut self, mut storage: impl ViewSource, run: &SystemRun) -> bool {
        let (name, id) = (self.meta.name(), self.meta.id());
        let res = in_system_span(name, id, || {
            catch_unwind(AssertUnwindSafe(|| self.run(&mut storage, run)))
        });
        if let Err(payload) = res {
            self.keep_panic(payload);
        }
        self.is_settled()
    }

    /// Keeps the panic `payload` of the last run, out of the run's path.
    #[cold]
    #[inline(never)]
    fn keep_panic(&mut self, payload: Box<dyn std::any::Any + Send>) {
        self.panicked = Some(Box::new(PanicMessage::from_payload(&*payload)));
        drop_payload(payload);
    }

    /// The panic of this system's last run, if it panicked; its half-recorded commands are
    /// dropped, so they never reach the world.
    pub(crate) fn take_panic(&mut self) -> Option<PanicMessage> {
        let message = *self.panicked.take()?;
        self.commands.clear();
        self.batches.clear();
        Some(message)
    }
}

impl World {
    /// The system registry (names, budgets, dependencies, declared access).
    pub fn registry(&self) -> &Registry<SystemRun> {
        &self.registry
    }

    /// Registers a system from a raw definition of a low-level (`fn` pointer) system; prefer
    /// [`World::system`], which derives access from parameters, or [`World::system_fn`],
    /// which resolves component types. On success the system gets its command buffer and
    /// the PRNG substream `Prng::derive_substream(seed, id)`.
    ///
    /// # Errors
    ///
    /// The registry's [`RegisterError`], reported as its `system/...` event; a typed
    /// system's mark copied from a registry is refused as `run_invalid`.
    pub fn register_system(
        &mut self,
        def: SystemDef<SystemRun>,
    ) -> Result<SystemId, RegisterError> {
        if def.run.is_some_and(|run| run.is_typed()) {
            let err = RegisterError::RunInvalid { name: def.name };
            return Err(self.report_register(err));
        }
        self.commit(def, None)
    }

    /// Starts registering the typed system `name` running `system`, a function or closure
    /// whose parameters ([`Query`](crate::Query), [`Res`](crate::Res), ...) declare its
    /// access: `world.system("Movement", movement).after(input).register()`.
    ///
    /// The parameters are set up here, once; the function is boxed with their state. A name
    /// may be a literal or an owned `String` (kept once per process, see
    /// [`SystemBuilder::register`]). The budget is the world's default
    /// ([`WorldOptions::default_budget`](crate::WorldOptions::default_budget)) unless set.
    pub fn system<M: 'static>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        system: impl IntoSystem<M>,
    ) -> SystemBuilder<'_> {
        let name = intern(name.into());
        let known = self.storage.components().len();
        let mut init = ParamInit::new(&mut self.storage, name);
        let boxed = BoxedSystem::new(system, &mut init);
        let typed = Some((boxed, init.into_needs()));
        self.register_new_resource_types(known);
        SystemBuilder::new(self, SystemDef::new(name, SystemRun::TYPED), typed)
    }

    /// Starts registering the low-level system `name`, a plain `fn` called through its
    /// pointer with a [`SystemContext`], whose access is declared on the builder only:
    /// `world.system_fn("Movement", movement).writes::<Pos>().reads::<Vel>().register()`.
    pub fn system_fn(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        run: SystemFn,
    ) -> SystemBuilder<'_> {
        let def = SystemDef::new(intern(name.into()), SystemRun::from_fn(run));
        SystemBuilder::new(self, def, None)
    }

    /// The state of system `id`, if registered.
    pub fn system_state(&self, id: impl Into<SystemId>) -> Option<&SystemState> {
        self.systems.get(id.into().index())
    }

    /// The command buffer of system `id`, if registered.
    pub fn system_commands(&self, id: impl Into<SystemId>) -> Option<&CommandBuffer> {
        self.system_state(id).map(SystemState::commands)
    }

    /// The PRNG substream of system `id`, if registered.
    pub fn system_rng(&self, id: impl Into<SystemId>) -> Option<&Prng> {
        self.system_state(id).map(SystemState::rng)
    }

    /// Registers `def` with the registry and gives the system its state.
    fn commit(
        &mut self,
        def: SystemDef<SystemRun>,
        typed: Option<BoxedSystem>,
    ) -> Result<SystemId, RegisterError> {
        if let Err(err) = self.check_event_access(&def) {
            return Err(self.report_register(err));
        }
        let id = self.registry.register(def)?;
        let record = self.registry.get(id).expect("the registry just stored it");
        let rng = Prng::derive_substream(self.options().seed, id.get());
        self.systems.push(SystemState {
            meta: SystemMeta::of(record),
            commands: CommandBuffer::new(),
            batches: BatchScratch::new(rng.seed()),
            rng,
            typed,
            failure: None,
            panicked: None,
            reactive: Vec::new(),
            events_skipped: false,
        });
        debug_assert_eq!(self.systems.len(), id.get() as usize);
        self.attach_events(id);
        Ok(id)
    }

    /// Reports a registration failure found before the registry saw the definition.
    fn report_register(&self, err: RegisterError) -> RegisterError {
        self.registry.diagnostics().report(err.key(), || err.emit());
        err
    }
}

/// A system registration: declares access by component type, so user code never handles
/// [`ComponentId`](laige_registry::ComponentId)s. A typed system's parameters declare their
/// own access; declarations here add to it. Finish with [`SystemBuilder::register`].
#[must_use = "a system is registered only by `.register()`"]
pub struct SystemBuilder<'w> {
    pub(crate) world: &'w mut World,
    pub(crate) def: SystemDef<SystemRun>,
    /// Set by `.reactive()`.
    pub(crate) reactive: bool,
    /// The first event declaration that named an unregistered queue.
    pub(crate) event_error: Option<RegisterError>,
    typed: Option<(BoxedSystem, ParamNeeds)>,
    after: NameList,
    before: NameList,
    after_weak: NameList,
}

impl fmt::Debug for SystemBuilder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SystemBuilder")
            .field("def", &self.def)
            .field("typed", &self.typed.is_some())
            .finish_non_exhaustive()
    }
}

impl<'w> SystemBuilder<'w> {
    fn new(
        world: &'w mut World,
        def: SystemDef<SystemRun>,
        typed: Option<(BoxedSystem, ParamNeeds)>,
    ) -> Self {
        let def = def.budget(world.options().default_budget);
        Self {
            world,
            def,
            reactive: false,
            event_error: None,
            typed,
            after: NameList::default(),
            before: NameList::default(),
            after_weak: NameList::default(),
        }
    }

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

    /// Runs the system after `systems`: a [`SystemHandle`], a name, or names comma
    /// separated (`"Input, Physics"`). Calls add up: `.after(input).after(physics)`. This is
    /// the definition's `depends_on` spec.
    pub fn after(mut self, systems: impl SystemNames) -> Self {
        self.after
            .add(&mut self.def.depends_on, systems.into_names());
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

    /// Runs the system before `systems` (declarative front end); calls add up, as for
    /// [`SystemBuilder::after`].
    pub fn before(mut self, systems: impl SystemNames) -> Self {
        self.before.add(&mut self.def.before, systems.into_names());
        self
    }

    /// Runs the system after `systems` where their data overlap (declarative front end):
    /// the order is fixed, but where the two touch disjoint tables the executor may run
    /// them at once. Calls add up, as for [`SystemBuilder::after`].
    pub fn after_weak(mut self, systems: impl SystemNames) -> Self {
        self.after_weak
            .add(&mut self.def.after_weak, systems.into_names());
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
    pub fn with(mut self, f: impl FnOnce(SystemDef<SystemRun>) -> SystemDef<SystemRun>) -> Self {
        self.def = f(self.def);
        self
    }

    /// Declares that the system writes (and may read) `T`.
    pub fn writes<T: 'static>(self) -> Self {
        self.io::<T>(Access::Write)
    }

    fn io<T: 'static>(mut self, access: Access) -> Self {
        let component = self.world.component_id::<T>();
        self.def = self.def.io(Io {
            component,
            access,
            type_name: Some(std::any::type_name::<T>()),
        });
        self
    }

    /// The definition built so far: the declarations made here (a typed system's
    /// parameters add theirs at [`SystemBuilder::register`]).
    pub fn def(&self) -> &SystemDef<SystemRun> {
        &self.def
    }

    /// Registers the system and returns its handle.
    ///
    /// A typed system's parameters are checked first: against each other
    /// ([`RegisterError::ParamConflict`], [`RegisterError::ParamKind`]), then against the
    /// declarations made here ([`RegisterError::AccessContradicts`]). Its access list, what
    /// the parameters need followed by those declarations, then goes to the registry like
    /// any system's, checked in the contract's order, with the same events and caps.
    ///
    /// Owned names (the system's, or lists given to `.after(..)` as `String`s) are
    /// interned: stored once per process and kept for its life, which is how the registry
    /// can hold them as it holds literals.
    ///
    /// # Errors
    ///
    /// The first failing check, as a [`RegisterError`], reported as its `system/...` event;
    /// nothing is registered then.
    pub fn register(self) -> Result<SystemHandle, RegisterError> {
        let SystemBuilder {
            world,
            mut def,
            reactive,
            event_error,
            typed,
            after,
            before,
            after_weak,
        } = self;
        after.finish(&mut def.depends_on);
        before.finish(&mut def.before);
        after_weak.finish(&mut def.after_weak);
        let (typed, required) = match typed {
            Some((boxed, mut needs)) => {
                let required = needs.take_required();
                match needs.finish(&def.io) {
                    Ok(io) => {
                        def.io = io;
                        (Some(boxed), required)
                    }
                    Err(err) => return Err(world.report_register(err)),
                }
            }
            None => (None, Vec::new()),
        };
        if let Some(err) = event_error {
            return Err(world.report_register(err));
        }
        if reactive && !world.reads_any_queue(&def) {
            let err = RegisterError::ReactiveWithoutEvents { name: def.name };
            return Err(world.report_register(err));
        }
        let id = world.commit(def, typed)?;
        if reactive {
            let checks = world.reactive_checks(id);
            world.systems[id.index()].set_reactive(checks);
        }
        world.required_resources.extend(
            required
                .into_iter()
                .map(|(resource, name)| (id, resource, name)),
        );
        Ok(SystemHandle { id, name: def.name })
    }
}
