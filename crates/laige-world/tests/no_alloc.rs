//! Proves the steady state allocates nothing: queries through a context, command recording
//! and application (archetype moves, runs of inserts applied table by table), the state hash, refreshing snapshots of a versioned
//! component (`end_tick`), snapshot reads, resource access, and typed systems (closures,
//! `Local`, `Res`/`ResMut`, `Commands`, `Rng` and `rand` draws on it, fallible systems) run
//! by `run_systems`, and a warm `save_state` / `restore_state` of a world of every kind of
//! saved state.
//!
//! The shared counting allocator (`laige-testkit`) counts per thread and forwards to `System`.

use std::hint::black_box;

use laige_world::{
    BoxError, Commands, Component, ComponentOptions, Entity, Local, Query, Res, ResMut, Rng,
    SystemContext, SystemId, With, Without, World, WorldOptions,
};

#[global_allocator]
static GLOBAL: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

fn allocs() -> u64 {
    laige_testkit::allocations()
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32, f32);
impl Component for Pos {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(f32, f32);
impl Component for Vel {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tag;
impl Component for Tag {}
/// A component with a heap part, moved (not cloned) through the command arena.
#[derive(Debug)]
struct Label(#[allow(dead_code)] Box<u32>);
impl Component for Label {}

fn movement(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&Pos, &mut Vel)>(|(p, v)| {
        v.0 = v.0 * 0.5 + p.0 * 0.001;
        v.1 += p.1;
    })
    .unwrap();
}

/// Toggles `Tag` on every tenth entity, which moves it between archetypes.
fn tagger(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, rng) = ctx.split();
    let phase = rng.next_range(0, 10);
    queries
        .each::<(Entity, Option<&Tag>)>(|(e, tag)| {
            if e.index() % 10 == phase {
                match tag {
                    Some(_) => commands.remove::<Tag>(e),
                    None => commands.insert(e, Tag),
                }
            }
        })
        .unwrap();
    // Random access by handle: the entity of index `phase`, if it is alive and has a Tag.
    if let Some(e) = Entity::from_parts(phase, 0) {
        let _ = queries.prepare::<(Entity, &Tag)>().unwrap().get(e);
    }
}

fn setup() -> (World, [SystemId; 2]) {
    let mut world = World::new(WorldOptions {
        capacity: 1000,
        seed: 0x1F05_5EED,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Tag>().unwrap();
    world.register_component::<Label>().unwrap();
    for i in 0..1000 {
        world.spawn((Pos(i as f32, 1.0), Vel(0.0, 0.0))).unwrap();
    }
    let a = world
        .system("Movement", movement)
        .budget_ms(1.0)
        .reads::<Pos>()
        .writes::<Vel>()
        .register()
        .unwrap()
        .id();
    let b = world
        .system("Tagger", tagger)
        .budget_ms(1.0)
        .reads::<Tag>()
        .register()
        .unwrap()
        .id();
    (world, [a, b])
}

fn tick(world: &mut World, order: &[SystemId; 2]) -> u64 {
    let (registry, mut host) = world.split_for_run();
    for &id in order {
        host.run(id, registry.run(id).unwrap()).unwrap();
    }
    let stats = world.apply_commands(order.iter().copied()).unwrap();
    assert_eq!((stats.applied, stats.skipped), (100, 0));
    world.state_hash()
}

#[test]
fn steady_state_allocates_nothing() {
    let (mut world, order) = setup();
    // Warm-up: every archetype transition and every column size is seen at least once.
    for _ in 0..200 {
        black_box(tick(&mut world, &order));
    }
    let before = allocs();
    let mut hash = 0;
    for _ in 0..100 {
        hash ^= black_box(tick(&mut world, &order));
    }
    let counted = allocs() - before;

    // The counter does see allocations on this thread (and a boxed component moved through
    // a command is one, made outside the window).
    let probe = allocs();
    let label = Label(Box::new(7));
    assert!(allocs() > probe, "the counting allocator is not counting");
    let e = world.spawn((Pos(0.0, 0.0),)).unwrap();
    let mut buffer = laige_world::CommandBuffer::new();
    world.commands(&mut buffer).insert(e, label);
    world.apply(&mut buffer).unwrap();

    println!("world-zeroalloc iterations=100 allocs={counted}");
    println!("world-zeroalloc-hash 0x{hash:016x}");
    assert_eq!(counted, 0, "the steady state allocated {counted} times");
}

#[test]
fn clearing_and_refilling_a_world_allocates_nothing() {
    let (mut world, _) = setup();
    let refill = |world: &mut World| {
        for i in 0..1000 {
            world.spawn((Pos(i as f32, 1.0), Vel(0.0, 0.0))).unwrap();
        }
    };
    world.clear();
    refill(&mut world);
    let before = allocs();
    for _ in 0..10 {
        world.clear();
        refill(&mut world);
    }
    let counted = allocs() - before;
    println!("world-zeroalloc-clear cycles=10 entities=1000 allocs={counted}");
    assert_eq!(counted, 0, "clear and refill allocated {counted} times");
}

/// The simulation clock: a hashed resource.
#[derive(Debug)]
struct Time {
    tick: u64,
}

impl laige_world::StateHash for Time {
    fn hash_state(&self, h: &mut laige_world::StateHasher) {
        h.write_u64(self.tick);
    }
}

/// What the snapshot reader computed: a plain resource.
#[derive(Clone, Debug, Default)]
struct Sum(f32);

fn clock(ctx: &mut SystemContext<'_>) {
    let before = ctx.resource::<Time>().unwrap().tick;
    ctx.resource_mut::<Time>().unwrap().tick = before + 1;
}

/// Writes the live Pos while `old_sum` reads last tick's.
fn drift(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Pos>(|p| p.0 += 1.0).unwrap();
}

fn old_sum(ctx: &mut SystemContext<'_>) {
    let mut sum = 0.0;
    ctx.each_snapshot::<Pos>(|_, p| sum += p.0).unwrap();
    let view = ctx.snapshot_view::<Pos>().unwrap();
    if let Some(&e) = view.entities().first() {
        sum += ctx.snapshot::<Pos>(e).unwrap().map_or(0.0, |p| p.1);
    }
    ctx.resource_mut::<Sum>().unwrap().0 = sum;
}

fn versioned_setup() -> (World, [SystemId; 4]) {
    let mut world = World::new(WorldOptions {
        capacity: 1000,
        seed: 0x1F05_5EED,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Tag>().unwrap();
    world.insert_hashed_resource(Time { tick: 0 }).unwrap();
    world.insert_resource(Sum::default()).unwrap();
    for i in 0..1000 {
        world.spawn((Pos(i as f32, 1.0), Vel(0.0, 0.0))).unwrap();
    }
    let ids = [
        world
            .system("Clock", clock)
            .budget_ms(1.0)
            .writes::<Time>()
            .register()
            .unwrap()
            .id(),
        world
            .system("Drift", drift)
            .budget_ms(1.0)
            .writes::<Pos>()
            .register()
            .unwrap()
            .id(),
        world
            .system("OldSum", old_sum)
            .budget_ms(1.0)
            .reads_snapshot::<Pos>()
            .writes::<Sum>()
            .register()
            .unwrap()
            .id(),
        world
            .system("Tagger", tagger)
            .budget_ms(1.0)
            .reads::<Tag>()
            .register()
            .unwrap()
            .id(),
    ];
    world.end_tick();
    (world, ids)
}

fn versioned_tick(world: &mut World, order: &[SystemId; 4]) -> u64 {
    let (registry, mut host) = world.split_for_run();
    for &id in order {
        host.run(id, registry.run(id).unwrap()).unwrap();
    }
    world.apply_commands(order.iter().copied()).unwrap();
    world.end_tick();
    world.state_hash() ^ world.resource::<Sum>().unwrap().0.to_bits() as u64
}

#[test]
fn end_tick_and_resource_access_allocate_nothing() {
    let (mut world, order) = versioned_setup();
    for _ in 0..200 {
        black_box(versioned_tick(&mut world, &order));
    }
    let before = allocs();
    let mut hash = 0;
    for _ in 0..100 {
        hash ^= black_box(versioned_tick(&mut world, &order));
    }
    let counted = allocs() - before;
    assert_eq!(world.resource::<Time>().unwrap().tick, 300);
    // The last tick summed the snapshot before it (plus one `p.1` of 1.0); this end_tick
    // added the tick's drift: 1000 entities, +1 each.
    let live: f32 = world
        .snapshot_view::<Pos>()
        .unwrap()
        .values()
        .iter()
        .map(|p| p.0)
        .sum();
    assert_eq!(world.resource::<Sum>().unwrap().0 - 1.0 + 1000.0, live);

    println!("world-zeroalloc-versioned iterations=100 allocs={counted}");
    println!("world-zeroalloc-versioned-hash 0x{hash:016x}");
    assert_eq!(counted, 0, "the steady state allocated {counted} times");
}

/// The typed systems' world: a clock resource, movement reading it, a tagger toggling `Tag`
/// through commands with the PRNG, a `Local` frame counter, and a fallible system that
/// returns `Ok` through `?`.
fn typed_setup() -> (World, laige_scheduler::Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: 1000,
        seed: 0x1F05_5EED,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Tag>().unwrap();
    world.insert_hashed_resource(Time { tick: 0 }).unwrap();
    world.insert_resource(Sum::default()).unwrap();
    for i in 0..1000 {
        world.spawn((Pos(i as f32, 1.0), Vel(0.0, 0.0))).unwrap();
    }
    let scale = 0.5;
    world
        .system(
            "Clock",
            |mut time: ResMut<'_, Time>, mut frames: Local<'_, u64>| {
                *frames += 1;
                time.tick = *frames;
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Movement",
            move |mut q: Query<'_, (&Pos, &mut Vel)>, time: Res<'_, Time>| {
                q.each(|(p, v)| v.0 = p.0 * scale + time.tick as f32)
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Tagger",
            |mut q: Query<'_, (Entity, Option<&Tag>)>,
             mut commands: Commands<'_>,
             mut rng: Rng<'_>| {
                let phase = rng.next_range(0, 10);
                // The `rand` crates on the same stream allocate nothing either.
                #[cfg(feature = "rand")]
                {
                    let mut deck = [0u8, 1, 2, 3];
                    rand::seq::SliceRandom::shuffle(&mut deck[..], &mut rng);
                    black_box((deck, rand::RngExt::random_range(&mut rng, -1.0f32..1.0)));
                }
                q.each(|(e, tag)| {
                    if e.index() % 10 == phase {
                        match tag {
                            Some(_) => commands.remove::<Tag>(e),
                            None => commands.insert(e, Tag),
                        };
                    }
                })
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Fallible",
            |mut tagged: Query<'_, &Pos, With<Tag>>,
             mut sum: ResMut<'_, Sum>|
             -> Result<(), BoxError> {
                let mut total = 0.0;
                tagged.each(|p| total += p.0)?;
                sum.0 = total;
                Ok(())
            },
        )
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn typed_systems_allocate_nothing() {
    let (mut world, schedule) = typed_setup();
    for _ in 0..200 {
        world.run_systems(&schedule).unwrap();
    }
    let before = allocs();
    let mut hash = 0;
    for _ in 0..100 {
        world.run_systems(&schedule).unwrap();
        hash ^= black_box(world.state_hash());
    }
    let counted = allocs() - before;
    // The systems did run: the clock counted every tick, and some entities are tagged.
    assert_eq!(world.resource::<Time>().unwrap().tick, 300);
    assert!(world.resource::<Sum>().unwrap().0 > 0.0);
    println!("world-zeroalloc-typed ticks=100 allocs={counted}");
    println!("world-zeroalloc-typed-hash 0x{hash:016x}");
    assert_eq!(counted, 0, "typed systems allocated {counted} times");
}

/// Not registered: inserting it is refused when recorded.
struct Unregistered;

#[test]
fn skipped_commands_and_the_tick_report_allocate_nothing() {
    let mut world = World::new(WorldOptions {
        max_entities: Some(64),
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    let gone = world.spawn(()).unwrap();
    world.despawn(gone).unwrap();
    for i in 0..64 {
        world.spawn((Pos(i as f32, 0.0),)).unwrap();
    }
    world
        .system("Overflow", move |mut commands: Commands<'_>| {
            // Past the entity limit, on a stale handle, and of an unregistered type.
            let pending = commands.spawn((Pos(0.0, 0.0),));
            commands.insert(pending, Pos(1.0, 1.0));
            commands.despawn(gone);
            commands.insert(gone, Unregistered);
        })
        .register()
        .unwrap();
    world
        .system("Movement", |mut q: Query<'_, &mut Pos>| {
            q.each(|p| p.0 += 1.0)
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.prepare_schedule(&schedule).unwrap();
    let run = |world: &mut World| {
        let err = world.run_systems(&schedule).unwrap_err();
        assert!(matches!(
            err,
            laige_world::TickError::CommandsSkipped { skipped: 4, .. }
        ));
        black_box(
            world
                .tick_report()
                .first_skip()
                .map(|(it, _)| it.commands_skipped),
        )
    };
    for _ in 0..50 {
        run(&mut world);
    }
    let before = allocs();
    for _ in 0..100 {
        run(&mut world);
    }
    let counted = allocs() - before;
    assert_eq!(world.len(), 64, "every spawn past the limit was skipped");
    assert_eq!(world.tick_report().tick(), 150);
    println!("world-zeroalloc-skipped ticks=100 allocs={counted}");
    assert_eq!(counted, 0, "skipping commands allocated {counted} times");
}

/// A short-lived entity: every tick despawns last tick's and spawns as many new ones.
#[derive(Clone, Copy, Debug)]
struct Spark(#[allow(dead_code)] u32);
impl Component for Spark {}

/// Despawns every `Spark` and spawns 200 new ones: half one by one, half as a batch.
fn churn(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, _) = ctx.split();
    queries
        .each::<(Entity, &Spark)>(|(e, _)| commands.despawn(e))
        .unwrap();
    for i in 0..100 {
        commands.spawn((Spark(i), Pos(i as f32, 0.0)));
    }
    commands.spawn_batch((0..100).map(|i| (Spark(i), Pos(0.0, i as f32))));
}

#[test]
fn a_tick_spawning_and_despawning_as_many_allocates_nothing() {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Spark>().unwrap();
    world
        .spawn_batch((0..500).map(|i| Pos(i as f32, 0.0)))
        .unwrap();
    world
        .system("Churn", churn)
        .budget_ms(1.0)
        .reads::<Spark>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..50 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(world.len(), 700, "200 sparks live after each tick");
    let before = allocs();
    let mut hash = 0;
    for _ in 0..100 {
        world.run_systems(&schedule).unwrap();
        hash ^= black_box(world.state_hash());
    }
    let counted = allocs() - before;
    assert_eq!(world.len(), 700);
    println!("churn-zeroalloc iterations=100 allocs={counted} hash=0x{hash:016x}");
    assert_eq!(
        counted, 0,
        "the churning steady state allocated {counted} times"
    );
}

/// Inserts `Vel` on every entity twice (one run of inserts over two tables, its second half
/// replacing the first's values) and then `Tag` (a second run), for `remove_runs` to undo.
fn insert_runs(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, _) = ctx.split();
    for pass in 0..2 {
        queries
            .each::<(Entity, &Pos)>(|(e, p)| commands.insert(e, Vel(p.0, pass as f32)))
            .unwrap();
    }
    queries
        .each::<(Entity, &Pos)>(|(e, _)| commands.insert(e, Tag))
        .unwrap();
}

/// Removes what `insert_runs` added.
fn remove_runs(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, _) = ctx.split();
    queries
        .each::<(Entity, &Pos)>(|(e, _)| {
            commands.remove::<Vel>(e);
            commands.remove::<Tag>(e);
        })
        .unwrap();
}

#[test]
fn a_tick_with_insert_runs_allocates_nothing() {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world
        .register_component_with(ComponentOptions::<Vel>::new().tracked())
        .unwrap();
    world.register_component::<Tag>().unwrap();
    world.register_component::<Spark>().unwrap();
    world
        .spawn_batch((0..300).map(|i| Pos(i as f32, 0.0)))
        .unwrap();
    world
        .spawn_batch((0..300).map(|i| (Pos(i as f32, 1.0), Spark(i))))
        .unwrap();
    world
        .system("InsertRuns", insert_runs)
        .budget_ms(1.0)
        .reads::<Pos>()
        .register()
        .unwrap();
    world
        .system("RemoveRuns", remove_runs)
        .budget_ms(1.0)
        .reads::<Pos>()
        .after("InsertRuns")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..10 {
        world.run_systems(&schedule).unwrap();
    }
    let before = allocs();
    let mut hash = 0;
    for _ in 0..100 {
        world.run_systems(&schedule).unwrap();
        hash = black_box(world.state_hash());
    }
    let counted = allocs() - before;
    let mut with_vel = 0;
    world.each::<&Vel>(|_| with_vel += 1).unwrap();
    assert_eq!(
        (world.len(), with_vel),
        (600, 0),
        "every tick undoes its inserts"
    );
    println!("insert-runs-zeroalloc iterations=100 allocs={counted} hash=0x{hash:016x}");
    assert_eq!(
        counted, 0,
        "the insert-run steady state allocated {counted} times"
    );
}

/// A tracked `Pos` and `Spark`: a writer marking a few rows through `Mut`, one marking
/// every row through `&mut`, `Changed`/`Added` readers with `iter`, `each_chunk` and
/// `par_each`, `Ref` reads, and churn through commands (spawns stamp ticks, despawns
/// swap-remove them).
#[derive(Debug, Default)]
struct ChangedCount(usize);

fn change_setup() -> (World, laige_scheduler::Schedule) {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().tracked())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Spark>::new().tracked())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.insert_resource(ChangedCount::default()).unwrap();
    world
        .spawn_batch((0..2000).map(|i| (Pos(i as f32, 0.0), Vel(1.0, 0.0))))
        .unwrap();
    fn few(mut q: Query<'_, (Entity, laige_world::Mut<'_, Pos>)>, mut rng: Rng<'_>) {
        let pick = rng.next_range(0, 50);
        for (e, mut pos) in q.iter_mut().unwrap() {
            if e.index() % 50 == pick {
                pos.0 += 1.0;
            }
        }
    }
    fn all(mut q: Query<'_, &mut Vel>) {
        q.each(|v| v.0 += 1.0).unwrap();
    }
    fn watch(
        mut q: Query<'_, (Entity, &Pos), laige_world::Changed<Pos>>,
        added: Query<'_, Entity, laige_world::Added<Spark>>,
        refs: Query<'_, laige_world::Ref<'_, Pos>, With<Vel>>,
        mut count: ResMut<'_, ChangedCount>,
    ) {
        let mut n = q.iter().unwrap().count();
        q.each_chunk(|entities, _| n += entities.len()).unwrap();
        q.par_each(|_, (_, pos)| {
            black_box(pos);
        })
        .unwrap();
        n += added.iter().unwrap().count();
        n += refs.iter().unwrap().filter(|it| it.is_changed()).count();
        count.0 = n;
    }
    world.system("Few", few).register().unwrap();
    world.system("All", all).register().unwrap();
    world
        .system("Churn", churn)
        .reads::<Spark>()
        .register()
        .unwrap();
    world
        .system("Watch", watch)
        .after("Few, Churn")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn change_detection_allocates_nothing() {
    let (mut world, schedule) = change_setup();
    for _ in 0..50 {
        world.run_systems(&schedule).unwrap();
    }
    let before = allocs();
    let mut seen = 0;
    for _ in 0..100 {
        world.run_systems(&schedule).unwrap();
        seen += world.resource::<ChangedCount>().unwrap().0;
    }
    let counted = allocs() - before;
    assert!(seen > 0, "the watcher saw changes");
    println!("changes-zeroalloc iterations=100 allocs={counted} seen={seen}");
    assert_eq!(counted, 0, "change detection allocated {counted} times");
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GameState {
    Menu,
    Playing,
}

struct Grid([u32; 4]);

laige_world::resource_name!(Terrain = "terrain"; Units = "units");

/// Run conditions (a state gate, `every_n_ticks`, combinators) and named resources, with the
/// timeline and the checksum record on, sequential and on the executor: systems skipped half
/// the ticks, their skips recorded, allocate nothing either.
fn conditional_world(threads: Option<usize>) -> (World, laige_scheduler::Schedule) {
    use laige_world::{Condition, NamedRes, NamedResMut, every_n_ticks, not, resource_equals};
    let mut world = World::new(WorldOptions::default());
    world.register_component::<Pos>().unwrap();
    for i in 0..64 {
        world.spawn((Pos(i as f32, 0.0),)).unwrap();
    }
    world.insert_resource(GameState::Menu).unwrap();
    world
        .insert_named_resource("terrain", Grid([1, 2, 3, 4]))
        .unwrap();
    world.insert_named_resource("units", Grid([0; 4])).unwrap();
    if let Some(threads) = threads {
        world.use_executor(laige_executor::ExecutorOptions {
            threads,
            mode: laige_executor::Mode::Parallel,
            ..laige_executor::ExecutorOptions::default()
        });
    }
    let flip = world
        .system("Flip", |mut state: ResMut<'_, GameState>| {
            *state = match *state {
                GameState::Menu => GameState::Playing,
                GameState::Playing => GameState::Menu,
            };
        })
        .run_if(every_n_ticks(2))
        .register()
        .unwrap();
    world
        .system("Move", |mut q: Query<'_, &mut Pos>| q.each(|p| p.0 += 1.0))
        .run_if(
            resource_equals(GameState::Playing).and(not(|q: Query<'_, &Pos>| {
                q.iter().is_ok_and(|mut it| it.any(|p| p.0 > 1.0e9))
            })),
        )
        .after(flip)
        .register()
        .unwrap();
    world
        .system(
            "Paint",
            |terrain: NamedRes<'_, Grid, Terrain>, mut units: NamedResMut<'_, Grid, Units>| {
                for (u, t) in units.0.iter_mut().zip(terrain.0) {
                    *u += t;
                }
            },
        )
        .run_if(not(resource_equals(GameState::Playing)))
        .after(flip)
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.record_timeline(8);
    world.record_checksums(8);
    world.prepare_schedule(&schedule).unwrap();
    (world, schedule)
}

#[test]
fn run_conditions_and_named_resources_allocate_nothing() {
    for threads in [None, Some(2)] {
        let (mut world, schedule) = conditional_world(threads);
        for _ in 0..40 {
            world.run_systems(&schedule).unwrap();
        }
        let before = allocs();
        let mut skips = 0;
        for _ in 0..100 {
            world.run_systems(&schedule).unwrap();
            let report = world.tick_report();
            skips += report
                .systems()
                .iter()
                .filter(|it| matches!(it.outcome, laige_world::SystemOutcome::Skipped(_)))
                .count();
        }
        let counted = allocs() - before;
        // Every tick skips `Flip` or not, and one of `Move` and `Paint`.
        assert!(skips >= 100, "conditions skipped {skips} systems");
        assert!(world.named_resource::<Grid>("units").unwrap().0[3] > 0);
        println!("world-zeroalloc-conditions threads={threads:?} allocs={counted}");
        assert_eq!(
            counted, 0,
            "conditional ticks allocated {counted} times ({threads:?})"
        );
    }
}

#[derive(Clone, Copy, Debug)]
struct Hit(#[allow(dead_code)] u32);

/// Two writers, a reader on either side of them, and a reactive reader of a queue that is
/// empty every other tick: every path of a queue's tick.
fn events_world(executor: Option<usize>) -> (World, laige_scheduler::Schedule) {
    use laige_world::{EventReader, EventWriter};
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_events::<Hit>(1000).unwrap();
    world.register_events::<u64>(4).unwrap();
    world.register_events::<Vel>(4096).unwrap();
    world.register_component::<Pos>().unwrap();
    for i in 0..3000 {
        world.spawn((Pos(i as f32, 0.0),)).unwrap();
    }
    world.insert_resource(0u32).unwrap();
    // Batches of a `par_each` loop emit at once, merged in batch order.
    world
        .system(
            "Scatter",
            |mut q: Query<'_, &Pos>, mut out: EventWriter<'_, Vel>| {
                let sink = out.par_sink();
                q.par_each(|batch, pos| sink.write(batch, Vel(pos.0, pos.1)))
            },
        )
        .register()
        .unwrap();
    world
        .system("Gather", |events: EventReader<'_, Vel>| {
            black_box(events.read().fold(0.0f32, |acc, it| acc + it.0));
        })
        .after("Scatter")
        .register()
        .unwrap();
    world
        .system(
            "Early",
            |hits: EventReader<'_, Hit>, mut sum: ResMut<'_, u32>| {
                *sum = sum.wrapping_add(hits.read().map(|it| it.0).sum::<u32>());
            },
        )
        .register()
        .unwrap();
    for name in ["WriteA", "WriteB"] {
        world
            .system(name, |mut hits: EventWriter<'_, Hit>| {
                hits.write_batch((0..1000).map(Hit));
            })
            .after("Early")
            .register()
            .unwrap();
    }
    world
        .system("Late", |hits: EventReader<'_, Hit>| {
            black_box(hits.read().fold(0u32, |acc, it| acc ^ it.0));
        })
        .after("WriteA, WriteB")
        .register()
        .unwrap();
    world
        .system(
            "Sometimes",
            |mut ticks: EventWriter<'_, u64>, mut n: Local<'_, u64>| {
                *n += 1;
                if (*n).is_multiple_of(2) {
                    ticks.write(*n);
                }
            },
        )
        .register()
        .unwrap();
    world
        .system("React", |ticks: EventReader<'_, u64>| {
            black_box(ticks.len());
        })
        .after("Sometimes")
        .reactive()
        .register()
        .unwrap();
    if let Some(threads) = executor {
        world.use_executor(laige_executor::ExecutorOptions {
            threads,
            mode: laige_executor::Mode::Parallel,
            ..Default::default()
        });
    }
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn event_queues_allocate_nothing_on_either_runner() {
    for executor in [None, Some(4)] {
        let (mut world, schedule) = events_world(executor);
        for _ in 0..20 {
            world.run_systems(&schedule).unwrap();
        }
        // This thread's allocations: other tests of this binary run meanwhile. Every
        // thread is counted in laige-sim's `events_no_alloc`, a binary of one test.
        let before = allocs();
        for _ in 0..100 {
            world.run_systems(&schedule).unwrap();
        }
        let counted = allocs() - before;
        assert!(world.tick_report().events().is_clean());
        println!("events-zeroalloc executor={executor:?} ticks=100 allocs={counted}");
        assert_eq!(counted, 0, "event queues allocated {counted} times");
    }
}

#[test]
fn an_overflowing_queue_and_its_report_allocate_nothing() {
    use laige_world::EventWriter;
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_events::<Hit>(8).unwrap();
    world
        .system("Spray", |mut hits: EventWriter<'_, Hit>| {
            hits.write_batch((0..20).map(Hit));
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..20 {
        let _ = world.run_systems(&schedule);
    }
    let before = allocs();
    for _ in 0..100 {
        let err = world.run_systems(&schedule).unwrap_err();
        black_box(err);
    }
    let counted = allocs() - before;
    let events = world.tick_report().events();
    assert_eq!(events.overflowed(), 12);
    assert_eq!(
        events.unread(),
        8,
        "no reader: every stored event is reported"
    );
    assert_eq!(counted, 0, "an overflowing tick allocated {counted} times");
}

/// A heap-owning component saved by `Clone` (`clone_from` into the saved copy, which
/// `#[derive(Clone)]` would not forward to the `Vec`'s).
#[derive(Debug)]
struct Bag(Vec<u32>);
impl Clone for Bag {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }

    fn clone_from(&mut self, source: &Self) {
        self.0.clone_from(&source.0);
    }
}
impl Component for Bag {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().saved()
    }
}
/// Saved as bytes, and versioned (its snapshot is saved too).
#[derive(Clone, Copy, Debug)]
struct Spot(u32);
impl Component for Spot {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().saved_copy().versioned()
    }
}

/// A world whose every part is saved: components as bytes and by `Clone`, a versioned
/// one, a resource, and typed systems with PRNG draws, a `Local` and `par_each`.
fn saved_setup() -> (World, laige_scheduler::Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: 1000,
        seed: 0x5A7E,
        ..WorldOptions::default()
    });
    world.register_component::<Spot>().unwrap();
    world.register_component::<Bag>().unwrap();
    world
        .register_component_with(ComponentOptions::<Ember>::new().sparse().saved_copy())
        .unwrap();
    world.insert_resource(Sum::default()).unwrap();
    world.save_resource::<Sum>().unwrap();
    for i in 0..1000 {
        let e = world.spawn((Spot(i), Bag(vec![i; 4]))).unwrap();
        if i % 3 == 0 {
            world.insert(e, Ember(i)).unwrap();
        }
    }
    world
        .system("Smoulder", |mut q: Query<'_, &mut Ember>| {
            q.each(|ember| ember.0 = ember.0.wrapping_mul(3))
        })
        .register()
        .unwrap();
    world
        .system(
            "Shuffle",
            |mut q: Query<'_, (&mut Spot, &Bag)>,
             mut rng: Rng<'_>,
             mut seen: Local<'_, Vec<u32>>| {
                let roll = rng.next_range(0, 100);
                seen.clear();
                seen.extend([roll; 8]);
                q.each(|(spot, bag)| spot.0 = spot.0.wrapping_add(roll ^ bag.0[0]))
            },
        )
        .register()
        .unwrap();
    world
        .system("Spread", |mut q: Query<'_, &mut Bag>| {
            q.par_each(|batch, bag| bag.0[1] ^= batch.rng().next_u64() as u32)
        })
        .register()
        .unwrap();
    world
        .system("Total", |q: Query<'_, &Spot>, mut sum: ResMut<'_, Sum>| {
            sum.0 = q.iter()?.map(|it| it.0 as f32).sum();
            Ok::<(), laige_world::QueryError>(())
        })
        .after("Shuffle")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// A sparse component in the saved world.
