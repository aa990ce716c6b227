//! One panic policy on every runner: a system that panics is named in the tick's error and
//! in one `system/system_panicked` event, the rest of its track runs, the commands it
//! recorded before panicking never reach the world, and the next tick runs normally. The
//! world ends in the same state on the sequential runner and on the executor at any worker
//! count, with two panicking systems in one track.

use std::time::Duration;

use laige_sim::prelude::*;
use laige_testkit::capture;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spawned(u32);

/// The tick on which the panicking systems panic.
const BAD_TICK: u32 = 3;
const TICKS: u32 = 6;

fn tick_of(ctx: &mut SystemContext<'_>) -> u32 {
    let mut tick = 0;
    ctx.each::<&Pos>(|_, p| tick = p.0 as u32).unwrap();
    tick
}

/// Spawns an entity every tick, then panics on `BAD_TICK` after its spawn was recorded.
fn spawn_then_panic_a(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    ctx.commands().spawn((Spawned(100 + tick),)).unwrap();
    assert_ne!(tick, BAD_TICK, "A gives up on tick {tick}");
}

/// The same, with a `String` payload.
fn spawn_then_panic_b(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    ctx.commands().spawn((Spawned(200 + tick),)).unwrap();
    if tick == BAD_TICK {
        panic!("B gives up on tick {}", tick);
    }
}

/// A healthy system between the two: it must run on the bad tick too.
fn count(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    ctx.commands().spawn((Spawned(300 + tick),)).unwrap();
}

/// Advances the clock entity that the others read their tick from; runs in a later track.
fn advance(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Pos>(|_, p| p.0 += 1.0).unwrap();
}

fn world() -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        seed: 0xBAD,
        // Each panicked system is reported once. Rate-limit keys ignore fields (contract
        // §4), so a window would count the second report as suppressed; with none, both go out.
        diagnostics: Some(Diagnostics::new(Duration::ZERO)),
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Spawned>().unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    world.set_layout(Layout::new().dag("Main", "Game", &["Work"], "Work").dag(
        "Late",
        "Clock",
        &["Tick"],
        "Tick",
    ));
    for (name, run) in [
        ("PanicA", spawn_then_panic_a as SystemFn),
        ("Count", count),
        ("PanicB", spawn_then_panic_b),
    ] {
        world
            .system(name, run)
            .budget_ms(5.0)
            .reads::<Pos>()
            .register()
            .unwrap();
    }
    world
        .system("Advance", advance)
        .budget_ms(5.0)
        .in_dag("Clock")
        .writes::<Pos>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// Runs every tick, returning each tick's outcome, the events of the bad tick, and the
/// final state hash.
fn run(executor: Option<ExecutorOptions>) -> (Vec<Result<(), String>>, Vec<String>, u64) {
    let (mut world, schedule) = world();
    if let Some(options) = executor {
        world.use_executor(options);
    }
    let mut outcomes = Vec::new();
    let mut panicked_events = Vec::new();
    for tick in 0..TICKS {
        let (res, events) = capture(|| world.run_systems(&schedule));
        if tick == BAD_TICK {
            panicked_events = events
                .iter()
                .filter(|e| e.name == "system/system_panicked")
                .map(|e| format!("{} {}", e.field("system").unwrap(), e.field("id").unwrap()))
                .collect();
        }
        outcomes.push(res.map_err(|err| err.to_string()));
    }
    let mut spawned = Vec::new();
    world.each::<&Spawned>(|_, s| spawned.push(s.0)).unwrap();
    spawned.sort_unstable();
    // Every tick's healthy spawns are there; the panicked systems' spawns of the bad tick are not.
    for tick in 0..TICKS {
        let have = |n: u32| spawned.contains(&n);
        let panicked = tick == BAD_TICK;
        assert_eq!(have(100 + tick), !panicked, "A's spawn of tick {tick}");
        assert_eq!(have(200 + tick), !panicked, "B's spawn of tick {tick}");
        assert!(
            have(300 + tick),
            "Count's spawn of tick {tick}: the track went on"
        );
    }
    (outcomes, panicked_events, world.state_hash())
}

#[test]
fn a_panic_is_contained_the_same_way_on_every_runner() {
    let (outcomes, events, sequential) = run(None);
    for (tick, outcome) in outcomes.iter().enumerate() {
        if tick as u32 == BAD_TICK {
            let err = outcome.as_ref().unwrap_err();
            // The first panicked system in schedule order is the error.
            assert!(err.contains("system `PanicA` panicked"), "{err}");
            assert!(err.contains("A gives up on tick 3"), "{err}");
        } else {
            assert_eq!(outcome, &Ok(()), "tick {tick} runs normally");
        }
    }
    assert_eq!(
        events,
        ["PanicA 1", "PanicB 3"],
        "one event per panicked system"
    );

    for threads in [1, 2, 4] {
        for mode in [Mode::Parallel, Mode::Auto] {
            let options = ExecutorOptions {
                threads,
                mode,
                ..Default::default()
            };
            let (parallel_outcomes, parallel_events, hash) = run(Some(options));
            let case = format!("{threads} threads, {mode:?}");
            assert_eq!(parallel_outcomes, outcomes, "{case}");
            assert_eq!(parallel_events, events, "{case}");
            assert_eq!(hash, sequential, "{case}: the state hash");
        }
    }
}
