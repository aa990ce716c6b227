//! The frame schedule on a manual clock: it runs once per frame after the due fixed ticks,
//! sees `FrameTime` and the overstep, and never changes the fixed ticks' state; frame
//! systems that would write fixed-tick state are refused.

mod support;

use std::time::Duration;

use laige_runtime::{FixedTime, FrameTime, Runtime, RuntimeError, RuntimeOptions};
use laige_scheduler::Layout;
use laige_world::{Res, ResMut, StateHash, StateHasher, World};
use support::{Load, MS};

/// Fixed state: ticks counted by a fixed system (hashed).
#[derive(Default)]
struct Ticks(u64);

impl StateHash for Ticks {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// What the frame system saw, per frame: frame number, fixed ticks run, delta, overstep.
#[derive(Default)]
struct Seen(Vec<(u64, u64, Duration, f64)>);

fn layout() -> Layout {
    Layout::new()
        .dag("Fixed", "sim", &["all"], "all")
        .dag("Frame", "render", &["all"], "all")
}

/// A world with the load system, a fixed counter and a frame system logging what it sees.
fn world(load: &Load) -> World {
    let mut world = load.world();
    world.set_layout(layout());
    world.insert_hashed_resource(Ticks::default()).unwrap();
    world.insert_resource(Seen::default()).unwrap();
    load.register(&mut world);
    world
        .system(
            "Count",
            |time: Res<'_, FixedTime>, mut ticks: ResMut<'_, Ticks>| {
                ticks.0 = ticks.0.wrapping_mul(31).wrapping_add(time.tick + 1);
            },
        )
        .in_dag("sim")
        .register()
        .unwrap();
    world
        .system(
            "Render",
            |frame: Res<'_, FrameTime>, fixed: Res<'_, FixedTime>, mut seen: ResMut<'_, Seen>| {
                seen.0.push((
                    frame.frame,
                    fixed.tick + 1,
                    frame.delta,
                    frame.overstep_fraction,
                ));
            },
        )
        .in_dag("render")
        .register()
        .unwrap();
    world
}

fn options(load: &Load) -> RuntimeOptions {
    RuntimeOptions {
        frame_track: Some("Frame"),
        ..load.options(100)
    }
}

#[test]
fn the_frame_schedule_runs_once_per_frame_after_the_due_ticks() {
    let load = Load::default();
    let mut rt = Runtime::new(world(&load), options(&load)).unwrap();
    assert_eq!(rt.schedule().order().len(), 2, "Load and Count");
    assert_eq!(rt.frame_schedule().unwrap().order().len(), 1, "Render");
    load.set(3 * MS);
    rt.run_frame().unwrap();
    // A 25 ms tick: the next frame catches up two ticks, then renders once.
    load.set(25 * MS);
    rt.run_frame().unwrap();
    load.set(MS);
    assert_eq!(rt.run_frame().unwrap().ticks, 2);
    let seen = &rt.world().resource::<Seen>().unwrap().0;
    let frames: Vec<(u64, u64)> = seen.iter().map(|&(f, t, _, _)| (f, t)).collect();
    assert_eq!(frames, [(0, 1), (1, 2), (2, 4)]);
    // Frame 0 ends 3 ms into the interval after tick 0; frame 1 at 35 ms, tick 1 at 10 ms.
    assert!((seen[0].3 - 0.3).abs() < 1e-9, "{:?}", seen[0]);
    assert_eq!(seen[0].2, 3 * MS);
    assert_eq!(seen[1].2, 32 * MS);
    // Frame 2: ticks due at 20 and 30 ms ran from 35 ms, 1 ms each: 7 ms into the next.
    assert_eq!(seen[2].2, 2 * MS);
    assert!((seen[2].3 - 0.7).abs() < 1e-9, "{:?}", seen[2]);
}

#[test]
fn stepping_runs_the_frame_schedule_when_asked() {
    let load = Load::default();
    let mut rt = Runtime::new(world(&load), options(&load)).unwrap();
    rt.step().unwrap();
    rt.step().unwrap();
    assert!(rt.world().resource::<Seen>().unwrap().0.is_empty());
    rt.frame().unwrap();
    let seen = &rt.world().resource::<Seen>().unwrap().0;
    assert_eq!(
        seen.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>(),
        [(0, 2)]
    );
}

/// Fixed ticks reach the same state however many frames ran between them.
#[test]
fn frames_never_change_the_fixed_state() {
    let load = Load::default();
    let mut framed = Runtime::new(world(&load), options(&load)).unwrap();
    let other = Load::default();
    let mut stepped = Runtime::new(world(&other), options(&other)).unwrap();
    load.set(4 * MS);
    while framed.ticks_run() < 30 {
        framed.run_frame().unwrap();
        // Extra frames in between, as a fast renderer would draw them.
        framed.frame().unwrap();
    }
    for _ in 0..30 {
        stepped.step().unwrap();
    }
    assert!(framed.world().resource::<Seen>().unwrap().0.len() >= 30);
    assert_eq!(framed.world().state_hash(), stepped.world().state_hash());
    assert_eq!(
        framed.world().resource::<Ticks>().unwrap().0,
        stepped.world().resource::<Ticks>().unwrap().0
    );
}

#[test]
fn a_frame_system_writing_fixed_state_is_refused() {
    let load = Load::default();
    let mut w = world(&load);
    w.system("Cheat", |mut ticks: ResMut<'_, Ticks>| ticks.0 += 1)
        .in_dag("render")
        .register()
        .unwrap();
    let err = Runtime::new(w, options(&load)).unwrap_err();
    assert!(matches!(
        err,
        RuntimeError::FrameWritesFixedState {
            system: "Cheat",
            fixed: Some("Count"),
            ..
        }
    ));
    insta::assert_snapshot!("frame_writes_fixed_state", err.to_string());
}

/// Written by no fixed system, but hashed.
#[derive(Default)]
struct Hashed(u64);

impl StateHash for Hashed {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

#[test]
fn a_frame_system_writing_hashed_state_is_refused() {
    let load = Load::default();
    let mut w = world(&load);
    w.insert_hashed_resource(Hashed::default()).unwrap();
    w.system("Stamp", |mut hashed: ResMut<'_, Hashed>| hashed.0 += 1)
        .in_dag("render")
        .register()
        .unwrap();
    let err = Runtime::new(w, options(&load)).unwrap_err();
    assert!(matches!(
        err,
        RuntimeError::FrameWritesFixedState {
            system: "Stamp",
            fixed: None,
            ..
        }
    ));
    insta::assert_snapshot!("frame_writes_hashed_state", err.to_string());
}

#[test]
fn an_unknown_frame_track_is_refused() {
    let load = Load::default();
    let options = RuntimeOptions {
        frame_track: Some("Render"),
        ..load.options(100)
    };
    let err = Runtime::new(world(&load), options).unwrap_err();
    assert!(matches!(
        err,
        RuntimeError::UnknownFrameTrack {
            track: "Render",
            ..
        }
    ));
    insta::assert_snapshot!("unknown_frame_track", err.to_string());
}
