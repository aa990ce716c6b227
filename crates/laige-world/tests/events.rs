//! Event queues: delivery on both sides of a writer, two writers merged in schedule order,
//! overflow and unread reports, reactive readers, the low-level builder, and the errors.

use laige_executor::ExecutorOptions;
use laige_testkit::capture;
use laige_world::{
    EventReader, EventWriter, EventsError, Local, RegisterError, ResMut, SkipReason, SystemContext,
    SystemOutcome, TickError, World, WorldOptions,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hit(u32);

/// What a reader saw, run by run: (tick, events).
#[derive(Default, Debug, PartialEq, Eq)]
struct Seen(Vec<(u32, Vec<u32>)>);

#[derive(Default, Debug, PartialEq, Eq)]
struct SeenLate(Vec<(u32, Vec<u32>)>);

fn world() -> World {
    let mut world = World::new(WorldOptions::default());
    world.register_events::<Hit>(8).unwrap();
    world.insert_resource(Seen::default()).unwrap();
    world.insert_resource(SeenLate::default()).unwrap();
    world
}

/// Emits `base + tick`, `base + tick + 1`.
fn emitter(base: u32) -> impl FnMut(EventWriter<'_, Hit>, Local<'_, u32>) + Send + 'static {
    move |mut hits: EventWriter<'_, Hit>, mut tick: Local<'_, u32>| {
        *tick += 1;
        hits.write(Hit(base + *tick * 10));
        hits.write(Hit(base + *tick * 10 + 1));
    }
}

fn record(hits: &EventReader<'_, Hit>, tick: &mut u32) -> (u32, Vec<u32>) {
    *tick += 1;
    assert_eq!(hits.len(), hits.read().len());
    (*tick, hits.read().map(|it| it.0).collect())
}

