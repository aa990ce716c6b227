//! One archetype table: the entities that have exactly one set of components, stored as
//! struct-of-arrays columns plus an entity column.

use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use laige_registry::{ComponentId, ComponentSet, MAX_COMPONENTS};

use crate::Entity;
use crate::column::{Column, ColumnBlock, TableColumn};
use crate::component::{Components, HashFn};

/// An archetype's id: dense from 0 in the order its component set was first needed.
/// Id 0 is always the empty set (entities without components).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ArchetypeId(pub(crate) u32);

impl ArchetypeId {
    /// The archetype of entities without components.
    pub const EMPTY: Self = Self(0);

    /// The id's value.
    pub const fn get(self) -> u32 {
        self.0
    }
}

const NO_COLUMN: u16 = u16::MAX;

/// A table of all entities with one exact component set.
///
/// Rows are kept dense by swap-remove (see `docs/decisions/0002-row-layout.md`): removing row
/// `r` moves the last row into `r`. Every column and the entity column always have the same
/// length.
pub struct Archetype {
    id: ArchetypeId,
    signature: ComponentSet,
    /// The component ids in ascending order; `columns[i]` stores `components[i]`.
    components: Vec<ComponentId>,
    columns: ColumnBlock,
    /// The hashed columns: column index and the state-hash function of its component, in
    /// ascending id (a column without one enters the hash by presence only).
    hashers: Box<[(usize, HashFn)]>,
    /// The indices of the tracked columns (those with change ticks), ascending.
    tracked: Box<[usize]>,
    /// Scratch for the state hash: this table's position among the non-empty tables in
    /// canonical order. Every hash rewrites it before reading it, and concurrent hashes of
    /// one storage (which cannot change meanwhile) write the same values.
    hash_rank: AtomicU32,
    /// Column index by component index, [`NO_COLUMN`] when absent.
    column_of: [u16; MAX_COMPONENTS],
    entities: Vec<Entity>,
    pub(crate) add_edges: BTreeMap<ComponentId, u32>,
    pub(crate) remove_edges: BTreeMap<ComponentId, u32>,
}

impl Archetype {
    pub(crate) fn new(id: ArchetypeId, signature: ComponentSet, components: &Components) -> Self {
        let ids: Vec<ComponentId> = signature.iter().collect();
        let mut column_of = [NO_COLUMN; MAX_COMPONENTS];
        for (i, c) in ids.iter().enumerate() {
            // At most MAX_COMPONENTS (256) columns, so the index fits in a u16 below NO_COLUMN.
            column_of[c.index()] = i as u16;
        }
        let columns = ids
            .iter()
            .map(|&c| Column::for_table(components.get(c)))
            .collect();
        // Hashing is fixed at registration for types stored on entities (only resources,
        // which never get a table, are made hashed later), so the table can keep it.
        let hashers = ids
            .iter()
            .enumerate()
            .filter_map(|(i, &c)| Some((i, components.get(c).hash?)))
            .collect();
        let tracked = ids
            .iter()
            .enumerate()
            .filter_map(|(i, &c)| components.get(c).is_tracked().then_some(i))
            .collect();
        Self {
            id,
            signature,
            components: ids,
            columns: ColumnBlock::new(columns),
            hashers,
            tracked,
            hash_rank: AtomicU32::new(0),
            column_of,
            entities: Vec::new(),
            add_edges: BTreeMap::new(),
            remove_edges: BTreeMap::new(),
        }
    }

    /// The archetype's id.
    pub fn id(&self) -> ArchetypeId {
        self.id
    }

    /// The component set.
    pub fn signature(&self) -> &ComponentSet {
        &self.signature
    }

    /// The component ids in ascending order.
    pub fn components(&self) -> &[ComponentId] {
        &self.components
    }

    /// The entities in row order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the table has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// How many rows fit before the columns grow.
    pub fn capacity(&self) -> usize {
        self.entities.capacity()
    }

