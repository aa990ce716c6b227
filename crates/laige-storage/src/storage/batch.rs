//! Batch spawns: many entities of one bundle type, with one id resolution, one archetype
//! lookup and one reservation of entity slots and table rows for the whole batch.

use arrayvec::ArrayVec;

use crate::bundle::Bundle;
use crate::component::MAX_BUNDLE;
use crate::entity::Location;
use crate::{Entity, Storage, WorldError};

impl Storage {
    /// Spawns one entity per bundle of `bundles`, all of one bundle type, into one table,
    /// and returns their handles in spawn order (the new rows' slice of the table's entity
    /// column: nothing is allocated for them).
    ///
    /// The ids are resolved and the table is found once; entity slots and table rows are
    /// reserved once for the iterator's lower size hint (more are reserved, doubling, only
    /// if it yields more). Each bundle is then moved into the table's columns, one row at a
    /// time, with no lookup. Handles and rows are the same as spawning the bundles one by
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
        let bundles = bundles.into_iter();
        let ids = B::resolve(&self.components).map_err(|err| self.report(err))?;
        self.refuse_resources(ids.set())?;
        let hint = bundles.size_hint().0;
        if hint > (self.entities.max() - self.entities.live()) as usize {
            return Err(self.report(WorldError::EntityLimit {
                max_entities: self.entities.max(),
            }));
        }
        let archetype = self.archetype_for(ids.set());
        self.entities.reserve(hint);
        let table = &mut self.archetypes[archetype as usize];
        table.reserve_rows(hint);
        let first = table.len();
        // The column of each bundle position, in `take`'s order: looked up once per batch.
        let columns: ArrayVec<usize, MAX_BUNDLE> = ids
            .ids()
            .iter()
            .map(|&id| {
                table
                    .column_index(id)
                    .expect("the bundle's table has each of its components")
            })
            .collect();
        let mut full = false;
        for bundle in bundles {
            if table.len() == table.capacity() {
                table.reserve_one();
            }
            let row = table.len() as u32;
            let Some(entity) = self.entities.alloc(Location { archetype, row }) else {
                full = true;
                break;
            };
            let slots = table.columns_mut();
            let mut at = 0;
            bundle.take(&ids, &mut |_, src| {
                // SAFETY: `take` hands out each value of the resolved components once, in
                // `ids` order, as a valid value of its type that it then forgets;
                // `columns[at]` is the column of the `at`-th id, of that type, and has room
                // for the row (the table's length is below its capacity, which every column
                // has at least).
                unsafe { slots[columns[at]].push(src) };
                at += 1;
            });
            table.push_entity(entity);
        }
        if full {
            return Err(self.report(WorldError::EntityLimit {
                max_entities: self.entities.max(),
            }));
        }
        Ok(&self.archetypes[archetype as usize].entities()[first..])
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
        let archetype = self.archetype_for(ids.set());
        self.entities.reserve(additional);
        self.archetypes[archetype as usize].reserve_rows(additional);
        Ok(())
    }
}
