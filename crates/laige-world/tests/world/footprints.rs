//! Table footprints (`.matching::<T>()`): every query of such a system must require `T`,
//! since the parallel executor runs it alongside writers of the same types in other tables.

use laige_registry::Access;
use laige_testkit::capture;
use laige_world::{ComponentOptions, Entity, QueryError, SystemContext, With, World, WorldOptions};

use crate::support::{Pos, Tag, Vel, one, pos};

fn nothing(_: &mut SystemContext<'_>) {}

fn setup() -> (World, [Entity; 2], laige_world::SystemId) {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world.register_component::<Tag>().unwrap();
    world.register_component::<Vel>().unwrap();
    let tagged = world.spawn((pos(1.0), Tag)).unwrap();
    let plain = world.spawn((pos(2.0),)).unwrap();
    world.end_tick();
    let id = world
        .system("Tagged", nothing)
        .budget_ms(1.0)
        .writes::<Pos>()
        .matching::<Tag>()
        .register()
        .unwrap()
        .id();
    (world, [tagged, plain], id)
}

#[test]
fn queries_must_stay_inside_the_footprint() {
    let (mut world, [tagged, plain], id) = setup();
    let mut ctx = world.context(id).unwrap();
    assert!(
        ctx.meta()
            .matching()
            .contains(ctx.storage().component_id::<Tag>().unwrap())
    );

    let (result, events) = capture(|| ctx.each::<&mut Pos>(|p| p.x += 1.0));
    let err = result.unwrap_err();
    assert!(
        matches!(err, QueryError::Unmatched { system: "Tagged", system_id, component } if system_id == id && component.ends_with("Tag")),
        "{err:?}"
    );
    assert!(err.to_string().contains("With<"), "{err}");
    let event = one(&events, "ecs/query_unmatched");
    assert_eq!(event.field("system"), Some("Tagged"));

    let mut visited = Vec::new();
    ctx.each::<(Entity, &mut Pos, With<Tag>)>(|(e, p, ())| {
        p.x += 1.0;
        visited.push(e);
    })
    .unwrap();
    assert_eq!(visited, [tagged]);
    assert_eq!(world.get::<Pos>(tagged).unwrap().x, 2.0);
    assert_eq!(world.get::<Pos>(plain).unwrap().x, 2.0, "untouched");
}

#[test]
fn the_in_system_state_hash_cannot_stay_inside_a_footprint() {
    let (mut world, _, id) = setup();
    let (result, _) = capture(|| world.context(id).unwrap().component_state_hash());
    assert!(matches!(result, Err(QueryError::Unmatched { .. })));
}

#[test]
fn the_footprint_check_comes_after_the_access_check_and_snapshots_are_free() {
    let (mut world, [tagged, _], _) = setup();
    let reader = world
        .system("Reader", nothing)
        .budget_ms(1.0)
        .reads_snapshot::<Pos>()
        .matching::<Tag>()
        .register()
        .unwrap()
        .id();
    let mut ctx = world.context(reader).unwrap();
    let (result, _) = capture(|| ctx.each::<(&Vel, With<Tag>)>(|_| ()));
    assert!(matches!(
        result,
        Err(QueryError::Undeclared {
            access: Access::Read,
            ..
        })
    ));
    // Snapshot reads visit no table, so the footprint does not limit them.
    assert_eq!(ctx.snapshot_view::<Pos>().unwrap().len(), 2);
    assert_eq!(ctx.snapshot::<Pos>(tagged).unwrap(), Some(&pos(1.0)));
}
