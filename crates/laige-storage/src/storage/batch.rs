//! Batch spawns: many entities of one component set, with one archetype lookup and one
//! reservation of entity slots and table rows for the whole batch.

use laige_registry::{ComponentId, ComponentSet};

use super::ops::RowWriter;
use crate::archetype::Archetype;
use crate::bundle::Bundle;
use crate::entity::Location;
use crate::{Entity, Storage, WorldError};

impl Storage {
    /// Spawns one entity per bundle of `bundles`, all of one bundle type, into one table,
    /// and returns their handles in spawn order (the new rows' slice of the table's entity
    /// column: nothing is allocated for them).
    ///
    /// The ids are resolved and the table is found once; entity slots and table rows are
    /// reserved once for the iterator's lower size hint (more are reserved, doubling, only
    /// if it yields more). Handles and rows are the same as spawning the bundles one by
    /// one, in order.
    ///
    /// # Errors
    ///
    /// - [`WorldError::UnregisteredComponent`], [`WorldError::BundleDuplicate`],
    ///   [`WorldError::BundleTooLarge`] or [`WorldError::ResourceAsComponent`]: nothing is
    ///   spawned and the iterator is dropped unread.
    /// - [`WorldError::EntityLimit`] when the size hint alone passes the limit: nothing is
    ///   spawned. When the iterator yields more than its hint and reaches the limit, the
    ///   entities spawned so far stay, and the bundle that did not fit and the rest of the
    ///   iterator are dropped.
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> Result<&[Entity], WorldError>
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        let ids = B::resolve(&self.components).map_err(|err| self.report(err))?;
        let ids = &ids;
        let rows = bundles.into_iter().map(|bundle| {
            // `put_from` hands out each value of the resolved components once, as a valid
            // value of its id's type, which it then forgets.
            move |row: &mut RowWriter<'_>| bundle.put_from(ids, &mut 0, row)
        });
        // SAFETY: each row writes every component of the bundle's set once (above).
        let (spawned, outcome) = unsafe { self.spawn_rows_with(ids.set(), rows) };
        outcome.map(|()| spawned)
    }

    /// Spawns one entity per item of `rows` with the component set `signature`, in order,
    /// into one table: the table is found, and entity slots and rows are reserved for the
    /// iterator's lower size hint, once. Each item is called with the writer of its row.
    ///
    /// Returns the handles of the entities spawned, in order, and `Ok` when every item was
    /// spawned. On an error, items from the first one not spawned on were dropped uncalled:
    /// - [`WorldError::ResourceAsComponent`], or [`WorldError::EntityLimit`] when the size
    ///   hint alone passes the limit: nothing is spawned;
    /// - [`WorldError::EntityLimit`] reached mid-batch: the entities spawned so far stay.
    ///
    /// # Safety
    ///
    /// Each item, when called, must [`RowWriter::write`] every component of `signature`
    /// exactly once.
    pub unsafe fn spawn_rows_with<F>(
        &mut self,
        signature: &ComponentSet,
        rows: impl IntoIterator<Item = F>,
    ) -> (&[Entity], Result<(), WorldError>)
    where
        F: FnOnce(&mut RowWriter<'_>),
    {
        if let Err(err) = self.refuse_resources(signature) {
            return (&[], Err(err));
        }
        let rows = rows.into_iter();
        let hint = rows.size_hint().0;
        let limit = WorldError::EntityLimit {
            max_entities: self.entities.max(),
        };
        if hint > self.room() as usize {
            return (&[], Err(self.report(limit)));
        }
        let archetype = self.archetype_for(&self.table_signature(signature));
        self.entities.reserve(hint);
        let table = &mut self.archetypes[archetype as usize];
        table.reserve_rows(hint);
        let first = table.len();
        let mut outcome = Ok(());
        // The rows' values are written without their change ticks; the batch's tracked
        // columns are stamped once at its end, or if the iterator unwinds.
        let stamp = StampOnDrop {
            table,
            tick: self.change_tick,
        };
        for fill in rows {
            let table = &mut *stamp.table;
            if table.len() == table.capacity() {
                table.reserve_one();
            }
            let row = table.len() as u32;
            let Some(entity) = self.entities.alloc(Location { archetype, row }) else {
                outcome = Err(limit);
                break;
            };
            // The table has room for the row: its length is below its capacity, which
            // every column has at least.
            fill(&mut RowWriter::new(
                table,
                &mut self.sparse,
                entity,
                self.change_tick,
            ));
            table.push_entity(entity);
        }
        drop(stamp);
        if let Err(err) = outcome {
            self.report(err);
        }
        (
            &self.archetypes[archetype as usize].entities()[first..],
            outcome,
        )
    }

    /// Spawns `count` entities with the component set `signature` into one table, taking
    /// their values by column: `source(component)` is the address of that component's
    /// `count` values, packed in spawn order. Each table column is filled with one copy.
    /// Returns the handles in spawn order; the same entities, rows and values as spawning
    /// them one by one.
    ///
    /// Nothing is spawned, and an error returned, when `signature` names a resource or
    /// `count` passes the entity limit. The values are the caller's again when nothing is
    /// spawned.
    ///
    /// # Safety
    ///
    /// For every component of `signature`, `source` gives the address of `count` valid,
    /// packed values of its type, which the caller gives up when the spawn succeeds.
    pub unsafe fn spawn_columns(
        &mut self,
        signature: &ComponentSet,
        count: usize,
        source: impl Fn(ComponentId) -> *const u8,
    ) -> Result<&[Entity], WorldError> {
        self.refuse_resources(signature)?;
        if count > self.room() as usize {
            return Err(self.report(WorldError::EntityLimit {
                max_entities: self.entities.max(),
            }));
        }
        let archetype = self.archetype_for(&self.table_signature(signature));
        self.entities.reserve(count);
        let table = &mut self.archetypes[archetype as usize];
        table.reserve_rows(count);
        let first = table.len();
        let table_set = *table.signature();
        let tick = self.change_tick;
        let (components, columns, entities) = table.columns_and_entities();
        for (column, &component) in columns.iter_mut().zip(components.iter()) {
            // SAFETY: the source holds `count` packed values of the column's type (the
            // caller's promise); the table has room for `count` more rows (reserved above).
            unsafe { column.extend_packed(source(component), count, tick) };
        }
        for row in 0..count {
            let location = Location {
                archetype,
                row: (first + row) as u32,
            };
            // `count` is within the room left, so every slot is found.
            let Some(entity) = self.entities.alloc(location) else {
                unreachable!("the room was checked");
            };
            entities.push(entity);
        }
        let spawned = &self.archetypes[archetype as usize].entities()[first..];
        for component in signature.difference(&table_set).iter() {
            let Some(set) = self.sparse.get_mut(component) else {
                continue;
            };
            let size = self.components.get(component).size();
            let base = source(component);
            for (row, &entity) in spawned.iter().enumerate() {
                // SAFETY: row `row` of the source is a valid value of the set's type, given
                // up; the set copies it and never writes through the pointer (the entity is
                // new, so nothing is replaced).
                unsafe { set.insert(entity, base.wrapping_add(row * size).cast_mut(), tick) };
            }
        }
        Ok(&self.archetypes[archetype as usize].entities()[first..])
    }

    /// How many more entities may be spawned before the entity limit.
    pub fn room(&self) -> u32 {
        self.entities.max() - self.entities.live()
    }

    /// Reserves table rows for `additional` more entities of bundle type `B` (creating its
    /// table if needed) and entity slots for them, so that spawning them allocates nothing.
    ///
    /// # Errors
    ///
    /// As for [`Storage::spawn_batch`]'s bundle errors; nothing is reserved.
    pub fn reserve<B: Bundle>(&mut self, additional: usize) -> Result<(), WorldError> {
        let ids = B::resolve(&self.components).map_err(|err| self.report(err))?;
        self.refuse_resources(ids.set())?;
        let archetype = self.archetype_for(&self.table_signature(ids.set()));
        self.entities.reserve(additional);
        self.archetypes[archetype as usize].reserve_rows(additional);
        Ok(())
    }
}

/// Stamps the change ticks of the rows a batch spawn wrote ([`RowWriter`] writes values
/// only) when dropped: at the end of the batch, and on an unwind out of its iterator, so a
/// tracked column's ticks never lag its values once the spawn returns.
struct StampOnDrop<'a> {
    table: &'a mut Archetype,
    tick: u64,
}

impl Drop for StampOnDrop<'_> {
    fn drop(&mut self) {
        self.table.stamp_new_rows(self.tick);
    }
}
