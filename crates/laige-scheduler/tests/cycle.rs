//! One cycle, one report: the flat and the declarative front end walk the same graph the
//! same way and print the same words; a cycle of any length is reported whole.

#[path = "support/ring.rs"]
mod support;

use laige_scheduler::{Cycle, EdgeCause, Layout, ScheduleError, schedule, schedule_declared};
use laige_testkit::capture;
use support::ring;

fn cycle(err: &ScheduleError) -> &Cycle {
    match err {
        ScheduleError::DependencyCycle(cycle) => cycle,
        other => panic!("expected a cycle, got {other}"),
    }
}

#[test]
fn one_cycle_prints_the_same_from_both_front_ends() {
    // Two registries: each reports through its own rate limiter.
    let (registry, other) = (ring(3), ring(3));
    let layout = Layout::new().dag("Main", "Game", &["Update"], "Update");
    let (flat, flat_events) = capture(|| schedule(&registry).unwrap_err());
    let (declared, declared_events) = capture(|| schedule_declared(&other, &layout).unwrap_err());
    assert_eq!(flat, declared);
    assert_eq!(flat.to_string(), declared.to_string());
    assert_eq!(flat_events, declared_events);
    assert_eq!(flat_events[0].field("cycle"), Some("Ring0,Ring1,Ring2"));
    let steps: Vec<_> = cycle(&flat).steps().collect();
    assert_eq!(steps.len(), 3);
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step.system.name, format!("Ring{i}"));
        assert_eq!(step.waits_for.name, format!("Ring{}", (i + 1) % 3));
        assert_eq!(step.cause, EdgeCause::After);
    }
}

/// Past the 24 steps a cycle holds inline, the report is still the whole walk.
#[test]
fn a_long_cycle_is_reported_whole() {
    let registry = ring(40);
    let err = schedule(&registry).unwrap_err();
    let cycle = cycle(&err);
    assert_eq!(cycle.len(), 40);
    let names: Vec<String> = (0..40).map(|i| format!("Ring{i}")).collect();
    assert_eq!(cycle.names().to_string(), names.join(","));
    let (waiting, waited_for) = cycle.closing_edge();
    assert_eq!((waiting.name, waited_for.name), ("Ring39", "Ring0"));
    assert!(err.to_string().ends_with(
        "which closes the cycle: remove `Ring0` from `Ring39`'s after (or break another edge)"
    ));
}
