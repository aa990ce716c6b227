//! The arena: a small top-down shooter written as a bevy user writes one, shared by the
//! `arena` example (`main.rs` beside this file) and `tests/arena.rs`, which includes it.
//!
//! One player kites a horde in a walled square, firing at a random enemy; enemies come in
//! waves from the edges, chase or wander, and hurt the player on contact; the dead drop
//! power-ups. Every type uses the derives, every random draw comes from a system's `Rng`
//! through the `rand` crate, and structural changes go through `Commands`. Ten systems, each
//! the single writer of what it changes:
//!
//! | system | writes | reads | after |
//! |---|---|---|---|
//! | `Move` | `Position` | `Velocity` | |
//! | `Track` | `Focus` (resource) | `Position`, `Team` | `Move` |
//! | `Steer` | `Velocity` | `Position`, `Brain`, `Team`, `Focus` | `Track` |
//! | `Age` | `Lifetime`, despawns the expired | | |
//! | `Collect` | `Power`, despawns taken power-ups | `Position`, `Lifetime` | `Move`, `Age` |
//! | `Shoot` | `Cooldown`, spawns shots | `Position`, `Power`, `Team` | `Collect` |
//! | `Hits` | `Health`, despawns shots that hit | `Position`, `Team`, `Shot`, `Lifetime` | `Move`, `Age` |
//! | `Reap` | `Score` (resource), despawns the dead, drops power-ups | `Health`, `Team`, `Position` | `Hits` |
//! | `Waves` | `Wave` (resource), spawns enemies | `Score` | `Reap` |
//! | `Tally` | `Stats` (resource) | `Team`, `Shot` | `Waves`, `Steer` |
//!
//! Each entity has one despawner per tick: `Age` takes what expired, and `Hits` and `Collect`
//! leave those alone (they read `Lifetime` after `Age`), so no despawn is ever refused as
//! stale.
//!
//! `Move` runs first, on last tick's velocities, so it reads `Velocity` before `Steer`
//! writes it: the scheduler says so with a `read_before_write` warning, and that is the
//! intent.

use std::error::Error;

use laige_sim::prelude::*;
use rand::RngExt;
use rand::seq::{IndexedRandom, SliceRandom};

/// Half the side of the arena, in world units.
pub const HALF: f32 = 60.0;
const DT: f32 = 1.0 / 30.0;
const PLAYER_HEALTH: i32 = 100;

/// Where something is.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
pub struct Position {
    /// Horizontal, in `-HALF..=HALF`.
    pub x: f32,
    /// Vertical, in `-HALF..=HALF`.
    pub y: f32,
}

/// How fast it moves, in units per second.
#[derive(Component, StateHash, Clone, Copy, Debug, Default, PartialEq)]
#[component(hashed)]
pub struct Velocity {
    /// Horizontal.
    pub x: f32,
    /// Vertical.
    pub y: f32,
}

/// Which side a body is on.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub enum Team {
    /// The one the game is about.
    Player,
    /// Everything else that has health.
    Enemy,
}

/// How a body picks its velocity.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed)]
pub enum Brain {
    /// Away from the nearest enemy, with a little jitter.
    Kite {
        /// Units per second.
        speed: f32,
    },
    /// Straight at the player.
    Chase {
        /// Units per second.
        speed: f32,
    },
    /// A random heading, changed now and then.
    Wander {
        /// Units per second.
        speed: f32,
        /// Chance per tick of a new heading.
        turn: f64,
    },
}

/// Hit points; at zero or below the body dies.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Health(pub i32);

/// A projectile and what it does on a hit.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Shot {
    /// Hit points taken from the enemy it hits.
    pub damage: i32,
}

/// Ticks left before it disappears (shots and power-ups).
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Lifetime(pub u32);

/// Ticks until the next volley.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Cooldown(pub u32);

/// Shots per volley; power-ups raise it.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct Power(pub u32);

/// A power-up lying on the floor.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq, Eq)]
#[component(hashed)]
pub struct PowerUp;

/// Where the player is, for the systems that chase it (a resource).
#[derive(StateHash, Clone, Copy, Debug, Default, PartialEq)]
pub struct Focus {
    /// The player's position.
    pub x: f32,
    /// The player's position.
    pub y: f32,
}

