//! Fallible systems, tested as panics are (`panics.rs`): a typed system that returns `Err`
//! is named in the tick's error (`TickError::SystemFailed`) and in one `system/system_failed`
//! event, the rest of its track runs, the commands it recorded in that run never reach the
//! world, and the next tick runs it again. The world ends in the same state on the
//! sequential runner and on the executor at any worker count.

use std::fmt;

use laige_sim::prelude::*;
use laige_testkit::capture;

#[path = "support/bad_tick.rs"]
mod bad_tick;
use bad_tick::*;

/// A resource no system declares: reading it is an undeclared access.
struct Undeclared;

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
    commands.spawn((Spawned(100 + tick),));
    if tick == BAD_TICK {
        return Err(GaveUp(tick).into());
    }
    Ok(())
}

/// The escape hatch: a context system whose query error converts with `?` on `BAD_TICK`.
fn spawn_then_fail_b(ctx: &mut SystemContext<'_>) -> Result<(), QueryError> {
    let mut tick = 0;
    ctx.each::<&Pos>(|_, p| tick = p.0 as u32)?;
    ctx.commands().spawn((Spawned(200 + tick),));
    if tick == BAD_TICK {
        ctx.resource::<Undeclared>()?;
    }
    Ok(())
}

/// A healthy system between the two: it must run on the bad tick too.
fn count(mut clock: Query<'_, &Pos>, mut commands: Commands<'_>) -> Result<(), BoxError> {
    let tick = tick_of(&mut clock)?;
    commands.spawn((Spawned(300 + tick),));
    Ok(())
}

fn world() -> (World, Schedule) {
    let mut world = clock_world(0xFA11);
    world.insert_resource(Undeclared).unwrap();
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

#[test]
fn a_failure_is_handled_the_same_way_on_every_runner() {
    let events = assert_same_on_every_runner(
        world,
        "system/system_failed",
        &["system `FailA` failed", "A gives up on tick 3"],
    );
    assert_eq!(
        events,
        ["FailA 1", "FailB 3"],
        "one event per failed system"
    );
}

/// A query error of the escape hatch names the system and the access to add.
#[test]
fn the_failed_event_carries_the_error_message() {
    let (mut world, schedule) = world();
    for _ in 0..BAD_TICK {
        world.run_systems(&schedule).unwrap();
    }
    let (res, events) = capture(|| world.run_systems(&schedule));
    match &res {
        Err(TickError::SystemFailed { name, .. }) => {
            assert_eq!(*name, "FailA", "the first failure in schedule order");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
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
