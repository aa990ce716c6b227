//! Nothing is lost silently: a command that cannot be carried out reaches the caller of
//! `run_systems` as `TickError::CommandsSkipped`, after the whole tick ran, and the tick
//! report names each system's outcome and its commands applied and skipped, with the first
//! reason. The same on the sequential runner and on the executor.

use laige_sim::prelude::*;
use laige_sim::world::{
    CommandKind, CommandSkipReason, SkipReason, SkippedCommand, SystemOutcome, TickReport,
};

struct Pos(f32);
impl Component for Pos {}
struct Ghost;
impl Component for Ghost {}

/// Spawns ten entities through its commands every tick.
fn spawn_ten(mut commands: Commands<'_>) {
    for i in 0..10 {
        commands.spawn((Pos(i as f32),));
    }
}

fn advance(mut bodies: Query<'_, &mut Pos>) -> Result<(), QueryError> {
    bodies.each(|_, pos| pos.0 += 1.0)
}

fn limited_world(executor: bool) -> (World, Schedule, SystemId, SystemId) {
    let mut world = World::new(WorldOptions {
        max_entities: Some(5),
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    let spawner = world.system("Spawner", spawn_ten).register().unwrap();
    let mover = world
        .system("Mover", advance)
        .after(spawner)
        .register()
        .unwrap();
    if executor {
        world.use_executor(ExecutorOptions {
            threads: 2,
            ..Default::default()
        });
    }
    let schedule = world.schedule().unwrap();
    (world, schedule, spawner.id(), mover.id())
}

#[test]
fn spawns_past_the_entity_limit_reach_the_caller() {
    for executor in [false, true] {
        let (mut world, schedule, spawner, mover) = limited_world(executor);
        let err = world.run_systems(&schedule).unwrap_err();
        let first = SkippedCommand {
            index: 5,
            command: CommandKind::Spawn,
            reason: CommandSkipReason::Refused(WorldError::EntityLimit { max_entities: 5 }),
        };
        assert_eq!(
            err,
            TickError::CommandsSkipped {
                system: spawner,
                name: "Spawner",
                skipped: 5,
                first,
            }
        );
        assert_eq!(world.len(), 5, "five spawned, five skipped");
        let report = world.tick_report();
        assert_eq!(
            (
                report.tick(),
                report.commands_applied(),
                report.commands_skipped()
            ),
            (1, 5, 5)
        );
        let spawned = report.system(spawner).unwrap();
        assert_eq!(
            (
                spawned.outcome,
                spawned.commands_applied,
                spawned.commands_skipped,
                spawned.first_skip
            ),
            (SystemOutcome::Ran, 5, 5, Some(first))
        );
        assert_eq!(
            report.system(mover).unwrap().outcome,
            SystemOutcome::Ran,
            "the rest of the tick ran"
        );
        let (system, skip) = report.first_skip().unwrap();
        assert_eq!((system.name, *skip), ("Spawner", first));
        assert!(!report.is_clean());
        insta::assert_snapshot!("entity_limit", err.to_string());

        // The next tick: every spawn is refused, and the report is the new tick's alone.
        let err = world.run_systems(&schedule).unwrap_err();
        assert!(
            matches!(err, TickError::CommandsSkipped { skipped: 10, .. }),
            "{err:?}"
        );
        let report = world.tick_report();
        assert_eq!((report.tick(), report.commands_applied()), (2, 0));
    }
}

#[test]
fn a_stale_target_names_the_entity_and_the_command() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<Ghost>().unwrap();
    let doomed = world.spawn((Pos(0.0),)).unwrap();
    let reaper = world
        .system("Reaper", move |mut commands: Commands<'_>| {
            commands.despawn(doomed)
        })
        .register()
        .unwrap();
    let haunt = world
        .system("Haunt", move |mut commands: Commands<'_>| {
            commands.insert(doomed, Ghost)
        })
        .after(reaper)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let err = world.run_systems(&schedule).unwrap_err();
    let TickError::CommandsSkipped { system, first, .. } = err else {
        panic!("{err:?}");
    };
    assert_eq!(system, haunt.id());
    assert_eq!(
        first.command,
        CommandKind::Insert(std::any::type_name::<Ghost>())
    );
    assert_eq!(
        first.reason,
        CommandSkipReason::Refused(WorldError::StaleEntity {
            entity: doomed,
            op: "insert"
        })
    );
    insta::assert_snapshot!("stale_target", err.to_string());
    let report = world.tick_report();
    assert_eq!(report.system(reaper).unwrap().commands_applied, 1);
}

