//! Structural operations on type-erased values: spawn, insert, remove, despawn, clear.
//!
//! Each keeps every table consistent (equal column lengths, entity locations up to date)
//! before it runs any component's `Drop`, so a panicking drop leaks instead of corrupting.

use laige_registry::{ComponentId, ComponentSet};

use crate::archetype::Archetype;
use crate::bundle::ValueSink;
use crate::column::{ComponentTicks, copy_value};
use crate::entity::{Entities, Location};
use crate::sparse::SparseSets;
use crate::{Entity, Storage, WorldError};

/// Pushes the values of one new row into its archetype's columns.
/// A sparse component's value goes to its set, keyed by the row's entity.
///
/// It writes values only: the spawn that made the writer stamps the tracked columns' change
/// ticks for its rows after them (`Archetype::stamp_new_rows`), so each value's write tests
/// no tick column.
pub struct RowWriter<'a> {
    archetype: &'a mut Archetype,
    sparse: &'a mut SparseSets,
    entity: Entity,
    /// The change tick the row's tracked sparse values are added at.
    tick: u64,
}

impl<'a> RowWriter<'a> {
    /// The writer of `entity`'s new row of `archetype`, which has room for it, its tracked
    /// values added at `tick`.
    pub(super) fn new(
        archetype: &'a mut Archetype,
        sparse: &'a mut SparseSets,
        entity: Entity,
        tick: u64,
    ) -> Self {
        Self {
            archetype,
            sparse,
            entity,
            tick,
        }
    }

    /// Moves the value at `src` into `component`'s column.
    ///
    /// # Safety
    ///
    /// `component` is in the row's archetype and written once per row; `src` points to a
    /// valid value of its type, which the caller gives up.
    #[inline]
    pub unsafe fn write(&mut self, component: ComponentId, src: *const u8) {
        let Some(col) = self.archetype.column_index(component) else {
            // Not in the table: a sparse component (the spawn left it out of the signature).
            match self.sparse.get_mut(component) {
                // SAFETY: the caller gives up a valid value of the set's type; the set
                // takes it by a byte copy and never writes through `src`, since the entity
                // is new and has no value to replace.
                Some(set) => unsafe { set.insert(self.entity, src.cast_mut(), self.tick) },
                None => debug_assert!(false, "component {component} is not in the row's archetype"),
            }
            return;
        };
        // SAFETY: the caller guarantees a valid value of the column's type, given up, and one
        // write per row; `spawn_with` and `spawn_rows_with` reserve room for the row.
        // The spawn stamps the row's ticks after its values.
        unsafe { self.archetype.columns_mut()[col].push_value(src) }
    }
}

impl ValueSink for RowWriter<'_> {
    #[inline(always)]
    unsafe fn put<T: 'static>(&mut self, id: ComponentId, value: *mut T) {
        match self.archetype.column_index(id) {
            // SAFETY: the caller gives up a valid `T`, the type of `id` and so of its
            // column; the row's writer writes each component once, into reserved room. The
            // spawn stamps the row's ticks after its values.
            Some(col) => unsafe { self.archetype.columns_mut()[col].push_typed_value(value) },
            // SAFETY: as for `write` (a sparse component).
            None => unsafe { self.write(id, value.cast::<u8>()) },
        }
    }
}

/// Completes the move of `entity` from `from` to table `to` (`dst`), whose values are all
/// pushed: appends the entity and updates its location and that of the entity `moved` into
/// its old row.
fn finish_move(
    entities: &mut Entities,
    dst: &mut Archetype,
    to: u32,
    entity: Entity,
    from: Location,
    moved: Option<Entity>,
) {
    dst.push_entity(entity);
    let row = (dst.len() - 1) as u32;
    entities.set_location(entity, Location { archetype: to, row });
    if let Some(moved) = moved {
        entities.set_location(moved, from);
    }
}

