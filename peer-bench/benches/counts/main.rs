//! `simple_insert` and `add_remove` once per variant, for instruction counts under
//! callgrind, which the 2-core machine's timing noise does not move:
//!
//! ```sh
//! valgrind --tool=callgrind --toggle-collect='*measured*' target/release/deps/counts-* <variant>
//! ```
//!
//! Each variant runs twice, the second time inside `measured` (`#[inline(never)]`), so
//! only that run is counted: one-time costs of a process (a clock's calibration, statics)
//! and setup (a world with its systems) are outside it.

#[path = "../storage/types.rs"]
#[allow(dead_code, unused_imports)]
mod types;

use std::hint::black_box;

use laige_sim::prelude::*;
use types::*;

const N: usize = 10_000;

fn hecs_spawn_batch() -> hecs::World {
    let mut world = hecs::World::new();
    world.spawn_batch((0..N).map(|_| body()));
    world
}

fn hecs_one() -> hecs::World {
    let mut world = hecs::World::new();
    for _ in 0..N {
        world.spawn(body());
    }
    world
}

fn bevy_spawn_batch() -> bevy_ecs::world::World {
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..N).map(|_| body()));
    world
}

fn bevy_one() -> bevy_ecs::world::World {
    let mut world = bevy_ecs::world::World::new();
    for _ in 0..N {
        world.spawn(body());
    }
    world
}

fn shipyard_bulk() -> shipyard::World {
    let mut world = shipyard::World::new();
    world.bulk_add_entity((0..N).map(|_| body()));
    world
}

fn shipyard_one() -> shipyard::World {
    let mut world = shipyard::World::new();
    for _ in 0..N {
        world.add_entity(body());
    }
    world
}

fn laige_one() -> World {
    let mut world = laige_world();
    for _ in 0..N {
        world.spawn(body()).unwrap();
    }
    world
}

fn laige_spawn_batch() -> World {
    let mut world = laige_world();
    world.spawn_batch((0..N).map(|_| body())).unwrap();
    world
}

fn laige_tick(world: &mut World, schedule: &Schedule) {
    world.run_systems(schedule).unwrap();
}

fn spawn_one_by_one(ctx: &mut SystemContext<'_>) {
    let mut commands = ctx.commands();
    for _ in 0..N {
        commands.spawn(body());
    }
}

fn spawn_as_batch(ctx: &mut SystemContext<'_>) {
    ctx.commands().spawn_batch((0..N).map(|_| body()));
}

/// `add_remove`'s world: `N` entities with `A`, and `B` (or `SparseB`) registered.
fn add_remove_world() -> (World, Vec<Entity>) {
    let mut world = World::new(WorldOptions {
        timing: false,
        ..WorldOptions::default()
    });
    world.register_component::<A>().unwrap();
    world.register_component::<B>().unwrap();
    world
        .register_component_with(ComponentOptions::<SparseB>::new().sparse())
        .unwrap();
    let entities = world.spawn_batch((0..N).map(|_| A(0.0))).unwrap().to_vec();
    (world, entities)
}

fn add_remove_commands<T: Component + Default>(world: World) -> (World, Schedule) {
    fn add<T: Component + Default>(ctx: &mut SystemContext<'_>) {
        ctx.each_with_commands::<(Entity, &A)>(|(e, _), commands| {
            commands.insert(e, T::default());
        })
        .unwrap();
    }
    fn remove<T: Component + Default>(ctx: &mut SystemContext<'_>) {
        ctx.each_with_commands::<(Entity, &A)>(|(e, _), commands| {
            commands.remove::<T>(e);
        })
        .unwrap();
    }
    scheduled(world, |w| {
        w.system("add", add::<T>)
            .budget_ms(10.0)
            .reads::<A>()
            .register()
            .unwrap();
        w.system("remove", remove::<T>)
            .budget_ms(10.0)
            .reads::<A>()
            .after("add")
            .register()
            .unwrap();
    })
}

impl Default for B {
    fn default() -> Self {
        B(0.0)
    }
}

impl Default for SparseB {
    fn default() -> Self {
        SparseB(0.0)
    }
}

/// Runs one `add_remove` iteration of `step` on the world `setup` made, twice, the second
/// counted.
fn add_remove<W>(setup: impl FnOnce() -> W, step: impl Fn(&mut W)) {
    let mut world = setup();
    step(&mut world);
    measured(|| step(&mut world));
    drop(black_box(world));
}

