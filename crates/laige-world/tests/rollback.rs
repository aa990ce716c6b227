//! Saving and restoring a whole world (`World::save_state` / `restore_state`): the
//! restored world is the same world (hash, checksum record, entity handles, every later
//! tick) on the sequential runner and 1, 2 and 4 threads, with spawns, despawns,
//! `par_each`, PRNG draws and `Local` state in play; and every refusal names what differs.

use laige_executor::ExecutorOptions;
use laige_world::{
    Commands, Component, ComponentOptions, Entity, Local, Query, ResMut, Rng, Snapshot, StateError,
    StateHash, StateHasher, With, World, WorldOptions, WorldState,
};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i64);
impl Component for Pos {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().saved_copy()
    }
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(i64);
impl Component for Vel {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().saved_copy()
    }
}
/// A heap-owning component, saved by `Clone`.
#[derive(Clone, Debug, PartialEq)]
struct Bag(Vec<u32>);
impl Component for Bag {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().saved()
    }
}
/// Versioned: its snapshot is state too.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Heat(u32);
impl Component for Heat {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().versioned()
    }
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Marker;
impl Component for Marker {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().saved_copy()
    }
}
#[derive(Clone, Debug, Default, PartialEq)]
struct Score(u64, Vec<u64>);

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.0 as u64);
    }
}
impl StateHash for Vel {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.0 as u64);
    }
}
impl StateHash for Bag {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.0.len() as u64);
        for &v in &self.0 {
            h.write_u32(v);
        }
    }
}
impl StateHash for Heat {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u32(self.0);
    }
}
impl StateHash for Score {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.0);
        h.write_u64(self.1.len() as u64);
    }
}

/// Which runner a world ticks on.
#[derive(Clone, Copy, Debug)]
enum On {
    Sequential,
    Threads(usize),
}

const RUNNERS: [On; 4] = [
    On::Sequential,
    On::Threads(1),
    On::Threads(2),
    On::Threads(4),
];

/// A small game: movement in `par_each` batches that draw from their streams, a spawner
/// and despawner driven by the PRNG and a `Local` counter, a heap-owning component that
/// grows, a versioned component read through its snapshot, and a resource.
fn game(seed: u64, entities: u32, on: On) -> World {
    let mut world = World::new(WorldOptions {
        seed,
        ..WorldOptions::default()
    });
    world.set_timing(false);
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Bag>().unwrap();
    world.register_component::<Heat>().unwrap();
    world.register_component::<Marker>().unwrap();
    world.insert_hashed_resource(Score::default()).unwrap();
    world.save_resource::<Score>().unwrap();
    for i in 0..entities {
        let i = i64::from(i);
        world
            .spawn((Pos(i), Vel(i % 7 - 3), Heat(i as u32)))
            .unwrap();
    }
    world
        .system("Move", |mut q: Query<'_, (&mut Pos, &Vel)>| {
            q.par_each(|batch, (pos, vel)| {
                pos.0 = pos.0.wrapping_add(vel.0) ^ (batch.rng().next_u64() & 3) as i64;
            })
        })
        .register()
        .unwrap();
    world
        .system(
            "Churn",
            |q: Query<'_, (Entity, &Pos)>,
             mut commands: Commands<'_>,
             mut rng: Rng<'_>,
             mut ticks: Local<'_, u32>,
             mut seen: Local<'_, Vec<u32>>| {
                *ticks += 1;
                seen.push(*ticks);
                let mut n = 0u32;
                for (entity, pos) in q.iter()? {
                    if rng.next_range(0, 8) == 0 {
                        commands.despawn(entity);
                    } else if pos.0 % 5 == 0 && n < 3 {
                        n += 1;
                        let bag = Bag(vec![*ticks; (*ticks % 4) as usize]);
                        commands.spawn((Pos(pos.0 + 1), Vel(-1), bag));
                    }
                }
                if ticks.is_multiple_of(3) {
                    commands.spawn((Pos(i64::from(*ticks)), Marker));
                }
                Ok::<(), laige_world::QueryError>(())
            },
        )
        .register()
        .unwrap();
    world
        .system("Grow", |mut q: Query<'_, &mut Bag>, mut rng: Rng<'_>| {
            q.each(|bag| bag.0.push(rng.next_range(0, 100)))
        })
        .register()
        .unwrap();
    world
        .system("Warm", |mut q: Query<'_, (&mut Heat, &Pos)>| {
            q.each(|(heat, pos)| heat.0 = heat.0.wrapping_add(pos.0 as u32 & 15))
        })
        .register()
        .unwrap();
    world
        .system("Drift", |mut q: Query<'_, (&mut Vel, Snapshot<&Heat>)>| {
            q.each(|(vel, heat)| {
                let push = heat.map_or(0, |it| i64::from(it.0 % 3) - 1);
                vel.0 = (vel.0 + push).clamp(-5, 5);
            })
        })
        .register()
        .unwrap();
    world
        .system(
            "Count",
            |q: Query<'_, &Pos, With<Marker>>, mut score: ResMut<'_, Score>| {
                let n = q.iter()?.count() as u64;
                score.0 = score.0.wrapping_mul(31).wrapping_add(n);
                score.1.push(n);
                Ok::<(), laige_world::QueryError>(())
            },
        )
        .register()
        .unwrap();
    if let On::Threads(threads) = on {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world.record_checksums(64);
    world
}

