//! The `game_tick` data: 14 component types, 2 resources, the 8 archetypes' bundles, and
//! the per-entity kernels every system body calls.
//!
//! The kernels are plain functions of component values, so the peer benches
//! (`peer-bench/`) include this file and run the same arithmetic through specs, shipyard
//! and bevy_ecs; only the iteration differs.

use laige_sim::prelude::*;

/// Half the side of the square arena, in world units.
pub const HALF: f32 = 500.0;
/// The tick length in seconds.
pub const DT: f32 = 1.0 / 60.0;
/// Side of a grid cell, in world units.
pub const CELL: f32 = 16.0;
/// Cells per side of the arena.
pub const CELLS: u32 = (2.0 * HALF / CELL) as u32;
/// A projectile's or a particle's life, in ticks.
pub const SHOT_LIFE: u32 = 40;
/// A pickup's life, in ticks.
pub const PICKUP_LIFE: u32 = 100;
/// A fresh unit's health.
pub const FULL_HEALTH: f32 = 100.0;
/// Mean cooldown between two shots of a unit, in ticks: units / `MEAN_COOLDOWN` shots per
/// tick, each living `SHOT_LIFE` ticks, keep `units * SHOT_LIFE / MEAN_COOLDOWN` in flight.
pub const MEAN_COOLDOWN: u32 = 60;

/// Position and heading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Horizontal position.
    pub x: f32,
    /// Vertical position.
    pub y: f32,
    /// Heading, in radians-ish units (only ever compared, never fed to trigonometry).
    pub angle: f32,
}
impl Component for Transform {}

/// Units per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    /// Horizontal.
    pub x: f32,
    /// Vertical.
    pub y: f32,
}
impl Component for Velocity {}

/// Hit points; at or below zero the unit is replaced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Health(pub f32);
impl Component for Health {}

/// Side, 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Team(pub u32);
impl Component for Team {}

/// Where a unit is heading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// Horizontal.
    pub x: f32,
    /// Vertical.
    pub y: f32,
}
impl Component for Target {}

/// Ticks until the next shot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cooldown(pub f32);
impl Component for Cooldown {}

/// Behaviour state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ai {
    /// 0 advance, 1 hold, 2 flank, 3 retreat.
    pub mode: u32,
    /// Ticks in this mode.
    pub timer: u32,
}
impl Component for Ai {}

/// What is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sprite {
    /// Animation frame, 0..8.
    pub frame: u32,
    /// Colour, 0xRRGGBB.
    pub tint: u32,
    /// Inside the camera last tick.
    pub visible: bool,
}
impl Component for Sprite {}

/// Ticks left to live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime(pub u32);
impl Component for Lifetime {}

/// Collision radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collider(pub f32);
impl Component for Collider {}

/// Grid cell, row-major over `CELLS` × `CELLS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell(pub u32);
impl Component for Cell {}

/// Damage dealt on hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Damage(pub f32);
impl Component for Damage {}

/// A temporary boost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Buff {
    /// Multiplier, 1.0 when spent.
    pub mult: f32,
    /// Ticks left.
    pub ticks: u32,
}
impl Component for Buff {}

/// A label: kind in the low byte, a counter above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag(pub u32);
impl Component for Tag {}

/// A resource: the running score.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Units that reached zero health.
    pub kills: u32,
    /// Units below a quarter of their health.
    pub wounded: u32,
    /// Occupied grid cells (of those holding a `Cell`).
    pub occupied: u32,
    /// The fastest moving entity's speed.
    pub top_speed: f32,
    /// A decaying activity measure.
    pub heat: f32,
    /// Ticks committed.
    pub ticks: u32,
}

/// A resource: the game clock.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    /// Ticks since the start.
    pub tick: u32,
    /// Seconds since the start.
    pub time: f32,
}

macro_rules! hash_fields {
    ($($t:ty => $($f:tt),+;)*) => {$(
        impl StateHash for $t {
            fn hash_state(&self, h: &mut StateHasher) {
                $( self.$f.hash_state(h); )+
            }
        }
    )*};
}
hash_fields! {
    Transform => x, y, angle;
    Velocity => x, y;
    Health => 0;
    Team => 0;
    Target => x, y;
    Cooldown => 0;
    Ai => mode, timer;
    Sprite => frame, tint, visible;
    Lifetime => 0;
    Collider => 0;
    Cell => 0;
    Damage => 0;
    Buff => mult, ticks;
    Tag => 0;
    Score => kills, wounded, occupied, top_speed, heat, ticks;
    Clock => tick, time;
}

