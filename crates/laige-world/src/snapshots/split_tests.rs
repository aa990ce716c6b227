//! The split snapshot refresh (ranges of entity slots run by a pool) against the refresh on
//! one thread: the same copies whoever runs the ranges, in whatever order, even when the
//! runner skips or repeats ranges; and a panicking clone that leaves no half-made copy.

use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_executor::ExecutorOptions;
use laige_storage::snapshot::SLOTS_PER_RANGE;

use crate::{Component, ComponentOptions, Entity, World, WorldOptions};

#[derive(Clone, Debug, PartialEq)]
struct Name(String);
impl Component for Name {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Flag;
impl Component for Flag {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Other(u8);
impl Component for Other {}

/// Panics when cloned with the value 13.
#[derive(Debug, PartialEq)]
struct Fragile(u32);
impl Component for Fragile {}
impl Clone for Fragile {
    fn clone(&self) -> Self {
        assert_ne!(self.0, 13, "Fragile(13) refuses to be cloned");
        Fragile(self.0)
    }
}

/// A world of a few ranges' worth of slots: three versioned components (one that owns heap
/// memory, one zero-sized) over several archetypes, with holes where entities were despawned
/// and a last range only partly used.
fn world() -> World {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Name>::new().versioned())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Flag>::new().versioned())
        .unwrap();
    world.register_component::<Other>().unwrap();
    let count = 3 * SLOTS_PER_RANGE + SLOTS_PER_RANGE / 3;
    let mut spawned = Vec::with_capacity(count);
    for i in 0..count {
        let e = match i % 5 {
            0 => world.spawn((Name(format!("n{i}")), Pos(i as f32))),
            1 => world.spawn((Pos(i as f32), Flag)),
            2 => world.spawn((Other(1),)),
            3 => world.spawn((Name(format!("m{i}")), Flag, Other(2))),
            _ => world.spawn((Pos(-(i as f32)),)),
        };
        spawned.push(e.unwrap());
    }
    for (i, e) in spawned.iter().enumerate() {
        if i % 7 == 3 || (SLOTS_PER_RANGE..SLOTS_PER_RANGE + SLOTS_PER_RANGE / 7).contains(&i) {
            world.despawn(*e).unwrap();
        }
    }
    world
}

type Copies = (Vec<(Entity, Name)>, Vec<(Entity, Pos)>, Vec<Entity>);

fn copies(world: &World) -> Copies {
    let names = world.snapshot_view::<Name>().unwrap();
    let pos = world.snapshot_view::<Pos>().unwrap();
    let flags = world.snapshot_view::<Flag>().unwrap();
    assert_eq!(flags.values().len(), flags.entities().len());
    (
        names.iter().map(|(e, v)| (e, v.clone())).collect(),
        pos.iter().map(|(e, v)| (e, *v)).collect(),
        flags.entities().to_vec(),
    )
}

fn on_one_thread() -> Copies {
    let mut world = world();
    world.end_tick();
    let got = copies(&world);
    let many = SLOTS_PER_RANGE / 2;
    assert!(got.0.len() > many && got.1.len() > many && got.2.len() > many);
    got
}

#[test]
fn every_runner_makes_the_copies_one_thread_makes() {
    let expected = on_one_thread();
    type Runner = fn(u32, &(dyn Fn(u32) + Sync));
    let runners: [(&str, Runner); 5] = [
        ("in order", |n, f| (0..n).for_each(f)),
        ("backwards", |n, f| (0..n).rev().for_each(f)),
        ("on two scoped threads", |n, f| {
            std::thread::scope(|s| {
                s.spawn(|| (0..n).filter(|b| b % 2 == 1).for_each(f));
                (0..n).filter(|b| b % 2 == 0).for_each(f);
            });
        }),
        ("skipping every other range", |n, f| {
            (0..n).step_by(2).for_each(f);
        }),
        ("twice each, and out of range", |n, f| {
            (0..n + 3).chain(0..n).for_each(f);
        }),
    ];
    for (label, runner) in runners {
        let mut world = world();
        // Twice: the second refresh drops the first's copies and reuses the buffers.
        for _ in 0..2 {
            let mut calls = 0;
            world.storage.refresh_snapshots_split(|n, f| {
                calls += 1;
                assert!(n >= 3, "{label}: the world spans {n} ranges");
                runner(n, f);
            });
            assert_eq!(calls, 2, "{label}: one run to count, one to clone");
            assert!(copies(&world) == expected, "{label}: the copies differ");
        }
    }
}

#[test]
fn end_tick_on_an_executor_makes_the_same_copies() {
    let expected = on_one_thread();
    for threads in [2, 4] {
        let mut world = world();
        world.use_executor(ExecutorOptions::parallel(threads));
        world.end_tick();
        world.end_tick();
        assert!(copies(&world) == expected, "{threads} threads");
    }
}

#[test]
fn a_world_of_one_range_is_refreshed_on_this_thread() {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    let e = world.spawn((Pos(2.0),)).unwrap();
    world
        .storage
        .refresh_snapshots_split(|_, _| panic!("one range needs no runner"));
    assert_eq!(world.snapshot::<Pos>(e).unwrap(), Some(&Pos(2.0)));
}

#[test]
fn a_panicking_clone_leaves_no_half_made_copy() {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Fragile>::new().versioned())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Name>::new().versioned())
        .unwrap();
    let entities: Vec<Entity> = (0..3 * SLOTS_PER_RANGE as u32)
        .map(|i| {
            world
                .spawn((Fragile(i % 1000 + 20), Name(i.to_string())))
                .unwrap()
        })
        .collect();
    world.end_tick();
    let fragile = entities[2 * SLOTS_PER_RANGE + 5];
    world.get_mut::<Fragile>(fragile).unwrap().0 = 13;
    let on_one_thread = catch_unwind(AssertUnwindSafe(|| world.end_tick()));
    assert!(on_one_thread.is_err(), "the clone's panic comes out");
    assert!(world.snapshot_view::<Fragile>().unwrap().is_empty());
    assert!(world.snapshot_view::<Name>().unwrap().is_empty());
    world.get_mut::<Fragile>(fragile).unwrap().0 = 14;
    world.end_tick();
    assert_eq!(world.snapshot_view::<Name>().unwrap().len(), entities.len());
    world.get_mut::<Fragile>(fragile).unwrap().0 = 13;
    let split = catch_unwind(AssertUnwindSafe(|| {
        world
            .storage
            .refresh_snapshots_split(|n, f| (0..n).for_each(f));
    }));
    assert!(
        split.is_err(),
        "the clone's panic comes out of the split refresh too"
    );
    assert!(world.snapshot_view::<Fragile>().unwrap().is_empty());
    assert!(world.snapshot_view::<Name>().unwrap().is_empty());

    world.get_mut::<Fragile>(fragile).unwrap().0 = 14;
    world
        .storage
        .refresh_snapshots_split(|n, f| (0..n).for_each(f));
    assert_eq!(
        world.snapshot::<Fragile>(fragile).unwrap(),
        Some(&Fragile(14))
    );
    assert_eq!(
        world.snapshot_view::<Name>().unwrap().len(),
        entities.len(),
        "the next refresh is whole again"
    );
}
