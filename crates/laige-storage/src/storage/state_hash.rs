//! The component part of the state hash: a pure function of the live state.
//!
//! FNV-1a is byte-serial, so the cost of the hash is the number of bytes fed: besides its
//! hashed values, an entity feeds one byte (its component set's rank) in most worlds (see
//! `docs/decisions/0004-state-hash.md`).

use laige_registry::{ComponentId, ComponentSet};

use crate::{StateHasher, Storage};

/// How many bytes a rank (or the run opener) takes with `sets` distinct component sets: the
/// fewest of 1, 2 or 4 that hold the number `sets` itself, which is the opener.
fn symbol_width(sets: u32) -> usize {
    match sets {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    }
}

/// Feeds `symbol` as a `W`-byte big-endian number (`W` is 1, 2 or 4, and holds it).
#[inline(always)]
fn write_symbol<const W: usize>(h: &mut StateHasher, symbol: u32) {
    h.write_bytes(&symbol.to_be_bytes()[4 - W..]);
}

impl Storage {
    /// Feeds the live component state to `h`, independent of row layout, archetype ids and
    /// slot-reuse history (every number big-endian):
    ///
    /// 1. the live entity count (u32);
    /// 2. the number `K` of distinct component sets that live entities have (u32), then each
    ///    set in canonical order (fewer components first, then lexicographically by
    ///    ascending ids): its component count, then its ids in ascending order (u16 each).
    ///    An entity's *rank* is the 0-based position of its set in this list. Ranks and the
    ///    opener `K` are *symbols* of `s` bytes: 1 when `K < 2^8`, 2 when `K < 2^16`, else 4;
    /// 3. for each live entity in ascending index:
    ///    - when it opens a run (it is the first live entity, or its index is not one past
    ///      the previous live entity's, or its generation differs from that entity's): the
    ///      opener `K` as a symbol, then its index and its generation (u32 each);
    ///    - its rank, as a symbol;
    ///    - for each of its hashed components in ascending id, the bytes its
    ///      [`StateHash`](crate::StateHash) writes;
    /// 4. only when some component is registered sparse, for each sparse component in
    ///    ascending id: its id (u16) and how many entities have it (u32), then for each of
    ///    those in ascending entity index: its index and generation (u32 each) and, when the
    ///    component is hashed, the bytes of its `StateHash` (a sparse component is in no
    ///    component set of part 2: its set is not a table);
    /// 5. for each resource inserted hashed
    ///    (`World::insert_hashed_resource`) that the
    ///    world holds, in ascending id: the id (u16), then the bytes of its `StateHash`
    ///    (nothing at all when there is none).
    ///
    /// Allocates nothing.
    ///
    /// # Safety
    ///
    /// No value of a hashed component or resource is written while it runs. A shared
    /// `&Storage` does not promise that (a running system's context writes through one), so
    /// the caller must know it: it holds the storage where no context that writes is alive
    /// (the world between runs), or it is a context that declared a read of every hashed
    /// component and resource.
    pub unsafe fn hash_components(&self, h: &mut StateHasher) {
        // A local hasher, so its state can stay in a register for the whole walk.
        let mut hasher = *h;
        hasher.write_u32(self.entities.live());

        let mut sets = 0u32;
        for &id in &self.canonical {
            let table = &self.archetypes[id as usize];
            if !table.is_empty() {
                table.set_hash_rank(sets);
                sets += 1;
            }
        }
        hasher.write_u32(sets);
        for &id in &self.canonical {
            let table = &self.archetypes[id as usize];
            if !table.is_empty() {
                // At most MAX_COMPONENTS (256) components, each id at most 256.
                hasher.write_u16(table.components().len() as u16);
                for component in table.components() {
                    hasher.write_u16(component.get());
                }
            }
        }

        hasher = match symbol_width(sets) {
            1 => self.hash_entities::<1>(hasher, sets),
            2 => self.hash_entities::<2>(hasher, sets),
            _ => self.hash_entities::<4>(hasher, sets),
        };

        if !self.sparse.is_empty() {
            // SAFETY: forwarded from the caller: no hashed value is written meanwhile.
            hasher = unsafe { self.hash_sparse(hasher) };
        }
        self.resources.hash(&self.components, &mut hasher);
        *h = hasher;
    }

