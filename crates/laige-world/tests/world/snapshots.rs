//! Versioned components and snapshot reads: the previous tick's values, keyed by entity,
//! readable while writers change the live values.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use laige_registry::Access;
use laige_testkit::capture;
use laige_world::{
    Component, ComponentOptions, Entity, QueryError, SystemContext, SystemId, SystemMeta, World,
    WorldError, WorldOptions,
};
use rstest::rstest;

use crate::support::{Decl, Health, Pos, Unregistered, Vel, declare, one, pos, vel};

/// What the reader saw: `(entity, x)` per snapshot value.
#[derive(Debug, Default)]
struct Seen(Vec<(Entity, f32)>);

/// A resource type, to check that snapshots refuse it.
#[derive(Clone, Debug)]
struct Clock(#[allow(dead_code)] u64);

/// Pos (hashed, versioned), Vel, Health (hashed, not versioned); the `Seen` resource.
fn versioned_world() -> World {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Pos>::new().hashed().versioned())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world
        .register_component_with(ComponentOptions::<Health>::new().hashed())
        .unwrap();
    world.insert_resource(Seen::default()).unwrap();
    world.insert_resource(Clock(0)).unwrap();
    world
}

fn writer(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Pos>(|_, p| p.x += 10.0).unwrap();
}

fn reader(ctx: &mut SystemContext<'_>) {
    // The view borrows the world, not the context, so it outlives `resource_mut`'s borrow.
    let view = ctx.snapshot_view::<Pos>().unwrap();
    let seen = ctx.resource_mut::<Seen>().unwrap();
    seen.0.clear();
    seen.0.extend(view.iter().map(|(e, p)| (e, p.x)));
}

/// Spawns one entity with Pos(100) through its commands.
fn spawner(ctx: &mut SystemContext<'_>) {
    ctx.commands().spawn((pos(100.0),));
}

struct Setup {
    world: World,
    writer: SystemId,
    reader: SystemId,
    spawner: SystemId,
    es: Vec<Entity>,
}

fn setup() -> Setup {
    let mut world = versioned_world();
    let es = (0..3)
        .map(|i| world.spawn((pos(i as f32), vel(1.0))).unwrap())
        .collect();
    let writer = world
        .system("Writer", writer)
        .budget_ms(1.0)
        .writes::<Pos>()
        .register()
        .unwrap()
        .id();
    let reader = world
        .system("Reader", reader)
        .budget_ms(1.0)
        .reads_snapshot::<Pos>()
        .writes::<Seen>()
        .register()
        .unwrap()
        .id();
    let spawner = world
        .system("Spawner", spawner)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    // The snapshot of the setup state, for the first tick's readers.
    world.end_tick();
    Setup {
        world,
        writer,
        reader,
        spawner,
        es,
    }
}

/// Runs `order` through the host, then applies the commands (no `end_tick`).
fn run(world: &mut World, order: &[SystemId]) {
    let (registry, mut host) = world.split_for_run();
    for &id in order {
        host.run(id, registry.run(id).unwrap()).unwrap();
    }
    world.apply_commands(order.iter().copied()).unwrap();
}

fn seen(world: &World) -> Vec<(Entity, f32)> {
    world.resource::<Seen>().unwrap().0.clone()
}

#[rstest]
#[case::writer_first(true)]
#[case::reader_first(false)]
fn a_snapshot_reader_sees_the_previous_tick_in_either_order(#[case] writer_first: bool) {
    let Setup {
        mut world,
        writer,
        reader,
        es,
        ..
    } = setup();
    let order = if writer_first {
        [writer, reader]
    } else {
        [reader, writer]
    };
    run(&mut world, &order);
    assert_eq!(seen(&world), [(es[0], 0.0), (es[1], 1.0), (es[2], 2.0)]);
    assert_eq!(
        world.get::<Pos>(es[0]).unwrap().x,
        10.0,
        "the live value moved on"
    );

    world.end_tick();
    run(&mut world, &order);
    assert_eq!(
        seen(&world),
        [(es[0], 10.0), (es[1], 11.0), (es[2], 12.0)],
        "after end_tick the snapshot is the end of the previous tick"
    );
    assert_eq!(world.get::<Pos>(es[0]).unwrap().x, 20.0);
}

