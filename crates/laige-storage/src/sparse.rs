//! Sparse-set storage: the values of a component registered with
//! [`ComponentOptions::sparse`](crate::ComponentOptions::sparse), kept outside the archetype
//! tables and keyed by entity, so that adding or removing one moves no row
//! (`docs/decisions/0018-sparse-components.md`).
//!
//! A set is three arrays: the dense values (a [`Column`]), the dense entities (same order),
//! and the sparse index (per entity slot index, the value's dense position). Insert pushes;
//! remove swap-removes and fixes the index of the value moved. Dense order is a pure function
//! of the operation history; everything that must not depend on it (the state hash, the
//! checksums) walks the sparse index instead, in ascending entity index.

use laige_registry::ComponentId;

use crate::Entity;
use crate::column::{Column, ColumnTicks, ComponentTicks, copy_value};
use crate::component::{ComponentInfo, Components, HashFn};

/// The index value of an entity slot that has no value in the set.
const ABSENT: u32 = u32::MAX;

/// One sparse component's values, keyed by entity.
///
/// Values are written through a shared `&SparseSet` under the storage's access contract, as
/// table columns are (see [`Storage`](crate::Storage)).
pub struct SparseSet {
    values: Column,
    entities: Vec<Entity>,
    /// By entity slot index: the dense position of its value, or [`ABSENT`].
    index: Vec<u32>,
    hash: Option<HashFn>,
}

impl SparseSet {
    /// An empty set for `info`'s type, with change ticks when it is tracked.
    pub(crate) fn new(info: &ComponentInfo) -> Self {
        Self {
            values: Column::for_table(info),
            entities: Vec::new(),
            index: Vec::new(),
            hash: info.hash,
        }
    }

    /// Its three arrays, for a saved state: the values, the entities and the index.
    pub(crate) fn parts(&self) -> (&Column, &[Entity], &[u32]) {
        (&self.values, &self.entities, &self.index)
    }

    /// Its three arrays, to restore them. The caller keeps them consistent: as many values
    /// as entities, and an index that maps each entity's slot to its position.
    pub(crate) fn parts_mut(&mut self) -> (&mut Column, &mut Vec<Entity>, &mut Vec<u32>) {
        (&mut self.values, &mut self.entities, &mut self.index)
    }

    /// How many entities have a value.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// The entities with a value, in dense order (a function of the operation history).
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The dense position of `entity`'s value, if it has one: its row in
    /// [`SparseSet::ticks`].
    #[inline]
    pub fn position(&self, entity: Entity) -> Option<usize> {
        let at = *self.index.get(entity.index() as usize)?;
        // The entity check turns a stale handle of a reused slot into "absent".
        (at != ABSENT && self.entities.get(at as usize) == Some(&entity)).then_some(at as usize)
    }

    /// [`SparseSet::position`] of an entity the caller knows is live: the index alone
    /// answers (a despawn clears the slot's entry, so a live entity's entry is its own), with
    /// no read of the dense entities. For a stale handle the answer may be another entity's
    /// position, never one out of bounds: every entry is absent or below the length.
    #[inline]
    fn position_live(&self, entity: Entity) -> Option<usize> {
        let at = *self.index.get(entity.index() as usize)?;
        debug_assert!(at == ABSENT || self.entities[at as usize] == entity);
        (at != ABSENT).then_some(at as usize)
    }

