//! The state hash: a pure function of the live state, blind to layout history.

use laige_world::{Entity, StateHasher, SystemContext, World, WorldOptions};

use crate::support::{Health, Pos, Tag, pos, vel, world, world_with};

fn noop(_: &mut SystemContext<'_>) {}

fn scripted(seed: u64) -> (World, Vec<Entity>) {
    let mut world = world_with(WorldOptions {
        seed,
        ..WorldOptions::default()
    });
    world.system("A", noop).budget_ms(1.0).register().unwrap();
    world.system("B", noop).budget_ms(1.0).register().unwrap();
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
    drawn.context(id).unwrap().rng().unwrap().next_u64();
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
        w.each::<Entity>(|e, _| v.push(e.index())).unwrap();
        v
    };
    assert_eq!(order(&mut moved), [3, 1, 2, 0]);
    assert_eq!(order(&mut straight), [0, 1, 2, 3]);
    assert_eq!(moved.state_hash(), straight.state_hash());
}

#[test]
fn the_documented_word_order() {
    let mut world = world_with(WorldOptions {
        deterministic: false,
        ..WorldOptions::default()
    });
    let e = world
        .spawn((pos(1.5), crate::support::Vel::default()))
        .unwrap();
    world.system("A", noop).budget_ms(1.0).register().unwrap();
    let mut h = StateHasher::new();
    for word in [
        1,                              // live entities
        u64::from(e.index()),           // index
        u64::from(e.generation()),      // generation
        2,                              // component count
        1,                              // Pos id
        u64::from(1.5f32.to_bits()),    // Pos.x
        u64::from((-1.5f32).to_bits()), // Pos.y
        2,                              // Vel id (not hashed)
        1,                              // systems
        1,                              // system id
        0,                              // no substream
    ] {
        h.write_u64(word);
    }
    assert_eq!(world.state_hash(), h.finish());
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
        .unwrap();
    let partial = world
        .system("Partial", hasher)
        .budget_ms(2.0)
        .writes::<Pos>()
        .register()
        .unwrap();
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
