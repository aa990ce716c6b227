//! The overload ladder on a manual clock: each transition with its hysteresis, throttling,
//! shedding and rate modulation, and the decisions in the telemetry.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use laige_runtime::{FixedTime, OverloadLevel, Priority, Runtime, SystemPolicy};
use laige_world::{Res, SkipReason, SystemId, SystemOutcome};
use support::{Load, MS};

/// A runtime at 100 Hz (10 ms budget) with a throttled `Normal` system and a sheddable `Low`
/// one, each counting its runs.
struct Rig {
    rt: Runtime,
    load: Load,
    throttled: (SystemId, Arc<AtomicU32>),
    shed: (SystemId, Arc<AtomicU32>),
}

fn counter(world: &mut laige_world::World, name: &'static str) -> (SystemId, Arc<AtomicU32>) {
    let runs = Arc::new(AtomicU32::new(0));
    let out = runs.clone();
    let id = world
        .system(name, move || {
            out.fetch_add(1, Ordering::Relaxed);
        })
        .register()
        .unwrap()
        .id();
    (id, runs)
}

fn rig() -> Rig {
    let load = Load::default();
    let mut world = load.world();
    load.register(&mut world);
    let throttled = counter(&mut world, "Throttled");
    let shed = counter(&mut world, "Sheddable");
    let mut rt = Runtime::new(world, load.options(100)).unwrap();
    rt.set_policy(
        throttled.0,
        SystemPolicy {
            priority: Priority::Normal,
            can_shed: false,
            throttle_divisor: 2,
        },
    )
    .unwrap();
    rt.set_policy(
        shed.0,
        SystemPolicy {
            priority: Priority::Low,
            can_shed: true,
            throttle_divisor: 1,
        },
    )
    .unwrap();
    Rig {
        rt,
        load,
        throttled,
        shed,
    }
}

impl Rig {
    /// Steps `n` ticks of `load` each; returns the level after.
    fn steps(&mut self, n: u32, load: Duration) -> OverloadLevel {
        self.load.set(load);
        for _ in 0..n {
            self.rt.step().unwrap();
        }
        self.rt.level()
    }
}

#[test]
fn five_ticks_over_1_2x_escalate_one_level_at_the_next_boundary() {
    let mut rig = rig();
    // 13 ms of a 10 ms budget: 1.3x. Four such ticks are not enough.
    assert_eq!(rig.steps(4, 13 * MS), OverloadLevel::NORMAL);
    // The fifth proposes THROTTLE; it applies at the next tick's boundary.
    rig.steps(1, 13 * MS);
    assert_eq!(rig.rt.proposed_level(), OverloadLevel::THROTTLE);
    assert_eq!(rig.rt.level(), OverloadLevel::NORMAL);
    assert_eq!(rig.steps(1, 13 * MS), OverloadLevel::THROTTLE);
    let levels: Vec<u8> = rig.rt.telemetry().ticks().map(|(t, _)| t.level.0).collect();
    assert_eq!(levels, [0, 0, 0, 0, 0, 1]);
}

#[test]
fn ticks_between_the_thresholds_keep_the_counts() {
    let mut rig = rig();
    rig.steps(3, 13 * MS);
    // 0.9x is neither over nor under: the three counted ticks stay counted.
    rig.steps(5, 9 * MS);
    rig.steps(2, 13 * MS);
    assert_eq!(rig.rt.proposed_level(), OverloadLevel::THROTTLE);
}

#[test]
fn an_under_tick_resets_the_escalation_count() {
    let mut rig = rig();
    rig.steps(4, 13 * MS);
    rig.steps(1, 5 * MS);
    rig.steps(4, 13 * MS);
    assert_eq!(rig.rt.proposed_level(), OverloadLevel::NORMAL);
}

#[test]
fn twenty_ticks_under_0_6x_de_escalate_one_level() {
    let mut rig = rig();
    rig.steps(6, 13 * MS);
    assert_eq!(rig.rt.level(), OverloadLevel::THROTTLE);
    // 19 quiet ticks keep the level (hysteresis)...
    assert_eq!(rig.steps(19, 5 * MS), OverloadLevel::THROTTLE);
    // ...the 20th proposes NORMAL, applied at the next boundary.
    rig.steps(1, 5 * MS);
    assert_eq!(rig.rt.proposed_level(), OverloadLevel::NORMAL);
    assert_eq!(rig.steps(1, 5 * MS), OverloadLevel::NORMAL);
}

