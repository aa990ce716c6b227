//! Versioned components: a frozen copy of their values as of the last
//! [`World::end_tick`], for systems that declared a snapshot read.
//!
//! A component registered with [`World::register_versioned_component`] (which needs
//! `T: Clone`) keeps, besides its live values in the archetype tables, one entity-ordered list
//! of `(Entity, T)`: a *clone* of every live value, taken by `end_tick`. A system that
//! declared `.reads_snapshot::<T>()` reads that list ([`SystemContext::snapshot`],
//! [`SystemContext::each_snapshot`], [`SystemContext::snapshot_view`], or the
//! [`Snapshot<&T>`](Snapshot) query element) while other systems write the live values: the
//! copy is separate memory, changed only under `&mut World`, so a snapshot read conflicts with
//! no writer and needs no edge.
//!
//! The list is keyed by entity, not by row: commands are applied after each track, so rows
//! move during a tick, but the snapshot does not. Hence, until the next `end_tick`:
//!
//! - an entity spawned (or given `T`) since the snapshot has no snapshot value;
//! - an entity despawned (or stripped of `T`) since then still has its last value, under its
//!   old handle (a reused slot's new entity has another generation, so it does not match).

use std::any::type_name;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::slice;

use laige_registry::{Access, ComponentId};

use crate::archetype::Archetype;
use crate::column::Column;
use crate::component::{CloneFn, ComponentInfo, Components};
use crate::declare::ParamInit;
use crate::queries::{Queries, SystemMeta};
use crate::query::{QueryData, QueryDesc};
use crate::{Entity, QueryError, Storage};

/// The frozen copy of one versioned component: every live value as of the last refresh,
/// with its entity, in ascending entity index.
#[derive(Debug)]
struct Store {
    component: ComponentId,
    clone_fn: CloneFn,
    entities: Vec<Entity>,
    /// Clones of the live values, owned (and dropped) by this column; `values[i]` belongs to
    /// `entities[i]`.
    values: Column,
}

/// The snapshot stores of a storage, one per versioned component, in ascending id.
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct Snapshots {
    stores: Vec<Store>,
}

impl Snapshots {
    /// How many components are versioned.
    #[doc(hidden)]
    pub fn len(&self) -> usize {
        self.stores.len()
    }

    /// Adds an empty store for the versioned component `info`.
    #[doc(hidden)]
    pub fn add(&mut self, info: &ComponentInfo) {
        let clone_fn = info
            .clone_fn
            .expect("a versioned component has a clone function");
        let at = match self
            .stores
            .binary_search_by_key(&info.id(), |s| s.component)
        {
            Ok(_) => return,
            Err(at) => at,
        };
        self.stores.insert(
            at,
            Store {
                component: info.id(),
                clone_fn,
                entities: Vec::new(),
                values: Column::new(info),
            },
        );
    }

    fn get(&self, component: ComponentId) -> Option<&Store> {
        self.stores
            .binary_search_by_key(&component, |s| s.component)
            .ok()
            .map(|at| &self.stores[at])
    }
}

impl Storage {
    /// Refreshes every snapshot store from the live values: drops the old copies, then clones
    /// each live entity's value in ascending entity index. Reuses the buffers: it allocates
    /// only when a component is on more entities than ever before.
    #[doc(hidden)]
    pub fn refresh_snapshots(&mut self) {
        if self.snapshots.stores.is_empty() {
            return;
        }
        for s in 0..self.snapshots.stores.len() {
            let count = self.rows_with(self.snapshots.stores[s].component);
            let store = &mut self.snapshots.stores[s];
            store.entities.clear();
            store.values.clear();
            store.entities.reserve(count);
            store.values.reserve_total(count);
        }
        let Storage {
            entities,
            archetypes,
            snapshots,
            ..
        } = self;
        for (entity, location) in entities.iter_live() {
            let table = &archetypes[location.archetype as usize];
            for store in &mut snapshots.stores {
                let Some(col) = table.column_index(store.component) else {
                    continue;
                };
                let src = table.columns()[col].ptr_at(location.row as usize);
                // SAFETY: the entity is live, so its row holds a valid value of the column's
                // type, which `store.clone_fn` is for; `&mut self` excludes writers; the store has
                // room for every entity with the component (reserved above), and its column
                // is separate memory from the table's.
                unsafe { store.values.push_clone(src, store.clone_fn) };
                store.entities.push(entity);
            }
        }
    }
}

