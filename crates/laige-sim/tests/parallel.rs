//! The World on the parallel executor: table-disjoint systems really overlap, conflicting
//! ones never do, a panic is reported and survived, and auto mode says what it chose.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use laige_sim::diag::TickClock;
use laige_sim::prelude::*;

#[derive(Clone, Copy)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy)]
struct TagA;
impl Component for TagA {}
#[derive(Clone, Copy)]
struct TagB;
impl Component for TagB {}

/// Both systems arrive here; each waits (up to 2 s) for the other to have arrived too.
static ARRIVED: AtomicU32 = AtomicU32::new(0);
static MET: AtomicU32 = AtomicU32::new(0);
static RENDEZVOUS: AtomicU32 = AtomicU32::new(1);

fn rendezvous() {
    if RENDEZVOUS.load(Ordering::SeqCst) == 0 {
        return;
    }
    ARRIVED.fetch_add(1, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(2);
    while ARRIVED.load(Ordering::SeqCst) % 2 == 1 && Instant::now() < deadline {
        std::hint::spin_loop();
    }
    if ARRIVED.load(Ordering::SeqCst).is_multiple_of(2) {
        MET.fetch_add(1, Ordering::SeqCst);
    }
}

fn push_a(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, With<TagA>)>(|(p, ())| p.0 += 1.0)
        .unwrap();
    rendezvous();
}

fn push_b(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, With<TagB>)>(|(p, ())| p.0 += 2.0)
        .unwrap();
    rendezvous();
}

fn table_world() -> (World, Schedule) {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<TagA>().unwrap();
    world.register_component::<TagB>().unwrap();
    for _ in 0..100 {
        world.spawn((Pos(0.0), TagA)).unwrap();
        world.spawn((Pos(0.0), TagB)).unwrap();
    }
    world.set_layout(Layout::new().dag("Main", "Game", &["Update"], "Update"));
    world
        .system("PushA", push_a)
        .budget_ms(1.0)
        .writes::<Pos>()
        .matching::<TagA>()
        .register()
        .unwrap();
    world
        .system("PushB", push_b)
        .budget_ms(1.0)
        .writes::<Pos>()
        .matching::<TagB>()
        .after_weak("PushA")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn writers_of_one_component_in_disjoint_tables_run_at_once() {
    let (mut world, schedule) = table_world();
    world.use_executor(ExecutorOptions::parallel(2));
    let met_before = MET.load(Ordering::SeqCst);
    world.run_systems(&schedule).unwrap();
    // Only two systems that really ran at the same time can both see the other arrive.
    assert_eq!(
        MET.load(Ordering::SeqCst) - met_before,
        2,
        "PushA and PushB did not overlap"
    );
    let plan = world.plan().expect("the executor built a plan");
    assert_eq!(
        plan.edge_count(),
        0,
        "no table holds both TagA and TagB: no edge"
    );

    RENDEZVOUS.store(0, Ordering::SeqCst);
    // An entity in a table both may visit makes them conflict: the plan is rebuilt with
    // the weak edge's direction, and the results match the sequential runner.
    world.spawn((Pos(0.0), TagA, TagB)).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.plan().unwrap().edge_count(), 1);
    let mut total = 0.0;
    world.each::<&Pos>(|p| total += p.0).unwrap();
    // 100 × (1 + 2) per tick for two ticks, plus 1 + 2 for the shared entity's one tick.
    assert_eq!(total, 2.0 * 300.0 + 3.0);
}

static CLOCK: AtomicU64 = AtomicU64::new(0);
static SPANS: [[AtomicU64; 2]; 4] = [const { [const { AtomicU64::new(0) }; 2] }; 4];

