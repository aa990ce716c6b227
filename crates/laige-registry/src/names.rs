//! An open-addressing index from system name to id: O(1) lookups with no allocation.

use crate::MAX_SYSTEMS;
use crate::fnv::fnv1a64;

/// Twice the system limit, so probes stay short.
const SLOTS: usize = MAX_SYSTEMS * 2;

/// Maps names to 0-based record positions. Slots hold `position + 1`; 0 is empty.
#[derive(Clone, Debug)]
pub(crate) struct NameIndex {
    slots: [u16; SLOTS],
}

impl NameIndex {
    pub(crate) const fn new() -> Self {
        Self { slots: [0; SLOTS] }
    }

    /// The position of `name`, given a way to read the name at a position.
    pub(crate) fn find<'n>(&self, name: &str, name_at: impl Fn(usize) -> &'n str) -> Option<usize> {
        self.find_or_slot(name, name_at).ok()
    }

    /// The position of `name`, or the empty slot where it would go: one probe sequence
    /// serves both the duplicate check and the insertion that follows it.
    pub(crate) fn find_or_slot<'n>(
        &self,
        name: &str,
        name_at: impl Fn(usize) -> &'n str,
    ) -> Result<usize, usize> {
        let mut slot = start(name);
        loop {
            let stored = self.slots[slot];
            if stored == 0 {
                return Err(slot);
            }
            let position = usize::from(stored - 1);
            if name_at(position) == name {
                return Ok(position);
            }
            slot = (slot + 1) % SLOTS;
        }
    }

    /// Stores `position` in `slot`, an empty slot [`NameIndex::find_or_slot`] returned with
    /// no insertion since.
    pub(crate) fn fill(&mut self, slot: usize, position: usize) {
        debug_assert_eq!(self.slots[slot], 0);
        self.slots[slot] = u16::try_from(position + 1).expect("positions are below MAX_SYSTEMS");
    }
}

fn start(name: &str) -> usize {
    // Only a lookup aid: the hash never reaches an order or an id.
    (fnv1a64(name.as_bytes()) % SLOTS as u64) as usize
}
