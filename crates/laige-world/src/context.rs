//! The system context: the only view of the world a running system has.

use laige_diag::Diagnostics;
use laige_registry::{Access, ComponentSet, SystemId};

use crate::command::{CommandBuffer, Commands};
use crate::par::{Batch, BatchScratch, BatchSink, par_each_chunk_in, par_each_in};
use crate::{Entity, Prng, Queries, QueryError, Storage, SystemMeta};
use laige_query::query::{Prepared, QueryData, each_chunk_in, each_in, prepared_in};

/// A system function in its low-level form: a plain `fn` that sees the world only through
/// its context, declares its access on the builder, and is called through this pointer
/// ([`World::system_fn`](crate::World::system_fn)). Typed systems
/// ([`World::system`](crate::World::system)) are the everyday form.
pub type SystemFn = fn(&mut SystemContext<'_>);

/// What the world's registry holds for each system: the `fn` pointer of a low-level system,
/// or the mark of a typed one, whose function and parameter state the world keeps (so one
/// registry serves both, and a typed system's box stays with the per-system state the
/// running thread owns).
#[derive(Clone, Copy, Debug)]
pub struct SystemRun(Run);

#[derive(Clone, Copy, Debug)]
enum Run {
    Fn(SystemFn),
    Typed,
}

impl SystemRun {
    /// A low-level system's run function.
    pub const fn from_fn(run: SystemFn) -> Self {
        Self(Run::Fn(run))
    }

    /// A typed system's mark: only the World makes it, with the system's box.
    pub(crate) const TYPED: Self = Self(Run::Typed);

    /// The `fn` pointer, for a low-level system.
    pub fn as_fn(&self) -> Option<SystemFn> {
        match self.0 {
            Run::Fn(run) => Some(run),
            Run::Typed => None,
        }
    }

    /// Whether this is a typed system's mark.
    pub fn is_typed(&self) -> bool {
        matches!(self.0, Run::Typed)
    }
}

impl From<SystemFn> for SystemRun {
    fn from(run: SystemFn) -> Self {
        Self::from_fn(run)
    }
}

/// The only view of the world a low-level system has, and the escape hatch of a typed one
/// (`|ctx: &mut SystemContext<'_>| ..`): checked queries over the storage, checked resource
/// access ([`SystemContext::resource`]) and snapshot reads ([`SystemContext::snapshot`]), its
/// own command buffer, its own PRNG substream, and diagnostics.
///
/// Built fresh for every run and never stored. Structural changes go through
/// [`SystemContext::commands`] and are applied after the system phase.
///
/// ```
/// use laige_world::{Component, World, WorldOptions, SystemContext};
///
/// struct Pos(f32);
/// impl Component for Pos {}
/// struct Vel(f32);
/// impl Component for Vel {}
///
/// fn movement(ctx: &mut SystemContext<'_>) {
///     ctx.each::<(&mut Pos, &Vel)>(|_, (pos, vel)| pos.0 += vel.0).unwrap();
/// }
///
/// let mut world = World::new(WorldOptions::default());
/// world.register_component::<Pos>().unwrap();
/// world.register_component::<Vel>().unwrap();
/// let e = world.spawn((Pos(0.0), Vel(2.0))).unwrap();
/// let id = world.system("Movement", movement).writes::<Pos>().reads::<Vel>().register().unwrap();
/// movement(&mut world.context(id).unwrap());
/// assert_eq!(world.get::<Pos>(e).unwrap().0, 2.0);
/// ```
#[derive(Debug)]
pub struct SystemContext<'w> {
    pub(crate) storage: &'w Storage,
    pub(crate) meta: &'w SystemMeta,
    commands: &'w mut CommandBuffer,
    rng: &'w mut Prng,
    /// The system's `par_each` scratch; `None` in a context built by hand.
    batches: Option<&'w mut BatchScratch>,
}

impl<'w> SystemContext<'w> {
    /// A context for the system described by `meta`.
    ///
    /// # Safety
    ///
    /// While this context lives, no other live context (or anything else) may write a
    /// component that `meta` declares read (plain or fresh) or write, or read a component that
    /// `meta` declares write. Resources count as components here (they share the id space).
    /// A snapshot read (`meta.reads_snapshot`) needs nothing of other contexts: it reads only
    /// the frozen copy, which changes under `&mut World` alone. The scheduler proves this for
    /// contexts that run in parallel; the sequential runner creates one context at a time. The safe way to get a context is
    /// [`World::context`](crate::World::context) or [`SystemHost`](crate::SystemHost).
    pub unsafe fn new(
        storage: &'w Storage,
        meta: &'w SystemMeta,
        commands: &'w mut CommandBuffer,
        rng: &'w mut Prng,
    ) -> Self {
        Self {
            storage,
            meta,
            commands,
            rng,
            batches: None,
        }
    }