fn span(slot: usize, work: impl FnOnce()) {
    SPANS[slot][0].store(CLOCK.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
    work();
    std::thread::sleep(Duration::from_micros(200));
    SPANS[slot][1].store(CLOCK.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
}

fn writer(ctx: &mut SystemContext<'_>) {
    span(0, || ctx.each::<&mut Pos>(|p| p.0 += 1.0).unwrap());
}

fn reader(ctx: &mut SystemContext<'_>) {
    span(1, || ctx.each::<&Pos>(|p| assert!(p.0 >= 0.0)).unwrap());
}

fn other(ctx: &mut SystemContext<'_>) {
    span(2, || ctx.each::<&TagA>(|_| {}).unwrap());
}

#[test]
fn conflicting_systems_never_overlap() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<TagA>().unwrap();
    for _ in 0..50 {
        world.spawn((Pos(0.0), TagA)).unwrap();
    }
    world
        .system("Writer", writer)
        .budget_ms(5.0)
        .writes::<Pos>()
        .register()
        .unwrap();
    world
        .system("Reader", reader)
        .budget_ms(5.0)
        .reads::<Pos>()
        .register()
        .unwrap();
    world
        .system("Other", other)
        .budget_ms(5.0)
        .reads::<TagA>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.use_executor(ExecutorOptions::parallel(4));
    for tick in 0..50 {
        world.run_systems(&schedule).unwrap();
        let (w, r) = (&SPANS[0], &SPANS[1]);
        let (w_end, r_start) = (w[1].load(Ordering::SeqCst), r[0].load(Ordering::SeqCst));
        assert!(
            w_end < r_start,
            "tick {tick}: Reader started before Writer ended"
        );
    }
}

fn boom(ctx: &mut SystemContext<'_>) {
    ctx.commands().spawn((Pos(42.0),));
    if ctx.each::<&Pos>(|_| {}).is_ok() && BOOM.fetch_add(1, Ordering::SeqCst) == 2 {
        panic!("boom on the third tick");
    }
}

static BOOM: AtomicU32 = AtomicU32::new(0);

#[test]
fn a_panicking_system_is_named_and_the_next_tick_runs() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world
        .system("Boom", boom)
        .budget_ms(1.0)
        .reads::<Pos>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.use_executor(ExecutorOptions::parallel(2));
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    let err = world.run_systems(&schedule).unwrap_err();
    assert!(
        matches!(err, TickError::Panicked { name: "Boom", .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("Boom"),
        "the error names the system: {err}"
    );
    assert!(err.to_string().contains("boom on the third tick"), "{err}");
    // The panicked system's half-done commands were dropped: two spawns, not three.
    assert_eq!(world.len(), 2);
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.len(), 3);
}

fn tiny(ctx: &mut SystemContext<'_>) {
    ctx.each::<&Pos>(|_| {}).unwrap();
}

/// The systems take no time on the world's manual clock, so auto mode measures too little
/// work to wake the pool, however busy the machine.
#[test]
fn auto_mode_runs_tiny_ticks_on_the_calling_thread() {
    let mut world = World::new(WorldOptions {
        clock: TickClock::manual(Arc::default()),
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    world
        .system("A", tiny)
        .budget_ms(1.0)
        .reads::<Pos>()
        .register()
        .unwrap();
    world
        .system("B", tiny)
        .budget_ms(1.0)
        .reads::<Pos>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.use_executor(ExecutorOptions {
        threads: 2,
        mode: Mode::Auto,
        ..Default::default()
    });
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(
        world.last_modes(),
        [Some(ChosenMode::Sequential)],
        "one track"
    );
}

#[test]
fn last_modes_has_one_entry_per_track() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    world.set_layout(Layout::new().dag("Main", "Game", &["Work"], "Work").dag(
        "Late",
        "Clock",
        &["Tick"],
        "Tick",
    ));
    world
        .system_fn("A", tiny)
        .reads::<Pos>()
        .register()
        .unwrap();
    world
        .system_fn("B", tiny)
        .reads::<Pos>()
        .in_dag("Clock")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    assert_eq!(schedule.tracks().len(), 2);
    world.use_executor(ExecutorOptions::parallel(2));
    assert!(world.last_modes().is_empty(), "no tick ran yet");
    world.run_systems(&schedule).unwrap();
    // One system per track: each ran on the calling thread, and each has its entry.
    assert_eq!(world.last_modes(), [Some(ChosenMode::Sequential); 2]);
}
