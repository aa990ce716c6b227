//! The failure policies (`FailurePolicy`): which systems a panicking or failing system takes
//! down with it, decided from the schedule's DAG. Every policy ends in the same state on the
//! sequential runner and on 1, 2 and 4 threads.

use laige_executor::ExecutorOptions;
use laige_world::{
    BoxError, Commands, Component, ComponentOptions, FailurePolicy, Query, StateHash, StateHasher,
    SystemOutcome, World, WorldOptions,
};

/// One counter per system, so the state says exactly which systems ran.
macro_rules! counters {
    ($($name:ident),*) => {$(
        #[derive(Debug, PartialEq)]
        struct $name(u32);
        impl Component for $name {}
        impl StateHash for $name {
            fn hash_state(&self, h: &mut StateHasher) { self.0.hash_state(h) }
        }
    )*};
}
counters!(A, B, C, D, E);

#[derive(Clone, Copy, Debug)]
enum Failure {
    Panic,
    Err,
}

/// The DAG: `Fail` (writes A) -> `Child` (writes B) -> `Grandchild` (writes C), all by
/// explicit edges; `Reader` reads A after `Fail` by data alone (the plan orders it, the
/// schedule has no edge); `Loner` writes E and touches nothing else. `Fail` spawns an entity
/// before it fails: that command must never land.
fn world(failure: Failure, policy: FailurePolicy, threads: Option<usize>) -> World {
    let mut world = World::new(WorldOptions {
        seed: 11,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<A>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<B>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<C>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<D>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<E>::new().hashed())
        .unwrap();
    for _ in 0..3 {
        world.spawn((A(0), B(0), C(0), D(0), E(0))).unwrap();
    }
    let fail = world
        .system(
            "Fail",
            move |mut a: Query<'_, &mut A>, mut commands: Commands<'_>| -> Result<(), BoxError> {
                a.each(|a| a.0 += 1)?;
                commands.spawn((E(99),));
                match failure {
                    Failure::Panic => panic!("Fail gives up"),
                    Failure::Err => Err("Fail gives up".into()),
                }
            },
        )
        .register()
        .unwrap();
    let child = world
        .system("Child", |mut b: Query<'_, &mut B>| b.each(|b| b.0 += 1))
        .after(fail)
        .register()
        .unwrap();
    world
        .system("Grandchild", |mut c: Query<'_, &mut C>| {
            c.each(|c| c.0 += 1)
        })
        .after(child)
        .register()
        .unwrap();
    world
        .system(
            "Reader",
            |mut a: Query<'_, &A>, mut d: Query<'_, &mut D>| {
                let mut sum = 0;
                a.each(|a| sum += a.0)?;
                d.each(|d| d.0 += sum)
            },
        )
        .register()
        .unwrap();
    world
        .system("Loner", |mut e: Query<'_, &mut E>| e.each(|e| e.0 += 1))
        .register()
        .unwrap();
    world.set_failure_policy(policy);
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world
}

/// Runs three ticks; returns the final state hash and each counter of the first entity.
fn run(failure: Failure, policy: FailurePolicy, threads: Option<usize>) -> (u64, [u32; 5]) {
    let mut world = world(failure, policy, threads);
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        // Every tick fails, whatever the policy.
        assert!(world.run_systems(&schedule).is_err());
    }
    let mut counts = [0; 5];
    world
        .each::<(&A, &B, &C, &D, &E)>(|(a, b, c, d, e)| counts = [a.0, b.0, c.0, d.0, e.0])
        .unwrap();
    assert_eq!(world.len(), 3, "the failed run's spawn must be dropped");
    (world.state_hash(), counts)
}

#[rstest::rstest]
fn each_policy_skips_what_it_says_in_every_mode(
    #[values(Failure::Panic, Failure::Err)] failure: Failure,
    #[values(
        FailurePolicy::Isolate,
        FailurePolicy::Continue,
        FailurePolicy::AbortTick
    )]
    policy: FailurePolicy,
) {
    let (hash, counts) = run(failure, policy, None);
    // A: Fail's writes before it failed stay (they are direct writes, not commands).
    // D: Reader adds the sum of A (3 entities x A) each tick it runs: 3 + 6 + 9.
    let expected = match policy {
        // Child and Grandchild are skipped; Reader (data only) and Loner run.
        FailurePolicy::Isolate => [3, 0, 0, 18, 3],
        FailurePolicy::Continue => [3, 3, 3, 18, 3],
        // Reader is ordered after Fail by its read of A: aborted too. Loner runs.
        FailurePolicy::AbortTick => [3, 0, 0, 0, 3],
    };
    assert_eq!(counts, expected, "{policy:?} {failure:?}");
    for threads in [1, 2, 4] {
        assert_eq!(
            run(failure, policy, Some(threads)),
            (hash, counts),
            "{policy:?} {failure:?} on {threads} threads"
        );
    }
}

#[test]
fn isolate_is_the_default() {
    assert_eq!(World::default().failure_policy(), FailurePolicy::Isolate);
}

