//! Run conditions and named resources end to end, through the facade: a conditional system
//! looks different in every graph export, its skip shows in the timeline, the checksum
//! record and the tick report, and named resources are named by their name everywhere.

use laige_sim::prelude::*;
use laige_sim::scheduler::ScheduleGraph;
use laige_sim::world::{SystemOutcome, TimelineKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Warmup,
    Playing,
}

#[derive(Component, StateHash, Debug)]
#[component(hashed)]
struct Heat(u32);

#[derive(Component, StateHash, Debug)]
#[component(hashed)]
struct Ember(u32);

#[derive(Clone, Debug, PartialEq, StateHash)]
struct Grid([u32; 2]);

resource_name!(Terrain = "terrain"; Units = "units");

/// `Cool` always runs; `Burn` runs while playing, every other tick; `Paint` copies the
/// terrain into the units grid while playing.
fn world(start: Phase) -> (World, Schedule) {
    let mut world = World::default();
    world.register_component::<Heat>().unwrap();
    world.register_component::<Ember>().unwrap();
    world.spawn((Heat(5), Ember(0))).unwrap();
    world.insert_resource(start).unwrap();
    world
        .insert_hashed_named_resource("terrain", Grid([1, 2]))
        .unwrap();
    world
        .insert_hashed_named_resource("units", Grid([0, 0]))
        .unwrap();
    let cool = world
        .system("Cool", |mut q: Query<'_, &mut Heat>| {
            q.each(|h| h.0 = h.0.saturating_sub(1))
        })
        .register()
        .unwrap();
    world
        .system("Burn", |mut q: Query<'_, (&mut Ember, &Heat)>| {
            q.each(|(e, h)| e.0 += h.0)
        })
        .run_if(resource_equals(Phase::Playing).and(every_n_ticks(2)))
        .after(cool)
        .register()
        .unwrap();
    world
        .system(
            "Paint",
            |terrain: NamedRes<'_, Grid, Terrain>, mut units: NamedResMut<'_, Grid, Units>| {
                units.0 = terrain.0;
            },
        )
        .run_if(resource_equals(Phase::Playing))
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn a_conditional_system_looks_different_in_every_export() {
    let (world, schedule) = world(Phase::Playing);
    let graph = ScheduleGraph::new(&schedule, world.registry(), world.layout()).unwrap();
    let conditional: Vec<_> = graph
        .systems()
        .iter()
        .filter(|it| it.conditional)
        .map(|it| it.system.name)
        .collect();
    assert_eq!(conditional, ["Burn", "Paint"]);
    insta::assert_snapshot!("conditions_dot", graph.to_dot());
    insta::assert_snapshot!("conditions_mermaid", graph.to_mermaid());
    insta::assert_snapshot!("conditions_json", graph.to_json());
    assert!(
        graph
            .to_json()
            .contains("\"name\": \"Grid \\\"terrain\\\"\"")
    );
    if let Some(svg) = laige_testkit::graphviz(&graph.to_dot(), "svg") {
        assert!(svg.contains("stroke-dasharray"), "the dashed node renders");
    }
}

#[test]
fn skips_show_in_the_timeline_the_checksums_and_the_tick_report() {
    let (mut world, schedule) = world(Phase::Warmup);
    world.record_timeline(4);
    world.record_checksums(4);
    world.run_systems(&schedule).unwrap();
    let burn = world.registry().find("Burn").unwrap();
    assert_eq!(
        world.tick_report().system(burn).unwrap().outcome,
        SystemOutcome::Skipped(SkipReason::RunConditionFalse)
    );
    let timeline = world.timeline().unwrap();
    let skipped: Vec<_> = timeline
        .events()
        .filter_map(|event| match event.kind {
            TimelineKind::System { name, .. } => Some((name, event.skipped)),
            _ => None,
        })
        .collect();
    assert_eq!(
        skipped,
        [
            ("Cool", None),
            ("Burn", Some("run_condition_false")),
            ("Paint", Some("run_condition_false"))
        ]
    );
    assert!(
        timeline
            .to_chrome_trace()
            .contains("\"skipped\":\"run_condition_false\"")
    );
    let checksums = world.checksums().unwrap();
    let names: Vec<_> = checksums
        .systems()
        .iter()
        .map(|it| it.name.as_str())
        .collect();
    assert_eq!(names, ["Cool", "Burn", "Paint"]);
    assert_eq!(checksums.systems()[2].writes, ["Grid \"units\""]);
    let latest = checksums.latest().unwrap();
    assert_eq!(
        (latest.skip(0), latest.skip(1), latest.skip(2)),
        (
            None,
            Some("run_condition_false"),
            Some("run_condition_false")
        )
    );
    // Once playing, `Paint` runs: the next row says so.
    *world.resource_mut::<Phase>().unwrap() = Phase::Playing;
    world.run_systems(&schedule).unwrap();
    let latest = world.checksums().unwrap().latest().unwrap();
    assert_eq!((latest.skip(1), latest.skip(2)), (None, None));
}

#[test]
fn a_skip_that_differs_is_the_first_desync() {
    let record = |start| {
        let (mut world, schedule) = world(start);
        world.record_checksums(8);
        for _ in 0..3 {
            world.run_systems(&schedule).unwrap();
        }
        world.take_checksums().unwrap()
    };
    let desync = record(Phase::Playing)
        .first_desync(&record(Phase::Warmup))
        .unwrap()
        .unwrap();
    assert!(desync.skip_differs);
    assert_eq!(desync.tick, 0);
    assert_eq!(desync.culprit.as_ref().unwrap().system, "Burn");
    insta::assert_snapshot!("skip_desync", desync.to_string());
}

#[test]
fn the_same_skips_and_hashes_on_every_runner() {
    let run = |threads: Option<usize>| {
        let (mut world, schedule) = world(Phase::Playing);
        if let Some(threads) = threads {
            world.use_executor(ExecutorOptions::parallel(threads));
        }
        (0..6)
            .map(|tick| {
                if tick == 3 {
                    *world.resource_mut::<Phase>().unwrap() = Phase::Warmup;
                }
                world.run_systems(&schedule).unwrap();
                let outcomes: Vec<_> = world
                    .tick_report()
                    .systems()
                    .iter()
                    .map(|it| it.outcome)
                    .collect();
                (world.state_hash(), outcomes)
            })
            .collect::<Vec<_>>()
    };
    let sequential = run(None);
    for threads in [1, 2, 4] {
        assert_eq!(run(Some(threads)), sequential, "on {threads} threads");
    }
}
