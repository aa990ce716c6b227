//! `game_tick` in the four modes of workloads.md, and W4 `build-256` through the World and
//! through the bare crates, beside its hand-rolled floor, in one binary so that the ratios
//! come from one run.
//!
//! Run with `cargo bench -p laige-sim --bench game_tick`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_sim::prelude::*;

#[path = "../tests/support/game_tick/mod.rs"]
mod game_tick;
#[path = "../../laige-scheduler/benches/support/w4.rs"]
mod w4;
#[path = "common/w4_world.rs"]
mod w4_world;

use game_tick::{ENTITIES, RunMode};
use w4::{Variant, W4System, component, floor, w4_defs, w4_graph};
use w4_world::{REGISTER, bare_build, layout, noop, world_build};

/// One tick of the full-size game in each mode, each on its own world, after 60 ticks of
/// warm-up (the executor's plan is built, buffers have grown).
fn game_tick_modes(c: &mut Criterion) {
    let mut group = c.benchmark_group("game-tick");
    group.sample_size(30);
    for mode in RunMode::ALL {
        let (mut world, schedule) = game_tick::build(ENTITIES, 0x6A4E_5EED).unwrap();
        mode.apply(&mut world);
        for _ in 0..60 {
            world.run_systems(&schedule).unwrap();
        }
        group.bench_function(mode.label(), |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}

/// A short-lived entity of the churn tick, of a type no game system reads.
#[derive(Clone, Copy, Component)]
struct Spark(#[allow(dead_code, reason = "a payload the spawns move, never read")] [f32; 4]);

const CHURN: u32 = 1_000;

/// Despawns last tick's sparks and spawns as many new ones, through `Commands`.
fn churn(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, _) = ctx.split();
    queries
        .each::<(Entity, &Spark)>(|(e, _)| commands.despawn(e))
        .unwrap();
    commands.spawn_batch((0..CHURN).map(|i| Spark([i as f32, 0.0, 1.0, 0.0])));
}

/// The sequential game tick with and without 1,000 spawns and 1,000 despawns through
/// `Commands` (a `churn` system in the cleanup phase), and the direct cost of those spawns
/// and despawns on the World: the issue-21 target is churn <= 1.1 x (tick + direct).
fn game_tick_churn(c: &mut Criterion) {
    let mut group = c.benchmark_group("game-tick-churn");
    group.sample_size(30);
    for with_churn in [false, true] {
        let (mut world, mut schedule) = game_tick::build(ENTITIES, 0x6A4E_5EED).unwrap();
        world.register_component::<Spark>().unwrap();
        if with_churn {
            world
                .system("churn", churn)
                .budget_ms(2.0)
                .reads::<Spark>()
                .in_dag("sim")
                .in_phase("cleanup")
                .register()
                .unwrap();
            schedule = world.schedule().unwrap();
        }
        for _ in 0..60 {
            world.run_systems(&schedule).unwrap();
        }
        let label = if with_churn {
            "sequential-churn-1000"
        } else {
            "sequential"
        };
        group.bench_function(label, |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Spark>().unwrap();
    let mut sparks = Vec::with_capacity(CHURN as usize);
    group.bench_function("direct-spawn-despawn-1000", |b| {
        b.iter(|| {
            let spawned = world
                .spawn_batch((0..CHURN).map(|i| Spark([i as f32, 0.0, 1.0, 0.0])))
                .unwrap();
            sparks.extend_from_slice(spawned);
            for e in sparks.drain(..) {
                world.despawn(e).unwrap();
            }
        })
    });
    group.finish();
}

fn check_w4(graph: &[W4System], defs: &[SystemDef<SystemFn>]) {
    let mut ids = World::default();
    for (c, register) in REGISTER.iter().enumerate() {
        assert_eq!(register(&mut ids).unwrap(), component(c), "the graph's ids");
    }
    let (mut world, schedule, plan) = world_build(defs, true);
    assert_eq!(schedule.order().len(), w4::SYSTEMS);
    // Runnable: one sequential tick and one on two threads.
    world.run_systems(&schedule).unwrap();
    world.use_executor(ExecutorOptions::parallel(2));
    world.run_systems(&schedule).unwrap();
    let edges = graph
        .iter()
        .map(|s| s.deps.len() + s.weak.len())
        .sum::<usize>();
    println!(
        "w4 systems={} explicit+weak edges={edges} plan edges={}",
        w4::SYSTEMS,
        plan.map_or(0, |p| p.edge_count())
    );
}

fn w4_build(c: &mut Criterion) {
    let graph = w4_graph();
    let defs = w4_defs(&graph, noop as SystemFn, Variant::Declared);
    check_w4(&graph, &defs);
    let layout = layout();
    let mut group = c.benchmark_group("w4-build-256");
    for (label, plan) in [("world", false), ("world-plan", true)] {
        group.bench_function(label, |b| b.iter(|| world_build(black_box(&defs), plan)));
    }
    for (label, plan) in [("bare", false), ("bare-plan", true)] {
        group.bench_function(label, |b| {
            b.iter(|| bare_build(black_box(&defs), &layout, plan))
        });
    }
    group.bench_function("hand-rolled-floor", |b| b.iter(|| floor(black_box(&graph))));
    group.finish();
}

criterion_group!(benches, game_tick_modes, game_tick_churn, w4_build);
criterion_main!(benches);
