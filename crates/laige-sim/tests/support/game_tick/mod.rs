//! The `game_tick` workload (`../shared/bench/workloads.md`): a mixed game tick of 40
//! systems over 8 archetypes, shared by the determinism test (`tests/game_tick.rs`), the
//! bench (`benches/game_tick.rs`) and the peer benches (`peer-bench/`, which include
//! `components.rs` alone).
//!
//! At full size: 20,000 entities over 8 archetypes of 14 component types, 2 resources
//! (`Score`, `Clock`), and 40 systems in one track of two DAGs, `sim` (input, ai, movement,
//! physics, combat, cleanup) and `fx` (animate, emit). `Transform` and `Health` are
//! versioned, for the systems that read last tick's values. About 1% of the entities are
//! replaced every tick (projectiles, particles, pickups, dead units), and the population
//! stays level.
#![allow(dead_code)]

pub mod components;
pub mod systems;

use components::*;
use laige_sim::prelude::*;

/// The entities of a full-size world.
pub const ENTITIES: u32 = 20_000;

/// How many entities of each archetype a world of `entities` starts with, in the order
/// soldiers, heroes, projectiles, particles, props, decorations, pickups, waypoints
/// (20, 10, 20, 20, 10, 10, 5 and 5 percent).
pub fn census(entities: u32) -> [u32; 8] {
    [20, 10, 20, 20, 10, 10, 5, 5].map(|percent| entities * percent / 100)
}

/// Builds the `game_tick` world of `entities` entities from `seed`, and its schedule.
///
/// # Errors
///
/// Any registration or scheduling failure, boxed.
pub fn build(entities: u32, seed: u64) -> Result<(World, Schedule), Box<dyn std::error::Error>> {
    let mut world = World::new(WorldOptions {
        seed,
        capacity: entities + entities / 4,
        ..WorldOptions::default()
    });
    world.register_component_with(
        ComponentOptions::<Transform>::new()
            .hashed()
            .versioned()
            .saved_copy(),
    )?;
    world.register_component_with(
        ComponentOptions::<Health>::new()
            .hashed()
            .versioned()
            .saved_copy(),
    )?;
    world.register_component_with(ComponentOptions::<Velocity>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Team>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Target>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Cooldown>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Ai>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Sprite>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Lifetime>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Collider>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Cell>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Damage>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Buff>::new().hashed().saved_copy())?;
    world.register_component_with(ComponentOptions::<Tag>::new().hashed().saved_copy())?;
    world.insert_hashed_resource(Score::default())?;
    world.insert_hashed_resource(Clock::default())?;
    // Saved, with every component, so a rollback can take the whole game back.
    world.save_resource::<Score>()?;
    world.save_resource::<Clock>()?;
    populate(&mut world, entities, seed)?;
    world.set_layout(
        Layout::new()
            .dag(
                "Main",
                "sim",
                &["input", "ai", "movement", "physics", "combat", "cleanup"],
                "input",
            )
            .dag("Main", "fx", &["animate", "emit"], "animate"),
    );
    systems::register(&mut world)?;
    let schedule = world.schedule()?;
    Ok((world, schedule))
}

/// Spawns the starting population. Lifetimes and cooldowns are spread evenly, so
/// expiries and shots are as frequent on the first tick as later.
fn populate(world: &mut World, entities: u32, seed: u64) -> Result<(), WorldError> {
    let [
        soldiers,
        heroes,
        projectiles,
        particles,
        props,
        decorations,
        pickups,
        waypoints,
    ] = census(entities);
    let mut rng = Prng::new(seed ^ 0x6A4E_7EC5);
    let mut at = || spot(rng.next_u64());
    for i in 0..soldiers {
        world.spawn(soldier(at(), i % 2, (i % MEAN_COOLDOWN) as f32))?;
    }
    for i in 0..heroes {
        world.spawn(hero(at(), i % 2, (i % MEAN_COOLDOWN) as f32))?;
    }
    for i in 0..projectiles {
        let (from, to) = (at(), at());
        let to = Target { x: to.x, y: to.y };
        world.spawn(projectile(from, to, i % 2, 1 + i % SHOT_LIFE))?;
    }
    for i in 0..particles {
        let spread = (i % 7) as f32 / 7.0;
        world.spawn(particle(at(), (spread, 1.0 - spread), 1 + i % SHOT_LIFE))?;
    }
    for _ in 0..props {
        world.spawn(prop(at()))?;
    }
    for _ in 0..decorations {
        world.spawn(decoration(at()))?;
    }
    for i in 0..pickups {
        world.spawn(pickup(at(), 1 + i % PICKUP_LIFE))?;
    }
    for _ in 0..waypoints {
        world.spawn(waypoint(at()))?;
    }
    Ok(())
}

/// How the executor runs a tick, for the modes workloads.md lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    /// `run_systems` without an executor.
    Sequential,
    /// The executor in `Mode::Parallel` on this many threads.
    Parallel(usize),
    /// The executor in `Mode::Auto` on this many threads.
    Auto(usize),
}

impl RunMode {
    /// The four modes of workloads.md: sequential, parallel on 2, auto on 2, parallel on 8.
    pub const ALL: [RunMode; 4] = [
        RunMode::Sequential,
        RunMode::Parallel(2),
        RunMode::Auto(2),
        RunMode::Parallel(8),
    ];

    /// A short label: `sequential`, `parallel-2`, `auto-2`, `parallel-8`.
    pub fn label(self) -> String {
        match self {
            RunMode::Sequential => "sequential".into(),
            RunMode::Parallel(n) => format!("parallel-{n}"),
            RunMode::Auto(n) => format!("auto-{n}"),
        }
    }

    /// Sets `world` up to run in this mode.
    pub fn apply(self, world: &mut World) {
        let (threads, mode) = match self {
            RunMode::Sequential => return world.use_sequential(),
            RunMode::Parallel(n) => (n, Mode::Parallel),
            RunMode::Auto(n) => (n, Mode::Auto),
        };
        world.use_executor(ExecutorOptions {
            threads,
            mode,
            ..Default::default()
        });
    }
}
