//! `simple_insert`: a new world and 10,000 spawns of (Transform, Position, Rotation,
//! Velocity). The world is dropped outside the timing, in every variant.

use criterion::{BatchSize, Criterion};
use laige_sim::prelude::*;

use crate::types::*;

pub const N: usize = 10_000;

fn spawn_one_by_one(ctx: &mut SystemContext<'_>) {
    let mut commands = ctx.commands();
    for _ in 0..N {
        let _ = commands.spawn(body());
    }
}

fn spawn_as_batch(ctx: &mut SystemContext<'_>) {
    ctx.commands().spawn_batch((0..N).map(|_| body()));
}

/// A system spawning through `system`, built outside the timing; the timed tick records
/// 10,000 spawns and applies them.
fn laige_system(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    system: fn(&mut SystemContext<'_>),
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            || {
                scheduled(laige_world(), |w| {
                    w.system("spawn", system).budget_ms(1.0).register().unwrap();
                })
            },
            |(mut world, schedule)| {
                world.run_systems(&schedule).unwrap();
                assert_eq!(world.len(), N);
                (world, schedule)
            },
            BatchSize::SmallInput,
        )
    });
}

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");
    group.sample_size(30);
    group.bench_function("hecs-spawn_batch", |b| {
        b.iter_with_large_drop(|| {
            let mut world = hecs::World::new();
            world.spawn_batch((0..N).map(|_| body()));
            world
        })
    });
    group.bench_function("hecs-one", |b| {
        b.iter_with_large_drop(|| {
            let mut world = hecs::World::new();
            for _ in 0..N {
                world.spawn(body());
            }
            world
        })
    });
    group.bench_function("bevy_ecs-spawn_batch", |b| {
        b.iter_with_large_drop(|| {
            let mut world = bevy_ecs::world::World::new();
            world.spawn_batch((0..N).map(|_| body()));
            world
        })
    });
    group.bench_function("bevy_ecs-one", |b| {
        b.iter_with_large_drop(|| {
            let mut world = bevy_ecs::world::World::new();
            for _ in 0..N {
                world.spawn(body());
            }
            world
        })
    });
    group.bench_function("shipyard-bulk_add_entity", |b| {
        b.iter_with_large_drop(|| {
            let mut world = shipyard::World::new();
            world.bulk_add_entity((0..N).map(|_| body()));
            world
        })
    });
    group.bench_function("shipyard-one", |b| {
        b.iter_with_large_drop(|| {
            let mut world = shipyard::World::new();
            for _ in 0..N {
                world.add_entity(body());
            }
            world
        })
    });
    group.bench_function("laige-world-one", |b| {
        b.iter_with_large_drop(|| {
            let mut world = laige_world();
            for _ in 0..N {
                world.spawn(body()).unwrap();
            }
            world
        })
    });
    group.bench_function("laige-world-spawn_batch", |b| {
        b.iter_with_large_drop(|| {
            let mut world = laige_world();
            world.spawn_batch((0..N).map(|_| body())).unwrap();
            world
        })
    });
    laige_system(&mut group, "laige-system-commands-one", spawn_one_by_one);
    laige_system(
        &mut group,
        "laige-system-commands-spawn_batch",
        spawn_as_batch,
    );
    // The World's batch on a world built outside the timing, as the systems' are.
    group.bench_function("laige-world-spawn_batch-prebuilt", |b| {
        b.iter_batched(
            laige_world,
            |mut world| {
                world.spawn_batch((0..N).map(|_| body())).unwrap();
                world
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}
