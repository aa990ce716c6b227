//! A `game_tick`-shaped tick: the 40 systems of `game_tick` (same archetypes, counts,
//! kernels and phase order) on laige-sim's World, specs and shipyard, sequentially and on
//! two threads. Each world runs 60 ticks before it is timed, and its population is printed
//! then, to show that every crate keeps it level.

use std::hint::black_box;

use criterion::Criterion;
use specs::WorldExt;

use crate::game_tick::components::{Score, Transform};
use crate::game_tick::{self, ENTITIES, RunMode};
use crate::{tick_shipyard, tick_specs};

const SEED: u64 = 0x6A4E_5EED;
const WARM_UP: u32 = 60;

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("game-tick");
    group.sample_size(20);
    for mode in [RunMode::Sequential, RunMode::Parallel(2)] {
        let (mut world, schedule) = game_tick::build(ENTITIES, SEED).unwrap();
        mode.apply(&mut world);
        for _ in 0..WARM_UP {
            world.run_systems(&schedule).unwrap();
        }
        println!("laige {}: {} entities", mode.label(), world.len());
        group.bench_function(format!("laige-world-{}", mode.label()), |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    for threads in [1, 2] {
        let (mut world, mut dispatcher) = tick_specs::build(ENTITIES, SEED, threads);
        let tick = |world: &mut specs::World, dispatcher: &mut specs::Dispatcher| {
            if threads == 1 {
                dispatcher.dispatch_seq(world);
            } else {
                dispatcher.dispatch_par(world);
            }
            world.maintain();
        };
        for _ in 0..WARM_UP {
            tick(&mut world, &mut dispatcher);
        }
        let population = {
            use specs::Join;
            (&world.read_storage::<Transform>()).join().count()
        };
        println!("specs {threads} threads: {population} entities");
        let name = if threads == 1 {
            "specs-seq"
        } else {
            "specs-parallel-2"
        };
        group.bench_function(name, |b| b.iter(|| tick(&mut world, &mut dispatcher)));
    }
    for threads in [1, 2] {
        let world = tick_shipyard::build(ENTITIES, SEED, threads);
        for _ in 0..WARM_UP {
            world.run_default_workload().unwrap();
        }
        let ticks = world.borrow::<shipyard::UniqueView<Score>>().unwrap().ticks;
        assert_eq!(ticks, WARM_UP);
        let population = world.borrow::<shipyard::View<Transform>>().unwrap().len();
        println!("shipyard {threads} threads: {population} entities");
        group.bench_function(format!("shipyard-rayon-{threads}"), |b| {
            b.iter(|| black_box(&world).run_default_workload().unwrap())
        });
    }
    group.finish();
}
