//! The workloads' component types, each usable by every crate, and the laige-sim world
//! they start from.

use laige_sim::prelude::*;

// The body types derive serde for `serialize_binary` (benches/rollback.rs).
/// A 4x4 f32 matrix, column-major.
#[derive(
    Clone, Copy, Debug, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize,
)]
pub struct Transform(pub [f32; 16]);
#[derive(
    Clone, Copy, Debug, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize,
)]
pub struct Position(pub [f32; 3]);
#[derive(
    Clone, Copy, Debug, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize,
)]
pub struct Rotation(pub [f32; 3]);
#[derive(
    Clone, Copy, Debug, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize,
)]
pub struct Velocity(pub [f32; 3]);
/// `add_remove`'s components.
#[derive(Clone, Copy, Debug, bevy_ecs::component::Component)]
pub struct A(pub f32);
#[derive(Clone, Copy, Debug, bevy_ecs::component::Component)]
pub struct B(pub f32);
/// `add_remove`'s `B` for laige-sim registered sparse (`ComponentOptions::sparse`).
#[derive(Clone, Copy, Debug, bevy_ecs::component::Component)]
pub struct SparseB(pub f32);

macro_rules! peer_components {
    ($($t:ty),*) => {$(
        impl Component for $t {}
        impl shipyard::Component for $t {
            type Tracking = shipyard::track::Untracked;
        }
        impl specs::Component for $t {
            type Storage = specs::VecStorage<Self>;
        }
    )*};
}
pub(crate) use peer_components;

peer_components!(Transform, Position, Rotation, Velocity, A, B, SparseB);

pub const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];
pub const UNIT_X: [f32; 3] = [1.0, 0.0, 0.0];

/// The entity of `simple_insert` and `simple_iter`.
pub fn body() -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(IDENTITY),
        Position(UNIT_X),
        Rotation(UNIT_X),
        Velocity(UNIT_X),
    )
}

pub fn add(p: &mut Position, v: &Velocity) {
    for (p, v) in p.0.iter_mut().zip(v.0) {
        *p += v;
    }
}

/// A laige-sim world with timing off (as in `peers`) and the four body components.
pub fn laige_world() -> World {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<Transform>().unwrap();
    world.register_component::<Position>().unwrap();
    world.register_component::<Rotation>().unwrap();
    world.register_component::<Velocity>().unwrap();
    world
}

/// `world` scheduled, on the sequential runner, after `build` registered its systems.
pub fn scheduled(mut world: World, build: impl FnOnce(&mut World)) -> (World, Schedule) {
    build(&mut world);
    let schedule = world.schedule().unwrap();
    (world, schedule)
}
