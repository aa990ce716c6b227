//! A fixed 256-bit set of component ids: membership in O(1), no allocation.

use std::fmt;

use crate::ComponentId;

/// A set of [`ComponentId`]s, stored as four 64-bit words (bit `id - 1`).
///
/// Iteration is always in ascending id order, so it is safe to let it reach an order
/// or a warning sequence.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ComponentSet {
    words: [u64; 4],
}

impl ComponentSet {
    /// The empty set.
    pub const EMPTY: Self = Self { words: [0; 4] };

    /// Whether `id` is in the set.
    #[inline]
    pub const fn contains(&self, id: ComponentId) -> bool {
        let idx = id.index();
        self.words[idx / 64] & (1 << (idx % 64)) != 0
    }

    /// Adds `id`; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, id: ComponentId) -> bool {
        let idx = id.index();
        let bit = 1 << (idx % 64);
        let fresh = self.words[idx / 64] & bit == 0;
        self.words[idx / 64] |= bit;
        fresh
    }

    /// Removes `id`; returns whether it was there.
    #[inline]
    pub fn remove(&mut self, id: ComponentId) -> bool {
        let idx = id.index();
        let bit = 1 << (idx % 64);
        let present = self.words[idx / 64] & bit != 0;
        self.words[idx / 64] &= !bit;
        present
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.words[0] | self.words[1] | self.words[2] | self.words[3] == 0
    }

    /// The number of ids in the set.
    pub const fn len(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < 4 {
            n += self.words[i].count_ones() as usize;
            i += 1;
        }
        n
    }

    /// Whether the two sets share an id.
    #[inline]
    pub const fn intersects(&self, other: &Self) -> bool {
        (self.words[0] & other.words[0])
            | (self.words[1] & other.words[1])
            | (self.words[2] & other.words[2])
            | (self.words[3] & other.words[3])
            != 0
    }

    /// Whether every id of `self` is in `other`.
    #[inline]
    pub const fn is_subset(&self, other: &Self) -> bool {
        (self.words[0] & !other.words[0])
            | (self.words[1] & !other.words[1])
            | (self.words[2] & !other.words[2])
            | (self.words[3] & !other.words[3])
            == 0
    }

    /// The ids in both sets.
    #[inline]
    pub const fn intersection(&self, other: &Self) -> Self {
        Self {
            words: [
                self.words[0] & other.words[0],
                self.words[1] & other.words[1],
                self.words[2] & other.words[2],
                self.words[3] & other.words[3],
            ],
        }
    }

    /// The ids in either set.
    #[inline]
    pub const fn union(&self, other: &Self) -> Self {
        Self {
            words: [
                self.words[0] | other.words[0],
                self.words[1] | other.words[1],
                self.words[2] | other.words[2],
                self.words[3] | other.words[3],
            ],
        }
    }

    /// The smallest id in both sets, if any.
    pub fn first_common(&self, other: &Self) -> Option<ComponentId> {
        self.intersection(other).iter().next()
    }

    /// The ids in ascending order.
    pub fn iter(&self) -> Iter {
        Iter { words: self.words, word: 0 }
    }
}

impl FromIterator<ComponentId> for ComponentSet {
    fn from_iter<I: IntoIterator<Item = ComponentId>>(iter: I) -> Self {
        let mut set = Self::EMPTY;
        for id in iter {
            set.insert(id);
        }
        set
    }
}

impl fmt::Debug for ComponentSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(ComponentId::get)).finish()
    }
}

/// Ascending iterator over a [`ComponentSet`].
#[derive(Clone, Debug)]
pub struct Iter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for Iter {
    type Item = ComponentId;

    fn next(&mut self) -> Option<ComponentId> {
        while self.word < 4 {
            let bits = self.words[self.word];
            if bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                self.words[self.word] &= bits - 1;
                return ComponentId::from_index(self.word * 64 + bit);
            }
            self.word += 1;
        }
        None
    }
}

impl IntoIterator for &ComponentSet {
    type Item = ComponentId;
    type IntoIter = Iter;

    fn into_iter(self) -> Iter {
        self.iter()
    }
}
