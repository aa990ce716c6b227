//! The demo: a particle simulation on a real World, shared by `examples/demo.rs`, the
//! determinism tests and the benches.
//!
//! Particles drift in a 200 × 200 box under a pull to the centre, drag and random kicks,
//! bounce off the walls, heat up with speed, glow by heat, age, and are replaced when they
//! expire. Eight systems, each the single writer of what it changes:
//!
//! | system | writes | reads | depends_on |
//! |---|---|---|---|
//! | `Forces` | `Velocity` | `Position`, `Mass` | |
//! | `Integrate` | `Position` | `Velocity` | `Forces` |
//! | `Heat` | `Heat` | `Velocity` | `Forces` |
//! | `Glow` | `Color` | `Heat` | `Heat` |
//! | `Age` | `Lifetime` | | |
//! | `Cull` | (commands) | `Lifetime` | `Age` |
//! | `Grid` | `Cell` | `Position` | `Integrate` |
//! | `Census` | `Census` (a resource) | `Cell`, `Color` | `Grid`, `Glow` |
//!
//! `Forces` reads `Position` before `Integrate` writes it: the scheduler says so with a
//! `read_before_write` warning, and that is the intent (forces use last tick's positions).

use std::error::Error;

use crate::prelude::*;

/// Half the side of the box, in world units.
pub const HALF_SIZE: f32 = 100.0;
/// Grid cells per side, for [`Cell`].
pub const GRID: u32 = 50;
const DT: f32 = 1.0 / 60.0;

/// Where a particle is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    /// Horizontal, in `-HALF_SIZE..HALF_SIZE`.
    pub x: f32,
    /// Vertical, in `-HALF_SIZE..HALF_SIZE`.
    pub y: f32,
}

/// How fast a particle moves, in units per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    /// Horizontal.
    pub x: f32,
    /// Vertical.
    pub y: f32,
}

/// How hard a particle is to push.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass(pub f32);

/// Heat from speed, decaying.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heat(pub f32);

/// Display colour from heat, 0xRRGGBB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Color(pub u32);

/// Ticks left to live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime(pub u32);

/// The grid cell a particle is in, row-major over [`GRID`] × [`GRID`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell(pub u32);

/// Per-tick summary, a resource: occupied cells and hot particles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Cells holding at least one particle.
    pub occupied_cells: u32,
    /// Particles whose colour is the hottest band.
    pub hot: u32,
}

impl StateHash for Position {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.x, self.y).hash_state(h);
    }
}

impl StateHash for Velocity {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.x, self.y).hash_state(h);
    }
}

macro_rules! hash_newtype {
    ($($t:ty),*) => {$(
        impl StateHash for $t {
            fn hash_state(&self, h: &mut StateHasher) {
                self.0.hash_state(h);
            }
        }
    )*};
}
hash_newtype!(Mass, Heat, Color, Lifetime, Cell);

impl StateHash for Census {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.occupied_cells, self.hot).hash_state(h);
    }
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

/// Builds the demo world: components, particles, the eight systems, and their schedule.
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
    world.register_hashed_component::<Position>()?;
    world.register_hashed_component::<Velocity>()?;
    world.register_hashed_component::<Mass>()?;
    world.register_hashed_component::<Heat>()?;
    world.register_hashed_component::<Color>()?;
    world.register_hashed_component::<Lifetime>()?;
    world.register_hashed_component::<Cell>()?;

    let mut rng = Prng::new(config.seed);
    for _ in 0..config.particles {
        world.spawn(particle(&mut rng))?;
    }
    world.insert_hashed_resource(Census::default())?;

    world
        .system("Forces", forces)
        .budget_ms(2.0)
        .writes::<Velocity>()
        .reads::<Position>()
        .reads::<Mass>()
        .register()?;
    world
        .system("Integrate", integrate)
        .budget_ms(1.0)
        .after("Forces")
        .writes::<Position>()
        .reads::<Velocity>()
        .register()?;
    world
        .system("Heat", heat)
        .budget_ms(1.0)
        .after("Forces")
        .writes::<Heat>()
        .reads::<Velocity>()
        .register()?;
    world
        .system("Glow", glow)
        .budget_ms(1.0)
        .after("Heat")
        .writes::<Color>()
        .reads::<Heat>()
        .register()?;
    world
        .system("Age", age)
        .budget_ms(0.5)
        .writes::<Lifetime>()
        .register()?;
    world
        .system("Cull", cull)
        .budget_ms(1.0)
        .after("Age")
        .reads::<Lifetime>()
        .register()?;
    world
        .system("Grid", grid)
        .budget_ms(1.0)
        .after("Integrate")
        .writes::<Cell>()
        .reads::<Position>()
        .register()?;
    world
        .system("Census", census)
        .budget_ms(1.0)
        .after("Grid, Glow")
        .writes::<Census>()
        .reads::<Cell>()
        .reads::<Color>()
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

