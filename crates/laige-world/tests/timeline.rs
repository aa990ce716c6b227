//! The tick timeline, read back through its Chrome Trace Event Format export (parsed with
//! serde_json, as Perfetto would): on the sequential runner and on 1, 2 and 4 threads,
//! every system appears once per tick, spans on one thread never overlap, and no system
//! starts before the systems the plan makes it wait for have ended.
//!
//! Time is the test's: every system advances the world's manual clock by its own number of
//! microseconds, so sequential spans are exact and parallel ones are ordered by the clock's
//! single atomic, whose readings agree with the executor's happens-before.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use laige_diag::{ManualClock, TickClock};
use laige_executor::{ExecutorOptions, Plan};
use laige_registry::SystemId;
use laige_scheduler::{Layout, Schedule};
use laige_world::{Component, SystemContext, SystemFn, TimelineKind, World, WorldOptions};
use serde_json::Value;

#[derive(Clone, Copy)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy)]
struct Vel(f32);
impl Component for Vel {}
#[derive(Clone, Copy)]
struct Heat(f32);
impl Component for Heat {}
#[derive(Clone, Copy)]
struct Spark;
impl Component for Spark {}

/// The world's clock, as a resource the systems read.
struct Time(Arc<ManualClock>);

/// Takes `id` × 10 µs of the world's time (10, 20, ... for systems 1, 2, ...), and sleeps
/// 200 µs of real time, so a pool's other threads usually join and take systems: nothing
/// here depends on whether they do.
fn spend(ctx: &mut SystemContext<'_>) {
    std::thread::sleep(Duration::from_micros(200));
    let micros = u64::from(ctx.id().get()) * 10;
    ctx.resource::<Time>()
        .unwrap()
        .0
        .advance(Duration::from_micros(micros));
}

fn write_pos(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Pos>(|p| p.0 += 1.0).unwrap();
    spend(ctx);
}

fn pos_to_vel(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Vel, &Pos)>(|(v, p)| v.0 = p.0).unwrap();
    spend(ctx);
}

fn write_heat(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Heat>(|h| h.0 *= 0.5).unwrap();
    spend(ctx);
}

fn sparks(ctx: &mut SystemContext<'_>) {
    ctx.commands().spawn((Spark,));
    spend(ctx);
}

/// Two tracks: `Main` with a `Sim` DAG (a write of `Pos`, then a reader) and an `Fx` DAG
/// (independent work and a spawner), then `Post`, which writes `Pos` again.
fn world(clock: &Arc<ManualClock>) -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        clock: TickClock::manual(clock.clone()),
        ..WorldOptions::default()
    });
    for component in [
        World::register_component::<Pos>,
        World::register_component::<Vel>,
        World::register_component::<Heat>,
        World::register_component::<Spark>,
    ] {
        component(&mut world).unwrap();
    }
    world.insert_resource(Time(clock.clone())).unwrap();
    for i in 0..8 {
        world.spawn((Pos(i as f32), Vel(0.0), Heat(1.0))).unwrap();
    }
    world.set_layout(
        Layout::new()
            .dag("Main", "Sim", &["Move", "React"], "Move")
            .dag("Main", "Fx", &["Fx"], "Fx")
            .dag("Post", "Tidy", &["Tidy"], "Tidy"),
    );
    let systems: [(&str, SystemFn, &str, &str); 5] = [
        ("Move", write_pos, "Sim", "Move"),
        ("React", pos_to_vel, "Sim", "React"),
        ("Cool", write_heat, "Fx", "Fx"),
        ("Sparks", sparks, "Fx", "Fx"),
        ("Tidy", write_pos, "Tidy", "Tidy"),
    ];
    for (name, run, dag, phase) in systems {
        let builder = world
            .system(name, run)
            .budget_ms(5.0)
            .in_dag(dag)
            .in_phase(phase)
            .reads::<Time>();
        let builder = match name {
            "Move" | "Tidy" => builder.writes::<Pos>(),
            "React" => builder.writes::<Vel>().reads::<Pos>(),
            "Cool" => builder.writes::<Heat>(),
            _ => builder,
        };
        builder.register().unwrap();
    }
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// One complete event of the export, times in nanoseconds.
#[derive(Clone, Debug)]
struct Span {
    category: String,
    name: String,
    thread: u64,
    start: u64,
    end: u64,
    tick: u64,
    track: u64,
    id: Option<u32>,
}

/// Microseconds with three decimals, back to whole nanoseconds.
fn nanos(value: &Value) -> u64 {
    (value.as_f64().unwrap() * 1000.0).round() as u64
}

