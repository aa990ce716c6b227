//! `par_each` and `par_each_chunk`: the same world for the sequential runner and every
//! thread count, with batch commands and batch PRNG streams; batch commands apply in batch
//! order; and the batches cover every matched row once.

use laige_executor::{ExecutorOptions, Mode};
use laige_world::{
    Component, ComponentOptions, Entity, PAR_BATCH_ROWS, Query, StateHash, StateHasher,
    SystemContext, TickError, With, World, WorldOptions,
};

#[derive(Debug)]
struct Pos(u64);
impl Component for Pos {}
#[derive(Debug)]
struct Vel(u64);
impl Component for Vel {}
#[derive(Debug)]
struct Marked;
impl Component for Marked {}
/// Which batch spawned an entity, and a draw of that batch's PRNG.
#[derive(Debug)]
struct Born(u32, u64);
impl Component for Born {}

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.0);
    }
}
impl StateHash for Vel {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.0);
    }
}
impl StateHash for Marked {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(1);
    }
}
impl StateHash for Born {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(self.0));
        h.write_u64(self.1);
    }
}

/// Low-level: every row draws from its batch's stream; some rows despawn, some spawn.
fn churn(ctx: &mut SystemContext<'_>) {
    ctx.par_each::<(Entity, &mut Pos, &Vel)>(|batch, (entity, pos, vel)| {
        pos.0 = pos.0.wrapping_mul(31) ^ vel.0 ^ (batch.rng().next_u64() >> 8);
        match pos.0 % 64 {
            0 => batch.commands().despawn(entity),
            1 => {
                let born = Born(batch.index(), batch.rng().next_u64());
                batch
                    .commands()
                    .spawn((Pos(pos.0 >> 3), Vel(pos.0 >> 5), born));
            }
            _ => {}
        }
    })
    .unwrap();
}

/// Typed, by chunks: velocities drift by the batch's stream, and a few rows toggle `Marked`.
fn steer(mut velocities: Query<'_, (Entity, &mut Vel, Option<&Marked>)>) {
    velocities
        .par_each_chunk(|batch, _, (entities, vels, marked)| {
            for (i, vel) in vels.iter_mut().enumerate() {
                vel.0 = vel.0.rotate_left(3) ^ batch.rng().next_range(0, 1000) as u64;
                if vel.0 % 50 == 0 {
                    match marked {
                        Some(_) => batch.commands().remove::<Marked>(entities[i]),
                        None => batch.commands().insert(entities[i], Marked),
                    }
                }
            }
        })
        .unwrap();
}

fn build() -> (World, laige_scheduler::Schedule) {
    let mut world = World::new(WorldOptions {
        seed: 0x1F05_5EED,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Vel>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Marked>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Born>::new().hashed())
        .unwrap();
    // Three tables, none a multiple of the batch size.
    for i in 0..1000u64 {
        world.spawn((Pos(i), Vel(i * 7 + 1))).unwrap();
    }
    for i in 0..700u64 {
        world
            .spawn((Pos(i + 5000), Vel(i * 3 + 2), Marked))
            .unwrap();
    }
    for i in 0..300u64 {
        world.spawn((Pos(i + 9000),)).unwrap();
    }
    world
        .system_fn("Churn", churn)
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap();
    world.system("Steer", steer).register().unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// The final state hash, population, and commands skipped over the run (Steer's inserts on
/// entities Churn despawned earlier in the tick; skipped the same way on every thread count).
fn run(executor: Option<(usize, Mode)>, ticks: u32) -> (u64, usize, usize) {
    let (mut world, schedule) = build();
    if let Some((threads, mode)) = executor {
        world.use_executor(ExecutorOptions {
            threads,
            mode,
            ..Default::default()
        });
    }
    let mut skipped = 0;
    for _ in 0..ticks {
        match world.run_systems(&schedule) {
            Ok(()) => {}
            Err(TickError::CommandsSkipped { name: "Steer", .. }) => {
                skipped += world.tick_report().commands_skipped();
            }
            Err(err) => panic!("{err}"),
        }
    }
    (world.state_hash(), world.len(), skipped)
}

#[test]
fn every_thread_count_reaches_the_sequential_runners_world() {
    let sequential = run(None, 40);
    let (initial, _, _) = run(None, 0);
    assert_ne!(sequential.0, initial, "the loops changed nothing");
    assert_ne!(sequential.1, 2000, "no command changed the population");
    for repetition in 0..3 {
        for threads in [1, 2, 4, 8] {
            for mode in [Mode::Parallel, Mode::Sequential, Mode::Auto] {
                assert_eq!(
                    run(Some((threads, mode)), 40),
                    sequential,
                    "repetition {repetition}, {threads} threads, {mode:?}"
                );
            }
        }
    }
}

#[test]
fn batch_commands_apply_in_batch_order() {
    let mut world = World::new(WorldOptions::default());
    world.register_component::<Pos>().unwrap();
    world.register_component::<Born>().unwrap();
    for i in 0..(5 * PAR_BATCH_ROWS as u64 + 17) {
        world.spawn((Pos(i),)).unwrap();
    }
    world
        .system_fn("Spawner", |ctx: &mut SystemContext<'_>| {
            ctx.par_each::<(&Pos, Option<&Born>)>(|batch, (pos, born)| {
                if born.is_none() && pos.0 % 100 == 0 {
                    let index = batch.index();
                    batch.commands().spawn((Born(index, pos.0),));
                }
            })
            .unwrap();
        })
        .reads::<Pos>()
        .reads::<Born>()
        .register()
        .unwrap();
    world.use_executor(ExecutorOptions::parallel(4));
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let mut spawned = Vec::new();
    world
        .each::<(Entity, &Born)>(|(entity, born)| spawned.push((entity.index(), born.0, born.1)))
        .unwrap();
    spawned.sort();
    // Entity indices follow apply order: batch by batch, rows in order within a batch.
    let order: Vec<(u32, u64)> = spawned.iter().map(|&(_, b, p)| (b, p)).collect();
    let expected: Vec<(u32, u64)> = (0..(5 * PAR_BATCH_ROWS as u64 + 17))
        .filter(|p| p % 100 == 0)
        .map(|p| ((p / PAR_BATCH_ROWS as u64) as u32, p))
        .collect();
    assert_eq!(order, expected);
}

#[test]
fn batches_cover_every_matched_row_once() {
    let (mut world, _) = build();
    let id = world
        .system_fn("Count", |_: &mut SystemContext<'_>| {})
        .writes::<Vel>()
        .reads::<Pos>()
        .register()
        .unwrap()
        .id();
    let mut before = Vec::new();
    world.each::<&Vel>(|vel| before.push(vel.0)).unwrap();
    // A context run by hand: the batches run in order on this thread.
    let mut ctx = world.context(id).unwrap();
    ctx.par_each::<(&mut Vel, With<Pos>)>(|_, (vel, ())| vel.0 += 1)
        .unwrap();
    let mut after = Vec::new();
    world.each::<&Vel>(|vel| after.push(vel.0)).unwrap();
    let bumped: Vec<u64> = before.iter().map(|v| v + 1).collect();
    assert_eq!(after, bumped);
}