#[derive(Clone, Copy, Debug)]
struct Ember(u32);
impl Component for Ember {}

#[test]
fn a_warm_save_and_a_warm_restore_allocate_nothing() {
    let (mut world, schedule) = saved_setup();
    let mut state = laige_world::WorldState::new();
    // Warm-up: the state's buffers, and the tick's.
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
        world.save_state(&mut state).unwrap();
        world.run_systems(&schedule).unwrap();
        world.restore_state(&state).unwrap();
    }
    let before = allocs();
    for _ in 0..20 {
        world.save_state(&mut state).unwrap();
        world.run_systems(&schedule).unwrap();
        world.restore_state(&state).unwrap();
        world.run_systems(&schedule).unwrap();
        black_box(world.state_hash());
    }
    assert_eq!(allocs() - before, 0, "a warm save or restore allocated");
}

/// A sparse component, added and removed every tick and spawned with sparks.
#[derive(Clone, Copy, Debug)]
struct Burn(#[allow(dead_code)] u32);
impl Component for Burn {}

/// Despawns every `Spark` (half of them burning), spawns 200 new ones (half with a `Burn`
/// in their bundle, one by one and as a batch), and toggles `Burn` on every `Pos` without a
/// spark: inserted where absent, removed where present.
fn sparse_churn(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, _) = ctx.split();
    queries
        .each::<(Entity, &Spark)>(|(e, _)| commands.despawn(e))
        .unwrap();
    queries
        .each::<(Entity, &Pos, Option<&Burn>, Without<Spark>)>(|(e, _, burn, ())| match burn {
            Some(_) => commands.remove::<Burn>(e),
            None => commands.insert(e, Burn(e.index())),
        })
        .unwrap();
    for i in 0..50 {
        commands.spawn((Spark(i), Pos(i as f32, 0.0), Burn(i)));
        commands.spawn((Spark(i), Pos(i as f32, 1.0)));
    }
    commands.spawn_batch((0..100).map(|i| (Spark(i), Pos(0.0, i as f32), Burn(i))));
}

#[test]
fn a_tick_churning_sparse_components_allocates_nothing() {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Spark>().unwrap();
    world
        .register_component_with(ComponentOptions::<Burn>::new().sparse())
        .unwrap();
    world
        .spawn_batch((0..500).map(|i| Pos(i as f32, 0.0)))
        .unwrap();
    world
        .system("SparseChurn", sparse_churn)
        .budget_ms(1.0)
        .reads::<Spark>()
        .reads::<Pos>()
        .reads::<Burn>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..50 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(world.len(), 700, "200 sparks live after each tick");
    let burn = world.component_id::<Burn>().unwrap();
    let before = allocs();
    let mut hash = 0;
    for _ in 0..100 {
        world.run_systems(&schedule).unwrap();
        hash ^= black_box(world.state_hash());
    }
    let counted = allocs() - before;
    assert_eq!(world.len(), 700);
    // 150 sparks burn; the 500 others burn every other tick (all of them after an even count).
    assert_eq!(world.storage().rows_with(burn), 150);
    println!("sparse-churn-zeroalloc iterations=100 allocs={counted} hash=0x{hash:016x}");
    assert_eq!(
        counted, 0,
        "the churning steady state with sparse components allocated {counted} times"
    );
}
