//! The World: storage plus systems, and the direct methods setup code uses.

mod components;
mod names;
mod systems;

use laige_diag::Diagnostics;
use laige_registry::{ComponentId, Registry, SystemId};

use crate::command::{ApplyStats, CommandBuffer, Commands};
use crate::observers::Observers;
use crate::runtime::Runtime;
use crate::{
    ComponentTicks, Entity, QueryError, StateHasher, Storage, SystemRun, WorldError, WorldOptions,
};
use laige_query::{Prepared, Queries, QueryData};
use laige_storage::StorageOwner;
use laige_storage::archetype::Archetype;
use laige_storage::bundle::Bundle;

pub(crate) use names::intern;
pub use names::{SystemHandle, SystemNames};
pub(crate) use systems::RunEnd;
pub use systems::{SystemBuilder, SystemState, ViewSource};

/// Archetype storage for entities and components, plus the registered systems with their
/// command buffers and PRNG substreams.
///
/// The direct methods (`spawn`, `insert`, `get`, `each`, ...) serve setup code and tests;
/// systems see the world only through a [`SystemContext`](crate::SystemContext).
pub struct World {
    pub(crate) storage: StorageOwner,
    pub(crate) registry: Registry<SystemRun>,
    pub(crate) systems: Vec<SystemState>,
    pub(crate) runtime: Runtime,
    pub(crate) observers: Observers,
    /// The resources typed systems cannot run without (plain `Res`/`ResMut`): the system,
    /// the resource's id and type name, checked when the schedule is built.
    pub(crate) required_resources: Vec<(SystemId, ComponentId, &'static str)>,
    /// The registered event queues.
    pub(crate) events: crate::events::EventQueues,
    options: WorldOptions,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("storage", &self.storage)
            .field("systems", &self.registry.len())
            .finish_non_exhaustive()
    }
}

impl Default for World {
    fn default() -> Self {
        Self::new(WorldOptions::default())
    }
}

impl World {
    /// An empty world.
    pub fn new(options: WorldOptions) -> Self {
        let diag = options.diagnostics.clone().unwrap_or_default();
        let max = options.max_entities.unwrap_or(u32::MAX);
        Self {
            storage: StorageOwner::new(Storage::new(options.capacity, max, diag.clone())),
            registry: Registry::with_diagnostics(diag),
            systems: Vec::new(),
            runtime: Runtime::new(options.timing, options.clock.clone()),
            observers: Observers::default(),
            required_resources: Vec::new(),
            events: Default::default(),
            options,
        }
    }

    /// The options the world was created with.
    pub fn options(&self) -> &WorldOptions {
        &self.options
    }

    /// The diagnostics the world (and its registry) report through.
    pub fn diagnostics(&self) -> &Diagnostics {
        self.storage.diagnostics()
    }

    /// The storage, for metadata (liveness, counts, archetypes).
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The archetype tables in id order; id 0 holds the entities without components.
    pub fn archetypes(&self) -> &[Archetype] {
        self.storage.archetypes()
    }

