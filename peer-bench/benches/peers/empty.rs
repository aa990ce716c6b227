//! W2 `empty-100` and W3 `chain-100`: 100 empty systems, unordered or each after the
//! previous one. Timed: one tick, on laige-sim's World, on its bare runner and executor,
//! on specs, shipyard and bevy_ecs, and as a `Vec<Box<dyn FnMut()>>` loop.

use std::hint::black_box;
use std::sync::Arc;

use bevy_ecs::prelude::IntoScheduleConfigs;
use bevy_ecs::schedule::{Schedule as BevySchedule, SingleThreadedExecutor};
use criterion::Criterion;
use laige_registry::{Registry, SystemDef, SystemId};
use laige_sim::executor::{Executor, Plan, SharedHost};
use laige_sim::prelude::*;
use laige_sim::runner::{Runner, RunnerOptions};
use shipyard::scheduler::SystemModificator;
use specs::WorldExt;

const N: usize = 100;

fn names() -> &'static [&'static str] {
    let names: Vec<&'static str> = (0..N)
        .map(|i| &*Box::leak(format!("s{i}").into_boxed_str()))
        .collect();
    Box::leak(names.into_boxed_slice())
}

fn empty_system(_: &mut SystemContext<'_>) {}

/// laige-sim through the World: 100 systems, each after the previous with `chain`.
fn laige_world(chain: bool, timing: bool) -> (World, Schedule) {
    let names = names();
    let mut world = World::new(WorldOptions {
        timing,
        ..WorldOptions::default()
    });
    for i in 0..N {
        let after = if chain && i > 0 { names[i - 1] } else { "" };
        world
            .system(names[i], empty_system)
            .budget_ms(1.0)
            .after(after)
            .register()
            .unwrap();
    }
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

type Run = fn();
fn empty() {}

/// Runs each system's function; holds no data.
struct Calls;

// SAFETY: the systems touch nothing.
unsafe impl SharedHost<Run> for Calls {
    unsafe fn run_system(&self, _: SystemId, run: &Run) {
        run()
    }
}

/// laige-sim's bare crates: a registry of plain `fn()`s and its flat schedule.
fn laige_bare(chain: bool) -> (Registry<Run>, laige_sim::scheduler::Schedule) {
    let names = names();
    let mut registry = Registry::new();
    for i in 0..N {
        let after = if chain && i > 0 { names[i - 1] } else { "" };
        let def = SystemDef::new(names[i], empty as Run)
            .budget_ms(1.0)
            .depends_on(after);
        registry.register(def).unwrap();
    }
    let schedule = laige_sim::scheduler::schedule(&registry).unwrap();
    (registry, schedule)
}

struct SpecsEmpty;

impl<'a> specs::System<'a> for SpecsEmpty {
    type SystemData = ();
    fn run(&mut self, _: ()) {}
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn specs_dispatcher(chain: bool, threads: usize) -> specs::Dispatcher<'static, 'static> {
    let names = names();
    let mut builder = specs::DispatcherBuilder::new().with_pool(Arc::new(pool(threads)));
    for i in 0..N {
        let deps: &[&str] = if chain && i > 0 {
            &names[i - 1..i]
        } else {
            &[]
        };
        builder.add(SpecsEmpty, names[i], deps);
    }
    builder.build()
}

/// One function type per system: shipyard and bevy_ecs name systems by type.
fn e<const I: usize>() {}

macro_rules! by_index {
    ($($i:literal)*) => {
        fn shipyard_workload(chain: bool) -> shipyard::Workload {
            let mut workload = shipyard::Workload::new("w");
            $(
                workload = if chain && $i > 0 {
                    workload.with_system(e::<$i>.after_all(e::<{ ($i as usize).saturating_sub(1) }>))
                } else {
                    workload.with_system(e::<$i>)
                };
            )*
            workload
        }

        fn bevy_schedule(chain: bool) -> BevySchedule {
            let mut schedule = BevySchedule::default();
            schedule.set_executor(SingleThreadedExecutor::new());
            $(
                if chain && $i > 0 {
                    schedule.add_systems(e::<$i>.after(e::<{ ($i as usize).saturating_sub(1) }>));
                } else {
                    schedule.add_systems(e::<$i>);
                }
            )*
            schedule
        }
    };
}
by_index!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99);

fn shipyard_world(chain: bool, threads: usize) -> shipyard::World {
    let world = shipyard::World::builder()
        .with_local_thread_pool(pool(threads))
        .build();
    shipyard_workload(chain).add_to_world(&world).unwrap();
    world
}

pub fn bench(c: &mut Criterion) {
    for (label, chain) in [("w2-empty-100", false), ("w3-chain-100", true)] {
        let mut group = c.benchmark_group(label);
        for (name, timing) in [("laige-world", false), ("laige-world+timing", true)] {
            let (mut world, schedule) = laige_world(chain, timing);
            group.bench_function(name, |b| {
                b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
            });
        }
        let (mut world, schedule) = laige_world(chain, false);
        world.use_executor(ExecutorOptions::parallel(2));
        group.bench_function("laige-world-parallel-2", |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
        drop(world);
        let (registry, schedule) = laige_bare(chain);
        let mut runner = Runner::with_options(RunnerOptions { timing: false });
        group.bench_function("laige-runner", |b| {
            b.iter(|| {
                let mut host = |_: SystemId, run: &Run| run();
                runner
                    .run(black_box(&schedule), &registry, &mut host)
                    .unwrap();
            })
        });
        let plan = Plan::build_from_access(&schedule, &registry);
        let mut executor = Executor::new(ExecutorOptions {
            threads: 2,
            mode: Mode::Parallel,
            time_systems: false,
        });
        group.bench_function("laige-executor-parallel-2", |b| {
            b.iter(|| {
                executor
                    .run_track(black_box(&plan), 0, registry.runs(), &Calls)
                    .unwrap()
            })
        });
        drop(executor);
        let world = specs::World::new();
        for (name, threads) in [("specs-seq", 1), ("specs-parallel-2", 2)] {
            let mut dispatcher = specs_dispatcher(chain, threads);
            group.bench_function(name, |b| {
                b.iter(|| {
                    if threads == 1 {
                        dispatcher.dispatch_seq(black_box(&world));
                    } else {
                        dispatcher.dispatch_par(black_box(&world));
                    }
                })
            });
        }
        for (name, threads) in [("shipyard-rayon-1", 1), ("shipyard-rayon-2", 2)] {
            let world = shipyard_world(chain, threads);
            group.bench_function(name, |b| {
                b.iter(|| black_box(&world).run_default_workload().unwrap())
            });
        }
        let mut world = bevy_ecs::world::World::new();
        let mut schedule = bevy_schedule(chain);
        schedule.run(&mut world);
        group.bench_function("bevy_ecs-single", |b| {
            b.iter(|| schedule.run(black_box(&mut world)))
        });
        let mut boxed: Vec<Box<dyn FnMut()>> = (0..N)
            .map(|_| Box::new(|| {}) as Box<dyn FnMut()>)
            .collect();
        group.bench_function("vec-box-dyn-fnmut", |b| {
            b.iter(|| {
                for f in black_box(&mut boxed).iter_mut() {
                    f();
                }
            })
        });
        group.finish();
    }
}