/// The live handles in ascending index.
fn handles(world: &mut World) -> Vec<Entity> {
    let mut out = Vec::new();
    world.each::<Entity>(|e| out.push(e)).unwrap();
    out.sort();
    out
}

/// Runs `ticks` ticks and returns the state hash after each.
fn run(world: &mut World, ticks: usize) -> Vec<u64> {
    let schedule = world.schedule().unwrap();
    (0..ticks)
        .map(|_| {
            world.run_systems(&schedule).unwrap();
            world.state_hash()
        })
        .collect()
}

fn record(world: &World) -> Vec<u8> {
    world.checksums().unwrap().to_bytes()
}

/// A world run `t` ticks, saved, run `k` more; restored and run the same `k` again; and a
/// world that ran `t + k` ticks without going back. All three agree.
fn rolls_back_to_the_same_world(seed: u64, entities: u32, t: usize, k: usize, on: On) {
    let mut world = game(seed, entities, on);
    run(&mut world, t);
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    assert_eq!(state.tick(), t as u64);
    let first = run(&mut world, k);
    let first_handles = handles(&mut world);
    let first_record = record(&world);

    world.restore_state(&state).unwrap();
    assert_eq!(world.ticks_run(), t as u64);
    let again = run(&mut world, k);
    assert_eq!(
        again, first,
        "the ticks after a restore are the ticks after the save"
    );
    assert_eq!(handles(&mut world), first_handles);
    assert_eq!(
        record(&world),
        first_record,
        "the checksum record reads as one run's"
    );

    let mut straight = game(seed, entities, on);
    let hashes = run(&mut straight, t + k);
    assert_eq!(&hashes[t..], &first[..]);
    assert_eq!(handles(&mut straight), first_handles);
    assert_eq!(record(&straight), first_record);
    assert_eq!(
        straight.resource::<Score>().unwrap(),
        world.resource::<Score>().unwrap()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn a_restored_world_ticks_as_one_that_never_went_back(
        seed in any::<u64>(),
        entities in 0u32..300,
        t in 0usize..5,
        k in 1usize..6,
        runner in 0usize..4,
    ) {
        rolls_back_to_the_same_world(seed, entities, t, k, RUNNERS[runner]);
    }
}

#[test]
fn every_runner_gives_the_same_world_after_a_rollback() {
    let reference = {
        let mut world = game(9, 200, On::Sequential);
        run(&mut world, 6)
    };
    for on in RUNNERS {
        let mut world = game(9, 200, on);
        run(&mut world, 2);
        let mut state = WorldState::new();
        world.save_state(&mut state).unwrap();
        run(&mut world, 3);
        world.restore_state(&state).unwrap();
        let hashes = run(&mut world, 4);
        assert_eq!(hashes, reference[2..], "{on:?}");
    }
}

#[test]
fn tables_made_after_the_save_are_removed_so_ids_stay_those_of_the_straight_run() {
    let mut world = game(3, 20, On::Sequential);
    run(&mut world, 1);
    let tables = world.archetypes().len();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    // A table the straight run never makes: (Pos, Marker, Vel).
    let e = world.spawn((Pos(1), Vel(1), Marker)).unwrap();
    world.despawn(e).unwrap();
    assert!(world.archetypes().len() > tables);
    world.restore_state(&state).unwrap();
    assert_eq!(world.archetypes().len(), tables);
    let hashes = run(&mut world, 4);
    let mut straight = game(3, 20, On::Sequential);
    assert_eq!(run(&mut straight, 5)[1..], hashes[..]);
    let ids = |w: &World| -> Vec<Vec<u16>> {
        w.archetypes()
            .iter()
            .map(|a| a.components().iter().map(|c| c.get()).collect())
            .collect()
    };
    assert_eq!(ids(&world), ids(&straight));
}

#[test]
fn a_state_restores_into_a_fresh_world_of_the_same_registry() {
    let mut world = game(5, 50, On::Sequential);
    run(&mut world, 3);
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let after = run(&mut world, 3);

    let mut fresh = game(5, 0, On::Threads(2));
    fresh.restore_state(&state).unwrap();
    assert_eq!(run(&mut fresh, 3), after);
}

#[test]
fn saving_again_into_a_state_reuses_it() {
    let mut world = game(1, 100, On::Sequential);
    let mut state = WorldState::new();
    for _ in 0..3 {
        run(&mut world, 1);
        world.save_state(&mut state).unwrap();
    }
    let hash = world.state_hash();
    run(&mut world, 2);
    world.restore_state(&state).unwrap();
    assert_eq!(world.state_hash(), hash);
    assert_eq!(state.entity_count() as usize, world.len());
    assert!(state.value_bytes() > 0);
}

#[test]
fn a_component_that_is_not_saved_is_named_by_the_save() {
    struct Plain;
    impl Component for Plain {}
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<Plain>().unwrap();
    let mut state = WorldState::new();
    let err = world.save_state(&mut state).unwrap_err();
    assert!(matches!(
        err,
        StateError::NotSaved {
            resource: false,
            ..
        }
    ));
    assert!(
        !state.is_saved(),
        "a refused save leaves the state as it was"
    );
    insta::assert_snapshot!(err.to_string(), @"component `rollback::a_component_that_is_not_saved_is_named_by_the_save::Plain` is not saved, so a save would lose it: register it with `ComponentOptions::saved()` (it needs `Clone`) or `saved_copy()` (`Copy`), or `#[component(saved)]` / `#[component(saved_copy)]`");
}

#[test]
fn a_resource_that_is_not_saved_is_named_by_the_save() {
    struct Settings;
    let mut world = World::default();
    world.insert_resource(Settings).unwrap();
    let err = world.save_state(&mut WorldState::new()).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"resource `rollback::a_resource_that_is_not_saved_is_named_by_the_save::Settings` is not saved, so a save would lose it: call `world.save_resource::<rollback::a_resource_that_is_not_saved_is_named_by_the_save::Settings>()` (it needs `Clone`) during setup");
}

