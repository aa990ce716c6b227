//! The narrow-DAG workload (issue 23): a 60-system game whose critical path is about 95% of
//! its work, so a second thread can gain little and must cost nothing.
//!
//! | track | systems |
//! |---|---|
//! | `Main` | the chain `steer` → `integrate` (heavy) → `bin_cells` → `collide` (heavy) → `apply_deaths`, with 52 light systems hanging off it: 10 roots, 12 readers of `Velocity`, 12 of `Position`, 10 of `Cell`, 8 of `Hits` |
//! | `Late` | the chain `pathfind` (heavy) → `follow_paths` → `record_paths` |
//!
//! A heavy system costs about `HEAVY_ROUNDS` mixing rounds per unit over `UNITS` units, a
//! light one `LIGHT_ROUNDS` rounds on its own resource (about 0.3 µs): the work off the
//! critical path is the 52 light systems. Everything is integer arithmetic, so every mode
//! and thread count reaches the same state hash (`tests/narrow_dag.rs`).
#![allow(dead_code)]

use laige_sim::prelude::*;

/// Units at full size.
pub const UNITS: u32 = 2_048;
/// Mixing rounds per unit of a heavy system.
pub const HEAVY_ROUNDS: u32 = 32;
/// Mixing rounds of a light system.
pub const LIGHT_ROUNDS: u32 = 96;
/// How many light systems hang off the chain.
pub const LIGHTS: usize = 52;

/// One step of a 64-bit mix: a multiply, a rotate and an add, dependent on the last.
#[inline]
fn mix(x: u64, salt: u64) -> u64 {
    (x ^ salt)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        ^ (x >> 7)
}

/// `rounds` dependent mixing steps.
#[inline]
fn churn(mut x: u64, salt: u64, rounds: u32) -> u64 {
    for _ in 0..rounds {
        x = mix(x, salt);
    }
    std::hint::black_box(x)
}

macro_rules! hashed_u64 {
    ($($(#[$doc:meta])* $t:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $t(pub u64);
        impl Component for $t {}
        impl StateHash for $t {
            fn hash_state(&self, h: &mut StateHasher) {
                self.0.hash_state(h);
            }
        }
    )*};
}

hashed_u64! {
    /// A unit's velocity (one word of state).
    Velocity;
    /// A unit's position.
    Position;
    /// The grid cell a unit is in.
    Cell;
    /// The hits a unit took this tick.
    Hits;
    /// A unit's health.
    Health;
    /// A unit's path (track `Late`).
    Path;
    /// A unit's side; never written.
    Team;
}

/// The resource light system `N` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally<const N: usize>(pub u64);

impl<const N: usize> StateHash for Tally<N> {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// The counter `record_paths` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recorded(pub u64);

impl StateHash for Recorded {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

fn steer(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Velocity>(|v| v.0 = mix(v.0, 1)).unwrap();
}

fn integrate(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Position, &Velocity)>(|(p, v)| p.0 = churn(p.0, v.0, HEAVY_ROUNDS))
        .unwrap();
}

fn bin_cells(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Cell, &Position)>(|(c, p)| c.0 = p.0 >> 54)
        .unwrap();
}

fn collide(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Hits, &Cell)>(|(h, c)| h.0 = churn(h.0, c.0, HEAVY_ROUNDS) & 3)
        .unwrap();
}

fn apply_deaths(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Health, &Hits)>(|(health, hits)| {
        health.0 = if health.0 <= hits.0 {
            100
        } else {
            health.0 - hits.0
        };
    })
    .unwrap();
}

fn pathfind(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Path, &Position)>(|(path, p)| path.0 = churn(path.0, p.0, HEAVY_ROUNDS))
        .unwrap();
}

fn follow_paths(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Velocity, &Path)>(|(v, path)| v.0 ^= path.0 & 0xFF)
        .unwrap();
}

fn record_paths(ctx: &mut SystemContext<'_>) {
    let mut sum = 0u64;
    ctx.each::<&Velocity>(|v| sum = sum.wrapping_add(v.0))
        .unwrap();
    let recorded = ctx.resource_mut::<Recorded>().unwrap();
    recorded.0 = recorded.0.wrapping_add(sum);
}

fn light<const N: usize>(ctx: &mut SystemContext<'_>) {
    let tally = ctx.resource_mut::<Tally<N>>().unwrap();
    tally.0 = churn(tally.0, N as u64, LIGHT_ROUNDS);
}

/// Which chain component light system `n` reads (so where it hangs off the chain).
fn anchor(n: usize) -> usize {
    match n {
        0..10 => 0,
        10..22 => 1,
        22..34 => 2,
        34..44 => 3,
        _ => 4,
    }
}

macro_rules! lights {
    ($world:ident, $($n:literal)*) => {{
        let mut runs: Vec<(usize, SystemFn)> = Vec::new();
        $(
            $world.insert_hashed_resource(Tally::<$n>($n))?;
            runs.push(($n, light::<$n> as SystemFn));
        )*
        runs
    }};
}

