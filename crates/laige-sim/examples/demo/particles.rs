//! The demo: a particle simulation on a real World, shared by the `demo` example
//! (`main.rs` beside this file) and the determinism and graph tests, which include this file.
//!
//! Particles drift in a 200 × 200 box under a pull to the centre, drag and random kicks,
//! bounce off the walls, heat up with speed, glow by heat, age, and are replaced when they
//! expire. Nine typed systems, each the single writer of what it changes; their parameters
//! declare the access below, and handles give the order:
//!
//! | system | writes | reads | after |
//! |---|---|---|---|
//! | `Forces` | `Velocity` | `Position`, `Mass` | |
//! | `Integrate` | `Position` | `Velocity` | `Forces` |
//! | `Heat` | `Heat` | `Velocity` | `Forces` |
//! | `Glow` | `Color` | `Heat` | `Heat` |
//! | `Age` | `Lifetime` | | |
//! | `Cull` | (commands), `Events<Expired>` | `Lifetime` | `Age` |
//! | `Tally` | `Expirations` (a resource) | `Events<Expired>` | `Cull`; runs only on ticks with events |
//! | `Grid` | `Cell` | `Position`, only the changed | `Integrate` |
//! | `Census` | `Census` (a resource) | `Cell`, `Color` | `Grid`, `Glow` |
//!
//! `Forces` reads `Position` before `Integrate` writes it: the scheduler says so with a
//! `read_before_write` warning, and that is the intent (forces use last tick's positions).
//!
//! `Cull` tells `Tally` of every expired particle through an event queue, and `Tally` runs
//! only on ticks that have some (`run_if(on_event::<Expired>())`). `Position` is tracked, so
//! `Grid` recomputes the cells of the particles whose position changed (`Changed<Position>`)
//! and of the new ones. `Expirations` is a plain resource, outside the state hash: a count
//! derived from the simulation, which the simulation never reads.

use std::error::Error;

use laige_sim::prelude::*;

/// Half the side of the box, in world units.
pub const HALF_SIZE: f32 = 100.0;
/// Grid cells per side, for [`Cell`].
pub const GRID: u32 = 50;
const DT: f32 = 1.0 / 60.0;

/// Where a particle is. Tracked, so [`Cell`]s are recomputed only for the changed ones.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed, tracked)]
pub struct Position {
    /// Horizontal, in `-HALF_SIZE..HALF_SIZE`.
    pub x: f32,
    /// Vertical, in `-HALF_SIZE..HALF_SIZE`.
    pub y: f32,
}

/// How fast a particle moves, in units per second.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
pub struct Velocity {
    /// Horizontal.
    pub x: f32,
    /// Vertical.
    pub y: f32,
}

/// How hard a particle is to push.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
pub struct Mass(pub f32);

/// Heat from speed, decaying.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
pub struct Heat(pub f32);

/// Display colour from heat, 0xRRGGBB.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Color(pub u32);

/// Ticks left to live.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Lifetime(pub u32);

/// The grid cell a particle is in, row-major over [`GRID`] × [`GRID`].
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Cell(pub u32);

/// Per-tick summary, a resource: occupied cells and hot particles.
#[derive(StateHash, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Cells holding at least one particle.
    pub occupied_cells: u32,
    /// Particles whose colour is the hottest band.
    pub hot: u32,
}

/// The event `Cull` writes for each particle that expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expired {
    /// The particle, despawned when the tick's commands are applied.
    pub entity: Entity,
}

/// What `Tally` counts from the [`Expired`] events, a resource outside the state hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expirations {
    /// Particles expired since the start.
    pub total: u64,
    /// Ticks on which some expired (the ticks `Tally` ran).
    pub ticks: u32,
}

/// How big a demo world to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoConfig {
    /// Particles alive at any time.
    pub particles: u32,
    /// The world's master seed.
    pub seed: u64,
}

impl Default for DemoConfig {
    fn default() -> Self {
        Self {
            particles: 10_000,
            seed: 0x1F05_5EED,
        }
    }
}

/// Builds the demo world: components, particles, the nine systems, and their schedule.
///
/// # Errors
///
/// Any registration or scheduling failure, as its own error type, boxed.
pub fn build(
    config: DemoConfig,
    options: WorldOptions,
) -> Result<(World, Schedule), Box<dyn Error>> {
    let mut world = World::new(WorldOptions {
        seed: config.seed,
        capacity: config.particles,
        ..options
    });
    world.register_component::<Position>()?;
    world.register_component::<Velocity>()?;
    world.register_component::<Mass>()?;
    world.register_component::<Heat>()?;
    world.register_component::<Color>()?;
    world.register_component::<Lifetime>()?;
    world.register_component::<Cell>()?;

    let mut rng = Prng::new(config.seed);
    for _ in 0..config.particles {
        world.spawn(particle(&mut rng))?;
    }
    world.insert_hashed_resource(Census::default())?;
    world.insert_resource(Expirations::default())?;
    // At most every particle expires in one tick.
    world.register_events::<Expired>(config.particles.max(1) as usize)?;

    // Each system's parameters declare what it reads and writes; budgets are the world's
    // default (1 ms) unless set. Handles order the systems.
    let forces = world.system("Forces", forces).budget_ms(2.0).register()?;
    let integrate = world
        .system("Integrate", integrate)
        .after(forces)
        .register()?;
    let heat = world.system("Heat", heat).after(forces).register()?;
    let glow = world.system("Glow", glow).after(heat).register()?;
    let age = world.system("Age", age).budget_ms(0.5).register()?;
    let cull = world.system("Cull", cull).after(age).register()?;
    world
        .system("Tally", tally)
        .after(cull)
        .run_if(on_event::<Expired>())
        .register()?;
    let grid = world.system("Grid", grid).after(integrate).register()?;
    world
        .system("Census", census)
        .after(grid)
        .after(glow)
        .register()?;
    let schedule = world.schedule()?;
    Ok((world, schedule))
}

