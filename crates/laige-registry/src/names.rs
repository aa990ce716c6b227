//! An open-addressing index from system name to id: O(1) lookups with no allocation.

use crate::MAX_SYSTEMS;

/// Twice the system limit, so probes stay short.
const SLOTS: usize = MAX_SYSTEMS * 2;

/// Maps names to 0-based record positions.
///
/// A slot holds `tag << 16 | (position + 1)`, 0 when empty. The tag is 16 more bits of the
/// name's hash, so a probe that meets another name of the same length rejects it without
/// comparing bytes (system names are often `Move`, `Draw`, `sys012`...).
#[derive(Clone, Debug)]
pub(crate) struct NameIndex {
    slots: [u32; SLOTS],
}

/// Where a name that is not in the index would go, from [`NameIndex::find_or_slot`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vacant {
    slot: usize,
    tag: u32,
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
    ) -> Result<usize, Vacant> {
        // Only a lookup aid: the hash never reaches an order or an id.
        let hash = mix(name.as_bytes());
        let tag = (hash >> 48) as u32;
        let mut slot = (hash % SLOTS as u64) as usize;
        loop {
            let stored = self.slots[slot];
            if stored == 0 {
                return Err(Vacant { slot, tag });
            }
            let position = (stored & 0xFFFF) as usize - 1;
            if stored >> 16 == tag && name_at(position) == name {
                return Ok(position);
            }
            slot = (slot + 1) % SLOTS;
        }
    }

    /// Stores `position` where [`NameIndex::find_or_slot`] said its name goes, with no
    /// insertion since.
    #[inline]
    pub(crate) fn fill(&mut self, vacant: Vacant, position: usize) {
        debug_assert_eq!(self.slots[vacant.slot], 0);
        let position = u32::try_from(position + 1).expect("positions are below MAX_SYSTEMS");
        self.slots[vacant.slot] = vacant.tag << 16 | position;
    }
}

/// A fast, deterministic hash of a short byte string: whole words where FNV-1a takes a
/// multiply per byte. Names are hashed on every registration and every dependency lookup.
fn mix(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| {
        u64::from(u32::from_le_bytes(
            bytes[at..at + 4].try_into().expect("4 bytes"),
        ))
    };
    let mut h = (len as u64).wrapping_mul(K0);
    if len >= 8 {
        // Whole words, then the last word again (overlapping) for the tail.
        let mut at = 0;
        while at + 8 < len {
            h = fold(h ^ word(at));
            at += 8;
        }
        h = fold(h ^ word(len - 8));
    } else if len >= 4 {
        h = fold(h ^ (half(0) << 32 | half(len - 4)));
    } else if len > 0 {
        let first = u64::from(bytes[0]);
        let middle = u64::from(bytes[len / 2]);
        let last = u64::from(bytes[len - 1]);
        h = fold(h ^ (first << 16 | middle << 8 | last));
    }
    fold(h)
}

const K0: u64 = 0x9E37_79B9_7F4A_7C15;
const K1: u64 = 0xBF58_476D_1CE4_E5B9;

/// One multiply-xorshift round (SplitMix64's finaliser step).
fn fold(x: u64) -> u64 {
    let x = x.wrapping_mul(K1);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::{NameIndex, mix};

    #[test]
    fn mix_tells_apart_short_and_long_names() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "abcd",
            "abce",
            "abcdefg",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "sys000",
            "sys001",
            "sys010",
            "sys100",
            "Movement",
            "Movement2",
        ];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert_ne!(mix(a.as_bytes()), mix(b.as_bytes()), "{a} and {b} collide");
            }
        }
    }

    #[test]
    fn index_finds_every_name_and_only_those() {
        let names: Vec<String> = (0..256).map(|i| format!("system{i}")).collect();
        let mut index = NameIndex::new();
        for (position, name) in names.iter().enumerate() {
            let slot = index
                .find_or_slot(name, |p| &names[p])
                .expect_err("not there yet");
            index.fill(slot, position);
        }
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.find(name, |p| &names[p]), Some(position));
        }
        assert_eq!(index.find("system256", |p| &names[p]), None);
    }
}
