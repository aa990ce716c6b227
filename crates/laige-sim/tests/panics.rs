//! One panic policy on every runner: a system that panics is named in the tick's error and
//! in one `system/system_panicked` event, the rest of its track runs, the commands it
//! recorded before panicking never reach the world, and the next tick runs normally. The
//! world ends in the same state on the sequential runner and on the executor at any worker
//! count, with two panicking systems in one track.

use laige_sim::prelude::*;

#[path = "support/bad_tick.rs"]
mod bad_tick;
use bad_tick::*;

fn tick_of(ctx: &mut SystemContext<'_>) -> u32 {
    let mut tick = 0;
    ctx.each::<&Pos>(|_, p| tick = p.0 as u32).unwrap();
    tick
}

/// Spawns an entity every tick, then panics on `BAD_TICK` after its spawn was recorded.
fn spawn_then_panic_a(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    ctx.commands().spawn((Spawned(100 + tick),));
    assert_ne!(tick, BAD_TICK, "A gives up on tick {tick}");
}

/// The same, with a `String` payload.
fn spawn_then_panic_b(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    ctx.commands().spawn((Spawned(200 + tick),));
    if tick == BAD_TICK {
        panic!("B gives up on tick {}", tick);
    }
}

/// A healthy system between the two: it must run on the bad tick too.
fn count(ctx: &mut SystemContext<'_>) {
    let tick = tick_of(ctx);
    ctx.commands().spawn((Spawned(300 + tick),));
}

/// Advances the clock entity that the others read their tick from; runs in a later track.
fn advance(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Pos>(|_, p| p.0 += 1.0).unwrap();
}

fn world() -> (World, Schedule) {
    let mut world = clock_world(0xBAD);
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

#[test]
fn a_panic_is_contained_the_same_way_on_every_runner() {
    // The first panicked system in schedule order is the error.
    let events = assert_same_on_every_runner(
        world,
        "system/system_panicked",
        &["system `PanicA` panicked", "A gives up on tick 3"],
    );
    assert_eq!(
        events,
        ["PanicA 1", "PanicB 3"],
        "one event per panicked system"
    );
}
