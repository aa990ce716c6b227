//! Contract §8.3 on a real World: budgets are observed per system, breaches are counted
//! and reported with the contract's fields, ids are validated, and timing can be off.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use laige_sim::diag::{ManualClock, TickClock};
use laige_sim::prelude::*;

/// The time of `an_over_budget_system_still_runs_and_is_reported`'s world.
static BURN_CLOCK: LazyLock<Arc<ManualClock>> = LazyLock::new(Arc::default);
/// The time of `timing_can_be_switched_off_per_world`'s world.
static OFF_CLOCK: LazyLock<Arc<ManualClock>> = LazyLock::new(Arc::default);

/// Takes 2.5 ms: over a 2 ms budget, under the 6 ms critical line.
fn burn(_: &mut SystemContext<'_>) {
    BURN_CLOCK.advance(Duration::from_micros(2_500));
}

/// Takes 2.5 ms, in a world that does not time its systems.
fn burn_untimed(_: &mut SystemContext<'_>) {
    OFF_CLOCK.advance(Duration::from_micros(2_500));
}

/// A world whose systems are timed on `clock`.
fn world_on(clock: &Arc<ManualClock>, timing: bool) -> World {
    World::new(WorldOptions {
        timing,
        clock: TickClock::manual(clock.clone()),
        ..WorldOptions::default()
    })
}

fn noop(_: &mut SystemContext<'_>) {}

#[test]
fn an_over_budget_system_still_runs_and_is_reported() {
    let mut world = world_on(&BURN_CLOCK, true);
    let id = world
        .system("Burn", burn)
        .budget_ms(2.0)
        .register()
        .unwrap();
    let fast = world
        .system("Fast", noop)
        .budget_ms(1.0)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let (res, events) = laige_testkit::capture(|| world.run_systems(&schedule));
    res.unwrap();
    let stats = world.timing_stats(id).unwrap();
    assert_eq!(
        (stats.runs, stats.warns, stats.errors, stats.window_samples),
        (1, 1, 0, 1)
    );
    assert_eq!(stats.last, Duration::from_micros(2_500));
    let overruns: Vec<_> = events
        .iter()
        .filter(|e| e.name == "system/budget_overrun")
        .collect();
    assert_eq!(overruns.len(), 1, "{events:?}");
    let event = overruns[0];
    assert_eq!(event.field("system"), Some("Burn"));
    assert_eq!(event.field("id"), Some("1"));
    assert_eq!(
        event.field("budget_ms").map(|v| v.parse::<f64>().unwrap()),
        Some(2.0)
    );
    assert_eq!(event.field("window_samples"), Some("1"));
    for key in ["measured_ms", "p99_ms"] {
        let ms: f64 = event.field(key).unwrap().parse().unwrap();
        assert_eq!(ms, 2.5, "{key}");
    }
    let fast = world.timing_stats(fast).unwrap();
    assert_eq!((fast.runs, fast.warns), (1, 0));
}

#[test]
fn timing_queries_validate_ids() {
    let mut world = World::default();
    let unknown = SystemId::new(1).unwrap();
    assert!(world.timing_stats(unknown).is_err(), "no systems yet");
    world
        .system("Only", noop)
        .budget_ms(1.0)
        .register()
        .unwrap();
    assert!(world.timing_stats(unknown).is_ok());
    let err = world.timing_stats(SystemId::new(2).unwrap()).unwrap_err();
    assert!(err.to_string().contains('2'), "{err}");
}

#[test]
fn timing_can_be_switched_off_per_world() {
    let mut world = world_on(&OFF_CLOCK, false);
    let id = world
        .system("Burn", burn_untimed)
        .budget_ms(0.001)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let (res, events) = laige_testkit::capture(|| world.run_systems(&schedule));
    res.unwrap();
    assert_eq!(world.timing_stats(id).unwrap().runs, 0);
    assert!(events.is_empty(), "{events:?}");
}