#[test]
fn throttle_runs_a_divisor_system_every_other_tick_and_shed_skips_the_low_one() {
    let mut rig = rig();
    // To THROTTLE (ticks 0..=5 run; tick 5 is the first at THROTTLE).
    rig.steps(5, 13 * MS);
    let (t0, s0) = (
        rig.throttled.1.load(Ordering::Relaxed),
        rig.shed.1.load(Ordering::Relaxed),
    );
    assert_eq!((t0, s0), (5, 5));
    // Ticks 5..=9 at THROTTLE: the divisor-2 system runs on ticks 6 and 8 only.
    rig.steps(5, 13 * MS);
    assert_eq!(rig.rt.level(), OverloadLevel::THROTTLE);
    assert_eq!(rig.throttled.1.load(Ordering::Relaxed), t0 + 2);
    assert_eq!(rig.shed.1.load(Ordering::Relaxed), s0 + 5);
    let (_, systems) = rig.rt.telemetry().latest().unwrap();
    let outcome = |id: SystemId| {
        systems
            .iter()
            .find(|s| s.system == Some(id))
            .unwrap()
            .outcome
    };
    // Tick 9 is odd: throttled.
    assert_eq!(
        outcome(rig.throttled.0),
        SystemOutcome::Skipped(SkipReason::Throttled)
    );
    // The fifth tick over proposed SHED: from tick 10 the Low system does not run.
    rig.steps(3, 13 * MS);
    assert_eq!(rig.rt.level(), OverloadLevel::SHED);
    let s1 = rig.shed.1.load(Ordering::Relaxed);
    rig.steps(2, 13 * MS);
    assert_eq!(rig.shed.1.load(Ordering::Relaxed), s1);
    let (tick, systems) = rig.rt.telemetry().latest().unwrap();
    assert!(tick.skipped >= 1);
    assert!(
        systems.iter().any(|s| s.system == Some(rig.shed.0)
            && s.outcome == SystemOutcome::Skipped(SkipReason::Shed))
    );
}

#[test]
fn rate_modulation_lowers_the_rate_and_raises_dt_down_to_the_minimum() {
    let mut rig = rig();
    let dts = Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = dts.clone();
    rig.rt
        .world_mut()
        .system("ReadDt", move |time: Res<'_, FixedTime>| {
            out.lock().unwrap().push(time.dt);
        })
        .register()
        .unwrap();
    rig.rt.reschedule().unwrap();
    // Escalate through every level: 5 ticks over per level, applied one tick later.
    let mut seen = Vec::new();
    for _ in 0..60 {
        rig.steps(1, 30 * MS);
        seen.push((rig.rt.level().0, rig.rt.interval()));
    }
    // 100 Hz with a 10 Hz minimum: /2, /3, /4, /6 all allowed; level 6 is the top.
    assert_eq!(rig.rt.highest_level(), OverloadLevel(6));
    assert_eq!(rig.rt.level(), OverloadLevel(6));
    assert_eq!(rig.rt.interval(), 60 * MS);
    let multipliers: Vec<u32> = rig
        .rt
        .telemetry()
        .ticks()
        .map(|(t, _)| t.multiplier)
        .collect();
    let mut distinct = multipliers.clone();
    distinct.dedup();
    assert_eq!(distinct, [1, 2, 3, 4, 6]);
    // Systems read the level's dt: the base interval times the multiplier.
    let dts = dts.lock().unwrap();
    assert_eq!(dts.first(), Some(&(10 * MS)));
    assert_eq!(dts.last(), Some(&(60 * MS)));
}

#[test]
fn a_minimum_rate_caps_the_ladder() {
    let load = Load::default();
    let mut world = load.world();
    load.register(&mut world);
    let mut options = load.options(60);
    options.overload.min_tick_rate = 20;
    let mut rt = Runtime::new(world, options).unwrap();
    // 60 / 2 = 30 and 60 / 3 = 20 stay at 20 Hz or more; / 4 = 15 does not.
    assert_eq!(rt.highest_level(), OverloadLevel(4));
    load.set(100 * MS);
    for _ in 0..40 {
        rt.step().unwrap();
    }
    assert_eq!(rt.level(), OverloadLevel(4));
    // The rate the level chose, as the systems read it: a decision, not a measurement.
    assert_eq!(rt.world().resource::<FixedTime>().unwrap().multiplier, 3);
}

#[test]
fn a_disabled_ladder_never_moves() {
    let load = Load::default();
    let mut world = load.world();
    load.register(&mut world);
    let mut options = load.options(100);
    options.overload.enabled = false;
    let mut rt = Runtime::new(world, options).unwrap();
    load.set(50 * MS);
    for _ in 0..20 {
        rt.step().unwrap();
    }
    assert_eq!(rt.level(), OverloadLevel::NORMAL);
}
