//! Event queues allocate nothing in a steady-state tick, every thread of the process
//! counted (so this binary holds one test): two writers of 1,000 events each, readers on
//! both sides of them, a reactive reader of a queue empty every other tick, and a
//! `par_each` loop emitting 3,000 events through a sink, on the sequential runner and on
//! 2 and 4 threads.

use std::hint::black_box;

use laige_sim::prelude::*;

#[global_allocator]
static GLOBAL: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

#[derive(Component)]
struct Pos(f32);

#[derive(Clone, Copy)]
struct Hit(u32);

#[derive(Clone, Copy)]
struct Spark(f32);

fn build(threads: Option<usize>) -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_events::<Hit>(1000).unwrap();
    world.register_events::<u64>(4).unwrap();
    world.register_events::<Spark>(4096).unwrap();
    world.insert_resource(0u32).unwrap();
    for i in 0..3000 {
        world.spawn((Pos(i as f32),)).unwrap();
    }
    world
        .system(
            "Early",
            |hits: EventReader<'_, Hit>, mut sum: ResMut<'_, u32>| {
                *sum = sum.wrapping_add(hits.read().map(|it| it.0).sum::<u32>());
            },
        )
        .register()
        .unwrap();
    for name in ["WriteA", "WriteB"] {
        world
            .system(name, |mut hits: EventWriter<'_, Hit>| {
                hits.write_batch((0..1000).map(Hit));
            })
            .after("Early")
            .register()
            .unwrap();
    }
    world
        .system("Late", |hits: EventReader<'_, Hit>| {
            black_box(hits.read().fold(0u32, |acc, it| acc ^ it.0));
        })
        .after("WriteA, WriteB")
        .register()
        .unwrap();
    world
        .system(
            "Sometimes",
            |mut ticks: EventWriter<'_, u64>, mut n: Local<'_, u64>| {
                *n += 1;
                if (*n).is_multiple_of(2) {
                    ticks.write(*n);
                }
            },
        )
        .register()
        .unwrap();
    world
        .system("React", |ticks: EventReader<'_, u64>| {
            black_box(ticks.len());
        })
        .after("Sometimes")
        .reactive()
        .register()
        .unwrap();
    world
        .system(
            "Scatter",
            |mut q: Query<'_, &Pos>, mut out: EventWriter<'_, Spark>| {
                let sink = out.par_sink();
                q.par_each(|batch, pos| sink.write(batch, Spark(pos.0)))
            },
        )
        .register()
        .unwrap();
    world
        .system("Gather", |sparks: EventReader<'_, Spark>| {
            black_box(sparks.read().fold(0.0f32, |acc, it| acc + it.0));
        })
        .after("Scatter")
        .register()
        .unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn event_queues_allocate_nothing_on_any_thread() {
    for threads in [None, Some(2), Some(4)] {
        let (mut world, schedule) = build(threads);
        for _ in 0..30 {
            world.run_systems(&schedule).unwrap();
        }
        let before = laige_testkit::allocations_all_threads();
        for _ in 0..100 {
            world.run_systems(&schedule).unwrap();
            assert!(world.tick_report().events().is_clean());
        }
        let counted = laige_testkit::allocations_all_threads() - before;
        println!("events-zeroalloc threads={threads:?} ticks=100 allocs={counted}");
        assert_eq!(
            counted, 0,
            "event queues allocated {counted} times on {threads:?}"
        );
    }
}
