//! Batch spawns: many entities of one component set, with one archetype lookup and one
//! reservation of entity slots and table rows for the whole batch.

use laige_registry::ComponentSet;

use super::ops::RowWriter;
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
        for fill in rows {
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
            fill(&mut RowWriter::new(table, &mut self.sparse, entity));
            table.push_entity(entity);
        }
        if let Err(err) = outcome {
            self.report(err);
        }
        (
            &self.archetypes[archetype as usize].entities()[first..],
            outcome,
        )
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
