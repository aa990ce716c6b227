//! `heavy_compute`: 1,000 entities whose Transform is a rotation matrix; per entity, invert
//! the matrix 100 times, then transform the position. One pass is timed, on 2 threads
//! where the crate can (hecs and shipyard on rayon's global pool, laige on its executor).
//! bevy_ecs is built without its `multi_threaded` feature here, so its `par_iter_mut` runs
//! on one thread: its figure is a one-thread floor, not its parallel speed.

use std::hint::black_box;

use criterion::Criterion;
use laige_sim::prelude::*;
use rayon::iter::{ParallelBridge, ParallelIterator};
use shipyard::{IntoIter, ViewMut};

use crate::types::*;

const ENTITIES: usize = 1_000;

fn rotation_x(angle: f32) -> Transform {
    let (s, c) = angle.sin_cos();
    Transform([
        1.0, 0.0, 0.0, 0.0, 0.0, c, s, 0.0, 0.0, -s, c, 0.0, 0.0, 0.0, 0.0, 1.0,
    ])
}

fn heavy_body() -> (Transform, Position, Rotation, Velocity) {
    (
        rotation_x(1.2),
        Position(UNIT_X),
        Rotation(UNIT_X),
        Velocity(UNIT_X),
    )
}

/// The inverse of a column-major 4x4 matrix by cofactors (as cgmath's `invert`).
fn invert(m: &[f32; 16]) -> [f32; 16] {
    let mut inv = [0.0f32; 16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15]
        + m[9] * m[7] * m[14]
        + m[13] * m[6] * m[11]
        - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15]
        - m[8] * m[7] * m[14]
        - m[12] * m[6] * m[11]
        + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15]
        + m[8] * m[7] * m[13]
        + m[12] * m[5] * m[11]
        - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14]
        - m[8] * m[6] * m[13]
        - m[12] * m[5] * m[10]
        + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15]
        - m[9] * m[3] * m[14]
        - m[13] * m[2] * m[11]
        + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15]
        + m[8] * m[3] * m[14]
        + m[12] * m[2] * m[11]
        - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15]
        - m[8] * m[3] * m[13]
        - m[12] * m[1] * m[11]
        + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14]
        + m[8] * m[2] * m[13]
        + m[12] * m[1] * m[10]
        - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15]
        + m[5] * m[3] * m[14]
        + m[13] * m[2] * m[7]
        - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15]
        - m[4] * m[3] * m[14]
        - m[12] * m[2] * m[7]
        + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15]
        + m[4] * m[3] * m[13]
        + m[12] * m[1] * m[7]
        - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14]
        - m[4] * m[2] * m[13]
        - m[12] * m[1] * m[6]
        + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11]
        - m[5] * m[3] * m[10]
        - m[9] * m[2] * m[7]
        + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11]
        + m[4] * m[3] * m[10]
        + m[8] * m[2] * m[7]
        - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11]
        - m[4] * m[3] * m[9]
        - m[8] * m[1] * m[7]
        + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10]
        + m[4] * m[2] * m[9]
        + m[8] * m[1] * m[6]
        - m[8] * m[2] * m[5];
    let det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    let r = 1.0 / det;
    inv.map(|x| x * r)
}

/// The per-entity kernel: 100 inversions, then the position transformed as a vector.
fn kernel(p: &mut Position, t: &mut Transform) {
    for _ in 0..100 {
        t.0 = invert(&t.0);
    }
    let m = &t.0;
    let [x, y, z] = p.0;
    p.0 = [
        m[0] * x + m[4] * y + m[8] * z,
        m[1] * x + m[5] * y + m[9] * z,
        m[2] * x + m[6] * y + m[10] * z,
    ];
}

fn laige_heavy(ctx: &mut SystemContext<'_>) {
    ctx.par_each_chunk::<(&mut Position, &mut Transform)>(|_, _, (ps, ts)| {
        for (p, t) in ps.iter_mut().zip(ts) {
            kernel(p, t);
        }
    })
    .unwrap();
}

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    {
        let mut world = hecs::World::new();
        world.spawn_batch((0..ENTITIES).map(|_| heavy_body()));
        group.bench_function("hecs-rayon-2", |b| {
            b.iter(|| {
                world
                    .query_mut::<(&mut Position, &mut Transform)>()
                    .into_iter_batched(64)
                    .par_bridge()
                    .for_each(|batch| batch.for_each(|(p, t)| kernel(p, t)))
            })
        });
    }
    {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..ENTITIES).map(|_| heavy_body()));
        let mut query = world.query::<(&mut Position, &mut Transform)>();
        group.bench_function("bevy_ecs-par_iter_mut-1", |b| {
            b.iter(|| {
                query
                    .par_iter_mut(&mut world)
                    .for_each(|(mut p, mut t)| kernel(&mut p, &mut t))
            })
        });
    }
    {
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..ENTITIES).map(|_| heavy_body()));
        group.bench_function("shipyard-rayon-2", |b| {
            b.iter(|| {
                world.run(|mut ps: ViewMut<Position>, mut ts: ViewMut<Transform>| {
                    (&mut ps, &mut ts)
                        .par_iter()
                        .for_each(|(p, t)| kernel(p, t))
                })
            })
        });
    }
    {
        let mut world = laige_world();
        for _ in 0..ENTITIES {
            world.spawn(heavy_body()).unwrap();
        }
        group.bench_function("laige-world-each-1", |b| {
            b.iter(|| {
                world
                    .each::<(&mut Position, &mut Transform)>(|(p, t)| kernel(p, t))
                    .unwrap()
            })
        });
        let (mut world, schedule) = scheduled(world, |w| {
            w.system("heavy", laige_heavy)
                .budget_ms(100.0)
                .writes::<Position>()
                .writes::<Transform>()
                .register()
                .unwrap();
        });
        world.use_executor(ExecutorOptions::parallel(2));
        group.bench_function("laige-system-par_each_chunk-2", |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}
