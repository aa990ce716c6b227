//! End-to-end workloads on a real World (`../shared/bench/workloads.md`): W1 `schedule`,
//! `sim_tick`, `frag_iter` and a `heavy_compute`-style pair of table-disjoint systems, each
//! sequential and on the executor.
//!
//! Run with `cargo bench -p laige-sim --bench workloads`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_sim::prelude::*;

macro_rules! scalar {
    ($($t:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq)]
        struct $t(f32);
    )*};
}
scalar!(A, B, C, D, E, Data);

/// Group markers for the table-disjoint heavy_compute split.
#[derive(Clone, Copy)]
struct GroupA;
#[derive(Clone, Copy)]
struct GroupB;

fn swap_ab(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<(&mut A, &mut B)>(|_, (a, b)| {
        for (a, b) in a.iter_mut().zip(b) {
            std::mem::swap(&mut a.0, &mut b.0);
        }
    })
    .unwrap();
}

fn swap_cd(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<(&mut C, &mut D)>(|_, (c, d)| {
        for (c, d) in c.iter_mut().zip(d) {
            std::mem::swap(&mut c.0, &mut d.0);
        }
    })
    .unwrap();
}

fn swap_ce(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<(&mut C, &mut E)>(|_, (c, e)| {
        for (c, e) in c.iter_mut().zip(e) {
            std::mem::swap(&mut c.0, &mut e.0);
        }
    })
    .unwrap();
}

/// W1: 10,000 entities each of (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); `ab`, `cd`, `ce`
/// swap their pairs. `cd` and `ce` both write C, but no table holds D and E together, so
/// with their footprints declared they run at once; `ce.after_weak("cd")` fixes their
/// order for where they would overlap.
fn w1_world() -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: 40_000,
        ..WorldOptions::default()
    });
    for register in [
        World::register_component::<A>,
        World::register_component::<B>,
        World::register_component::<C>,
        World::register_component::<D>,
        World::register_component::<E>,
    ] {
        register(&mut world).unwrap();
    }
    for _ in 0..10_000 {
        world.spawn((A(1.0), B(2.0))).unwrap();
        world.spawn((A(1.0), B(2.0), C(3.0))).unwrap();
        world.spawn((A(1.0), B(2.0), C(3.0), D(4.0))).unwrap();
        world.spawn((A(1.0), B(2.0), C(3.0), E(5.0))).unwrap();
    }
    world.set_layout(Layout::new().dag("Main", "W1", &["Update"], "Update"));
    world
        .system("ab", swap_ab)
        .budget_ms(1.0)
        .writes::<A>()
        .writes::<B>()
        .matching::<A>()
        .matching::<B>()
        .register()
        .unwrap();
    world
        .system("cd", swap_cd)
        .budget_ms(1.0)
        .writes::<C>()
        .writes::<D>()
        .matching::<C>()
        .matching::<D>()
        .register()
        .unwrap();
    world
        .system("ce", swap_ce)
        .budget_ms(1.0)
        .writes::<C>()
        .writes::<E>()
        .matching::<C>()
        .matching::<E>()
        .after_weak("cd")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

fn sums(world: &mut World) -> [f64; 5] {
    let mut out = [0.0f64; 5];
    world.each::<&A>(|_, it| out[0] += f64::from(it.0)).unwrap();
    world.each::<&B>(|_, it| out[1] += f64::from(it.0)).unwrap();
    world.each::<&C>(|_, it| out[2] += f64::from(it.0)).unwrap();
    world.each::<&D>(|_, it| out[3] += f64::from(it.0)).unwrap();
    world.each::<&E>(|_, it| out[4] += f64::from(it.0)).unwrap();
    out
}

/// The workload's correctness check: the per-component sums after 1, 2 and 3 ticks.
fn check_w1(world: &mut World, schedule: &Schedule) {
    let even = [40_000.0, 80_000.0, 90_000.0, 40_000.0, 50_000.0];
    let odd = [80_000.0, 40_000.0, 120_000.0, 30_000.0, 30_000.0];
    for tick in 1..=3 {
        world.run_systems(schedule).unwrap();
        let want = if tick % 2 == 1 { odd } else { even };
        assert_eq!(sums(world), want, "W1 sums after tick {tick}");
    }
}

