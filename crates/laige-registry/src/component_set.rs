//! Fixed 256-bit sets of dense ids: membership in O(1), no allocation.

use std::fmt;
use std::marker::PhantomData;

use crate::{ComponentId, MAX_SYSTEMS, SystemId};

/// An id that is dense from 1 and at most 256, so a set of them fits in four words.
pub trait DenseId: Copy {
    /// The 0-based position of the id.
    fn index(self) -> usize;
    /// The id at a 0-based position, if the position is in range.
    fn from_index(index: usize) -> Option<Self>;
}

// The id conversions are inlined across crates: set iteration runs them once per member.
impl DenseId for ComponentId {
    #[inline]
    fn index(self) -> usize {
        ComponentId::index(self)
    }

    #[inline]
    fn from_index(index: usize) -> Option<Self> {
        ComponentId::from_index(index)
    }
}

impl DenseId for SystemId {
    #[inline]
    fn index(self) -> usize {
        SystemId::index(self)
    }

    #[inline]
    fn from_index(index: usize) -> Option<Self> {
        (index < MAX_SYSTEMS).then(|| SystemId::from_index(index))
    }
}

/// A set of dense ids, stored as four 64-bit words (bit `id - 1`).
///
/// Iteration is always in ascending id order, so it is safe to let it reach an order
/// or a warning sequence.
pub struct IdSet<I> {
    words: [u64; 4],
    _id: PhantomData<fn() -> I>,
}

/// A set of [`ComponentId`]s.
pub type ComponentSet = IdSet<ComponentId>;

/// A set of [`SystemId`]s.
pub type SystemSet = IdSet<SystemId>;

impl<I> Clone for IdSet<I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I> Copy for IdSet<I> {}

impl<I> PartialEq for IdSet<I> {
    fn eq(&self, other: &Self) -> bool {
        self.words == other.words
    }
}

impl<I> Eq for IdSet<I> {}

impl<I> std::hash::Hash for IdSet<I> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.words.hash(state);
    }
}

impl<I> Default for IdSet<I> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<I> IdSet<I> {
    /// The empty set.
    pub const EMPTY: Self = Self {
        words: [0; 4],
        _id: PhantomData,
    };

    /// Every id (all 256).
    pub const FULL: Self = Self::from_words([u64::MAX; 4]);

    /// The first `n` ids (1 to `n`), all of them past 256.
    pub const fn first(n: usize) -> Self {
        let mut words = [0u64; 4];
        let mut w = 0;
        while w < 4 {
            let bits = n.saturating_sub(w * 64);
            words[w] = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            w += 1;
        }
        Self::from_words(words)
    }

    const fn from_words(words: [u64; 4]) -> Self {
        Self {
            words,
            _id: PhantomData,
        }
    }
}

impl<I: DenseId> IdSet<I> {
    /// Whether `id` is in the set.
    #[inline]
    pub fn contains(&self, id: I) -> bool {
        let idx = id.index();
        self.words[idx / 64] & (1 << (idx % 64)) != 0
    }

    /// Adds `id`; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, id: I) -> bool {
        let idx = id.index();
        let bit = 1 << (idx % 64);
        let fresh = self.words[idx / 64] & bit == 0;
        self.words[idx / 64] |= bit;
        fresh
    }

    /// Removes `id`; returns whether it was there.
    #[inline]
    pub fn remove(&mut self, id: I) -> bool {
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
        Self::from_words([
            self.words[0] & other.words[0],
            self.words[1] & other.words[1],
            self.words[2] & other.words[2],
            self.words[3] & other.words[3],
        ])
    }

    /// The ids in either set.
    #[inline]
    pub const fn union(&self, other: &Self) -> Self {
        Self::from_words([
            self.words[0] | other.words[0],
            self.words[1] | other.words[1],
            self.words[2] | other.words[2],
            self.words[3] | other.words[3],
        ])
    }

    /// The ids of `self` that are not in `other`.
    #[inline]
    pub const fn difference(&self, other: &Self) -> Self {
        Self::from_words([
            self.words[0] & !other.words[0],
            self.words[1] & !other.words[1],
            self.words[2] & !other.words[2],
            self.words[3] & !other.words[3],
        ])
    }

    /// The smallest id in both sets, if any.
    pub fn first_common(&self, other: &Self) -> Option<I> {
        self.intersection(other).iter().next()
    }

    /// The set as four words: bit `i % 64` of word `i / 64` stands for the id at 0-based
    /// position `i`. For callers that keep the bits in atomics.
    #[inline]
    pub const fn to_words(&self) -> [u64; 4] {
        self.words
    }

    /// The set of the ids at the same 0-based positions as those of `other`: the same
    /// bits, as ids of another kind (system ids as positions in an order that lists them
    /// by id).
    #[inline]
    pub const fn same_positions<J>(other: &IdSet<J>) -> Self {
        Self::from_words(other.words)
    }

    /// The ids in ascending order.
    pub fn iter(&self) -> Iter<I> {
        Iter {
            words: self.words,
            word: 0,
            _id: PhantomData,
        }
    }
}

