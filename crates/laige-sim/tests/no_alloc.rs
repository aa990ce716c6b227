//! Steady-state ticks allocate nothing, on one thread or on the pool, with or without a
//! timeline and checksums recorded: three systems with queries and commands over 1,000
//! entities, counted on every thread of the process.
//!
//! One test in this binary, so no other test's allocations are counted.

use laige_sim::prelude::*;

#[global_allocator]
static ALLOC: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

#[derive(Clone, Copy)]
struct Pos(f32);
#[derive(Clone, Copy)]
struct Vel(f32);
#[derive(Clone, Copy)]
struct Tag;

fn movement(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, &Vel)>(|_, (p, v)| p.0 += v.0)
        .unwrap();
}

fn tagger(ctx: &mut SystemContext<'_>) {
    // Insert a tag on every 16th untagged entity, remove it from every 16th tagged one:
    // archetype moves every tick, through the command buffer.
    let (mut queries, mut commands, _) = ctx.split();
    let mut n = 0u32;
    queries
        .each::<(Entity, Option<&Tag>)>(|_, (entity, tag)| {
            n += 1;
            if n.is_multiple_of(16) {
                let res = if tag.is_some() {
                    commands.remove::<Tag>(entity)
                } else {
                    commands.insert(entity, Tag)
                };
                assert!(res.is_ok());
            }
        })
        .unwrap();
}

fn damping(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Vel>(|_, v| v.0 *= 0.99).unwrap();
}

fn build() -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: 1_000,
        ..WorldOptions::default()
    });
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Tag>().unwrap();
    for i in 0..1_000 {
        world.spawn((Pos(i as f32), Vel(1.0))).unwrap();
    }
    world
        .system("Damping", damping)
        .budget_ms(1.0)
        .writes::<Vel>()
        .register()
        .unwrap();
    world
        .system("Movement", movement)
        .budget_ms(1.0)
        .after("Damping")
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap();
    world
        .system("Tagger", tagger)
        .budget_ms(1.0)
        .reads::<Tag>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

fn steady_ticks(world: &mut World, schedule: &Schedule) -> u64 {
    // Warm up: the first ticks create the tagged archetype, grow buffers, build the plan.
    for _ in 0..50 {
        world.run_systems(schedule).unwrap();
    }
    let before = laige_testkit::allocations_all_threads();
    for _ in 0..100 {
        world.run_systems(schedule).unwrap();
    }
    laige_testkit::allocations_all_threads() - before
}

#[test]
fn steady_state_ticks_allocate_nothing() {
    let mut counts = Vec::new();
    for recording in [false, true] {
        let (mut world, schedule) = build();
        if recording {
            // Fewer ticks kept than run, so the rings wrap during the counted ticks.
            world.record_timeline(64);
            world.record_checksums(64);
        }
        let sequential = steady_ticks(&mut world, &schedule);
        println!(
            "sim-zeroalloc ticks=100 mode=sequential recording={recording} allocs={sequential}"
        );

        let (mut world, schedule) = build();
        world.use_executor(ExecutorOptions {
            threads: 2,
            mode: Mode::Parallel,
            ..Default::default()
        });
        if recording {
            world.record_timeline(64);
            world.record_checksums(64);
        }
        let parallel = steady_ticks(&mut world, &schedule);
        println!(
            "sim-zeroalloc ticks=100 mode=parallel threads=2 recording={recording} allocs={parallel}"
        );
        if recording {
            assert_eq!(world.timeline().map(|it| it.len()), Some(64));
            assert_eq!(world.checksums().map(|it| it.len()), Some(64));
        }
        counts.push((sequential, parallel));
    }
    assert_eq!(counts, [(0, 0), (0, 0)]);
}
