//! Generational entity handles and the slot table that hands them out.

use std::fmt;
use std::num::NonZeroU32;
use std::ops::Range;

/// A handle to an entity: a 32-bit slot index and a 32-bit generation.
///
/// Generations start at 1, so no handle that was not handed out by a world is ever valid
/// by accident (there is deliberately no `Default`). When an entity is despawned its slot's
/// generation is bumped, so every handle to it becomes stale; a stale handle is reported as
/// [`WorldError::StaleEntity`](crate::WorldError::StaleEntity), never silently accepted.
///
/// `Debug` and `Display` print `{index}v{generation}`, e.g. `3v1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    index: u32,
    generation: NonZeroU32,
}

impl Entity {
    /// The handle with these parts, or `None` when `generation` is 0 (never valid).
    ///
    /// Useful to rebuild a handle from its parts (a log, a replay); whether it names a live
    /// entity is for the world to say.
    pub const fn from_parts(index: u32, generation: u32) -> Option<Self> {
        match NonZeroU32::new(generation) {
            Some(generation) => Some(Self { index, generation }),
            None => None,
        }
    }

    /// The slot index.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The generation: how many times the slot had been handed out when this handle was made.
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation.get()
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

/// Where a live entity's row is: its archetype and its row in that archetype's table.
///
/// Only the storage makes one (its fields are private), from its own slot table; one held
/// across a structural change may be stale, so every safe function that takes one checks it,
/// and every `unsafe` one names freshness in its `# Safety` section.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Location {
    pub(crate) archetype: u32,
    pub(crate) row: u32,
}

impl Location {
    /// The archetype's id.
    #[inline]
    pub fn archetype(self) -> u32 {
        self.archetype
    }

    /// The row in that archetype's table.
    #[inline]
    pub fn row(self) -> u32 {
        self.row
    }
}

/// Marks a slot that holds no live entity.
const DEAD: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    generation: NonZeroU32,
    /// [`DEAD`] when the slot is free.
    archetype: u32,
    row: u32,
}

#[cfg(feature = "serde")]
impl Slot {
    /// Its parts for a save file: generation, table (`None` when free) and row.
    pub(crate) fn parts(self) -> (u32, Option<u32>, u32) {
        let table = (self.archetype != DEAD).then_some(self.archetype);
        (self.generation.get(), table, self.row)
    }

    /// A slot from a save file's parts; `None` for generation 0 or table `u32::MAX`. Whether
    /// it matches the tables is for the file's reader to check.
    pub(crate) fn from_parts(generation: u32, table: Option<u32>, row: u32) -> Option<Self> {
        let archetype = match table {
            Some(DEAD) => return None,
            Some(table) => table,
            None => DEAD,
        };
        Some(Self {
            generation: NonZeroU32::new(generation)?,
            archetype,
            row,
        })
    }
}

/// The slot table: generations, liveness and locations, plus the free list.
///
/// Slot reuse is LIFO: a despawned slot goes on top of a stack, and the next spawn takes the
/// most recently freed slot; only when the stack is empty does a spawn open a new slot
/// (`index == slots ever opened`). So the first spawns of a world get indices 0, 1, 2, ...
/// A slot whose generation would pass `u32::MAX` is retired instead of reused, so a handle can
/// never come back to life by wrap-around.
#[derive(Debug)]
pub struct Entities {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: u32,
    max: u32,
}

impl Entities {
    /// A table with room reserved for `capacity` slots and at most `max` live entities.
    pub(crate) fn new(capacity: u32, max: u32) -> Self {
        Self {
            slots: Vec::with_capacity(capacity as usize),
            free: Vec::new(),
            live: 0,
            max,
        }
    }

    /// How many entities are live.
    #[inline]
    pub fn live(&self) -> u32 {
        self.live
    }

    /// The most entities that may be live at once.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// How many slots were ever opened (live, free or retired).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Takes a slot for a new entity placed at `location`; `None` when the limit is reached.
    #[inline]
    pub(crate) fn alloc(&mut self, location: Location) -> Option<Entity> {
        if self.live >= self.max {
            return None;
        }
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                // Index u32::MAX is never opened, so `DEAD` stays free as an archetype marker
                // and the slot count fits in a u32.
                let index = u32::try_from(self.slots.len())
                    .ok()
                    .filter(|it| *it < u32::MAX)?;
                self.slots.push(Slot {
                    generation: NonZeroU32::MIN,
                    archetype: DEAD,
                    row: 0,
                });
                index
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.archetype = location.archetype;
        slot.row = location.row;
        self.live += 1;
        Some(Entity {
            index,
            generation: slot.generation,
        })
    }

