//! Applying runs of consecutive spawns of one component set as a batch: the same entities,
//! rows, values, placeholders, failures and reports as applying them one by one.

use laige_testkit::{capture, render};
use laige_world::{CommandBuffer, Entity, World, WorldOptions};

use crate::support::{Counted, Counter, Health, Pos, Tag, named, pos, world, world_with};

/// Rows of every table, to compare layouts.
fn rows(world: &World) -> Vec<Vec<Entity>> {
    world
        .archetypes()
        .iter()
        .map(|a| a.entities().to_vec())
        .collect()
}

/// A world with freed slots to reuse.
fn with_history() -> World {
    let mut world = world();
    let e: Vec<Entity> = (0..8)
        .map(|i| world.spawn((pos(i as f32),)).unwrap())
        .collect();
    for &i in &[2, 5, 6] {
        world.despawn(e[i]).unwrap();
    }
    world
}

#[test]
fn a_run_of_spawns_matches_spawning_one_by_one() {
    let mut batched = with_history();
    let mut buffer = CommandBuffer::new();
    let mut cmds = batched.commands(&mut buffer);
    let mut pending = Vec::new();
    for i in 0..20 {
        pending.push(cmds.spawn((pos(i as f32), Health(i))));
    }
    cmds.insert(pending[3], Tag);
    for i in 0..3 {
        pending.push(cmds.spawn(Health(100 + i)));
    }
    for i in 20..25 {
        pending.push(cmds.spawn((pos(i as f32), Health(i))));
    }
    cmds.despawn(pending[7]);
    let stats = batched.apply(&mut buffer).unwrap();
    assert_eq!((stats.applied, stats.skipped), (30, 0));

    let mut single = with_history();
    let mut want = Vec::new();
    for i in 0..20 {
        want.push(single.spawn((pos(i as f32), Health(i))).unwrap());
    }
    single.insert(want[3], Tag).unwrap();
    for i in 0..3 {
        want.push(single.spawn(Health(100 + i)).unwrap());
    }
    for i in 20..25 {
        want.push(single.spawn((pos(i as f32), Health(i))).unwrap());
    }
    single.despawn(want[7]).unwrap();

    let got: Vec<Entity> = buffer.last_spawned().iter().map(|e| e.unwrap()).collect();
    assert_eq!(got, want, "the same handles, by spawn index");
    assert_eq!(rows(&batched), rows(&single));
    assert_eq!(batched.state_hash(), single.state_hash());
    assert!(batched.has::<Tag>(got[3]).unwrap());
    assert_eq!(batched.get::<Health>(got[27]).unwrap(), &Health(24));
    assert_eq!(batched.get::<Pos>(got[24]).unwrap(), &pos(21.0));
}

/// Entities in two tables (`Pos` and `(Pos, Health)`, interleaved), one of them with a
/// `Tag` already, and one despawned: a world for insert runs.
fn two_tables() -> (World, Vec<Entity>) {
    let mut world = world();
    let mut e = Vec::new();
    for i in 0..12 {
        e.push(match i % 2 {
            0 => world.spawn((pos(i as f32),)).unwrap(),
            _ => world.spawn((pos(i as f32), Health(i))).unwrap(),
        });
    }
    world.insert(e[4], Tag).unwrap();
    world.despawn(e[9]).unwrap();
    (world, e)
}

#[test]
fn a_run_of_inserts_matches_inserting_one_by_one() {
    // Across both tables, with a dead target, one that has the component, and duplicates.
    let order = [0, 1, 9, 4, 2, 3, 0, 11, 6, 9, 5, 8];
    let (mut batched, e) = two_tables();
    let mut buffer = CommandBuffer::new();
    let mut cmds = batched.commands(&mut buffer);
    for &i in &order {
        cmds.insert(e[i], Tag);
    }
    let spawned = cmds.spawn((pos(99.0),));
    cmds.insert(spawned, Tag);
    cmds.insert(spawned, Health(99));
    let (stats, got_events) = capture(|| batched.apply(&mut buffer).unwrap());
    assert_eq!((stats.applied, stats.skipped), (13, 2));
    assert_eq!(stats.first_skip.unwrap().index, 2, "the first dead target");

    let (mut single, _) = two_tables();
    let (_, want_events) = capture(|| {
        for &i in &order {
            let _ = single.insert(e[i], Tag);
        }
        let spawned = single.spawn((pos(99.0),)).unwrap();
        single.insert(spawned, Tag).unwrap();
        single.insert(spawned, Health(99)).unwrap();
    });
    // Two stale commands on one entity: the rate limiter lets the first report through.
    assert_eq!(named(&got_events, "ecs/stale_entity_access").len(), 1);
    assert_eq!(render(&got_events), render(&want_events));
    assert_eq!(
        rows(&batched),
        rows(&single),
        "the same rows, in the same order"
    );
    assert_eq!(batched.state_hash(), single.state_hash());
    for &i in &order {
        assert_eq!(batched.has::<Tag>(e[i]).ok(), single.has::<Tag>(e[i]).ok());
    }
}

