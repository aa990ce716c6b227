//! Batch spawns: `World::spawn_batch` gives the same entities, rows, values and state hash
//! as spawning one by one; it reserves once; its errors spawn nothing or keep what fit.

use laige_testkit::capture;
use laige_world::{Entity, World, WorldError, WorldOptions};

use crate::support::{
    Counted, Counter, Health, Pos, Tag, Unregistered, Wide, one, pos, world, world_with,
};

/// A world with some history: despawned slots to reuse and an occupied table.
fn with_history() -> World {
    let mut world = world();
    let e: Vec<Entity> = (0..6)
        .map(|i| world.spawn((pos(i as f32), Health(i))).unwrap())
        .collect();
    world.despawn(e[1]).unwrap();
    world.despawn(e[4]).unwrap();
    world
}

#[test]
fn a_batch_matches_spawning_one_by_one() {
    let mut batched = with_history();
    let mut single = with_history();
    let bundles = |i: i32| (pos(i as f32), Health(100 + i));
    let got = batched.spawn_batch((0..50).map(bundles)).unwrap().to_vec();
    let want: Vec<Entity> = (0..50).map(|i| single.spawn(bundles(i)).unwrap()).collect();
    assert_eq!(
        got, want,
        "same handles, in spawn order, reusing freed slots first"
    );
    assert_eq!(batched.state_hash(), single.state_hash());
    assert_eq!(batched.len(), 54);
    for (i, &e) in got.iter().enumerate() {
        assert_eq!(batched.get::<Health>(e).unwrap(), &Health(100 + i as i32));
        assert_eq!(batched.get::<Pos>(e).unwrap(), &pos(i as f32));
    }
    let rows = |w: &World| -> Vec<Vec<Entity>> {
        w.archetypes()
            .iter()
            .map(|a| a.entities().to_vec())
            .collect()
    };
    assert_eq!(
        rows(&batched),
        rows(&single),
        "same rows in the same tables"
    );
}

#[test]
fn a_batch_reserves_its_rows_once() {
    let mut world = world();
    world
        .spawn_batch((0..1000).map(|i| (pos(i as f32), Tag)))
        .unwrap();
    let table = world
        .archetypes()
        .iter()
        .find(|a| a.len() == 1000)
        .expect("one table holds the batch");
    assert_eq!(table.capacity(), 1000, "the exact size hint, no doubling");
}

#[test]
fn a_batch_longer_than_its_hint_grows_and_keeps_every_value() {
    let mut world = world();
    // `filter` hints a lower bound of 0, so every row past the first is found room for.
    let spawned = world
        .spawn_batch((0..300).filter(|i| i % 3 != 0).map(Health))
        .unwrap()
        .to_vec();
    assert_eq!(spawned.len(), 200);
    let mut sum = 0;
    world.each::<&Health>(|h| sum += h.0).unwrap();
    assert_eq!(sum, (0..300).filter(|i| i % 3 != 0).sum::<i32>());
}

#[test]
fn over_aligned_and_zero_sized_components_batch() {
    let mut world = world();
    let spawned = world
        .spawn_batch((0..100u64).map(|i| (Wide(i), Tag)))
        .unwrap()
        .to_vec();
    for (i, &e) in spawned.iter().enumerate() {
        let wide = world.get::<Wide>(e).unwrap();
        assert_eq!(wide.0, i as u64);
        assert_eq!(std::ptr::from_ref(wide) as usize % 64, 0);
        assert!(world.has::<Tag>(e).unwrap());
    }
    assert!(world.spawn_batch((0..10).map(|_| ())).unwrap().len() == 10);
    assert_eq!(world.len(), 110);
}

#[test]
fn a_bad_bundle_spawns_nothing_and_drops_nothing_unread() {
    let counter = Counter::default();
    let mut world = world();
    world.register_component::<Counted>().unwrap();
    let (result, events) = capture(|| {
        world
            .spawn_batch((0..5).map(|i| (counter.make(i), Unregistered(0))))
            .map(<[Entity]>::len)
    });
    assert!(matches!(
        result,
        Err(WorldError::UnregisteredComponent { .. })
    ));
    one(&events, "ecs/component_unregistered");
    assert_eq!(counter.created(), 0, "the iterator is dropped unread");
    assert_eq!(world.len(), 0);
}

#[test]
fn the_entity_limit_refuses_a_batch_whose_hint_passes_it() {
    let mut world = world_with(WorldOptions {
        max_entities: Some(10),
        ..WorldOptions::default()
    });
    world.spawn(()).unwrap();
    let (result, events) = capture(|| world.spawn_batch((0..10).map(Health)).map(<[Entity]>::len));
    assert_eq!(result, Err(WorldError::EntityLimit { max_entities: 10 }));
    one(&events, "ecs/entity_limit");
    assert_eq!(world.len(), 1, "nothing of the batch was spawned");
    assert_eq!(world.spawn_batch((0..9).map(Health)).unwrap().len(), 9);
}

#[test]
fn the_entity_limit_mid_batch_keeps_what_fit_and_drops_the_rest() {
    let counter = Counter::default();
    let mut world = world_with(WorldOptions {
        max_entities: Some(4),
        ..WorldOptions::default()
    });
    world.register_component::<Counted>().unwrap();
    let result = world
        .spawn_batch((0..10).filter(|_| true).map(|i| counter.make(i)))
        .map(<[Entity]>::len);
    assert_eq!(result, Err(WorldError::EntityLimit { max_entities: 4 }));
    assert_eq!(world.len(), 4);
    assert_eq!(
        counter.created(),
        5,
        "the bundle that did not fit was made, then dropped"
    );
    assert_eq!(counter.live(), 4, "only the spawned values live");
    let mut seen = Vec::new();
    world.each::<&Counted>(|c| seen.push(c.boxed())).unwrap();
    assert_eq!(seen, [0, 1, 2, 3]);
    drop(world);
    assert_eq!(counter.live(), 0, "every value dropped once");
}

#[test]
fn reserve_makes_room_for_a_bundle_type_up_front() {
    let mut world = world();
    world.reserve::<(Pos, Health)>(500).unwrap();
    let table = world
        .archetypes()
        .iter()
        .find(|a| a.signature().len() == 2)
        .expect("reserve creates the bundle's table");
    assert!(table.is_empty());
    assert_eq!(table.capacity(), 500);
    for i in 0..500 {
        world.spawn((pos(i as f32), Health(i))).unwrap();
    }
    let table = world.archetypes().iter().find(|a| a.len() == 500).unwrap();
    assert_eq!(table.capacity(), 500, "the spawns fit in the reservation");
    assert!(matches!(
        world.reserve::<(Pos, Unregistered)>(1),
        Err(WorldError::UnregisteredComponent { .. })
    ));
}
