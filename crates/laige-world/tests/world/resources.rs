//! Resources: singletons in the world, declared and checked like components.

use laige_registry::Access;
use laige_testkit::capture;
use laige_world::{
    CommandBuffer, CommandKind, CommandSkipReason, Component, Entity, QueryError, StateHash,
    StateHasher, SystemContext, SystemId, With, World, WorldError, WorldOptions,
};
use rstest::rstest;

use crate::support::{
    Counted, Counter, Decl, Health, Pos, Unregistered, Vel, declare, one, pos, vel, world,
};

#[derive(Debug, PartialEq)]
struct Time {
    tick: u64,
    dt: f32,
}
impl Component for Time {}

#[derive(Debug, PartialEq)]
struct Score(u32);

impl StateHash for Score {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

fn nothing(_: &mut SystemContext<'_>) {}

#[test]
fn insert_get_replace_remove() {
    let mut world = world();
    let counter = Counter::default();
    let id = world.insert_resource(counter.make(1)).unwrap();
    assert_eq!(id.get(), 6, "the next id after the five support components");
    assert_eq!(world.component_id::<Counted>(), Some(id));
    assert!(world.component_info(id).unwrap().is_resource());
    assert!(world.has_resource::<Counted>());
    assert_eq!(world.resource::<Counted>().unwrap().value, 1);

    world.resource_mut::<Counted>().unwrap().value = 2;
    assert_eq!(world.resource::<Counted>().unwrap().value, 2);

    let again = world.insert_resource(counter.make(3)).unwrap();
    assert_eq!(again, id, "inserting again replaces, same id");
    assert_eq!(counter.live(), 1, "the replaced value was dropped");
    assert_eq!(world.resource::<Counted>().unwrap().boxed(), 3);

    let taken = world.remove_resource::<Counted>().unwrap().unwrap();
    assert_eq!(taken.value, 3);
    assert!(!world.has_resource::<Counted>());
    let (none, events) = capture(|| world.remove_resource::<Counted>());
    assert!(none.unwrap().is_none());
    assert!(events.is_empty(), "removing an absent resource is no error");
    let (none, events) = capture(|| world.remove_resource::<Time>());
    assert!(
        none.unwrap().is_none(),
        "nor is removing a never inserted one"
    );
    assert!(events.is_empty(), "{}", laige_testkit::render(&events));
    let (missing, events) = capture(|| world.resource::<Counted>().map(|_| ()));
    assert!(matches!(missing, Err(WorldError::NoResource { .. })));
    one(&events, "ecs/resource_missing");
    drop(taken);
    assert_eq!(counter.live(), 0);

    assert_eq!(world.insert_resource(counter.make(4)).unwrap(), id);
    drop(world);
    assert_eq!(counter.live(), 0, "the world drops its resources");
}

#[test]
fn resources_are_registered_like_components() {
    let mut world = world();
    let id = world.insert_resource(Time { tick: 0, dt: 0.5 }).unwrap();
    assert!(world.registry().components().contains(id));
    assert_eq!(world.registry().component_name(id).name, "Time");
    let sys = world
        .system("Clock", nothing)
        .budget_ms(1.0)
        .writes::<Time>()
        .reads::<Pos>()
        .register()
        .unwrap()
        .id();
    assert!(world.registry().get(sys).unwrap().declares_write(id));
    assert!(!world.registry().versioned_components().contains(id));
}

fn clock(ctx: &mut SystemContext<'_>) {
    let time = ctx.resource_mut::<Time>().unwrap();
    time.tick += 1;
    let dt = time.dt;
    ctx.each::<(&mut Pos, &Vel)>(|_, (p, v)| p.x += v.x * dt)
        .unwrap();
}

#[test]
fn systems_read_and_write_resources() {
    let mut world = world();
    world.insert_resource(Time { tick: 0, dt: 0.5 }).unwrap();
    let e = world.spawn((pos(0.0), vel(2.0))).unwrap();
    let id = world
        .system("Clock", clock)
        .budget_ms(1.0)
        .writes::<Time>()
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap()
        .id();
    let (registry, mut host) = world.split_for_run();
    for _ in 0..3 {
        host.run(id, registry.run(id).unwrap()).unwrap();
    }
    assert_eq!(world.resource::<Time>().unwrap().tick, 3);
    assert_eq!(world.get::<Pos>(e).unwrap().x, 3.0);

    // The split query half reaches resources too.
    let mut ctx = world.context(id).unwrap();
    let (mut queries, _, _) = ctx.split();
    queries.resource_mut::<Time>().unwrap().dt = 1.0;
    assert_eq!(queries.resource::<Time>().unwrap().dt, 1.0);
}

fn matrix_world(decl: Decl) -> (World, SystemId) {
    let mut world = world();
    world.insert_resource(Time { tick: 7, dt: 0.5 }).unwrap();
    let builder = world.system("Matrix", nothing).budget_ms(1.0);
    let builder = declare::<Time>(builder, decl);
    let id = builder.register().unwrap().id();
    (world, id)
}

#[rstest]
#[case::read_undeclared(Decl::Nothing, false, Some(None))]
#[case::write_undeclared(Decl::Nothing, true, Some(None))]
#[case::read_of_read(Decl::Read, false, None)]
#[case::read_of_fresh(Decl::Fresh, false, None)]
#[case::read_of_write(Decl::Write, false, None)]
#[case::write_of_read(Decl::Read, true, Some(Some(Access::Read)))]
#[case::write_of_fresh(Decl::Fresh, true, Some(Some(Access::ReadFresh)))]
#[case::write_of_write(Decl::Write, true, None)]
#[case::read_of_snapshot(Decl::Snapshot, false, Some(Some(Access::ReadSnapshot)))]
#[case::write_of_snapshot(Decl::Snapshot, true, Some(Some(Access::ReadSnapshot)))]
fn resource_access_matrix(
    #[case] decl: Decl,
    #[case] write: bool,
    #[case] refused: Option<Option<Access>>,
) {
    let (mut world, id) = matrix_world(decl);
    let mut ctx = world.context(id).unwrap();
    let (result, events) = capture(|| {
        if write {
            ctx.resource_mut::<Time>().map(|t| {
                t.tick += 1;
                t.tick
            })
        } else {
            ctx.resource::<Time>().map(|t| t.tick)
        }
    });
    match refused {
        None => {
            assert_eq!(result, Ok(7 + u64::from(write)));
            assert!(events.is_empty(), "{}", laige_testkit::render(&events));
        }
        Some(declared) => {
            let err = result.unwrap_err();
            let access = if write { Access::Write } else { Access::Read };
            assert!(
                matches!(
                    err,
                    QueryError::Undeclared { system: "Matrix", system_id, component, access: a, declared: d }
                        if system_id == id && component.ends_with("Time") && a == access && d == declared
                ),
                "{err:?}"
            );
            let message = err.to_string();
            assert!(
                message.contains("`Matrix`") && message.contains("Time"),
                "{message}"
            );
            let event = one(&events, "ecs/access_violation");
            assert_eq!(event.field("system"), Some("Matrix"));
            assert_eq!(
                event.field("access"),
                Some(if write { "write" } else { "read" })
            );
        }
    }
}

#[test]
fn missing_resources_and_component_types_are_errors_in_systems() {
    let mut world = world();
    world.insert_resource(Time { tick: 0, dt: 0.5 }).unwrap();
    let id = world
        .system("Matrix", nothing)
        .budget_ms(1.0)
        .reads::<Time>()
        .reads::<Pos>()
        .register()
        .unwrap()
        .id();
    world.remove_resource::<Time>().unwrap();
    let ctx = world.context(id).unwrap();

    let (removed, events) = capture(|| ctx.resource::<Time>().map(|_| ()));
    let err = removed.unwrap_err();
    assert!(matches!(
        err,
        QueryError::NoResource {
            system: "Matrix",
            is_component: false,
            ..
        }
    ));
    assert!(err.to_string().contains("insert_resource"), "{err}");
    let event = one(&events, "ecs/resource_missing");
    assert_eq!(event.field("system"), Some("Matrix"));

    let (component, _) = capture(|| ctx.resource::<Pos>().map(|_| ()));
    let err = component.unwrap_err();
    assert!(matches!(
        err,
        QueryError::NoResource {
            is_component: true,
            ..
        }
    ));
    assert!(err.to_string().contains("component type"), "{err}");

    let (unregistered, _) = capture(|| ctx.resource::<Unregistered>().map(|_| ()));
    assert!(matches!(
        unregistered,
        Err(QueryError::NoResource {
            is_component: false,
            ..
        })
    ));
}

#[test]
fn a_resource_type_is_never_a_component() {
    let mut world = world();
    world.insert_resource(Time { tick: 0, dt: 0.5 }).unwrap();
    let e = world.spawn((pos(0.0),)).unwrap();
    let time = || Time { tick: 1, dt: 1.0 };

    let (results, events) = capture(|| {
        [
            world.spawn((pos(1.0), time())).map(|_| ()),
            world.insert(e, time()),
            world.get::<Time>(e).map(|_| ()),
            world.has::<Time>(e).map(|_| ()),
            world.remove::<Time>(e).map(|_| ()),
        ]
    });
    for result in results {
        let err = result.unwrap_err();
        assert!(
            matches!(err, WorldError::ResourceAsComponent { component } if component.ends_with("Time")),
            "{err:?}"
        );
        assert!(err.to_string().contains("resource"), "{err}");
    }
    assert!(!events.is_empty() && events.iter().all(|e| e.name == "ecs/resource_as_component"));
    assert_eq!(world.len(), 1, "nothing spawned");

    let mut buffer = CommandBuffer::new();
    capture(|| {
        let mut commands = world.commands(&mut buffer);
        commands.spawn((time(),));
        commands.insert(e, time());
        commands.remove::<Time>(e);
    });
    let stats = world.apply(&mut buffer).unwrap();
    assert_eq!(
        (stats.applied, stats.skipped),
        (0, 3),
        "each is skipped when applied"
    );
    assert!(matches!(
        stats.first_skip.map(|it| (it.command, it.reason)),
        Some((
            CommandKind::Spawn,
            CommandSkipReason::Refused(WorldError::ResourceAsComponent { .. })
        ))
    ));
    assert_eq!(world.len(), 1, "nothing spawned");

    let (query, events) = capture(|| world.each::<&Time>(|_, _| ()));
    assert!(matches!(
        query,
        Err(QueryError::ResourceInQuery { system: None, .. })
    ));
    one(&events, "ecs/query_resource");
    let (filter, _) = capture(|| world.each::<(Entity, With<Time>)>(|_, _| ()));
    assert!(matches!(filter, Err(QueryError::ResourceInQuery { .. })));

    let id = world
        .system("Q", nothing)
        .budget_ms(1.0)
        .reads::<Time>()
        .register()
        .unwrap()
        .id();
    let mut ctx = world.context(id).unwrap();
    let (query, _) = capture(|| ctx.each::<Option<&Time>>(|_, _| ()));
    let err = query.unwrap_err();
    assert!(matches!(
        err,
        QueryError::ResourceInQuery {
            system: Some("Q"),
            ..
        }
    ));
    assert!(err.to_string().contains("ctx.resource::<"), "{err}");

    let (dup, _) = capture(|| world.register_component::<Time>());
    assert!(matches!(dup, Err(WorldError::ComponentDuplicate { .. })));
}

#[test]
fn a_component_type_is_never_a_resource() {
    let mut world = world();
    let counter = Counter::default();
    world.register_component::<Counted>().unwrap();
    let (result, events) = capture(|| world.insert_resource(counter.make(1)));
    let err = result.unwrap_err();
    assert!(
        matches!(err, WorldError::ComponentAsResource { component } if component.ends_with("Counted"))
    );
    assert!(err.to_string().contains("newtype"), "{err}");
    one(&events, "ecs/component_as_resource");
    assert_eq!(counter.live(), 0, "the refused value was dropped");

    let (results, _) = capture(|| {
        [
            world.resource::<Pos>().map(|_| ()),
            world.resource_mut::<Pos>().map(|_| ()),
            world.remove_resource::<Pos>().map(|_| ()),
            world.insert_hashed_resource(pos(1.0)).map(|_| ()),
        ]
    });
    for result in results {
        assert!(
            matches!(result, Err(WorldError::ComponentAsResource { .. })),
            "{result:?}"
        );
    }
    assert!(!world.has_resource::<Pos>());
}

#[test]
fn hashed_resources_enter_the_state_hash_after_the_components() {
    // An empty world: no entities, no systems, one hashed resource.
    let mut world = World::new(WorldOptions::default());
    let id = world.insert_hashed_resource(Score(7)).unwrap();
    let mut h = StateHasher::new();
    h.write_bytes(&0u32.to_be_bytes()); // live entities (u32)
    h.write_bytes(&0u32.to_be_bytes()); // component sets (u32), so no entities follow
    h.write_bytes(&id.get().to_be_bytes()); // the resource id (u16)
    h.write_bytes(&7u32.to_be_bytes()); // Score's u32
    let components = h.finish();
    h.write_u64(0); // systems
    assert_eq!(world.component_state_hash(), components);
    assert_eq!(world.state_hash(), h.finish());

    let before = world.state_hash();
    world.resource_mut::<Score>().unwrap().0 = 8;
    assert_ne!(world.state_hash(), before, "the value counts");
    world.insert_resource(Score(7)).unwrap();
    assert_eq!(
        world.state_hash(),
        before,
        "a later plain insert keeps it hashed"
    );
    world.remove_resource::<Score>().unwrap();
    assert_eq!(
        world.state_hash(),
        World::new(WorldOptions::default()).state_hash(),
        "a removed resource does not count"
    );
}

#[test]
fn plain_resources_leave_the_state_hash_alone() {
    let base = {
        let mut world = world();
        world.spawn((pos(1.0), Health(3))).unwrap();
        world.state_hash()
    };
    let mut world = world();
    world.spawn((pos(1.0), Health(3))).unwrap();
    world.insert_resource(Time { tick: 0, dt: 0.5 }).unwrap();
    assert_eq!(world.state_hash(), base);
    world.resource_mut::<Time>().unwrap().tick = 9;
    assert_eq!(world.state_hash(), base);
}

fn hasher(ctx: &mut SystemContext<'_>) {
    ctx.component_state_hash().unwrap();
}

#[test]
fn the_in_system_hash_needs_hashed_resources_declared() {
    let mut world = world();
    world.insert_hashed_resource(Score(1)).unwrap();
    let without = world
        .system("Without", hasher)
        .budget_ms(1.0)
        .reads::<Pos>()
        .reads::<Health>()
        .register()
        .unwrap()
        .id();
    let with = world
        .system("With", hasher)
        .budget_ms(1.0)
        .reads::<Pos>()
        .reads::<Health>()
        .reads::<Score>()
        .register()
        .unwrap()
        .id();
    let (err, _) = capture(|| world.context(without).unwrap().component_state_hash());
    assert!(matches!(
        err,
        Err(QueryError::Undeclared { component, .. }) if component.ends_with("Score")
    ));
    let inside = world.context(with).unwrap().component_state_hash().unwrap();
    assert_eq!(inside, world.component_state_hash());
}
