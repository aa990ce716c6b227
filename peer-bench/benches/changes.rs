//! Change detection (issue 22) on bevy_ecs 0.20 beside laige-sim, in one binary: 100,000
//! entities, 1% of them changed per tick (spread: every 100th from a rotating offset;
//! clustered: one run of 1,000), and one system summing `Pos` over `Changed<Pos>`; only the
//! schedule run is timed, the writes that change the 1% are not. Both run single-threaded.
//!
//! Run with `cargo bench --bench changes -- --quick` (figures in `docs/benchmarks.md`,
//! "Change detection (issue 22)").

use std::hint::black_box;
use std::time::{Duration, Instant};

use bevy_ecs::prelude::{Changed as BevyChanged, Component as BevyComponent, Query as BevyQuery};
use bevy_ecs::prelude::{ResMut as BevyResMut, Resource};
use bevy_ecs::schedule::{Schedule, SingleThreadedExecutor};
use criterion::{Criterion, criterion_group};

#[path = "../../crates/laige-sim/benches/common/changes.rs"]
mod changes;

#[derive(BevyComponent, Clone, Copy, Debug, Default)]
struct BPos(f32, #[allow(dead_code)] f32);

#[derive(Resource, Debug, Default)]
struct BSum(f32, u32);

fn bevy_reader(q: BevyQuery<&BPos, BevyChanged<BPos>>, mut sum: BevyResMut<BSum>) {
    let (mut total, mut count) = (0.0, 0);
    for pos in q.iter() {
        total += pos.0;
        count += 1;
    }
    *sum = BSum(total, count);
}

fn changed_query(c: &mut Criterion) {
    let mut group = c.benchmark_group("changed_1pct");
    for (label, spread) in [("spread", true), ("clustered", false)] {
        {
            let mut world = bevy_ecs::world::World::new();
            world.insert_resource(BSum::default());
            let ids: Vec<_> = world
                .spawn_batch((0..changes::ENTITIES).map(|i| BPos(i as f32, 0.0)))
                .collect();
            let mut schedule = Schedule::default();
            schedule.set_executor(SingleThreadedExecutor::new());
            schedule.add_systems(bevy_reader);
            schedule.run(&mut world);
            let mut tick = 0;
            group.bench_function(format!("bevy_ecs-{label}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        tick += 1;
                        for i in changes::changed(tick, spread) {
                            world.get_mut::<BPos>(ids[i as usize]).unwrap().0 += 1.0;
                        }
                        let start = Instant::now();
                        schedule.run(black_box(&mut world));
                        total += start.elapsed();
                    }
                    assert_eq!(world.resource::<BSum>().1, changes::CHANGED);
                    total
                });
            });
        }
        {
            let (mut world, ids, schedule) = changes::changed_world();
            let mut tick = 0;
            group.bench_function(format!("laige-{label}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        tick += 1;
                        changes::change(&mut world, &ids, tick, spread);
                        let start = Instant::now();
                        world.run_systems(black_box(&schedule)).unwrap();
                        total += start.elapsed();
                    }
                    assert_eq!(world.resource::<changes::Sum>().unwrap().1, changes::CHANGED);
                    total
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, changed_query);

#[inline(never)]
fn measured_bevy(schedule: &mut Schedule, world: &mut bevy_ecs::world::World) {
    schedule.run(black_box(world));
}

/// `CHANGES_COUNT=<variant>` runs one variant 100 times for callgrind
/// (`--toggle-collect='*measured*'`): `bevy-spread`, `bevy-clustered`, or one of
/// `changes::count`'s; otherwise the criterion benches.
fn main() {
    if let Ok(variant) = std::env::var("CHANGES_COUNT") {
        if let Some(spread) = match variant.as_str() {
            "bevy-spread" => Some(true),
            "bevy-clustered" => Some(false),
            _ => None,
        } {
            let mut world = bevy_ecs::world::World::new();
            world.insert_resource(BSum::default());
            let ids: Vec<_> = world
                .spawn_batch((0..changes::ENTITIES).map(|i| BPos(i as f32, 0.0)))
                .collect();
            let mut schedule = Schedule::default();
            schedule.set_executor(SingleThreadedExecutor::new());
            schedule.add_systems(bevy_reader);
            schedule.run(&mut world);
            for tick in 1..=100 {
                for i in changes::changed(tick, spread) {
                    world.get_mut::<BPos>(ids[i as usize]).unwrap().0 += 1.0;
                }
                measured_bevy(&mut schedule, &mut world);
            }
            assert_eq!(world.resource::<BSum>().1, changes::CHANGED);
        } else {
            assert!(changes::count(&variant, 100), "unknown variant {variant}");
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