fn parse(json: &str) -> (Vec<Span>, BTreeMap<u64, String>) {
    let root: Value = serde_json::from_str(json).unwrap();
    let mut spans = Vec::new();
    let mut threads = BTreeMap::new();
    for event in root["traceEvents"].as_array().unwrap() {
        match (
            event["ph"].as_str().unwrap(),
            event["name"].as_str().unwrap(),
        ) {
            ("M", "thread_name") => {
                let name = event["args"]["name"].as_str().unwrap().to_owned();
                threads.insert(event["tid"].as_u64().unwrap(), name);
            }
            ("M", _) => {}
            ("X", name) => {
                let start = nanos(&event["ts"]);
                spans.push(Span {
                    category: event["cat"].as_str().unwrap().to_owned(),
                    name: name.to_owned(),
                    thread: event["tid"].as_u64().unwrap(),
                    start,
                    end: start + nanos(&event["dur"]),
                    tick: event["args"]["tick"].as_u64().unwrap(),
                    track: event["args"]["track"].as_u64().unwrap(),
                    id: event["args"]["id"].as_u64().map(|it| it as u32),
                });
            }
            (ph, name) => panic!("unexpected event {ph} {name}"),
        }
    }
    (spans, threads)
}

const TICKS: u64 = 5;
const KEPT: usize = 3;

/// Runs `TICKS` ticks recording the last `KEPT`, and returns the parsed export and the plan
/// the systems waited on.
fn record(threads: Option<usize>) -> (Vec<Span>, BTreeMap<u64, String>, Plan, Schedule) {
    let clock = Arc::new(ManualClock::default());
    let (mut world, schedule) = world(&clock);
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world.record_timeline(KEPT);
    for _ in 0..TICKS {
        world.run_systems(&schedule).unwrap();
    }
    let timeline = world.timeline().unwrap();
    assert_eq!((timeline.len(), timeline.capacity()), (KEPT, KEPT));
    let (spans, names) = parse(&timeline.to_chrome_trace());
    assert_eq!(
        spans.len(),
        timeline.events().count(),
        "one JSON event per span"
    );
    // The executor's plan (its conflict edges included); the sequential runner keeps it too.
    let plan = match world.plan() {
        Some(plan) => plan.clone(),
        None => Plan::build_from_access(&schedule, world.registry()),
    };
    (spans, names, plan, schedule)
}

fn check_invariants(threads: Option<usize>) {
    let case = format!("{threads:?} threads");
    let (spans, names, plan, schedule) = record(threads);
    let systems: Vec<&Span> = spans.iter().filter(|s| s.category == "system").collect();

    // Every system once per kept tick, on a thread the pool has; no other tick.
    let kept: Vec<u64> = (TICKS - KEPT as u64..TICKS).collect();
    for &tick in &kept {
        let mut ids: Vec<u32> = systems
            .iter()
            .filter(|s| s.tick == tick)
            .map(|s| s.id.unwrap())
            .collect();
        ids.sort_unstable();
        let want: Vec<u32> = schedule
            .order()
            .iter()
            .map(|id| id.get())
            .collect::<Vec<_>>();
        let mut want = want;
        want.sort_unstable();
        assert_eq!(ids, want, "{case}: tick {tick}");
    }
    assert!(systems.iter().all(|s| kept.contains(&s.tick)), "{case}");
    let pool = threads.unwrap_or(1) as u64;
    assert!(spans.iter().all(|s| s.thread < pool), "{case}");
    let used: std::collections::BTreeSet<u64> = systems.iter().map(|s| s.thread).collect();
    println!("{case}: systems ran on threads {used:?}");
    assert!(
        names.keys().all(|&t| t < pool) && names.contains_key(&0),
        "{case}"
    );

    // Per track and tick: one track span, one barrier and one commands span on thread 0.
    let tracks = schedule.tracks().len() as u64;
    for category in ["track", "barrier", "commands"] {
        let of_kind: Vec<_> = spans.iter().filter(|s| s.category == category).collect();
        assert_eq!(
            of_kind.len() as u64,
            KEPT as u64 * tracks,
            "{case}: {category}"
        );
        assert!(of_kind.iter().all(|s| s.thread == 0), "{case}: {category}");
    }

    // On one thread, systems, barriers and command spans never overlap.
    let mut by_thread: BTreeMap<u64, Vec<&Span>> = BTreeMap::new();
    for span in spans.iter().filter(|s| s.category != "track") {
        by_thread.entry(span.thread).or_default().push(span);
    }
    for (thread, mut list) in by_thread {
        list.sort_by_key(|s| (s.start, s.end));
        for pair in list.windows(2) {
            assert!(
                pair[0].end <= pair[1].start,
                "{case}: thread {thread}: {:?} overlaps {:?}",
                pair[0],
                pair[1]
            );
        }
    }

    // A track's span holds its systems; the caller's systems are inside it.
    for track in spans.iter().filter(|s| s.category == "track") {
        for system in systems
            .iter()
            .filter(|s| s.tick == track.tick && s.track == track.track)
        {
            assert!(
                track.start <= system.start && system.end <= track.end,
                "{case}"
            );
        }
    }

    // No system starts before the systems it waits for have ended.
    let span_of = |tick: u64, id: SystemId| {
        systems
            .iter()
            .find(|s| s.tick == tick && s.id == Some(id.get()))
            .copied()
            .unwrap()
    };
    let mut edges = 0;
    for &tick in &kept {
        for &id in schedule.order() {
            let me = span_of(tick, id);
            for before in plan.predecessors(id) {
                let them = span_of(tick, before);
                assert!(
                    them.end <= me.start,
                    "{case}: {} started at {} before {} ended at {}",
                    me.name,
                    me.start,
                    them.name,
                    them.end
                );
                edges += 1;
            }
        }
    }
    assert!(edges >= KEPT, "{case}: the plan orders Move before React");
}