/// Applies eight spawns of counted values in a world with room for five; `alternate`
/// switches the component set every spawn, so no two consecutive spawns can be batched.
fn limited(alternate: bool) -> (usize, usize, usize, Vec<u32>, Counter) {
    let counter = Counter::default();
    let mut world = world_with(WorldOptions {
        max_entities: Some(5),
        ..WorldOptions::default()
    });
    world.register_component::<Counted>().unwrap();
    let mut buffer = CommandBuffer::new();
    let mut cmds = world.commands(&mut buffer);
    for i in 0..8 {
        if alternate && i % 2 == 1 {
            cmds.spawn((counter.make(i), Tag));
        } else {
            cmds.spawn(counter.make(i));
        }
    }
    let (stats, events) = capture(|| world.apply(&mut buffer).unwrap());
    let mut values = Vec::new();
    world.each::<&Counted>(|c| values.push(c.boxed())).unwrap();
    values.sort_unstable();
    let reports = named(&events, "ecs/entity_limit").len();
    assert_eq!(
        counter.live(),
        5,
        "the values that did not fit were dropped"
    );
    drop(world);
    (stats.applied, stats.skipped, reports, values, counter)
}

#[test]
fn a_run_cut_by_the_entity_limit_fails_and_reports_as_one_by_one() {
    let (applied, skipped, reports, values, counter) = limited(false);
    assert_eq!((applied, skipped), (5, 3));
    assert_eq!(values, [0, 1, 2, 3, 4]);
    assert_eq!(counter.live(), 0, "every value dropped once");
    let (applied1, skipped1, reports1, _, _) = limited(true);
    assert_eq!((applied, skipped, reports), (applied1, skipped1, reports1));
}

#[test]
fn a_recorded_batch_spawns_as_the_world_does() {
    let mut recorded = with_history();
    let mut buffer = CommandBuffer::new();
    let mut cmds = recorded.commands(&mut buffer);
    let before = cmds.spawn(Health(-1));
    let batch = cmds.spawn_batch((0..40).map(|i| (pos(i as f32), Health(i))));
    cmds.insert(batch.get(2).unwrap(), Tag);
    assert_eq!(batch.len(), 40);
    assert_eq!(batch.get(40), None);
    let indices: Vec<u32> = batch.iter().map(|p| p.index()).collect();
    assert_eq!(
        indices,
        (1..41).collect::<Vec<_>>(),
        "indices follow earlier spawns"
    );
    assert_ne!(before, batch.get(0).unwrap());
    let stats = recorded.apply(&mut buffer).unwrap();
    assert_eq!((stats.applied, stats.skipped), (42, 0));

    let mut direct = with_history();
    let first = direct.spawn(Health(-1)).unwrap();
    let want = direct
        .spawn_batch((0..40).map(|i| (pos(i as f32), Health(i))))
        .unwrap()
        .to_vec();
    direct.insert(want[2], Tag).unwrap();
    let got: Vec<Entity> = buffer.last_spawned().iter().map(|e| e.unwrap()).collect();
    assert_eq!(got[0], first);
    assert_eq!(got[1..], want[..]);
    assert_eq!(rows(&recorded), rows(&direct));
    assert_eq!(recorded.state_hash(), direct.state_hash());
}

#[test]
fn a_refused_batch_skips_every_spawn_and_drops_every_bundle() {
    use crate::support::Unregistered;
    let counter = Counter::default();
    let mut world = world();
    world.register_component::<Counted>().unwrap();
    let mut buffer = CommandBuffer::new();
    let mut cmds = world.commands(&mut buffer);
    let (batch, events) =
        capture(|| cmds.spawn_batch((0..4).map(|i| (counter.make(i), Unregistered(0)))));
    assert_eq!(named(&events, "ecs/component_unregistered").len(), 1);
    assert_eq!(batch.len(), 4);
    assert_eq!(counter.live(), 0, "every bundle dropped at once");
    cmds.insert(batch.get(1).unwrap(), Tag);
    let stats = world.apply(&mut buffer).unwrap();
    assert_eq!((stats.applied, stats.skipped), (0, 5));
    assert!(buffer.last_spawned().iter().all(Option::is_none));
    assert_eq!(world.len(), 0);
}

#[test]
fn a_recorded_batch_cut_by_the_limit_or_never_applied_drops_each_value_once() {
    let counter = Counter::default();
    let mut world = world_with(WorldOptions {
        max_entities: Some(5),
        ..WorldOptions::default()
    });
    world.register_component::<Counted>().unwrap();
    let mut buffer = CommandBuffer::new();
    // No size hint: the batch outgrows its first record (8 rows) into a second one.
    let mut made = (0..12).map(|i| counter.make(i));
    let lying = std::iter::from_fn(|| made.next());
    world.commands(&mut buffer).spawn_batch(lying);
    assert_eq!(counter.live(), 12);
    let (stats, events) = capture(|| world.apply(&mut buffer).unwrap());
    assert_eq!((stats.applied, stats.skipped), (5, 7));
    assert!(
        !named(&events, "ecs/entity_limit").is_empty(),
        "the limit is reported"
    );
    assert_eq!(
        counter.live(),
        5,
        "the values that did not fit were dropped"
    );
    let mut values = Vec::new();
    world.each::<&Counted>(|c| values.push(c.boxed())).unwrap();
    assert_eq!(values, [0, 1, 2, 3, 4], "in spawn order");
    assert_eq!(buffer.last_spawned().iter().flatten().count(), 5);

    // Recorded and never applied: the buffer's drop drops them.
    let mut unapplied = CommandBuffer::new();
    world
        .commands(&mut unapplied)
        .spawn_batch((0..20).map(|i| counter.make(100 + i)));
    assert_eq!(counter.live(), 25);
    unapplied.clear();
    assert_eq!(counter.live(), 5);
    world
        .commands(&mut unapplied)
        .spawn_batch((0..3).map(|i| counter.make(200 + i)));
    drop(unapplied);
    drop(world);
    assert_eq!(counter.live(), 0, "every value dropped once");
}