/// Runs `ticks` ticks of `schedule` and returns the final state hash.
///
/// # Errors
///
/// The first failed tick.
pub fn run(world: &mut World, schedule: &Schedule, ticks: u32) -> Result<u64, TickError> {
    for _ in 0..ticks {
        world.run_systems(schedule)?;
    }
    Ok(world.state_hash())
}

fn signed(rng: &mut Prng) -> f32 {
    rng.next_float01() * 2.0 - 1.0
}

fn particle(rng: &mut Prng) -> (Position, Velocity, Mass, Heat, Color, Lifetime, Cell) {
    (
        Position {
            x: signed(rng) * HALF_SIZE,
            y: signed(rng) * HALF_SIZE,
        },
        Velocity {
            x: signed(rng) * 20.0,
            y: signed(rng) * 20.0,
        },
        Mass(0.5 + rng.next_float01() * 2.0),
        Heat(0.0),
        Color(0),
        Lifetime(rng.next_range(200, 600)),
        Cell(0),
    )
}

fn forces(
    mut bodies: Query<'_, (&mut Velocity, &Position, &Mass)>,
    mut rng: Rng<'_>,
) -> Result<(), QueryError> {
    bodies.each(|(vel, pos, mass)| {
        let inv = 1.0 / mass.0;
        vel.x = (vel.x - pos.x * 0.5 * inv * DT) * 0.999;
        vel.y = (vel.y - pos.y * 0.5 * inv * DT) * 0.999;
        if rng.next_range(0, 64) == 0 {
            vel.x += signed(&mut rng) * 5.0 * inv;
            vel.y += signed(&mut rng) * 5.0 * inv;
        }
        if pos.x.abs() >= HALF_SIZE && pos.x * vel.x > 0.0 {
            vel.x = -vel.x;
        }
        if pos.y.abs() >= HALF_SIZE && pos.y * vel.y > 0.0 {
            vel.y = -vel.y;
        }
    })
}

fn integrate(mut bodies: Query<'_, (&mut Position, &Velocity)>) -> Result<(), QueryError> {
    bodies.each_chunk(|_, (pos, vel)| {
        for (p, v) in pos.iter_mut().zip(vel) {
            p.x = (p.x + v.x * DT).clamp(-HALF_SIZE, HALF_SIZE);
            p.y = (p.y + v.y * DT).clamp(-HALF_SIZE, HALF_SIZE);
        }
    })
}

fn heat(mut bodies: Query<'_, (&mut Heat, &Velocity)>) -> Result<(), QueryError> {
    bodies.each_chunk(|_, (heat, vel)| {
        for (h, v) in heat.iter_mut().zip(vel) {
            h.0 = h.0 * 0.95 + (v.x * v.x + v.y * v.y) * 0.0005;
        }
    })
}

fn glow(mut bodies: Query<'_, (&mut Color, &Heat)>) -> Result<(), QueryError> {
    bodies.each(|(color, heat)| {
        let level = (heat.0.min(1.0) * 255.0) as u32;
        color.0 = (level << 16) | ((255 - level) << 8) | 64;
    })
}

fn age(mut lives: Query<'_, &mut Lifetime>) -> Result<(), QueryError> {
    lives.each(|life| life.0 = life.0.saturating_sub(1))
}

fn cull(
    mut lives: Query<'_, (Entity, &Lifetime)>,
    mut commands: Commands<'_>,
    mut expired: EventWriter<'_, Expired>,
    mut rng: Rng<'_>,
) -> Result<(), BoxError> {
    lives.each(|(entity, life)| {
        if life.0 == 0 {
            // Replacements get their ids when the commands are applied, in schedule order.
            commands.despawn(entity);
            commands.spawn(particle(&mut rng));
            // Past the queue's capacity the tick's report names the queue and `Cull`.
            expired.write(Expired { entity });
        }
    })?;
    Ok(())
}

fn tally(expired: EventReader<'_, Expired>, mut counts: ResMut<'_, Expirations>) {
    counts.total += expired.len() as u64;
    counts.ticks += 1;
}

fn grid(
    mut bodies: Query<'_, (&mut Cell, &Position), Changed<Position>>,
) -> Result<(), QueryError> {
    let cell_size = 2.0 * HALF_SIZE / GRID as f32;
    bodies.each(|(cell, pos)| {
        let col = (((pos.x + HALF_SIZE) / cell_size) as u32).min(GRID - 1);
        let row = (((pos.y + HALF_SIZE) / cell_size) as u32).min(GRID - 1);
        cell.0 = row * GRID + col;
    })
}

fn census(
    mut bodies: Query<'_, (&Cell, &Color)>,
    mut summary: ResMut<'_, Census>,
) -> Result<(), QueryError> {
    let mut occupied = [0u64; (GRID * GRID).div_ceil(64) as usize];
    let mut hot = 0;
    bodies.each(|(cell, color)| {
        occupied[cell.0 as usize / 64] |= 1 << (cell.0 % 64);
        hot += u32::from(color.0 >> 16 >= 192);
    })?;
    let occupied_cells = occupied.iter().map(|w| w.count_ones()).sum();
    *summary = Census {
        occupied_cells,
        hot,
    };
    Ok(())
}
