//! The storage a system context borrows: entities, component types and archetype tables.

mod batch;
mod changes;
mod insert_run;
mod ops;
mod owner;
mod sparse_ops;
mod state;
mod state_hash;

pub(crate) use insert_run::RunValues;
pub use ops::RowWriter;
pub use owner::StorageOwner;
pub use state::{StorageState, StorageStateError};
mod typed;

use std::collections::BTreeMap;

use laige_diag::Diagnostics;
use laige_registry::{ComponentId, ComponentSet};

use crate::archetype::{Archetype, ArchetypeId, signature_key};
use crate::column::TableColumn;
use crate::component::Components;
use crate::entity::{Entities, Location};
use crate::resource::Resources;
use crate::snapshot::Snapshots;
use crate::sparse::SparseSets;
use crate::{Entity, WorldError};

/// All component data of a world, without its systems.
///
/// # The access contract
///
/// Column data can be written through a shared `&Storage`: that is what lets several
/// `SystemContext`s run at once. It is sound because every such write
/// happens inside a context, whose `unsafe` constructor demands that no other live context
/// may write a component this one declares, or read one it writes (the scheduler proves this
/// from declared access), and because each context checks every query against its system's
/// declared access before touching a row. Structural changes (spawn, despawn, insert, remove)
/// need `&mut Storage`, so they never overlap a context.
///
/// Resources follow the same contract: they are components without entities, in the same id
/// space, declared and checked the same way. Snapshots of versioned components change only
/// under `&mut Storage` (`World::end_tick`), so any number of
/// contexts may read them while writers change the live values.
///
/// Through a plain `&Storage` only metadata is readable: liveness, counts, archetypes.
pub struct Storage {
    entities: Entities,
    components: Components,
    archetypes: Vec<Archetype>,
    resources: Resources,
    snapshots: Snapshots,
    /// The values of the sparse components, outside the tables.
    sparse: SparseSets,
    by_signature: BTreeMap<[u64; 4], u32>,
    /// The signature `archetype_for` last looked up, and its archetype: spawns of one bundle
    /// type in a row skip the map.
    last_lookup: (ComponentSet, u32),
    /// The component `require_mut` last found, with its type: a structural change repeated
    /// on one type skips the type index (and the registry: the type is compared here).
    last_required: Option<(std::any::TypeId, ComponentId)>,
    /// The add and remove edges last taken, `(from, component, to)`: a run of inserts (or
    /// removes) of one component on entities of one table finds its target table at once.
    last_add: (u32, Option<ComponentId>, u32),
    last_remove: (u32, Option<ComponentId>, u32),
    /// Every archetype id, in the canonical order of their component sets (see
    /// [`canonical_order`]): the state hash's order of component sets.
    canonical: Vec<u32>,
    /// The column directory: per component index, the archetypes that have it in ascending
    /// id, each with its column of that component. Queries visit only the tables of one
    /// component they require, and reach its columns in one step.
    with_component: Vec<Vec<TableColumn>>,
    diag: Diagnostics,
    identity: u64,
    /// The change tick structural changes stamp tracked values with (see `storage/changes.rs`).
    change_tick: u64,
    /// Scratch of `Storage::insert_run`, kept so a steady tick allocates nothing.
    run: insert_run::RunScratch,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("entities", &self.entities.live())
            .field("components", &self.components.len())
            .field("archetypes", &self.archetypes.len())
            .field("resources", &self.resources.len())
            .field("versioned", &self.snapshots.len())
            .finish_non_exhaustive()
    }
}