/// The wave clock (a resource).
#[derive(StateHash, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wave {
    /// Waves sent so far.
    pub number: u32,
    /// Ticks until the next one.
    pub next_in: u32,
}

/// The score (a resource).
#[derive(StateHash, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Enemies killed.
    pub kills: u32,
    /// Times the player fell (and got up again).
    pub deaths: u32,
}

/// What is alive after the last tick (a resource).
#[derive(StateHash, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Enemies alive.
    pub enemies: u32,
    /// Shots in flight.
    pub shots: u32,
}

/// Builds the arena: types, the player, the ten systems and their schedule.
///
/// # Errors
///
/// Any registration or scheduling failure, boxed.
pub fn build(seed: u64, options: WorldOptions) -> Result<(World, Schedule), Box<dyn Error>> {
    let mut world = World::new(WorldOptions { seed, ..options });
    // Each type's options (all hashed here) come from its `#[component(..)]` attribute.
    world.register_component::<Position>()?;
    world.register_component::<Velocity>()?;
    world.register_component::<Team>()?;
    world.register_component::<Brain>()?;
    world.register_component::<Health>()?;
    world.register_component::<Shot>()?;
    world.register_component::<Lifetime>()?;
    world.register_component::<Cooldown>()?;
    world.register_component::<Power>()?;
    world.register_component::<PowerUp>()?;
    world.insert_hashed_resource(Focus::default())?;
    world.insert_hashed_resource(Wave {
        number: 0,
        next_in: 10,
    })?;
    world.insert_hashed_resource(Score::default())?;
    world.insert_hashed_resource(Stats::default())?;

    world.spawn((
        Position { x: 0.0, y: 0.0 },
        Velocity::default(),
        Team::Player,
        Brain::Kite { speed: 12.0 },
        Health(PLAYER_HEALTH),
        Cooldown(0),
        Power(1),
    ))?;

    // `Move` first, on last tick's velocities (the module docs say why).
    let moves = world.system("Move", movement).register()?;
    let track = world.system("Track", track).after(moves).register()?;
    let steer = world.system("Steer", steer).after(track).register()?;
    let age = world.system("Age", age).register()?;
    let collect = world
        .system("Collect", collect)
        .after(moves)
        .after(age)
        .register()?;
    world.system("Shoot", shoot).after(collect).register()?;
    let hits = world
        .system("Hits", hits)
        .after(moves)
        .after(age)
        .register()?;
    let reap = world.system("Reap", reap).after(hits).register()?;
    let waves = world.system("Waves", waves).after(reap).register()?;
    world
        .system("Tally", tally)
        .after(waves)
        .after(steer)
        .register()?;
    let schedule = world.schedule()?;
    Ok((world, schedule))
}

/// Runs `ticks` ticks and returns the final state hash.
///
/// # Errors
///
/// The first tick that failed for another reason than skipped commands.
pub fn run(world: &mut World, schedule: &Schedule, ticks: u32) -> Result<u64, TickError> {
    for _ in 0..ticks {
        match world.run_systems(schedule) {
            // A shot that hits and expires in the same tick is despawned twice; the second
            // despawn is skipped and reported, and the game goes on.
            Ok(()) | Err(TickError::CommandsSkipped { .. }) => {}
            Err(err) => return Err(err),
        }
    }
    Ok(world.state_hash())
}

fn track(
    mut players: Query<'_, (&Position, &Team)>,
    mut focus: ResMut<'_, Focus>,
) -> Result<(), QueryError> {
    players.each(|(pos, team)| {
        if *team == Team::Player {
            *focus = Focus { x: pos.x, y: pos.y };
        }
    })
}

/// Sends a wave from a shuffled order of the four edges, bigger as the kills mount.
fn waves(
    mut wave: ResMut<'_, Wave>,
    score: Res<'_, Score>,
    mut rng: Rng<'_>,
    mut commands: Commands<'_>,
) {
    if wave.next_in > 0 {
        wave.next_in -= 1;
        return;
    }
    wave.number += 1;
    wave.next_in = rng.random_range(90..=150);
    let mut edges = [0u8, 1, 2, 3];
    edges.shuffle(&mut rng);
    let count = 3 + wave.number.min(12) + score.kills / 20;
    for i in 0..count {
        let along = rng.random_range(-HALF..HALF);
        let (x, y) = match edges[i as usize % 4] {
            0 => (-HALF, along),
            1 => (HALF, along),
            2 => (along, -HALF),
            _ => (along, HALF),
        };
        let brain = *[
            Brain::Chase { speed: 8.0 },
            Brain::Chase { speed: 11.0 },
            Brain::Wander {
                speed: 12.0,
                turn: 0.05,
            },
        ]
        .choose(&mut rng)
        .expect("a non-empty list");
        let health = rng.random_range(2..=4) * 10;
        commands.spawn((
            Position { x, y },
            Velocity::default(),
            Team::Enemy,
            brain,
            Health(health),
        ));
    }
}

