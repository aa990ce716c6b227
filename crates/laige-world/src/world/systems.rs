//! Registering systems: the builder, and what the world keeps per system (its meta, command
//! buffer, PRNG stream, and a typed system's function with its parameters' state).

use std::borrow::Cow;
use std::error::Error;
use std::fmt;

use laige_registry::{Access, Budget, Io, IoList, RegisterError, Registry, SystemDef, SystemId};

use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_executor::{PanicMessage, drop_payload};

use super::names::{NameList, SystemHandle, SystemNames, intern};
use crate::condition::{BoxedCondition, Condition};
use crate::events::ReactiveCheck;
use crate::observers::in_system_span;
use crate::par::BatchScratch;
use crate::system::{
    BoxError, BoxedSystem, IntoSystem, LocalValue, ParamFetch, ParamInit, ParamNeeds, SystemWorld,
    unbox_locals,
};
use crate::{
    CommandBuffer, Prng, Queries, Storage, SystemContext, SystemFn, SystemMeta, SystemRun, World,
};

/// How one contained run ended, for the host's counts and the tick's skips.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RunEnd {
    /// It ran and left nothing for the tick to settle.
    Settled,
    /// It ran and left a panic, a failure or commands.
    Unsettled,
    /// Its run condition was false: it did not run.
    Skipped,
}

/// What a run condition decided.
enum Verdict {
    Run,
    Skip,
    /// Its parameters could not be fetched: the run failed.
    Failed,
}

