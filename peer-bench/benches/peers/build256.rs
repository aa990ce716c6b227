//! W4 `build-256`: 256 systems over 64 components, registered and scheduled until they
//! can run, on laige-sim (World and bare crates, with and without the executor's plan), on
//! specs (`DispatcherBuilder::build`), shipyard (`Workload::build`) and bevy_ecs
//! (`Schedule::initialize` on a new world), beside the hand-rolled floor of workloads.md.

use std::hint::black_box;

use criterion::Criterion;
use laige_sim::prelude::*;
use specs::WorldExt;

use crate::w4::{self, Variant, floor, w4_defs, w4_graph};
use crate::w4_graph::{GRAPH, bevy_schedule, shipyard_workload, specs_builder};
use crate::w4_world::{bare_build, layout, noop, world_build};

pub fn bench(c: &mut Criterion) {
    let graph = w4_graph();
    for (i, system) in graph.iter().enumerate() {
        assert_eq!(
            GRAPH[i].0,
            &system.accesses[..],
            "gen_w4.py: accesses of {i}"
        );
        assert_eq!(GRAPH[i].1, &system.deps[..], "gen_w4.py: depends_on of {i}");
    }
    let defs = w4_defs(&graph, noop as SystemFn, Variant::Declared);
    let layout = layout();
    assert_eq!(
        world_build(&defs, true).1.order().len(),
        w4::SYSTEMS,
        "laige builds"
    );
    // Each peer's build must be runnable: run it once.
    let mut specs_world = specs::World::new();
    let mut dispatcher = specs_builder().build();
    dispatcher.setup(&mut specs_world);
    dispatcher.dispatch_seq(&specs_world);
    let shipyard_world = shipyard::World::new();
    shipyard_workload().add_to_world(&shipyard_world).unwrap();
    shipyard_world.run_default_workload().unwrap();
    let mut bevy_world = bevy_ecs::world::World::new();
    bevy_schedule().run(&mut bevy_world);

    let mut group = c.benchmark_group("w4-build-256");
    for (label, plan) in [("laige-world", false), ("laige-world-plan", true)] {
        group.bench_function(label, |b| b.iter(|| world_build(black_box(&defs), plan)));
    }
    for (label, plan) in [("laige-bare", false), ("laige-bare-plan", true)] {
        group.bench_function(label, |b| {
            b.iter(|| bare_build(black_box(&defs), &layout, plan))
        });
    }
    group.bench_function("specs", |b| b.iter(|| specs_builder().build()));
    group.bench_function("shipyard", |b| {
        b.iter(|| shipyard_workload().build().unwrap())
    });
    group.bench_function("bevy_ecs", |b| {
        b.iter(|| {
            let mut world = bevy_ecs::world::World::new();
            let mut schedule = bevy_schedule();
            schedule.initialize(&mut world).unwrap();
            (world, schedule)
        })
    });
    group.bench_function("hand-rolled-floor", |b| b.iter(|| floor(black_box(&graph))));
    group.finish();
}
