//! Typed systems: parameters declare access, registration refuses what cannot run soundly,
//! and closures, `Local` state, resources and the PRNG behave as parameters.

use laige_registry::{Access, MAX_IO, RegisterError};
use laige_testkit::{capture, render_with_messages};
use laige_world::{
    Commands, Component, ComponentOptions, Entity, Fresh, Local, Prng, Query, Res, ResMut, Rng,
    Snapshot, SystemContext, SystemId, With, World, WorldOptions,
};

use crate::support::{Health, Pos, Tag, Unregistered, Vel, one, pos, vel, world};

/// A resource.
#[derive(Debug, Default, PartialEq)]
struct Time {
    dt: f32,
    ticks: u32,
}

fn time_world() -> World {
    let mut world = world();
    world.insert_resource(Time { dt: 0.5, ticks: 0 }).unwrap();
    world
}

/// `(reads, writes, fresh, snapshot)` of system `id`, as component ids.
fn declared(world: &World, id: impl Into<SystemId>) -> [Vec<u16>; 4] {
    let record = world.registry().get(id.into()).unwrap();
    let ids = |set: &laige_world::ComponentSet| set.iter().map(|c| c.get()).collect();
    [
        ids(record.reads()),
        ids(record.writes()),
        ids(record.reads_fresh()),
        ids(record.reads_snapshot()),
    ]
}

fn movement(mut q: Query<'_, (&mut Pos, &Vel)>, time: Res<'_, Time>) {
    q.each(|(p, v)| p.x += v.x * time.dt).unwrap();
}

#[test]
fn parameters_declare_the_access_a_hand_written_definition_would() {
    let mut world = time_world();
    let typed = world.system("Typed", movement).register().unwrap();
    let mut other = time_world();
    let by_hand = other
        .system("ByHand", |_: &mut SystemContext<'_>| {})
        .writes::<Pos>()
        .reads::<Vel>()
        .reads::<Time>()
        .register()
        .unwrap();
    // Pos 1, Vel 2, Time 6 (the first resource, after the five components).
    assert_eq!(
        declared(&world, typed),
        [vec![2, 6], vec![1], vec![], vec![]]
    );
    assert_eq!(declared(&world, typed), declared(&other, by_hand));
    let record = world.registry().get(typed.id()).unwrap();
    assert_eq!(
        record.budget(),
        WorldOptions::DEFAULT_BUDGET,
        "no budget needed"
    );

    let e = world.spawn((pos(0.0), vel(2.0))).unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.get::<Pos>(e).unwrap().x, 1.0);
}

#[test]
fn fresh_and_snapshot_elements_declare_their_kinds() {
    let mut world = World::default();
    world.register_component::<Vel>().unwrap();
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world.register_component::<Health>().unwrap();
    let id = world
        .system(
            "Kinds",
            |mut fresh: Query<'_, (&mut Health, Fresh<&Vel>)>,
             mut old: Query<'_, (Entity, Snapshot<&Pos>)>| {
                fresh.each(|(h, v)| h.0 += v.x as i32)?;
                old.each(|(_, p)| assert!(p.is_none_or(|p| p.x >= 0.0)))
            },
        )
        .register()
        .unwrap();
    // Vel 1, Pos 2, Health 3: a fresh read is also a read.
    assert_eq!(declared(&world, id), [vec![1], vec![3], vec![1], vec![2]]);
    world.spawn((vel(3.0), pos(1.0), Health(0))).unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let mut total = 0;
    world.each::<&Health>(|h| total += h.0).unwrap();
    assert_eq!(total, 3);
}

