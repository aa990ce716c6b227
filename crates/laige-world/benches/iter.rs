//! Per-entity iteration cost against a plain loop over `Vec`s (ecs_bench_suite
//! `simple_iter`: 10,000 entities, `pos += vel`), plus `add_remove` and the state hash of the
//! `sim_tick` world (10,000 entities, 2,000 with two hashed `(f32, f32)` components).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_world::{
    CommandBuffer, Component, ComponentOptions, Entity, StateHash, StateHasher, SystemContext,
    World, WorldOptions,
};

#[derive(Clone, Copy)]
struct Transform(#[allow(dead_code)] [f32; 16]);
impl Component for Transform {}
#[derive(Clone, Copy)]
struct Position([f32; 3]);
impl Component for Position {}
#[derive(Clone, Copy)]
struct Rotation(#[allow(dead_code)] [f32; 3]);
impl Component for Rotation {}
#[derive(Clone, Copy)]
struct Velocity([f32; 3]);
impl Component for Velocity {}
struct A(#[allow(dead_code)] f32);
impl Component for A {}
struct B(#[allow(dead_code)] f32);
impl Component for B {}

const N: usize = 10_000;

fn identity() -> Transform {
    let mut m = [0.0; 16];
    for i in 0..4 {
        m[i * 5] = 1.0;
    }
    Transform(m)
}

fn simple_world() -> (World, laige_world::SystemId) {
    let mut world = World::new(WorldOptions {
        capacity: N as u32,
        ..WorldOptions::default()
    });
    world.register_component::<Transform>().unwrap();
    world.register_component::<Position>().unwrap();
    world.register_component::<Rotation>().unwrap();
    world.register_component::<Velocity>().unwrap();
    for _ in 0..N {
        world
            .spawn((
                identity(),
                Position([1.0, 0.0, 0.0]),
                Rotation([1.0, 0.0, 0.0]),
                Velocity([1.0, 0.0, 0.0]),
            ))
            .unwrap();
    }
    let id = world
        .system("Move", move_system)
        .budget_ms(1.0)
        .writes::<Position>()
        .reads::<Velocity>()
        .register()
        .unwrap()
        .id();
    (world, id)
}

#[inline(always)]
fn step(p: &mut Position, v: &Velocity) {
    for i in 0..3 {
        p.0[i] += v.0[i];
    }
}

fn move_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Position, &Velocity)>(|_, (p, v)| step(p, v))
        .unwrap();
}

fn simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");
    let mut ps = vec![Position([1.0, 0.0, 0.0]); N];
    let vs = vec![Velocity([1.0, 0.0, 0.0]); N];
    let ts = vec![identity(); N];
    let rs = vec![Rotation([1.0, 0.0, 0.0]); N];
    black_box((&ts, &rs));
    group.bench_function("plain_vec", |b| {
        b.iter(|| {
            for (p, v) in black_box(&mut ps).iter_mut().zip(black_box(&vs)) {
                step(p, v);
            }
        })
    });
    let (mut world, id) = simple_world();
    group.bench_function("world_each", |b| {
        b.iter(|| {
            world
                .each::<(&mut Position, &Velocity)>(|_, (p, v)| step(p, v))
                .unwrap()
        })
    });
    group.bench_function("context_each", |b| {
        b.iter(|| move_system(&mut world.context(id).unwrap()))
    });
    group.bench_function("context_each_chunk", |b| {
        b.iter(|| {
            world
                .context(id)
                .unwrap()
                .each_chunk::<(&mut Position, &Velocity)>(|_, (ps, vs)| {
                    for (p, v) in ps.iter_mut().zip(vs) {
                        step(p, v);
                    }
                })
                .unwrap()
        })
    });
    group.finish();
}

/// 1,000 of the `simple_iter` world's entities in a scrambled order: `pos += vel` on each
/// through a prepared query, against the same steps on plain `Vec`s by index.
fn random_access(c: &mut Criterion) {
    const LOOKUPS: usize = 1_000;
    let mut group = c.benchmark_group("random_access");
    // A fixed permutation-like walk (an odd stride over N), so every lookup is a jump.
    let rows: Vec<usize> = (0..LOOKUPS).map(|i| i * 7_919 % N).collect();
    let mut ps = vec![Position([1.0, 0.0, 0.0]); N];
    let vs = vec![Velocity([1.0, 0.0, 0.0]); N];
    group.bench_function("plain_vec_index", |b| {
        b.iter(|| {
            for &row in black_box(&rows) {
                step(&mut ps[row], &vs[row]);
            }
        })
    });
    let (mut world, id) = simple_world();
    let mut all = Vec::with_capacity(N);
    world.each::<Entity>(|e, _| all.push(e)).unwrap();
    let handles: Vec<Entity> = rows.iter().map(|&row| all[row]).collect();
    group.bench_function("context_prepared_get", |b| {
        b.iter(|| {
            let mut ctx = world.context(id).unwrap();
            let mut moving = ctx.prepare::<(&mut Position, &Velocity)>().unwrap();
            for &e in black_box(&handles) {
                if let Some((p, v)) = moving.get(e) {
                    step(p, v);
                }
            }
        })
    });
    group.finish();
}

fn add_remove(c: &mut Criterion) {
    let mut world = World::new(WorldOptions::default());
    world.register_component::<A>().unwrap();
    world.register_component::<B>().unwrap();
    let es: Vec<Entity> = (0..N).map(|_| world.spawn((A(0.0),)).unwrap()).collect();
    c.bench_function("add_remove/direct", |b| {
        b.iter(|| {
            for &e in &es {
                world.insert(e, B(0.0)).unwrap();
            }
            for &e in &es {
                world.remove::<B>(e).unwrap();
            }
        })
    });
    let mut buffer = CommandBuffer::new();
    c.bench_function("add_remove/commands", |b| {
        b.iter(|| {
            let mut cmds = world.commands(&mut buffer);
            for &e in &es {
                cmds.insert(e, B(0.0));
            }
            world.apply(&mut buffer).unwrap();
            let mut cmds = world.commands(&mut buffer);
            for &e in &es {
                cmds.remove::<B>(e);
            }
            world.apply(&mut buffer).unwrap();
        })
    });
}

#[derive(Clone, Copy)]
struct Pos2(f32, f32);
impl Component for Pos2 {}
#[derive(Clone, Copy)]
struct Vel2(f32, f32);
impl Component for Vel2 {}

impl StateHash for Pos2 {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.0, self.1).hash_state(h);
    }
}

impl StateHash for Vel2 {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.0, self.1).hash_state(h);
    }
}

fn state_hash(c: &mut Criterion) {
    let mut world = World::new(WorldOptions {
        capacity: 10_000,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos2>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Vel2>::new().hashed())
        .unwrap();
    for i in 0..10_000u32 {
        if i % 5 == 0 {
            let cell = i / 5;
            let pos = Pos2((cell % 50) as f32, (cell / 50 % 50) as f32);
            world.spawn((pos, Vel2(0.5, -0.25))).unwrap();
        } else {
            world.spawn(()).unwrap();
        }
    }
    c.bench_function("state_hash/sim_tick_world", |b| {
        b.iter(|| black_box(&world).component_state_hash())
    });
}

criterion_group!(benches, simple_iter, random_access, add_remove, state_hash);
criterion_main!(benches);
