//! Fallible systems, tested as panics are (`panics.rs`): a typed system that returns `Err`
//! is named in the tick's error (`TickError::SystemFailed`) and in one `system/system_failed`
//! event, the rest of its track runs, the commands it recorded in that run never reach the
//! world, and the next tick runs it again. The world ends in the same state on the
//! sequential runner and on the executor at any worker count.

use std::fmt;
use std::time::Duration;

use laige_sim::prelude::*;
use laige_testkit::capture;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spawned(u32);
/// A resource no system declares: reading it is an undeclared access.
struct Undeclared;

/// The tick on which the failing systems fail.
const BAD_TICK: u32 = 3;
const TICKS: u32 = 6;

/// The error `FailA` returns: a type of the user's own.
#[derive(Debug)]
struct GaveUp(u32);

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "A gives up on tick {}", self.0)
    }
}

impl std::error::Error for GaveUp {}

fn tick_of(clock: &mut Query<'_, &Pos>) -> Result<u32, QueryError> {
    let mut tick = 0;
    clock.each(|_, p| tick = p.0 as u32)?;
    Ok(tick)
}

/// Spawns an entity every tick, then fails with its own error type on `BAD_TICK`.
fn spawn_then_fail_a(
    mut clock: Query<'_, &Pos>,
    mut commands: Commands<'_>,
) -> Result<(), BoxError> {
    let tick = tick_of(&mut clock)?;
    commands.spawn((Spawned(100 + tick),))?;
    if tick == BAD_TICK {
        return Err(GaveUp(tick).into());
    }
    Ok(())
}

/// The escape hatch: a context system whose query error converts with `?` on `BAD_TICK`.
fn spawn_then_fail_b(ctx: &mut SystemContext<'_>) -> Result<(), QueryError> {
    let mut tick = 0;
    ctx.each::<&Pos>(|_, p| tick = p.0 as u32)?;
    ctx.commands().spawn((Spawned(200 + tick),)).unwrap();
    if tick == BAD_TICK {
        ctx.resource::<Undeclared>()?;
    }
    Ok(())
}

/// A healthy system between the two: it must run on the bad tick too.
fn count(mut clock: Query<'_, &Pos>, mut commands: Commands<'_>) -> Result<(), BoxError> {
    let tick = tick_of(&mut clock)?;
    commands.spawn((Spawned(300 + tick),))?;
    Ok(())
}

fn world() -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        seed: 0xFA11,
        // One report per failed system: with a window, the second would be suppressed.
        diagnostics: Some(Diagnostics::new(Duration::ZERO)),
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Spawned>().unwrap();
    world.insert_resource(Undeclared).unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    world.set_layout(Layout::new().dag("Main", "Game", &["Work"], "Work").dag(
        "Late",
        "Clock",
        &["Tick"],
        "Tick",
    ));
    world.system("FailA", spawn_then_fail_a).register().unwrap();
    world.system("Count", count).register().unwrap();
    world
        .system("FailB", spawn_then_fail_b)
        .reads::<Pos>()
        .register()
        .unwrap();
    world
        .system("Advance", |mut clock: Query<'_, &mut Pos>| {
            clock.each(|_, p| p.0 += 1.0)
        })
        .in_dag("Clock")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// Runs every tick, returning each tick's outcome, the `system_failed` events of the bad
/// tick, and the final state hash.
fn run(executor: Option<ExecutorOptions>) -> (Vec<Result<(), String>>, Vec<String>, u64) {
    let (mut world, schedule) = world();
    if let Some(options) = executor {
        world.use_executor(options);
    }
    let mut outcomes = Vec::new();
    let mut failed_events = Vec::new();
    for tick in 0..TICKS {
        let (res, events) = capture(|| world.run_systems(&schedule));
        if tick == BAD_TICK {
            failed_events = events
                .iter()
                .filter(|e| e.name == "system/system_failed")
                .map(|e| format!("{} {}", e.field("system").unwrap(), e.field("id").unwrap()))
                .collect();
            if let Err(TickError::SystemFailed { name, .. }) = &res {
                assert_eq!(*name, "FailA", "the first failure in schedule order");
            } else {
                panic!("tick {tick}: expected a failure, got {res:?}");
            }
        }
        outcomes.push(res.map_err(|err| err.to_string()));
    }
    let mut spawned = Vec::new();
    world.each::<&Spawned>(|_, s| spawned.push(s.0)).unwrap();
    spawned.sort_unstable();
    // Every tick's healthy spawns are there; the failed runs' spawns of the bad tick are not.
    for tick in 0..TICKS {
        let have = |n: u32| spawned.contains(&n);
        let failed = tick == BAD_TICK;
        assert_eq!(have(100 + tick), !failed, "A's spawn of tick {tick}");
        assert_eq!(have(200 + tick), !failed, "B's spawn of tick {tick}");
        assert!(
            have(300 + tick),
            "Count's spawn of tick {tick}: the track went on"
        );
    }
    (outcomes, failed_events, world.state_hash())
}

#[test]
fn a_failure_is_handled_the_same_way_on_every_runner() {
    let (outcomes, events, sequential) = run(None);
    for (tick, outcome) in outcomes.iter().enumerate() {
        if tick as u32 == BAD_TICK {
            let err = outcome.as_ref().unwrap_err();
            assert!(err.contains("system `FailA` failed"), "{err}");
            assert!(err.contains("A gives up on tick 3"), "{err}");
        } else {
            assert_eq!(outcome, &Ok(()), "tick {tick} runs normally");
        }
    }
    assert_eq!(
        events,
        ["FailA 1", "FailB 3"],
        "one event per failed system"
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

/// A query error of the escape hatch names the system and the access to add.
#[test]
fn the_failed_event_carries_the_error_message() {
    let (mut world, schedule) = world();
    for _ in 0..BAD_TICK {
        world.run_systems(&schedule).unwrap();
    }
    let (res, events) = capture(|| world.run_systems(&schedule));
    assert!(res.is_err());
    let failed: Vec<_> = events
        .iter()
        .filter(|e| e.name == "system/system_failed")
        .collect();
    assert_eq!(failed.len(), 2);
    let b = failed[1];
    assert_eq!(b.field("system"), Some("FailB"));
    let message = b.field("error").unwrap();
    assert!(
        message.contains("FailB") && message.contains("Undeclared"),
        "{message}"
    );
    assert!(b.message.contains("system `FailB` failed"), "{}", b.message);
    // The access violation itself was reported too, where it happened.
    assert!(events.iter().any(|e| e.name == "ecs/access_violation"));
}