/// A point of the arena from 32 random bits: deterministic spawn places.
pub fn spot(bits: u64) -> Transform {
    let x = (bits & 0xFFFF) as f32 / 65_536.0;
    let y = ((bits >> 16) & 0xFFFF) as f32 / 65_536.0;
    Transform {
        x: (x * 2.0 - 1.0) * HALF * 0.95,
        y: (y * 2.0 - 1.0) * HALF * 0.95,
        angle: 0.0,
    }
}

/// A bit mixer for places and hazards that must not draw from any PRNG.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The cell a point is in.
pub fn cell_of(t: &Transform) -> Cell {
    let col = (((t.x + HALF) / CELL) as u32).min(CELLS - 1);
    let row = (((t.y + HALF) / CELL) as u32).min(CELLS - 1);
    Cell(row * CELLS + col)
}

/// Soldier: Transform, Velocity, Health, Team, Target, Cooldown, Ai, Collider.
pub type SoldierBundle = (
    Transform,
    Velocity,
    Health,
    Team,
    Target,
    Cooldown,
    Ai,
    Collider,
);
/// Hero: Transform, Velocity, Health, Team, Target, Cooldown, Buff, Sprite.
pub type HeroBundle = (
    Transform,
    Velocity,
    Health,
    Team,
    Target,
    Cooldown,
    Buff,
    Sprite,
);
/// Projectile: Transform, Velocity, Damage, Lifetime, Team, Sprite, Collider, Cell.
pub type ProjectileBundle = (
    Transform,
    Velocity,
    Damage,
    Lifetime,
    Team,
    Sprite,
    Collider,
    Cell,
);
/// Particle: Transform, Velocity, Sprite, Lifetime.
pub type ParticleBundle = (Transform, Velocity, Sprite, Lifetime);
/// Prop: Transform, Collider, Cell, Health, Tag.
pub type PropBundle = (Transform, Collider, Cell, Health, Tag);
/// Decoration: Transform, Sprite, Tag.
pub type DecorationBundle = (Transform, Sprite, Tag);
/// Pickup: Transform, Buff, Lifetime, Tag, Collider, Cell.
pub type PickupBundle = (Transform, Buff, Lifetime, Tag, Collider, Cell);
/// Waypoint: Transform, Tag, Ai.
pub type WaypointBundle = (Transform, Tag, Ai);

const SPRITE: Sprite = Sprite {
    frame: 0,
    tint: 0x80_80_80,
    visible: true,
};

/// A fresh soldier at `at`.
pub fn soldier(at: Transform, team: u32, cooldown: f32) -> SoldierBundle {
    (
        at,
        Velocity { x: 0.0, y: 0.0 },
        Health(FULL_HEALTH),
        Team(team),
        Target { x: at.x, y: at.y },
        Cooldown(cooldown),
        Ai { mode: 0, timer: 0 },
        Collider(2.0),
    )
}

/// A fresh hero at `at`.
pub fn hero(at: Transform, team: u32, cooldown: f32) -> HeroBundle {
    (
        at,
        Velocity { x: 0.0, y: 0.0 },
        Health(FULL_HEALTH),
        Team(team),
        Target { x: at.x, y: at.y },
        Cooldown(cooldown),
        Buff {
            mult: 1.5,
            ticks: 200,
        },
        SPRITE,
    )
}

/// A projectile fired from `from` towards `to`, living `life` ticks.
pub fn projectile(from: Transform, to: Target, team: u32, life: u32) -> ProjectileBundle {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let inv = 1.0 / (dx * dx + dy * dy + 1.0).sqrt();
    (
        from,
        Velocity {
            x: dx * inv * 300.0,
            y: dy * inv * 300.0,
        },
        Damage(10.0),
        Lifetime(life),
        Team(team),
        SPRITE,
        Collider(0.5),
        cell_of(&from),
    )
}

/// A particle at `at` drifting by `kick` (two numbers in 0..1), living `life` ticks.
pub fn particle(at: Transform, kick: (f32, f32), life: u32) -> ParticleBundle {
    (
        at,
        Velocity {
            x: (kick.0 - 0.5) * 40.0,
            y: (kick.1 - 0.5) * 40.0,
        },
        SPRITE,
        Lifetime(life),
    )
}

/// A prop at `at`.
pub fn prop(at: Transform) -> PropBundle {
    (at, Collider(4.0), cell_of(&at), Health(FULL_HEALTH), Tag(1))
}

/// A decoration at `at`.
pub fn decoration(at: Transform) -> DecorationBundle {
    (at, SPRITE, Tag(2))
}

/// A pickup at `at`, living `life` ticks.
pub fn pickup(at: Transform, life: u32) -> PickupBundle {
    (
        at,
        Buff {
            mult: 2.0,
            ticks: life,
        },
        Lifetime(life),
        Tag(3),
        Collider(1.0),
        cell_of(&at),
    )
}

/// A waypoint at `at`.
pub fn waypoint(at: Transform) -> WaypointBundle {
    (at, Tag(4), Ai { mode: 0, timer: 0 })
}