#[test]
fn a_refused_spawn_skips_the_commands_on_its_placeholder() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world
        .system("Summoner", |mut commands: Commands<'_>| {
            let ghost = commands.spawn((Ghost,));
            commands.insert(ghost, Pos(1.0));
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let err = world.run_systems(&schedule).unwrap_err();
    insta::assert_snapshot!("refused_bundle", err.to_string());
    let report = world.tick_report();
    let summoner = &report.systems()[0];
    assert_eq!(
        (summoner.commands_applied, summoner.commands_skipped),
        (0, 2)
    );
    assert_eq!(
        summoner.first_skip.map(|it| it.reason),
        Some(CommandSkipReason::Refused(
            WorldError::UnregisteredComponent {
                component: std::any::type_name::<Ghost>()
            }
        ))
    );
    assert!(world.is_empty());
}

#[test]
fn outcomes_name_failed_and_panicked_systems() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    let fails = world
        .system("Fails", || -> Result<(), BoxError> { Err("no".into()) })
        .register()
        .unwrap();
    let panics = world
        .system("Panics", || -> () { panic!("boom") })
        .register()
        .unwrap();
    let runs = world.system("Runs", advance).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.prepare_schedule(&schedule).unwrap();
    // The game loop of the README: keep running through a failed system.
    let mut failures = 0;
    for _ in 0..3 {
        match world.run_systems(&schedule) {
            Ok(()) => {}
            Err(TickError::Panicked { .. } | TickError::SystemFailed { .. }) => failures += 1,
            Err(err) => panic!("{err}"),
        }
    }
    assert_eq!(failures, 3);
    let outcome = |report: &TickReport, id: SystemHandle| report.system(id).unwrap().outcome;
    let report = world.tick_report();
    assert_eq!(report.tick(), 3);
    assert_eq!(outcome(report, fails), SystemOutcome::Failed);
    assert_eq!(outcome(report, panics), SystemOutcome::Panicked);
    assert_eq!(outcome(report, runs), SystemOutcome::Ran);
    let body = world_entity(&mut world);
    assert_eq!(
        world.get::<Pos>(body).unwrap().0,
        3.0,
        "Runs ran every tick"
    );

    // A layer above the World records why it skipped a system.
    let skipped = SystemOutcome::Skipped(SkipReason::Throttled);
    world.tick_report_mut().set_outcome(runs, skipped);
    assert_eq!(outcome(world.tick_report(), runs), skipped);
}

fn world_entity(world: &mut World) -> Entity {
    let mut found = None;
    world.each::<&Pos>(|e, _| found = Some(e)).unwrap();
    found.unwrap()
}

#[test]
fn a_clean_tick_is_ok_and_clean() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    let id = world.system("Mover", advance).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let report = world.tick_report();
    assert!(report.is_clean());
    assert_eq!(report.system(id).unwrap().outcome, SystemOutcome::Ran);
    assert_eq!(report.first_skip(), None);
}

#[test]
fn each_tick_reports_itself_alone() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    let flaky = world
        .system(
            "Flaky",
            |mut commands: Commands<'_>, mut ticks: Local<'_, u32>| {
                *ticks += 1;
                commands.spawn((Pos(0.0),));
                if *ticks % 2 == 1 {
                    return Err::<(), BoxError>("odd tick".into());
                }
                Ok(())
            },
        )
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for tick in 1..=4u64 {
        let result = world.run_systems(&schedule);
        let report = world.tick_report().system(flaky).copied().unwrap();
        assert_eq!(world.tick_report().tick(), tick);
        if tick % 2 == 1 {
            assert!(
                matches!(result, Err(TickError::SystemFailed { .. })),
                "{result:?}"
            );
            assert_eq!(
                (report.outcome, report.commands_applied),
                (SystemOutcome::Failed, 0)
            );
        } else {
            result.unwrap();
            assert_eq!(
                (report.outcome, report.commands_applied),
                (SystemOutcome::Ran, 1)
            );
        }
    }
}