#[test]
fn builder_declarations_add_to_the_parameters_and_may_widen_them() {
    let mut world = time_world();
    let id = world
        .system("Wide", |_: Query<'_, &Pos>| {})
        .writes::<Pos>()
        .reads::<Health>()
        .register()
        .unwrap();
    assert_eq!(declared(&world, id), [vec![3], vec![1], vec![], vec![]]);
    let fresh = world
        .system("Fresh", |_: Query<'_, &Vel>| {})
        .reads_fresh::<Vel>()
        .register()
        .unwrap();
    assert_eq!(declared(&world, fresh), [vec![2], vec![], vec![2], vec![]]);
}

/// Registers a typed system expected to be refused, checks the error, its single event and
/// that nothing was registered, and snapshots the event with its message. Events are rate
/// limited per world: give each call a fresh world.
fn refused<M: 'static>(
    world: &mut World,
    label: &str,
    system: impl laige_world::IntoSystem<M>,
    declare: impl FnOnce(laige_world::SystemBuilder<'_>) -> laige_world::SystemBuilder<'_>,
) -> RegisterError {
    let before = world.registry().len();
    let (result, events) = capture(|| declare(world.system("Bad", system)).register());
    let err = result.expect_err("the system must be refused");
    let event = one(&events, &format!("system/{}", err.event()));
    assert_eq!(event.message, err.to_string());
    assert_eq!(err.code(), "invalid_argument");
    assert_eq!(world.registry().len(), before, "nothing registered");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_suffix(label);
    settings.bind(|| insta::assert_snapshot!(render_with_messages(&events)));
    err
}

#[test]
fn a_builder_declaration_that_contradicts_a_parameter_is_refused() {
    let err = refused(&mut time_world(), "read_for_write", movement, |b| {
        b.reads::<Pos>()
    });
    assert!(matches!(
        err,
        RegisterError::AccessContradicts {
            name: "Bad",
            declared: Access::Read,
            needs: Access::Write,
            ..
        }
    ));
    let fresh = |_: Query<'_, Fresh<&Vel>>| {};
    let err = refused(&mut time_world(), "read_for_fresh", fresh, |b| {
        b.reads::<Vel>()
    });
    assert!(matches!(
        err,
        RegisterError::AccessContradicts {
            needs: Access::ReadFresh,
            ..
        }
    ));
    let live = |_: Res<'_, Time>| {};
    let err = refused(&mut time_world(), "snapshot_for_read", live, |b| {
        b.reads_snapshot::<Time>()
    });
    assert!(matches!(
        err,
        RegisterError::AccessContradicts {
            declared: Access::ReadSnapshot,
            ..
        }
    ));
    let text = err.to_string();
    assert!(text.contains("`Bad`") && text.contains("Time"), "{text}");
}

#[test]
fn parameters_that_alias_are_refused() {
    let two_queries = |_: Query<'_, &mut Pos>, _: Query<'_, &Pos>| {};
    let err = refused(&mut time_world(), "write_and_read", two_queries, |b| b);
    assert!(matches!(
        err,
        RegisterError::ParamConflict {
            first_access: Access::Write,
            second_access: Access::Read,
            ..
        }
    ));
    let one_query = |_: Query<'_, (&mut Pos, Option<&Pos>)>| {};
    refused(&mut time_world(), "within_one_query", one_query, |b| b);
    let resources = |_: Res<'_, Time>, _: ResMut<'_, Time>| {};
    refused(&mut time_world(), "res_and_res_mut", resources, |b| b);
    let commands = |_: Commands<'_>, _: (Local<'_, u8>, Commands<'_>)| {};
    refused(&mut time_world(), "two_commands", commands, |b| b);
    let rngs = |_: Rng<'_>, _: Rng<'_>| {};
    refused(&mut time_world(), "two_rngs", rngs, |b| b);
}

#[test]
fn reading_a_component_live_and_as_a_snapshot_is_refused() {
    let mut world = World::default();
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    let both = |_: Query<'_, &Pos>, _: Query<'_, Snapshot<&Pos>>| {};
    let err = refused(&mut world, "live_and_snapshot", both, |b| b);
    assert!(matches!(err, RegisterError::ParamConflict { .. }));
    // Two reads, of one kind or fresh and plain, are fine.
    let reads = |_: Query<'_, &Pos>, _: Query<'_, (Fresh<&Pos>, &Pos)>| {};
    let id = world.system("Reads", reads).register().unwrap();
    assert_eq!(declared(&world, id), [vec![1], vec![], vec![1], vec![]]);
}

#[test]
fn a_parameter_naming_the_wrong_kind_of_type_is_refused() {
    refused(
        &mut time_world(),
        "component_as_resource",
        |_: Res<'_, Pos>| {},
        |b| b,
    );
    refused(
        &mut time_world(),
        "resource_in_query",
        |_: Query<'_, &Time>| {},
        |b| b,
    );
    let filter = |_: Query<'_, &Pos, With<Time>>| {};
    refused(&mut time_world(), "resource_in_filter", filter, |b| b);
    let snapshot = |_: Query<'_, Snapshot<&Vel>>| {};
    let err = refused(&mut time_world(), "unversioned_snapshot", snapshot, |b| b);
    assert!(matches!(
        err,
        RegisterError::ParamKind {
            expected: "a versioned component",
            ..
        }
    ));
}

#[test]
fn the_registry_checks_typed_systems_in_its_own_order() {
    let mut world = time_world();
    world.system("Movement", movement).register().unwrap();
    let dup = world.system("Movement", movement).register().unwrap_err();
    assert!(matches!(
        dup,
        RegisterError::Duplicate {
            name: "Movement",
            ..
        }
    ));
    let unregistered = |_: Query<'_, (&Pos, &Unregistered)>| {};
    let err = world
        .system("Unknown", unregistered)
        .register()
        .unwrap_err();
    assert_eq!(
        err,
        RegisterError::IoUnregistered {
            name: "Unknown",
            position: 1,
            component: Some(std::any::type_name::<Unregistered>()),
            access: Access::Read,
        }
    );
    let zero = world.system("Zero", movement).budget_ms(0.0).register();
    assert!(matches!(zero, Err(RegisterError::BudgetInvalid { .. })));
}

macro_rules! components {
    ($($c:ident),*) => {
        $( #[derive(Clone, Copy, Default)] struct $c; impl Component for $c {} )*
        /// A world with 33 more component types, and a system reading all of them.
        fn wide_world() -> World {
            let mut world = World::default();
            $( world.register_component::<$c>().unwrap(); )*
            world
        }
    };
}

components!(
    C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17, C18, C19, C20,
    C21, C22, C23, C24, C25, C26, C27, C28, C29, C30, C31, C32
);

type Eight0 = (
    &'static C0,
    &'static C1,
    &'static C2,
    &'static C3,
    &'static C4,
    &'static C5,
    &'static C6,
    &'static C7,
);
type Eight1 = (
    &'static C8,
    &'static C9,
    &'static C10,
    &'static C11,
    &'static C12,
    &'static C13,
    &'static C14,
    &'static C15,
);
type Eight2 = (
    &'static C16,
    &'static C17,
    &'static C18,
    &'static C19,
    &'static C20,
    &'static C21,
    &'static C22,
    &'static C23,
);
type Eight3 = (
    &'static C24,
    &'static C25,
    &'static C26,
    &'static C27,
    &'static C28,
    &'static C29,
    &'static C30,
    &'static C31,
);

#[test]
fn typed_systems_have_the_registrys_caps() {
    let mut world = wide_world();
    let at_cap = |_: Query<'_, (Eight0, Eight1, Eight2, Eight3)>| {};
    world.system("ThirtyTwo", at_cap).register().unwrap();
    assert_eq!(MAX_IO, 32);
    let past = |_: Query<'_, (Eight0, Eight1, Eight2, Eight3)>, _: Query<'_, &C32>| {};
    let err = world.system("ThirtyThree", past).register().unwrap_err();
    assert_eq!(
        err,
        RegisterError::IoTooMany {
            name: "ThirtyThree"
        }
    );

    let mut world = World::default();
    let handles: Vec<_> = (0..16)
        .map(|i| world.system(format!("Dep{i}"), || {}).register().unwrap())
        .collect();
    let mut builder = world.system("Sixteen", || {});
    for handle in &handles {
        builder = builder.after(handle);
    }
    builder.register().unwrap();
    let mut builder = world.system("Seventeen", || {});
    for handle in handles.iter().chain(&handles[..1]) {
        builder = builder.after(*handle);
    }
    let err = builder.register().unwrap_err();
    assert_eq!(err.event(), "dep_spec_invalid", "{err}");

    let mut world = World::default();
    for i in 0..laige_registry::MAX_SYSTEMS {
        world.system(format!("S{i}"), || {}).register().unwrap();
    }
    let err = world.system("OneTooMany", || {}).register().unwrap_err();
    assert!(matches!(
        err,
        RegisterError::BudgetExhausted { systems: 256, .. }
    ));
}

#[test]
fn closures_keep_captured_state_and_local_persists() {
    let mut world = time_world();
    let mut calls = 0u32;
    let counter = world
        .system("Counter", move |mut time: ResMut<'_, Time>| {
            calls += 1;
            time.ticks = calls;
        })
        .register()
        .unwrap();
    fn frames(mut frames: Local<'_, u32>, mut q: Query<'_, &mut Health>) {
        *frames += 1;
        let seen = *frames as i32;
        q.each(|h| h.0 = seen).unwrap();
    }
    world.system("Frames", frames).register().unwrap();
    let e = world.spawn((Health(0),)).unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(world.resource::<Time>().unwrap().ticks, 3);
    assert_eq!(world.get::<Health>(e).unwrap(), &Health(3));
    assert!(world.system_state(counter).unwrap().failure().is_none());
}

#[test]
fn a_resource_and_queries_are_used_together_inside_one_closure() {
    let mut world = time_world();
    world
        .system(
            "Scaled",
            |mut moving: Query<'_, (Entity, &mut Pos, &Vel)>,
             mut tagged: Query<'_, Entity, With<Tag>>,
             time: Res<'_, Time>,
             mut commands: Commands<'_>| {
                moving.each(|(e, p, v)| {
                    p.x += v.x * time.dt;
                    if p.x > 1.0 {
                        commands.insert(e, Tag);
                    }
                })?;
                let mut count = 0;
                tagged.each(|_| count += 1)?;
                moving.each(|(_, p, _)| p.y = count as f32)
            },
        )
        .register()
        .unwrap();
    let a = world.spawn((pos(0.0), vel(4.0))).unwrap();
    let b = world.spawn((pos(0.0), vel(1.0))).unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.get::<Pos>(a).unwrap(), &laige_world_pos(2.0, 0.0));
    assert!(world.has::<Tag>(a).unwrap() && !world.has::<Tag>(b).unwrap());
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.get::<Pos>(b).unwrap(), &laige_world_pos(1.0, 1.0));
}

