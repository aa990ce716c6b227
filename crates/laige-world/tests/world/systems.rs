//! System registration through the world, and the host the runner drives.

use laige_registry::{Access, ComponentId, Io, RegisterError, SystemDef};
use laige_runner::Host;
use laige_testkit::capture;
use laige_world::{SystemContext, SystemId, SystemRun, World, WorldError};

use crate::support::{Pos, Unregistered, Vel, one, pos, vel, world};

fn movement(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, &Vel)>(|(p, v)| {
        p.x += v.x;
        p.y += v.y;
    })
    .unwrap();
}

fn input(_: &mut SystemContext<'_>) {}

/// Registers `movement` as "Movement": writes `Pos`, reads `Vel`.
fn register_movement(world: &mut World) -> SystemId {
    world
        .system("Movement", movement)
        .budget_ms(1.0)
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap()
        .id()
}

#[test]
fn the_builder_declares_access_by_type() {
    let mut world = world();
    let id = world
        .system("Movement", movement)
        .budget_ms(1.0)
        .after("Input")
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap()
        .id();
    let record = world.registry().get(id).unwrap();
    assert_eq!(
        (record.name(), world.registry().depends_on(id)),
        ("Movement", &["Input"][..])
    );
    assert_eq!(record.budget().raw(), 65536);
    let (pos_id, vel_id) = (
        world.component_id::<Pos>().unwrap(),
        world.component_id::<Vel>().unwrap(),
    );
    assert!(record.declares_write(pos_id) && record.declares_read(vel_id));
    assert!(!record.declares_read(pos_id) && !record.declares_write(vel_id));
    assert!(world.system_commands(id).unwrap().is_empty());
    assert!(world.system_rng(id).is_some());
}

#[test]
fn an_unregistered_type_is_io_unregistered() {
    let mut world = world();
    let (result, events) = capture(|| {
        world
            .system("Bad", input)
            .budget_ms(1.0)
            .reads::<Pos>()
            .reads::<Unregistered>()
            .register()
    });
    assert_eq!(
        result,
        Err(RegisterError::IoUnregistered {
            name: "Bad",
            position: 1,
            component: Some(std::any::type_name::<Unregistered>()),
            access: Access::Read,
        })
    );
    one(&events, "system/io_unregistered");
    assert!(world.registry().is_empty());
    assert_eq!(
        world.system_state(SystemId::new(1).unwrap()).map(|_| ()),
        None,
        "no state for a refused system"
    );
}

#[test]
fn registry_errors_pass_through_and_change_nothing() {
    let mut world = world();
    world
        .system("Input", input)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    let dup = world.system("Input", input).budget_ms(2.0).register();
    assert!(matches!(
        dup,
        Err(RegisterError::Duplicate { name: "Input", .. })
    ));
    let twice = world
        .system("Twice", input)
        .budget_ms(1.0)
        .reads::<Pos>()
        .writes::<Pos>()
        .register();
    assert!(matches!(
        twice,
        Err(RegisterError::IoDuplicate { name: "Twice", .. })
    ));
    let zero_budget = world.system("Free", input).budget_ms(0.0).register();
    assert!(matches!(
        zero_budget,
        Err(RegisterError::BudgetInvalid { .. })
    ));
    assert_eq!(world.registry().len(), 1);
}

#[test]
fn raw_definitions_register_too() {
    let mut world = world();
    let pos_id: ComponentId = world.component_id::<Pos>().unwrap();
    let def = SystemDef::new("Raw", SystemRun::from_fn(movement))
        .budget_ms(0.5)
        .writes(pos_id)
        .io(Io {
            component: world.component_id::<Vel>(),
            access: Access::Read,
            type_name: None,
        });
    let id = world.register_system(def).unwrap();
    let e = world.spawn((pos(1.0), vel(1.0))).unwrap();
    let (registry, mut host) = world.split_for_run();
    let run = *registry.run(id).unwrap();
    host.run(id, &run).unwrap();
    assert_eq!(world.get::<Pos>(e).unwrap(), &Pos { x: 2.0, y: 1.0 });
}

#[test]
fn the_host_runs_systems_by_id_for_a_runner() {
    let mut world = world();
    let e = world.spawn((pos(0.0), vel(1.0))).unwrap();
    world
        .system("Input", input)
        .budget_ms(1.0)
        .register()
        .unwrap()
        .id();
    let id = register_movement(&mut world);
    let (registry, mut host) = world.split_for_run();
    let order: Vec<SystemId> = registry.iter().map(|r| r.id()).collect();
    for _ in 0..3 {
        for &id in &order {
            host.run_system(id, registry.run(id).unwrap());
        }
    }
    assert_eq!(world.get::<Pos>(e).unwrap().x, 3.0);

    let ghost = SystemId::new(3).unwrap();
    let (_, mut host) = world.split_for_run();
    let (result, events) = capture(|| host.run(ghost, &SystemRun::from_fn(movement)));
    assert_eq!(result, Err(WorldError::UnknownSystem { id: 3, systems: 2 }));
    one(&events, "ecs/system_unknown");
    assert!(world.context(ghost).is_err());
    let ctx = world.context(id).unwrap();
    assert_eq!((ctx.id(), ctx.name()), (id, "Movement"));
    assert!(
        ctx.writes()
            .contains(ctx.storage().component_id::<Pos>().unwrap())
    );
}

#[test]
fn worlds_with_the_same_setup_get_the_same_ids() {
    let build = || {
        let mut world = World::default();
        world.register_component::<Vel>().unwrap();
        world.register_component::<Pos>().unwrap();
        let a = world
            .system("Input", input)
            .budget_ms(1.0)
            .register()
            .unwrap()
            .id();
        let b = register_movement(&mut world);
        (world.component_id::<Pos>().unwrap().get(), a.get(), b.get())
    };
    assert_eq!(build(), (2, 1, 2));
    assert_eq!(build(), build());
}

/// Contract §8.2, 22 `ClearLeavesRegistryUntouched`: `clear()` empties the entities only;
/// the system keeps its id and declared access, and still schedules and runs.
#[test]
fn clear_leaves_registry_untouched() {
    let mut world = world();
    world.spawn((pos(1.0), vel(1.0))).unwrap();
    world.spawn((pos(2.0),)).unwrap();
    let id = register_movement(&mut world);
    let (pos_id, vel_id) = (
        world.component_id::<Pos>().unwrap(),
        world.component_id::<Vel>().unwrap(),
    );
    world.clear();
    assert_eq!(world.len(), 0);
    assert_eq!(world.registry().len(), 1);
    let record = world.registry().get(id).unwrap();
    assert_eq!(record.name(), "Movement");
    assert!(record.declares_write(pos_id) && record.declares_read(vel_id));
    assert!(!record.declares_write(vel_id));
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let moved = world.spawn((pos(1.0), vel(2.0))).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.get::<Pos>(moved).unwrap().x, 3.0);
}
