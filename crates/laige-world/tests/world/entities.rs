//! Entity handles: generations, stale handles, slot reuse, capacity.

use laige_testkit::capture;
use laige_world::{Component, Entity, World, WorldError, WorldOptions};

use crate::support::{Health, Pos, Tag, one, pos, world, world_with};

#[test]
fn handles_start_at_generation_one_and_print_index_v_generation() {
    let mut world = world();
    let a = world.spawn(()).unwrap();
    let b = world.spawn((pos(1.0),)).unwrap();
    assert_eq!((a.index(), a.generation()), (0, 1));
    assert_eq!((b.index(), b.generation()), (1, 1));
    assert_eq!(format!("{b} {b:?}"), "1v1 1v1");
    assert_eq!(
        Entity::from_parts(0, 0),
        None,
        "generation 0 is never a handle"
    );
    assert_eq!(world.len(), 2);
}

#[test]
fn despawn_bumps_the_generation_and_makes_the_old_handle_stale() {
    let mut world = world();
    let a = world.spawn((pos(1.0), Health(3))).unwrap();
    world.despawn(a).unwrap();
    assert!(!world.is_alive(a));
    let b = world.spawn((Tag,)).unwrap();
    assert_eq!(
        (b.index(), b.generation()),
        (0, 2),
        "the slot is reused with the next generation"
    );
    assert!(world.is_alive(b) && !world.is_alive(a));
    assert_eq!(
        world.get::<Pos>(a),
        Err(WorldError::StaleEntity {
            entity: a,
            op: "get"
        })
    );
}

#[test]
fn stale_handles_are_errors_with_events_never_panics() {
    let mut world = world();
    let a = world.spawn((pos(1.0),)).unwrap();
    world.despawn(a).unwrap();
    let (results, events) = capture(|| {
        [
            world.get::<Pos>(a).err(),
            world.has::<Pos>(a).err(),
            world.insert(a, Health(1)).err(),
            world.remove::<Pos>(a).err(),
            world.get_mut::<Pos>(a).err(),
        ]
    });
    for (result, op) in results
        .iter()
        .zip(["get", "has", "insert", "remove", "get_mut"])
    {
        assert_eq!(*result, Some(WorldError::StaleEntity { entity: a, op }));
    }
    // One event; the repeats inside the rate window are counted, not emitted.
    let event = one(&events, "ecs/stale_entity_access");
    assert_eq!(event.level, "warn");
    assert_eq!(event.field("entity_id"), Some("0"));
    assert_eq!(event.field("generation"), Some("1"));
    assert!(
        event.message.contains("entity 0v1 is stale"),
        "{}",
        event.message
    );

    let (result, events) = capture(|| world.despawn(a));
    assert_eq!(
        result,
        Err(WorldError::StaleEntity {
            entity: a,
            op: "despawn"
        })
    );
    let event = one(&events, "ecs/stale_entity_destroy");
    assert_eq!(
        (event.field("entity_id"), event.field("generation")),
        (Some("0"), Some("1"))
    );
}

#[test]
fn error_messages_name_the_entity_and_the_fix() {
    let mut world = world();
    let a = world.spawn(()).unwrap();
    let missing = world.get::<Pos>(a).unwrap_err().to_string();
    assert!(
        missing.contains("0v1") && missing.contains("Pos") && missing.contains("insert it first"),
        "{missing}"
    );
    world.despawn(a).unwrap();
    let stale = world.get::<Pos>(a).unwrap_err().to_string();
    assert!(
        stale.contains("0v1") && stale.contains("is_alive"),
        "{stale}"
    );
}

/// The sequence of handles a fixed history produces.
fn history(world: &mut World) -> Vec<Entity> {
    let mut out = Vec::new();
    let mut live = Vec::new();
    for round in 0..5u32 {
        for i in 0..6 {
            live.push(world.spawn((pos((round * 10 + i) as f32),)).unwrap());
        }
        // Despawn every other live entity, oldest first.
        let mut keep = Vec::new();
        for (i, e) in live.drain(..).enumerate() {
            if i % 2 == 0 {
                world.despawn(e).unwrap();
            } else {
                keep.push(e);
            }
        }
        live = keep;
        out.extend(live.iter().copied());
    }
    out
}

#[test]
fn slot_reuse_is_deterministic_and_lifo() {
    let (mut a, mut b) = (world(), world());
    assert_eq!(history(&mut a), history(&mut b));

    let mut world = world();
    let e: Vec<Entity> = (0..4).map(|_| world.spawn(()).unwrap()).collect();
    world.despawn(e[1]).unwrap();
    world.despawn(e[3]).unwrap();
    // LIFO: the most recently freed slot first, then the other, then a fresh one.
    let reused: Vec<(u32, u32)> = (0..3)
        .map(|_| world.spawn(()).unwrap())
        .map(|e| (e.index(), e.generation()))
        .collect();
    assert_eq!(reused, [(3, 2), (1, 2), (4, 1)]);
}

