//! The metronome on a manual clock: targets, catch-up, backlog drop, fixed dt, overstep.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use laige_runtime::{FixedTime, FrameTime, Runtime, RuntimeError, RuntimeOptions};
use laige_world::Res;
use support::{Load, MS};

fn runtime(load: &Load, hz: u32) -> Runtime {
    let mut world = load.world();
    load.register(&mut world);
    Runtime::new(world, load.options(hz)).unwrap()
}

#[test]
fn targets_are_the_previous_target_plus_the_interval() {
    let load = Load::default();
    let mut rt = runtime(&load, 100);
    // Each tick takes 3 ms; the next target stays on the 10 ms grid regardless.
    load.set(3 * MS);
    for k in 0..5u32 {
        let summary = rt.run_frame().unwrap();
        assert_eq!(summary.ticks, 1);
        assert_eq!(rt.next_target(), (k + 1) * 10 * MS);
    }
    let starts: Vec<u64> = rt
        .telemetry()
        .ticks()
        .map(|(t, _)| t.target_nanos)
        .collect();
    assert_eq!(starts, [0, 10_000_000, 20_000_000, 30_000_000, 40_000_000]);
    // Waiting put the clock on each target, then the tick's load moved it 3 ms on.
    assert_eq!(rt.now(), 43 * MS);
}

#[test]
fn a_late_tick_is_caught_up_back_to_back() {
    let load = Load::default();
    let mut rt = runtime(&load, 100);
    // One tick of 25 ms: targets 10 and 20 are due when it ends.
    load.set(25 * MS);
    assert_eq!(rt.run_frame().unwrap().ticks, 1);
    load.set(MS);
    let summary = rt.run_frame().unwrap();
    assert_eq!(summary.ticks, 2);
    assert_eq!(summary.dropped, 0);
    let catch_up: Vec<u32> = rt.telemetry().ticks().map(|(t, _)| t.catch_up).collect();
    assert_eq!(catch_up, [0, 0, 1]);
    // Back on the grid: the next target is 30 ms, not 22 ms plus an interval.
    assert_eq!(rt.next_target(), 30 * MS);
}

#[test]
fn a_backlog_past_the_catch_up_is_dropped_and_reported() {
    let load = Load::default();
    let mut rt = runtime(&load, 100);
    // 95 ms of load: targets 10..=90 are due, 9 ticks; 1 + 3 run, 5 are dropped.
    load.set(95 * MS);
    rt.run_frame().unwrap();
    load.set(Duration::ZERO);
    let summary = rt.run_frame().unwrap();
    assert_eq!(summary.ticks, 1 + RuntimeOptions::DEFAULT_MAX_CATCH_UP);
    assert_eq!(summary.dropped, 5);
    let (first, _) = rt.telemetry().ticks().nth(1).unwrap();
    assert_eq!(first.dropped, 5);
    // The phase is kept: the next target is still on the 10 ms grid, after now.
    assert_eq!(rt.next_target(), 100 * MS);
    assert_eq!(rt.ticks_run(), 5);
}

#[test]
fn a_frame_never_spirals_under_constant_overload() {
    let load = Load::default();
    let mut rt = runtime(&load, 100);
    load.set(50 * MS);
    let mut dropped = 0;
    for _ in 0..20 {
        let summary = rt.run_frame().unwrap();
        // However far behind, a frame runs at most the catch-up window...
        assert!(summary.ticks <= 1 + RuntimeOptions::DEFAULT_MAX_CATCH_UP);
        dropped += summary.dropped;
    }
    // ...and the rest of the backlog is dropped, not carried into later frames.
    assert!(dropped > 0);
    let last = rt.telemetry().latest().unwrap().0;
    assert!(last.catch_up <= RuntimeOptions::DEFAULT_MAX_CATCH_UP);
}

#[test]
fn systems_read_a_fixed_dt_never_measured_time() {
    let load = Load::default();
    let mut world = load.world();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let out = seen.clone();
    world
        .system("Read", move |time: Res<'_, FixedTime>| {
            out.lock().unwrap().push((time.tick, time.dt));
        })
        .register()
        .unwrap();
    load.register(&mut world);
    let mut rt = Runtime::new(world, load.options(50)).unwrap();
    // Ticks of wildly different measured lengths.
    for ms in [0, 7, 31, 2] {
        load.set(ms * MS);
        rt.step().unwrap();
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [(0, 20 * MS), (1, 20 * MS), (2, 20 * MS), (3, 20 * MS)]
    );
}

#[test]
fn stepping_ignores_the_clock_and_moves_the_targets() {
    let load = Load::default();
    let mut rt = runtime(&load, 100);
    for _ in 0..3 {
        rt.step().unwrap();
    }
    assert_eq!(rt.ticks_run(), 3);
    assert_eq!(rt.now(), Duration::ZERO);
    assert_eq!(rt.next_target(), 30 * MS);
}

#[test]
fn overstep_is_how_far_into_the_next_interval_the_clock_is() {
    let load = Load::default();
    let mut rt = runtime(&load, 100);
    load.set(4 * MS);
    rt.run_frame().unwrap();
    assert!((rt.overstep_fraction() - 0.4).abs() < 1e-9);
    let frame = *rt.world().resource::<FrameTime>().unwrap();
    assert!((frame.overstep_fraction - 0.4).abs() < 1e-9);
    assert_eq!(frame.delta, 4 * MS);
}

#[test]
fn bad_options_are_refused_with_the_fix() {
    let load = Load::default();
    let zero = RuntimeOptions {
        tick_rate: 0,
        ..load.options(60)
    };
    let err = Runtime::new(load.world(), zero).unwrap_err();
    assert!(matches!(err, RuntimeError::ZeroTickRate));
    assert!(err.to_string().contains("RuntimeOptions::tick_rate"));
    let mut bad = load.options(60);
    bad.overload.multipliers = vec![3, 2];
    let err = Runtime::new(load.world(), bad).unwrap_err();
    assert!(err.to_string().contains("[3, 2]"));
    let mut bad = load.options(60);
    bad.overload.min_tick_rate = 61;
    assert!(matches!(
        Runtime::new(load.world(), bad).unwrap_err(),
        RuntimeError::MinTickRate { .. }
    ));
}