    /// Makes room for `additional` more live entities: the free slots are reused first, so
    /// only the rest open new slots.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.slots
            .reserve(additional.saturating_sub(self.free.len()));
    }

    /// Where `entity` lives, or `None` when the handle is stale.
    #[inline]
    pub fn location(&self, entity: Entity) -> Option<Location> {
        let slot = self.slots.get(entity.index as usize)?;
        (slot.generation == entity.generation && slot.archetype != DEAD).then_some(Location {
            archetype: slot.archetype,
            row: slot.row,
        })
    }

    /// Whether `entity` is live.
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.location(entity).is_some()
    }

    /// Moves a live entity's record to `location`; the caller knows the entity is live.
    #[inline]
    pub(crate) fn set_location(&mut self, entity: Entity, location: Location) {
        let slot = &mut self.slots[entity.index as usize];
        debug_assert!(slot.generation == entity.generation && slot.archetype != DEAD);
        slot.archetype = location.archetype;
        slot.row = location.row;
    }

    /// Frees a live entity's slot and bumps its generation; the caller knows it is live.
    pub(crate) fn free(&mut self, entity: Entity) {
        let slot = &mut self.slots[entity.index as usize];
        debug_assert!(slot.generation == entity.generation && slot.archetype != DEAD);
        slot.archetype = DEAD;
        self.live -= 1;
        // On overflow the slot is retired: it stays dead forever, so no stale handle can
        // match it again.
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            self.free.push(entity.index);
        }
    }

    /// Frees every live slot as [`Entities::free`] does (bumping its generation or retiring
    /// it), then sorts the free list into ascending index: the next spawn takes the highest
    /// index, then the next lower one (the contract's `clear()` order). A pure function of
    /// the table, so worlds with the same history reuse the same slots. No allocation once
    /// the free list has held every slot.
    pub(crate) fn clear(&mut self) {
        for index in 0..self.slots.len() {
            let slot = self.slots[index];
            if slot.archetype != DEAD {
                // Indices are below u32::MAX by construction (see `alloc`).
                self.free(Entity {
                    index: index as u32,
                    generation: slot.generation,
                });
            }
        }
        // The free list holds exactly the reusable slots; `sort_unstable` does not allocate.
        self.free.sort_unstable();
    }

    /// Every live entity with its location, in ascending index order.
    pub fn iter_live(&self) -> impl Iterator<Item = (Entity, Location)> + '_ {
        self.iter_live_in(0..self.slots.len())
    }

    /// The live entities among slots `range` (clamped to the slots opened), with their
    /// locations, in ascending index order.
    pub fn iter_live_in(
        &self,
        range: Range<usize>,
    ) -> impl Iterator<Item = (Entity, Location)> + '_ {
        let end = range.end.min(self.slots.len());
        let start = range.start.min(end);
        self.slots[start..end]
            .iter()
            .zip(start..)
            .filter(|(slot, _)| slot.archetype != DEAD)
            .map(|(slot, index)| {
                // Indices are below u32::MAX by construction (see `alloc`).
                let entity = Entity {
                    index: index as u32,
                    generation: slot.generation,
                };
                (
                    entity,
                    Location {
                        archetype: slot.archetype,
                        row: slot.row,
                    },
                )
            })
    }

    /// Copies the slot table and the free list into `slots` and `free` (reusing their
    /// buffers) and returns the live count: what a saved state keeps of the allocator.
    pub(crate) fn save_into(&self, slots: &mut Vec<Slot>, free: &mut Vec<u32>) -> u32 {
        slots.clear();
        slots.extend_from_slice(&self.slots);
        free.clear();
        free.extend_from_slice(&self.free);
        self.live
    }

    /// Makes the table the one [`Entities::save_into`] copied out, so the next spawns hand
    /// out the same handles. The caller has restored every table to match `slots`.
    pub(crate) fn restore_from(&mut self, slots: &[Slot], free: &[u32], live: u32) {
        self.slots.clear();
        self.slots.extend_from_slice(slots);
        self.free.clear();
        self.free.extend_from_slice(free);
        self.live = live;
    }

    /// Gives the slot of `index` the generation `generation`, as if it had been reused that
    /// often; for tests of generation exhaustion.
    #[cfg(test)]
    pub(crate) fn force_generation(&mut self, index: u32, generation: NonZeroU32) {
        self.slots[index as usize].generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: Location = Location {
        archetype: 0,
        row: 0,
    };

    #[test]
    fn clear_frees_every_slot_and_reuses_from_the_highest_index() {
        let mut it = Entities::new(0, u32::MAX);
        let e: Vec<Entity> = (0..5).map(|_| it.alloc(AT).unwrap()).collect();
        it.free(e[1]);
        // Slot 3 is on its last generation: clearing retires it.
        it.force_generation(3, NonZeroU32::MAX);
        let last_use = Entity {
            index: 3,
            generation: NonZeroU32::MAX,
        };
        it.clear();
        assert_eq!(it.live(), 0);
        assert!(e.iter().all(|&e| !it.is_alive(e)));
        assert!(!it.is_alive(last_use));
        assert_eq!(it.iter_live().count(), 0);
        // Free slots 0, 1, 2, 4 (3 is retired), taken from the highest down, then new ones.
        let reused: Vec<(u32, u32)> = (0..5)
            .map(|_| it.alloc(AT).unwrap())
            .map(|e| (e.index, e.generation.get()))
            .collect();
        assert_eq!(reused, [(4, 2), (2, 2), (1, 2), (0, 2), (5, 1)]);
        assert_eq!(it.slot_count(), 6);
    }

    #[test]
    fn clear_keeps_a_slot_freed_onto_its_last_generation() {
        let mut it = Entities::new(0, u32::MAX);
        let a = it.alloc(AT).unwrap();
        it.force_generation(0, NonZeroU32::new(u32::MAX - 1).unwrap());
        it.free(Entity {
            index: 0,
            generation: NonZeroU32::new(u32::MAX - 1).unwrap(),
        });
        assert!(!it.is_alive(a));
        it.clear();
        // Freed onto generation MAX, the slot is still reusable once: clear keeps it.
        let again = it.alloc(AT).unwrap();
        assert_eq!((again.index, again.generation), (0, NonZeroU32::MAX));
    }

    #[test]
    fn reuse_is_lifo_and_bumps_generations() {
        let mut it = Entities::new(0, u32::MAX);
        let a = it.alloc(AT).unwrap();
        let b = it.alloc(AT).unwrap();
        let c = it.alloc(AT).unwrap();
        assert_eq!(
            [a, b, c].map(|e| (e.index(), e.generation())),
            [(0, 1), (1, 1), (2, 1)]
        );
        it.free(a);
        it.free(c);
        let d = it.alloc(AT).unwrap();
        let e = it.alloc(AT).unwrap();
        assert_eq!((d.index(), d.generation()), (2, 2));
        assert_eq!((e.index(), e.generation()), (0, 2));
        assert!(!it.is_alive(a) && !it.is_alive(c) && it.is_alive(b));
        assert_eq!(it.live(), 3);
    }

    #[test]
    fn limit_refuses_without_side_effects() {
        let mut it = Entities::new(0, 2);
        let a = it.alloc(AT).unwrap();
        it.alloc(AT).unwrap();
        assert_eq!(it.alloc(AT), None);
        assert_eq!(it.live(), 2);
        it.free(a);
        assert!(it.alloc(AT).is_some());
    }

    #[test]
    fn exhausted_generation_retires_the_slot() {
        let mut it = Entities::new(0, u32::MAX);
        let a = it.alloc(AT).unwrap();
        it.force_generation(0, NonZeroU32::MAX);
        let old = Entity {
            index: 0,
            generation: NonZeroU32::MAX,
        };
        assert!(!it.is_alive(a));
        it.free(old);
        let b = it.alloc(AT).unwrap();
        assert_eq!(b.index(), 1, "a retired slot is never handed out again");
        assert!(!it.is_alive(old));
        assert_eq!(it.slot_count(), 2);
    }

    #[test]
    fn display_is_index_v_generation() {
        let e = Entity::from_parts(3, 7).unwrap();
        assert_eq!(e.to_string(), "3v7");
        assert_eq!(format!("{e:?}"), "3v7");
        assert_eq!(Entity::from_parts(3, 0), None);
    }
}
