//! The harness `panics.rs` and `failures.rs` share: a world whose systems `A` and `B`
//! misbehave on `BAD_TICK` after recording a spawn, with a healthy `Count` between them in
//! the same track, and the checks that every runner handles that the same way.

use std::time::Duration;

use laige_sim::prelude::*;
use laige_testkit::capture;

/// The clock: the one entity with a `Pos`, advanced by one each tick in a later track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub f32);
impl Component for Pos {}
/// What `A` (100 + tick), `B` (200 + tick) and `Count` (300 + tick) spawn each tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spawned(pub u32);
impl Component for Spawned {}

/// The tick on which `A` and `B` misbehave.
pub const BAD_TICK: u32 = 3;
pub const TICKS: u32 = 6;

/// A world with `Pos` and `Spawned` registered, the clock entity spawned, and the layout:
/// the systems under test in track `Main`, the clock's advance in the later track `Late`.
pub fn clock_world(seed: u64) -> World {
    let mut world = World::new(WorldOptions {
        seed,
        // One report per misbehaving system. Rate-limit keys ignore fields (contract §4), so
        // a window would count the second report as suppressed; with none, both go out.
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
    world
}

/// What a run of every tick gave.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    /// Each tick's result, as its message.
    pub ticks: Vec<Result<(), String>>,
    /// The bad tick's `event` events, as `"system id"`.
    pub events: Vec<String>,
    pub state_hash: u64,
}

/// Runs every tick of a world `build` makes, on `executor` or the sequential runner, and
/// checks that every tick's healthy spawns arrived and the misbehaving runs' did not.
pub fn run(
    build: fn() -> (World, Schedule),
    event: &str,
    executor: Option<ExecutorOptions>,
) -> Outcome {
    let (mut world, schedule) = build();
    if let Some(options) = executor {
        world.use_executor(options);
    }
    let mut ticks = Vec::new();
    let mut events = Vec::new();
    for tick in 0..TICKS {
        let (res, captured) = capture(|| world.run_systems(&schedule));
        if tick == BAD_TICK {
            events = captured
                .iter()
                .filter(|e| e.name == event)
                .map(|e| format!("{} {}", e.field("system").unwrap(), e.field("id").unwrap()))
                .collect();
        }
        ticks.push(res.map_err(|err| err.to_string()));
    }
    let mut spawned = Vec::new();
    world.each::<&Spawned>(|s| spawned.push(s.0)).unwrap();
    for tick in 0..TICKS {
        let have = |n: u32| spawned.contains(&n);
        let bad = tick == BAD_TICK;
        assert_eq!(have(100 + tick), !bad, "A's spawn of tick {tick}");
        assert_eq!(have(200 + tick), !bad, "B's spawn of tick {tick}");
        assert!(
            have(300 + tick),
            "Count's spawn of tick {tick}: the track went on"
        );
    }
    Outcome {
        ticks,
        events,
        state_hash: world.state_hash(),
    }
}

/// Runs `build`'s world on the sequential runner, checks that only the bad tick failed,
/// with an error containing each of `error_says`, and that 1, 2 and 4 threads in both
/// executor modes give the same outcome; returns the bad tick's events.
pub fn assert_same_on_every_runner(
    build: fn() -> (World, Schedule),
    event: &str,
    error_says: &[&str],
) -> Vec<String> {
    let sequential = run(build, event, None);
    for (tick, result) in sequential.ticks.iter().enumerate() {
        if tick as u32 == BAD_TICK {
            let err = result.as_ref().unwrap_err();
            for says in error_says {
                assert!(err.contains(says), "{err}");
            }
        } else {
            assert_eq!(result, &Ok(()), "tick {tick} runs normally");
        }
    }
    for threads in [1, 2, 4] {
        for mode in [Mode::Parallel, Mode::Auto] {
            let options = ExecutorOptions {
                threads,
                mode,
                ..Default::default()
            };
            let parallel = run(build, event, Some(options));
            assert_eq!(parallel, sequential, "{threads} threads, {mode:?}");
        }
    }
    sequential.events
}