    /// [`SystemContext::new`] with the system's `par_each` scratch, so its loops run on the
    /// pool and record each batch's commands apart.
    ///
    /// # Safety
    ///
    /// As for [`SystemContext::new`].
    pub(crate) unsafe fn with_batches(
        storage: &'w Storage,
        meta: &'w SystemMeta,
        commands: &'w mut CommandBuffer,
        rng: &'w mut Prng,
        batches: &'w mut BatchScratch,
    ) -> Self {
        Self {
            storage,
            meta,
            commands,
            rng,
            batches: Some(batches),
        }
    }

    /// The running system's id.
    pub fn id(&self) -> SystemId {
        self.meta.id
    }

    /// The running system's name.
    pub fn name(&self) -> &'static str {
        self.meta.name
    }

    /// The components the system declared read-only.
    pub fn reads(&self) -> &ComponentSet {
        &self.meta.reads
    }

    /// The components the system declared write.
    pub fn writes(&self) -> &ComponentSet {
        &self.meta.writes
    }

    /// The id, name and declared access together.
    pub fn meta(&self) -> &'w SystemMeta {
        self.meta
    }

    /// The storage's metadata: liveness, counts, archetypes.
    pub fn storage(&self) -> &'w Storage {
        self.storage
    }

    /// The diagnostics the world reports through.
    pub fn diagnostics(&self) -> &'w Diagnostics {
        self.storage.diagnostics()
    }

    /// The system's own PRNG substream, derived from the world's seed and the system's id.
    pub fn rng(&mut self) -> &mut Prng {
        self.rng
    }

    /// The system's command buffer, for structural changes applied after the system phase.
    pub fn commands(&mut self) -> Commands<'_> {
        Commands::new(self.commands, self.storage)
    }

    /// Splits the context into its checked queries, its commands and its PRNG, so a query's
    /// closure can use the other two.
    ///
    /// ```
    /// # use laige_world::{SystemContext, Entity};
    /// struct Health(i32);
    /// struct Dead;
    /// fn reaper(ctx: &mut SystemContext<'_>) {
    ///     let (mut queries, mut commands, _rng) = ctx.split();
    ///     queries.each::<&Health>(|e, health| {
    ///         if health.0 <= 0 {
    ///             commands.insert(e, Dead);
    ///         }
    ///     }).unwrap();
    /// }
    /// ```
    pub fn split(&mut self) -> (Queries<'_>, Commands<'_>, &mut Prng) {
        (
            // SAFETY: the constructor's contract is the one `Queries::new` demands, and the
            // queries borrow this context mutably for as long as they live.
            unsafe { Queries::new(self.storage, self.meta) },
            Commands::new(self.commands, self.storage),
            self.rng,
        )
    }

    /// [`World::component_state_hash`](crate::World::component_state_hash) from inside a
    /// system, e.g. a per-tick hash system.
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] for the first (lowest id) hashed component or hashed
    /// resource the system did not declare (read or write): the hash reads every hashed value.
    /// [`QueryError::Unmatched`] for a system with a table footprint (`.matching::<T>()`):
    /// the hash visits every table.
    pub fn component_state_hash(&mut self) -> Result<u64, QueryError> {
        // The hash visits every table, so it cannot stay inside a table footprint.
        if let Some(component) = self.meta.matching.iter().next() {
            let err = QueryError::Unmatched {
                system: self.meta.name,
                system_id: self.meta.id,
                component: self.storage.components().get(component).name(),
            };
            return Err(self.storage.report(err));
        }
        let declared = self.meta.reads.union(&self.meta.writes);
        if let Some(info) = self
            .storage
            .components()
            .iter()
            .find(|c| c.is_hashed() && !declared.contains(c.id()))
        {
            let err = QueryError::Undeclared {
                system: self.meta.name,
                system_id: self.meta.id,
                component: info.name(),
                access: Access::Read,
                declared: self.meta.declared(info.id()),
            };
            return Err(self.storage.report(err));
        }
        let mut h = crate::StateHasher::new();
        // SAFETY: reads only hashed values, all declared by this system, so no other live
        // context writes them (the constructor's contract); `&mut self` keeps this context's
        // own queries out meanwhile.
        unsafe { self.storage.hash_components(&mut h) };
        Ok(h.finish())
    }

    /// Calls `f` with each matching entity and its item: archetypes in ascending id, rows in
    /// table order. `&mut self` makes a nested query (or a command) inside `f` a compile
    /// error; use [`SystemContext::each_with_commands`] or [`SystemContext::split`] to record
    /// commands while iterating.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`]: an undeclared access or an aliasing query.
    pub fn each<Q: QueryData>(
        &mut self,
        f: impl FnMut(Entity, Q::Item<'_>),
    ) -> Result<(), QueryError> {
        // SAFETY: the constructor's contract makes the declared access exclusive as declared;
        // `each_in` checks `Q` against it before touching a row.
        unsafe { each_in::<Q>(self.storage, Some(self.meta), f) }
    }

    /// Calls `f` once per matching non-empty archetype with its entities and whole columns.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::each`].
    pub fn each_chunk<Q: QueryData>(
        &mut self,
        f: impl FnMut(&[Entity], Q::Chunk<'_>),
    ) -> Result<(), QueryError> {
        // SAFETY: as for `each`.
        unsafe { each_chunk_in::<Q>(self.storage, Some(self.meta), f) }
    }

    /// Calls `f` with each matching entity and its item, like [`SystemContext::each`], in
    /// batches of at most [`PAR_BATCH_ROWS`](crate::PAR_BATCH_ROWS) rows of one table that
    /// the idle threads of the executor running the system help with (in order on this
    /// thread without one).
    ///
    /// The batches depend on the tables alone, so the result is the same for every thread
    /// count. Each batch has its own commands and PRNG stream ([`Batch`]); batch commands
    /// apply after the system's own, in batch order. `f` is `Fn + Sync`: what it changes
    /// must belong to its row or its batch.
    ///
    /// ```
    /// use laige_world::{Component, World, WorldOptions, SystemContext};
    ///
    /// struct Pos(f32);
    /// impl Component for Pos {}
    /// struct Vel(f32);
    /// impl Component for Vel {}
    ///
    /// let mut world = World::new(WorldOptions::default());
    /// world.register_component::<Pos>().unwrap();
    /// world.register_component::<Vel>().unwrap();
    /// let e = world.spawn((Pos(0.0), Vel(2.0))).unwrap();
    /// let id = world
    ///     .system_fn("Movement", |ctx: &mut SystemContext<'_>| {
    ///         ctx.par_each::<(&mut Pos, &Vel)>(|_, _, (pos, vel)| pos.0 += vel.0).unwrap();
    ///     })
    ///     .writes::<Pos>()
    ///     .reads::<Vel>()
    ///     .register()
    ///     .unwrap();
    /// world.run_systems(&world.schedule().unwrap()).unwrap();
    /// assert_eq!(world.get::<Pos>(e).unwrap().0, 2.0);
    /// # let _ = id;
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::each`].
    pub fn par_each<Q: QueryData>(
        &mut self,
        f: impl Fn(&mut Batch<'_>, Entity, Q::Item<'_>) + Sync,
    ) -> Result<(), QueryError> {
        let (storage, meta) = (self.storage, self.meta);
        let sink = self.batch_sink();
        // SAFETY: the constructor's contract makes the declared access exclusive as declared;
        // `par_each_in` checks `Q` against it first; `&mut self` keeps every other query of
        // this context out until the loop is over.
        unsafe { par_each_in::<Q>(storage, Some(meta), sink, f) }
    }

    /// Calls `f` once per batch of [`SystemContext::par_each`] with its entities and its
    /// rows of each column (`&[T]`, `&mut [T]`, ...), which the compiler can vectorise.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::each`].
    pub fn par_each_chunk<Q: QueryData>(
        &mut self,
        f: impl Fn(&mut Batch<'_>, &[Entity], Q::Chunk<'_>) + Sync,
    ) -> Result<(), QueryError> {
        let (storage, meta) = (self.storage, self.meta);
        let sink = self.batch_sink();
        // SAFETY: as for `par_each`.
        unsafe { par_each_chunk_in::<Q>(storage, Some(meta), sink, f) }
    }

    /// Where this context's parallel loops run: on the pool when the system has batch
    /// scratch, else in order into its own buffer.
    fn batch_sink(&mut self) -> BatchSink<'_> {
        match self.batches.as_deref_mut() {
            Some(scratch) => BatchSink::Pool(scratch),
            None => BatchSink::Inline(self.commands, self.rng.next_u64()),
        }
    }

    /// Checks `Q` once, for many lookups by handle; see [`Queries::prepare`].
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::each`].
    pub fn prepare<Q: QueryData>(&mut self) -> Result<Prepared<'_, Q>, QueryError> {
        // SAFETY: as for `each`; the result borrows `self` mutably for as long as it lives.
        unsafe { prepared_in::<Q>(self.storage, Some(self.meta)) }
    }

    /// Like [`SystemContext::each`], with the system's commands passed to `f`.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::each`].
    pub fn each_with_commands<Q: QueryData>(
        &mut self,
        mut f: impl FnMut(Entity, Q::Item<'_>, &mut Commands<'_>),
    ) -> Result<(), QueryError> {
        let mut commands = Commands::new(self.commands, self.storage);
        // SAFETY: as for `each`; the command buffer is a separate object from the storage.
        unsafe {
            each_in::<Q>(self.storage, Some(self.meta), |e, item| {
                f(e, item, &mut commands)
            })
        }
    }
}
