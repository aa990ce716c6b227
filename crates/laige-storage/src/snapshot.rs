//! Versioned components: a frozen copy of their values as of the last
//! `World::end_tick`, for systems that declared a snapshot read.
//!
//! A component registered as versioned (`ComponentOptions::versioned`, which needs
//! `T: Clone`) keeps, besides its live values in the archetype tables, one entity-ordered list
//! of `(Entity, T)`: a *clone* of every live value, taken by `end_tick`. A system that
//! declared `.reads_snapshot::<T>()` reads that list (`SystemContext::snapshot`,
//! `SystemContext::each_snapshot`, `SystemContext::snapshot_view`, or the
//! `Snapshot<&T>` query element (laige-query)) while other systems write the live values: the
//! copy is separate memory, changed only under `&mut World`, so a snapshot read conflicts with
//! no writer and needs no edge.
//!
//! The list is keyed by entity, not by row: commands are applied after each track, so rows
//! move during a tick, but the snapshot does not. Hence, until the next `end_tick`:
//!
//! - an entity spawned (or given `T`) since the snapshot has no snapshot value;
//! - an entity despawned (or stripped of `T`) since then still has its last value, under its
//!   old handle (a reused slot's new entity has another generation, so it does not match).

mod refresh;

pub use refresh::SLOTS_PER_RANGE;

use std::any::type_name;
use std::fmt;
use std::ptr::NonNull;
use std::slice;

use laige_registry::ComponentId;

use crate::Entity;
use crate::column::Column;
use crate::component::{CloneFn, ComponentInfo};

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
pub struct Snapshots {
    stores: Vec<Store>,
    split: refresh::SplitScratch,
}

impl Snapshots {
    /// How many components are versioned.
    pub fn len(&self) -> usize {
        self.stores.len()
    }

    /// Adds an empty store for the versioned component `info`.
    pub(crate) fn add(&mut self, info: &ComponentInfo) {
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

    /// Every store's component, entities and values, in ascending id.
    pub(crate) fn stores(&self) -> impl Iterator<Item = (ComponentId, &[Entity], &Column)> + '_ {
        self.stores
            .iter()
            .map(|s| (s.component, s.entities.as_slice(), &s.values))
    }

    /// Every store's component, entities and values, mutably, in ascending id.
    pub(crate) fn stores_mut(
        &mut self,
    ) -> impl Iterator<Item = (ComponentId, &mut Vec<Entity>, &mut Column)> + '_ {
        self.stores
            .iter_mut()
            .map(|s| (s.component, &mut s.entities, &mut s.values))
    }

    fn get(&self, component: ComponentId) -> Option<&Store> {
        self.stores
            .binary_search_by_key(&component, |s| s.component)
            .ok()
            .map(|at| &self.stores[at])
    }

    /// The component of store number `store`.
    pub fn component(&self, store: usize) -> ComponentId {
        self.stores[store].component
    }

    /// The snapshot of `component` as a view of `T`; `None` when it is not versioned.
    ///
    /// # Safety
    ///
    /// `T` is the type registered as `component`.
    pub unsafe fn view<T: Sync>(&self, component: ComponentId) -> Option<SnapshotView<'_, T>> {
        let store = self.get(component)?;
        let len = store.entities.len();
        debug_assert_eq!(store.values.len(), len);
        let data = store.values.data().cast::<T>().as_ptr();
        // SAFETY: the store of `component` holds `len` initialised, aligned values of its type,
        // `T` (the caller's promise); they change only under `&mut Storage`, which cannot exist
        // while `self` is borrowed; `T: Sync` makes sharing them across threads fine.
        let values = unsafe { slice::from_raw_parts(data, len) };
        Some(SnapshotView {
            entities: &store.entities,
            values,
        })
    }
}

/// The snapshot of a versioned component `T`: its values as of the last
/// `World::end_tick`, with their entities, in ascending entity index.
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
    /// The view of a component no entity had.
    pub const EMPTY: Self = Self {
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
    /// Forgets `view`'s lifetime; only [`RawView::view`], which is `unsafe`, brings it back.
    pub fn erase(view: SnapshotView<'_, T>) -> Self {
        Self {
            entities: NonNull::from(view.entities).cast(),
            values: NonNull::from(view.values).cast(),
            len: view.len(),
        }
    }

    /// # Safety
    ///
    /// The store it was erased from is unchanged and alive for `'a`.
    pub unsafe fn view<'a>(self) -> SnapshotView<'a, T> {
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