    /// Spawns an entity with the components of `bundle`, a tuple such as `(Pos, Vel)` or
    /// `(Pos,)`; `()` spawns an entity without components.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnregisteredComponent`], [`WorldError::BundleDuplicate`], or
    /// [`WorldError::EntityLimit`]; the bundle is dropped.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Result<Entity, WorldError> {
        self.storage.spawn(bundle)
    }

    /// Spawns one entity per bundle of `bundles` (all of one bundle type) and returns their
    /// handles in spawn order, borrowed from the world: keep them with `.to_vec()`, or drop
    /// the borrow and nothing is allocated for them. Ids are resolved, the table found and
    /// entity slots and rows reserved once per batch; the result is the same as spawning
    /// each bundle with [`World::spawn`], in order.
    ///
    /// ```
    /// use laige_world::{Component, World};
    ///
    /// struct Pos(f32);
    /// impl Component for Pos {}
    ///
    /// let mut world = World::default();
    /// world.register_component::<Pos>()?;
    /// let spawned = world.spawn_batch((0..3).map(|i| Pos(i as f32)))?.to_vec();
    /// assert_eq!(spawned.len(), 3);
    /// assert_eq!(world.get::<Pos>(spawned[2])?.0, 2.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`World::spawn`]; see [`Storage::spawn_batch`] for what an entity limit
    /// reached mid-batch keeps.
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> Result<&[Entity], WorldError>
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        self.storage.spawn_batch(bundles)
    }

    /// Reserves entity slots and table rows for `additional` more entities of bundle type
    /// `B`, so that spawning them (one by one or in a batch) allocates nothing.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnregisteredComponent`], [`WorldError::BundleDuplicate`] or
    /// [`WorldError::ResourceAsComponent`]; nothing is reserved.
    pub fn reserve<B: Bundle>(&mut self, additional: usize) -> Result<(), WorldError> {
        self.storage.reserve::<B>(additional)
    }

    /// Despawns `entity`, dropping its components.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`] (event `ecs/stale_entity_destroy`).
    pub fn despawn(&mut self, entity: Entity) -> Result<(), WorldError> {
        let location = self.storage.locate(entity, "despawn")?;
        self.storage.despawn_at(entity, location);
        Ok(())
    }

    /// Despawns every entity, dropping their components (contract `clear()`).
    ///
    /// Everything but the entities survives: registered components and systems, archetype
    /// tables (empty, with their allocations), resources, timing and PRNG substreams.
    /// Snapshots keep the previous tick's values until the next [`World::end_tick`], as after
    /// a despawn. Every handle goes stale; the next spawns reuse the freed slots from the
    /// highest index down, so two worlds with the same history stay identical. Allocates
    /// nothing. If a component's `Drop` panics, the world is still left empty (every handle
    /// stale, every table empty); the panicking table's values not dropped yet are leaked.
    ///
    /// The contract's `iteration_clear` guard has no counterpart: `clear` takes `&mut self`,
    /// so no query or system can be running.
    pub fn clear(&mut self) {
        self.storage.clear();
    }

    /// Sets `entity`'s `T` to `value`: adds it (moving the entity to another archetype), or
    /// replaces and drops the old value.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`] or [`WorldError::UnregisteredComponent`]; `value` is
    /// dropped.
    pub fn insert<T: Send + Sync + 'static>(
        &mut self,
        entity: Entity,
        value: T,
    ) -> Result<(), WorldError> {
        self.storage.insert(entity, value)
    }

    /// Removes `entity`'s `T` and returns it; `Ok(None)` when it has none.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`] or [`WorldError::UnregisteredComponent`].
    pub fn remove<T: Send + Sync + 'static>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<T>, WorldError> {
        self.storage.remove(entity)
    }

    /// `entity`'s `T`.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`], [`WorldError::UnregisteredComponent`] or
    /// [`WorldError::MissingComponent`].
    pub fn get<T: 'static>(&self, entity: Entity) -> Result<&T, WorldError> {
        self.storage.get(entity, "get")
    }

    /// `entity`'s `T`, mutably.
    ///
    /// # Errors
    ///
    /// As for [`World::get`].
    ///
    /// A tracked `T` is marked changed at the world's current change tick, whether or not
    /// the caller writes through the reference.
    pub fn get_mut<T: 'static>(&mut self, entity: Entity) -> Result<&mut T, WorldError> {
        self.storage.get_mut(entity, "get_mut")
    }

    /// The change ticks of `entity`'s `T`: the tick it was added at and the tick it last
    /// changed at (docs/api/changes.md). `None` when the entity is stale, has no `T`, or `T`
    /// is not tracked.
    pub fn component_ticks<T: 'static>(&mut self, entity: Entity) -> Option<ComponentTicks> {
        let component = self.storage.components().id_of::<T>()?;
        self.storage.component_ticks(entity, component)
    }

    /// The world's change tick: what its next write outside a system is stamped with. It
    /// moves on once per system run and once per command application, in schedule order.
    pub fn change_tick(&self) -> u64 {
        self.storage.change_tick()
    }

    /// Whether `entity` has a `T`.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`] or [`WorldError::UnregisteredComponent`].
    pub fn has<T: 'static>(&self, entity: Entity) -> Result<bool, WorldError> {
        let location = self.storage.locate(entity, "has")?;
        let component = self.storage.require::<T>()?;
        Ok(self
            .storage
            .component_ptr(entity, location, component)
            .is_some())
    }

    /// Whether `entity` is live. A pure query: stale is `false`, with no event.
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.storage.is_alive(entity)
    }

    /// The number of live entities.
    pub fn len(&self) -> usize {
        self.storage.len()
    }

    /// Whether no entity is live.
    pub fn is_empty(&self) -> bool {
        self.storage.is_empty()
    }

    /// The id of component type `T`, if registered.
    pub fn component_id<T: 'static>(&self) -> Option<ComponentId> {
        self.storage.component_id::<T>()
    }

    /// The whole world's view for setup code: queries, iterators and lookups not checked
    /// against any declared access (`world.queries().iter_mut::<&mut Pos>()`).
    pub fn queries(&mut self) -> Queries<'_> {
        Queries::exclusive(&mut self.storage, None)
    }

    /// A setup-time query over the whole world ([`Queries::each`] on [`World::queries`]).
    ///
    /// # Errors
    ///
    /// [`QueryError::Aliased`] for a query naming a component twice with a write.
    pub fn each<Q: QueryData>(&mut self, f: impl FnMut(Q::Item<'_>)) -> Result<(), QueryError> {
        self.queries().each::<Q>(f)
    }

    /// The per-archetype form of [`World::each`]: entities and whole columns as slices.
    ///
    /// # Errors
    ///
    /// As for [`World::each`].
    pub fn each_chunk<Q: QueryData>(
        &mut self,
        f: impl FnMut(&[Entity], Q::Chunk<'_>),
    ) -> Result<(), QueryError> {
        self.queries().each_chunk::<Q>(f)
    }

    /// Checks `Q` once, for many lookups by handle ([`Prepared::get`]), for setup code.
    ///
    /// # Errors
    ///
    /// As for [`World::each`].
    pub fn prepare<Q: QueryData>(&mut self) -> Result<Prepared<'_, Q>, QueryError> {
        self.queries().into_prepared::<Q>()
    }

    /// Records commands for this world in a standalone `buffer`; apply it with
    /// [`World::apply`].
    pub fn commands<'a>(&'a self, buffer: &'a mut CommandBuffer) -> Commands<'a> {
        Commands::new(buffer, &self.storage)
    }

    /// Applies a standalone command buffer in recording order, and empties it.
    ///
    /// # Errors
    ///
    /// [`WorldError::ForeignCommandBuffer`] for a buffer filled for another world.
    pub fn apply(&mut self, buffer: &mut CommandBuffer) -> Result<ApplyStats, WorldError> {
        self.storage.apply_commands(buffer)
    }

    /// FNV-1a 64 of the live state, fed in this order (every number big-endian, at the
    /// width given; the rationale is in `docs/decisions/0004-state-hash.md`):
    ///
    /// 1. the live entity count (u32);
    /// 2. the number `K` of distinct component sets that live entities have (u32), then each
    ///    set in canonical order (fewer components first, then lexicographically by
    ///    ascending ids): its component count, then its ids in ascending order (u16 each).
    ///    An entity's *rank* is the 0-based position of its set in this list. Ranks and the
    ///    run opener `K` are *symbols*: 1 byte when `K < 2^8`, 2 when `K < 2^16`, else 4;
    /// 3. per live entity in ascending index: when it opens a run (it is the first live
    ///    entity, or its index is not one past the previous live entity's, or its
    ///    generation differs from that entity's), the opener `K`, then its index and its
    ///    generation (u32 each); then its rank; then per hashed component in ascending id
    ///    the bytes of its [`StateHash`](crate::StateHash);
    /// 4. per hashed resource in ascending id: the id (u16), then the bytes of its
    ///    [`StateHash`](crate::StateHash) (nothing when the world holds none);
    /// 5. the registered system count, then per system in ascending id: the id, 1, and its
    ///    PRNG's seed and two state words (u64 words each).
    ///
    /// Row layout, archetype ids, empty tables and slot-reuse history do not enter it, only
    /// the live state. A pure function; allocates nothing.
    pub fn state_hash(&self) -> u64 {
        let mut h = StateHasher::new();
        self.storage.hash_components(&mut h);
        h.write_u64(self.systems.len() as u64);
        for (index, system) in self.systems.iter().enumerate() {
            h.write_u64(index as u64 + 1);
            // Every system has a stream; the 1 marks it, as when streams were optional, so
            // hashes stay comparable with earlier runs.
            let rng = system.rng();
            let (s0, s1) = rng.state();
            h.write_u64(1);
            h.write_u64(rng.seed());
            h.write_u64(s0);
            h.write_u64(s1);
        }
        h.finish()
    }

    /// Parts 1 to 4 of [`World::state_hash`]: components and hashed resources, no PRNG state.
    pub fn component_state_hash(&self) -> u64 {
        let mut h = StateHasher::new();
        self.storage.hash_components(&mut h);
        h.finish()
    }
}
