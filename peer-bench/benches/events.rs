//! Issue 22's event workload: 10,000 events a tick through one queue, two writers of 5,000
//! each and two readers of all of them, on laige-sim (`EventWriter`/`EventReader` on the
//! sequential runner) and on bevy_ecs 0.20 messages (`MessageWriter`/`MessageReader` on the
//! single-threaded executor, with the per-frame `Messages::update` a bevy app runs), in one
//! binary so the ratio comes from one run.
//!
//! `cargo bench --bench events -- --warm-up-time 1 --measurement-time 3`, or one variant per
//! process for callgrind instruction counts:
//! `valgrind --tool=callgrind --toggle-collect='*measured*' target/release/deps/events-<hash> laige`
//! (variants `laige`, `bevy`; each runs 100 ticks counted after 20 of warm-up).

use std::hint::black_box;

use bevy_ecs::message::{Message, MessageReader, MessageWriter, Messages};
use bevy_ecs::prelude::{IntoScheduleConfigs, ResMut};
use bevy_ecs::schedule::{Schedule as BevySchedule, SingleThreadedExecutor};
use criterion::Criterion;
use laige_sim::prelude::*;

/// Events per writer per tick.
const PER_WRITER: u32 = 5_000;

#[derive(Clone, Copy, Debug, Message)]
struct Hit {
    target: u32,
    amount: f32,
}

fn hits(base: u32) -> impl Iterator<Item = Hit> {
    (0..PER_WRITER).map(move |i| Hit {
        target: base + i,
        amount: i as f32 * 0.5,
    })
}

fn laige_world() -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_events::<Hit>(PER_WRITER as usize).unwrap();
    world
        .system("WriteA", |mut out: EventWriter<'_, Hit>| out.write_batch(hits(0)))
        .register()
        .unwrap();
    world
        .system("WriteB", |mut out: EventWriter<'_, Hit>| {
            out.write_batch(hits(PER_WRITER))
        })
        .register()
        .unwrap();
    world
        .system("ReadA", |hits: EventReader<'_, Hit>| {
            black_box(hits.read().fold(0u32, |acc, it| acc ^ it.target));
        })
        .after("WriteA, WriteB")
        .register()
        .unwrap();
    world
        .system("ReadB", |hits: EventReader<'_, Hit>| {
            black_box(hits.read().fold(0.0f32, |acc, it| acc + it.amount));
        })
        .after("WriteA, WriteB")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.prepare_schedule(&schedule).unwrap();
    (world, schedule)
}

fn bevy_update(mut messages: ResMut<Messages<Hit>>) {
    messages.update();
}

fn bevy_write_a(mut out: MessageWriter<Hit>) {
    out.write_batch(hits(0));
}

fn bevy_write_b(mut out: MessageWriter<Hit>) {
    out.write_batch(hits(PER_WRITER));
}

fn bevy_read_a(mut hits: MessageReader<Hit>) {
    black_box(hits.read().fold(0u32, |acc, it| acc ^ it.target));
}

fn bevy_read_b(mut hits: MessageReader<Hit>) {
    black_box(hits.read().fold(0.0f32, |acc, it| acc + it.amount));
}

fn bevy_world() -> (bevy_ecs::world::World, BevySchedule) {
    let mut world = bevy_ecs::world::World::new();
    world.init_resource::<Messages<Hit>>();
    let mut schedule = BevySchedule::default();
    schedule.set_executor(SingleThreadedExecutor::new());
    schedule.add_systems(
        (
            bevy_update,
            bevy_write_a,
            bevy_write_b,
            (bevy_read_a, bevy_read_b),
        )
            .chain(),
    );
    schedule.run(&mut world);
    (world, schedule)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("events-10k-2w-2r");
    let (mut world, schedule) = laige_world();
    group.bench_function("laige-world", |b| {
        b.iter(|| world.run_systems(&schedule).unwrap())
    });
    let (mut world, mut schedule) = bevy_world();
    group.bench_function("bevy_ecs", |b| b.iter(|| schedule.run(&mut world)));
    group.finish();
}

#[inline(never)]
fn measured(f: impl FnOnce()) {
    f()
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("laige") => {
            let (mut world, schedule) = laige_world();
            (0..20).for_each(|_| world.run_systems(&schedule).unwrap());
            measured(|| (0..100).for_each(|_| world.run_systems(&schedule).unwrap()));
        }
        Some("bevy") => {
            let (mut world, mut schedule) = bevy_world();
            (0..20).for_each(|_| schedule.run(&mut world));
            measured(|| (0..100).for_each(|_| schedule.run(&mut world)));
        }
        _ => {
            let mut c = Criterion::default().configure_from_args();
            bench(&mut c);
            c.final_summary();
        }
    }
}
