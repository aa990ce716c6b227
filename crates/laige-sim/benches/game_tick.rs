//! `game_tick` in the four modes of workloads.md, and W4 `build-256` through the World and
//! through the bare crates, beside its hand-rolled floor, in one binary so that the ratios
//! come from one run.
//!
//! Run with `cargo bench -p laige-sim --bench game_tick`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_registry::Registry;
use laige_sim::executor::Plan;
use laige_sim::prelude::*;

#[path = "../tests/support/game_tick/mod.rs"]
mod game_tick;
#[path = "../../laige-scheduler/benches/support/w4.rs"]
mod w4;

use game_tick::{ENTITIES, RunMode};
use w4::{Variant, W4System, component, floor, w4_defs, w4_graph};

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

/// One of the 64 W4 component types.
struct K<const N: usize>;

type RegisterFn = fn(&mut World) -> Result<ComponentId, WorldError>;

macro_rules! component_types {
    ($($n:literal)*) => {
        /// Registers the 64 W4 component types, `K<0>` to `K<63>`, as ids 1 to 64.
        const REGISTER: [RegisterFn; 64] = [$(World::register_component::<K<$n>>),*];
    };
}
component_types!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);

fn noop(_: &mut SystemContext<'_>) {}

fn layout() -> Layout {
    Layout::new().dag("Main", "W4", &["Update"], "Update")
}

/// W4 through the World: a new world, its 64 component types, the 256 systems, the
/// declarative schedule, and with `plan` the executor's plan.
fn world_build(defs: &[SystemDef<SystemFn>], plan: bool) -> (World, Schedule, Option<Plan>) {
    let mut world = World::new(WorldOptions::default());
    for register in REGISTER {
        register(&mut world).unwrap();
    }
    for def in defs {
        world.register_system(*def).unwrap();
    }
    world.set_layout(layout());
    let schedule = world.schedule().unwrap();
    let plan = plan.then(|| Plan::build_from_access(&schedule, world.registry()));
    (world, schedule, plan)
}

/// W4 through the bare crates: a registry, the declarative schedule, and with `plan` the
/// executor's plan.
fn bare_build(
    defs: &[SystemDef<SystemFn>],
    layout: &Layout,
    plan: bool,
) -> (Registry<SystemFn>, Schedule, Option<Plan>) {
    let mut registry = Registry::new();
    for c in 0..w4::COMPONENTS {
        registry.register_component(component(c));
    }
    for def in defs {
        registry.register(def).unwrap();
    }
    let schedule = laige_sim::scheduler::schedule_declared(&registry, layout).unwrap();
    let plan = plan.then(|| Plan::build_from_access(&schedule, &registry));
    (registry, schedule, plan)
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
    world.use_executor(ExecutorOptions {
        threads: 2,
        mode: Mode::Parallel,
        ..Default::default()
    });
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

criterion_group!(benches, game_tick_modes, w4_build);
criterion_main!(benches);
