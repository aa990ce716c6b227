//! Event queues, run conditions and change detection across runners: a game with two writers
//! of one queue, readers on both sides of them, a reactive reader, a state-driven run
//! condition and a grid rebuilt from `Changed<Pos>` gives the same event order, skips,
//! rebuilds and state hash on the sequential runner and on 1, 2, 4 and 8 threads.

use std::sync::{Arc, Mutex};

use laige_sim::prelude::*;
use laige_sim::world::{SkipReason, SystemOutcome};

#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed, tracked)]
struct Pos(i32);

/// The grid cell of a [`Pos`], kept by `Grid` from the changed positions alone.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
struct Cell(i32);

/// The game's state: `Drift` runs only while `Playing`; a death pauses the next movement.
#[derive(StateHash, Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Playing,
    KillCam,
}

#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
struct Hp(i32);

/// One entity hit another for `amount`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hit {
    target: Entity,
    amount: i32,
}

/// An entity died this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Died(Entity);

type Log = Arc<Mutex<Vec<(u64, Vec<(u32, i32)>)>>>;

fn logged(log: &Log, tick: u64, hits: &EventReader<'_, Hit>) {
    let seen = hits
        .read()
        .map(|it| (it.target.index(), it.amount))
        .collect();
    log.lock().unwrap().push((tick, seen));
}

#[derive(Debug, PartialEq)]
struct Game {
    hash: u64,
    early: Vec<(u64, Vec<(u32, i32)>)>,
    late: Vec<(u64, Vec<(u32, i32)>)>,
    skips: Vec<SystemOutcome>,
    /// Per tick: `Drift`'s outcome, and how many cells `Grid` recomputed.
    drift: Vec<SystemOutcome>,
    rebuilt: Vec<usize>,
    live: Vec<usize>,
}

/// The game, with no ordering declared between the writers and the readers: the flat
/// schedule puts them in registration order, and the access proof orders every writer
/// against every reader on the executor too.
fn play(threads: Option<usize>) -> Game {
    let mut world = World::new(WorldOptions {
        seed: 22,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Hp>().unwrap();
    world.register_component::<Cell>().unwrap();
    world.insert_hashed_resource(Phase::Playing).unwrap();
    world.register_events::<Hit>(256).unwrap();
    world.register_events::<Died>(64).unwrap();
    for i in 0..200 {
        world
            .spawn((Pos(i * 7 % 101), Hp(40 + i % 13), Cell(-1)))
            .unwrap();
    }
    let (early, late): (Log, Log) = Default::default();
    let (early_log, late_log) = (early.clone(), late.clone());
    // Before both writers: sees their events a tick late.
    world
        .system(
            "Referee",
            move |hits: EventReader<'_, Hit>, mut tick: Local<'_, u64>| {
                *tick += 1;
                logged(&early_log, *tick, &hits);
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Melee",
            |q: Query<'_, (Entity, &Pos)>, mut hits: EventWriter<'_, Hit>| {
                for (e, pos) in q.iter()? {
                    if pos.0 % 3 == 0 {
                        hits.write(Hit {
                            target: e,
                            amount: 1 + pos.0 % 4,
                        });
                    }
                }
                Ok::<(), QueryError>(())
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Ranged",
            |q: Query<'_, (Entity, &Pos)>, mut hits: EventWriter<'_, Hit>, mut rng: Rng<'_>| {
                for (e, pos) in q.iter()? {
                    if pos.0 % 5 == 0 && rng.next_range(0, 2) == 0 {
                        hits.write(Hit {
                            target: e,
                            amount: 2,
                        });
                    }
                }
                Ok::<(), QueryError>(())
            },
        )
        .register()
        .unwrap();
    // After both writers: sees their events the same tick.
    world
        .system(
            "Damage",
            move |hits: EventReader<'_, Hit>,
                  mut hp: Query<'_, &mut Hp>,
                  mut died: EventWriter<'_, Died>,
                  mut tick: Local<'_, u64>| {
                *tick += 1;
                logged(&late_log, *tick, &hits);
                for hit in hits.read() {
                    if let Some(hp) = hp.get_mut(hit.target)? {
                        let was = hp.0;
                        hp.0 -= hit.amount;
                        if was > 0 && hp.0 <= 0 {
                            died.write(Died(hit.target));
                        }
                    }
                }
                Ok::<(), QueryError>(())
            },
        )
        .register()
        .unwrap();
    // Reactive: runs only on ticks where something died.
    let reaper = world
        .system(
            "Reap",
            |died: EventReader<'_, Died>, mut commands: Commands<'_>| {
                for it in died.read() {
                    commands.despawn(it.0);
                }
            },
        )
        .reactive()
        .register()
        .unwrap();
    // A third reader of `Died`, after its writer: the state the condition below reads.
    world
        .system(
            "Director",
            |died: EventReader<'_, Died>, mut phase: ResMut<'_, Phase>| {
                *phase = if died.is_empty() {
                    Phase::Playing
                } else {
                    Phase::KillCam
                };
            },
        )
        .register()
        .unwrap();
    let drift = world
        .system("Drift", |mut q: Query<'_, &mut Pos>| {
            q.each(|pos| pos.0 = (pos.0 * 3 + 1) % 101)
        })
        .run_if(resource_equals(Phase::Playing))
        .register()
        .unwrap();
    let rebuilt: Arc<Mutex<Vec<usize>>> = Arc::default();
    let rebuilt_log = rebuilt.clone();
    world
        .system(
            "Grid",
            move |mut q: Query<'_, (&mut Cell, &Pos), Changed<Pos>>| {
                let mut n = 0;
                q.each(|(cell, pos)| {
                    cell.0 = pos.0 / 10;
                    n += 1;
                })?;
                rebuilt_log.lock().unwrap().push(n);
                Ok::<(), QueryError>(())
            },
        )
        .register()
        .unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let schedule = world.schedule().unwrap();
    let (mut skips, mut drifts, mut live) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..40 {
        live.push(world.len());
        world.run_systems(&schedule).unwrap();
        assert!(world.tick_report().events().is_clean());
        skips.push(world.tick_report().system(reaper).unwrap().outcome);
        drifts.push(world.tick_report().system(drift).unwrap().outcome);
    }
    // Every cell is its position's, though `Grid` visited only the changed ones.
    world
        .each::<(&Cell, &Pos)>(|(cell, pos)| assert_eq!(cell.0, pos.0 / 10))
        .unwrap();
    let (early, late) = (early.lock().unwrap(), late.lock().unwrap());
    let rebuilt = rebuilt.lock().unwrap().clone();
    Game {
        hash: world.state_hash(),
        early: early.clone(),
        late: late.clone(),
        skips,
        drift: drifts,
        rebuilt,
        live,
    }
}

