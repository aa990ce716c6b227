//! Component registration: dense ids, duplicates, the 256 limit, unregistered types.

use laige_testkit::capture;
use laige_world::{Component, ComponentId, ComponentOptions, World, WorldError, WorldOptions};

use crate::support::{Health, Pos, Tag, Unregistered, Vel, Wide, one, pos, world};

#[test]
fn ids_are_dense_from_one_in_registration_order() {
    let mut world = World::new(WorldOptions::default());
    let ids = [
        world.register_component::<Vel>().unwrap(),
        world
            .register_component_with(ComponentOptions::<Pos>::new().hashed())
            .unwrap(),
        world
            .register_component_with(ComponentOptions::<Tag>::new().versioned())
            .unwrap(),
    ];
    assert_eq!(ids.map(ComponentId::get), [1, 2, 3]);
    assert_eq!(world.component_id::<Pos>(), Some(ids[1]));
    assert_eq!(world.component_id::<Unregistered>(), None);
    for id in ids {
        assert!(
            world.registry().components().contains(id),
            "the registry learns every component"
        );
    }

    let info = world.component_info(ids[1]).unwrap();
    assert!(info.name().ends_with("Pos"), "{}", info.name());
    assert_eq!(
        (
            info.size(),
            info.align(),
            info.is_hashed(),
            info.is_versioned()
        ),
        (8, 4, true, false)
    );
    let tag = world.component_info(ids[2]).unwrap();
    assert_eq!(
        (tag.size(), tag.is_hashed(), tag.is_versioned()),
        (0, false, true)
    );
}

#[test]
fn registering_twice_is_an_error_with_an_event() {
    let mut world = world();
    let before = world.storage().components().len();
    let (result, events) =
        capture(|| world.register_component_with(ComponentOptions::<Pos>::new().hashed()));
    let err = result.unwrap_err();
    assert!(
        matches!(err, WorldError::ComponentDuplicate { id, size: 8, alignment: 4, .. } if id.get() == 1)
    );
    let event = one(&events, "ecs/component_duplicate");
    assert_eq!(
        (
            event.field("component_id"),
            event.field("size"),
            event.field("alignment")
        ),
        (Some("1"), Some("8"), Some("4"))
    );
    assert!(err.to_string().contains("Pos") && err.to_string().contains("register each type once"));
    assert_eq!(world.storage().components().len(), before);
    // Also through the other registration method, for an over-aligned type.
    let err = world.register_component::<Wide>().unwrap_err();
    assert!(matches!(
        err,
        WorldError::ComponentDuplicate {
            size: 64,
            alignment: 64,
            ..
        }
    ));
}

struct C<const A: usize, const B: usize>;
impl<const A: usize, const B: usize> Component for C<A, B> {}

fn row<const A: usize>(world: &mut World, out: &mut Vec<Result<ComponentId, WorldError>>) {
    out.push(world.register_component::<C<A, 0>>());
    out.push(world.register_component::<C<A, 1>>());
    out.push(world.register_component::<C<A, 2>>());
    out.push(world.register_component::<C<A, 3>>());
    out.push(world.register_component::<C<A, 4>>());
    out.push(world.register_component::<C<A, 5>>());
    out.push(world.register_component::<C<A, 6>>());
    out.push(world.register_component::<C<A, 7>>());
    out.push(world.register_component::<C<A, 8>>());
    out.push(world.register_component::<C<A, 9>>());
    out.push(world.register_component::<C<A, 10>>());
    out.push(world.register_component::<C<A, 11>>());
    out.push(world.register_component::<C<A, 12>>());
    out.push(world.register_component::<C<A, 13>>());
    out.push(world.register_component::<C<A, 14>>());
    out.push(world.register_component::<C<A, 15>>());
}

#[test]
fn at_most_256_component_types() {
    let mut world = World::new(WorldOptions::default());
    let mut out = Vec::new();
    row::<0>(&mut world, &mut out);
    row::<1>(&mut world, &mut out);
    row::<2>(&mut world, &mut out);
    row::<3>(&mut world, &mut out);
    row::<4>(&mut world, &mut out);
    row::<5>(&mut world, &mut out);
    row::<6>(&mut world, &mut out);
    row::<7>(&mut world, &mut out);
    row::<8>(&mut world, &mut out);
    row::<9>(&mut world, &mut out);
    row::<10>(&mut world, &mut out);
    row::<11>(&mut world, &mut out);
    row::<12>(&mut world, &mut out);
    row::<13>(&mut world, &mut out);
    row::<14>(&mut world, &mut out);
    row::<15>(&mut world, &mut out);
    let ids: Vec<u16> = out.into_iter().map(|it| it.unwrap().get()).collect();
    assert_eq!(ids, (1..=256).collect::<Vec<u16>>());
    let (result, events) = capture(|| world.register_component::<Pos>());
    assert!(
        matches!(result, Err(WorldError::ComponentLimit { component }) if component.ends_with("Pos"))
    );
    assert_eq!(one(&events, "ecs/component_budget").level, "warn");
    assert_eq!(world.component_id::<Pos>(), None);
    // The 256th type is fully usable.
    let e = world.spawn((C::<15, 15>,)).unwrap();
    assert!(world.has::<C<15, 15>>(e).unwrap());
}

#[test]
fn unregistered_types_are_errors_not_panics() {
    let mut world = world();
    let e = world.spawn((pos(1.0),)).unwrap();
    let (results, events) = capture(|| {
        [
            world.spawn((pos(2.0), Unregistered(1))).err(),
            world.insert(e, Unregistered(1)).err(),
            world.get::<Unregistered>(e).err(),
            world.remove::<Unregistered>(e).err(),
            world.has::<Unregistered>(e).err(),
        ]
    });
    let component = std::any::type_name::<Unregistered>();
    for result in results {
        assert_eq!(
            result,
            Some(WorldError::UnregisteredComponent { component })
        );
    }
    assert_eq!(
        one(&events, "ecs/component_unregistered").field("component"),
        Some(component)
    );
    let message = WorldError::UnregisteredComponent { component }.to_string();
    assert!(
        message.contains("Unregistered>()` during setup"),
        "{message}"
    );
    assert_eq!(world.len(), 1, "the failed spawn created nothing");
    assert_eq!(world.get::<Pos>(e).unwrap(), &pos(1.0));
}

#[test]
fn a_bundle_may_not_repeat_a_type() {
    let mut world = world();
    let (result, events) = capture(|| world.spawn((Health(1), pos(1.0), Health(2))));
    let component = std::any::type_name::<Health>();
    assert_eq!(result, Err(WorldError::BundleDuplicate { component }));
    one(&events, "ecs/bundle_duplicate");
    assert!(world.is_empty());
}
