//! Run conditions (`.run_if(..)`): a false condition skips its system (no commands, its
//! successors run), combinators evaluate in a fixed order and short-circuit, a condition's
//! reads join its system's declared access, and a condition that writes is refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use laige_executor::ExecutorOptions;
use laige_world::{
    Commands, Component, ComponentOptions, Condition, EventReader, EventWriter, Local, Query,
    RegisterError, Res, ResMut, SkipReason, StateHash, StateHasher, SystemOutcome, World,
    WorldOptions, every_n_ticks, not, not_empty, on_event, resource_equals, resource_matches,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Menu,
    Playing,
}

#[derive(Debug, PartialEq)]
struct Count(u32);
impl Component for Count {}
impl StateHash for Count {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h)
    }
}

struct Score(u32);

/// Never inserted.
struct Absent;

fn world() -> World {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Count>::new().hashed())
        .unwrap();
    world.spawn((Count(0),)).unwrap();
    world.insert_resource(State::Menu).unwrap();
    world.insert_resource(Score(0)).unwrap();
    world
}

#[test]
fn a_false_condition_skips_the_system_and_its_successors_run() {
    let mut world = world();
    let gated = world
        .system(
            "Gated",
            |mut q: Query<'_, &mut Count>, mut c: Commands<'_>| {
                c.spawn((Count(100),));
                q.each(|n| n.0 += 1)
            },
        )
        .run_if(resource_equals(State::Playing))
        .register()
        .unwrap();
    let after = world
        .system("After", |mut score: ResMut<'_, Score>| score.0 += 1)
        .after(gated)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let report = world.tick_report();
    assert_eq!(
        report.system(gated).unwrap().outcome,
        SystemOutcome::Skipped(SkipReason::RunConditionFalse)
    );
    assert_eq!(report.system(after).unwrap().outcome, SystemOutcome::Ran);
    assert_eq!(world.last_skip(gated), Some(SkipReason::RunConditionFalse));
    assert_eq!(world.resource::<Score>().unwrap().0, 1);
    assert_eq!(world.len(), 1, "a skipped system records no commands");

    *world.resource_mut::<State>().unwrap() = State::Playing;
    world.run_systems(&schedule).unwrap();
    assert_eq!(
        world.tick_report().system(gated).unwrap().outcome,
        SystemOutcome::Ran
    );
    assert_eq!(world.last_skip(gated), None);
    assert_eq!(world.len(), 2);
}

#[test]
fn combinators_short_circuit_left_to_right() {
    let asked = Arc::new([AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)]);
    let probe = |k: usize, answer: bool| {
        let asked = Arc::clone(&asked);
        move || {
            asked[k].fetch_add(1, Ordering::Relaxed);
            answer
        }
    };
    let mut world = world();
    // false and _ : the second is never asked; true or _ : neither is the third.
    world
        .system("A", || {})
        .run_if(probe(0, false).and(probe(1, true)))
        .register()
        .unwrap();
    world
        .system("B", || {})
        .run_if(not(probe(2, false)).or(probe(1, false)))
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let counts: Vec<u32> = asked.iter().map(|it| it.load(Ordering::Relaxed)).collect();
    assert_eq!(counts, [3, 0, 3]);
    let outcome = |name| {
        let id = world.registry().find(name).unwrap();
        world.tick_report().system(id).unwrap().outcome
    };
    assert_eq!(
        outcome("A"),
        SystemOutcome::Skipped(SkipReason::RunConditionFalse)
    );
    assert_eq!(outcome("B"), SystemOutcome::Ran);
}

