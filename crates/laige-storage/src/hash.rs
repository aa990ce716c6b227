//! FNV-1a 64 over big-endian bytes, and the `StateHash` trait components opt into.

use laige_registry::Fnv1a64;

use crate::Entity;

/// FNV-1a 64 ([`Fnv1a64`], the repository's one implementation), fed with bytes: every number as its big-endian bytes at the width of the
/// `write_*` method (`write_u64` is the repo-wide KAT convention of u64 words).
///
/// FNV-1a consumes one byte at a time, so the cost of a hash is the number of bytes fed;
/// the narrow writers ([`StateHasher::write_u8`], [`StateHasher::write_u32`],
/// [`StateHasher::write_f32`], ...) feed only the bytes a value has.
///
/// ```
/// use laige_storage::StateHasher;
///
/// let mut h = StateHasher::new();
/// h.write_u64(1);
/// let mut g = StateHasher::new();
/// g.write_bytes(&[0, 0, 0, 0, 0, 0, 0, 1]);
/// assert_eq!(h.finish(), g.finish());
///
/// let mut h = StateHasher::new();
/// h.write_u32(0x0102_0304);
/// h.write_u8(5);
/// let mut g = StateHasher::new();
/// g.write_bytes(&[1, 2, 3, 4, 5]);
/// assert_eq!(h.finish(), g.finish());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StateHasher {
    fnv: Fnv1a64,
}

impl Default for StateHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StateHasher {
    /// A hasher at the offset basis.
    pub const fn new() -> Self {
        Self {
            fnv: Fnv1a64::new(),
        }
    }

    /// Feeds raw bytes, in order.
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.fnv.write_bytes(bytes);
    }

    /// Feeds one byte.
    #[inline]
    pub fn write_u8(&mut self, byte: u8) {
        self.write_bytes(&[byte]);
    }

    /// Feeds a u16 as 2 big-endian bytes.
    #[inline]
    pub fn write_u16(&mut self, value: u16) {
        self.write_bytes(&value.to_be_bytes());
    }

    /// Feeds a u32 as 4 big-endian bytes.
    #[inline]
    pub fn write_u32(&mut self, value: u32) {
        self.write_bytes(&value.to_be_bytes());
    }

    /// Feeds one word as 8 big-endian bytes.
    #[inline]
    pub fn write_u64(&mut self, word: u64) {
        self.write_bytes(&word.to_be_bytes());
    }

    /// Feeds an f32 by its bits (`to_bits`), as 4 big-endian bytes.
    #[inline]
    pub fn write_f32(&mut self, value: f32) {
        self.write_u32(value.to_bits());
    }

    /// Feeds an f64 by its bits (`to_bits`), as 8 big-endian bytes.
    #[inline]
    pub fn write_f64(&mut self, value: f64) {
        self.write_u64(value.to_bits());
    }

    /// The hash so far.
    pub const fn finish(&self) -> u64 {
        self.fnv.finish()
    }
}

/// A component whose value takes part in `World::state_hash`.
///
/// `#[derive(StateHash)]` (re-exported by `laige-world` and `laige-sim`) writes the impl:
/// fields in declaration order, an enum's variant index then its fields (the exact order is
/// in laige-derive's docs).
///
/// Register such a component with
/// `ComponentOptions::hashed` (`World::register_component_with`); a component
/// registered without hashing contributes only its presence.
///
/// The provided impls feed every primitive as its big-endian bytes at its own width: `u8`,
/// `i8` and `bool` (0 or 1) one byte; `u16` and `i16` two; `u32`, `i32`, `char` and `f32`
/// four; `u64`, `i64`, `f64`, and `usize` and `isize` (as 64-bit values) eight; `u128` and
/// `i128` sixteen. Signed values are fed as their two's complement bits, floats by their
/// bits (`to_bits`, so `-0.0` and `0.0` differ and a NaN hashes by payload). Arrays and
/// tuples are fed element by element, `Option` as a one-byte 0/1 tag then the value, and an
/// [`Entity`] as its index then its generation (four bytes each).
///
/// ```
/// use laige_storage::{StateHash, StateHasher};
///
/// struct Pos { x: f32, y: f32 }
/// impl StateHash for Pos {
///     fn hash_state(&self, h: &mut StateHasher) {
///         (self.x, self.y).hash_state(h);
///     }
/// }
///
/// let mut h = StateHasher::new();
/// Pos { x: 1.0, y: 2.0 }.hash_state(&mut h);
/// let mut g = StateHasher::new();
/// g.write_f32(1.0);
/// g.write_f32(2.0);
/// assert_eq!(h.finish(), g.finish());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `StateHash`, so its value cannot enter the state hash",
    note = "add `#[derive(StateHash)]` to `{Self}` (it hashes the fields in declaration order), or implement `StateHash` by hand"
)]
pub trait StateHash {
    /// Feeds this value's state to `h`, in a fixed order.
    fn hash_state(&self, h: &mut StateHasher);
}