    /// Whether `entity` has a value.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.position(entity).is_some()
    }

    /// A pointer to `entity`'s value, if it has one: valid for reads, and for writes under
    /// the storage's access contract, until the next structural change.
    #[inline]
    pub fn get_ptr(&self, entity: Entity) -> Option<*mut u8> {
        self.position(entity).map(|at| self.values.ptr_at(at))
    }

    /// A pointer to the value at dense position `at` (from [`SparseSet::position`]).
    #[inline]
    pub fn ptr_at(&self, at: usize) -> *mut u8 {
        debug_assert!(at < self.len());
        self.values.ptr_at(at)
    }

    /// The values' change ticks, in dense order, when the component is tracked.
    #[inline]
    pub fn ticks(&self) -> Option<&ColumnTicks> {
        self.values.ticks()
    }

    /// The change ticks of `entity`'s value, when it has one and the component is tracked.
    /// Takes `&mut self`, so no system writes ticks meanwhile.
    pub(crate) fn entity_ticks(&mut self, entity: Entity) -> Option<ComponentTicks> {
        let at = self.position(entity)?;
        self.values.ticks_mut()?.get(at)
    }

    /// Marks `entity`'s value changed at `tick`, when it has one and the set is tracked.
    pub(crate) fn set_changed(&mut self, entity: Entity, tick: u64) {
        if let (Some(at), Some(ticks)) = (self.position(entity), self.values.ticks_mut()) {
            ticks.set_changed(at, tick);
        }
    }

    /// Sets both ticks of `entity`'s value (a rollback); whether it has one and is tracked.
    pub(crate) fn set_ticks(&mut self, entity: Entity, saved: ComponentTicks) -> bool {
        match (self.position(entity), self.values.ticks_mut()) {
            (Some(at), Some(ticks)) => {
                ticks.set(at, saved);
                true
            }
            _ => false,
        }
    }

    /// Sets `entity`'s value to the one at `src`: replaces (dropping the old value in
    /// place at `src`, marking it changed at `tick`) or appends (added at `tick`).
    ///
    /// # Safety
    ///
    /// `src` points to a valid, aligned, writable value of the set's type, which the caller
    /// gives up.
    pub(crate) unsafe fn insert(&mut self, entity: Entity, src: *mut u8, tick: u64) {
        if let Some(at) = self.position(entity) {
            // SAFETY: `at` is a live row; `src` is a valid value of the type outside the set.
            unsafe { self.values.replace(at, src, tick) };
            return;
        }
        let slot = entity.index() as usize;
        if self.index.len() <= slot {
            self.grow_index(slot);
        }
        if self.entities.len() == self.entities.capacity() {
            self.grow();
        }
        // SAFETY: room was made above; `src` is a valid value of the type, given up.
        unsafe { self.values.push(src, ComponentTicks::new(tick)) };
        self.index[slot] = self.entities.len() as u32;
        self.entities.push(entity);
    }

    /// [`SparseSet::insert`] of a value of the set's type `T`, with typed moves, for a live
    /// `entity` (a stale handle's value would go to the slot's current entity instead).
    ///
    /// # Safety
    ///
    /// `T` is the set's type.
    #[inline]
    pub(crate) unsafe fn insert_typed<T>(&mut self, entity: Entity, value: T, tick: u64) {
        let slot = entity.index() as usize;
        if let Some(at) = self.position_live(entity) {
            if let Some(ticks) = self.values.ticks_mut() {
                ticks.set_changed(at, tick);
            }
            // SAFETY: `at` holds a live `T` (the caller's promise about the type); the new
            // value is in place before the old one's drop runs, so a panicking drop leaves the
            // set consistent.
            drop(unsafe { std::ptr::replace(self.values.ptr_at(at).cast::<T>(), value) });
            return;
        }
        if self.index.len() <= slot {
            self.grow_index(slot);
        }
        if self.entities.len() == self.entities.capacity() {
            self.grow();
        }
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: there is room (the values' capacity is at least the entities'); the value
        // is a valid `T`, given up (`ManuallyDrop`).
        unsafe {
            self.values
                .push_typed::<T>(&*value, ComponentTicks::new(tick))
        };
        self.index[slot] = self.entities.len() as u32;
        self.entities.push(entity);
    }

    /// [`SparseSet::remove`] of a value of the set's type `T`, returned, with typed moves,
    /// for a live `entity` (a stale handle would take the slot's current entity's value).
    ///
    /// # Safety
    ///
    /// `T` is the set's type.
    #[inline]
    pub(crate) unsafe fn remove_typed<T>(&mut self, entity: Entity) -> Option<T> {
        let at = self.position_live(entity)?;
        let last = self.entities.len() - 1;
        self.entities.swap_remove(at);
        if let Some(&moved) = self.entities.get(at) {
            self.index[moved.index() as usize] = at as u32;
        }
        self.index[entity.index() as usize] = ABSENT;
        if let Some(ticks) = self.values.ticks_mut() {
            ticks.swap_remove(at);
        }
        // Typed steps: no multiply by the run-time size.
        let base = self.values.data().as_ptr().cast::<T>();
        let (hole, end) = (base.wrapping_add(at), base.wrapping_add(last));
        // SAFETY: rows `at` and `last` hold live `T`s (the caller's promise about the type);
        // the value at `at` is read out, the last moved into its place (when they differ),
        // and the column shortened by one, so each value has one owner. Nothing here panics.
        unsafe {
            let value = std::ptr::read(hole);
            if at != last {
                std::ptr::copy_nonoverlapping(end, hole, 1);
            }
            self.values.forget_last();
            Some(value)
        }
    }

    /// Makes the index reach entity slot `slot`: it grows to the highest slot index ever
    /// inserted, then never again.
    #[cold]
    fn grow_index(&mut self, slot: usize) {
        self.index.resize(slot + 1, ABSENT);
    }

    /// Doubles the room for values (the values' column keeps at least the entities'
    /// capacity, so a check of the entities alone finds room for both).
    #[cold]
    fn grow(&mut self) {
        self.entities.reserve(self.entities.len().max(8));
        self.values.reserve_total(self.entities.capacity());
    }

    /// Removes `entity`'s value, moving it to `out` when given, else dropping it. Returns
    /// whether it had one.
    ///
    /// # Safety
    ///
    /// `out`, when given, is valid for writing one value of the set's type.
    pub(crate) unsafe fn remove(&mut self, entity: Entity, out: Option<*mut u8>) -> bool {
        let Some(at) = self.position(entity) else {
            return false;
        };
        // Bookkeeping first, so a panicking drop below leaves the set consistent.
        self.index[entity.index() as usize] = ABSENT;
        self.entities.swap_remove(at);
        if let Some(&moved) = self.entities.get(at) {
            self.index[moved.index() as usize] = at as u32;
        }
        // SAFETY: `at` is below the column's length (equal to the entities' before the
        // removal); the value left past the end is claimed just below.
        unsafe { self.values.swap_remove_to_end(at) };
        let past_end = self.values.ptr_at(self.values.len());
        match out {
            // SAFETY: the value past the end is live and unclaimed; `out` is valid for one
            // value of the type; copying it there moves it.
            Some(out) => unsafe { copy_value(past_end, out, self.values.item().size()) },
            // SAFETY: the value past the end is live and unclaimed.
            None => unsafe { self.values.drop_past_end() },
        }
        true
    }

    /// Drops every value, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        for entity in self.entities.drain(..) {
            self.index[entity.index() as usize] = ABSENT;
        }
        self.values.clear();
    }

    /// The entities with a value and their values' addresses, in ascending entity index (a
    /// walk of the sparse index: independent of the insertion history).
    pub fn iter_by_entity(&self) -> impl Iterator<Item = (Entity, *mut u8)> + '_ {
        self.index
            .iter()
            .filter(|&&at| at != ABSENT)
            .map(|&at| (self.entities[at as usize], self.values.ptr_at(at as usize)))
    }

    /// The state-hash function of the set's type, when it is hashed.
    pub(crate) fn hash_fn(&self) -> Option<HashFn> {
        self.hash
    }
}

