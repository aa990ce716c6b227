//! Steady-state ticks allocate nothing, on one thread or on the pool, with or without a
//! timeline and checksums recorded: a low-level `fn`
//! system and typed ones (a closure with `ResMut`, a fallible system with `Commands` and
//! `Local`, a reader of a `Res`) over 5,000 entities, `par_each` loops (typed, and a
//! low-level one whose batches record commands and draw from their PRNG streams), and the
//! snapshot refresh of a versioned component (on the pool, split into ranges of entity
//! slots), counted on every thread of the process.
//!
//! One test in this binary, so no other test's allocations are counted.

use laige_sim::prelude::*;

#[global_allocator]
static ALLOC: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

#[derive(Clone, Copy)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy)]
struct Vel(f32);
impl Component for Vel {}
#[derive(Clone, Copy)]
struct Tag;
impl Component for Tag {}
#[derive(Clone, Copy)]
struct Lit;
impl Component for Lit {}
#[derive(Clone, Copy)]
struct Spark(u64);
impl Component for Spark {}
/// A resource: the damping factor, and how many ticks damped.
struct Drag {
    factor: f32,
    ticks: u64,
}

/// The low-level form: a plain `fn` with a context, its access declared on the builder.
fn movement(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, &Vel)>(|(p, v)| p.0 += v.0).unwrap();
}

/// A typed, fallible system: insert a tag on every 16th untagged entity, remove it from
/// every 16th tagged one (archetype moves every tick, through the command buffer), counting
/// in a `Local`.
fn tagger(
    mut q: Query<'_, (Entity, Option<&Tag>)>,
    mut commands: Commands<'_>,
    mut seen: Local<'_, u64>,
) -> Result<(), BoxError> {
    let mut n = 0u32;
    q.each(|(entity, tag)| {
        n += 1;
        if n.is_multiple_of(16) {
            if tag.is_some() {
                commands.remove::<Tag>(entity);
            } else {
                commands.insert(entity, Tag);
            }
        }
    })?;
    *seen += u64::from(n);
    Ok(())
}

/// A parallel loop whose batches draw into `Spark` from their PRNG streams and toggle `Lit`
/// on every 32nd entity through their commands (the same rows every tick, so the tables
/// swing between two sizes and the steady state is reached).
fn flicker(ctx: &mut SystemContext<'_>) {
    ctx.par_each::<(Entity, &mut Spark, Option<&Lit>)>(|batch, (entity, spark, lit)| {
        spark.0 ^= batch.rng().next_u64();
        if entity.index() % 32 == 0 {
            match lit {
                Some(_) => batch.commands().remove::<Lit>(entity),
                None => batch.commands().insert(entity, Lit),
            }
        }
    })
    .unwrap();
}

/// More than two ranges of the split snapshot refresh (2,048 entity slots each).
const ENTITIES: u32 = 5_000;

fn build() -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: ENTITIES,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Tag>().unwrap();
    world.register_component::<Lit>().unwrap();
    world.register_component::<Spark>().unwrap();
    world
        .insert_resource(Drag {
            factor: 0.99,
            ticks: 0,
        })
        .unwrap();
    for i in 0..ENTITIES {
        world.spawn((Pos(i as f32), Vel(1.0), Spark(0))).unwrap();
    }
    // A closure with a `ResMut`: its access is derived, its budget the world's default.
    let damping = world
        .system(
            "Damping",
            |mut q: Query<'_, &mut Vel>, mut drag: ResMut<'_, Drag>| {
                let factor = drag.factor;
                drag.ticks += 1;
                q.par_each(|_, v| v.0 *= factor)
            },
        )
        .register()
        .unwrap();
    world
        .system_fn("Movement", movement)
        .budget_ms(1.0)
        .after(damping)
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap();
    world.system("Tagger", tagger).register().unwrap();
    world
        .system_fn("Flicker", flicker)
        .writes::<Spark>()
        .reads::<Lit>()
        .register()
        .unwrap();
    world
        .system(
            "Watch",
            |drag: Res<'_, Drag>, mut tagged: Query<'_, &Pos, With<Tag>>| {
                let mut sum = 0.0;
                tagged.each(|p| sum += p.0 * drag.factor)
            },
        )
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
        // The tick report is filled in place: every system ran, every command applied.
        let report = std::hint::black_box(world.tick_report());
        assert!(report.is_clean() && report.commands_applied() > 0);
    }
    assert_eq!(world.tick_report().tick(), 150);
    laige_testkit::allocations_all_threads() - before
}

#[test]
fn steady_state_ticks_allocate_nothing() {
    let mut counts = Vec::new();
    for recording in [false, true] {
        // Fewer ticks kept than run, so the rings wrap during the counted ticks.
        let record = |world: &mut World| {
            if recording {
                world.record_timeline(64);
                world.record_checksums(64);
            }
        };
        let (mut world, schedule) = build();
        record(&mut world);
        let sequential = steady_ticks(&mut world, &schedule);
        assert_eq!(
            world.resource::<Drag>().unwrap().ticks,
            150,
            "the typed systems ran"
        );
        println!(
            "sim-zeroalloc ticks=100 mode=sequential recording={recording} allocs={sequential}"
        );

        let (mut world, schedule) = build();
        world.use_executor(ExecutorOptions::parallel(2));
        record(&mut world);
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
