//! The `rand` ecosystem (rand 0.10) on the world's PRNG streams (feature `rand`).
//!
//! Known answers come from definitions, not from our own output: the raw stream is the
//! contract's (§6.3 golden vector), and every `rand` draw checked here is recomputed from
//! that stream with the algorithm rand documents for it (docs/api/rng.md lists which).

#![cfg(feature = "rand")]

use laige_world::{Prng, Res, ResMut, Rng, StateHasher, World, WorldOptions};
use rand::distr::{Distribution, StandardUniform, Uniform};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};

/// `rand_core::Rng::next_u64`, by its trait path (`Prng` has an inherent one too).
fn trait_u64(rng: &mut impl rand::Rng) -> u64 {
    rng.next_u64()
}

#[test]
fn the_rand_stream_is_the_contract_stream() {
    // Contract §6.3: FNV-1a (big-endian words) of the first 4096 outputs of seed
    // 0x1234567890ABCDEF.
    let mut rng = Prng::new(0x1234_5678_90AB_CDEF);
    let mut h = StateHasher::new();
    for _ in 0..4096 {
        h.write_u64(trait_u64(&mut rng));
    }
    assert_eq!(h.finish(), 0xB64E_7617_3859_B6D8);
}

#[test]
fn words_and_bytes_are_cut_from_next_u64() {
    let mut raw = Prng::new(11);
    let mut rng = Prng::new(11);
    let r = raw.next_u64();
    assert_eq!(
        rand::Rng::next_u32(&mut rng),
        (r >> 32) as u32,
        "the high half"
    );
    let words = [raw.next_u64(), raw.next_u64()];
    let mut bytes = [0u8; 11];
    rand::Rng::fill_bytes(&mut rng, &mut bytes);
    assert_eq!(bytes[..8], words[0].to_le_bytes());
    assert_eq!(
        bytes[8..],
        words[1].to_le_bytes()[..3],
        "the rest of a word is dropped"
    );
    assert_eq!(rng, raw);
}

#[test]
fn seeding_through_rand_is_the_worlds_seeding() {
    assert_eq!(Prng::seed_from_u64(0x1F05_5EED), Prng::new(0x1F05_5EED));
    assert_eq!(Prng::from_seed(7u64.to_le_bytes()), Prng::new(7));
}

/// rand 0.10's `random_range` for `u32` (`UniformInt::sample_single_inclusive`, biased
/// Canon's method, without the `unbiased` feature): the high word of `x * n` for
/// `x = next_u32`; when the low word exceeds `2^32 - n`, one more draw's high word is added
/// to it, and a carry increments the result.
fn canon_u32(raw: &mut Prng, n: u32) -> u32 {
    let next_u32 = |raw: &mut Prng| (raw.next_u64() >> 32) as u32;
    let product = u64::from(next_u32(raw)) * u64::from(n);
    let (mut result, low) = ((product >> 32) as u32, product as u32);
    if low > n.wrapping_neg() {
        let high = ((u64::from(next_u32(raw)) * u64::from(n)) >> 32) as u32;
        result += u32::from(low.checked_add(high).is_none());
    }
    result
}

/// The same for `u64` over `next_u64` and 128-bit products.
fn canon_u64(raw: &mut Prng, n: u64) -> u64 {
    let product = u128::from(raw.next_u64()) * u128::from(n);
    let (mut result, low) = ((product >> 64) as u64, product as u64);
    if low > n.wrapping_neg() {
        let high = ((u128::from(raw.next_u64()) * u128::from(n)) >> 64) as u64;
        result += u64::from(low.checked_add(high).is_none());
    }
    result
}

#[test]
fn integer_ranges_follow_rands_definition_over_the_stream() {
    let mut raw = Prng::new(0x1F05_5EED);
    let mut rng = Prng::new(0x1F05_5EED);
    for _ in 0..1000 {
        assert_eq!(rng.random_range(0..6u32), canon_u32(&mut raw, 6));
        assert_eq!(rng.random_range(10..=20u32), 10 + canon_u32(&mut raw, 11));
        // A signed range samples its width as the unsigned type, then wraps from `low`.
        let signed = rng.random_range(-5..5i32);
        assert_eq!(signed, (-5i32).wrapping_add(canon_u32(&mut raw, 10) as i32));
        assert_eq!(
            rng.random_range(0..1_000_000_007u64),
            canon_u64(&mut raw, 1_000_000_007)
        );
        // A range spanning the whole type is one plain draw.
        assert_eq!(rng.random_range(0..=u64::MAX), raw.next_u64());
    }
    assert_eq!(rng, raw, "and the same number of draws");
}