impl std::fmt::Debug for SparseSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseSet")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

/// Every sparse component's set, by component index.
#[derive(Debug, Default)]
pub struct SparseSets {
    sets: Vec<Option<SparseSet>>,
    /// The ids with a set, ascending: what despawn and clear walk.
    ids: Vec<ComponentId>,
}

impl SparseSets {
    /// Adds the empty set of the sparse component `id`.
    pub(crate) fn add(&mut self, components: &Components, id: ComponentId) {
        if self.sets.len() <= id.index() {
            self.sets.resize_with(id.index() + 1, || None);
        }
        self.sets[id.index()] = Some(SparseSet::new(components.get(id)));
        let at = self.ids.partition_point(|&other| other < id);
        self.ids.insert(at, id);
    }

    /// The set of `id`, when it is a sparse component.
    #[inline]
    pub fn get(&self, id: ComponentId) -> Option<&SparseSet> {
        self.sets.get(id.index())?.as_ref()
    }

    /// The set of `id`, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ComponentId) -> Option<&mut SparseSet> {
        self.sets.get_mut(id.index())?.as_mut()
    }

    /// The sparse components' ids and sets, in ascending id, mutably.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (ComponentId, &mut SparseSet)> + '_ {
        let sets = &mut self.sets;
        sets.iter_mut()
            .enumerate()
            .filter_map(|(at, set)| Some((ComponentId::from_index(at)?, set.as_mut()?)))
    }

    /// The sparse components' ids and sets, in ascending id.
    pub fn iter(&self) -> impl Iterator<Item = (ComponentId, &SparseSet)> + '_ {
        self.ids.iter().filter_map(|&id| Some((id, self.get(id)?)))
    }

    /// Whether any component is sparse.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Drops `entity`'s value in every set (its despawn).
    pub(crate) fn remove_entity(&mut self, entity: Entity) {
        for i in 0..self.ids.len() {
            let id = self.ids[i];
            if let Some(set) = self.get_mut(id) {
                // SAFETY: no `out`: the value is dropped.
                unsafe { set.remove(entity, None) };
            }
        }
    }

    /// Drops every value of every set.
    pub(crate) fn clear(&mut self) {
        for set in self.sets.iter_mut().flatten() {
            set.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::mem::ManuallyDrop;

    use super::*;
    use crate::ComponentOptions;
    use crate::component::Component;

    thread_local! {
        static DROPS: Cell<u32> = const { Cell::new(0) };
    }

    #[derive(Debug, PartialEq)]
    struct Tracked(u64);
    impl Component for Tracked {}
    impl Drop for Tracked {
        fn drop(&mut self) {
            DROPS.with(|d| d.set(d.get() + 1));
        }
    }

    fn set() -> SparseSet {
        let mut components = Components::default();
        let (hash, clone) = ComponentOptions::<Tracked>::new().erased();
        let id = components.register::<Tracked>(hash, clone).unwrap();
        SparseSet::new(components.get(id))
    }

    fn entity(index: u32, generation: u32) -> Entity {
        Entity::from_parts(index, generation).unwrap()
    }

    fn put(set: &mut SparseSet, e: Entity, v: u64) {
        let mut value = ManuallyDrop::new(Tracked(v));
        // SAFETY: a valid `Tracked`, given up (ManuallyDrop keeps it from a second drop).
        unsafe { set.insert(e, (&raw mut *value).cast(), 1) };
    }

    fn value(set: &SparseSet, e: Entity) -> Option<u64> {
        // SAFETY: the pointer is to a live `Tracked` of the set, read while nothing writes.
        set.get_ptr(e).map(|p| unsafe { &*p.cast::<Tracked>() }.0)
    }

    #[test]
    fn insert_replace_remove_keep_the_index_true() {
        DROPS.with(|d| d.set(0));
        let mut s = set();
        let (a, b, c) = (entity(5, 1), entity(0, 1), entity(9, 2));
        put(&mut s, a, 1);
        put(&mut s, b, 2);
        put(&mut s, c, 3);
        assert_eq!(s.len(), 3);
        put(&mut s, b, 20);
        assert_eq!(DROPS.with(Cell::get), 1, "the replaced value is dropped");
        assert_eq!(value(&s, b), Some(20));
        // SAFETY: no out: dropped.
        assert!(unsafe { s.remove(a, None) });
        assert_eq!(DROPS.with(Cell::get), 2);
        assert!(!s.contains(a));
        assert_eq!(
            value(&s, c),
            Some(3),
            "the value moved into the hole is still found"
        );
        assert_eq!(value(&s, b), Some(20));
        // SAFETY: nothing to remove.
        assert!(!unsafe { s.remove(a, None) });
        // A stale handle of a reused slot finds nothing.
        assert!(!s.contains(entity(9, 1)));
        let mut out = std::mem::MaybeUninit::<Tracked>::uninit();
        // SAFETY: `out` is valid for one `Tracked`.
        assert!(unsafe { s.remove(c, Some(out.as_mut_ptr().cast())) });
        // SAFETY: `remove` moved the value there.
        assert_eq!(unsafe { out.assume_init() }, Tracked(3));
        // The moved-out value and the temporary it was compared with.
        assert_eq!(
            DROPS.with(Cell::get),
            4,
            "the moved-out value dropped once, here"
        );
        let order: Vec<_> = s.iter_by_entity().map(|(e, _)| e).collect();
        assert_eq!(order, [b]);
        s.clear();
        assert_eq!(s.len(), 0);
        assert!(!s.contains(b));
        assert_eq!(DROPS.with(Cell::get), 5);
    }

    #[test]
    fn iteration_by_entity_ignores_the_insertion_order() {
        let mut s = set();
        for i in [7, 3, 11, 0, 5] {
            put(&mut s, entity(i, 1), u64::from(i));
        }
        // SAFETY: no out: dropped.
        unsafe { s.remove(entity(3, 1), None) };
        let order: Vec<_> = s.iter_by_entity().map(|(e, _)| e.index()).collect();
        assert_eq!(order, [0, 5, 7, 11]);
        let values: Vec<_> = s
            .iter_by_entity()
            // SAFETY: live `Tracked` values, read while nothing writes.
            .map(|(_, p)| unsafe { &*p.cast::<Tracked>() }.0)
            .collect();
        assert_eq!(values, [0, 5, 7, 11]);
    }

    #[test]
    fn typed_insert_and_remove_move_owned_values_once() {
        let mut components = Components::default();
        let (hash, clone) = ComponentOptions::<Name>::new().erased();
        let id = components.register::<Name>(hash, clone).unwrap();
        let mut s = SparseSet::new(components.get(id));
        let es: Vec<_> = (0..20).map(|i| entity(i, 1)).collect();
        for (i, &e) in es.iter().enumerate() {
            // SAFETY: the set holds `Name`s.
            unsafe { s.insert_typed(e, Name(format!("n{i}")), 1) };
        }
        // SAFETY: as above.
        unsafe { s.insert_typed(es[3], Name("again".into()), 1) };
        let name = |s: &SparseSet, e| {
            s.get_ptr(e).map(|p| {
                // SAFETY: a live `Name` of the set, read while nothing writes.
                unsafe { &*p.cast::<Name>() }.0.clone()
            })
        };
        assert_eq!(
            name(&s, es[3]).as_deref(),
            Some("again"),
            "replaced, old dropped"
        );
        let removed: Vec<_> = [0usize, 19, 7, 7, 12]
            .iter()
            // SAFETY: as above.
            .map(|&i| unsafe { s.remove_typed::<Name>(es[i]) }.map(|n| n.0))
            .collect();
        let want = [Some("n0"), Some("n19"), Some("n7"), None, Some("n12")];
        assert_eq!(removed, want.map(|n| n.map(String::from)));
        assert_eq!(s.len(), 16);
        assert_eq!(
            name(&s, es[18]).as_deref(),
            Some("n18"),
            "moved into a hole, still found"
        );
        assert!(!s.contains(es[12]) && !s.contains(es[0]) && !s.contains(es[19]));
        // Whatever is left is dropped with the set (valgrind and Miri check no leak).
    }

    #[derive(Debug)]
    struct Name(String);
    impl Component for Name {}

    #[test]
    fn dropping_the_set_drops_its_values() {
        DROPS.with(|d| d.set(0));
        let mut s = set();
        for i in 0..10 {
            put(&mut s, entity(i, 1), u64::from(i));
        }
        drop(s);
        assert_eq!(DROPS.with(Cell::get), 10);
    }
}