macro_rules! hash_be_bytes {
    ($($t:ty),*) => {$(
        impl StateHash for $t {
            #[inline]
            fn hash_state(&self, h: &mut StateHasher) {
                h.write_bytes(&self.to_be_bytes());
            }
        }
    )*};
}
hash_be_bytes!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl StateHash for bool {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u8(u8::from(*self));
    }
}

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

impl StateHash for f32 {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_f32(*self);
    }
}

impl StateHash for f64 {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_f64(*self);
    }
}

impl StateHash for char {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u32(u32::from(*self));
    }
}

impl StateHash for Entity {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u32(self.index());
        h.write_u32(self.generation());
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
            None => h.write_u8(0),
            Some(it) => {
                h.write_u8(1);
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

    fn bytes(bs: &[u8]) -> u64 {
        let mut h = StateHasher::new();
        h.write_bytes(bs);
        h.finish()
    }

    #[test]
    fn integers_are_big_endian_at_their_width() {
        assert_eq!(hash(&7u8), bytes(&[7]));
        assert_eq!(hash(&-2i8), bytes(&[0xfe]));
        assert_eq!(hash(&0x0102u16), bytes(&[1, 2]));
        assert_eq!(hash(&-1i32), bytes(&[0xff; 4]));
        assert_eq!(hash(&0x0102_0304u32), bytes(&[1, 2, 3, 4]));
        assert_eq!(hash(&5u64), bytes(&[0, 0, 0, 0, 0, 0, 0, 5]));
        assert_eq!(hash(&5usize), hash(&5u64));
        assert_eq!(hash(&-5isize), hash(&-5i64));
        assert_eq!(hash(&true), bytes(&[1]));
        assert_eq!(hash(&'A'), bytes(&[0, 0, 0, 0x41]));
        let mut wide = [0u8; 16];
        wide[7] = 1;
        wide[15] = 2;
        assert_eq!(hash(&(1u128 << 64 | 2)), bytes(&wide));
    }

    #[test]
    fn floats_hash_by_bits() {
        assert_eq!(hash(&1.5f32), bytes(&1.5f32.to_bits().to_be_bytes()));
        assert_eq!(hash(&1.5f64), bytes(&1.5f64.to_bits().to_be_bytes()));
        assert_ne!(hash(&0.0f64), hash(&-0.0f64));
        assert_ne!(hash(&0.0f32), hash(&-0.0f32));
    }

    #[test]
    fn writers_feed_big_endian_bytes() {
        let mut h = StateHasher::new();
        h.write_u8(9);
        h.write_u16(0x0a0b);
        h.write_u32(0x0c0d_0e0f);
        h.write_u64(0x1011_1213_1415_1617);
        h.write_f32(f32::from_bits(0x1819_1a1b));
        h.write_f64(f64::from_bits(0x1c1d_1e1f_2021_2223));
        let all: Vec<u8> = (9u8..=0x23).collect();
        assert_eq!(h.finish(), bytes(&all));
    }

    #[test]
    fn composites_hash_in_order() {
        assert_eq!(hash(&(1u32, 2u8)), bytes(&[0, 0, 0, 1, 2]));
        assert_eq!(hash(&[3u16, 4]), bytes(&[0, 3, 0, 4]));
        assert_eq!(hash(&Some(5u8)), bytes(&[1, 5]));
        assert_eq!(hash(&None::<u8>), bytes(&[0]));
        assert_eq!(hash(&()), StateHasher::new().finish());
        assert_ne!(hash(&(1u32, 2u32)), hash(&(2u32, 1u32)));
        let e = Entity::from_parts(0x0102_0304, 0x0506_0708).unwrap();
        assert_eq!(hash(&e), bytes(&[1, 2, 3, 4, 5, 6, 7, 8]));
    }

    #[test]
    fn fnv_of_empty_input_is_the_offset_basis() {
        assert_eq!(StateHasher::new().finish(), 0xcbf29ce484222325);
        let mut h = StateHasher::new();
        h.write_bytes(b"a");
        assert_eq!(h.finish(), 0xaf63dc4c8601ec8c, "FNV-1a 64 of \"a\"");
        let mut h = StateHasher::new();
        h.write_bytes(b"foobar");
        assert_eq!(h.finish(), 0x85944171f73967e8, "FNV-1a 64 of \"foobar\"");
    }
}
