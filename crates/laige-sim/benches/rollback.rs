//! Rollback (issue 24) in one binary, so the ratios come from one run:
//!
//! - `rollback/simple_iter`: save, restore and save + restore of the `simple_iter` world
//!   (10,000 entities of Transform, Position, Rotation and Velocity, all `saved_copy`),
//!   beside one `memcpy` of the same value bytes into a buffer of that size (`memcpy`), and
//!   one of every byte a save copies, entity columns and allocator included (`memcpy-all`);
//! - `rollback/game_tick`: one tick of the `game_tick` world, and a rollback of 8 ticks
//!   (restore the state saved 8 ticks back, then simulate them again).
//!
//! Run with `cargo bench -p laige-sim --bench rollback -- --quick`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_sim::prelude::*;

#[path = "../tests/support/game_tick/mod.rs"]
mod game_tick;

/// A 4x4 f32 matrix, column-major.
#[derive(Clone, Copy, Component)]
#[component(saved_copy)]
struct Transform(#[allow(dead_code)] [f32; 16]);
#[derive(Clone, Copy, Component)]
#[component(saved_copy)]
struct Position(#[allow(dead_code)] [f32; 3]);
#[derive(Clone, Copy, Component)]
#[component(saved_copy)]
struct Rotation(#[allow(dead_code)] [f32; 3]);
#[derive(Clone, Copy, Component)]
#[component(saved_copy)]
struct Velocity(#[allow(dead_code)] [f32; 3]);

const BODIES: u32 = 10_000;

fn simple_iter_world() -> World {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Transform>().unwrap();
    world.register_component::<Position>().unwrap();
    world.register_component::<Rotation>().unwrap();
    world.register_component::<Velocity>().unwrap();
    let mut identity = [0.0; 16];
    for i in 0..4 {
        identity[i * 5] = 1.0;
    }
    let unit = [1.0, 0.0, 0.0];
    world
        .spawn_batch((0..BODIES).map(|_| {
            (
                Transform(identity),
                Position(unit),
                Rotation(unit),
                Velocity(unit),
            )
        }))
        .unwrap();
    world
}

fn simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("rollback/simple_iter");
    let mut world = simple_iter_world();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let bytes = state.value_bytes();
    let source = vec![1u8; bytes];
    let mut target = vec![0u8; bytes];
    group.bench_function("memcpy", |b| {
        b.iter(|| target.copy_from_slice(black_box(&source)))
    });
    let all = state.copied_bytes();
    let source_all = vec![1u8; all];
    let mut target_all = vec![0u8; all];
    group.bench_function("memcpy-all", |b| {
        b.iter(|| target_all.copy_from_slice(black_box(&source_all)))
    });
    group.bench_function("save", |b| {
        b.iter(|| world.save_state(black_box(&mut state)).unwrap())
    });
    group.bench_function("restore", |b| {
        b.iter(|| world.restore_state(black_box(&state)).unwrap())
    });
    group.bench_function("save+restore", |b| {
        b.iter(|| {
            world.save_state(black_box(&mut state)).unwrap();
            world.restore_state(black_box(&state)).unwrap();
        })
    });
    group.finish();
}

fn game_tick_rollback(c: &mut Criterion) {
    let mut group = c.benchmark_group("rollback/game_tick");
    group.sample_size(20);
    let (mut world, schedule) = game_tick::build(game_tick::ENTITIES, 0x6A4E_5EED).unwrap();
    world.set_timing(false);
    let mut ring = StateRing::new(9);
    for _ in 0..60 {
        ring.save(&mut world).unwrap();
        world.run_systems(&schedule).unwrap();
    }
    let back = world.ticks_run() - 8;
    let mut state = WorldState::new();
    ring.load(&mut world, back).unwrap();
    world.save_state(&mut state).unwrap();
    group.bench_function("tick", |b| {
        b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
    });
    group.bench_function("rollback-8", |b| {
        b.iter(|| {
            world.restore_state(black_box(&state)).unwrap();
            for _ in 0..8 {
                world.run_systems(&schedule).unwrap();
            }
        })
    });
    group.finish();
}

criterion_group!(benches, simple_iter, game_tick_rollback);
criterion_main!(benches);
