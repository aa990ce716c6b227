//! Command buffers: schedule-order application, placeholders, stale targets, reuse.

use laige_testkit::capture;
use laige_world::{
    CommandBuffer, CommandKind, CommandSkipReason, Entity, SkippedCommand, SystemContext, SystemId,
    World, WorldError,
};

use crate::support::{Counted, Counter, Health, Pos, Tag, one, pos, world};

fn write_one(ctx: &mut SystemContext<'_>) {
    let target = first(ctx);
    ctx.commands().insert(target, Health(1));
    ctx.commands().spawn((Health(10),));
    ctx.commands().spawn((Health(11),));
}

fn write_two(ctx: &mut SystemContext<'_>) {
    let target = first(ctx);
    ctx.commands().insert(target, Health(2));
    ctx.commands().spawn((Health(20),));
}

/// The first entity with a `Pos`.
fn first(ctx: &mut SystemContext<'_>) -> Entity {
    let mut found = None;
    ctx.each::<(Entity, &Pos)>(|_, (e, _)| {
        found.get_or_insert(e);
    })
    .unwrap();
    found.unwrap()
}

fn two_writers() -> (World, Entity, SystemId, SystemId) {
    let mut world = world();
    let e = world.spawn((pos(1.0),)).unwrap();
    let one = world
        .system("One", write_one)
        .budget_ms(1.0)
        .reads::<Pos>()
        .register()
        .unwrap()
        .id();
    let two = world
        .system("Two", write_two)
        .budget_ms(1.0)
        .reads::<Pos>()
        .register()
        .unwrap()
        .id();
    let (registry, mut host) = world.split_for_run();
    for id in [one, two] {
        let run = *registry.run(id).unwrap();
        host.run(id, &run).unwrap();
    }
    (world, e, one, two)
}

fn spawned_health(world: &World, id: SystemId) -> Vec<(u32, i32)> {
    world
        .system_commands(id)
        .unwrap()
        .last_spawned()
        .iter()
        .map(|e| {
            let e = e.unwrap();
            (e.index(), world.get::<Health>(e).unwrap().0)
        })
        .collect()
}

#[test]
fn buffers_apply_in_the_given_order() {
    let (mut world, e, one, two) = two_writers();
    let stats = world.apply_commands([one, two]).unwrap();
    assert_eq!((stats.applied, stats.skipped), (5, 0));
    assert_eq!(
        world.get::<Health>(e).unwrap().0,
        2,
        "the later buffer wins"
    );
    assert_eq!(spawned_health(&world, one), [(1, 10), (2, 11)]);
    assert_eq!(spawned_health(&world, two), [(3, 20)]);

    let (mut world, e, one, two) = two_writers();
    world.apply_commands([two, one]).unwrap();
    assert_eq!(world.get::<Health>(e).unwrap().0, 1);
    assert_eq!(
        spawned_health(&world, two),
        [(1, 20)],
        "ids are assigned in apply order"
    );
    assert_eq!(spawned_health(&world, one), [(2, 10), (3, 11)]);
    assert!(
        world.system_commands(one).unwrap().is_empty(),
        "applied buffers are emptied"
    );
}

#[test]
fn placeholders_are_usable_by_later_commands_of_the_same_buffer() {
    let mut world = world();
    let mut buffer = CommandBuffer::new();
    let mut cmds = world.commands(&mut buffer);
    let a = cmds.spawn((pos(1.0),));
    let b = cmds.spawn(());
    cmds.insert(a, Health(5));
    cmds.insert(b, Tag);
    cmds.remove::<Pos>(a);
    cmds.despawn(b);
    assert_eq!((a.index(), b.index(), cmds.len()), (0, 1, 6));
    world.apply(&mut buffer).unwrap();
    let spawned = buffer.last_spawned().to_vec();
    let (ea, eb) = (spawned[0].unwrap(), spawned[1].unwrap());
    assert_eq!(world.get::<Health>(ea).unwrap().0, 5);
    assert!(!world.has::<Pos>(ea).unwrap());
    assert!(!world.is_alive(eb));

    // A placeholder is valid only in its own buffer, and only until that buffer is applied.
    let mut other = CommandBuffer::new();
    let (_, events) = capture(|| world.commands(&mut other).insert(a, Tag));
    one(&events, "ecs/pending_entity_invalid");
    world.commands(&mut buffer).despawn(a);
    let refused = CommandSkipReason::Refused(WorldError::InvalidPending { index: 0 });
    let insert = world.apply(&mut other).unwrap();
    assert_eq!((insert.applied, insert.skipped), (0, 1));
    assert_eq!(
        insert.first_skip,
        Some(SkippedCommand {
            index: 0,
            command: CommandKind::Insert(std::any::type_name::<Tag>()),
            reason: refused
        })
    );
    let despawn = world.apply(&mut buffer).unwrap();
    assert_eq!(
        despawn.first_skip.map(|it| (it.command, it.reason)),
        Some((CommandKind::Despawn, refused))
    );
    assert!(buffer.is_empty() && other.is_empty());
}