impl Storage {
    /// An empty storage with room for `capacity` entity slots and at most `max_entities`
    /// live entities, reporting through `diag`.
    pub fn new(capacity: u32, max_entities: u32, diag: Diagnostics) -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        // Identity only tells two worlds apart for command buffers; it never reaches state.
        static NEXT_IDENTITY: AtomicU64 = AtomicU64::new(1);
        let components = Components::default();
        let empty = Archetype::new(ArchetypeId::EMPTY, ComponentSet::EMPTY, &components);
        let mut by_signature = BTreeMap::new();
        by_signature.insert(signature_key(&ComponentSet::EMPTY), 0);
        Self {
            entities: Entities::new(capacity, max_entities),
            components,
            archetypes: vec![empty],
            resources: Resources::default(),
            snapshots: Snapshots::default(),
            sparse: SparseSets::default(),
            by_signature,
            last_lookup: (ComponentSet::EMPTY, 0),
            last_required: None,
            last_add: (0, None, 0),
            last_remove: (0, None, 0),
            canonical: vec![0],
            with_component: Vec::new(),
            diag,
            identity: NEXT_IDENTITY.fetch_add(1, Ordering::Relaxed),
            change_tick: changes::FIRST_TICK,
            run: insert_run::RunScratch::default(),
        }
    }

    /// A number unique to this storage in the process, to tell worlds apart (a command
    /// buffer binds to one); it never reaches state.
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// Reports `err` through the rate limiter and returns it.
    pub fn report<E: laige_diag::Diagnostic>(&self, err: E) -> E {
        self.diag.report(err.key(), || err.emit());
        err
    }

    /// The number of live entities.
    pub fn len(&self) -> usize {
        self.entities.live() as usize
    }

    /// Whether no entity is live.
    pub fn is_empty(&self) -> bool {
        self.entities.live() == 0
    }

    /// Whether `entity` is live. A pure query: a stale handle is `false`, with no event.
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.entities.is_alive(entity)
    }

    /// The registered component types.
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// The id of component type `T`, if registered.
    pub fn component_id<T: 'static>(&self) -> Option<ComponentId> {
        self.components.id_of::<T>()
    }

    /// The entity slot table: liveness and locations.
    pub fn entities(&self) -> &Entities {
        &self.entities
    }

    /// The resource values.
    pub fn resources(&self) -> &Resources {
        &self.resources
    }

    /// The snapshot stores of the versioned components.
    pub fn snapshots(&self) -> &Snapshots {
        &self.snapshots
    }

    /// The sets of the sparse components, which live outside the tables.
    #[inline]
    pub fn sparse_sets(&self) -> &SparseSets {
        &self.sparse
    }

    /// The archetype tables in id order (id 0 is the empty set).
    pub fn archetypes(&self) -> &[Archetype] {
        &self.archetypes
    }

    /// The archetype of a live entity.
    pub fn archetype_of(&self, entity: Entity) -> Option<ArchetypeId> {
        self.entities
            .location(entity)
            .map(|loc| ArchetypeId(loc.archetype))
    }

    /// The diagnostics this storage reports through.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diag
    }

    /// The location of `entity`, or a reported stale error.
    #[inline]
    pub fn locate(&self, entity: Entity, op: &'static str) -> Result<Location, WorldError> {
        match self.entities.location(entity) {
            Some(location) => Ok(location),
            None => Err(self.report_stale(entity, op)),
        }
    }

    /// Reports a stale `entity`; out of line, off the hot path.
    #[cold]
    #[inline(never)]
    fn report_stale(&self, entity: Entity, op: &'static str) -> WorldError {
        self.report(WorldError::StaleEntity { entity, op })
    }

    /// The id of the component type `T`, or a reported error: unregistered, or a resource.
    pub fn require<T: 'static>(&self) -> Result<ComponentId, WorldError> {
        let component = std::any::type_name::<T>();
        match self.components.id_of::<T>() {
            Some(id) if self.components.is_resource(id) => {
                Err(self.report(WorldError::ResourceAsComponent { component }))
            }
            Some(id) => Ok(id),
            None => Err(self.report(WorldError::UnregisteredComponent { component })),
        }
    }

    /// [`Storage::require`], remembering the answer for the next call with the same type.
    #[inline]
    pub fn require_mut<T: 'static>(&mut self) -> Result<ComponentId, WorldError> {
        if let Some((type_id, id)) = self.last_required
            && type_id == std::any::TypeId::of::<T>()
        {
            return Ok(id);
        }
        let id = self.require::<T>()?;
        self.last_required = Some((std::any::TypeId::of::<T>(), id));
        Ok(id)
    }

    /// A reported error if `signature` names a resource type.
    pub fn refuse_resources(&self, signature: &ComponentSet) -> Result<(), WorldError> {
        match signature.first_common(self.components.resources()) {
            Some(id) => Err(self.report(WorldError::ResourceAsComponent {
                component: self.components.get(id).name(),
            })),
            None => Ok(()),
        }
    }

    /// The archetype for `signature`, created (with the next id) when first needed.
    /// Forgets the remembered last lookups (table by signature, required component, table
    /// edges), after tables were removed (a rollback restore).
    pub(crate) fn forget_last_lookups(&mut self) {
        self.last_lookup = (ComponentSet::EMPTY, 0);
        self.last_required = None;
        self.last_add = (0, None, 0);
        self.last_remove = (0, None, 0);
    }

    pub(crate) fn archetype_for(&mut self, signature: &ComponentSet) -> u32 {
        if self.last_lookup.0 == *signature {
            return self.last_lookup.1;
        }
        let id = self.archetype_lookup(signature);
        self.last_lookup = (*signature, id);
        id
    }

    /// [`Storage::archetype_for`] through the map.
    fn archetype_lookup(&mut self, signature: &ComponentSet) -> u32 {
        let key = signature_key(signature);
        if let Some(&id) = self.by_signature.get(&key) {
            return id;
        }
        let id = u32::try_from(self.archetypes.len()).expect("fewer than 2^32 archetypes");
        self.archetypes.push(Archetype::new(
            ArchetypeId(id),
            *signature,
            &self.components,
        ));
        self.by_signature.insert(key, id);
        let archetypes = &self.archetypes;
        let at = self.canonical.partition_point(|&other| {
            canonical_order(
                archetypes[other as usize].components(),
                archetypes[id as usize].components(),
            )
            .is_lt()
        });
        self.canonical.insert(at, id);
        for component in signature.iter() {
            if self.with_component.len() <= component.index() {
                self.with_component
                    .resize_with(component.index() + 1, Vec::new);
            }
            let entry = self.archetypes[id as usize].directory_entry(component);
            self.with_component[component.index()].push(entry);
        }
        id
    }

    /// The column directory's entries for `component`: the archetypes that have it, in
    /// ascending id, each with its column of it.
    #[inline]
    pub fn tables_with(&self, component: ComponentId) -> &[TableColumn] {
        self.with_component
            .get(component.index())
            .map_or(&[], Vec::as_slice)
    }

    /// How many live entities have `component`: the sum of its columns' lengths (the size
    /// of its set, for a sparse component).
    pub fn rows_with(&self, component: ComponentId) -> usize {
        if let Some(set) = self.sparse.get(component) {
            return set.len();
        }
        self.tables_with(component)
            .iter()
            // SAFETY: the entries belong to this storage, borrowed shared here, so no `&mut`
            // to a table's columns exists meanwhile.
            .map(|entry| unsafe { entry.column() }.len())
            .sum()
    }

    /// The archetype reached from `from` by adding `component`.
    #[inline]
    pub(crate) fn add_target(&mut self, from: u32, component: ComponentId) -> u32 {
        if self.last_add.0 == from && self.last_add.1 == Some(component) {
            return self.last_add.2;
        }
        let to = self.add_edge(from, component);
        self.last_add = (from, Some(component), to);
        to
    }

    /// [`Storage::add_target`] through the table's edges.
    fn add_edge(&mut self, from: u32, component: ComponentId) -> u32 {
        if let Some(&to) = self.archetypes[from as usize].add_edges.get(&component) {
            return to;
        }
        let mut signature = *self.archetypes[from as usize].signature();
        signature.insert(component);
        let to = self.archetype_for(&signature);
        self.archetypes[from as usize]
            .add_edges
            .insert(component, to);
        to
    }

    /// The archetype reached from `from` by removing `component`.
    #[inline]
    pub(crate) fn remove_target(&mut self, from: u32, component: ComponentId) -> u32 {
        if self.last_remove.0 == from && self.last_remove.1 == Some(component) {
            return self.last_remove.2;
        }
        let to = self.remove_edge(from, component);
        self.last_remove = (from, Some(component), to);
        to
    }

    /// [`Storage::remove_target`] through the table's edges.
    fn remove_edge(&mut self, from: u32, component: ComponentId) -> u32 {
        if let Some(&to) = self.archetypes[from as usize].remove_edges.get(&component) {
            return to;
        }
        let mut signature = *self.archetypes[from as usize].signature();
        signature.remove(component);
        let to = self.archetype_for(&signature);
        self.archetypes[from as usize]
            .remove_edges
            .insert(component, to);
        to
    }
}

/// The canonical order of component sets (given as ascending ids): fewer components
/// first, then lexicographically by ids.
pub(crate) fn canonical_order(a: &[ComponentId], b: &[ComponentId]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}
