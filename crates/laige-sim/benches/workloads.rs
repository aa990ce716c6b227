//! End-to-end workloads on a real World (`../shared/bench/workloads.md`): W1 `schedule`,
//! `sim_tick`, `frag_iter` and a `heavy_compute`-style pair of table-disjoint systems, each
//! sequential and on the executor.
//!
//! Run with `cargo bench -p laige-sim --bench workloads`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_sim::prelude::*;

mod common;
use common::*;

/// Group markers for the table-disjoint heavy_compute split.
#[derive(Clone, Copy)]
struct GroupA;
impl Component for GroupA {}
#[derive(Clone, Copy)]
struct GroupB;
impl Component for GroupB {}

fn w1(c: &mut Criterion) {
    let mut group = c.benchmark_group("w1-schedule");
    for (label, threads, form) in [
        ("sequential", 0, Form::Typed),
        ("sequential-fn-pointers", 0, Form::FnPointer),
        ("parallel-2", 2, Form::Typed),
        ("auto-2", 2, Form::Typed),
    ] {
        let (mut world, schedule) = w1_world(form);
        if threads > 0 {
            let mode = if label.starts_with("auto") {
                Mode::Auto
            } else {
                Mode::Parallel
            };
            world.use_executor(ExecutorOptions {
                threads,
                mode,
                ..Default::default()
            });
        }
        check_w1(&mut world, &schedule);
        group.bench_function(label, |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    let mut tables = w1_plain_tables();
    group.bench_function("plain-vecs", |b| b.iter(|| w1_plain_tick(&mut tables)));
    group.finish();
}

#[derive(Clone, Copy)]
struct Pos2(f32, f32);
impl Component for Pos2 {}
#[derive(Clone, Copy)]
struct Vel2(f32, f32);
impl Component for Vel2 {}

impl StateHash for Pos2 {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.0, self.1).hash_state(h);
    }
}

impl StateHash for Vel2 {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.0, self.1).hash_state(h);
    }
}

fn move_bodies(mut bodies: Query<'_, (&mut Pos2, &Vel2)>) -> Result<(), QueryError> {
    bodies.each_chunk(|_, (pos, vel)| {
        for (p, v) in pos.iter_mut().zip(vel) {
            p.0 += v.0;
            p.1 += v.1;
        }
    })
}

/// The escape hatch: a context system, declaring on the builder what the hash reads.
fn hash_state(ctx: &mut SystemContext<'_>) -> Result<(), QueryError> {
    black_box(ctx.component_state_hash()?);
    Ok(())
}

/// sim_tick: 10,000 entities, 2,000 moving on a 50 × 50 grid; a move system (1 ms) and a
/// state-hash system (2 ms).
fn sim_tick(c: &mut Criterion) {
    let mut world = World::new(WorldOptions {
        capacity: 10_000,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos2>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Vel2>::new().hashed())
        .unwrap();
    for i in 0..10_000u32 {
        if i % 5 == 0 {
            let cell = i / 5;
            let pos = Pos2((cell % 50) as f32, (cell / 50 % 50) as f32);
            world.spawn((pos, Vel2(0.5, -0.25))).unwrap();
        } else {
            world.spawn(()).unwrap();
        }
    }
    world.system("BenchMove", move_bodies).register().unwrap();
    world
        .system("BenchHash", hash_state)
        .budget_ms(2.0)
        .reads::<Pos2>()
        .reads::<Vel2>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    c.bench_function("sim-tick", |b| {
        b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
    });
}

/// frag_iter: 26 archetypes of 20 entities; `data *= 2` over all 520, against a plain loop
/// over 26 `Vec`s of 20.
fn frag_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("frag-iter");
    let mut world = frag_world();
    assert_eq!(
        world.archetypes().iter().filter(|a| !a.is_empty()).count(),
        26
    );
    group.bench_function("laige-each", |b| b.iter(|| frag_each(&mut world)));
    group.bench_function("laige-each-chunk", |b| {
        b.iter(|| frag_each_chunk(&mut world))
    });
    let mut plain = frag_plain_tables();
    group.bench_function("plain-vecs", |b| b.iter(|| frag_plain(&mut plain)));
    group.finish();
}

#[derive(Clone, Copy)]
struct Matrix([[f32; 4]; 4]);
impl Component for Matrix {}
#[derive(Clone, Copy)]
struct Point([f32; 3]);
impl Component for Point {}

/// A quarter turn about the z axis: the matrix every heavy_compute entity holds.
const ROTATION: Matrix = Matrix([
    [0.0, -1.0, 0.0, 0.0],
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
]);

