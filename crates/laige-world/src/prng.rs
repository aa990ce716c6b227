//! The deterministic PRNG: xorshift128+ seeded through splitmix64 (contract §6.3).

/// The splitmix64 increment: the seeding step and the substream step.
pub(crate) const SPLITMIX64_INCREMENT: u64 = 0x9E37_79B9_7F4A_7C15;
const MIX_A: u64 = 0xBF58_476D_1CE4_E5B9;
const MIX_B: u64 = 0x94D0_49BB_1331_11EB;
/// The resolution of [`Prng::next_float01`]: 2^-24.
pub(crate) const FLOAT01_UNIT: f32 = 1.0 / (1u32 << 24) as f32;

/// xorshift128+ with splitmix64 seeding, bit-identical to the laige reference.
///
/// Every system of a deterministic world owns one, derived at registration as
/// [`Prng::derive_substream`]`(seed, system_id)`, and reaches it through
/// [`SystemContext::rng`](crate::SystemContext::rng). Its state is part of
/// [`World::state_hash`](crate::World::state_hash).
///
/// ```
/// use laige_world::Prng;
///
/// let mut a = Prng::derive_substream(7, 1);
/// let mut b = Prng::new(7).substream(1);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let roll = a.next_range(1, 7);
/// assert!((1..7).contains(&roll));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Prng {
    seed: u64,
    s0: u64,
    s1: u64,
}

/// The splitmix64 finalizer, without its own increment (the seeding code adds it).
const fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(MIX_A);
    x ^= x >> 27;
    x = x.wrapping_mul(MIX_B);
    x ^ (x >> 31)
}

impl Prng {
    /// A generator seeded with `seed`: `z = seed + K`, `s0 = mix(z)`, `s1 = mix(z + K)`.
    pub const fn new(seed: u64) -> Self {
        let z = seed.wrapping_add(SPLITMIX64_INCREMENT);
        Self {
            seed,
            s0: mix(z),
            s1: mix(z.wrapping_add(SPLITMIX64_INCREMENT)),
        }
    }

    /// The substream `id` of the stream seeded with `seed`: a fresh generator seeded with
    /// `seed + id * K` (wrapping). Id 0 is the master stream itself.
    pub const fn derive_substream(seed: u64, id: u32) -> Self {
        Self::new(seed.wrapping_add((id as u64).wrapping_mul(SPLITMIX64_INCREMENT)))
    }

    /// Substream `id` of this generator's seed (not of its current state).
    pub const fn substream(&self, id: u32) -> Self {
        Self::derive_substream(self.seed, id)
    }

    /// The seed this generator was created with.
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// The generator with these parts (a world state read back from a save file).
    #[cfg(feature = "serde")]
    pub(crate) const fn from_parts(seed: u64, (s0, s1): (u64, u64)) -> Self {
        Self { seed, s0, s1 }
    }

    /// The two state words, for hashing and replays.
    pub const fn state(&self) -> (u64, u64) {
        (self.s0, self.s1)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let a = self.s0;
        let b = self.s1;
        self.s0 = b;
        let t = a ^ (a << 23);
        self.s1 = t ^ b ^ (t >> 18) ^ (b >> 5);
        self.s1.wrapping_add(b)
    }

    /// A uniform value in `min..max` by modulo with rejection, exactly as the reference
    /// (which its docs call "Lemire", but it is not): with `n = max - min` and
    /// `rem = 2^64 mod n`, draws are rejected while `r >= 2^64 - rem`, then `min + r % n`.
    ///
    /// An empty range (`max <= min`) returns `min` without drawing.
    #[inline]
    pub fn next_range(&mut self, min: u32, max: u32) -> u32 {
        if max <= min {
            return min;
        }
        let n = u64::from(max - min);
        let rem = ((u64::MAX % n) + 1) % n;
        let mut r = self.next_u64();
        if rem != 0 {
            let limit = 0u64.wrapping_sub(rem);
            while r >= limit {
                r = self.next_u64();
            }
        }
        // `r % n < n <= u32::MAX`, so the sum stays below `max`.
        min + (r % n) as u32
    }

    /// A float in `[0, 1)` with 24 bits of resolution: `(next_u64 >> 40) * 2^-24`.
    #[inline]
    pub fn next_float01(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * FLOAT01_UNIT
    }
}

/// The `rand` ecosystem (rand 0.10) on the same stream: `Prng` is a `rand_core::Rng`
/// (through `TryRng` with `Infallible`), so `rand::RngExt`'s `random_range`, `random`,
/// distributions, `choose` and `shuffle` draw from it; the `Rng` system parameter gets the
/// same through `rand_core`'s impl for `DerefMut` types. Which `rand` algorithms give the
/// same values across versions and platforms is in docs/api/rng.md.
#[cfg(feature = "rand")]
mod rand_impls {
    use core::convert::Infallible;

    use rand_core::{SeedableRng, TryRng};

    use super::Prng;

    impl TryRng for Prng {
        type Error = Infallible;

        /// The high 32 bits of [`Prng::next_u64`] (xorshift128+'s low bits are its weakest).
        #[inline]
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            Ok((Prng::next_u64(self) >> 32) as u32)
        }

        /// Exactly [`Prng::next_u64`]: the contract's stream.
        #[inline]
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            Ok(Prng::next_u64(self))
        }

        /// Successive [`Prng::next_u64`] words as little-endian bytes; the bytes of the last
        /// word that do not fit are dropped.
        #[inline]
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            rand_core::utils::fill_bytes_via_next_word(dst, || Ok(Prng::next_u64(self)))
        }
    }

    impl SeedableRng for Prng {
        /// The seed's 8 bytes, little-endian.
        type Seed = [u8; 8];

        /// `Prng::new(u64::from_le_bytes(seed))`.
        fn from_seed(seed: [u8; 8]) -> Self {
            Prng::new(u64::from_le_bytes(seed))
        }

        /// Exactly [`Prng::new`]`(state)` (not `rand_core`'s PCG32 seed expansion), so a
        /// `rand` user's `seed_from_u64(7)` is the world's `seed: 7`.
        fn seed_from_u64(state: u64) -> Self {
            Prng::new(state)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_stays_in_bounds_and_empty_range_is_min() {
        let mut rng = Prng::new(1);
        for _ in 0..1000 {
            let v = rng.next_range(10, 13);
            assert!((10..13).contains(&v));
        }
        let before = rng;
        assert_eq!(rng.next_range(5, 5), 5);
        assert_eq!(rng, before, "an empty range draws nothing");
        assert!(rng.next_range(0, u32::MAX) < u32::MAX);
    }

    #[test]
    fn float01_is_in_unit_interval() {
        let mut rng = Prng::new(2);
        for _ in 0..1000 {
            let v = rng.next_float01();
            assert!((0.0..1.0).contains(&v));
        }
    }

    #[test]
    fn substreams_compose_additively() {
        let k = SPLITMIX64_INCREMENT;
        assert_eq!(
            Prng::derive_substream(5, 3),
            Prng::new(5u64.wrapping_add(3u64.wrapping_mul(k)))
        );
        assert_eq!(Prng::derive_substream(5, 0), Prng::new(5));
        assert_eq!(
            Prng::derive_substream(5, 2).substream(1),
            Prng::derive_substream(5, 3)
        );
    }
}