    /// The column index of `component`, if the archetype has it.
    #[inline]
    pub fn column_index(&self, component: ComponentId) -> Option<usize> {
        // A component index is below MAX_COMPONENTS (a power of two), so the mask changes
        // nothing; it only spares the bounds check.
        const { assert!(MAX_COMPONENTS.is_power_of_two()) };
        let idx = self.column_of[component.index() & (MAX_COMPONENTS - 1)];
        (idx != NO_COLUMN).then_some(idx as usize)
    }

    /// The base pointer of `component`'s column, if the archetype has it.
    #[inline]
    pub fn column_ptr(&self, component: ComponentId) -> Option<NonNull<u8>> {
        self.column_index(component).map(|i| {
            debug_assert!(i < self.columns().len());
            // SAFETY: `column_of` only ever holds `NO_COLUMN` or the index of one of this
            // table's columns (set once in `new`; columns are never added or removed).
            unsafe { self.columns().get_unchecked(i) }.data()
        })
    }

    /// The base pointer of `component`'s column, which the archetype has.
    ///
    /// # Safety
    ///
    /// The archetype has `component` (its signature contains it).
    #[inline]
    pub unsafe fn column_ptr_unchecked(&self, component: ComponentId) -> NonNull<u8> {
        debug_assert!(self.signature.contains(component));
        let idx = self.column_of[component.index() & (MAX_COMPONENTS - 1)] as usize;
        // SAFETY: the caller guarantees the archetype has `component`, so `column_of` holds
        // the index of its column, which is in bounds (see `column_ptr`).
        unsafe { self.columns().get_unchecked(idx) }.data()
    }

    /// The base pointer of the entity column.
    #[inline]
    pub fn entities_ptr(&self) -> NonNull<Entity> {
        // A Vec's pointer is never null (dangling when empty).
        NonNull::from(self.entities.as_slice()).cast()
    }

    /// The columns, `columns()[i]` storing `components()[i]`; read-only.
    #[inline]
    pub fn columns(&self) -> &[Column] {
        self.columns.as_slice()
    }