impl<I: DenseId> FromIterator<I> for IdSet<I> {
    fn from_iter<T: IntoIterator<Item = I>>(iter: T) -> Self {
        let mut set = Self::EMPTY;
        for id in iter {
            set.insert(id);
        }
        set
    }
}

impl<I: DenseId + fmt::Display> fmt::Debug for IdSet<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|it| it.index() + 1))
            .finish()
    }
}

/// Ascending iterator over an [`IdSet`].
#[derive(Clone, Debug)]
pub struct Iter<I> {
    words: [u64; 4],
    word: usize,
    _id: PhantomData<fn() -> I>,
}

impl<I: DenseId> Iterator for Iter<I> {
    type Item = I;

    fn next(&mut self) -> Option<I> {
        while self.word < 4 {
            let bits = self.words[self.word];
            if bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                self.words[self.word] &= bits - 1;
                return I::from_index(self.word * 64 + bit);
            }
            self.word += 1;
        }
        None
    }

    // Internal iteration (`for_each`, `fold`, ...) runs a tight loop per word instead of
    // resuming the scan at every element.
    fn fold<B, F: FnMut(B, I) -> B>(self, init: B, mut f: F) -> B {
        let mut acc = init;
        for word in self.word..4 {
            let mut bits = self.words[word];
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(id) = I::from_index(word * 64 + bit) {
                    acc = f(acc, id);
                }
            }
        }
        acc
    }
}

impl<I: DenseId> IntoIterator for &IdSet<I> {
    type Item = I;
    type IntoIter = Iter<I>;

    fn into_iter(self) -> Iter<I> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use crate::{ComponentId, ComponentSet};

    /// `first(n)` holds exactly ids 1 to `n`, across word boundaries and past 256.
    #[test]
    fn first_n_is_one_to_n() {
        for n in [0, 1, 63, 64, 65, 128, 200, 255, 256, 300] {
            let set = ComponentSet::first(n);
            let ids: Vec<u16> = set.iter().map(|c| c.get()).collect();
            let expected: Vec<u16> = (1..=n.min(256) as u16).collect();
            assert_eq!(ids, expected, "n = {n}");
        }
    }

    /// `fold` (what `for_each`, `collect`... use) visits what `next` visits, in the same
    /// ascending order, from a fresh iterator and from one already partly consumed.
    #[test]
    fn fold_agrees_with_next() {
        let sets: [&[u16]; 5] = [
            &[],
            &[1],
            &[64, 65],
            &[1, 63, 64, 128, 129, 200, 256],
            &[256],
        ];
        for ids in sets {
            let set: ComponentSet = ids.iter().map(|&v| ComponentId::new(v).unwrap()).collect();
            for skip in 0..=ids.len() {
                let mut by_next = set.iter();
                let mut rest = set.iter();
                for _ in 0..skip {
                    by_next.next();
                    rest.next();
                }
                // A `for` loop steps with `next`.
                let mut visited = Vec::new();
                for c in by_next {
                    visited.push(c.get());
                }
                let mut by_fold = Vec::new();
                rest.for_each(|c| by_fold.push(c.get()));
                assert_eq!(by_fold, visited, "{ids:?} after {skip}");
                assert_eq!(by_fold, ids[skip..], "{ids:?} after {skip}");
            }
        }
    }
}
