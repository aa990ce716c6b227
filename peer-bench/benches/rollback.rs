//! Rollback (issue 24): a save plus a restore of the `simple_iter` world (10,000 bodies of
//! Transform, Position, Rotation and Velocity) on laige-sim (`World::save_state` /
//! `restore_state` into a warm `WorldState`) beside a bevy_ggrs-style snapshot on bevy_ecs
//! 0.20: every registered component cloned into a map keyed by entity (one map per type,
//! kept between saves as bevy_ggrs keeps its per-type storage), and written back.
//!
//! `serialize_binary` (ecs_bench_suite's, with postcard on both sides): the same world
//! written to bytes and read back into a fresh world, laige-sim (`save_state` +
//! `WorldState::to_binary`, then `from_binary` + `restore_state`) beside hecs 0.11's
//! column serialization (`hecs::serialize::column`); the `write` cases time the bytes alone.
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

/// hecs's column serialization context for the four body types (ecs_bench_suite's).
mod hecs_serde {
    use hecs::serialize::column::{
        DeserializeContext, SerializeContext, deserialize_column, try_serialize, try_serialize_id,
    };
    use hecs::{ColumnBatchBuilder, ColumnBatchType};
    use serde::de::SeqAccess;
    use serde::ser::SerializeTuple;
    use serde::{Deserialize, Serialize};

    use super::{Position, Rotation, Transform, Velocity};

    #[derive(Clone, Copy, Serialize, Deserialize)]
    pub enum Id {
        Transform,
        Position,
        Rotation,
        Velocity,
    }

    pub struct Ser;

    impl SerializeContext for Ser {
        fn component_count(&self, archetype: &hecs::Archetype) -> usize {
            [
                archetype.has::<Transform>(),
                archetype.has::<Position>(),
                archetype.has::<Rotation>(),
                archetype.has::<Velocity>(),
            ]
            .into_iter()
            .filter(|it| *it)
            .count()
        }

        fn serialize_component_ids<S: SerializeTuple>(
            &mut self,
            archetype: &hecs::Archetype,
            mut out: S,
        ) -> Result<S::Ok, S::Error> {
            try_serialize_id::<Transform, _, _>(archetype, &Id::Transform, &mut out)?;
            try_serialize_id::<Position, _, _>(archetype, &Id::Position, &mut out)?;
            try_serialize_id::<Rotation, _, _>(archetype, &Id::Rotation, &mut out)?;
            try_serialize_id::<Velocity, _, _>(archetype, &Id::Velocity, &mut out)?;
            out.end()
        }

        fn serialize_components<S: SerializeTuple>(
            &mut self,
            archetype: &hecs::Archetype,
            mut out: S,
        ) -> Result<S::Ok, S::Error> {
            try_serialize::<Transform, _>(archetype, &mut out)?;
            try_serialize::<Position, _>(archetype, &mut out)?;
            try_serialize::<Rotation, _>(archetype, &mut out)?;
            try_serialize::<Velocity, _>(archetype, &mut out)?;
            out.end()
        }
    }

    #[derive(Default)]
    pub struct De(Vec<Id>);

    impl DeserializeContext for De {
        fn deserialize_component_ids<'de, A: SeqAccess<'de>>(
            &mut self,
            mut seq: A,
        ) -> Result<ColumnBatchType, A::Error> {
            self.0.clear();
            let mut batch = ColumnBatchType::new();
            while let Some(id) = seq.next_element()? {
                match id {
                    Id::Transform => batch.add::<Transform>(),
                    Id::Position => batch.add::<Position>(),
                    Id::Rotation => batch.add::<Rotation>(),
                    Id::Velocity => batch.add::<Velocity>(),
                };
                self.0.push(id);
            }
            Ok(batch)
        }

        fn deserialize_components<'de, A: SeqAccess<'de>>(
            &mut self,
            count: u32,
            mut seq: A,
            batch: &mut ColumnBatchBuilder,
        ) -> Result<(), A::Error> {
            for id in &self.0 {
                match id {
                    Id::Transform => deserialize_column::<Transform, _>(count, &mut seq, batch)?,
                    Id::Position => deserialize_column::<Position, _>(count, &mut seq, batch)?,
                    Id::Rotation => deserialize_column::<Rotation, _>(count, &mut seq, batch)?,
                    Id::Velocity => deserialize_column::<Velocity, _>(count, &mut seq, batch)?,
                }
            }
            Ok(())
        }
    }