    /// The hashed columns with their state-hash functions, in ascending id.
    #[inline]
    pub(crate) fn hashed_columns(&self) -> impl Iterator<Item = (&Column, HashFn)> + '_ {
        self.hashers
            .iter()
            .map(|&(column, hash)| (&self.columns()[column], hash))
    }

    /// The table's state-hash rank, as last set by [`Archetype::set_hash_rank`].
    #[inline]
    pub(crate) fn hash_rank(&self) -> u32 {
        self.hash_rank.load(Ordering::Relaxed)
    }

    /// Sets the table's state-hash rank (scratch; see the field).
    #[inline]
    pub(crate) fn set_hash_rank(&self, rank: u32) {
        self.hash_rank.store(rank, Ordering::Relaxed);
    }

    pub(crate) fn columns_mut(&mut self) -> &mut [Column] {
        self.columns.as_mut_slice()
    }

    /// The column directory's entry for this table's column of `component`, which it has.
    pub(crate) fn directory_entry(&self, component: ComponentId) -> TableColumn {
        let index = self
            .column_index(component)
            .expect("a table is listed only under components it has");
        self.columns.entry(self.id.0, index)
    }

    /// Makes room for one more row in every column; grows only when full (by doubling).
    #[inline]
    pub(crate) fn reserve_one(&mut self) {
        // Every column holds at least the entity column's capacity (each reservation below
        // grows them together, and rows are pushed only after one), so room for an entity
        // is room in every column.
        if self.entities.len() < self.entities.capacity() {
            return;
        }
        self.grow_one();
    }

    /// [`Archetype::reserve_one`] when the table is full.
    #[cold]
    fn grow_one(&mut self) {
        let needed = self.entities.len() + 1;
        if needed > self.entities.capacity() {
            let cap = needed.max(self.entities.capacity() * 2).max(8);
            self.entities.reserve_exact(cap - self.entities.len());
        }
        let cap = self.entities.capacity();
        for column in self.columns.as_mut_slice() {
            column.reserve_total(cap);
        }
    }

    /// Makes room for `additional` more rows in every column (a batch spawn's one
    /// reservation).
    pub(crate) fn reserve_rows(&mut self, additional: usize) {
        self.entities.reserve_exact(additional);
        let cap = self.entities.capacity();
        for column in self.columns.as_mut_slice() {
            column.reserve_total(cap);
        }
    }

    /// Makes room for `additional` more rows in every column, growing at least by doubling
    /// (an insert run's one reservation per target table: repeated runs stay amortised).
    pub(crate) fn reserve_rows_amortized(&mut self, additional: usize) {
        let needed = self.entities.len() + additional;
        if needed <= self.entities.capacity() {
            return;
        }
        let cap = needed.max(self.entities.capacity() * 2).max(8);
        self.reserve_rows(cap - self.entities.len());
    }

    /// Drops every row's values and empties the table, keeping its allocations. The table is
    /// empty before the first drop runs, so a panicking drop leaves it empty and consistent,
    /// leaking the values not dropped yet.
    pub(crate) fn clear(&mut self) {
        let rows = self.entities.len();
        self.entities.clear();
        for column in self.columns.as_mut_slice() {
            column.forget_all();
        }
        for column in self.columns.as_mut_slice() {
            // SAFETY: every column held `rows` live values (equal lengths), just given up by
            // `forget_all`; each is dropped once, here.
            unsafe { column.drop_forgotten(rows) };
        }
    }

    /// The entity column and the value columns, mutably: for a restore, which rewrites
    /// them all and leaves them of equal length.
    pub(crate) fn rows_mut(&mut self) -> (&mut Vec<Entity>, &mut [Column]) {
        (&mut self.entities, self.columns.as_mut_slice())
    }

    /// Empties the table when its columns may hold different numbers of values (a restore
    /// interrupted by a panicking `clone`): each column drops the values it counts.
    pub(crate) fn clear_uneven(&mut self) {
        self.entities.clear();
        for column in self.columns.as_mut_slice() {
            column.clear();
        }
    }

    /// The columns and the entity column, to append whole runs of rows to: the caller
    /// keeps their lengths equal before anything else reads the table.
    pub(crate) fn columns_and_entities(
        &mut self,
    ) -> (&[ComponentId], &mut [Column], &mut Vec<Entity>) {
        (
            &self.components,
            self.columns.as_mut_slice(),
            &mut self.entities,
        )
    }

    /// Stamps the change ticks of the rows whose values were pushed without them
    /// ([`RowWriter`](crate::storage::RowWriter) writes values only) as added at `tick`;
    /// nothing for a table without tracked columns.
    #[inline]
    pub(crate) fn stamp_new_rows(&mut self, tick: u64) {
        if self.tracked.is_empty() {
            return;
        }
        let columns = self.columns.as_mut_slice();
        for &i in &*self.tracked {
            columns[i].stamp_new_rows(tick);
        }
    }

    /// Appends `entity` to the entity column, completing a row whose values were already
    /// pushed to every column.
    #[inline]
    pub(crate) fn push_entity(&mut self, entity: Entity) {
        debug_assert!(
            self.columns()
                .iter()
                .all(|c| c.len() == self.entities.len() + 1)
        );
        self.entities.push(entity);
    }

    /// Swap-removes `row` of the entity column alone, the first half of an insert run's
    /// move (`Storage::insert_run`); returns the entity that moved into `row`, if any.
    ///
    /// # Safety
    ///
    /// `row < len`. The table's value columns are then one row longer than its entity column
    /// until the caller replays the same swap-removes on them (`Archetype::move_rows_to`),
    /// and nothing may read the table meanwhile.
    #[inline]
    pub(crate) unsafe fn swap_remove_entity(&mut self, row: usize) -> Option<Entity> {
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Appends `entity` to the entity column alone, ahead of its values (an insert run's
    /// move); returns its row.
    ///
    /// # Safety
    ///
    /// The table has room for the row ([`Archetype::reserve_rows_amortized`]); the caller
    /// pushes the row's values to every column before anything reads the table.
    #[inline]
    pub(crate) unsafe fn push_entity_ahead(&mut self, entity: Entity) -> u32 {
        debug_assert!(self.entities.len() < self.entities.capacity());
        self.entities.push(entity);
        (self.entities.len() - 1) as u32
    }

    /// Replays on the value columns the swap-removes of `rows` (in order) that
    /// [`Archetype::swap_remove_entity`] did on the entity column, pushing each removed
    /// value to `dst`'s column of its component: column by column, each in one loop.
    ///
    /// # Safety
    ///
    /// Every component of this table is in `dst`; `rows` are the rows the entity column's
    /// swap-removes took, in their order (so each is below the length at its turn); `dst`
    /// has room for `rows.len()` more values in every column. `dst`'s columns of components
    /// this table lacks are the caller's to fill.
    pub(crate) unsafe fn move_rows_to<I>(&mut self, dst: &mut Archetype, rows: I)
    where
        I: Iterator<Item = usize> + Clone,
    {
        for (column, &component) in self.columns.as_mut_slice().iter_mut().zip(&self.components) {
            let j = dst
                .column_index(component)
                .expect("the target table has every component of the source");
            // SAFETY: the caller's promises, column by column: the same rows in the same
            // order on a column of the same type, with room in `dst`'s.
            unsafe { column.move_rows_to(&mut dst.columns_mut()[j], rows.clone()) };
        }
        debug_assert!(
            self.columns()
                .iter()
                .all(|c| c.len() == self.entities.len())
        );
    }

    /// Removes `row` by swap-remove: the last row moves into `row`. Each column's removed
    /// value is left just past its end, for the caller to move out or drop. Returns the
    /// entity that moved into `row`, if any.
    ///
    /// # Safety
    ///
    /// `row < len`. The caller must then move out or drop every column's value past the end
    /// exactly once, before anything else touches the columns.
    pub(crate) unsafe fn remove_row_to_end(&mut self, row: usize) -> Option<Entity> {
        for column in self.columns.as_mut_slice() {
            // SAFETY: `row < len`, and every column has `len` rows; the caller takes over the
            // value left past the end.
            unsafe { column.swap_remove_to_end(row) };
        }
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Moves `row` to `dst` by swap-remove: each value whose component `dst` also has is
    /// pushed to `dst`'s column; the values of the other components are left past the end
    /// of their columns here, for the caller to move out or drop. Returns the entity that
    /// moved into `row`, if any. The caller then pushes the values of components only `dst`
    /// has, and the entity.
    ///
    /// # Safety
    ///
    /// `row < len`; `dst` has room for one more row ([`Archetype::reserve_one`]). The caller
    /// must complete `dst`'s row and take over every value left past the end here, as for
    /// [`Archetype::remove_row_to_end`].
    pub(crate) unsafe fn move_row_to(&mut self, row: usize, dst: &mut Archetype) -> Option<Entity> {
        // SAFETY: `row < len`; the values left past the end are handled just below or by
        // the caller.
        let moved = unsafe { self.remove_row_to_end(row) };
        for (column, &component) in self.columns.as_mut_slice().iter_mut().zip(&self.components) {
            if let Some(j) = dst.column_index(component) {
                let src = column.ptr_at(column.len());
                // The value keeps its change ticks as it moves.
                let ticks = column.removed_ticks();
                // SAFETY: `src` is the value just left past the end, of `component`'s type, and
                // `dst.columns[j]` stores that same type and has room; the value is moved, so
                // nothing here touches it again.
                unsafe { dst.columns_mut()[j].push(src, ticks) };
            }
        }
        moved
    }
}

impl std::fmt::Debug for Archetype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archetype")
            .field("id", &self.id)
            .field("components", &self.components)
            .field("len", &self.len())
            .finish()
    }
}

/// The lookup key of a component set: its four bit words.
pub(crate) fn signature_key(set: &ComponentSet) -> [u64; 4] {
    let mut key = [0u64; 4];
    for c in set.iter() {
        key[c.index() / 64] |= 1 << (c.index() % 64);
    }
    key
}