    /// Part 4 of [`Storage::hash_components`].
    ///
    /// # Safety
    ///
    /// As for [`Storage::hash_components`].
    unsafe fn hash_sparse(&self, mut h: StateHasher) -> StateHasher {
        for (id, set) in self.sparse.iter() {
            h.write_u16(id.get());
            // At most `u32::MAX` live entities, so the count fits.
            h.write_u32(set.len() as u32);
            let hash = set.hash_fn();
            for (entity, ptr) in set.iter_by_entity() {
                h.write_u32(entity.index());
                h.write_u32(entity.generation());
                if let Some(hash) = hash {
                    // SAFETY: `ptr` is a live value of the set's type, which `hash` was
                    // registered for; the caller excludes writers.
                    h = unsafe { hash(ptr, h) };
                }
            }
        }
        h
    }

    /// Part 3 of [`Storage::hash_components`], with `W`-byte symbols; `sets` is the opener.
    fn hash_entities<const W: usize>(&self, mut h: StateHasher, sets: u32) -> StateHasher {
        // `index << 32 | generation` of the entity that would continue the current run;
        // `u64::MAX` matches no entity (indices stay below `u32::MAX`).
        let mut next = u64::MAX;
        for (entity, location) in self.entities.iter_live() {
            let key = u64::from(entity.index()) << 32 | u64::from(entity.generation());
            if key != next {
                write_symbol::<W>(&mut h, sets);
                h.write_u64(key);
            }
            next = key + (1 << 32);
            let table = &self.archetypes[location.archetype as usize];
            write_symbol::<W>(&mut h, table.hash_rank());
            for (column, hash) in table.hashed_columns() {
                // SAFETY: the entity is live, so its row holds a valid value of the column's
                // type, which `hash` was registered for; the caller holds `&self` with no
                // concurrent writer (a world-level `&self`, or a context that declared read
                // access to every hashed component).
                h = unsafe { hash(column.ptr_at(location.row as usize), h) };
            }
        }
        h
    }
}

impl Storage {
    /// The checksum of `component`'s values where a system with the `matching` footprint
    /// `footprint` may write them: FNV-1a 64 (as [`StateHasher`]) fed, per table that has
    /// `component` and every component of `footprint`, in ascending archetype id, per row in
    /// table order, the entity (index, then generation, u32 each) and then, when the
    /// component is hashed, the bytes of its [`StateHash`](crate::StateHash). A sparse
    /// component feeds the same per entity with a value, in ascending entity index, whatever
    /// the footprint (it has no table to narrow by). A resource
    /// feeds 1 and its value's bytes (only the 1 when it is not hashed) when the world holds
    /// it, else 0. Allocates nothing.
    ///
    /// Row order is a pure function of the operation history, so two worlds with the same
    /// history agree on it; this is a desync finder's checksum, not a layout-free hash.
    ///
    /// It takes `&mut self` only to prove that no context is alive to write the values it
    /// reads (see [`Storage::hash_components`]).
    pub fn written_checksum(&mut self, component: ComponentId, footprint: &ComponentSet) -> u64 {
        let mut h = StateHasher::new();
        let hash = self.components.get(component).hash;
        if self.components.resources().contains(component) {
            match self.resources.ptr(component) {
                None => h.write_u8(0),
                Some(ptr) => {
                    h.write_u8(1);
                    if let Some(hash) = hash {
                        // SAFETY: the resource holds a valid value of the type `hash` was
                        // registered for; `&mut self` excludes writers.
                        h = unsafe { hash(ptr, h) };
                    }
                }
            }
            return h.finish();
        }
        if let Some(set) = self.sparse.get(component) {
            // No table to narrow by: every value, in ascending entity index.
            for (entity, ptr) in set.iter_by_entity() {
                h.write_u32(entity.index());
                h.write_u32(entity.generation());
                if let Some(hash) = hash {
                    // SAFETY: a live value of the set's type, which `hash` was registered
                    // for; `&mut self` excludes writers.
                    h = unsafe { hash(ptr, h) };
                }
            }
            return h.finish();
        }
        for entry in self.tables_with(component) {
            let table = &self.archetypes[entry.table() as usize];
            if !footprint.is_subset(table.signature()) {
                continue;
            }
            // SAFETY: the entry belongs to this storage, borrowed here, so no other
            // reference to the table's columns exists meanwhile.
            let column = unsafe { entry.column() };
            for (row, entity) in table.entities().iter().enumerate() {
                h.write_u32(entity.index());
                h.write_u32(entity.generation());
                if let Some(hash) = hash {
                    // SAFETY: every row below the table's length holds a valid value of the
                    // column's type, which `hash` was registered for; `&mut self` excludes writers.
                    h = unsafe { hash(column.ptr_at(row), h) };
                }
            }
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::symbol_width;

    #[test]
    fn symbols_hold_the_opener() {
        let widths = [0, 1, 255, 256, 65_535, 65_536, u32::MAX].map(symbol_width);
        assert_eq!(widths, [1, 1, 1, 2, 2, 4, 4]);
    }
}
