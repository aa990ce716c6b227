//! The component part of the state hash: a pure function of the live state.

use crate::{StateHasher, Storage};

impl Storage {
    /// Feeds the live component state to `h`, independent of row layout and archetype ids:
    ///
    /// 1. the live entity count;
    /// 2. for each live entity in ascending index: index, generation, its number of
    ///    components, then for each of its components in ascending id: the id, and for a
    ///    hashed component the words its [`StateHash`](crate::StateHash) writes.
    ///
    /// 3. for each resource inserted hashed
    ///    ([`World::insert_hashed_resource`](crate::World::insert_hashed_resource)) that the
    ///    world holds, in ascending id: the id, then the words of its `StateHash` (nothing at
    ///    all when there is none, so worlds without hashed resources hash as before).
    ///
    /// Every number is one big-endian u64 word. Allocates nothing.
    pub(crate) fn hash_components(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(self.entities.live()));
        for (entity, location) in self.entities.iter_live() {
            h.write_u64(u64::from(entity.index()));
            h.write_u64(u64::from(entity.generation()));
            let table = &self.archetypes[location.archetype as usize];
            h.write_u64(table.components().len() as u64);
            for (column, &component) in table.columns().iter().zip(table.components()) {
                h.write_u64(u64::from(component.get()));
                if let Some(hash) = self.components.get(component).hash {
                    // SAFETY: the entity is live, so its row holds a valid value of the column's
                    // type, which `hash` was registered for; the caller holds `&self` with no
                    // concurrent writer (a world-level `&self`, or a context that declared read
                    // access to every hashed component).
                    unsafe { hash(column.ptr_at(location.row as usize), h) };
                }
            }
        }
        self.resources.hash(&self.components, h);
    }
}