fn w1(c: &mut Criterion) {
    let mut group = c.benchmark_group("w1-schedule");
    for (label, threads) in [("sequential", 0), ("parallel-2", 2), ("auto-2", 2)] {
        let (mut world, schedule) = w1_world();
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
    // The floor: the same 60,000 swaps as plain loops over one `Vec` per column and table.
    let mut tables: Vec<Vec<Vec<f32>>> = [2, 3, 4, 4]
        .iter()
        .map(|&columns| (0..columns).map(|c| vec![c as f32; 10_000]).collect())
        .collect();
    group.bench_function("plain-vecs", |b| {
        b.iter(|| {
            let tables = black_box(&mut tables);
            for (t, table) in tables.iter_mut().enumerate() {
                if let [a, b, rest @ ..] = &mut table[..] {
                    swap_columns(a, b);
                    if let ([c, d_or_e], true) = (rest, t >= 2) {
                        swap_columns(c, d_or_e);
                    }
                }
            }
        })
    });
    group.finish();
}

fn swap_columns(a: &mut [f32], b: &mut [f32]) {
    for (a, b) in a.iter_mut().zip(b) {
        std::mem::swap(a, b);
    }
}

#[derive(Clone, Copy)]
struct Pos2(f32, f32);
#[derive(Clone, Copy)]
struct Vel2(f32, f32);

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

fn move_bodies(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<(&mut Pos2, &Vel2)>(|_, (pos, vel)| {
        for (p, v) in pos.iter_mut().zip(vel) {
            p.0 += v.0;
            p.1 += v.1;
        }
    })
    .unwrap();
}

fn hash_state(ctx: &mut SystemContext<'_>) {
    black_box(ctx.component_state_hash().unwrap());
}

/// sim_tick: 10,000 entities, 2,000 moving on a 50 × 50 grid; a move system (1 ms) and a
/// state-hash system (2 ms).
fn sim_tick(c: &mut Criterion) {
    let mut world = World::new(WorldOptions {
        capacity: 10_000,
        ..WorldOptions::default()
    });
    world.register_hashed_component::<Pos2>().unwrap();
    world.register_hashed_component::<Vel2>().unwrap();
    for i in 0..10_000u32 {
        if i % 5 == 0 {
            let cell = i / 5;
            let pos = Pos2((cell % 50) as f32, (cell / 50 % 50) as f32);
            world.spawn((pos, Vel2(0.5, -0.25))).unwrap();
        } else {
            world.spawn(()).unwrap();
        }
    }
    world
        .system("BenchMove", move_bodies)
        .budget_ms(1.0)
        .writes::<Pos2>()
        .reads::<Vel2>()
        .register()
        .unwrap();
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

macro_rules! markers {
    ($($m:ident),*) => {
        // The workload's markers carry an f32 that no system reads.
        $( #[derive(Clone, Copy)] #[allow(dead_code)] struct $m(f32); )*
        fn frag_world() -> World {
            let mut world = World::default();
            world.register_component::<Data>().unwrap();
            $( world.register_component::<$m>().unwrap(); )*
            for _ in 0..20 {
                $( world.spawn(($m(0.0), Data(1.0))).unwrap(); )*
            }
            world
        }
    };
}
markers!(
    Ma, Mb, Mc, Md, Me, Mf, Mg, Mh, Mi, Mj, Mk, Ml, Mm, Mn, Mo, Mp, Mq, Mr, Ms, Mt, Mu, Mv, Mw, Mx,
    My, Mz
);

/// frag_iter: 26 archetypes of 20 entities; `data *= 2` over all 520, against a plain loop
/// over 26 `Vec`s of 20.
fn frag_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("frag-iter");
    let mut world = frag_world();
    assert_eq!(
        world.archetypes().iter().filter(|a| !a.is_empty()).count(),
        26
    );
    group.bench_function("laige-each", |b| {
        b.iter(|| world.each::<&mut Data>(|_, d| d.0 *= 2.0).unwrap());
    });
    group.bench_function("laige-each-chunk", |b| {
        b.iter(|| {
            world
                .each_chunk::<&mut Data>(|_, data| {
                    for d in data {
                        d.0 *= 2.0;
                    }
                })
                .unwrap()
        });
    });
    let mut plain: Vec<Vec<Data>> = (0..26).map(|_| vec![Data(1.0); 20]).collect();
    group.bench_function("plain-vecs", |b| {
        b.iter(|| {
            for table in black_box(&mut plain).iter_mut() {
                for d in table {
                    d.0 *= 2.0;
                }
            }
        })
    });
    group.finish();
}

#[derive(Clone, Copy)]
struct Matrix([[f32; 4]; 4]);
#[derive(Clone, Copy)]
struct Point([f32; 3]);

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

fn heavy_a(ctx: &mut SystemContext<'_>) {
    // The query must require the footprint the system declared (`matching::<GroupA>`).
    ctx.each::<(&mut Point, &Matrix, With<GroupA>)>(|_, (p, m, ())| heavy_work(p, m))
        .unwrap();
}

fn heavy_b(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Point, &Matrix, With<GroupB>)>(|_, (p, m, ())| heavy_work(p, m))
        .unwrap();
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
    let rotation = Matrix([
        [0.0, -1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);
    for i in 0..1_000 {
        if i % 2 == 0 {
            world
                .spawn((Point([1.0, 0.0, 0.0]), rotation, GroupA))
                .unwrap();
        } else {
            world
                .spawn((Point([1.0, 0.0, 0.0]), rotation, GroupB))
                .unwrap();
        }
    }
    world.set_layout(Layout::new().dag("Main", "Heavy", &["Update"], "Update"));
    world
        .system("HeavyA", heavy_a)
        .budget_ms(5.0)
        .writes::<Point>()
        .reads::<Matrix>()
        .matching::<GroupA>()
        .register()
        .unwrap();
    world
        .system("HeavyB", heavy_b)
        .budget_ms(5.0)
        .writes::<Point>()
        .reads::<Matrix>()
        .matching::<GroupB>()
        .after_weak("HeavyA")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy-compute");
    group.sample_size(20);
    for (label, threads) in [("sequential", 0), ("parallel-2", 2)] {
        let (mut world, schedule) = heavy_world();
        if threads > 0 {
            world.use_executor(ExecutorOptions {
                threads,
                mode: Mode::Parallel,
                ..Default::default()
            });
        }
        group.bench_function(label, |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(workloads, w1, sim_tick, frag_iter, heavy_compute);
criterion_main!(workloads);