#[test]
fn sequential_timeline_is_well_formed() {
    check_invariants(None);
}

#[test]
fn one_thread_timeline_is_well_formed() {
    check_invariants(Some(1));
}

#[test]
fn two_thread_timeline_is_well_formed() {
    check_invariants(Some(2));
}

#[test]
fn four_thread_timeline_is_well_formed() {
    check_invariants(Some(4));
}

/// One at a time on a manual clock, every span is exactly the time the system took, and
/// they follow each other: a known answer, with timing on or off.
#[test]
fn sequential_spans_are_exact() {
    for timing in [true, false] {
        for threads in [None, Some(1)] {
            let clock = Arc::new(ManualClock::default());
            let (mut world, schedule) = world(&clock);
            world.set_timing(timing);
            if let Some(threads) = threads {
                world.use_executor(ExecutorOptions {
                    threads,
                    ..ExecutorOptions::default()
                });
            }
            world.record_timeline(1);
            world.run_systems(&schedule).unwrap();
            let timeline = world.timeline().unwrap();
            let mut at = 0;
            let mut got = Vec::new();
            for event in timeline.events() {
                if let TimelineKind::System { id, name } = event.kind {
                    assert_eq!(event.start_ns, at, "{name}: starts where the last ended");
                    at = event.end_ns;
                    got.push((name, event.end_ns - event.start_ns, id.get()));
                }
            }
            let want: Vec<_> = schedule
                .order()
                .iter()
                .map(|&id| {
                    let name = world.registry().get(id).unwrap().name();
                    (name, u64::from(id.get()) * 10_000, id.get())
                })
                .collect();
            assert_eq!(got, want, "timing {timing}, {threads:?} threads");
            assert_eq!(world.ticks_run(), 1);
        }
    }
}

/// Recording stops when the timeline is taken; a schedule that orders other systems starts
/// the buffers over, and one computed again for the same systems does not.
#[test]
fn taking_the_timeline_stops_recording() {
    let clock = Arc::new(ManualClock::default());
    let (mut world, schedule) = world(&clock);
    world.record_timeline(4);
    world.run_systems(&schedule).unwrap();
    let taken = world.take_timeline().unwrap();
    assert_eq!(taken.len(), 1);
    world.run_systems(&schedule).unwrap();
    assert!(world.timeline().is_none());
    assert_eq!(world.ticks_run(), 2);

    world.record_timeline(4);
    world.run_systems(&schedule).unwrap();
    let same = world.schedule().unwrap();
    world.run_systems(&same).unwrap();
    assert_eq!(world.timeline().unwrap().len(), 2, "the same systems: kept");

    world
        .system("Late", write_heat)
        .budget_ms(1.0)
        .in_dag("Tidy")
        .writes::<Heat>()
        .reads::<Time>()
        .register()
        .unwrap();
    let other = world.schedule().unwrap();
    world.run_systems(&other).unwrap();
    let timeline = world.timeline().unwrap();
    assert_eq!(
        timeline.len(),
        1,
        "a new system: the old ticks were dropped"
    );
    assert!(timeline.events().all(|e| e.tick == 4));
    let late = timeline
        .events()
        .filter(|e| matches!(e.kind, TimelineKind::System { name, .. } if name == "Late"));
    assert_eq!(late.count(), 1);
}
