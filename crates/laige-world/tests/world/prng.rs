//! PRNG golden vectors (contract §6.3) and the per-system substream wiring.

use laige_world::{Prng, StateHasher, SystemContext, World, WorldOptions};

fn fnv_of_draws(mut rng: Prng, draws: usize) -> u64 {
    let mut h = StateHasher::new();
    for _ in 0..draws {
        h.write_u64(rng.next_u64());
    }
    h.finish()
}

#[test]
fn golden_vector_4096_draws() {
    let hash = fnv_of_draws(Prng::new(0x1234_5678_90AB_CDEF), 4096);
    println!("prng-golden seed=0x1234567890abcdef draws=4096 fnv1a=0x{hash:016x}");
    assert_eq!(hash, 0xB64E_7617_3859_B6D8);
}

#[test]
fn test_seed_substream_vectors() {
    for (label, seed, stream, expected) in [
        ("default", 0x1F05_5EEDu64, 1u32, 0x7ea4_0495_4565_6830u64),
        ("override", 0x2468_acce_0123_4567, 2, 0x535d_2ca7_41b6_1cbf),
    ] {
        let hash = fnv_of_draws(Prng::derive_substream(seed, stream), 65536);
        println!(
            "test-seed-check {label} seed=0x{seed:016x} stream={stream} draws=65536 fnv1a=0x{hash:016x}"
        );
        assert_eq!(hash, expected, "{label}");
    }
}

#[test]
fn range_is_modulo_with_rejection() {
    // n = 3: 2^64 mod 3 = 1, so exactly u64::MAX is rejected; any other draw maps by modulo.
    let mut a = Prng::new(5);
    let mut b = Prng::new(5);
    for _ in 0..1000 {
        let r = b.next_u64();
        assert_ne!(r, u64::MAX);
        assert_eq!(a.next_range(10, 13), 10 + (r % 3) as u32);
    }
    // A power of two never rejects.
    let mut a = Prng::new(6);
    let mut b = Prng::new(6);
    assert_eq!(a.next_range(0, 1 << 16), (b.next_u64() % (1 << 16)) as u32);
    // Float: the top 24 bits scaled by 2^-24.
    let mut a = Prng::new(7);
    let mut b = Prng::new(7);
    assert_eq!(a.next_float01(), (b.next_u64() >> 40) as f32 / 16_777_216.0);
}

fn roll(ctx: &mut SystemContext<'_>) {
    let rng = ctx.rng();
    for _ in 0..64 {
        rng.next_range(0, 5);
    }
}

fn silent(_: &mut SystemContext<'_>) {}

fn world_with_seed(seed: u64) -> World {
    let mut world = World::new(WorldOptions {
        seed,
        ..WorldOptions::default()
    });
    world
        .system("Roll", roll)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    world
        .system("Silent", silent)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    world
}

#[test]
fn system_one_with_seed_seven_draws_its_substream() {
    let mut world = world_with_seed(7);
    let id = world.registry().find("Roll").unwrap();
    let mut expected = Prng::derive_substream(7, 1);
    let mut draws = Vec::new();
    {
        let mut ctx = world.context(id).unwrap();
        let rng = ctx.rng();
        for _ in 0..64 {
            draws.push(rng.next_range(0, 5));
        }
    }
    let want: Vec<u32> = (0..64).map(|_| expected.next_range(0, 5)).collect();
    assert_eq!(draws, want);
    assert_eq!(
        world.system_rng(id),
        Some(&expected),
        "the stream advanced in place"
    );
}

#[test]
fn systems_get_distinct_substreams_of_the_seed() {
    let mut world = world_with_seed(99);
    let ids: Vec<_> = world.registry().iter().map(|r| r.id()).collect();
    assert_eq!(
        world.system_rng(ids[0]),
        Some(&Prng::derive_substream(99, 1))
    );
    assert_eq!(
        world.system_rng(ids[1]),
        Some(&Prng::derive_substream(99, 2))
    );
    let mut one = *world.system_rng(ids[0]).unwrap();
    let mut two = *world.system_rng(ids[1]).unwrap();
    assert_ne!(one.next_u64(), two.next_u64());

    let mut a = world_with_seed(42);
    let mut b = world_with_seed(43);
    let id = a.registry().find("Roll").unwrap();
    let x = a.context(id).unwrap().rng().next_u64();
    let y = b.context(id).unwrap().rng().next_u64();
    assert_ne!(x, y, "seeds 42 and 43 diverge");
    let _ = world.context(ids[0]).unwrap();
}

/// Every system has a stream: a world created without a seed uses the contract's
/// `kDefaultSimulationSeed`, 0.
#[test]
fn a_world_without_a_seed_uses_the_default_seed() {
    let mut world = World::new(WorldOptions::default());
    let id = world.system("Silent", silent).register().unwrap().id();
    assert_eq!(WorldOptions::DEFAULT_SEED, 0);
    let first = world.context(id).unwrap().rng().next_u64();
    let mut expected = Prng::derive_substream(0, 1);
    assert_eq!(first, expected.next_u64());
    assert_eq!(
        world.system_rng(id),
        Some(&expected),
        "the stream advanced in place"
    );
}