/// Evaluates `condition` over `view`; a fetch that fails is kept in `failure`. Out of line,
/// so a system without a condition pays one test for it.
#[inline(never)]
fn evaluate_condition(
    condition: &mut BoxedCondition,
    view: Queries<'_>,
    meta: &SystemMeta,
    batches: &BatchScratch,
    failure: &mut Option<BoxError>,
) -> Verdict {
    let mut fetch = ParamFetch::read_only(view, meta, batches);
    match condition.holds(&mut fetch) {
        Ok(true) => Verdict::Run,
        Ok(false) => Verdict::Skip,
        Err(err) => {
            *failure = Some(Box::new(err));
            Verdict::Failed
        }
    }
}

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
    /// The run condition, evaluated before each run (`.run_if(..)`).
    condition: Option<BoxedCondition>,
    failure: Option<BoxError>,
    /// The change tick the system's next run starts at (assigned per tick, in schedule
    /// order, by `World::run_systems`).
    next_tick: u64,
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
            .field("conditional", &self.condition.is_some())
            .field("failure", &self.failure)
            .field("next_tick", &self.next_tick)
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

    /// The change tick the system's next run starts at.
    pub fn next_tick(&self) -> u64 {
        self.next_tick
    }

    /// Sets the change tick of the system's next run (`World::run_systems` does, per tick).
    pub(crate) fn set_next_tick(&mut self, tick: u64) {
        self.next_tick = tick;
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
    ///
    /// The run starts at the change tick the world assigned it ([`SystemState::next_tick`]):
    /// its change filters see what changed after its previous run's tick.
    ///
    /// A system with a run condition (`.run_if(..)`) evaluates it first, over the same view;
    /// returns false when it was false and the system did not run. A condition that cannot
    /// fetch its parameters (a missing resource) fails the system's run instead.
    #[inline]
    pub fn run(&mut self, storage: &mut impl ViewSource, run: &SystemRun) -> bool {
        let before = self.meta.run_ticks();
        self.meta.begin_run(self.next_tick);
        // A reactive system with nothing to read is skipped (not a condition's skip: the run
        // ends unsettled, and the host records why). A skipped run leaves the change ticks
        // as they were, so the next run sees every change since the last one that ran.
        self.events_skipped = !self.reactive.is_empty() && {
            let view = storage.view(&self.meta);
            !self.reactive.iter().any(|it| it(&view, self.meta.id()))
        };
        if self.events_skipped {
            self.meta.undo_run(before);
            return true;
        }
        let mut view = storage.view(&self.meta);
        if let Some(condition) = &mut self.condition {
            let verdict = evaluate_condition(
                condition,
                view.reborrow(),
                &self.meta,
                &self.batches,
                &mut self.failure,
            );
            match verdict {
                Verdict::Run => {}
                Verdict::Skip => {
                    self.meta.undo_run(before);
                    return false;
                }
                Verdict::Failed => return true,
            }
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
                    // The box hands the run its own.
                    locals: &mut [],
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
        true
    }

    /// Whether a run condition decides whether the system runs.
    pub fn is_conditional(&self) -> bool {
        self.condition.is_some()
    }

    /// Its change ticks: the last run's window and the tick its next run starts at.
    pub(crate) fn change_ticks(&self) -> (laige_query::RunTicks, u64) {
        (self.meta.run_ticks(), self.next_tick)
    }

    /// Sets its change ticks back to saved ones (a rollback restore).
    pub(crate) fn set_change_ticks(&mut self, ticks: laige_query::RunTicks, next: u64) {
        self.meta.undo_run(ticks);
        self.next_tick = next;
    }

    /// Hands every `Local` value the system keeps to `each`, in a fixed order: a typed
    /// system's own, in parameter order, then its run condition's. A saved state holds them
    /// in that order.
    pub(crate) fn visit_locals(&mut self, mut each: impl FnMut(&mut Box<dyn LocalValue>)) {
        if let Some(typed) = &mut self.typed {
            typed.locals_mut().iter_mut().for_each(&mut each);
        }
        if let Some(condition) = &mut self.condition {
            condition.visit_locals(&mut each);
        }
    }

    /// The PRNG stream and the `par_each` loop count: the system's random state.
    pub(crate) fn random_state(&mut self) -> (Prng, u64) {
        (self.rng, self.batches.loops_run())
    }

    /// Sets the PRNG stream and the `par_each` loop count (a restore).
    pub(crate) fn set_random_state(&mut self, rng: Prng, loops: u64) {
        self.rng = rng;
        self.batches.set_loops_run(rng.seed(), loops);
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
    /// way, and [`SystemState::take_panic`] settles a panic after the track. Returns whether
    /// it was skipped by its run condition, or else [`SystemState::is_settled`], which both
    /// count to skip settling a quiet track.
    #[inline]
    pub(crate) fn run_contained(
        &mut self,
        mut storage: impl ViewSource,
        run: &SystemRun,
    ) -> RunEnd {
        let (name, id) = (self.meta.name(), self.meta.id());
        let res = in_system_span(name, id, || {
            catch_unwind(AssertUnwindSafe(|| self.run(&mut storage, run)))
        });
        match res {
            Ok(false) => return RunEnd::Skipped,
            Ok(true) => {}
            Err(payload) => self.keep_panic(payload),
        }
        if self.is_settled() {
            RunEnd::Settled
        } else {
            RunEnd::Unsettled
        }
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
        self.commit(def, None, None)
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
        let mut boxed = BoxedSystem::new(system, &mut init);
        let mut needs = init.into_needs();
        boxed.set_locals(unbox_locals(needs.take_locals()));
        let typed = Some((boxed, needs));
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
        condition: Option<BoxedCondition>,
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
            condition,
            failure: None,
            next_tick: 0,
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
    /// The run condition so far (every `.run_if(..)` joined by and), and what each one's
    /// parameters need.
    condition: Option<BoxedCondition>,
    condition_needs: Vec<ParamNeeds>,
    /// The first misuse found while building (an unknown resource name), reported by
    /// `register`.
    pending: Option<RegisterError>,
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
            condition: None,
            condition_needs: Vec::new(),
            pending: None,
        }
    }

    /// Runs the system only on ticks when `condition` holds: a read-only typed system
    /// returning `bool` (`|state: Res<'_, State>| *state == State::Playing`), a helper
    /// ([`resource_equals`](crate::resource_equals), [`every_n_ticks`](crate::every_n_ticks)),
    /// or a combination ([`Condition::and`](crate::Condition::and), `or`,
    /// [`not`](crate::not)). Calls add up: every condition must hold, the first is asked first.
    ///
    /// The condition's parameters are set up here; at [`SystemBuilder::register`] they must
    /// only read ([`RegisterError::ConditionWrites`] otherwise), and their reads join the
    /// system's declared access, so the scheduler and the executor treat them as the
    /// system's own. Each tick the condition runs once, just before the system, on its
    /// thread; a false one skips it ([`SkipReason::RunConditionFalse`](crate::SkipReason)):
    /// no commands, and its successors still run.
    pub fn run_if<M: 'static>(mut self, condition: impl Condition<M>) -> Self {
        let known = self.world.storage.components().len();
        let mut init = ParamInit::new(&mut self.world.storage, self.def.name);
        let boxed = BoxedCondition::new(condition, &mut init);
        self.condition_needs.push(init.into_needs());
        self.world.register_new_resource_types(known);
        self.condition = Some(match self.condition.take() {
            Some(first) => first.and(boxed),
            None => boxed,
        });
        self
    }

    /// Declares that the system reads the resource of type `T` named `name`
    /// ([`World::insert_named_resource`]); a low-level system then reads it with
    /// `ctx.named_resource::<T>(name)`. The name must be inserted already:
    /// [`RegisterError::ResourceNameUnknown`] (with "did you mean") otherwise.
    pub fn reads_named<T: 'static>(self, name: &'static str) -> Self {
        self.io_named::<T>(name, Access::Read)
    }

    /// [`SystemBuilder::reads_named`], seeing this tick's writes of it (as
    /// [`SystemBuilder::reads_fresh`]).
    pub fn reads_fresh_named<T: 'static>(self, name: &'static str) -> Self {
        self.io_named::<T>(name, Access::ReadFresh)
    }

    /// Declares that the system writes (and may read) the resource of type `T` named `name`
    /// (`ctx.named_resource_mut::<T>(name)`); as [`SystemBuilder::reads_named`] for an
    /// unknown name.
    pub fn writes_named<T: 'static>(self, name: &'static str) -> Self {
        self.io_named::<T>(name, Access::Write)
    }

    fn io_named<T: 'static>(mut self, name: &'static str, access: Access) -> Self {
        let components = self.world.storage.components();
        match components.named_id::<T>(name) {
            Some(id) => {
                let display = components.get(id).name();
                self.def = self.def.io(Io {
                    component: Some(id),
                    access,
                    type_name: Some(display),
                });
            }
            None => {
                let err = RegisterError::ResourceNameUnknown {
                    name: self.def.name,
                    resource: std::any::type_name::<T>(),
                    given: name,
                    suggestion: laige_registry::closest_name(name, components.names_of::<T>()),
                };
                self.pending.get_or_insert(err);
            }
        }
        self
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
            condition,
            condition_needs,
            pending,
        } = self;
        if let Some(err) = pending {
            return Err(world.report_register(err));
        }
        after.finish(&mut def.depends_on);
        before.finish(&mut def.before);
        after_weak.finish(&mut def.after_weak);
        let (typed, mut required) = match typed {
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
        for mut needs in condition_needs {
            if let Err(err) = needs.read_only() {
                return Err(world.report_register(err));
            }
            required.extend(needs.take_required());
            match needs.finish(&IoList::EMPTY) {
                Ok(reads) => def.io = with_condition_reads(&def.io, &reads),
                Err(err) => return Err(world.report_register(err)),
            }
            def.conditional = true;
        }
        if let Some(err) = event_error {
            return Err(world.report_register(err));
        }
        if reactive && !world.reads_any_queue(&def) {
            let err = RegisterError::ReactiveWithoutEvents { name: def.name };
            return Err(world.report_register(err));
        }
        let id = world.commit(def, typed, condition)?;
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

/// `io` with a run condition's `reads` joined in: a component already declared keeps its
/// declaration (a write or a read covers the condition's read; a plain read becomes fresh
/// when the condition's is), any other is appended. A snapshot read beside a live one stays
/// twice, which the registry refuses as `io_duplicate`.
fn with_condition_reads(io: &IoList, reads: &IoList) -> IoList {
    let mut joined = IoList::EMPTY;
    for &declared in io.as_slice() {
        let fresh = reads.as_slice().iter().any(|it| {
            it.component.is_some()
                && it.component == declared.component
                && it.access == Access::ReadFresh
        });
        let access = match declared.access {
            Access::Read if fresh => Access::ReadFresh,
            access => access,
        };
        joined.push(Io { access, ..declared });
    }
    for &read in reads.as_slice() {
        let live = |access| !matches!(access, Access::ReadSnapshot);
        let covered = read.component.is_some()
            && io
                .as_slice()
                .iter()
                .any(|it| it.component == read.component && live(it.access) == live(read.access));
        if !covered {
            joined.push(read);
        }
    }
    if io.overflowed() || reads.overflowed() {
        joined.push(Io {
            component: None,
            access: Access::Read,
            type_name: None,
        });
    }
    joined
}
