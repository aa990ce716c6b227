//! Two runtimes in lockstep, one under artificial load: with the overload level confirmed
//! as an input they stay bit-identical; without, the desync finder names the shed system
//! and the tick it was first shed.

mod support;

use std::time::Duration;

use laige_runtime::{OverloadLevel, Priority, Runtime, SystemPolicy};
use laige_world::{Component, ComponentOptions, Query, StateHash, StateHasher};
use support::{Load, MS};

#[derive(Debug)]
struct Score(u64);
impl Component for Score {}
impl StateHash for Score {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h)
    }
}

#[derive(Debug)]
struct Dust(u64);
impl Component for Dust {}
impl StateHash for Dust {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h)
    }
}

/// A peer: `Score` (critical) and `Particles` (low, sheddable) on a clock of its own, with
/// its own load; checksums recorded.
fn peer(lockstep: bool) -> (Runtime, Load) {
    let load = Load::default();
    let mut world = load.world();
    world
        .register_component_with(ComponentOptions::<Score>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Dust>::new().hashed())
        .unwrap();
    world.spawn((Score(0), Dust(0))).unwrap();
    let score = world
        .system("Score", |mut q: Query<'_, &mut Score>| q.each(|s| s.0 += 1))
        .register()
        .unwrap();
    let particles = world
        .system("Particles", |mut q: Query<'_, &mut Dust>| {
            q.each(|d| d.0 = d.0.wrapping_mul(3).wrapping_add(1))
        })
        .register()
        .unwrap();
    load.register(&mut world);
    world.record_checksums(256);
    let mut rt = Runtime::new(world, load.options(100)).unwrap();
    rt.set_policy(
        score,
        SystemPolicy {
            priority: Priority::Critical,
            ..SystemPolicy::default()
        },
    )
    .unwrap();
    rt.set_policy(
        particles,
        SystemPolicy {
            priority: Priority::Low,
            can_shed: true,
            throttle_divisor: 1,
        },
    )
    .unwrap();
    rt.set_lockstep(lockstep);
    (rt, load)
}

/// The netcode of the test: every 10 ticks both peers exchange proposals, and the agreed
/// level (the higher) is confirmed on both for a tick 3 ahead.
fn exchange(a: &mut Runtime, b: &mut Runtime) {
    let tick = a.ticks_run();
    if !tick.is_multiple_of(10) {
        return;
    }
    let agreed = a.proposed_level().max(b.proposed_level());
    a.confirm_level(tick + 3, agreed).unwrap();
    b.confirm_level(tick + 3, agreed).unwrap();
}

fn run(lockstep: bool) -> (Runtime, Runtime) {
    let (mut idle, idle_load) = peer(lockstep);
    let (mut busy, busy_load) = peer(lockstep);
    idle_load.set(Duration::from_micros(500));
    // 2.5x the 10 ms budget from tick 20 on.
    for tick in 0..80u64 {
        if tick == 20 {
            busy_load.set(25 * MS);
        }
        if lockstep {
            exchange(&mut idle, &mut busy);
        }
        idle.step().unwrap();
        busy.step().unwrap();
    }
    (idle, busy)
}

#[test]
fn a_confirmed_level_keeps_loaded_and_idle_peers_identical() {
    let (idle, busy) = run(true);
    // The load escalated the ladder past SHED on both, together.
    assert!(busy.level() >= OverloadLevel::SHED);
    assert_eq!(idle.level(), busy.level());
    assert_eq!(idle.world().state_hash(), busy.world().state_hash());
    let ours = idle.world().checksums().unwrap();
    let theirs = busy.world().checksums().unwrap();
    assert_eq!(ours.first_desync(theirs).unwrap(), None);
    // The idle peer's own detector asks to come down; the agreed level is the busy one's.
    assert!(idle.proposed_level() < idle.level());
}

#[test]
fn without_the_confirmation_the_desync_names_the_shed_system_and_tick() {
    let (idle, busy) = run(false);
    assert_eq!(idle.level(), OverloadLevel::NORMAL);
    // The busy peer shed `Particles` from the first tick it ran at SHED.
    let first_shed = busy
        .telemetry()
        .ticks()
        .find(|(t, _)| t.level >= OverloadLevel::SHED)
        .map(|(t, _)| t.tick)
        .unwrap();
    let desync = idle
        .world()
        .checksums()
        .unwrap()
        .first_desync(busy.world().checksums().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(desync.tick, first_shed);
    // The record keeps each system's skip, so the shed itself is named, before its effect
    // on `Dust`.
    assert!(desync.skip_differs, "{desync}");
    assert_eq!(
        (desync.ours, desync.theirs),
        (0, laige_world::skip_code(Some("shed")))
    );
    let culprit = desync.culprit.unwrap();
    assert_eq!(
        (culprit.system.as_str(), culprit.component.as_str()),
        ("Particles", "")
    );
}

#[test]
fn a_confirmation_applies_on_its_tick_and_a_late_one_is_refused() {
    let (mut rt, _load) = peer(true);
    rt.confirm_level(2, OverloadLevel::SHED).unwrap();
    rt.step().unwrap();
    rt.step().unwrap();
    assert_eq!(rt.level(), OverloadLevel::NORMAL);
    rt.step().unwrap();
    assert_eq!(rt.level(), OverloadLevel::SHED);
    let (tick, _) = rt.telemetry().latest().unwrap();
    assert_eq!((tick.tick, tick.level), (2, OverloadLevel::SHED));
    let err = rt.confirm_level(1, OverloadLevel::NORMAL).unwrap_err();
    assert!(
        err.to_string().contains("tick 1, which already ran"),
        "{err}"
    );
    // A level above the top is capped to it.
    rt.confirm_level(3, OverloadLevel(200)).unwrap();
    rt.step().unwrap();
    assert_eq!(rt.level(), rt.highest_level());
}