#[test]
fn stale_targets_are_skipped_reported_and_their_values_dropped() {
    let counter = Counter::default();
    let mut world = world();
    world.register_component::<Counted>().unwrap();
    let gone = world.spawn((pos(1.0),)).unwrap();
    let kept = world.spawn((pos(2.0),)).unwrap();
    let mut buffer = CommandBuffer::new();
    let mut cmds = world.commands(&mut buffer);
    cmds.despawn(gone);
    cmds.insert(gone, counter.make(1));
    cmds.remove::<Pos>(gone);
    cmds.despawn(gone);
    cmds.insert(kept, counter.make(2));
    let (stats, events) = capture(|| world.apply(&mut buffer).unwrap());
    assert_eq!((stats.applied, stats.skipped), (2, 3));
    assert_eq!(
        counter.dropped(),
        1,
        "the skipped insert's value is dropped"
    );
    let access = one(&events, "ecs/stale_entity_access");
    assert_eq!(
        (access.field("entity_id"), access.field("generation")),
        (Some("0"), Some("1"))
    );
    assert_eq!(access.field("op"), Some("insert"));
    one(&events, "ecs/stale_entity_destroy");
    assert_eq!(world.get::<Counted>(kept).unwrap().value, 2);
}

#[test]
fn a_buffer_belongs_to_one_world() {
    let mut a = world();
    let mut b = world();
    let e = a.spawn(()).unwrap();
    let mut buffer = CommandBuffer::new();
    a.commands(&mut buffer).insert(e, Tag);
    let (result, events) = capture(|| b.apply(&mut buffer));
    assert_eq!(result, Err(WorldError::ForeignCommandBuffer));
    one(&events, "ecs/command_buffer_foreign");
    assert!(buffer.is_empty(), "the foreign commands were dropped");
    b.commands(&mut buffer).insert(e, Tag);
    let (stats, _) = capture(|| b.apply(&mut buffer));
    let stats = stats.expect("an emptied buffer can be rebound");
    assert!(matches!(
        stats.first_skip.map(|it| it.reason),
        Some(CommandSkipReason::Refused(WorldError::StaleEntity { .. }))
    ));
    assert!(!a.has::<Tag>(e).unwrap());
}

#[test]
fn recording_errors_are_reported_at_once_and_skipped_when_applied() {
    let mut world = world();
    let e = world.spawn(()).unwrap();
    let mut buffer = CommandBuffer::new();
    let (_, events) = capture(|| {
        let mut cmds = world.commands(&mut buffer);
        cmds.insert(e, 5u8);
        cmds.remove::<u8>(e);
        let twice = cmds.spawn((Tag, Tag));
        cmds.insert(twice, Health(1));
        assert_eq!(cmds.len(), 4, "refusals are recorded, to be skipped");
    });
    // Each refusal is reported as it is recorded (the second of one kind rate-limited).
    assert_eq!(
        events.iter().map(|it| it.name).collect::<Vec<_>>(),
        ["ecs/component_unregistered", "ecs/bundle_duplicate"]
    );
    let stats = world.apply(&mut buffer).unwrap();
    assert_eq!((stats.applied, stats.skipped), (0, 4));
    assert_eq!(
        stats.first_skip,
        Some(SkippedCommand {
            index: 0,
            command: CommandKind::Insert("u8"),
            reason: CommandSkipReason::Refused(WorldError::UnregisteredComponent {
                component: "u8"
            }),
        })
    );
    assert_eq!(world.len(), 1, "the refused spawn spawned nothing");
    assert!(buffer.is_empty() && buffer.last_spawned() == [None]);
}

#[test]
fn unknown_systems_in_the_order_are_reported_the_rest_applied() {
    let (mut world, e, one, _) = two_writers();
    let ghost = SystemId::new(9).unwrap();
    let (result, events) = capture(|| world.apply_commands([ghost, one]));
    assert_eq!(result, Err(WorldError::UnknownSystem { id: 9, systems: 2 }));
    crate::support::one(&events, "ecs/system_unknown");
    assert_eq!(
        world.get::<Health>(e).unwrap().0,
        1,
        "system One's buffer was applied"
    );
}

#[test]
fn spawn_failures_skip_their_dependent_commands() {
    let mut world = crate::support::world_with(laige_world::WorldOptions {
        max_entities: Some(1),
        ..Default::default()
    });
    let mut buffer = CommandBuffer::new();
    let mut cmds = world.commands(&mut buffer);
    let a = cmds.spawn((pos(1.0),));
    let b = cmds.spawn((pos(2.0),));
    cmds.insert(b, Tag);
    cmds.insert(a, Tag);
    let (stats, events) = capture(|| world.apply(&mut buffer).unwrap());
    assert_eq!((stats.applied, stats.skipped), (2, 2));
    one(&events, "ecs/entity_limit");
    assert_eq!(buffer.last_spawned().len(), 2);
    assert!(buffer.last_spawned()[1].is_none());
    assert!(world.has::<Tag>(buffer.last_spawned()[0].unwrap()).unwrap());
}
