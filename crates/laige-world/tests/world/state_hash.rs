//! The state hash: a pure function of the live state, blind to layout history.

use laige_world::{Component, Entity, StateHasher, SystemContext, World, WorldOptions};

use crate::support::{Health, Pos, Tag, pos, vel, world, world_with};

fn noop(_: &mut SystemContext<'_>) {}

fn scripted(seed: u64) -> (World, Vec<Entity>) {
    let mut world = world_with(WorldOptions {
        seed,
        ..WorldOptions::default()
    });
    world
        .system("A", noop)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    world
        .system("B", noop)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    let es: Vec<Entity> = (0..6)
        .map(|i| world.spawn((pos(i as f32), Health(i))).unwrap())
        .collect();
    world.insert(es[2], vel(1.0)).unwrap();
    world.despawn(es[4]).unwrap();
    (world, es)
}

#[test]
fn same_operations_same_hash() {
    let (a, _) = scripted(7);
    let (b, _) = scripted(7);
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(a.state_hash(), a.state_hash(), "pure");
    println!("world-state-hash seed=7 fnv1a=0x{:016x}", a.state_hash());
}

#[test]
fn values_presence_and_seed_change_the_hash() {
    let (base, _) = scripted(7);
    let (mut hashed, es) = scripted(7);
    hashed.get_mut::<Pos>(es[0]).unwrap().x = 0.5;
    assert_ne!(
        hashed.state_hash(),
        base.state_hash(),
        "a hashed value changed"
    );

    let (mut unhashed, es) = scripted(7);
    unhashed.get_mut::<crate::support::Vel>(es[2]).unwrap().x = 9.0;
    assert_eq!(
        unhashed.state_hash(),
        base.state_hash(),
        "Vel is registered without hashing: only presence counts"
    );
    unhashed.insert(es[0], Tag).unwrap();
    assert_ne!(unhashed.state_hash(), base.state_hash(), "presence counts");

    let (other_seed, _) = scripted(8);
    assert_ne!(other_seed.state_hash(), base.state_hash());
    assert_eq!(
        other_seed.component_state_hash(),
        base.component_state_hash(),
        "only the PRNG part differs"
    );

    let (mut drawn, _) = scripted(7);
    let id = drawn.registry().find("B").unwrap();
    drawn.context(id).unwrap().rng().next_u64();
    assert_ne!(
        drawn.state_hash(),
        base.state_hash(),
        "PRNG state is replay state"
    );
}

#[test]
fn layout_history_does_not_matter() {
    let mut moved = world();
    let mut straight = world();
    let a: Vec<Entity> = (0..4)
        .map(|i| moved.spawn((pos(i as f32), Health(i))).unwrap())
        .collect();
    let b: Vec<Entity> = (0..4)
        .map(|i| straight.spawn((pos(i as f32), Health(i))).unwrap())
        .collect();
    assert_eq!(a, b);
    // Move entity 0 out and back: swap-remove reorders the rows.
    moved.insert(a[0], Tag).unwrap();
    moved.remove::<Tag>(a[0]).unwrap();
    let order = |w: &mut World| {
        let mut v = Vec::new();
        w.each::<Entity>(|e| v.push(e.index())).unwrap();
        v
    };
    assert_eq!(order(&mut moved), [3, 1, 2, 0]);
    assert_eq!(order(&mut straight), [0, 1, 2, 3]);
    assert_eq!(moved.state_hash(), straight.state_hash());
}

/// The expected hash, fed by hand from the documented rules: big-endian bytes at the
/// documented widths.
struct Expect(StateHasher);

impl Expect {
    fn new() -> Self {
        Self(StateHasher::new())
    }
    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.write_bytes(bytes);
        self
    }
    fn u16(&mut self, value: u16) -> &mut Self {
        self.bytes(&value.to_be_bytes())
    }
    fn u32(&mut self, value: u32) -> &mut Self {
        self.bytes(&value.to_be_bytes())
    }
    fn u64(&mut self, value: u64) -> &mut Self {
        self.bytes(&value.to_be_bytes())
    }
    fn f32(&mut self, value: f32) -> &mut Self {
        self.u32(value.to_bits())
    }
    /// One component set of the list: its count, then its ids (u16 each).
    fn set(&mut self, ids: &[u16]) -> &mut Self {
        self.u16(ids.len() as u16);
        for &id in ids {
            self.u16(id);
        }
        self
    }
    /// A run opener with one-byte symbols: the opener `sets`, the index, the generation.
    fn opener(&mut self, sets: u8, index: u32, generation: u32) -> &mut Self {
        self.bytes(&[sets]).u32(index).u32(generation)
    }
    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

#[test]
fn the_documented_byte_order() {
    let mut world = world_with(WorldOptions::default());
    // Ids: Pos 1 (hashed), Vel 2, Health 3 (hashed), Tag 4, Wide 5.
    let e0 = world
        .spawn((pos(1.5), crate::support::Vel::default()))
        .unwrap();
    let e1 = world.spawn((Health(-3),)).unwrap();
    let e2 = world.spawn(()).unwrap();
    let e3 = world.spawn((Tag, Health(0x0102_0304))).unwrap();
    world.despawn(e1).unwrap(); // leaves the table of {Health} empty: it does not count
    let e1 = world.spawn(()).unwrap(); // slot 1 again, generation 2
    assert_eq!(
        [e0, e1, e2, e3].map(|e| (e.index(), e.generation())),
        [(0, 1), (1, 2), (2, 1), (3, 1)]
    );
    world
        .system("A", noop)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();

    let mut want = Expect::new();
    want.u32(4); // live entities
    // Three component sets, fewer components first, then by ids: ranks 0, 1, 2. Three
    // fits a byte, so symbols are one byte and the opener is 3.
    want.u32(3).set(&[]).set(&[1, 2]).set(&[3, 4]);
    want.opener(3, 0, 1); // entity 0 opens the first run
    want.bytes(&[1]); // rank 1: {Pos, Vel}
    want.f32(1.5).f32(-1.5); // Pos.x, Pos.y; Vel is not hashed
    want.opener(3, 1, 2); // entity 1 has another generation: a new run
    want.bytes(&[0]); // rank 0: no components
    want.opener(3, 2, 1); // entity 2 has another generation again: a new run
    want.bytes(&[0]); // rank 0
    want.bytes(&[2]); // entity 3 continues the run; rank 2: {Health, Tag}
    want.bytes(&[1, 2, 3, 4]); // Health's i32, big-endian; Tag is not hashed
    let components = want.finish();
    // One system, id 1, and its substream of the default seed 0.
    let rng = laige_world::Prng::derive_substream(0, 1);
    let (s0, s1) = rng.state();
    want.u64(1).u64(1).u64(1).u64(rng.seed()).u64(s0).u64(s1);
    assert_eq!(world.component_state_hash(), components);
    assert_eq!(world.state_hash(), want.finish());
}

#[test]
fn generations_and_gaps_count() {
    let build = |churn: bool| {
        let mut world = world();
        let a = world.spawn((pos(1.0),)).unwrap();
        world.spawn((pos(2.0),)).unwrap();
        if churn {
            world.despawn(a).unwrap();
            world.spawn((pos(1.0),)).unwrap();
        }
        world
    };
    assert_ne!(
        build(true).component_state_hash(),
        build(false).component_state_hash(),
        "same values, another generation"
    );

    let mut gap = world();
    let es: Vec<Entity> = (0..4)
        .map(|i| gap.spawn((pos(i as f32),)).unwrap())
        .collect();
    gap.despawn(es[0]).unwrap();
    gap.despawn(es[2]).unwrap();
    let mut want = Expect::new();
    want.u32(2).u32(1).set(&[1]); // two entities, one set: {Pos}
    want.opener(1, 1, 1).bytes(&[0]).f32(1.0).f32(-1.0);
    want.opener(1, 3, 1).bytes(&[0]).f32(3.0).f32(-3.0); // after the gap: a new run
    assert_eq!(gap.component_state_hash(), want.finish());
}

#[test]
fn archetype_ids_and_empty_tables_do_not_matter() {
    let mut a = world();
    a.spawn((pos(1.0),)).unwrap();
    a.spawn((Health(2),)).unwrap();
    // The other way round: {Pos, Tag} first, {Health} next, {Pos} last, and one table left
    // empty.
    let mut b = world();
    let e = b.spawn((pos(1.0), Tag)).unwrap();
    b.spawn((Health(2),)).unwrap();
    b.remove::<Tag>(e).unwrap();
    assert_ne!(a.storage().archetype_of(e), b.storage().archetype_of(e));
    assert_eq!(a.state_hash(), b.state_hash());
}

macro_rules! bits {
    ($($t:ident = $bit:literal),*) => {
        $( #[derive(Default)] struct $t; impl Component for $t {} )*
        /// A world with the eight `Bit` types (ids 1 to 8) and one entity per entry of
        /// `masks`, having `Bit<j>` for each set bit `j` of its mask.
        fn bits_world(masks: impl IntoIterator<Item = u8>) -> World {
            let mut world = World::new(WorldOptions::default());
            $( world.register_component::<$t>().unwrap(); )*
            for mask in masks {
                let e = world.spawn(()).unwrap();
                $( if mask & (1 << $bit) != 0 { world.insert(e, $t).unwrap(); } )*
            }
            world
        }
    };
}
bits!(
    Bit0 = 0,
    Bit1 = 1,
    Bit2 = 2,
    Bit3 = 3,
    Bit4 = 4,
    Bit5 = 5,
    Bit6 = 6,
    Bit7 = 7
);

/// The ids of mask `m`'s set (`Bit<j>` has id `j + 1`), ascending.
fn ids_of(mask: u8) -> Vec<u16> {
    (0..8)
        .filter(|j| mask & (1 << j) != 0)
        .map(|j| j + 1)
        .collect()
}

#[test]
fn symbols_widen_past_255_sets() {
    for (masks, width) in [
        ((1..=255u8).collect::<Vec<_>>(), 1),
        ((0..=255).collect(), 2),
    ] {
        let world = bits_world(masks.iter().copied());
        let mut sets: Vec<Vec<u16>> = masks.iter().map(|&m| ids_of(m)).collect();
        sets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        let symbol = |want: &mut Expect, value: usize| {
            match width {
                1 => want.bytes(&[value as u8]),
                _ => want.u16(value as u16),
            };
        };
        let mut want = Expect::new();
        want.u32(masks.len() as u32).u32(sets.len() as u32);
        for set in &sets {
            want.set(set);
        }
        symbol(&mut want, sets.len()); // all entities form one run
        want.u32(0).u32(1);
        for &mask in &masks {
            let rank = sets.iter().position(|s| *s == ids_of(mask)).unwrap();
            symbol(&mut want, rank);
        }
        assert_eq!(
            world.component_state_hash(),
            want.finish(),
            "{} sets",
            sets.len()
        );
    }
}

fn hasher(ctx: &mut SystemContext<'_>) {
    let _ = ctx.component_state_hash();
}

#[test]
fn a_system_that_reads_every_hashed_component_can_hash() {
    let mut world = world();
    world.spawn((pos(1.0), Health(2), vel(3.0))).unwrap();
    let ok = world
        .system("Hash", hasher)
        .budget_ms(2.0)
        .reads::<Pos>()
        .reads::<Health>()
        .register()
        .unwrap()
        .id();
    let partial = world
        .system("Partial", hasher)
        .budget_ms(2.0)
        .writes::<Pos>()
        .register()
        .unwrap()
        .id();
    let expected = world.component_state_hash();
    assert_eq!(
        world.context(ok).unwrap().component_state_hash(),
        Ok(expected)
    );
    let err = world
        .context(partial)
        .unwrap()
        .component_state_hash()
        .unwrap_err();
    assert!(
        matches!(err, laige_world::QueryError::Undeclared { system: "Partial", component, .. } if component.ends_with("Health")),
        "{err:?}"
    );
}