fn register_light(
    world: &mut World,
    n: usize,
    run: SystemFn,
) -> Result<(), Box<dyn std::error::Error>> {
    let name: &'static str = Box::leak(format!("light_{n:02}").into_boxed_str());
    let builder = world.system(name, run).budget_ms(1.0).in_dag("sim");
    let builder = match anchor(n) {
        0 => builder.reads::<Team>(),
        1 => builder.reads::<Velocity>().after("steer"),
        2 => builder.reads::<Position>().after("integrate"),
        3 => builder.reads::<Cell>().after("bin_cells"),
        _ => builder.reads::<Hits>().after("collide"),
    };
    let builder = write_tally(builder, n);
    builder.register()?;
    Ok(())
}

macro_rules! write_tally {
    ($($n:literal)*) => {
        /// Declares light system `n`'s write of its own `Tally<n>`.
        fn write_tally(builder: laige_sim::world::SystemBuilder<'_>, n: usize) -> laige_sim::world::SystemBuilder<'_> {
            match n {
                $($n => builder.writes::<Tally<$n>>(),)*
                _ => unreachable!("there are {LIGHTS} light systems"),
            }
        }
    };
}

write_tally!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51);

/// A system of the `Main` chain.
fn chain<'w>(
    world: &'w mut World,
    name: &'static str,
    run: SystemFn,
) -> laige_sim::world::SystemBuilder<'w> {
    world.system(name, run).budget_ms(2.0).in_dag("sim")
}

/// A system of the `Late` chain.
fn late<'w>(
    world: &'w mut World,
    name: &'static str,
    run: SystemFn,
) -> laige_sim::world::SystemBuilder<'w> {
    world.system(name, run).budget_ms(2.0).in_dag("late")
}

/// Builds the narrow-DAG world of `units` units and its schedule.
///
/// # Errors
///
/// Any registration or scheduling failure, boxed.
pub fn build(units: u32) -> Result<(World, Schedule), Box<dyn std::error::Error>> {
    let mut world = World::new(WorldOptions {
        seed: 0x4E41_5252_4F57,
        capacity: units,
        ..WorldOptions::default()
    });
    world.register_component_with(ComponentOptions::<Velocity>::new().hashed())?;
    world.register_component_with(ComponentOptions::<Position>::new().hashed())?;
    world.register_component_with(ComponentOptions::<Cell>::new().hashed())?;
    world.register_component_with(ComponentOptions::<Hits>::new().hashed())?;
    world.register_component_with(ComponentOptions::<Health>::new().hashed())?;
    world.register_component_with(ComponentOptions::<Path>::new().hashed())?;
    world.register_component_with(ComponentOptions::<Team>::new().hashed())?;
    world.insert_hashed_resource(Recorded(0))?;
    for i in 0..u64::from(units) {
        world.spawn((
            Velocity(mix(i, 7)),
            Position(mix(i, 11)),
            Cell(0),
            Hits(0),
            Health(100),
            Path(i),
            Team(i % 2),
        ))?;
    }
    world.set_layout(Layout::new().dag("Main", "sim", &["all"], "all").dag(
        "Late",
        "late",
        &["all"],
        "all",
    ));
    let lights = lights!(world, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51);
    let mut lights = lights.into_iter().peekable();
    // Registration order is the sequential order: each anchor's readers follow its writer.
    let mut lights_of =
        |world: &mut World, anchor_of: usize| -> Result<(), Box<dyn std::error::Error>> {
            while let Some(&(n, run)) = lights.peek() {
                if anchor(n) != anchor_of {
                    break;
                }
                register_light(world, n, run)?;
                lights.next();
            }
            Ok(())
        };
    lights_of(&mut world, 0)?;
    chain(&mut world, "steer", steer)
        .writes::<Velocity>()
        .register()?;
    lights_of(&mut world, 1)?;
    chain(&mut world, "integrate", integrate)
        .writes::<Position>()
        .reads::<Velocity>()
        .after("steer")
        .register()?;
    lights_of(&mut world, 2)?;
    chain(&mut world, "bin_cells", bin_cells)
        .writes::<Cell>()
        .reads::<Position>()
        .after("integrate")
        .register()?;
    lights_of(&mut world, 3)?;
    chain(&mut world, "collide", collide)
        .writes::<Hits>()
        .reads::<Cell>()
        .after("bin_cells")
        .register()?;
    lights_of(&mut world, 4)?;
    chain(&mut world, "apply_deaths", apply_deaths)
        .writes::<Health>()
        .reads::<Hits>()
        .after("collide")
        .register()?;
    late(&mut world, "pathfind", pathfind)
        .writes::<Path>()
        .reads::<Position>()
        .register()?;
    late(&mut world, "follow_paths", follow_paths)
        .writes::<Velocity>()
        .reads::<Path>()
        .after("pathfind")
        .register()?;
    late(&mut world, "record_paths", record_paths)
        .writes::<Recorded>()
        .reads::<Velocity>()
        .after("follow_paths")
        .register()?;
    let schedule = world.schedule()?;
    Ok((world, schedule))
}
