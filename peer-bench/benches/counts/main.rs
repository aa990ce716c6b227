//! `simple_insert` and `add_remove` once per variant, for instruction counts under
//! callgrind, which the 2-core machine's timing noise does not move:
//!
//! ```sh
//! valgrind --tool=callgrind --toggle-collect='*measured*' target/release/deps/counts-* <variant>
//! ```
//!
//! Each variant runs twice, the second time inside `measured` (`#[inline(never)]`), so
//! only that run is counted: one-time costs of a process (a clock's calibration, statics)
//! and setup (a world with its systems) are outside it.

#[path = "../storage/types.rs"]
#[allow(dead_code, unused_imports)]
mod types;

use std::hint::black_box;

use laige_sim::prelude::*;
use types::*;

const N: usize = 10_000;

fn hecs_spawn_batch() -> hecs::World {
    let mut world = hecs::World::new();
    world.spawn_batch((0..N).map(|_| body()));
    world
}

fn hecs_one() -> hecs::World {
    let mut world = hecs::World::new();
    for _ in 0..N {
        world.spawn(body());
    }
    world
}

fn bevy_spawn_batch() -> bevy_ecs::world::World {
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..N).map(|_| body()));
    world
}

fn bevy_one() -> bevy_ecs::world::World {
    let mut world = bevy_ecs::world::World::new();
    for _ in 0..N {
        world.spawn(body());
    }
    world
}

fn shipyard_bulk() -> shipyard::World {
    let mut world = shipyard::World::new();
    world.bulk_add_entity((0..N).map(|_| body()));
    world
}

fn shipyard_one() -> shipyard::World {
    let mut world = shipyard::World::new();
    for _ in 0..N {
        world.add_entity(body());
    }
    world
}

fn laige_one() -> World {
    let mut world = laige_world();
    for _ in 0..N {
        world.spawn(body()).unwrap();
    }
    world
}

fn laige_spawn_batch() -> World {
    let mut world = laige_world();
    world.spawn_batch((0..N).map(|_| body())).unwrap();
    world
}

fn laige_tick(world: &mut World, schedule: &Schedule) {
    world.run_systems(schedule).unwrap();
}

fn spawn_one_by_one(ctx: &mut SystemContext<'_>) {
    let mut commands = ctx.commands();
    for _ in 0..N {
        commands.spawn(body());
    }
}

fn spawn_as_batch(ctx: &mut SystemContext<'_>) {
    ctx.commands().spawn_batch((0..N).map(|_| body()));
}

#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// Runs `f` once to warm up, then once counted.
fn twice<T>(f: impl Fn() -> T) {
    drop(black_box(f()));
    drop(black_box(measured(f)));
}

fn main() {
    let variant = std::env::args().nth(1).unwrap_or_default();
    let system = |f: fn(&mut SystemContext<'_>)| {
        let (mut world, schedule) = scheduled(laige_world(), |w| {
            w.system("spawn", f).budget_ms(1.0).register().unwrap();
        });
        laige_tick(&mut world, &schedule);
        assert_eq!(world.len(), N);
        let (mut world, schedule) = scheduled(laige_world(), |w| {
            w.system("spawn", f).budget_ms(1.0).register().unwrap();
        });
        measured(|| laige_tick(&mut world, &schedule));
        assert_eq!(world.len(), N);
    };
    match variant.as_str() {
        "hecs-spawn_batch" => twice(hecs_spawn_batch),
        "hecs-one" => twice(hecs_one),
        "bevy-spawn_batch" => twice(bevy_spawn_batch),
        "bevy-one" => twice(bevy_one),
        "shipyard-bulk" => twice(shipyard_bulk),
        "shipyard-one" => twice(shipyard_one),
        "laige-world-one" => twice(laige_one),
        "laige-world-spawn_batch" => twice(laige_spawn_batch),
        "laige-system-commands-one" => system(spawn_one_by_one),
        "laige-system-commands-spawn_batch" => system(spawn_as_batch),
        other => panic!("unknown variant `{other}`"),
    }
}