fn forces(ctx: &mut SystemContext<'_>) {
    let (mut queries, _, rng) = ctx.split();

    let res = queries.each::<(&mut Velocity, &Position, &Mass)>(|_, (vel, pos, mass)| {
        let inv = 1.0 / mass.0;
        vel.x = (vel.x - pos.x * 0.5 * inv * DT) * 0.999;
        vel.y = (vel.y - pos.y * 0.5 * inv * DT) * 0.999;
        if rng.next_range(0, 64) == 0 {
            vel.x += signed(rng) * 5.0 * inv;
            vel.y += signed(rng) * 5.0 * inv;
        }
        if pos.x.abs() >= HALF_SIZE && pos.x * vel.x > 0.0 {
            vel.x = -vel.x;
        }
        if pos.y.abs() >= HALF_SIZE && pos.y * vel.y > 0.0 {
            vel.y = -vel.y;
        }
    });
    debug_assert!(res.is_ok(), "{res:?}");
}

fn integrate(ctx: &mut SystemContext<'_>) {
    let res = ctx.each_chunk::<(&mut Position, &Velocity)>(|_, (pos, vel)| {
        for (p, v) in pos.iter_mut().zip(vel) {
            p.x = (p.x + v.x * DT).clamp(-HALF_SIZE, HALF_SIZE);
            p.y = (p.y + v.y * DT).clamp(-HALF_SIZE, HALF_SIZE);
        }
    });
    debug_assert!(res.is_ok(), "{res:?}");
}

fn heat(ctx: &mut SystemContext<'_>) {
    let res = ctx.each_chunk::<(&mut Heat, &Velocity)>(|_, (heat, vel)| {
        for (h, v) in heat.iter_mut().zip(vel) {
            h.0 = h.0 * 0.95 + (v.x * v.x + v.y * v.y) * 0.0005;
        }
    });
    debug_assert!(res.is_ok(), "{res:?}");
}

fn glow(ctx: &mut SystemContext<'_>) {
    let res = ctx.each::<(&mut Color, &Heat)>(|_, (color, heat)| {
        let level = (heat.0.min(1.0) * 255.0) as u32;
        color.0 = (level << 16) | ((255 - level) << 8) | 64;
    });
    debug_assert!(res.is_ok(), "{res:?}");
}

fn age(ctx: &mut SystemContext<'_>) {
    let res = ctx.each::<&mut Lifetime>(|_, life| life.0 = life.0.saturating_sub(1));
    debug_assert!(res.is_ok(), "{res:?}");
}

fn cull(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, rng) = ctx.split();

    let res = queries.each::<&Lifetime>(|entity, life| {
        if life.0 == 0 {
            // Replacements get their ids when the commands are applied, in schedule order.
            let despawned = commands.despawn(entity);
            let spawned = commands.spawn(particle(rng));
            debug_assert!(despawned.is_ok() && spawned.is_ok());
        }
    });
    debug_assert!(res.is_ok(), "{res:?}");
}

fn grid(ctx: &mut SystemContext<'_>) {
    let cell_size = 2.0 * HALF_SIZE / GRID as f32;
    let res = ctx.each::<(&mut Cell, &Position)>(|_, (cell, pos)| {
        let col = (((pos.x + HALF_SIZE) / cell_size) as u32).min(GRID - 1);
        let row = (((pos.y + HALF_SIZE) / cell_size) as u32).min(GRID - 1);
        cell.0 = row * GRID + col;
    });
    debug_assert!(res.is_ok(), "{res:?}");
}

fn census(ctx: &mut SystemContext<'_>) {
    let mut occupied = [0u64; (GRID * GRID).div_ceil(64) as usize];
    let mut hot = 0;
    let res = ctx.each::<(&Cell, &Color)>(|_, (cell, color)| {
        occupied[cell.0 as usize / 64] |= 1 << (cell.0 % 64);
        hot += u32::from(color.0 >> 16 >= 192);
    });
    debug_assert!(res.is_ok(), "{res:?}");
    let occupied_cells = occupied.iter().map(|w| w.count_ones()).sum();
    let res = ctx.resource_mut::<Census>().map(|summary| {
        *summary = Census {
            occupied_cells,
            hot,
        }
    });
    debug_assert!(res.is_ok(), "{res:?}");
}
