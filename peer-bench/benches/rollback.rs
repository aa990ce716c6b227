//! Rollback (issue 24): a save plus a restore of the `simple_iter` world (10,000 bodies of
//! Transform, Position, Rotation and Velocity) on laige-sim (`World::save_state` /
//! `restore_state` into a warm `WorldState`) beside a bevy_ggrs-style snapshot on bevy_ecs
//! 0.20: every registered component cloned into a map keyed by entity (one map per type,
//! kept between saves as bevy_ggrs keeps its per-type storage), and written back.
//!
//! Run with `cargo bench --bench rollback -- --quick`.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_sim::prelude::*;

#[allow(dead_code, unused_imports)]
#[path = "storage/types.rs"]
mod types;

use types::{Position, Rotation, Transform, Velocity, body};

const N: usize = 10_000;

/// One registered type's snapshot, as bevy_ggrs keeps it: a map from entity to a clone.
struct Snapshot<
    T: bevy_ecs::component::Component<Mutability = bevy_ecs::component::Mutable> + Clone,
> {
    values: HashMap<bevy_ecs::entity::Entity, T>,
    query: bevy_ecs::query::QueryState<(bevy_ecs::entity::Entity, &'static T)>,
    write: bevy_ecs::query::QueryState<(bevy_ecs::entity::Entity, &'static mut T)>,
}

impl<T: bevy_ecs::component::Component<Mutability = bevy_ecs::component::Mutable> + Clone>
    Snapshot<T>
{
    fn new(world: &mut bevy_ecs::world::World) -> Self {
        Self {
            values: HashMap::new(),
            query: world.query(),
            write: world.query(),
        }
    }

    fn save(&mut self, world: &bevy_ecs::world::World) {
        self.values.clear();
        for (entity, value) in self.query.iter(world) {
            self.values.insert(entity, value.clone());
        }
    }

    fn load(&mut self, world: &mut bevy_ecs::world::World) {
        for (entity, mut value) in self.write.iter_mut(world) {
            if let Some(saved) = self.values.get(&entity) {
                *value = saved.clone();
            }
        }
    }
}

fn bevy_ggrs_style(c: &mut Criterion) {
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..N).map(|_| body()));
    let mut transform = Snapshot::<Transform>::new(&mut world);
    let mut position = Snapshot::<Position>::new(&mut world);
    let mut rotation = Snapshot::<Rotation>::new(&mut world);
    let mut velocity = Snapshot::<Velocity>::new(&mut world);
    c.bench_function("rollback/simple_iter/bevy_ecs-ggrs-style", |b| {
        b.iter(|| {
            transform.save(&world);
            position.save(&world);
            rotation.save(&world);
            velocity.save(&world);
            transform.load(&mut world);
            position.load(&mut world);
            rotation.load(&mut world);
            velocity.load(&mut world);
            black_box(&world);
        })
    });
}

fn laige(c: &mut Criterion) {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Transform>::new().saved_copy())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Position>::new().saved_copy())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Rotation>::new().saved_copy())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Velocity>::new().saved_copy())
        .unwrap();
    world.spawn_batch((0..N).map(|_| body())).unwrap();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    c.bench_function("rollback/simple_iter/laige-save+restore", |b| {
        b.iter(|| {
            world.save_state(black_box(&mut state)).unwrap();
            world.restore_state(black_box(&state)).unwrap();
        })
    });
}

criterion_group!(benches, bevy_ggrs_style, laige);
criterion_main!(benches);
