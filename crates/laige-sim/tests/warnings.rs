//! The warning sequence of ten ticks, as a snapshot: budget overruns of two systems sharing
//! one rate-limit key (so most are suppressed), a critical run, a `rate_limited` summary
//! each time the window reopens, and a system that panics on three ticks (the second one
//! suppressed). ARCHITECTURE.md promises the sequence is the same on the sequential runner
//! and on the executor at any thread count; this checks it for 1, 2 and 4 threads.
//!
//! Time is the test's, for timing and the rate limiter alike: one manual clock that the
//! systems advance by what they "take", and that each tick starts at a multiple of 16 ms.
//! A tick's systems take at most 6 ms, and the window is 40 ms, so whether a report falls
//! inside a window never depends on where in its tick it was made: on the executor, budget
//! events go out after the track; on the sequential runner, after each system.

use std::sync::Arc;
use std::time::Duration;

use laige_sim::diag::{ManualClock, TickClock};
use laige_sim::prelude::*;
use laige_testkit::{capture, render_with_messages};

/// The tick number and the clock, as a resource every system reads.
struct Frame {
    tick: u32,
    clock: Arc<ManualClock>,
}

const FRAME: Duration = Duration::from_millis(16);
const WINDOW: Duration = Duration::from_millis(40);
const TICKS: u32 = 10;

fn spend(ctx: &mut SystemContext<'_>, micros: u64) -> u32 {
    let frame = ctx.resource::<Frame>().unwrap();
    frame.clock.advance(Duration::from_micros(micros));
    frame.tick
}

fn tick_of(ctx: &mut SystemContext<'_>) -> u32 {
    spend(ctx, 0)
}

/// Budget 1 ms: takes 1.5 ms, and 4 ms (critical) on tick 5.
fn slow(ctx: &mut SystemContext<'_>) {
    let micros = if tick_of(ctx) == 5 { 4_000 } else { 1_500 };
    spend(ctx, micros);
}

/// Budget 2 ms: takes 0.5 ms, after `Slow`.
fn steady(ctx: &mut SystemContext<'_>) {
    spend(ctx, 500);
}

/// Budget 0.2 ms: takes 0.3 ms every tick, in the second track.
fn late(ctx: &mut SystemContext<'_>) {
    spend(ctx, 300);
}

/// Panics on ticks 2, 3 and 6.
fn flaky(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    assert!(![2, 3, 6].contains(&tick), "flaky gives up on tick {tick}");
}

/// Takes no time; runs beside the others on the executor, with a budget no neighbour's
/// time can breach.
fn idle(_: &mut SystemContext<'_>) {}

fn world(clock: &Arc<ManualClock>) -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        clock: TickClock::manual(clock.clone()),
        diagnostics: Some(Diagnostics::with_clock(WINDOW, clock.clone())),
        ..WorldOptions::default()
    });
    world
        .insert_resource(Frame {
            tick: 0,
            clock: clock.clone(),
        })
        .unwrap();
    world.set_layout(Layout::new().dag("Main", "Sim", &["Work"], "Work").dag(
        "Late",
        "Post",
        &["Work"],
        "Work",
    ));
    let systems: [(&str, SystemFn, f32, &str); 7] = [
        ("Slow", slow, 1.0, "Sim"),
        ("Steady", steady, 2.0, "Sim"),
        ("Flaky", flaky, 50.0, "Sim"),
        ("IdleA", idle, 50.0, "Sim"),
        ("IdleB", idle, 50.0, "Sim"),
        ("Late", late, 0.2, "Post"),
        ("IdleC", idle, 50.0, "Post"),
    ];
    for (name, run, budget, dag) in systems {
        let builder = world
            .system(name, run)
            .budget_ms(budget)
            .in_dag(dag)
            .reads::<Frame>();
        let builder = if name == "Steady" {
            builder.after("Slow")
        } else {
            builder
        };
        builder.register().unwrap();
    }
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// Every tick's outcome and events, rendered.
fn sequence(threads: Option<usize>) -> String {
    let clock = Arc::new(ManualClock::default());
    let (mut world, schedule) = world(&clock);
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let mut out = String::new();
    for tick in 0..TICKS {
        clock.set(FRAME * tick);
        world.resource_mut::<Frame>().unwrap().tick = tick;
        let (res, events) = capture(|| world.run_systems(&schedule));
        out.push_str(&format!("== tick {tick}: "));
        match res {
            Ok(()) => out.push_str("ok\n"),
            Err(err) => out.push_str(&format!("{err}\n")),
        }
        out.push_str(&render_with_messages(&events));
    }
    out
}

#[test]
fn the_warning_sequence_is_the_same_on_every_runner() {
    let sequential = sequence(None);
    insta::assert_snapshot!(sequential);
    for threads in [1, 2, 4] {
        assert_eq!(sequence(Some(threads)), sequential, "{threads} threads");
    }
}