#[test]
fn every_n_ticks_counts_logical_ticks_and_run_ifs_add_up() {
    let mut world = world();
    let ran = Arc::new(AtomicU32::new(0));
    let seen = Arc::clone(&ran);
    world
        .system("Third", move |mut tick: Local<'_, u32>| {
            *tick += 1;
            seen.fetch_add(1 << (*tick - 1).min(16), Ordering::Relaxed);
        })
        .run_if(every_n_ticks(3))
        .run_if(resource_matches(|score: &Score| score.0 < 100))
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let mut pattern = Vec::new();
    for _ in 0..7 {
        let before = ran.load(Ordering::Relaxed);
        world.run_systems(&schedule).unwrap();
        pattern.push(ran.load(Ordering::Relaxed) != before);
    }
    assert_eq!(pattern, [true, false, false, true, false, false, true]);
    world.resource_mut::<Score>().unwrap().0 = 500;
    // The second condition is false now; `every_n_ticks` is asked first and keeps counting.
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(ran.load(Ordering::Relaxed), 0b111);
}

#[test]
fn a_condition_reads_count_as_the_systems_reads() {
    let mut world = world();
    let gated = world
        .system("Gated", |mut q: Query<'_, &mut Count>| q.each(|n| n.0 += 1))
        .run_if(|state: Res<'_, State>, q: Query<'_, &Count>| {
            *state == State::Playing && q.iter().is_ok_and(|mut it| it.all(|n| n.0 < 3))
        })
        .register()
        .unwrap();
    let record = world.registry().get(gated.id()).unwrap();
    let state = world.component_id::<State>().unwrap();
    let count = world.component_id::<Count>().unwrap();
    assert!(record.is_conditional());
    assert!(record.reads().contains(state));
    assert!(
        record.writes().contains(count),
        "the system's write stays a write"
    );
    // A writer of `State` now conflicts with the gated system through its condition.
    world
        .system("Switch", |mut state: ResMut<'_, State>| {
            *state = State::Playing
        })
        .register()
        .unwrap();
    let conflicts = world.registry().conflicts(None);
    let switch = world.registry().find("Switch").unwrap();
    assert!(conflicts.of(gated.id()).contains(switch));
}

#[test]
fn a_condition_that_writes_is_refused_naming_the_system_and_the_type() {
    let mut world = world();
    let err = world
        .system("Gated", || {})
        .run_if(|mut score: ResMut<'_, Score>| {
            score.0 += 1;
            true
        })
        .register()
        .unwrap_err();
    assert!(
        matches!(err, RegisterError::ConditionWrites { name: "Gated", .. }),
        "{err:?}"
    );
    insta::assert_snapshot!("condition_writes", err.to_string());
    let err = world
        .system("Spawner", || {})
        .run_if(|_: Commands<'_>| true)
        .register()
        .unwrap_err();
    insta::assert_snapshot!("condition_commands", err.to_string());
    let err = world
        .system_fn("Query", |_| {})
        .run_if(|_: Query<'_, &mut Count>| true)
        .register()
        .unwrap_err();
    insta::assert_snapshot!("condition_query_writes", err.to_string());
    assert!(world.registry().is_empty(), "nothing was registered");
}

#[test]
fn a_condition_of_a_missing_resource_fails_the_schedule_like_a_res() {
    let mut world = world();
    world
        .system("Gated", || {})
        .run_if(|_: Res<'_, Absent>| true)
        .register()
        .unwrap();
    let err = world.schedule().unwrap_err();
    insta::assert_snapshot!("condition_resource_missing", err.to_string());
}

/// A state machine driven by the systems themselves: `Flip` toggles the state every third
/// tick; `Play` runs while playing, `Pause` while in the menu, each gated, on every runner.
fn driven(threads: Option<usize>) -> (Vec<u64>, Vec<Vec<SystemOutcome>>) {
    let mut world = world();
    world.spawn((Count(7),)).unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let flip = world
        .system("Flip", |mut state: ResMut<'_, State>| {
            *state = match *state {
                State::Menu => State::Playing,
                State::Playing => State::Menu,
            }
        })
        .run_if(every_n_ticks(3))
        .register()
        .unwrap();
    world
        .system("Play", |mut q: Query<'_, &mut Count>| {
            q.each(|n| n.0 = n.0 * 3 + 1)
        })
        .run_if(resource_equals(State::Playing))
        .after(flip)
        .register()
        .unwrap();
    world
        .system(
            "Pause",
            |mut score: ResMut<'_, Score>, q: Query<'_, &Count>| {
                score.0 += q.iter().map_or(0, |it| it.map(|n| n.0).sum::<u32>());
            },
        )
        .run_if(not(resource_equals(State::Playing)))
        .after(flip)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let mut hashes = Vec::new();
    let mut outcomes = Vec::new();
    for _ in 0..10 {
        world.run_systems(&schedule).unwrap();
        hashes.push(world.state_hash() ^ u64::from(world.resource::<Score>().unwrap().0));
        outcomes.push(
            world
                .tick_report()
                .systems()
                .iter()
                .map(|it| it.outcome)
                .collect(),
        );
    }
    (hashes, outcomes)
}

