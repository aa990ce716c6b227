//! The change-detection workloads (issue 22), shared by `benches/changes.rs` and peer-bench's
//! `changes` binary: 100,000 entities with a tracked `Pos`; each tick 1% of them change
//! (spread: every 100th entity from a rotating offset; or clustered: one run of 1,000), and
//! one system sums `Pos` over `Changed<Pos>`. And the cost of writing every value of a
//! tracked component against an untracked one.

#![allow(dead_code)]

use laige_sim::prelude::*;

/// The entity count of the workloads.
pub const ENTITIES: u32 = 100_000;
/// How many entities change per tick (1%).
pub const CHANGED: u32 = ENTITIES / 100;

#[derive(Clone, Copy, Debug, Default)]
pub struct Pos(pub f32, pub f32);
impl Component for Pos {}

/// One measured run of `schedule`: what callgrind counts (`--toggle-collect='*measured*'`).
#[inline(never)]
pub fn measured_run(world: &mut World, schedule: &Schedule) {
    world.run_systems(std::hint::black_box(schedule)).unwrap();
}

/// Runs `variant` (`laige-spread`, `laige-clustered`, `write-tracked`, `write-untracked`)
/// `iters` times, counting only [`measured_run`]; `false` for another name.
pub fn count(variant: &str, iters: u32) -> bool {
    match variant {
        "laige-spread" | "laige-clustered" => {
            let spread = variant == "laige-spread";
            let (mut world, ids, schedule) = changed_world();
            for tick in 1..=iters {
                change(&mut world, &ids, tick, spread);
                measured_run(&mut world, &schedule);
            }
            assert_eq!(world.resource::<Sum>().unwrap().1, CHANGED);
        }
        "write-tracked" | "write-untracked" => {
            let (mut world, schedule) = write_world(variant == "write-tracked");
            for _ in 0..iters {
                measured_run(&mut world, &schedule);
            }
        }
        _ => return false,
    }
    true
}

/// The same layout, untracked.
#[derive(Clone, Copy, Debug, Default)]
pub struct Plain(pub f32, pub f32);
impl Component for Plain {}

/// What the reader summed in its last run.
#[derive(Debug, Default)]
pub struct Sum(pub f32, pub u32);

/// Which entities change in tick `tick`: spread over the whole table, or one run.
pub fn changed(tick: u32, spread: bool) -> impl Iterator<Item = u32> {
    let offset = tick % 100;
    let start = (tick * 7919) % (ENTITIES - CHANGED);
    (0..CHANGED).map(move |k| if spread { k * 100 + offset } else { start + k })
}

fn reader(q: Query<'_, &Pos, Changed<Pos>>, mut sum: ResMut<'_, Sum>) {
    let (mut total, mut count) = (0.0, 0);
    for pos in q.iter().unwrap() {
        total += pos.0;
        count += 1;
    }
    *sum = Sum(total, count);
}

/// A world of [`ENTITIES`] tracked `Pos` and the reader, with its schedule, run once so
/// the reader's next run sees only what changes after.
pub fn changed_world() -> (World, Vec<Entity>, Schedule) {
    let mut world = World::default();
    world
        .register_component_with(ComponentOptions::<Pos>::new().tracked())
        .unwrap();
    world.insert_resource(Sum::default()).unwrap();
    let ids = world
        .spawn_batch((0..ENTITIES).map(|i| Pos(i as f32, 0.0)))
        .unwrap()
        .to_vec();
    world.system("Reader", reader).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.prepare_schedule(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    (world, ids, schedule)
}

/// Changes the entities of tick `tick` (outside the measured part).
pub fn change(world: &mut World, ids: &[Entity], tick: u32, spread: bool) {
    for i in changed(tick, spread) {
        world.get_mut::<Pos>(ids[i as usize]).unwrap().0 += 1.0;
    }
}

fn write_tracked(mut q: Query<'_, &mut Pos>) {
    q.each(|p| p.0 += p.1 + 1.0).unwrap();
}

fn write_plain(mut q: Query<'_, &mut Plain>) {
    q.each(|p| p.0 += p.1 + 1.0).unwrap();
}

/// A world of [`ENTITIES`] of a tracked (`tracked`) or untracked component and one system
/// writing every value.
pub fn write_world(tracked: bool) -> (World, Schedule) {
    let mut world = World::default();
    if tracked {
        world
            .register_component_with(ComponentOptions::<Pos>::new().tracked())
            .unwrap();
        world
            .spawn_batch((0..ENTITIES).map(|i| Pos(i as f32, 0.5)))
            .unwrap();
        world.system("Write", write_tracked).register().unwrap();
    } else {
        world.register_component::<Plain>().unwrap();
        world
            .spawn_batch((0..ENTITIES).map(|i| Plain(i as f32, 0.5)))
            .unwrap();
        world.system("Write", write_plain).register().unwrap();
    }
    let schedule = world.schedule().unwrap();
    world.prepare_schedule(&schedule).unwrap();
    (world, schedule)
}