/// The snapshot of a versioned component `T`: its values as of the last
/// [`World::end_tick`], with their entities, in ascending entity index.
///
/// Borrowed from the world for `'a`; it stays valid while systems write the live values.
pub struct SnapshotView<'a, T> {
    entities: &'a [Entity],
    values: &'a [T],
}

impl<T> Clone for SnapshotView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SnapshotView<'_, T> {}

impl<T> fmt::Debug for SnapshotView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnapshotView")
            .field("component", &type_name::<T>())
            .field("len", &self.len())
            .finish()
    }
}

impl<'a, T> SnapshotView<'a, T> {
    const EMPTY: Self = Self {
        entities: &[],
        values: &[],
    };

    /// `entity`'s value as of the last `end_tick`; `None` when it had none then (spawned,
    /// or given `T`, since), or for a handle that was not live then.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&'a T> {
        let at = self
            .entities
            .binary_search_by_key(&entity.index(), |e| e.index())
            .ok()?;
        (self.entities[at] == entity).then(|| &self.values[at])
    }

    /// Whether `entity` has a snapshot value.
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }

    /// The entities with a snapshot value, in ascending index.
    pub fn entities(&self) -> &'a [Entity] {
        self.entities
    }

    /// The snapshot values; `values()[i]` belongs to `entities()[i]`.
    pub fn values(&self) -> &'a [T] {
        self.values
    }

    /// The `(entity, value)` pairs in ascending entity index.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Entity, &'a T)> + 'a {
        self.entities.iter().copied().zip(self.values)
    }

    /// How many entities have a snapshot value.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether none has.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}

/// The snapshot of `T` for a reader: `declared` is the running system, `None` for setup code
/// on the world. Not reported.
///
/// In order: a resource type is [`QueryError::ResourceInQuery`]; a component that is not
/// versioned is [`QueryError::NotVersioned`]; a system needs a `ReadSnapshot` declaration
/// ([`QueryError::Undeclared`] otherwise). An unregistered type gives setup code an empty view
/// and a system [`QueryError::Undeclared`] (it cannot have declared it).
#[doc(hidden)]
pub fn snapshot_of<'a, T: Send + Sync + 'static>(
    components: &Components,
    snapshots: &'a Snapshots,
    declared: Option<&SystemMeta>,
) -> Result<SnapshotView<'a, T>, QueryError> {
    let component = type_name::<T>();
    let system = declared.map(|meta| meta.name);
    let undeclared = |meta: &SystemMeta, declared| QueryError::Undeclared {
        system: meta.name,
        system_id: meta.id,
        component,
        access: Access::ReadSnapshot,
        declared,
    };
    let Some(id) = components.id_of::<T>() else {
        return match declared {
            Some(meta) => Err(undeclared(meta, None)),
            None => Ok(SnapshotView::EMPTY),
        };
    };
    if components.is_resource(id) {
        return Err(QueryError::ResourceInQuery { system, component });
    }
    let Some(store) = snapshots.get(id) else {
        return Err(QueryError::NotVersioned { system, component });
    };
    if let Some(meta) = declared {
        let access = meta.declared(id);
        if access != Some(Access::ReadSnapshot) {
            return Err(undeclared(meta, access));
        }
    }
    let len = store.entities.len();
    debug_assert_eq!(store.values.len(), len);
    // SAFETY: the store of `T`'s id holds `len` initialised, aligned values of `T`; they
    // change only under `&mut Storage`, which cannot exist while `snapshots` is borrowed for
    // `'a`; `T: Sync` makes sharing them across threads fine.
    let values = unsafe { slice::from_raw_parts(store.values.data().cast::<T>().as_ptr(), len) };
    Ok(SnapshotView {
        entities: &store.entities,
        values,
    })
}