#[test]
fn skips_and_state_are_the_same_on_every_runner() {
    let sequential = driven(None);
    let skipped = sequential
        .1
        .iter()
        .flatten()
        .filter(|it| matches!(it, SystemOutcome::Skipped(SkipReason::RunConditionFalse)))
        .count();
    assert!(skipped > 10, "the conditions skip something: {skipped}");
    for threads in [1, 2, 4] {
        assert_eq!(driven(Some(threads)), sequential, "on {threads} threads");
    }
}

/// Marks the entities a `not_empty` query waits for.
struct Burning;
impl Component for Burning {}

#[test]
fn not_empty_runs_only_while_a_reader_has_something() {
    let mut world = world();
    world.register_component::<Burning>().unwrap();
    let douse = world
        .system("Douse", |mut score: ResMut<'_, Score>| score.0 += 1)
        .run_if(not_empty::<Query<'static, &Burning>>())
        .register()
        .unwrap();
    let burning = world.component_id::<Burning>().unwrap();
    assert!(
        world
            .registry()
            .get(douse.id())
            .unwrap()
            .reads()
            .contains(burning)
    );
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.last_skip(douse), Some(SkipReason::RunConditionFalse));
    world.spawn((Count(1), Burning)).unwrap();
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.last_skip(douse), None);
    assert_eq!(world.resource::<Score>().unwrap().0, 2);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spark(u32);

/// `Strike` emits on every third tick; `Burn` reads, gated by `on_event`. Returns per tick
/// whether `Burn` was skipped and what it saw.
fn sparks(threads: Option<usize>) -> Vec<(bool, Vec<u32>)> {
    let mut world = world();
    world.register_events::<Spark>(4).unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world
        .system(
            "Strike",
            |mut out: EventWriter<'_, Spark>, mut tick: Local<'_, u32>| {
                *tick += 1;
                if tick.is_multiple_of(3) {
                    out.write(Spark(*tick));
                    out.write(Spark(*tick + 100));
                }
            },
        )
        .register()
        .unwrap();
    let burn = world
        .system(
            "Burn",
            |sparks: EventReader<'_, Spark>,
             mut seen: Local<'_, Vec<u32>>,
             mut score: ResMut<'_, Score>| {
                seen.clear();
                seen.extend(sparks.read().map(|it| it.0));
                score.0 = seen.iter().sum();
            },
        )
        .after("Strike")
        .run_if(on_event::<Spark>())
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (0..9)
        .map(|_| {
            world.resource_mut::<Score>().unwrap().0 = 0;
            world.run_systems(&schedule).unwrap();
            let skipped = world.last_skip(burn) == Some(SkipReason::RunConditionFalse);
            let score = world.resource::<Score>().unwrap().0;
            (skipped, if skipped { Vec::new() } else { vec![score] })
        })
        .collect()
}

#[test]
fn on_event_runs_a_reader_only_when_events_wait() {
    let sequential = sparks(None);
    let ran: Vec<usize> = (0..9).filter(|&t| !sequential[t].0).collect();
    assert_eq!(
        ran,
        [2, 5, 8],
        "Burn ran on the ticks Strike wrote: {sequential:?}"
    );
    for t in ran {
        let tick = t as u32 + 1;
        assert_eq!(
            sequential[t].1,
            [2 * tick + 100],
            "the condition left both events unread"
        );
    }
    for threads in [1, 2, 4] {
        assert_eq!(sparks(Some(threads)), sequential, "on {threads} threads");
    }
}
