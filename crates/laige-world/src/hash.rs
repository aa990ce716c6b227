//! FNV-1a 64 over big-endian u64 words, and the `StateHash` trait components opt into.

use crate::Entity;

/// The FNV-1a 64 offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The FNV-1a 64 prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 fed with u64 words, each as 8 bytes big-endian (the repo-wide KAT convention).
///
/// ```
/// use laige_world::StateHasher;
///
/// let mut h = StateHasher::new();
/// h.write_u64(1);
/// let mut g = StateHasher::new();
/// g.write_bytes(&[0, 0, 0, 0, 0, 0, 0, 1]);
/// assert_eq!(h.finish(), g.finish());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StateHasher {
    state: u64,
}

impl Default for StateHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StateHasher {
    /// A hasher at the offset basis.
    pub const fn new() -> Self {
        Self { state: FNV_OFFSET }
    }

    /// Feeds raw bytes.
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.state ^= u64::from(b);
            self.state = self.state.wrapping_mul(FNV_PRIME);
        }
    }

    /// Feeds one word as 8 big-endian bytes.
    #[inline]
    pub fn write_u64(&mut self, word: u64) {
        self.write_bytes(&word.to_be_bytes());
    }

    /// The hash so far.
    pub const fn finish(&self) -> u64 {
        self.state
    }
}

/// A component whose value takes part in [`World::state_hash`](crate::World::state_hash).
///
/// Register such a component with
/// [`World::register_hashed_component`](crate::World::register_hashed_component); a component
/// registered without hashing contributes only its presence.
///
/// The provided impls feed every integer widened to one u64 word (signed values
/// sign-extended, 128-bit values as two words, high first), `bool` as 0 or 1, floats by their
/// bits (`to_bits`, so `-0.0` and `0.0` differ and a NaN hashes by payload), arrays and
/// tuples element by element, `Option` as a 0/1 tag then the value, and an [`Entity`] as
/// index then generation.
///
/// ```
/// use laige_world::{StateHash, StateHasher};
///
/// struct Pos { x: f32, y: f32 }
/// impl StateHash for Pos {
///     fn hash_state(&self, h: &mut StateHasher) {
///         (self.x, self.y).hash_state(h);
///     }
/// }
/// ```
pub trait StateHash {
    /// Feeds this value's state to `h`, in a fixed order.
    fn hash_state(&self, h: &mut StateHasher);
}

macro_rules! hash_unsigned {
    ($($t:ty),*) => {$(
        impl StateHash for $t {
            #[inline]
            fn hash_state(&self, h: &mut StateHasher) {
                h.write_u64(u64::from(*self));
            }
        }
    )*};
}
hash_unsigned!(u8, u16, u32, u64, bool);

macro_rules! hash_signed {
    ($($t:ty),*) => {$(
        impl StateHash for $t {
            #[inline]
            fn hash_state(&self, h: &mut StateHasher) {
                // Sign-extend to 64 bits, then reinterpret.
                h.write_u64(i64::from(*self) as u64);
            }
        }
    )*};
}
hash_signed!(i8, i16, i32, i64);

impl StateHash for usize {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as u64);
    }
}

impl StateHash for isize {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as i64 as u64);
    }
}

impl StateHash for u128 {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64((*self >> 64) as u64);
        h.write_u64(*self as u64);
    }
}

impl StateHash for i128 {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        (*self as u128).hash_state(h);
    }
}

impl StateHash for f32 {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(self.to_bits()));
    }
}

impl StateHash for f64 {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.to_bits());
    }
}

impl StateHash for char {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(u32::from(*self)));
    }
}

impl StateHash for Entity {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(self.index()));
        h.write_u64(u64::from(self.generation()));
    }
}

impl<T: StateHash, const N: usize> StateHash for [T; N] {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        for it in self {
            it.hash_state(h);
        }
    }
}

impl<T: StateHash> StateHash for Option<T> {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        match self {
            None => h.write_u64(0),
            Some(it) => {
                h.write_u64(1);
                it.hash_state(h);
            }
        }
    }
}

macro_rules! hash_tuple {
    ($($name:ident),*) => {
        impl<$($name: StateHash),*> StateHash for ($($name,)*) {
            #[inline]
            #[allow(non_snake_case, unused_variables)]
            fn hash_state(&self, h: &mut StateHasher) {
                let ($($name,)*) = self;
                $($name.hash_state(h);)*
            }
        }
    };
}
hash_tuple!();
hash_tuple!(A);
hash_tuple!(A, B);
hash_tuple!(A, B, C);
hash_tuple!(A, B, C, D);
hash_tuple!(A, B, C, D, E);
hash_tuple!(A, B, C, D, E, F);
hash_tuple!(A, B, C, D, E, F, G);
hash_tuple!(A, B, C, D, E, F, G, H);

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(v: &impl StateHash) -> u64 {
        let mut h = StateHasher::new();
        v.hash_state(&mut h);
        h.finish()
    }

    fn words(ws: &[u64]) -> u64 {
        let mut h = StateHasher::new();
        ws.iter().for_each(|w| h.write_u64(*w));
        h.finish()
    }

    #[test]
    fn integers_are_widened_words() {
        assert_eq!(hash(&7u8), words(&[7]));
        assert_eq!(hash(&-1i32), words(&[u64::MAX]));
        assert_eq!(hash(&true), words(&[1]));
        assert_eq!(hash(&(1u128 << 64 | 2)), words(&[1, 2]));
    }

    #[test]
    fn floats_hash_by_bits() {
        assert_eq!(hash(&1.5f32), words(&[u64::from(1.5f32.to_bits())]));
        assert_ne!(hash(&0.0f64), hash(&-0.0f64));
    }

    #[test]
    fn composites_hash_in_order() {
        assert_eq!(hash(&(1u32, 2u32)), words(&[1, 2]));
        assert_eq!(hash(&[3u16, 4]), words(&[3, 4]));
        assert_eq!(hash(&Some(5u8)), words(&[1, 5]));
        assert_eq!(hash(&None::<u8>), words(&[0]));
        assert_eq!(hash(&()), StateHasher::new().finish());
        assert_ne!(hash(&(1u32, 2u32)), hash(&(2u32, 1u32)));
    }

    #[test]
    fn fnv_of_empty_input_is_the_offset_basis() {
        assert_eq!(StateHasher::new().finish(), 0xcbf29ce484222325);
        let mut h = StateHasher::new();
        h.write_bytes(b"a");
        assert_eq!(h.finish(), 0xaf63dc4c8601ec8c, "FNV-1a 64 of \"a\"");
    }
}