#[test]
fn restoring_into_another_registry_names_the_difference() {
    let mut world = game(1, 10, On::Sequential);
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();

    let mut other = World::default();
    other.register_component::<Pos>().unwrap();
    other.register_component::<Bag>().unwrap();
    let err = other.restore_state(&state).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the state was saved from a world with other components: component id 2 is `rollback::Vel` in the state but `rollback::Bag` in this world; register the same component types in the same order before restoring");

    let mut fewer = game(1, 10, On::Sequential);
    let mut extra = game(1, 10, On::Sequential);
    extra
        .system("Extra", |_: Commands<'_>| {})
        .register()
        .unwrap();
    let mut longer = WorldState::new();
    extra.save_state(&mut longer).unwrap();
    let err = fewer.restore_state(&longer).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the state was saved from a world with other systems: system id 7 is `Extra` in the state but none in this world; register the same systems in the same order before restoring");

    let err = world.restore_state(&WorldState::new()).unwrap_err();
    assert_eq!(err, StateError::Empty);
}

#[test]
fn another_function_under_the_same_name_is_refused_by_its_locals() {
    let make = |local_is_u8: bool| {
        let mut world = World::default();
        if local_is_u8 {
            world.system("S", |_: Local<'_, u8>| {}).register().unwrap();
        } else {
            world
                .system("S", |_: Local<'_, u16>| {})
                .register()
                .unwrap();
        }
        world
    };
    let mut state = WorldState::new();
    make(true).save_state(&mut state).unwrap();
    let err = make(false).restore_state(&state).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"system `S` keeps a `Local` of `u16` in this world but of `u8` in the state: register the same function under that name before restoring");
}

#[test]
fn restored_local_state_is_the_saved_one() {
    let mut world = World::default();
    world
        .system(
            "Count",
            |mut n: Local<'_, Vec<u32>>, mut commands: Commands<'_>| {
                let len = n.len() as u32;
                n.push(len);
                if n.len() == 3 {
                    commands.spawn(());
                }
            },
        )
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.len(), 1);
    world.restore_state(&state).unwrap();
    assert_eq!(world.len(), 0);
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.len(), 0, "the Local was back at one run");
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.len(), 1);
}