/// Heavy: moves `t` by `v` in four sub-steps, each with a speed normalisation and a pull
/// towards the centre (8 square roots).
#[inline]
pub fn integrate(t: &mut Transform, v: &Velocity) {
    let speed2 = v.x * v.x + v.y * v.y;
    let (mut x, mut y) = (t.x, t.y);
    for k in 0..4 {
        let s = (speed2 + k as f32 + 1.0).sqrt();
        let step = 0.25 * DT * speed2.sqrt().min(s) / s;
        x += v.x * step;
        y += v.y * step;
        let r = (x * x + y * y + 1.0).sqrt();
        x -= x / r * 0.001;
        y -= y / r * 0.001;
    }
    t.angle = t.angle * 0.9 + (v.y - v.x) * 0.001;
    t.x = x;
    t.y = y;
}

/// The eight anchors around a point that the neighbour check tests, as offsets.
const PROBES: [(f32, f32); 8] = [
    (CELL, 0.0),
    (-CELL, 0.0),
    (0.0, CELL),
    (0.0, -CELL),
    (CELL, CELL),
    (-CELL, CELL),
    (CELL, -CELL),
    (-CELL, -CELL),
];

/// Heavy: pushes `v` away from the eight grid anchors nearest `t` (8 square roots).
#[inline]
pub fn neighbour_push(v: &mut Velocity, t: &Transform) {
    let cx = (t.x / CELL).round() * CELL;
    let cy = (t.y / CELL).round() * CELL;
    let (mut px, mut py) = (0.0, 0.0);
    for (ox, oy) in PROBES {
        let dx = t.x - (cx + ox);
        let dy = t.y - (cy + oy);
        let d = (dx * dx + dy * dy + 0.25).sqrt();
        let f = (CELL - d).max(0.0) / (d * CELL);
        px += dx * f;
        py += dy * f;
    }
    v.x += px * 0.05;
    v.y += py * 0.05;
}

/// Medium: a unit's target from its mode, team and position.
#[inline]
pub fn choose_target(target: &mut Target, t: &Transform, team: &Team, ai: &Ai) {
    let side = if team.0 == 0 { 1.0 } else { -1.0 };
    let (x, y) = match ai.mode {
        0 => (side * HALF * 0.8, t.y * 0.5),
        1 => (t.x, t.y),
        2 => (t.x + side * 50.0, -t.y),
        _ => (-side * HALF * 0.8, t.y),
    };
    target.x = target.x * 0.8 + x * 0.2;
    target.y = target.y * 0.8 + y * 0.2;
}

/// Medium: turns `v` towards the target at a capped speed.
#[inline]
pub fn steer(v: &mut Velocity, t: &Transform, target: &Target) {
    let (dx, dy) = (target.x - t.x, target.y - t.y);
    let len = (dx * dx + dy * dy + 1.0).sqrt();
    let want = (dx / len * 25.0, dy / len * 25.0);
    v.x += (want.0 - v.x) * 0.1;
    v.y += (want.1 - v.y) * 0.1;
}

/// Medium: bounces off the arena's walls and caps the speed.
#[inline]
pub fn clamp_bounds(t: &mut Transform, v: &mut Velocity) {
    if t.x.abs() > HALF {
        t.x = t.x.clamp(-HALF, HALF);
        v.x = -v.x;
    }
    if t.y.abs() > HALF {
        t.y = t.y.clamp(-HALF, HALF);
        v.y = -v.y;
    }
    let cap = 400.0;
    v.x = v.x.clamp(-cap, cap);
    v.y = v.y.clamp(-cap, cap);
}

/// Medium: the hazard of the ground under `t`: a few hot cells hurt.
#[inline]
pub fn hazard(t: &Transform, tick: u32) -> f32 {
    let c = cell_of(t).0;
    if mix(u64::from(c) ^ u64::from(tick / 256)).is_multiple_of(16) {
        3.0
    } else {
        0.0
    }
}

/// Medium: a sprite's frame advances.
#[inline]
pub fn animate(s: &mut Sprite) {
    s.frame = (s.frame + 1) % 8;
}

/// Medium: a hero's sprite reddens with last tick's health.
#[inline]
pub fn tint_by_health(s: &mut Sprite, health: Option<&Health>) {
    let h = health.map_or(FULL_HEALTH, |h| h.0).clamp(0.0, FULL_HEALTH);
    let red = ((1.0 - h / FULL_HEALTH) * 255.0) as u32;
    s.tint = (red << 16) | (s.tint & 0xFFFF);
}

/// Whether `t` is inside the camera at the centre of the arena.
#[inline]
pub fn in_camera(t: &Transform) -> bool {
    t.x.abs() < HALF * 0.5 && t.y.abs() < HALF * 0.5
}