#[test]
fn entities_spawned_this_tick_have_no_snapshot_and_despawned_ones_keep_theirs() {
    let Setup {
        mut world,
        reader,
        spawner,
        es,
        ..
    } = setup();
    // A track spawns, its commands are applied, then a later track reads.
    run(&mut world, &[spawner]);
    world.despawn(es[1]).unwrap();
    let spawned = world.system_commands(spawner).unwrap().last_spawned()[0].unwrap();
    run(&mut world, &[reader]);
    let before = seen(&world);
    assert_eq!(
        before,
        [(es[0], 0.0), (es[1], 1.0), (es[2], 2.0)],
        "the spawned entity is not visited; the despawned one still is"
    );
    {
        let ctx = world.context(reader).unwrap();
        assert_eq!(ctx.snapshot::<Pos>(spawned).unwrap(), None);
        assert_eq!(ctx.snapshot::<Pos>(es[1]).unwrap(), Some(&pos(1.0)));
        let mut visited = Vec::new();
        ctx.each_snapshot::<Pos>(|e, p| visited.push((e, p.x)))
            .unwrap();
        assert_eq!(visited, before);
    }

    world.end_tick();
    run(&mut world, &[reader]);
    let mut want = vec![(es[0], 0.0), (es[2], 2.0), (spawned, 100.0)];
    want.sort_by_key(|(e, _)| e.index());
    assert_eq!(
        seen(&world),
        want,
        "the next snapshot follows the live state"
    );
}

#[test]
fn the_snapshot_is_keyed_by_entity_not_by_row() {
    let mut world = versioned_world();
    let es: Vec<Entity> = (0..4)
        .map(|i| world.spawn((pos(i as f32),)).unwrap())
        .collect();
    world.end_tick();

    // Rows move by swap-remove and archetype moves; entities come and go.
    world.despawn(es[0]).unwrap();
    world.insert(es[1], vel(1.0)).unwrap();
    assert_eq!(world.remove::<Pos>(es[2]).unwrap(), Some(pos(2.0)));
    world.get_mut::<Pos>(es[3]).unwrap().x = 33.0;
    let reused = world.spawn((pos(40.0),)).unwrap();
    let fresh = world.spawn((pos(50.0),)).unwrap();
    assert_eq!(reused.index(), es[0].index(), "LIFO slot reuse");

    let view = world.snapshot_view::<Pos>().unwrap();
    assert_eq!(view.entities(), &es[..]);
    assert_eq!(view.len(), 4);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(view.get(e), Some(&pos(i as f32)), "{e}");
    }
    assert_eq!(view.get(reused), None, "same slot, other generation");
    assert_eq!(view.get(fresh), None);
    assert_eq!(world.snapshot::<Pos>(es[0]).unwrap(), Some(&pos(0.0)));

    world.end_tick();
    let view = world.snapshot_view::<Pos>().unwrap();
    let got: Vec<(Entity, f32)> = view.iter().map(|(e, p)| (e, p.x)).collect();
    assert_eq!(
        got,
        [(reused, 40.0), (es[1], 1.0), (es[3], 33.0), (fresh, 50.0)]
    );
    assert!(!view.contains(es[0]) && !view.contains(es[2]));
}

#[test]
fn before_the_first_end_tick_there_is_no_snapshot_value() {
    let mut world = versioned_world();
    let e = world.spawn((pos(1.0),)).unwrap();
    assert!(world.snapshot_view::<Pos>().unwrap().is_empty());
    assert_eq!(world.snapshot::<Pos>(e).unwrap(), None);
    world.end_tick();
    assert_eq!(world.snapshot::<Pos>(e).unwrap(), Some(&pos(1.0)));
}

