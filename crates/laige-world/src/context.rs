//! The system context: the only view of the world a running system has.

use std::ops::{Deref, DerefMut};

use laige_diag::Diagnostics;
use laige_registry::{ComponentSet, SystemId};

use crate::command::{CommandBuffer, Commands};
use crate::par::{Batch, BatchScratch, BatchSink, par_each_chunk_in, par_each_in};
use crate::{Entity, Prng, Queries, QueryData, QueryError, SystemMeta};

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
/// access ([`Queries::resource`]) and snapshot reads ([`Queries::snapshot`]) through its view
/// ([`Queries`], which it derefs to), its
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
///     ctx.each::<(&mut Pos, &Vel)>(|(pos, vel)| pos.0 += vel.0).unwrap();
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
    /// The checked view; the context's queries, resources and snapshots are its methods
    /// (through `Deref`), written once.
    queries: Queries<'w>,
    meta: &'w SystemMeta,
    commands: &'w mut CommandBuffer,
    rng: &'w mut Prng,
    /// The system's `par_each` scratch; `None` in a context built by hand.
    batches: Option<&'w BatchScratch>,
}

impl<'w> SystemContext<'w> {
    /// A context over `queries`, the checked view of the system described by `meta` (safe:
    /// making the view was the unsafe step), with the system's commands and PRNG stream. The
    /// safe ways to get a context are [`World::context`](crate::World::context) and
    /// [`SystemHost`](crate::SystemHost).
    pub fn new(
        queries: Queries<'w>,
        meta: &'w SystemMeta,
        commands: &'w mut CommandBuffer,
        rng: &'w mut Prng,
    ) -> Self {
        Self {
            queries,
            meta,
            commands,
            rng,
            batches: None,
        }
    }

    /// [`SystemContext::new`] with the system's `par_each` scratch, so its loops run on the
    /// pool and record each batch's commands apart.
    pub(crate) fn with_batches(
        queries: Queries<'w>,
        meta: &'w SystemMeta,
        commands: &'w mut CommandBuffer,
        rng: &'w mut Prng,
        batches: &'w BatchScratch,
    ) -> Self {
        Self {
            batches: Some(batches),
            ..Self::new(queries, meta, commands, rng)
        }
    }

    /// The running system's id.
    pub fn id(&self) -> SystemId {
        self.meta.id()
    }

    /// The running system's name.
    pub fn name(&self) -> &'static str {
        self.meta.name()
    }

    /// The components the system declared read-only.
    pub fn reads(&self) -> &ComponentSet {
        self.meta.reads()
    }

    /// The components the system declared write.
    pub fn writes(&self) -> &ComponentSet {
        self.meta.writes()
    }

    /// The id, name and declared access together.
    pub fn meta(&self) -> &'w SystemMeta {
        self.meta
    }

    /// The diagnostics the world reports through.
    pub fn diagnostics(&self) -> &'w Diagnostics {
        self.queries.storage().diagnostics()
    }

    /// The system's own PRNG substream, derived from the world's seed and the system's id.
    pub fn rng(&mut self) -> &mut Prng {
        self.rng
    }

    /// The system's command buffer, for structural changes applied after the system phase.
    pub fn commands(&mut self) -> Commands<'_> {
        Commands::new(self.commands, self.queries.storage())
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
    ///     queries.each::<(Entity, &Health)>(|(e, health)| {
    ///         if health.0 <= 0 {
    ///             commands.insert(e, Dead);
    ///         }
    ///     }).unwrap();
    /// }
    /// ```
    pub fn split(&mut self) -> (Queries<'_>, Commands<'_>, &mut Prng) {
        let storage = self.queries.storage();
        (
            self.queries.reborrow(),
            Commands::new(self.commands, storage),
            self.rng,
        )
    }

    /// Calls `f` with each matching item, like [`Queries::each`], in batches of at most
    /// [`PAR_BATCH_ROWS`](crate::PAR_BATCH_ROWS) rows of one table that the idle threads of
    /// the executor running the system help with (in order on this thread without one).
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
    ///         ctx.par_each::<(&mut Pos, &Vel)>(|_, (pos, vel)| pos.0 += vel.0).unwrap();
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
    /// As for [`Queries::each`].
    pub fn par_each<Q: QueryData>(
        &mut self,
        f: impl Fn(&mut Batch<'_>, Q::Item<'_>) + Sync,
    ) -> Result<(), QueryError> {
        let (queries, sink) = self.par_parts();
        par_each_in::<Q>(queries, sink, f)
    }

    /// Calls `f` once per batch of [`SystemContext::par_each`] with its entities and its
    /// rows of each column (`&[T]`, `&mut [T]`, ...), which the compiler can vectorise.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn par_each_chunk<Q: QueryData>(
        &mut self,
        f: impl Fn(&mut Batch<'_>, &[Entity], Q::Chunk<'_>) + Sync,
    ) -> Result<(), QueryError> {
        let (queries, sink) = self.par_parts();
        par_each_chunk_in::<Q>(queries, sink, f)
    }

    /// The view and where this context's parallel loops run: on the pool when the system
    /// has batch scratch, else in order into its own buffer.
    fn par_parts(&mut self) -> (Queries<'_>, BatchSink<'_>) {
        let sink = match self.batches {
            Some(scratch) => BatchSink::Pool(scratch),
            None => BatchSink::Inline(self.commands, self.rng.next_u64()),
        };
        (self.queries.reborrow(), sink)
    }

    /// Like [`Queries::each`], with the system's commands passed to `f`.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn each_with_commands<Q: QueryData>(
        &mut self,
        mut f: impl FnMut(Q::Item<'_>, &mut Commands<'_>),
    ) -> Result<(), QueryError> {
        let (mut queries, mut commands, _) = self.split();
        queries.each::<Q>(|item| f(item, &mut commands))
    }
}

/// The context's checked queries, resources and snapshots: [`Queries::each`],
/// [`Queries::iter_mut`], [`Queries::resource`], [`Queries::snapshot`], ...
impl<'w> Deref for SystemContext<'w> {
    type Target = Queries<'w>;

    fn deref(&self) -> &Queries<'w> {
        &self.queries
    }
}

impl<'w> DerefMut for SystemContext<'w> {
    fn deref_mut(&mut self) -> &mut Queries<'w> {
        &mut self.queries
    }
}