fn invert(m: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    // Gauss-Jordan with partial pivoting; the workload only needs the arithmetic.
    let mut a = *m;
    let mut inv = [[0.0f32; 4]; 4];
    for (i, row) in inv.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for k in 0..4 {
            a[col][k] /= p;
            inv[col][k] /= p;
        }
        for r in 0..4 {
            if r != col {
                let f = a[r][col];
                for k in 0..4 {
                    a[r][k] -= f * a[col][k];
                    inv[r][k] -= f * inv[col][k];
                }
            }
        }
    }
    inv
}

fn heavy_work(point: &mut Point, matrix: &Matrix) {
    let mut m = matrix.0;
    for _ in 0..100 {
        m = invert(&m);
    }
    let p = point.0;
    for (i, out) in point.0.iter_mut().enumerate() {
        *out = m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3];
    }
}

/// A heavy_compute system over the group `G`. The query must require the footprint the
/// system declares (`matching::<G>`).
fn heavy<G: Send + Sync + 'static>(
    mut points: Query<'_, (&mut Point, &Matrix), With<G>>,
) -> Result<(), QueryError> {
    points.each(|(p, m)| heavy_work(p, m))
}

/// heavy_compute, split in two: 1,000 entities in two groups, one system per group. Both
/// write `Point`, but their tables are disjoint (`matching` their group marker), so with two
/// threads they run at once.
fn heavy_world() -> (World, Schedule) {
    let mut world = World::default();
    world.register_component::<Point>().unwrap();
    world.register_component::<Matrix>().unwrap();
    world.register_component::<GroupA>().unwrap();
    world.register_component::<GroupB>().unwrap();
    for i in 0..1_000 {
        if i % 2 == 0 {
            world
                .spawn((Point([1.0, 0.0, 0.0]), ROTATION, GroupA))
                .unwrap();
        } else {
            world
                .spawn((Point([1.0, 0.0, 0.0]), ROTATION, GroupB))
                .unwrap();
        }
    }
    world.set_layout(Layout::new().dag("Main", "Heavy", &["Update"], "Update"));
    let heavy_a = world
        .system("HeavyA", heavy::<GroupA>)
        .budget_ms(5.0)
        .matching::<GroupA>()
        .register()
        .unwrap();
    world
        .system("HeavyB", heavy::<GroupB>)
        .budget_ms(5.0)
        .matching::<GroupB>()
        .after_weak(heavy_a)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// Runs `world` on an executor of `threads` threads in `Mode::Parallel`; 0 keeps the
/// sequential runner.
fn on_threads(world: &mut World, threads: usize) {
    if threads > 0 {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
}

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy-compute");
    group.sample_size(20);
    for (label, threads) in [("sequential", 0), ("parallel-2", 2)] {
        let (mut world, schedule) = heavy_world();
        on_threads(&mut world, threads);
        group.bench_function(label, |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}

/// heavy_compute as one system: 1,000 entities in one table, one `par_each` loop (four
/// batches), whose batches the second thread helps with.
fn heavy_single_world() -> (World, Schedule) {
    let mut world = World::default();
    world.register_component::<Point>().unwrap();
    world.register_component::<Matrix>().unwrap();
    for i in 0..1_000 {
        world
            .spawn((Point([1.0, i as f32, 0.0]), ROTATION))
            .unwrap();
    }
    world
        .system(
            "Heavy",
            |mut points: Query<'_, (&mut Point, &Matrix)>| -> Result<(), QueryError> {
                points.par_each(|_, (p, m)| heavy_work(p, m))
            },
        )
        .budget_ms(10.0)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

fn points(world: &mut World) -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    world
        .each::<&Point>(|p| out.push(p.0.map(f32::to_bits)))
        .unwrap();
    out
}

fn heavy_compute_par_each(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy-compute-par-each");
    group.sample_size(20);
    let mut reference = None;
    for (label, threads) in [("sequential", 0), ("parallel-2", 2)] {
        let (mut world, schedule) = heavy_single_world();
        on_threads(&mut world, threads);
        for _ in 0..3 {
            world.run_systems(&schedule).unwrap();
        }
        // The same state as sequential, bit for bit.
        let state = points(&mut world);
        assert_eq!(*reference.get_or_insert_with(|| state.clone()), state);
        group.bench_function(label, |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(
    workloads,
    w1,
    sim_tick,
    frag_iter,
    heavy_compute,
    heavy_compute_par_each
);
criterion_main!(workloads);