#[test]
fn two_writers_and_readers_on_both_sides_agree_on_every_runner() {
    let reference = play(None);
    // Every event reaches both readers, the early one a tick later.
    let flatten = |log: &[(u64, Vec<(u32, i32)>)]| -> Vec<(u32, i32)> {
        log.iter().flat_map(|(_, it)| it.iter().copied()).collect()
    };
    let (early, late) = (flatten(&reference.early), flatten(&reference.late));
    assert!(!late.is_empty());
    let last_tick = reference.late.last().unwrap().1.len();
    assert_eq!(early[..], late[..late.len() - last_tick]);
    assert!(
        reference.early[0].1.is_empty(),
        "nothing before the first tick"
    );
    // The reaper both ran and was skipped.
    let skipped = SystemOutcome::Skipped(SkipReason::EventsEmpty);
    assert!(reference.skips.contains(&skipped));
    assert!(reference.skips.contains(&SystemOutcome::Ran));
    // The state-driven condition both held and did not; `Grid` recomputed every cell on the
    // ticks `Drift` moved them (and on the first, when all were added), none on the others.
    let paused = SystemOutcome::Skipped(SkipReason::RunConditionFalse);
    assert!(reference.drift.contains(&paused));
    assert!(reference.drift.contains(&SystemOutcome::Ran));
    for (tick, (&outcome, &rebuilt)) in reference.drift.iter().zip(&reference.rebuilt).enumerate() {
        let alive = reference.live[tick];
        let want = if outcome == SystemOutcome::Ran || tick == 0 {
            alive
        } else {
            0
        };
        assert_eq!(rebuilt, want, "tick {tick}: {outcome:?}");
    }
    for threads in [1, 2, 4, 8] {
        let game = play(Some(threads));
        assert_eq!(
            game.late, reference.late,
            "{threads} threads: the late reader"
        );
        assert_eq!(
            game.early, reference.early,
            "{threads} threads: the early reader"
        );
        assert_eq!(game.skips, reference.skips, "{threads} threads: the skips");
        assert_eq!(
            game.drift, reference.drift,
            "{threads} threads: the condition"
        );
        assert_eq!(
            game.rebuilt, reference.rebuilt,
            "{threads} threads: the grid"
        );
        assert_eq!(
            game.hash, reference.hash,
            "{threads} threads: the state hash"
        );
    }
}