fn add_remove_variant(variant: &str) -> bool {
    match variant {
        "add_remove-hecs" => add_remove(
            || {
                let mut world = hecs::World::new();
                let es: Vec<_> = world.spawn_batch((0..N).map(|_| (A(0.0),))).collect();
                (world, es)
            },
            |(world, es)| {
                for &e in es.iter() {
                    world.insert_one(e, B(0.0)).unwrap();
                }
                for &e in es.iter() {
                    world.remove_one::<B>(e).unwrap();
                }
            },
        ),
        "add_remove-bevy" => add_remove(
            || {
                let mut world = bevy_ecs::world::World::new();
                let es: Vec<_> = world.spawn_batch((0..N).map(|_| A(0.0))).collect();
                (world, es)
            },
            |(world, es)| {
                for &e in es.iter() {
                    world.entity_mut(e).insert(B(0.0));
                }
                for &e in es.iter() {
                    world.entity_mut(e).remove::<B>();
                }
            },
        ),
        "add_remove-shipyard" => add_remove(
            || {
                let mut world = shipyard::World::new();
                let es: Vec<_> = world.bulk_add_entity((0..N).map(|_| (A(0.0),))).collect();
                (world, es)
            },
            |(world, es)| {
                use shipyard::{AddComponent, Remove, ViewMut};
                world.run(|mut bs: ViewMut<B>| {
                    for &e in es.iter() {
                        bs.add_component_unchecked(e, B(0.0));
                    }
                });
                world.run(|mut bs: ViewMut<B>| {
                    for &e in es.iter() {
                        bs.remove(e);
                    }
                });
            },
        ),
        "add_remove-specs" => add_remove(
            || {
                use specs::{Builder, WorldExt};
                let mut world = specs::World::new();
                world.register::<A>();
                world.register::<B>();
                let es: Vec<_> = (0..N)
                    .map(|_| world.create_entity().with(A(0.0)).build())
                    .collect();
                (world, es)
            },
            |(world, es)| {
                use specs::WorldExt;
                let mut bs = world.write_storage::<B>();
                for &e in es.iter() {
                    bs.insert(e, B(0.0)).unwrap();
                }
                for &e in es.iter() {
                    bs.remove(e);
                }
            },
        ),
        "add_remove-laige-world" => add_remove(add_remove_world, |(world, es)| {
            for &e in es.iter() {
                world.insert(e, B(0.0)).unwrap();
            }
            for &e in es.iter() {
                world.remove::<B>(e).unwrap();
            }
        }),
        "add_remove-laige-world-sparse" => add_remove(add_remove_world, |(world, es)| {
            for &e in es.iter() {
                world.insert(e, SparseB(0.0)).unwrap();
            }
            for &e in es.iter() {
                world.remove::<SparseB>(e).unwrap();
            }
        }),
        "add_remove-laige-system-commands" => add_remove(
            || add_remove_commands::<B>(add_remove_world().0),
            |(world, schedule)| laige_tick(world, schedule),
        ),
        "add_remove-laige-system-commands-sparse" => add_remove(
            || add_remove_commands::<SparseB>(add_remove_world().0),
            |(world, schedule)| laige_tick(world, schedule),
        ),
        _ => return false,
    }
    true
}

#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// Runs `f` once to warm up, then once counted.
fn twice<T>(f: impl Fn() -> T) {
    drop(black_box(f()));
    drop(black_box(measured(f)));
}

fn main() {
    let variant = std::env::args().nth(1).unwrap_or_default();
    let system = |f: fn(&mut SystemContext<'_>)| {
        let (mut world, schedule) = scheduled(laige_world(), |w| {
            w.system("spawn", f).budget_ms(1.0).register().unwrap();
        });
        laige_tick(&mut world, &schedule);
        assert_eq!(world.len(), N);
        let (mut world, schedule) = scheduled(laige_world(), |w| {
            w.system("spawn", f).budget_ms(1.0).register().unwrap();
        });
        measured(|| laige_tick(&mut world, &schedule));
        assert_eq!(world.len(), N);
    };
    match variant.as_str() {
        "hecs-spawn_batch" => twice(hecs_spawn_batch),
        "hecs-one" => twice(hecs_one),
        "bevy-spawn_batch" => twice(bevy_spawn_batch),
        "bevy-one" => twice(bevy_one),
        "shipyard-bulk" => twice(shipyard_bulk),
        "shipyard-one" => twice(shipyard_one),
        "laige-world-one" => twice(laige_one),
        "laige-world-spawn_batch" => twice(laige_spawn_batch),
        "laige-system-commands-one" => system(spawn_one_by_one),
        "laige-system-commands-spawn_batch" => system(spawn_as_batch),
        other if add_remove_variant(other) => {}
        other => panic!("unknown variant `{other}`"),
    }
}
