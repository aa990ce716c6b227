//! Event queues across runners: a game with two writers of one queue and readers on both
//! sides of them gives the same event order, skips and state hash on the sequential runner
//! and on 1, 2, 4 and 8 threads.

use std::sync::{Arc, Mutex};

use laige_sim::prelude::*;
use laige_sim::world::{SkipReason, SystemOutcome};

#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
struct Pos(i32);

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

struct Game {
    hash: u64,
    early: Vec<(u64, Vec<(u32, i32)>)>,
    late: Vec<(u64, Vec<(u32, i32)>)>,
    skips: Vec<SystemOutcome>,
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
    world.register_events::<Hit>(256).unwrap();
    world.register_events::<Died>(64).unwrap();
    for i in 0..200 {
        world.spawn((Pos(i * 7 % 101), Hp(40 + i % 13))).unwrap();
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
    world
        .system("Drift", |mut q: Query<'_, &mut Pos>| {
            q.each(|pos| pos.0 = (pos.0 * 3 + 1) % 101)
        })
        .register()
        .unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions {
            threads,
            mode: Mode::Parallel,
            ..Default::default()
        });
    }
    let schedule = world.schedule().unwrap();
    let mut skips = Vec::new();
    for _ in 0..40 {
        world.run_systems(&schedule).unwrap();
        assert!(world.tick_report().events().is_clean());
        skips.push(world.tick_report().system(reaper).unwrap().outcome);
    }
    let (early, late) = (early.lock().unwrap(), late.lock().unwrap());
    Game {
        hash: world.state_hash(),
        early: early.clone(),
        late: late.clone(),
        skips,
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
            game.hash, reference.hash,
            "{threads} threads: the state hash"
        );
    }
}