impl Storage {
    /// Spawns an entity with the component set `signature`; `fill` writes its values.
    ///
    /// # Safety
    ///
    /// If `fill` runs, it must [`RowWriter::write`] every component of `signature` exactly
    /// once. When the entity limit is reached, or `signature` names a resource type, `fill`
    /// does not run (it is dropped, with what it owns).
    pub unsafe fn spawn_with(
        &mut self,
        signature: &ComponentSet,
        fill: impl FnOnce(&mut RowWriter<'_>),
    ) -> Result<Entity, WorldError> {
        self.refuse_resources(signature)?;
        let archetype = self.archetype_for(&self.table_signature(signature));
        let table = &mut self.archetypes[archetype as usize];
        let row = table.len() as u32;
        let location = Location { archetype, row };
        let Some(entity) = self.entities.alloc(location) else {
            return Err(self.report(WorldError::EntityLimit {
                max_entities: self.entities.max(),
            }));
        };
        table.reserve_one();
        fill(&mut RowWriter::new(
            table,
            &mut self.sparse,
            entity,
            self.change_tick,
        ));
        table.stamp_new_rows(self.change_tick);
        table.push_entity(entity);
        Ok(entity)
    }

    /// The part of `signature` stored in tables: without the sparse components.
    #[inline]
    pub(crate) fn table_signature(&self, signature: &ComponentSet) -> ComponentSet {
        signature.difference(self.components.sparse())
    }

    /// A pointer to `component`'s value of `entity`, live at `location`, if it has one: in
    /// its table, or in the component's sparse set.
    #[inline]
    pub fn component_ptr(
        &self,
        entity: Entity,
        location: Location,
        component: ComponentId,
    ) -> Option<*mut u8> {
        match self.sparse.get(component) {
            Some(set) => set.get_ptr(entity),
            None => self.value_ptr(location, component),
        }
    }

    /// A pointer to `component`'s value of the entity at `location`, if it has one.
    #[inline]
    pub fn value_ptr(&self, location: Location, component: ComponentId) -> Option<*mut u8> {
        let table = &self.archetypes[location.archetype as usize];
        let col = table.column_index(component)?;
        Some(table.columns()[col].ptr_at(location.row as usize))
    }

    /// Sets `component` of the live entity at `location` to the value at `src`: replaces
    /// (dropping the old value) when present, else moves the entity to the archetype with
    /// the component added.
    ///
    /// # Safety
    ///
    /// `entity` is live at `location`; `src` points to a valid, aligned value of
    /// `component`'s type that the caller gives up, and is writable (a replaced old value is
    /// dropped in place there).
    pub unsafe fn insert_erased(
        &mut self,
        entity: Entity,
        location: Location,
        component: ComponentId,
        src: *mut u8,
    ) {
        if let Some(set) = self.sparse.get_mut(component) {
            // SAFETY: `src` is a valid, writable value of the set's type, given up.
            unsafe { set.insert(entity, src, self.change_tick) };
            return;
        }
        let from = location.archetype;
        let row = location.row as usize;
        if let Some(col) = self.archetypes[from as usize].column_index(component) {
            let tick = self.change_tick;
            // SAFETY: `row` is the live entity's row; `src` is a valid value of the column's type.
            unsafe { self.archetypes[from as usize].columns_mut()[col].replace(row, src, tick) };
            return;
        }
        let to = self.add_target(from, component);
        let Ok([src_table, dst]) = self
            .archetypes
            .get_disjoint_mut([from as usize, to as usize])
        else {
            unreachable!("adding a component always changes the archetype");
        };
        dst.reserve_one();
        // SAFETY: `row` is in bounds; `dst` has room. Every component of `src_table` is also in
        // `dst` (a superset), so nothing is left past the end.
        let moved = unsafe { src_table.move_row_to(row, dst) };
        let col = dst
            .column_index(component)
            .expect("the target has the added component");
        // SAFETY: `src` is a valid value of `component`'s type, given up by the caller.
        unsafe { dst.columns_mut()[col].push(src, ComponentTicks::new(self.change_tick)) };
        finish_move(&mut self.entities, dst, to, entity, location, moved);
    }

    /// Removes `component` from the live entity at `location`. Returns whether it had it;
    /// the value is moved to `out` when given, else dropped.
    ///
    /// # Safety
    ///
    /// `entity` is live at `location`; `out`, when given, is valid for writing one value of
    /// `component`'s type.
    pub unsafe fn remove_erased(
        &mut self,
        entity: Entity,
        location: Location,
        component: ComponentId,
        out: Option<*mut u8>,
    ) -> bool {
        if let Some(set) = self.sparse.get_mut(component) {
            // SAFETY: `out`, when given, is valid for one value of the set's type.
            return unsafe { set.remove(entity, out) };
        }
        let from = location.archetype;
        let row = location.row as usize;
        let Some(col) = self.archetypes[from as usize].column_index(component) else {
            return false;
        };
        let to = self.remove_target(from, component);
        let Ok([src_table, dst]) = self
            .archetypes
            .get_disjoint_mut([from as usize, to as usize])
        else {
            unreachable!("removing a present component always changes the archetype");
        };
        dst.reserve_one();
        // SAFETY: `row` is in bounds; `dst` has room. Only `component`'s value is left past
        // the end (dst has every other component), and it is taken over below.
        let moved = unsafe { src_table.move_row_to(row, dst) };
        finish_move(&mut self.entities, dst, to, entity, location, moved);
        let column = &mut src_table.columns_mut()[col];
        match out {
            Some(out) => {
                // SAFETY: the value past the end is live and unclaimed; `out` is valid for one
                // value of its type; moving it claims it.
                unsafe { copy_value(column.ptr_at(column.len()), out, column.item().size()) }
            }
            // SAFETY: the value past the end is live and unclaimed.
            None => unsafe { column.drop_past_end() },
        }
        true
    }

    /// Despawns every entity; see `World::clear`.
    ///
    /// Every handle goes stale before any value's drop runs, and every table is emptied even
    /// when one of those drops panics (the tables after it are cleared while unwinding).
    pub fn clear(&mut self) {
        /// Clears the tables its iterator has not reached when dropped.
        struct ClearRest<'a>(std::slice::IterMut<'a, Archetype>);
        impl Drop for ClearRest<'_> {
            fn drop(&mut self) {
                self.0.by_ref().for_each(Archetype::clear);
            }
        }
        self.entities.clear();
        self.sparse.clear();
        let mut rest = ClearRest(self.archetypes.iter_mut());
        rest.0.by_ref().for_each(Archetype::clear);
    }

    /// Despawns `entity`, at `location`, dropping its values; returns whether it did. A
    /// stale entity, or a location that is not the entity's own, despawns nothing.
    pub fn despawn_at(&mut self, entity: Entity, location: Location) -> bool {
        if self.entities.location(entity) != Some(location) {
            return false;
        }
        let table = &mut self.archetypes[location.archetype as usize];
        // SAFETY: the entity is live, so its row is in bounds; every value left past the end
        // is dropped below, once.
        let moved = unsafe { table.remove_row_to_end(location.row as usize) };
        if let Some(moved) = moved {
            self.entities.set_location(moved, location);
        }
        self.entities.free(entity);
        for column in table.columns_mut() {
            // SAFETY: `remove_row_to_end` left one unclaimed value past each column's end.
            unsafe { column.drop_past_end() };
        }
        if !self.sparse.is_empty() {
            self.sparse.remove_entity(entity);
        }
        true
    }
}

impl Storage {
    /// Refreshes every snapshot store from the live values: drops the old copies, then clones
    /// each live entity's value in ascending entity index. Reuses the buffers: it allocates
    /// only when a component is on more entities than ever before.
    pub fn refresh_snapshots(&mut self) {
        self.snapshots.refresh(&self.entities, &self.archetypes);
    }

    /// [`Storage::refresh_snapshots`] in ranges of entity slots that `run` may run at once
    /// (a pool's `run_batches`), with the same result; see `Snapshots::refresh_split`.
    pub fn refresh_snapshots_split<R>(&mut self, run: R)
    where
        R: FnMut(u32, &(dyn Fn(u32) + Sync)),
    {
        self.snapshots
            .refresh_split(&self.entities, &self.archetypes, run);
    }
}
