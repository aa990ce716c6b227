//! A World ticking on the parallel executor with commands, resources and queries in
//! disjoint and shared tables: the race check's workload (`valgrind/drd.sh` runs this
//! binary under DRD), and a determinism check against the sequential runner.

use laige_executor::ExecutorOptions;
use laige_scheduler::Layout;
use laige_world::{
    Component, ComponentOptions, Entity, SystemContext, With, Without, World, WorldOptions,
};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(f32);
impl Component for Vel {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Red;
impl Component for Red {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Blue;
impl Component for Blue {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Age(u32);
impl Component for Age {}
#[derive(Debug, Default)]
struct Score(u64);

/// Moves red entities; writes `Pos` in red tables only.
fn move_red(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, &Vel, With<Red>)>(|(p, v, ())| p.0 += v.0)
        .unwrap();
}

/// Moves blue entities; writes `Pos` in blue tables only, so it may overlap `move_red`.
fn move_blue(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, &Vel, With<Blue>)>(|(p, v, ())| p.0 -= v.0)
        .unwrap();
}

/// Ages everything, and despawns the old and spawns a replacement through commands.
fn age(ctx: &mut SystemContext<'_>) {
    let mut old = Vec::new();
    ctx.each::<(Entity, &mut Age)>(|(e, a)| {
        a.0 += 1;
        if a.0 > 6 {
            old.push(e);
        }
    })
    .unwrap();
    for e in old {
        let colour_roll = ctx.rng().next_u64() % 2;
        let mut commands = ctx.commands();
        commands.despawn(e);
        if colour_roll == 0 {
            commands.spawn((Pos(0.0), Vel(1.0), Red, Age(0)));
        } else {
            commands.spawn((Pos(0.0), Vel(2.0), Blue, Age(0)));
        }
    }
}

/// Reads last tick's positions (a snapshot, so it may run beside the movers) into the
/// score resource.
fn score(ctx: &mut SystemContext<'_>) {
    let mut sum = 0.0f32;
    ctx.each_snapshot::<Pos>(|_, p| sum += p.0).unwrap();
    ctx.resource_mut::<Score>().unwrap().0 += sum.to_bits() as u64 % 1_000;
}

/// Tags uncoloured entities red through commands (an archetype move).
fn paint(ctx: &mut SystemContext<'_>) {
    let mut bare = Vec::new();
    ctx.each::<(Entity, (&Pos, Without<Red>, Without<Blue>))>(|(e, _)| bare.push(e))
        .unwrap();
    for e in bare {
        ctx.commands().insert(e, Red);
    }
}

/// `padding` more entities hold `Pos` and `Blue` but no `Vel`: only the snapshot refresh
/// and `Score` see them, and enough of them split the refresh into ranges on the pool.
fn build(executor: Option<usize>, padding: u32) -> World {
    let mut world = World::new(WorldOptions {
        seed: 0xD2D,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Red>().unwrap();
    world.register_component::<Blue>().unwrap();
    world.register_component::<Age>().unwrap();
    world.insert_resource(Score::default()).unwrap();
    for i in 0..40u32 {
        match i % 3 {
            0 => world.spawn((Pos(0.0), Vel(1.0), Red, Age(i % 7))),
            1 => world.spawn((Pos(0.0), Vel(2.0), Blue, Age(i % 5))),
            _ => world.spawn((Pos(1.0), Vel(0.5), Age(i % 3))),
        }
        .unwrap();
    }
    for i in 0..padding {
        world.spawn((Pos(i as f32 * 0.25), Blue)).unwrap();
    }
    world.set_layout(
        Layout::new()
            .dag("Main", "Sim", &["Move", "Life"], "Move")
            .dag("Main", "Score", &["Sum"], "Sum")
            .dag("Late", "Fix", &["Paint"], "Paint"),
    );
    let systems = world.system("MoveRed", move_red).budget_ms(5.0);
    systems
        .writes::<Pos>()
        .reads::<Vel>()
        .matching::<Red>()
        .register()
        .unwrap();
    world
        .system("MoveBlue", move_blue)
        .budget_ms(5.0)
        .writes::<Pos>()
        .reads::<Vel>()
        .matching::<Blue>()
        .after_weak("MoveRed")
        .register()
        .unwrap();
    world
        .system("Age", age)
        .budget_ms(5.0)
        .in_phase("Life")
        .writes::<Age>()
        .register()
        .unwrap();
    world
        .system("Score", score)
        .budget_ms(5.0)
        .in_dag("Score")
        .reads_snapshot::<Pos>()
        .writes::<Score>()
        .register()
        .unwrap();
    world
        .system("Paint", paint)
        .budget_ms(5.0)
        .in_dag("Fix")
        .reads::<Pos>()
        .reads::<Red>()
        .reads::<Blue>()
        .register()
        .unwrap();
    if let Some(threads) = executor {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world
}

fn run(executor: Option<usize>, ticks: u32) -> (u64, u64) {
    run_padded(executor, ticks, 0)
}

/// The state hash and the score (an unhashed resource: what the snapshot readers saw).
fn run_padded(executor: Option<usize>, ticks: u32, padding: u32) -> (u64, u64) {
    let mut world = build(executor, padding);
    let schedule = world.schedule().unwrap();
    for _ in 0..ticks {
        world.run_systems(&schedule).unwrap();
    }
    (world.state_hash(), world.resource::<Score>().unwrap().0)
}

#[test]
fn a_world_on_the_executor_matches_the_sequential_runner() {
    let sequential = run(None, 30);
    assert_ne!(
        sequential,
        run(None, 0),
        "the world must change, or this checks nothing"
    );
    for threads in [2, 3] {
        assert_eq!(run(Some(threads), 30), sequential, "{threads} threads");
    }
}

#[test]
fn a_large_world_refreshes_its_snapshots_on_the_pool_as_on_one_thread() {
    let padding = 2 * laige_storage::snapshot::SLOTS_PER_RANGE as u32 + 100;
    let sequential = run_padded(None, 4, padding);
    let unpadded = run_padded(None, 4, 0);
    assert!(sequential.0 != unpadded.0 && sequential.1 != unpadded.1);
    assert_eq!(run_padded(Some(2), 4, padding), sequential);
}