#[test]
fn requested_skips_are_part_of_the_state() {
    let mut world = game(2, 30, On::Sequential);
    let grow = world.registry().find("Grow").unwrap();
    world
        .skip_next_tick(grow, laige_world::SkipReason::Throttled)
        .unwrap();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let first = run(&mut world, 2);
    world.restore_state(&state).unwrap();
    assert_eq!(run(&mut world, 1), first[..1]);
    assert_eq!(
        world.last_skip(grow),
        Some(laige_world::SkipReason::Throttled)
    );
    assert_eq!(run(&mut world, 1), first[1..]);
    assert_eq!(world.last_skip(grow), None);
}

#[test]
fn the_ring_rolls_back_eight_ticks_and_refuses_what_it_no_longer_holds() {
    let mut world = game(4, 80, On::Threads(2));
    let mut ring = laige_world::StateRing::new(9);
    let schedule = world.schedule().unwrap();
    let mut hashes = Vec::new();
    for _ in 0..20 {
        ring.save(&mut world).unwrap();
        world.run_systems(&schedule).unwrap();
        hashes.push(world.state_hash());
    }
    assert_eq!(ring.held(), Some((11, 19)));
    ring.roll_back(&mut world, 8).unwrap();
    assert_eq!(world.ticks_run(), 12);
    assert_eq!(run(&mut world, 8), hashes[12..]);
    let err = ring.load(&mut world, 3).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the rollback ring holds no state of tick 3 (it holds ticks 11 to 19): roll back at most its capacity, and save every tick");
}

/// A tracked component whose writers touch a few rows a tick, and a `Changed` reader that
/// sums what it sees: after a restore, the reader sees what a run that never went back saw.
#[derive(Clone, Copy, Debug)]
struct Warmth(u32);
impl Component for Warmth {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().saved_copy().tracked()
    }
}

#[derive(Clone, Debug, Default)]
struct Seen(u64);

fn tracked_game() -> (World, laige_scheduler::Schedule) {
    let mut world = World::default();
    world.register_component::<Warmth>().unwrap();
    world.insert_resource(Seen::default()).unwrap();
    world.save_resource::<Seen>().unwrap();
    for i in 0..300 {
        world.spawn((Warmth(i),)).unwrap();
    }
    let warm = world
        .system(
            "Warm",
            |mut q: Query<'_, (Entity, laige_world::Mut<'_, Warmth>)>, mut rng: Rng<'_>| {
                let pick = rng.next_range(0, 30);
                for (e, mut heat) in q.iter_mut()? {
                    if e.index() % 30 == pick {
                        heat.0 += 1;
                    }
                }
                Ok::<(), laige_world::QueryError>(())
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Watch",
            |q: Query<'_, (Entity, &Warmth), laige_world::Changed<Warmth>>,
             mut seen: ResMut<'_, Seen>| {
                for (e, heat) in q.iter()? {
                    seen.0 = seen
                        .0
                        .wrapping_mul(31)
                        .wrapping_add(u64::from(e.index()) ^ u64::from(heat.0));
                }
                Ok::<(), laige_world::QueryError>(())
            },
        )
        .after(warm)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn change_ticks_are_part_of_the_state() {
    let (mut world, schedule) = tracked_game();
    for _ in 0..5 {
        world.run_systems(&schedule).unwrap();
    }
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let mut straight = Vec::new();
    for _ in 0..6 {
        world.run_systems(&schedule).unwrap();
        straight.push((world.resource::<Seen>().unwrap().0, world.state_hash()));
    }
    world.restore_state(&state).unwrap();
    let mut again = Vec::new();
    for _ in 0..6 {
        world.run_systems(&schedule).unwrap();
        again.push((world.resource::<Seen>().unwrap().0, world.state_hash()));
    }
    assert_eq!(
        again, straight,
        "the Changed reader saw the same rows after the restore"
    );
}

