//! Large and joined bundles: up to 16 components in a tuple, more through `.and(..)`, every
//! one placed in the entity's final archetype in one move, by a spawn or a command.

use laige_testkit::capture;
use laige_world::{Bundle, Component, MAX_BUNDLE, World, WorldError};

use crate::support::{Counter, one};

macro_rules! components {
    ($($c:ident),*) => {
        $( #[derive(Clone, Copy, Debug, PartialEq)] struct $c(u32); impl Component for $c {} )*
        fn register_all(world: &mut World) {
            $( world.register_component::<$c>().unwrap(); )*
        }
        /// The first sixteen, as one tuple.
        fn sixteen() -> (C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15) {
            (C0(0), C1(1), C2(2), C3(3), C4(4), C5(5), C6(6), C7(7), C8(8), C9(9), C10(10),
             C11(11), C12(12), C13(13), C14(14), C15(15))
        }
        /// The next sixteen, as one tuple.
        fn sixteen_more() -> (C16, C17, C18, C19, C20, C21, C22, C23, C24, C25, C26, C27, C28, C29, C30, C31) {
            (C16(16), C17(17), C18(18), C19(19), C20(20), C21(21), C22(22), C23(23), C24(24),
             C25(25), C26(26), C27(27), C28(28), C29(29), C30(30), C31(31))
        }
        /// The values an entity spawned with every component holds, in declaration order.
        fn values(world: &World, e: laige_world::Entity) -> Vec<u32> {
            let mut out = Vec::new();
            $( if let Ok(c) = world.get::<$c>(e) { out.push(c.0); } )*
            out
        }
    };
}

components!(
    C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17, C18, C19, C20,
    C21, C22, C23, C24, C25, C26, C27, C28, C29, C30, C31, C32
);

fn world() -> World {
    let mut world = World::default();
    register_all(&mut world);
    world
}

/// The archetypes holding entities, and how many archetypes exist at all (id 0 included).
fn archetypes(world: &World) -> (usize, usize) {
    let occupied = world.archetypes().iter().filter(|a| !a.is_empty()).count();
    (occupied, world.archetypes().len())
}

#[test]
fn sixteen_components_spawn_in_one_move() {
    let mut world = world();
    let e = world.spawn(sixteen()).unwrap();
    assert_eq!(values(&world, e), (0..16).collect::<Vec<_>>());
    assert_eq!(world.archetypes()[1].signature().len(), 16);
    assert_eq!(
        archetypes(&world),
        (1, 2),
        "only the final archetype was created"
    );
}

#[test]
fn joined_bundles_spawn_every_part_in_one_move() {
    let mut world = world();
    let all = sixteen().and(sixteen_more());
    let e = world.spawn(all).unwrap();
    assert_eq!(values(&world, e), (0..32).collect::<Vec<_>>());
    assert_eq!(archetypes(&world), (1, 2));
    // Parts join in any shape: a tuple, then a join of two joins.
    let parts = (C0(0),)
        .and((C1(1), C2(2)).and((C3(3),)))
        .and((C4(4),).and((C5(5),)));
    let f = world.spawn(parts).unwrap();
    assert_eq!(values(&world, f), (0..6).collect::<Vec<_>>());
    assert_eq!(archetypes(&world), (2, 3));
}

/// Reusable parts, as a game writes them: functions returning bundles.
fn body() -> impl Bundle {
    (C0(0), (C1(1), C2(2)))
}

#[test]
fn nested_tuples_spawn_every_component_in_one_move() {
    let mut world = world();
    // A component alone, a tuple of a part and components, tuples three deep.
    let alone = world.spawn(C5(5)).unwrap();
    assert_eq!(values(&world, alone), [5]);
    let soldier = world.spawn((body(), C3(3), (C4(4),))).unwrap();
    assert_eq!(values(&world, soldier), (0..5).collect::<Vec<_>>());
    let deep = world
        .spawn((((C0(0), C1(1)), C2(2)), (C3(3), C4(4))))
        .unwrap();
    assert_eq!(values(&world, deep), (0..5).collect::<Vec<_>>());
    assert_eq!(
        archetypes(&world),
        (2, 3),
        "each spawn went straight to its final archetype, and the two five-component \
         spawns share one"
    );
    // Sixteen plus sixteen, nested instead of joined.
    let all = world.spawn((sixteen(), sixteen_more())).unwrap();
    assert_eq!(values(&world, all), (0..32).collect::<Vec<_>>());
    assert_eq!(archetypes(&world), (3, 4));
}

#[test]
fn commands_spawn_nested_tuples_in_one_move() {
    let mut world = world();
    let mut buffer = laige_world::CommandBuffer::new();
    world.commands(&mut buffer).spawn((body(), (C3(3), C4(4))));
    world.apply(&mut buffer).unwrap();
    let e = buffer.last_spawned()[0].unwrap();
    assert_eq!(values(&world, e), (0..5).collect::<Vec<_>>());
    assert_eq!(archetypes(&world), (1, 2));
}

#[test]
fn a_nested_repeat_is_refused_and_every_value_dropped() {
    let mut world = world();
    world
        .register_component::<crate::support::Counted>()
        .unwrap();
    let counter = Counter::default();
    let twice = ((C0(0), counter.make(1)), (C1(1), (C0(2),)));
    let (res, events) = capture(|| world.spawn(twice));
    assert_eq!(
        res,
        Err(WorldError::BundleDuplicate {
            component: std::any::type_name::<C0>()
        })
    );
    one(&events, "ecs/bundle_duplicate");
    assert_eq!(counter.live(), 0, "the refused bundle was dropped");
    let kept = world.spawn((C1(1), counter.make(2))).unwrap();
    assert_eq!(counter.live(), 1, "a spawned value lives in the world");
    world.despawn(kept).unwrap();
    assert_eq!(counter.live(), 0);
    assert_eq!(world.len(), 0);
}

#[test]
fn commands_spawn_joined_bundles_in_one_move() {
    let mut world = world();
    let mut buffer = laige_world::CommandBuffer::new();
    world
        .commands(&mut buffer)
        .spawn(sixteen().and((C16(16), C17(17))));
    world.apply(&mut buffer).unwrap();
    let e = buffer.last_spawned()[0].unwrap();
    assert_eq!(values(&world, e), (0..18).collect::<Vec<_>>());
    assert_eq!(archetypes(&world), (1, 2));
}

#[test]
fn a_bundle_past_the_limit_or_with_a_repeat_is_refused_and_dropped() {
    let mut world = world();
    world
        .register_component::<crate::support::Counted>()
        .unwrap();
    let counter = Counter::default();
    let too_many = sixteen()
        .and(sixteen_more())
        .and((C32(32), counter.make(1)));
    let (res, events) = capture(|| world.spawn(too_many));
    assert_eq!(
        res,
        Err(WorldError::BundleTooLarge {
            component: std::any::type_name::<C32>()
        })
    );
    assert_eq!(MAX_BUNDLE, 32);
    one(&events, "ecs/bundle_too_large");
    assert_eq!(counter.live(), 0, "the refused bundle was dropped");

    let twice = (C0(0), counter.make(2)).and((C0(1),));
    let (res, events) = capture(|| world.spawn(twice));
    assert!(
        matches!(res, Err(WorldError::BundleDuplicate { .. })),
        "{res:?}"
    );
    one(&events, "ecs/bundle_duplicate");
    assert_eq!(counter.live(), 0);
    assert_eq!(world.len(), 0);
}