#[test]
fn standard_floats_follow_rands_definition_over_the_stream() {
    let mut raw = Prng::new(3);
    let mut rng = Prng::new(3);
    for _ in 0..1000 {
        // The top 53 (f64) or 24 (f32) bits, scaled into [0, 1).
        let f64_value: f64 = rng.random();
        assert_eq!(
            f64_value,
            (raw.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
        );
        let f32_value: f32 = StandardUniform.sample(&mut rng);
        let word = (raw.next_u64() >> 32) as u32;
        assert_eq!(f32_value, (word >> 8) as f32 * (1.0 / (1u32 << 24) as f32));
        // A float range: a float in [1, 2) from the word's top 23 bits, minus 1, scaled and
        // shifted (`UniformFloat::sample_single_inclusive`).
        let speed = rng.random_range(-2.5f32..2.5);
        let word = (raw.next_u64() >> 32) as u32;
        let one_to_two = f32::from_bits((word >> 9) | (127 << 23));
        assert_eq!(speed, (one_to_two - 1.0) * 5.0 + -2.5);
        // `random_bool(p)` compares one u64 against `p * 2^64`.
        let heads = rng.random_bool(0.25);
        assert_eq!(heads, raw.next_u64() < (0.25 * 2f64.powi(64)) as u64);
    }
    assert_eq!(rng, raw);
}

#[test]
fn same_seed_same_shuffle_choice_and_float_range() {
    let draw = |seed| {
        let mut rng = Prng::new(seed);
        let mut deck: Vec<u32> = (0..52).collect();
        deck.shuffle(&mut rng);
        let picked = *[10, 20, 30, 40].choose(&mut rng).unwrap();
        let speed = rng.random_range(-2.5f32..2.5);
        let uniform = Uniform::new(0.0f64, 10.0).unwrap().sample(&mut rng);
        (deck, picked, speed, uniform, rng)
    };
    let (deck, picked, speed, uniform, after) = draw(42);
    assert_eq!(draw(42), (deck.clone(), picked, speed, uniform, after));
    let mut sorted = deck.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..52).collect::<Vec<_>>(), "a permutation");
    assert_ne!(deck, (0..52).collect::<Vec<_>>());
    assert!((-2.5..2.5).contains(&speed) && (0.0..10.0).contains(&uniform));
    assert_ne!(draw(43).0, deck, "another seed shuffles otherwise");
}

/// What a system drew, for the test to read back.
#[derive(Default)]
struct Drawn(Vec<u32>);

#[test]
fn a_systems_rng_parameter_works_with_rand_on_its_substream() {
    let mut world = World::new(WorldOptions {
        seed: 7,
        ..WorldOptions::default()
    });
    world.insert_resource(Drawn::default()).unwrap();
    let roll = world
        .system("Roll", |mut rng: Rng<'_>, mut drawn: ResMut<'_, Drawn>| {
            drawn.0.push(rng.random_range(1..=6));
            let mut order = [0u32, 1, 2, 3];
            order.shuffle(&mut rng);
            drawn.0.extend(order);
        })
        .register()
        .unwrap();
    world
        .system("Read", |_: Res<'_, Drawn>| {})
        .after(roll)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();

    // The system's stream is `derive_substream(seed, id)`; the same draws on a copy of it.
    let mut expected = Prng::derive_substream(7, roll.id().get());
    let mut want = vec![expected.random_range(1..=6u32)];
    let mut order = [0u32, 1, 2, 3];
    order.shuffle(&mut expected);
    want.extend(order);
    assert_eq!(world.resource::<Drawn>().unwrap().0, want);
    assert_eq!(world.system_rng(roll.id()), Some(&expected));
}