#[test]
fn a_run_conditions_local_state_is_part_of_the_state() {
    let mut world = World::default();
    world
        .system("Pulse", |mut commands: Commands<'_>| {
            commands.spawn(());
        })
        .run_if(|mut count: Local<'_, u32>| {
            *count += 1;
            count.is_multiple_of(3)
        })
        .run_if(|mut held: Local<'_, u64>| {
            *held += 1;
            *held > 1
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    // Seven ticks: not a multiple of the condition's period, so a count left where the
    // straight run took it would shift the phase.
    let runs = |world: &mut World| -> Vec<usize> {
        (0..7)
            .map(|_| {
                world.run_systems(&schedule).unwrap();
                world.len()
            })
            .collect()
    };
    for _ in 0..4 {
        world.run_systems(&schedule).unwrap();
    }
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let straight = runs(&mut world);
    world.restore_state(&state).unwrap();
    let again = runs(&mut world);
    assert_eq!(again, straight, "the conditions' counts were restored");
    assert!(straight[0] < straight[6], "Pulse ran after the save");
}

#[test]
fn a_condition_keeping_another_local_type_is_refused() {
    let make = |local_is_u8: bool| {
        let mut world = World::default();
        let builder = world.system("S", || {});
        if local_is_u8 {
            builder.run_if(|_: Local<'_, u8>| true).register().unwrap();
        } else {
            builder.run_if(|_: Local<'_, u16>| true).register().unwrap();
        }
        world
    };
    let mut state = WorldState::new();
    make(true).save_state(&mut state).unwrap();
    let err = make(false).restore_state(&state).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"system `S` keeps a `Local` of `u16` in this world but of `u8` in the state: register the same function under that name before restoring");
}

#[derive(Clone, Copy, Debug)]
struct Spark(u32);

#[derive(Clone, Debug, Default)]
struct Heard(u64);

#[derive(Clone, Debug, Default)]
struct Counted(u64);

/// A writer emitting a random number of events a tick, a reader before it (which sees them
/// the next tick, so events are in flight at every save) and one after it.
fn events_game() -> (World, laige_scheduler::Schedule) {
    use laige_world::{EventReader, EventWriter};
    let mut world = World::default();
    world.register_events::<Spark>(64).unwrap();
    world.save_events::<Spark>().unwrap();
    world.insert_resource(Heard::default()).unwrap();
    world.save_resource::<Heard>().unwrap();
    world.insert_resource(Counted::default()).unwrap();
    world.save_resource::<Counted>().unwrap();
    let early = world
        .system(
            "Early",
            |sparks: EventReader<'_, Spark>, mut heard: ResMut<'_, Heard>| {
                for spark in sparks.read() {
                    heard.0 = heard.0.wrapping_mul(31).wrapping_add(u64::from(spark.0));
                }
            },
        )
        .register()
        .unwrap();
    let emit = world
        .system(
            "Emit",
            |mut out: EventWriter<'_, Spark>, mut rng: Rng<'_>| {
                for _ in 0..rng.next_range(0, 20) {
                    out.write(Spark(rng.next_range(0, 1000)));
                }
            },
        )
        .after(early)
        .register()
        .unwrap();
    world
        .system(
            "Late",
            |sparks: EventReader<'_, Spark>, mut counted: ResMut<'_, Counted>| {
                counted.0 = counted.0.wrapping_mul(7) ^ sparks.len() as u64;
            },
        )
        .after(emit)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn events_in_flight_are_part_of_the_state() {
    let (mut world, schedule) = events_game();
    for _ in 0..4 {
        world.run_systems(&schedule).unwrap();
    }
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let mut straight = Vec::new();
    for _ in 0..6 {
        world.run_systems(&schedule).unwrap();
        let counted = world.resource::<Counted>().unwrap().0;
        straight.push((world.resource::<Heard>().unwrap().0, counted));
    }
    world.restore_state(&state).unwrap();
    let mut again = Vec::new();
    for _ in 0..6 {
        world.run_systems(&schedule).unwrap();
        let counted = world.resource::<Counted>().unwrap().0;
        again.push((world.resource::<Heard>().unwrap().0, counted));
    }
    assert_eq!(
        again, straight,
        "the readers saw the same events after the restore"
    );
}

#[test]
fn a_queue_not_saved_is_named_by_the_save() {
    let mut world = World::default();
    world.register_events::<Spark>(8).unwrap();
    let mut state = WorldState::new();
    let err = world.save_state(&mut state).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the event queue of `rollback::Spark` is not saved, so a save would lose the events in flight: call `world.save_events::<rollback::Spark>()` (it needs `Clone`) during setup");
}

#[derive(Clone, Debug, PartialEq)]
struct Grid(Vec<u32>);

#[test]
fn named_resources_are_saved_by_name() {
    let mut world = World::default();
    world
        .insert_named_resource("terrain", Grid(vec![1, 2]))
        .unwrap();
    world.insert_named_resource("units", Grid(vec![7])).unwrap();
    let mut state = WorldState::new();
    let err = world.save_state(&mut state).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @r#"resource `Grid` named "terrain" is not saved, so a save would lose it: call `world.save_named_resource::<Grid>("terrain")` (it needs `Clone`) during setup"#);
    world.save_named_resource::<Grid>("terrain").unwrap();
    world.save_named_resource::<Grid>("units").unwrap();
    world.save_state(&mut state).unwrap();
    world.named_resource_mut::<Grid>("units").unwrap().0.push(8);
    world.restore_state(&state).unwrap();
    assert_eq!(
        world.named_resource::<Grid>("units").unwrap(),
        &Grid(vec![7])
    );
    assert_eq!(
        world.named_resource::<Grid>("terrain").unwrap(),
        &Grid(vec![1, 2])
    );
    assert!(world.save_named_resource::<Grid>("tarrain").is_err());
}

/// Sparse: added and removed between ticks without moving rows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stun(u32);
impl Component for Stun {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().saved_copy().sparse()
    }
}
impl StateHash for Stun {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(self.0));
    }
}