impl<'a> Queries<'a> {
    /// [`SystemContext::snapshot_view`] on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::snapshot_view`].
    pub fn snapshot_view<T: Send + Sync + 'static>(
        &self,
    ) -> Result<SnapshotView<'a, T>, QueryError> {
        let storage = self.storage;
        snapshot_of::<T>(&storage.components, &storage.snapshots, Some(self.meta))
            .map_err(|err| storage.report(err))
    }

    /// [`SystemContext::snapshot`] on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::snapshot_view`].
    pub fn snapshot<T: Send + Sync + 'static>(
        &self,
        entity: Entity,
    ) -> Result<Option<&'a T>, QueryError> {
        Ok(self.snapshot_view::<T>()?.get(entity))
    }
}

/// A query element that reads the snapshot of a versioned component:
/// `ctx.each::<(&mut Vel, Snapshot<&Pos>)>(|e, (vel, old_pos)| ..)`.
///
/// Per row it yields `Option<&T>`: the entity's value as of the last
/// [`World::end_tick`], or `None` when it had none then (one binary search per row). Per
/// archetype ([`SystemContext::each_chunk`]) it yields the whole [`SnapshotView`]. It does
/// not narrow the matched entities, and reads no live column, so it aliases nothing: it
/// needs a `.reads_snapshot::<T>()` declaration, never a read or write of `T`.
pub struct Snapshot<Q>(PhantomData<fn() -> Q>);

impl<Q> fmt::Debug for Snapshot<Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Snapshot<{}>", type_name::<Q>())
    }
}

/// A [`SnapshotView`] with its lifetime erased, for a query's state.
pub struct RawView<T> {
    entities: NonNull<Entity>,
    values: NonNull<T>,
    len: usize,
}

impl<T> Clone for RawView<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RawView<T> {}

impl<T> RawView<T> {
    fn erase(view: SnapshotView<'_, T>) -> Self {
        Self {
            entities: NonNull::from(view.entities).cast(),
            values: NonNull::from(view.values).cast(),
            len: view.len(),
        }
    }

    /// # Safety
    ///
    /// The store it was erased from is unchanged and alive for `'a`.
    unsafe fn view<'a>(self) -> SnapshotView<'a, T> {
        // SAFETY: the pointers and length come from two slices of the store, which the caller
        // guarantees are still valid for `'a`.
        unsafe {
            SnapshotView {
                entities: slice::from_raw_parts(self.entities.as_ptr(), self.len),
                values: slice::from_raw_parts(self.values.as_ptr(), self.len),
            }
        }
    }
}

// SAFETY: `init` checks a snapshot read of `T` (declared `ReadSnapshot`) and records no live
// access; `item`/`chunk` read only the snapshot store, which does not change while the storage
// is borrowed (only `&mut Storage` refreshes it), and the archetype's entity column, which no
// system writes.
unsafe impl<T: Send + Sync + 'static> QueryData for Snapshot<&T> {
    type Item<'a> = Option<&'a T>;
    type Chunk<'a> = SnapshotView<'a, T>;
    type State = RawView<T>;
    type Fetch = (RawView<T>, NonNull<Entity>);

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        desc.snapshot::<T>().map(RawView::erase)
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::ReadSnapshot);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        (*state, archetype.entities_ptr())
    }

    #[inline]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Option<&'a T> {
        let (view, entities) = fetch;
        // SAFETY: `entities` is at a row of the matched archetype's entity column, so one step
        // on is at most one past its end; the store is unchanged for `'a` (the storage stays
        // borrowed while the query runs).
        unsafe {
            let entity = *entities.as_ptr();
            crate::query::skip(entities, 1);
            view.view().get(entity)
        }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller: the target is a row of the entity column.
        unsafe { crate::query::skip(&mut fetch.1, rows) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, _: usize) -> SnapshotView<'a, T> {
        // SAFETY: the store is unchanged for `'a`, as for `item`.
        unsafe { fetch.0.view() }
    }
}