#[test]
fn capacity_grows_past_65536_entities() {
    let mut world = world_with(WorldOptions {
        capacity: 16,
        ..WorldOptions::default()
    });
    let n = 70_000u32;
    let handles: Vec<Entity> = (0..n)
        .map(|i| world.spawn((Health(i as i32),)).unwrap())
        .collect();
    assert_eq!(world.len(), n as usize);
    assert_eq!(handles.last().unwrap().index(), n - 1);
    for (i, e) in handles.iter().enumerate().step_by(997) {
        assert_eq!(world.get::<Health>(*e).unwrap().0, i as i32);
    }
    let mut sum = 0i64;
    world.each::<&Health>(|h| sum += i64::from(h.0)).unwrap();
    assert_eq!(sum, i64::from(n) * i64::from(n - 1) / 2);
}

#[test]
fn max_entities_is_a_reported_limit() {
    let mut world = world_with(WorldOptions {
        max_entities: Some(2),
        ..WorldOptions::default()
    });
    let a = world.spawn(()).unwrap();
    world.spawn((Tag,)).unwrap();
    let (result, events) = capture(|| world.spawn((pos(1.0),)));
    assert_eq!(result, Err(WorldError::EntityLimit { max_entities: 2 }));
    assert_eq!(
        one(&events, "ecs/entity_limit").field("max_entities"),
        Some("2")
    );
    assert_eq!(world.len(), 2);
    world.despawn(a).unwrap();
    assert!(
        world.spawn((pos(1.0),)).is_ok(),
        "room again after a despawn"
    );
}

#[test]
fn clear_despawns_everything_and_drops_each_value_once() {
    let counter = crate::support::Counter::default();
    let mut world = world();
    world
        .register_component::<crate::support::Counted>()
        .unwrap();
    let handles: Vec<Entity> = (0..10)
        .map(|i| match i % 3 {
            0 => world.spawn((pos(i as f32),)).unwrap(),
            1 => world.spawn((counter.make(i), Health(1))).unwrap(),
            _ => world.spawn(()).unwrap(),
        })
        .collect();
    let tables = world.archetypes().len();
    world.clear();
    assert_eq!(world.len(), 0);
    assert!(world.is_empty());
    assert_eq!(counter.live(), 0, "every value dropped exactly once");
    assert_eq!(counter.dropped(), 3);
    assert_eq!(world.archetypes().len(), tables, "tables survive, empty");
    assert!(world.archetypes().iter().all(|a| a.is_empty()));
    for e in handles {
        assert!(!world.is_alive(e));
        assert!(matches!(
            world.despawn(e),
            Err(WorldError::StaleEntity { .. })
        ));
    }
    // The world works as before: spawns reuse the freed slots, highest index first.
    let again = world.spawn((pos(7.0),)).unwrap();
    assert_eq!((again.index(), again.generation()), (9, 2));
    assert_eq!(world.get::<Pos>(again).unwrap(), &pos(7.0));
}

#[test]
fn cleared_worlds_with_one_history_stay_identical() {
    let run = |world: &mut World| {
        let mut out = history(world);
        world.clear();
        out.extend(history(world));
        world.clear();
        out.extend((0..3).map(|_| world.spawn(()).unwrap()));
        out
    };
    let (mut a, mut b) = (world(), world());
    assert_eq!(run(&mut a), run(&mut b));
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn a_cleared_world_hashes_like_one_that_never_had_entities() {
    let mut used = world();
    for i in 0..20 {
        used.spawn((pos(i as f32), Health(i))).unwrap();
    }
    assert_ne!(used.state_hash(), world().state_hash());
    used.clear();
    assert_eq!(used.state_hash(), world().state_hash());
}

/// Panics in `drop` when `0` is true.
struct Bomb(bool);
impl Component for Bomb {}

impl Drop for Bomb {
    fn drop(&mut self) {
        if self.0 {
            panic!("Bomb dropped");
        }
    }
}

#[test]
fn a_panicking_drop_in_clear_leaves_an_empty_consistent_world() {
    let counter = crate::support::Counter::default();
    let mut world = world();
    world.register_component::<Bomb>().unwrap();
    world
        .register_component::<crate::support::Counted>()
        .unwrap();
    // Tables before and after the bomb's; what the bomb's table leaks owns no heap memory,
    // so the valgrind run stays leak-free.
    let handles = [
        world.spawn((counter.make(0),)).unwrap(),
        world.spawn((Bomb(true), Health(1))).unwrap(),
        world.spawn((Bomb(false), Health(2))).unwrap(),
        world.spawn((counter.make(1), pos(1.0))).unwrap(),
    ];
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.clear()));
    assert!(panicked.is_err());
    // No handle reaches a dropped value, and every table is empty: the bomb's table leaks
    // what it had not dropped yet, the other tables are cleared as usual.
    assert_eq!(world.len(), 0);
    for e in handles {
        assert!(!world.is_alive(e));
        assert!(matches!(
            world.get::<Pos>(e),
            Err(WorldError::StaleEntity { .. })
        ));
    }
    assert!(world.archetypes().iter().all(|a| a.is_empty()));
    // The other tables' values were dropped, each once.
    assert_eq!((counter.dropped(), counter.live()), (2, 0));
    // The world works as before.
    let again = world.spawn((Bomb(false), counter.make(2))).unwrap();
    assert_eq!(
        world.get::<crate::support::Counted>(again).unwrap().value,
        2
    );
    world.clear();
    assert!(world.is_empty());
}
