//! `World::prepare_schedule` does the first tick's setup ahead of time: after it, the first
//! tick allocates nothing (counted on every thread), sequentially and on two threads, with a
//! timeline and checksums recorded and a versioned component read through its snapshot; and
//! a prepared world reaches the same state and the same checksums as an unprepared one; a
//! stale schedule is refused.
//!
//! The systems record no commands: a command buffer's first growth is the systems' own
//! allocation, which no preparation can know the size of.
//!
//! One test in this binary, so no other test's allocations are counted.

use laige_sim::prelude::*;
use laige_sim::world::ChecksumRecord;

#[global_allocator]
static ALLOC: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

#[derive(Clone, Copy)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy)]
struct Vel(f32);
impl Component for Vel {}

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// A resource the systems share.
struct Gravity(f32);

fn build(threads: usize) -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: 500,
        seed: 7,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().hashed().versioned())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.insert_resource(Gravity(-0.5)).unwrap();
    for i in 0..500 {
        world.spawn((Pos(i as f32), Vel(0.0))).unwrap();
    }
    let fall = world
        .system(
            "Fall",
            |mut q: Query<'_, &mut Vel>, gravity: Res<'_, Gravity>, mut rng: Rng<'_>| {
                q.each(|v| v.0 += gravity.0 + (rng.next_u64() % 3) as f32)
            },
        )
        .register()
        .unwrap();
    world
        .system("Move", |mut q: Query<'_, (&mut Pos, &Vel)>| {
            q.each(|(p, v)| p.0 += v.0)
        })
        .after(fall)
        .register()
        .unwrap();
    world
        .system(
            "Watch",
            |mut q: Query<'_, Snapshot<&Pos>>, mut sum: Local<'_, f32>| {
                q.each(|p| *sum += p.map_or(0.0, |p| p.0))
            },
        )
        .register()
        .unwrap();
    if threads > 0 {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world.record_timeline(16);
    world.record_checksums(16);
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// Runs 10 ticks, preparing first or not; returns the allocations of the first tick, the
/// state hash and the checksums.
fn run(threads: usize, prepared: bool) -> (u64, u64, ChecksumRecord) {
    let (mut world, schedule) = build(threads);
    if prepared {
        world.prepare_schedule(&schedule).unwrap();
    }
    let before = laige_testkit::allocations_all_threads();
    world.run_systems(&schedule).unwrap();
    let first = laige_testkit::allocations_all_threads() - before;
    for _ in 1..10 {
        world.run_systems(&schedule).unwrap();
    }
    let hash = world.state_hash();
    (first, hash, world.take_checksums().unwrap())
}

#[test]
fn a_prepared_first_tick_allocates_nothing_and_changes_nothing_and_a_stale_schedule_is_refused() {
    for threads in [0, 2] {
        let (first_prepared, hash_prepared, checksums_prepared) = run(threads, true);
        let (first_unprepared, hash_unprepared, checksums_unprepared) = run(threads, false);
        println!(
            "prepare threads={threads} first-tick allocs prepared={first_prepared} \
             unprepared={first_unprepared}"
        );
        assert_eq!(first_prepared, 0, "threads {threads}");
        assert!(
            first_unprepared > 0,
            "threads {threads}: without prepare the first tick lays out the recorders"
        );
        assert_eq!(hash_prepared, hash_unprepared, "threads {threads}");
        assert_eq!(
            checksums_prepared
                .first_desync(&checksums_unprepared)
                .unwrap(),
            None,
            "threads {threads}"
        );
    }

    // A schedule computed before the last registration is refused, and nothing is built.
    let (mut world, schedule) = build(2);
    world.system("Late", || {}).register().unwrap();
    let err = world.prepare_schedule(&schedule).unwrap_err();
    assert!(
        err.to_string().contains("compute the schedule again"),
        "{err}"
    );
    assert!(world.plan().is_none(), "no plan was built");
}