/// A requested skip: the system does not run and records nothing, its successors run, the
/// request lasts one tick, and the World says why. The same in every mode.
#[test]
fn a_requested_skip_holds_for_one_tick_and_is_not_a_failure() {
    use laige_world::SkipReason;
    let mut results = Vec::new();
    for threads in [None, Some(1), Some(2), Some(4)] {
        let mut world = world(Failure::Err, FailurePolicy::Isolate, threads);
        let fail = world.registry().find("Fail").unwrap();
        let child = world.registry().find("Child").unwrap();
        let loner = world.registry().find("Loner").unwrap();
        let schedule = world.schedule().unwrap();
        // Skipping the failing system: nothing fails, so its successors run.
        world.skip_next_tick(fail, SkipReason::Shed).unwrap();
        world.skip_next_tick(loner, SkipReason::Throttled).unwrap();
        world.run_systems(&schedule).unwrap();
        assert_eq!(world.last_skip(fail), Some(SkipReason::Shed));
        assert_eq!(world.last_skip(loner), Some(SkipReason::Throttled));
        assert_eq!(world.last_skip(child), None);
        assert_eq!(world.len(), 3, "a skipped system records no commands");
        // The next tick runs it again, and it fails again.
        assert!(world.run_systems(&schedule).is_err());
        assert_eq!(world.last_skip(fail), None);
        assert_eq!(
            world.last_skip(child),
            Some(SkipReason::DependencyFailed { dependency: fail })
        );
        // The tick report says the same, and names the root failure two steps down.
        let grandchild = world.registry().find("Grandchild").unwrap();
        let report = world.tick_report();
        assert_eq!(report.system(fail).unwrap().outcome, SystemOutcome::Failed);
        assert_eq!(
            report.system(grandchild).unwrap().outcome,
            SystemOutcome::Skipped(SkipReason::DependencyFailed { dependency: fail })
        );
        assert_eq!(report.system(loner).unwrap().outcome, SystemOutcome::Ran);
        let mut counts = [0; 5];
        world
            .each::<(&A, &B, &C, &D, &E)>(|(a, b, c, d, e)| counts = [a.0, b.0, c.0, d.0, e.0])
            .unwrap();
        // A: Fail ran once (tick 2); B, C: their one run in tick 1; D: Reader's sum of A,
        // 0 then 3; E: Loner ran in tick 2 only.
        assert_eq!(counts, [1, 1, 1, 3, 1]);
        results.push(world.state_hash());
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:x?}");
}

#[test]
fn skipping_an_unknown_system_is_an_error() {
    let mut world = World::default();
    let id = laige_world::SystemId::new(3).unwrap();
    let err = world
        .skip_next_tick(id, laige_world::SkipReason::Shed)
        .unwrap_err();
    assert!(err.to_string().contains('3'), "{err}");
}

/// Under `AbortTick` a failure in one track skips every system of the later tracks, and a
/// system of the same track with no order to it still runs; under `Isolate` the later track
/// runs. The same on the sequential runner and on 2 threads.
#[test]
fn abort_tick_skips_the_later_tracks() {
    use laige_scheduler::Layout;
    for threads in [None, Some(2)] {
        let mut hashes = Vec::new();
        for policy in [FailurePolicy::AbortTick, FailurePolicy::Isolate] {
            let mut world = World::default();
            world
                .register_component_with(ComponentOptions::<A>::new().hashed())
                .unwrap();
            world
                .register_component_with(ComponentOptions::<E>::new().hashed())
                .unwrap();
            world.spawn((A(0), E(0))).unwrap();
            world.set_layout(Layout::new().dag("Early", "First", &["Run"], "Run").dag(
                "Late",
                "Second",
                &["Run"],
                "Run",
            ));
            world
                .system("Fail", || -> Result<(), BoxError> { Err("no".into()) })
                .in_dag("First")
                .register()
                .unwrap();
            world
                .system("Beside", |mut a: Query<'_, &mut A>| a.each(|a| a.0 += 1))
                .in_dag("First")
                .register()
                .unwrap();
            let later = world
                .system("Later", |mut e: Query<'_, &mut E>| e.each(|e| e.0 += 1))
                .in_dag("Second")
                .register()
                .unwrap();
            world.set_failure_policy(policy);
            if let Some(threads) = threads {
                world.use_executor(ExecutorOptions::parallel(threads));
            }
            let schedule = world.schedule().unwrap();
            assert_eq!(schedule.tracks().len(), 2);
            assert!(world.run_systems(&schedule).is_err());
            let mut counts = (0, 0);
            world
                .each::<(&A, &E)>(|(a, e)| counts = (a.0, e.0))
                .unwrap();
            match policy {
                FailurePolicy::AbortTick => {
                    assert_eq!(counts, (1, 0), "{threads:?}");
                    assert_eq!(
                        world.last_skip(later),
                        Some(laige_world::SkipReason::Aborted)
                    );
                }
                _ => assert_eq!(counts, (1, 1), "{threads:?}"),
            }
            hashes.push(world.state_hash());
        }
        assert_ne!(hashes[0], hashes[1]);
    }
}