    /// The world as postcard bytes.
    pub fn write(world: &hecs::World) -> Vec<u8> {
        let mut ser = postcard::Serializer {
            output: postcard::ser_flavors::AllocVec::new(),
        };
        hecs::serialize::column::serialize(world, &mut Ser, &mut ser).unwrap();
        postcard::ser_flavors::Flavor::finalize(ser.output).unwrap()
    }

    /// A world read back from `bytes`.
    pub fn read(bytes: &[u8]) -> hecs::World {
        let mut de = postcard::Deserializer::from_bytes(bytes);
        hecs::serialize::column::deserialize(&mut De::default(), &mut de).unwrap()
    }
}

/// A laige-sim world of the four body types, registered for save files.
fn laige_serde_world() -> World {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Transform>::new().saved_copy().serde())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Position>::new().saved_copy().serde())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Rotation>::new().saved_copy().serde())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Velocity>::new().saved_copy().serde())
        .unwrap();
    world
}

fn serialize_binary(c: &mut Criterion) {
    let mut world = hecs::World::new();
    world.spawn_batch((0..N).map(|_| body()));
    let bytes = hecs_serde::write(&world);
    assert_eq!(hecs_serde::read(&bytes).len() as usize, N);
    eprintln!("serialize_binary: hecs file {} bytes", bytes.len());
    c.bench_function("serialize_binary/simple_iter/hecs-write", |b| {
        b.iter(|| black_box(hecs_serde::write(&world)))
    });
    c.bench_function("serialize_binary/simple_iter/hecs-write+read", |b| {
        b.iter(|| black_box(hecs_serde::read(&hecs_serde::write(&world))))
    });

    let mut laige = laige_serde_world();
    laige.spawn_batch((0..N).map(|_| body())).unwrap();
    let mut state = WorldState::new();
    laige.save_state(&mut state).unwrap();
    let file = state.to_binary(&laige).unwrap();
    let mut fresh = laige_serde_world();
    let mut loaded = WorldState::new();
    loaded.from_binary(&fresh, &file).unwrap();
    fresh.restore_state(&loaded).unwrap();
    assert_eq!(fresh.len(), N);
    assert_eq!(fresh.state_hash(), laige.state_hash());
    eprintln!("serialize_binary: laige file {} bytes", file.len());
    let mut out = Vec::new();
    // The host is shared and its load moves between benches: the two writes also run in
    // alternation, one each per round, so both medians see the same load.
    let (mut hecs_ns, mut laige_ns, mut save_ns) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..400 {
        let at = std::time::Instant::now();
        black_box(hecs_serde::write(&world));
        hecs_ns.push(at.elapsed().as_nanos());
        let at = std::time::Instant::now();
        laige.save_state(&mut state).unwrap();
        let saved = at.elapsed().as_nanos();
        out.clear();
        state.write_binary(&laige, black_box(&mut out)).unwrap();
        laige_ns.push(at.elapsed().as_nanos());
        save_ns.push(saved);
    }
    save_ns.sort_unstable();
    hecs_ns.sort_unstable();
    laige_ns.sort_unstable();
    let (hecs_median, laige_median) = (hecs_ns[200], laige_ns[200]);
    eprintln!(
        "serialize_binary alternating, 400 rounds: hecs-write median {} us, laige-write \
         (save_state + write_binary) median {} us, ratio {:.2}; of it save_state median {} us",
        hecs_median / 1000,
        laige_median / 1000,
        laige_median as f64 / hecs_median as f64,
        save_ns[200] / 1000
    );
    c.bench_function("serialize_binary/simple_iter/laige-write", |b| {
        b.iter(|| {
            laige.save_state(&mut state).unwrap();
            out.clear();
            state.write_binary(&laige, black_box(&mut out)).unwrap();
        })
    });
    c.bench_function("serialize_binary/simple_iter/laige-write+read", |b| {
        b.iter(|| {
            laige.save_state(&mut state).unwrap();
            out.clear();
            state.write_binary(&laige, &mut out).unwrap();
            let mut fresh = laige_serde_world();
            let mut loaded = WorldState::new();
            loaded.from_binary(&fresh, black_box(&out)).unwrap();
            fresh.restore_state(&loaded).unwrap();
            black_box(fresh)
        })
    });
}

criterion_group!(benches, bevy_ggrs_style, laige, serialize_binary);
criterion_main!(benches);