#[test]
fn a_reader_after_the_writer_sees_its_events_the_same_tick() {
    let mut world = world();
    world.system("Write", emitter(0)).register().unwrap();
    world
        .system(
            "Read",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, Seen>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .after("Write")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let seen = &world.resource::<Seen>().unwrap().0;
    assert_eq!(
        seen,
        &[(1, vec![10, 11]), (2, vec![20, 21]), (3, vec![30, 31])]
    );
    assert!(world.tick_report().is_clean());
}

#[test]
fn a_reader_before_the_writer_sees_its_events_the_next_tick() {
    let mut world = world();
    world
        .system(
            "Read",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, Seen>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .register()
        .unwrap();
    world
        .system("Write", emitter(0))
        .after("Read")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let seen = &world.resource::<Seen>().unwrap().0;
    assert_eq!(seen, &[(1, vec![]), (2, vec![10, 11]), (3, vec![20, 21])]);
}

/// Two writers, a reader between them and readers on either side: every reader sees every
/// event once, in (tick, writer position, emission) order.
/// A reader's runs: (its run count, the events it saw).
type Runs = Vec<(u32, Vec<u32>)>;

fn two_writers(executor: Option<usize>) -> (Runs, Runs) {
    let mut world = world();
    if let Some(threads) = executor {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world
        .system(
            "Early",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, Seen>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .register()
        .unwrap();
    world
        .system("WriteA", emitter(1000))
        .after("Early")
        .register()
        .unwrap();
    world
        .system("WriteB", emitter(2000))
        .after("Early")
        .register()
        .unwrap();
    world
        .system(
            "Late",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, SeenLate>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .after("WriteA, WriteB")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let early = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    let late = std::mem::take(&mut world.resource_mut::<SeenLate>().unwrap().0);
    (early, late)
}

#[test]
fn two_writers_merge_in_schedule_order_on_every_runner() {
    let sequential = two_writers(None);
    assert_eq!(
        sequential.1,
        [
            (1, vec![1010, 1011, 2010, 2011]),
            (2, vec![1020, 1021, 2020, 2021]),
            (3, vec![1030, 1031, 2030, 2031]),
        ]
    );
    assert_eq!(
        sequential.0,
        [
            (1, vec![]),
            (2, vec![1010, 1011, 2010, 2011]),
            (3, vec![1020, 1021, 2020, 2021]),
        ]
    );
    for threads in [1, 2, 4, 8] {
        assert_eq!(two_writers(Some(threads)), sequential, "{threads} threads");
    }
}

#[test]
fn two_writers_of_one_queue_do_not_conflict_but_a_reader_does() {
    let mut world = world();
    let a = world.system("WriteA", emitter(0)).register().unwrap();
    let b = world.system("WriteB", emitter(0)).register().unwrap();
    let r = world
        .system("Read", |_: EventReader<'_, Hit>| {})
        .register()
        .unwrap();
    let conflicts = world.registry().conflicts(None);
    assert!(!conflicts.contains(a.id(), b.id()));
    assert!(conflicts.contains(a.id(), r.id()) && conflicts.contains(b.id(), r.id()));
}

#[test]
fn overflowing_the_capacity_is_a_tick_error_naming_the_queue_and_the_system() {
    // Untimed: a slow host (valgrind) would emit a budget overrun before the overflow.
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_events::<Hit>(2).unwrap();
    world
        .system("Spray", |mut hits: EventWriter<'_, Hit>| {
            for i in 0..5 {
                hits.write(Hit(i));
            }
            assert_eq!(hits.remaining(), 0);
        })
        .register()
        .unwrap();
    world
        .system("Read", |hits: EventReader<'_, Hit>| {
            assert_eq!(hits.read().copied().collect::<Vec<_>>(), [Hit(0), Hit(1)]);
        })
        .after("Spray")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let (err, events) = capture(|| world.run_systems(&schedule).unwrap_err());
    assert!(
        matches!(
            err,
            TickError::EventsOverflowed {
                name: "Spray",
                capacity: 2,
                dropped: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(events[0].name, "system/events_overflowed");
    insta::assert_snapshot!("overflow", err.to_string());
    let report = world.tick_report().events();
    assert_eq!(report.overflowed(), 3);
    assert_eq!(report.first_overflow().unwrap().name, "Spray");
    assert!(!world.tick_report().is_clean());
}

#[test]
fn events_a_skipped_reader_never_saw_are_reported_unread() {
    let mut world = world();
    let writer = world.system("Write", emitter(0)).register().unwrap();
    let reader = world
        .system("Read", |_: EventReader<'_, Hit>| {})
        .after("Write")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.skip_next_tick(reader, SkipReason::Throttled).unwrap();
    world.run_systems(&schedule).unwrap();
    assert!(world.tick_report().events().is_clean(), "nothing lost yet");
    // The writer's third run replaces the events of its second, which the reader missed.
    world.run_systems(&schedule).unwrap();
    let unread = *world.tick_report().events().first_unread().unwrap();
    assert_eq!(
        (unread.writer, unread.reader, unread.count),
        (Some(writer.id()), Some(reader.id()), 2)
    );
    insta::assert_snapshot!("unread", unread.to_string());
}

#[test]
fn a_reactive_reader_is_skipped_while_its_queues_are_empty() {
    let mut world = world();
    world
        .system(
            "Sometimes",
            |mut hits: EventWriter<'_, Hit>, mut tick: Local<'_, u32>| {
                *tick += 1;
                if (*tick).is_multiple_of(2) {
                    hits.write(Hit(*tick));
                }
            },
        )
        .register()
        .unwrap();
    let reader = world
        .system(
            "React",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, Seen>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .after("Sometimes")
        .reactive()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        world.run_systems(&schedule).unwrap();
        outcomes.push(world.tick_report().system(reader).unwrap().outcome);
    }
    let skipped = SystemOutcome::Skipped(SkipReason::EventsEmpty);
    assert_eq!(
        outcomes,
        [skipped, SystemOutcome::Ran, skipped, SystemOutcome::Ran]
    );
    assert_eq!(
        world.resource::<Seen>().unwrap().0,
        [(1, vec![2]), (2, vec![4])]
    );
}

fn write_low_level(ctx: &mut SystemContext<'_>) {
    let mut hits = ctx.event_writer::<Hit>().unwrap();
    hits.send(Hit(5));
    hits.write_batch([Hit(6), Hit(7)]);
}

fn read_low_level(ctx: &mut SystemContext<'_>) {
    let seen: Vec<u32> = ctx
        .event_reader::<Hit>()
        .unwrap()
        .read()
        .map(|it| it.0)
        .collect();
    ctx.resource_mut::<Seen>().unwrap().0.push((0, seen));
}

#[test]
fn the_low_level_builder_declares_the_same_access() {
    let mut world = world();
    world
        .system_fn("Write", write_low_level)
        .emits::<Hit>()
        .register()
        .unwrap();
    world
        .system_fn("Read", read_low_level)
        .reads_events::<Hit>()
        .writes::<Seen>()
        .after("Write")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.resource::<Seen>().unwrap().0, [(0, vec![5, 6, 7])]);
}

#[derive(Debug)]
struct Unregistered;

#[test]
fn a_reader_of_an_unregistered_queue_is_refused_naming_the_fix() {
    let mut world = World::default();
    let (err, events) = capture(|| {
        world
            .system("Listen", |_: EventReader<'_, Unregistered>| {})
            .register()
            .unwrap_err()
    });
    assert!(
        matches!(
            err,
            RegisterError::EventsUnregistered { name: "Listen", .. }
        ),
        "{err:?}"
    );
    assert_eq!(events[0].name, "system/events_unregistered");
    insta::assert_snapshot!("reader_unregistered", err.to_string());
}

#[test]
fn a_writer_of_an_unregistered_queue_is_refused_on_either_builder() {
    let mut world = World::default();
    let typed = world
        .system("Shout", |_: EventWriter<'_, Unregistered>| {})
        .register()
        .unwrap_err();
    insta::assert_snapshot!("writer_unregistered", typed.to_string());
    fn shout(_: &mut SystemContext<'_>) {}
    let low = world
        .system_fn("Shout", shout)
        .emits::<Unregistered>()
        .register()
        .unwrap_err();
    assert_eq!(low.to_string(), typed.to_string());
}

#[test]
fn a_queue_without_capacity_or_registered_twice_is_refused() {
    let mut world = World::default();
    let zero = world.register_events::<Hit>(0).unwrap_err();
    assert!(matches!(zero, EventsError::ZeroCapacity { .. }));
    insta::assert_snapshot!("zero_capacity", zero.to_string());
    world.register_events::<Hit>(4).unwrap();
    let twice = world.register_events::<Hit>(8).unwrap_err();
    assert!(matches!(
        twice,
        EventsError::AlreadyRegistered { capacity: 4, .. }
    ));
    insta::assert_snapshot!("registered_twice", twice.to_string());
}

#[test]
fn a_reactive_system_without_a_queue_and_two_writers_in_one_system_are_refused() {
    let mut world = world();
    let reactive = world
        .system("Idle", |_: Local<'_, u32>| {})
        .reactive()
        .register()
        .unwrap_err();
    insta::assert_snapshot!("reactive_without_events", reactive.to_string());
    let twice = world
        .system(
            "Twice",
            |_: EventWriter<'_, Hit>, _: EventWriter<'_, Hit>| {},
        )
        .register()
        .unwrap_err();
    assert!(
        matches!(twice, RegisterError::ParamConflict { .. }),
        "{twice:?}"
    );
    insta::assert_snapshot!("two_writers_in_one_system", twice.to_string());
}

#[test]
fn a_queue_takes_at_most_its_writer_limit() {
    let mut world = world();
    for i in 0..laige_world::MAX_EVENT_WRITERS {
        world
            .system(format!("W{i}"), |_: EventWriter<'_, Hit>| {})
            .register()
            .unwrap();
    }
    let err = world
        .system("OneTooMany", |_: EventWriter<'_, Hit>| {})
        .register()
        .unwrap_err();
    assert!(matches!(err, RegisterError::EventsTooManyWriters { .. }));
    insta::assert_snapshot!("too_many_writers", err.to_string());
}

fn position(schedule: &laige_scheduler::Schedule, id: laige_world::SystemHandle) -> usize {
    let order = schedule.order();
    order.iter().position(|&it| it == id.id()).unwrap()
}

#[test]
fn the_flat_rules_warn_about_a_reader_before_a_writer() {
    let mut world = world();
    let reader = world
        .system("Read", |_: EventReader<'_, Hit>| {})
        .register()
        .unwrap();
    let writer = world.system("Write", emitter(0)).register().unwrap();
    let schedule = world.schedule().unwrap();
    let warnings: Vec<_> = schedule.warnings().collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        (warnings[0].reader.id, warnings[0].writer.id),
        (reader.id(), writer.id())
    );
    insta::assert_snapshot!("flat_warning", warnings[0].to_string());
}

#[test]
fn the_declarative_rules_order_a_same_phase_reader_after_every_writer() {
    use laige_scheduler::Layout;
    let mut world = world();
    world.set_layout(Layout::new().dag("Main", "Game", &["Input", "Update"], "Update"));
    // Registered first, so without the derived edges the sort would place it first.
    let reader = world
        .system("Read", |_: EventReader<'_, Hit>| {})
        .register()
        .unwrap();
    let a = world.system("WriteA", emitter(0)).register().unwrap();
    let b = world.system("WriteB", emitter(0)).register().unwrap();
    let early = world
        .system("EarlyRead", |_: EventReader<'_, Hit>| {})
        .in_phase("Input")
        .register()
        .unwrap();
    // Two writers in one phase are not an error: they need no order between them.
    let schedule = world.schedule().unwrap();
    assert!(position(&schedule, a) < position(&schedule, reader));
    assert!(position(&schedule, b) < position(&schedule, reader));
    // A reader in an earlier phase runs before the writers: it sees their events a tick late.
    assert!(position(&schedule, early) < position(&schedule, a));
}

mod model {
    //! Random writers, readers and orders against a reference model: a single global log.

    use std::sync::{Arc, Mutex};

    use laige_world::{EventReader, EventWriter, Local, World, WorldOptions};
    use proptest::prelude::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Ev {
        writer: usize,
        tick: u32,
        seq: u32,
    }

    #[derive(Clone, Debug)]
    enum Role {
        /// Emits `counts[tick % len]` events each tick.
        Writer(Vec<u32>),
        Reader,
    }

    type Seen = Arc<Mutex<Vec<Ev>>>;

    /// Before tick `tick`, the world writes `injected[tick % len]` events (writer `usize::MAX`).
    fn injected(injected: &[u32], tick: u32) -> impl Iterator<Item = Ev> {
        let n = injected[tick as usize % injected.len()];
        (0..n).map(move |seq| Ev {
            writer: usize::MAX,
            tick,
            seq,
        })
    }

    /// Runs `roles` in registration (= schedule) order for `ticks` ticks; what each reader
    /// saw, in order, by role index.
    fn run(roles: &[Role], inject: &[u32], ticks: u32, threads: Option<usize>) -> Vec<Vec<Ev>> {
        let mut world = World::new(WorldOptions::default());
        world.register_events::<Ev>(64).unwrap();
        let mut logs = Vec::new();
        for (i, role) in roles.iter().enumerate() {
            let name = format!("S{i}");
            match role.clone() {
                Role::Writer(counts) => {
                    let system = move |mut out: EventWriter<'_, Ev>, mut tick: Local<'_, u32>| {
                        *tick += 1;
                        let n = counts[*tick as usize % counts.len()];
                        for seq in 0..n {
                            out.write(Ev {
                                writer: i,
                                tick: *tick,
                                seq,
                            });
                        }
                    };
                    world.system(name, system).register().unwrap();
                    logs.push(None);
                }
                Role::Reader => {
                    let seen: Seen = Arc::default();
                    let log = seen.clone();
                    let system = move |events: EventReader<'_, Ev>| {
                        log.lock().unwrap().extend(events.read().copied());
                    };
                    world.system(name, system).register().unwrap();
                    logs.push(Some(seen));
                }
            }
        }
        if let Some(threads) = threads {
            world.use_executor(laige_executor::ExecutorOptions::parallel(threads));
        }
        let schedule = world.schedule().unwrap();
        for tick in 1..=ticks {
            for event in injected(inject, tick) {
                world.write_event(event).unwrap();
            }
            world.run_systems(&schedule).unwrap();
            // Every reader runs every tick, so only a queue without readers drops events.
            let has_reader = roles.iter().any(|it| matches!(it, Role::Reader));
            if has_reader {
                assert!(world.tick_report().events().is_clean());
            }
        }
        logs.into_iter()
            .map(|it| it.map_or_else(Vec::new, |it| it.lock().unwrap().clone()))
            .collect()
    }

    /// The reference: one global log of (tick, position, event); a reader's run takes every
    /// entry since its previous run, in log order.
    fn model(roles: &[Role], inject: &[u32], ticks: u32) -> Vec<Vec<Ev>> {
        let mut log: Vec<Ev> = Vec::new();
        let mut read_up_to = vec![0usize; roles.len()];
        let mut seen = vec![Vec::new(); roles.len()];
        for tick in 1..=ticks {
            log.extend(injected(inject, tick));
            for (i, role) in roles.iter().enumerate() {
                match role {
                    Role::Writer(counts) => {
                        let n = counts[tick as usize % counts.len()];
                        log.extend((0..n).map(|seq| Ev {
                            writer: i,
                            tick,
                            seq,
                        }));
                    }
                    Role::Reader => {
                        seen[i].extend_from_slice(&log[read_up_to[i]..]);
                        read_up_to[i] = log.len();
                    }
                }
            }
        }
        seen
    }

    fn role() -> impl Strategy<Value = Role> {
        prop_oneof![
            prop::collection::vec(0u32..6, 1..4).prop_map(Role::Writer),
            Just(Role::Reader),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn every_event_reaches_every_reader_once_in_the_models_order(
            roles in prop::collection::vec(role(), 1..8),
            inject in prop::collection::vec(0u32..3, 1..3),
            ticks in 1u32..6,
            threads in prop::option::of(1usize..4),
        ) {
            let expected = model(&roles, &inject, ticks);
            prop_assert_eq!(run(&roles, &inject, ticks, threads), expected.clone());
            // Exactly once: each reader saw every event emitted before its last run, once.
            for (i, seen) in expected.iter().enumerate() {
                let mut unique = seen.clone();
                unique.dedup();
                prop_assert_eq!(unique.len(), seen.len(), "reader {} saw a duplicate", i);
            }
        }
    }
}

mod par_each {
    //! Events emitted from `par_each` batches join in batch order, on every thread count.

    use std::sync::{Arc, Mutex};

    use laige_executor::ExecutorOptions;
    use laige_world::{
        Component, EventReader, EventWriter, PAR_BATCH_ROWS, Query, World, WorldOptions,
    };

    struct Pos(u32);
    impl Component for Pos {}

    fn run(threads: Option<usize>) -> Vec<u32> {
        let mut world = World::new(WorldOptions::default());
        world.register_component::<Pos>().unwrap();
        let rows = PAR_BATCH_ROWS as u32 * 5 + 17;
        world.register_events::<u32>(rows as usize + 2).unwrap();
        for i in 0..rows {
            world.spawn((Pos(i),)).unwrap();
        }
        world
            .system(
                "Scatter",
                |mut q: Query<'_, &Pos>, mut out: EventWriter<'_, u32>| {
                    out.write(u32::MAX);
                    {
                        let sink = out.par_sink();
                        q.par_each(|batch, pos| {
                            if pos.0 % 3 != 0 {
                                sink.write(batch, pos.0);
                            }
                        })?;
                    }
                    out.write(u32::MAX - 1);
                    Ok::<(), laige_world::QueryError>(())
                },
            )
            .register()
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        world
            .system("Gather", move |events: EventReader<'_, u32>| {
                log.lock().unwrap().extend(events.read().copied());
            })
            .after("Scatter")
            .register()
            .unwrap();
        if let Some(threads) = threads {
            world.use_executor(ExecutorOptions::parallel(threads));
        }
        let schedule = world.schedule().unwrap();
        for _ in 0..3 {
            world.run_systems(&schedule).unwrap();
        }
        seen.lock().unwrap().clone()
    }

    #[test]
    fn batch_events_join_in_batch_order_on_every_thread_count() {
        let sequential = run(None);
        let rows = PAR_BATCH_ROWS as u32 * 5 + 17;
        let one_tick: Vec<u32> = std::iter::once(u32::MAX)
            .chain((0..rows).filter(|it| it % 3 != 0))
            .chain(std::iter::once(u32::MAX - 1))
            .collect();
        assert_eq!(sequential, one_tick.repeat(3));
        for threads in [1, 2, 4, 8] {
            assert_eq!(run(Some(threads)), sequential, "{threads} threads");
        }
    }
}

#[test]
fn the_schedule_graph_shows_emits_and_a_reader_before_a_writer() {
    use laige_scheduler::ScheduleGraph;
    let mut world = world();
    world
        .system("Read", |_: EventReader<'_, Hit>| {})
        .register()
        .unwrap();
    world.system("Write", emitter(0)).register().unwrap();
    let schedule = world.schedule().unwrap();
    let graph = ScheduleGraph::new(&schedule, world.registry(), world.layout()).unwrap();
    let queue = world.events_id::<Hit>().unwrap().get();
    let json = graph.to_json();
    assert!(json.contains(&format!("\"emits\": [{queue}]")), "{json}");
    assert!(json.contains("read_before_write"), "{json}");
    assert!(graph.to_dot().contains("Events<Hit>"));
}

#[test]
fn the_world_writes_events_between_ticks_for_every_readers_next_run() {
    let mut world = world();
    world
        .system(
            "Early",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, Seen>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .register()
        .unwrap();
    world
        .system("Write", emitter(0))
        .after("Early")
        .register()
        .unwrap();
    world
        .system(
            "Late",
            |hits: EventReader<'_, Hit>, mut seen: ResMut<'_, SeenLate>, mut t: Local<'_, u32>| {
                let run = record(&hits, &mut t);
                seen.0.push(run);
            },
        )
        .after("Write")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.write_event(Hit(1)).unwrap();
    world.run_systems(&schedule).unwrap();
    world.write_event(Hit(2)).unwrap();
    world.write_event(Hit(3)).unwrap();
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(
        world.resource::<Seen>().unwrap().0,
        [(1, vec![1]), (2, vec![10, 11, 2, 3]), (3, vec![20, 21])]
    );
    assert_eq!(
        world.resource::<SeenLate>().unwrap().0,
        [
            (1, vec![1, 10, 11]),
            (2, vec![2, 3, 20, 21]),
            (3, vec![30, 31])
        ]
    );
    assert!(world.tick_report().is_clean());
    // Past the capacity (8) between two ticks, and for a type with no queue.
    for i in 0..8 {
        world.write_event(Hit(i)).unwrap();
    }
    let full = world.write_event(Hit(9)).unwrap_err();
    assert!(matches!(full, EventsError::Full { capacity: 8, .. }));
    insta::assert_snapshot!("world_full", full.to_string());
    let missing = world.write_event(Unregistered).unwrap_err();
    assert!(matches!(missing, EventsError::NotRegistered { .. }));
    insta::assert_snapshot!("world_not_registered", missing.to_string());
}
