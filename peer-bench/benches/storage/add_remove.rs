//! `add_remove`: 10,000 entities with `A`; timed: adding `B` to every one, then removing
//! it (so every iteration starts from the same world).

use std::hint::black_box;

use criterion::Criterion;
use laige_sim::prelude::*;
use shipyard::{AddComponent, Remove, ViewMut};
use specs::{Builder, WorldExt};

use crate::insert::N;
use crate::types::*;

fn add_b(ctx: &mut SystemContext<'_>) {
    ctx.each_with_commands::<(Entity, &A)>(|(e, _), commands| {
        commands.insert(e, B(0.0));
    })
    .unwrap();
}

fn add_sparse_b(ctx: &mut SystemContext<'_>) {
    ctx.each_with_commands::<(Entity, &A)>(|(e, _), commands| {
        commands.insert(e, SparseB(0.0));
    })
    .unwrap();
}

fn remove_sparse_b(ctx: &mut SystemContext<'_>) {
    ctx.each_with_commands::<(Entity, &A)>(|(e, _), commands| {
        commands.remove::<SparseB>(e);
    })
    .unwrap();
}

fn remove_b(ctx: &mut SystemContext<'_>) {
    ctx.each_with_commands::<(Entity, &A)>(|(e, _), commands| {
        commands.remove::<B>(e);
    })
    .unwrap();
}

pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");
    group.sample_size(30);
    {
        let mut world = hecs::World::new();
        let entities: Vec<_> = world.spawn_batch((0..N).map(|_| (A(0.0),))).collect();
        group.bench_function("hecs", |b| {
            b.iter(|| {
                for &e in &entities {
                    world.insert_one(e, B(0.0)).unwrap();
                }
                for &e in &entities {
                    world.remove_one::<B>(e).unwrap();
                }
            })
        });
    }
    {
        let mut world = bevy_ecs::world::World::new();
        let entities: Vec<_> = world.spawn_batch((0..N).map(|_| A(0.0))).collect();
        group.bench_function("bevy_ecs", |b| {
            b.iter(|| {
                for &e in &entities {
                    world.entity_mut(e).insert(B(0.0));
                }
                for &e in &entities {
                    world.entity_mut(e).remove::<B>();
                }
            })
        });
    }
    {
        let mut world = shipyard::World::new();
        let entities: Vec<_> = world.bulk_add_entity((0..N).map(|_| (A(0.0),))).collect();
        group.bench_function("shipyard", |b| {
            b.iter(|| {
                world.run(|mut bs: ViewMut<B>| {
                    for &e in &entities {
                        bs.add_component_unchecked(e, B(0.0));
                    }
                });
                world.run(|mut bs: ViewMut<B>| {
                    for &e in &entities {
                        bs.remove(e);
                    }
                });
            })
        });
    }
    {
        let mut world = specs::World::new();
        world.register::<A>();
        world.register::<B>();
        let entities: Vec<_> = (0..N)
            .map(|_| world.create_entity().with(A(0.0)).build())
            .collect();
        group.bench_function("specs", |b| {
            b.iter(|| {
                let mut bs = world.write_storage::<B>();
                for &e in &entities {
                    bs.insert(e, B(0.0)).unwrap();
                }
                for &e in &entities {
                    bs.remove(e);
                }
            })
        });
    }
    {
        let mut world = World::new(WorldOptions {
            timing: false,
            ..WorldOptions::default()
        });
        world.register_component::<A>().unwrap();
        world.register_component::<B>().unwrap();
        let entities: Vec<_> = (0..N).map(|_| world.spawn(A(0.0)).unwrap()).collect();
        group.bench_function("laige-world", |b| {
            b.iter(|| {
                for &e in &entities {
                    world.insert(e, B(0.0)).unwrap();
                }
                for &e in &entities {
                    world.remove::<B>(e).unwrap();
                }
            })
        });
        let (mut world, schedule) = scheduled(world, |w| {
            w.system("add_b", add_b)
                .budget_ms(10.0)
                .reads::<A>()
                .register()
                .unwrap();
            w.system("remove_b", remove_b)
                .budget_ms(10.0)
                .reads::<A>()
                .after("add_b")
                .register()
                .unwrap();
        });
        group.bench_function("laige-system-commands", |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
        let mut with_b = 0;
        world.each::<&B>(|_| with_b += 1).unwrap();
        assert_eq!(with_b, 0, "every iteration removes what it added");
    }
    {
        let mut world = World::new(WorldOptions {
            timing: false,
            ..WorldOptions::default()
        });
        world.register_component::<A>().unwrap();
        world
            .register_component_with(ComponentOptions::<SparseB>::new().sparse())
            .unwrap();
        let entities: Vec<_> = (0..N).map(|_| world.spawn(A(0.0)).unwrap()).collect();
        group.bench_function("laige-world-sparse", |b| {
            b.iter(|| {
                for &e in &entities {
                    world.insert(e, SparseB(0.0)).unwrap();
                }
                for &e in &entities {
                    world.remove::<SparseB>(e).unwrap();
                }
            })
        });
        let (mut world, schedule) = scheduled(world, |w| {
            w.system("add_b", add_sparse_b)
                .budget_ms(10.0)
                .reads::<A>()
                .register()
                .unwrap();
            w.system("remove_b", remove_sparse_b)
                .budget_ms(10.0)
                .reads::<A>()
                .after("add_b")
                .register()
                .unwrap();
        });
        group.bench_function("laige-system-commands-sparse", |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}