fn laige_world_pos(x: f32, y: f32) -> Pos {
    Pos { x, y }
}

#[test]
fn the_rng_parameter_is_the_systems_own_stream() {
    let mut world = World::new(WorldOptions {
        seed: 42,
        ..WorldOptions::default()
    });
    world.register_component::<Health>().unwrap();
    world.spawn((Health(0),)).unwrap();
    world.system("First", || {}).register().unwrap();
    let id = world
        .system("Roll", |mut rng: Rng<'_>, mut q: Query<'_, &mut Health>| {
            q.each(|h| h.0 = rng.next_range(0, 1000) as i32)
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let mut expected = Prng::derive_substream(42, 2);
    let want = expected.next_range(0, 1000) as i32;
    let mut got = 0;
    world.each::<&Health>(|h| got = h.0).unwrap();
    assert_eq!(got, want);
    assert_eq!(world.system_rng(id), Some(&expected));
}

#[test]
fn owned_names_and_handles_order_systems() {
    let mut world = World::default();
    world.register_component::<Health>().unwrap();
    // Registered in reverse order of what they must run in.
    let last = world
        .system(format!("Step{}", 3), || {})
        .register()
        .unwrap();
    let middle = world
        .system(String::from("Step2"), || {})
        .register()
        .unwrap();
    let first = world.system("Step1", || {}).register().unwrap();
    let _ = (last, middle);
    let mut world2 = World::default();
    let a = world2.system("A", || {}).register().unwrap();
    let b = world2
        .system("B".to_string(), || {})
        .after(a)
        .register()
        .unwrap();
    let c = world2
        .system("C", || {})
        .after(b)
        .after("A")
        .register()
        .unwrap();
    assert_eq!(world2.registry().depends_on(c.id()), ["B", "A"]);
    assert_eq!((a.name(), b.name(), c.name()), ("A", "B", "C"));
    let order: Vec<_> = world2.schedule().unwrap().order().to_vec();
    assert_eq!(order, [a.id(), b.id(), c.id()]);
    assert_eq!(world.registry().find("Step1"), Some(first.id()));
}

#[test]
fn a_missing_resource_fails_the_run_and_an_optional_one_does_not() {
    let mut world = time_world();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = seen.clone();
    world
        .system("Needs", |time: Res<'_, Time>| assert!(time.dt > 0.0))
        .register()
        .unwrap();
    world
        .system("Optional", move |time: Option<Res<'_, Time>>| {
            let bit = if time.is_some() { 1 } else { 10 };
            counter.fetch_add(bit, std::sync::atomic::Ordering::SeqCst);
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.remove_resource::<Time>().unwrap();
    let (res, events) = capture(|| world.run_systems(&schedule));
    let Err(laige_world::TickError::SystemFailed { name, message, .. }) = res else {
        panic!("expected a failed run, got {res:?}");
    };
    assert_eq!(name, "Needs");
    assert!(message.contains("Time"), "{message}");
    one(&events, "ecs/resource_missing");
    one(&events, "system/system_failed");
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 11);
}

#[test]
fn a_failure_stays_until_its_commands_are_dropped_unapplied() {
    let mut world = time_world();
    let id = world
        .system(
            "Fails",
            |mut commands: Commands<'_>| -> Result<(), laige_world::BoxError> {
                commands.spawn((Tag,));
                Err("out of ideas".into())
            },
        )
        .register()
        .unwrap()
        .id();
    let (registry, mut host) = world.split_for_run();
    host.run(id, registry.run(id).unwrap()).unwrap();
    let failure = world.system_state(id).unwrap().failure().unwrap();
    assert_eq!(failure.to_string(), "out of ideas");
    assert_eq!(world.system_commands(id).unwrap().len(), 1);
    let stats = world.apply_commands([id]).unwrap();
    assert_eq!((stats.applied, stats.dropped_buffers), (0, 1));
    assert_eq!(world.len(), 0, "the failed run's spawn never happened");
    assert!(world.system_state(id).unwrap().failure().is_none());
    assert!(world.system_commands(id).unwrap().is_empty());
}

/// A parameter written by hand that fetches the same query twice in one run: safe to write,
/// and it cannot alias, because the second view's claim overlaps the first's.
struct Twice<'a>(Query<'a, &'a mut Pos>, Query<'a, &'a mut Pos>);

impl laige_world::SystemParam for Twice<'_> {
    type State = (laige_world::Claim, laige_world::Claim);
    type Item<'a> = Twice<'a>;

    fn init(init: &mut laige_world::ParamInit<'_>) -> Self::State {
        let claim = <Query<'_, &mut Pos> as laige_world::SystemParam>::init(init);
        (claim, claim)
    }

    fn fetch<'a>(
        (first, second): &'a mut Self::State,
        fetch: &mut laige_world::ParamFetch<'a>,
    ) -> Result<Twice<'a>, laige_world::QueryError> {
        let first = <Query<'_, &mut Pos>>::fetch(first, fetch)?;
        let second = <Query<'_, &mut Pos>>::fetch(second, fetch)?;
        Ok(Twice(first, second))
    }
}

#[test]
fn a_hand_written_parameter_that_would_alias_is_refused_when_fetched() {
    let mut world = world();
    let e = world.spawn((pos(1.0),)).unwrap();
    world
        .system("Twice", |mut twice: Twice<'_>| {
            let first = twice.0.iter_mut().unwrap().next();
            let second = twice.1.iter_mut().unwrap().next();
            if let (Some(a), Some(b)) = (first, second) {
                a.x = 5.0;
                b.x = 7.0;
            }
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let Err(laige_world::TickError::SystemFailed { name, message, .. }) =
        world.run_systems(&schedule)
    else {
        panic!("the second claim of `Pos` must be refused");
    };
    assert_eq!(name, "Twice");
    assert!(message.contains("Pos"), "{message}");
    assert_eq!(
        world.get::<Pos>(e).unwrap().x,
        1.0,
        "the system did not run"
    );
}