/// Each brain picks a velocity: the player away from the nearest enemy, chasers at the
/// player, wanderers in a heading they change at random.
fn steer(
    mut movers: Query<'_, (&Position, &mut Velocity, &Brain)>,
    mut enemies: Query<'_, (&Position, &Team)>,
    focus: Res<'_, Focus>,
    mut rng: Rng<'_>,
) -> Result<(), QueryError> {
    let mut result = Ok(());
    movers.each(|(pos, vel, brain)| match *brain {
        Brain::Kite { speed } => {
            let mut nearest = (f32::INFINITY, 0.0, 0.0);
            result = result.and(enemies.each(|(other, team)| {
                let (dx, dy) = (pos.x - other.x, pos.y - other.y);
                let d2 = dx * dx + dy * dy;
                if *team == Team::Enemy && d2 < nearest.0 {
                    nearest = (d2, dx, dy);
                }
            }));
            let (away_x, away_y) = unit(nearest.1, nearest.2);
            // Drift back to the centre so the player does not pin itself to a wall.
            let (home_x, home_y) = unit(-pos.x, -pos.y);
            let pull = (pos.x.abs().max(pos.y.abs()) / HALF).min(1.0);
            vel.x = (away_x * (1.0 - pull) + home_x * pull + rng.random_range(-0.2..0.2)) * speed;
            vel.y = (away_y * (1.0 - pull) + home_y * pull + rng.random_range(-0.2..0.2)) * speed;
        }
        Brain::Chase { speed } => {
            let (x, y) = unit(focus.x - pos.x, focus.y - pos.y);
            vel.x = x * speed;
            vel.y = y * speed;
        }
        Brain::Wander { speed, turn } => {
            // A new heading now and then, and whenever a wall stops it.
            let at_wall = pos.x.abs() >= HALF || pos.y.abs() >= HALF;
            if rng.random_bool(turn) || at_wall || (vel.x == 0.0 && vel.y == 0.0) {
                let (x, y) = unit(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                vel.x = x * speed;
                vel.y = y * speed;
            }
        }
    })?;
    result
}

fn movement(mut bodies: Query<'_, (&mut Position, &Velocity)>) -> Result<(), QueryError> {
    bodies.each(|(pos, vel)| {
        pos.x = (pos.x + vel.x * DT).clamp(-HALF, HALF);
        pos.y = (pos.y + vel.y * DT).clamp(-HALF, HALF);
    })
}

/// The player fires `Power` shots at one enemy picked at random, with some spread.
fn shoot(
    mut shooters: Query<'_, (&Position, &mut Cooldown, &Power)>,
    mut enemies: Query<'_, (&Position, &Team)>,
    mut targets: Local<'_, Vec<Position>>,
    mut rng: Rng<'_>,
    mut commands: Commands<'_>,
) -> Result<(), QueryError> {
    targets.clear();
    enemies.each(|(pos, team)| {
        if *team == Team::Enemy {
            targets.push(*pos);
        }
    })?;
    shooters.each(|(pos, cooldown, power)| {
        if cooldown.0 > 0 {
            cooldown.0 -= 1;
            return;
        }
        let Some(target) = targets.choose(&mut rng) else {
            return;
        };
        cooldown.0 = 8;
        let (x, y) = unit(target.x - pos.x, target.y - pos.y);
        for _ in 0..power.0 {
            let spread = rng.random_range(-0.15..0.15);
            let shot = (
                *pos,
                Velocity {
                    x: (x - y * spread) * 45.0,
                    y: (y + x * spread) * 45.0,
                },
                Shot { damage: 10 },
                Lifetime(45),
            );
            commands.spawn(shot);
        }
    })?;
    Ok(())
}

fn age(
    mut lives: Query<'_, (Entity, &mut Lifetime)>,
    mut commands: Commands<'_>,
) -> Result<(), QueryError> {
    for (entity, life) in lives.iter_mut()? {
        life.0 = life.0.saturating_sub(1);
        if life.0 == 0 {
            commands.despawn(entity);
        }
    }
    Ok(())
}

/// Shots hurt the first enemy they touch and vanish; enemies hurt the player they touch.
fn hits(
    mut bodies: Query<'_, (&Position, &mut Health, &Team)>,
    shots: Query<'_, (Entity, &Position, &Shot, &Lifetime)>,
    mut live_shots: Local<'_, Vec<(Entity, Position, i32)>>,
    mut enemies: Query<'_, (&Position, &Team)>,
    mut commands: Commands<'_>,
) -> Result<(), BoxError> {
    live_shots.clear();
    // A shot whose life ran out this tick is `Age`'s to despawn, not ours.
    live_shots.extend(
        shots
            .iter()?
            .filter(|(_, _, _, life)| life.0 > 0)
            .map(|(entity, pos, shot, _)| (entity, *pos, shot.damage)),
    );
    let mut result = Ok(());
    bodies.each(|(pos, health, team)| match team {
        Team::Enemy => {
            let hit = live_shots
                .iter()
                .position(|(_, shot, _)| near(shot, pos, 2.0));
            if let Some(index) = hit {
                let (entity, _, damage) = live_shots.swap_remove(index);
                health.0 -= damage;
                commands.despawn(entity);
            }
        }
        Team::Player => {
            result = result.and(enemies.each(|(enemy, team)| {
                if *team == Team::Enemy && near(enemy, pos, 2.0) {
                    health.0 -= 1;
                }
            }));
        }
    })?;
    Ok(result?)
}

/// The dead leave: an enemy scores and may drop a power-up; the player gets up again.
fn reap(
    bodies: Query<'_, (Entity, &Health, &Team, &Position)>,
    mut score: ResMut<'_, Score>,
    mut rng: Rng<'_>,
    mut commands: Commands<'_>,
) -> Result<(), QueryError> {
    for (entity, health, team, pos) in bodies.iter()? {
        if health.0 > 0 {
            continue;
        }
        match team {
            Team::Enemy => {
                score.kills += 1;
                commands.despawn(entity);
                if rng.random_ratio(1, 5) {
                    commands.spawn((*pos, PowerUp, Lifetime(300)));
                }
            }
            Team::Player => {
                score.deaths += 1;
                commands.insert(entity, Health(PLAYER_HEALTH));
            }
        }
    }
    Ok(())
}

/// The player takes the power-ups it touches.
fn collect(
    mut powered: Query<'_, (&Position, &mut Power)>,
    power_ups: Query<'_, (Entity, &Position, &Lifetime), With<PowerUp>>,
    mut commands: Commands<'_>,
) -> Result<(), QueryError> {
    for (pos, power) in powered.iter_mut()? {
        for (entity, item, life) in power_ups.iter()? {
            // One whose life ran out this tick is `Age`'s to despawn.
            if life.0 > 0 && near(item, pos, 2.5) {
                power.0 = (power.0 + 1).min(5);
                commands.despawn(entity);
            }
        }
    }
    Ok(())
}

fn tally(
    teams: Query<'_, &Team>,
    shots: Query<'_, &Shot>,
    mut stats: ResMut<'_, Stats>,
) -> Result<(), QueryError> {
    *stats = Stats {
        enemies: teams.iter()?.filter(|team| **team == Team::Enemy).count() as u32,
        shots: shots.iter()?.count() as u32,
    };
    Ok(())
}

/// The unit vector along `(x, y)`, or zero for a zero vector (`sqrt` is exact in IEEE
/// arithmetic, so this is the same on every peer).
fn unit(x: f32, y: f32) -> (f32, f32) {
    let length = (x * x + y * y).sqrt();
    if length > 0.0 {
        (x / length, y / length)
    } else {
        (0.0, 0.0)
    }
}

fn near(a: &Position, b: &Position, radius: f32) -> bool {
    let (dx, dy) = (a.x - b.x, a.y - b.y);
    dx * dx + dy * dy <= radius * radius
}