#[test]
fn registration_marks_the_component_versioned_for_the_scheduler() {
    let world = versioned_world();
    let pos_id = world.component_id::<Pos>().unwrap();
    let health_id = world.component_id::<Health>().unwrap();
    let info = world.component_info(pos_id).unwrap();
    assert!(info.is_versioned() && info.is_hashed() && !info.is_resource());
    assert!(!world.component_info(health_id).unwrap().is_versioned());
    let versioned = world.registry().versioned_components();
    assert!(versioned.contains(pos_id) && !versioned.contains(health_id));
    assert_eq!(world.registry().component_name(pos_id).name, "Pos");
}

#[test]
fn the_declarative_scheduler_needs_no_edge_for_a_snapshot_reader() {
    use laige_scheduler::{Layout, ScheduleError, schedule_declared};

    let Setup { mut world, .. } = setup();
    let layout = Layout::new().dag("Main", "Game", &["Simulation"], "Simulation");
    schedule_declared(world.registry(), &layout)
        .expect("a writer and a snapshot reader of Pos share a phase without an edge");

    fn nothing(_: &mut SystemContext<'_>) {}
    world
        .system("Health", nothing)
        .budget_ms(1.0)
        .reads_snapshot::<Health>()
        .register()
        .unwrap()
        .id();
    let (err, _) = capture(|| schedule_declared(world.registry(), &layout));
    assert!(
        matches!(err, Err(ScheduleError::SnapshotUnversioned { .. })),
        "{err:?}"
    );
}

/// What the matrix system does.
#[derive(Clone, Copy, Debug)]
enum Op {
    View,
    One,
    Each,
    Live,
}

fn nothing(_: &mut SystemContext<'_>) {}

fn matrix(decl: Decl, op: Op) -> (Result<usize, QueryError>, Vec<laige_testkit::Event>) {
    let Setup { mut world, es, .. } = setup();
    let builder = world.system("Matrix", nothing).budget_ms(1.0);
    let builder = declare::<Pos>(builder, decl);
    let id = builder.register().unwrap().id();
    let mut ctx = world.context(id).unwrap();
    capture(|| match op {
        Op::View => ctx.snapshot_view::<Pos>().map(|v| v.len()),
        Op::One => ctx.snapshot::<Pos>(es[0]).map(|p| usize::from(p.is_some())),
        Op::Each => {
            let mut n = 0;
            ctx.each_snapshot::<Pos>(|_, _| n += 1).map(|()| n)
        }
        Op::Live => {
            let mut n = 0;
            ctx.each::<&Pos>(|_, _| n += 1).map(|()| n)
        }
    })
}

#[rstest]
#[case::view_undeclared(Decl::Nothing, Op::View, None)]
#[case::view_of_read(Decl::Read, Op::View, Some(Access::Read))]
#[case::view_of_fresh(Decl::Fresh, Op::View, Some(Access::ReadFresh))]
#[case::view_of_write(Decl::Write, Op::View, Some(Access::Write))]
#[case::one_of_read(Decl::Read, Op::One, Some(Access::Read))]
#[case::each_of_write(Decl::Write, Op::Each, Some(Access::Write))]
#[case::each_undeclared(Decl::Nothing, Op::Each, None)]
fn snapshot_reads_need_a_snapshot_declaration(
    #[case] decl: Decl,
    #[case] op: Op,
    #[case] declared: Option<Access>,
) {
    let (result, events) = matrix(decl, op);
    let err = result.unwrap_err();
    assert!(
        matches!(
            err,
            QueryError::Undeclared { system: "Matrix", component, access: Access::ReadSnapshot, declared: d, .. }
                if component.ends_with("Pos") && d == declared
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("`Matrix`") && message.contains(".reads_snapshot::<"),
        "{message}"
    );
    let event = one(&events, "ecs/access_violation");
    assert_eq!(event.field("access"), Some("read_snapshot"));
    assert_eq!(event.field("system"), Some("Matrix"));
}

#[rstest]
#[case::view(Op::View, 3)]
#[case::one(Op::One, 1)]
#[case::each(Op::Each, 3)]
fn a_snapshot_declaration_allows_snapshot_reads(#[case] op: Op, #[case] n: usize) {
    let (result, events) = matrix(Decl::Snapshot, op);
    assert_eq!(result, Ok(n));
    assert!(events.is_empty(), "{}", laige_testkit::render(&events));
}

#[test]
fn a_live_query_of_a_snapshot_declaration_points_to_the_snapshot_api() {
    let (result, events) = matrix(Decl::Snapshot, Op::Live);
    let err = result.unwrap_err();
    assert!(matches!(
        err,
        QueryError::Undeclared {
            access: Access::Read,
            declared: Some(Access::ReadSnapshot),
            ..
        }
    ));
    let message = err.to_string();
    assert!(
        message.contains("ctx.snapshot::<") && message.contains("each_snapshot"),
        "{message}"
    );
    assert_eq!(
        one(&events, "ecs/access_violation").field("access"),
        Some("read")
    );
}

#[test]
fn snapshots_of_unversioned_unregistered_and_resource_types_are_refused() {
    let mut world = versioned_world();
    let id = world
        .system("Odd", nothing)
        .budget_ms(1.0)
        .reads_snapshot::<Health>()
        .reads::<Clock>()
        .register()
        .unwrap()
        .id();
    let ctx = world.context(id).unwrap();

    let (err, events) = capture(|| ctx.snapshot_view::<Health>().map(|_| ()));
    let err = err.unwrap_err();
    assert!(matches!(
        err,
        QueryError::NotVersioned {
            system: Some("Odd"),
            ..
        }
    ));
    assert!(err.to_string().contains("ComponentOptions::<"), "{err}");
    one(&events, "ecs/snapshot_unversioned");

    let (err, events) = capture(|| ctx.snapshot_view::<Clock>().map(|_| ()));
    assert!(matches!(
        err,
        Err(QueryError::ResourceInQuery {
            system: Some("Odd"),
            ..
        })
    ));
    one(&events, "ecs/query_resource");

    let (err, _) = capture(|| ctx.snapshot_view::<Unregistered>().map(|_| ()));
    assert!(matches!(
        err,
        Err(QueryError::Undeclared {
            access: Access::ReadSnapshot,
            declared: None,
            ..
        })
    ));

    // The same on the world, for setup code.
    // (The events of these repeat the ones above within the rate window, so are limited.)
    let (results, _) = capture(|| {
        [
            world.snapshot_view::<Health>().map(|_| ()),
            world.snapshot_view::<Unregistered>().map(|_| ()),
            world.snapshot_view::<Clock>().map(|_| ()),
        ]
    });
    assert!(matches!(results[0], Err(WorldError::NotVersioned { .. })));
    assert!(matches!(
        results[1],
        Err(WorldError::UnregisteredComponent { .. })
    ));
    assert!(matches!(
        results[2],
        Err(WorldError::ResourceAsComponent { .. })
    ));
}

#[test]
fn a_writer_and_a_snapshot_reader_run_concurrently() {
    let Setup {
        mut world,
        writer: w,
        reader: r,
        es,
        ..
    } = setup();
    let (_, mut host) = world.split_for_run();
    let (storage, registry, states) = host.parts();
    let [ws, rs] = states.get_disjoint_mut([w.index(), r.index()]).unwrap();
    let (w_meta, w_commands, w_rng) = ws.parts_mut();
    let (r_meta, r_commands, r_rng) = rs.parts_mut();
    assert_eq!(w_meta, &SystemMeta::of(registry.get(w).unwrap()));
    assert_eq!(r_meta, &SystemMeta::of(registry.get(r).unwrap()));
    // SAFETY: the writer declares only a write of Pos; the reader declares a snapshot read of
    // Pos and a write of Seen. No component is written by one and read live or written by
    // the other: snapshot reads touch only the frozen copy.
    let (mut wc, rc) = unsafe {
        (
            SystemContext::new(storage, w_meta, w_commands, w_rng),
            SystemContext::new(storage, r_meta, r_commands, r_rng),
        )
    };
    std::thread::scope(|s| {
        s.spawn(move || {
            for _ in 0..200 {
                writer(&mut wc);
            }
        });
        s.spawn(move || {
            for _ in 0..200 {
                let view = rc.snapshot_view::<Pos>().unwrap();
                let xs: Vec<f32> = view.values().iter().map(|p| p.x).collect();
                assert_eq!(xs, [0.0, 1.0, 2.0]);
            }
        });
    });
    assert_eq!(world.get::<Pos>(es[0]).unwrap().x, 2000.0);
    world.end_tick();
    assert_eq!(world.snapshot::<Pos>(es[2]).unwrap().unwrap().x, 2002.0);
}

/// A versioned component with a heap part whose clones and drops are counted.
#[derive(Debug)]
struct Tracked {
    value: u32,
    live: Arc<AtomicIsize>,
    #[allow(dead_code)]
    boxed: Box<u32>,
    /// Cloning this value panics (to test a clone failing midway through a refresh).
    poison: bool,
}
impl Component for Tracked {}

impl Tracked {
    fn new(live: &Arc<AtomicIsize>, value: u32) -> Self {
        live.fetch_add(1, Ordering::SeqCst);
        Self {
            value,
            live: live.clone(),
            boxed: Box::new(value),
            poison: false,
        }
    }
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        assert!(!self.poison, "poisoned clone");
        Self::new(&self.live, self.value)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn frozen_copies_are_real_clones_dropped_exactly_once() {
    let live = Arc::new(AtomicIsize::new(0));
    {
        let mut world = World::default();
        world
            .register_component_with(ComponentOptions::<Tracked>::new().versioned())
            .unwrap();
        world.register_component::<Vel>().unwrap();
        let es: Vec<Entity> = (0..5)
            .map(|i| world.spawn((Tracked::new(&live, i),)).unwrap())
            .collect();
        assert_eq!(live.load(Ordering::SeqCst), 5);
        world.end_tick();
        assert_eq!(live.load(Ordering::SeqCst), 10, "one clone per entity");
        world.end_tick();
        assert_eq!(
            live.load(Ordering::SeqCst),
            10,
            "a refresh drops the old copies"
        );

        // The copy is separate from the live value.
        world.get_mut::<Tracked>(es[0]).unwrap().value = 99;
        assert_eq!(world.snapshot::<Tracked>(es[0]).unwrap().unwrap().value, 0);

        world.despawn(es[1]).unwrap();
        world.insert(es[2], vel(0.0)).unwrap();
        assert_eq!(
            live.load(Ordering::SeqCst),
            9,
            "the despawned entity's copy lives until the next end_tick"
        );
        world.end_tick();
        assert_eq!(live.load(Ordering::SeqCst), 8);
        assert_eq!(world.snapshot::<Tracked>(es[0]).unwrap().unwrap().value, 99);
        assert_eq!(world.snapshot::<Tracked>(es[2]).unwrap().unwrap().value, 2);
    }
    assert_eq!(live.load(Ordering::SeqCst), 0, "no leak, no double drop");
}

#[test]
fn a_panicking_clone_leaves_an_empty_snapshot() {
    let live = Arc::new(AtomicIsize::new(0));
    {
        let mut world = World::default();
        world
            .register_component_with(ComponentOptions::<Tracked>::new().versioned())
            .unwrap();
        let es: Vec<Entity> = (0..4)
            .map(|i| world.spawn((Tracked::new(&live, i),)).unwrap())
            .collect();
        world.end_tick();
        world.get_mut::<Tracked>(es[2]).unwrap().poison = true;
        let panicked = catch_unwind(AssertUnwindSafe(|| world.end_tick())).is_err();
        assert!(panicked);
        // No half-made copy: the clones made before the panic are dropped, on one thread
        // as on a pool, where the ranges before and after the panic may both have run.
        assert!(world.snapshot_view::<Tracked>().unwrap().is_empty());
        assert_eq!(live.load(Ordering::SeqCst), 4);
        world.get_mut::<Tracked>(es[2]).unwrap().poison = false;
        world.end_tick();
        assert_eq!(world.snapshot_view::<Tracked>().unwrap().len(), 4);
    }
    assert_eq!(live.load(Ordering::SeqCst), 0);
}