/// Tick `t`'s sparse churn: stuns every third entity from `t`, lifts it from the others.
fn churn(world: &mut World, entities: &[Entity], t: u32) {
    for (i, &e) in entities.iter().enumerate() {
        if (i as u32 + t).is_multiple_of(3) {
            world.insert(e, Stun(t * 100 + i as u32)).unwrap();
        } else if (i as u32 + t).is_multiple_of(2) {
            world.remove::<Stun>(e).unwrap();
        }
    }
}

#[test]
fn sparse_sets_are_part_of_the_state() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<Stun>().unwrap();
    world
        .system("Drift", |mut q: Query<'_, &mut Pos>| q.each(|p| p.0 += 1))
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let entities: Vec<Entity> = (0..20).map(|i| world.spawn((Pos(i),)).unwrap()).collect();
    let go = |world: &mut World, from: u32| -> Vec<(u64, Vec<Option<Stun>>)> {
        (from..from + 6)
            .map(|t| {
                churn(world, &entities, t);
                world.run_systems(&schedule).unwrap();
                let stuns = entities
                    .iter()
                    .map(|&e| world.get::<Stun>(e).ok().copied())
                    .collect();
                (world.state_hash(), stuns)
            })
            .collect()
    };
    go(&mut world, 0);
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    assert!(
        state.value_bytes() > 20 * size_of::<Pos>(),
        "the stuns are held"
    );
    let straight = go(&mut world, 6);
    world.restore_state(&state).unwrap();
    let again = go(&mut world, 6);
    assert_eq!(
        again, straight,
        "the same stuns and hashes after the rollback"
    );
    assert!(straight.iter().any(|(_, s)| s.iter().any(Option::is_some)));
}
