//! Errors name things: an error that concerns a type names it, at registration and when the
//! schedule is built, and a resource parameter works for a resource inserted later.

use laige_sim::prelude::*;
use laige_sim::registry::RegisterError;
use laige_sim::scheduler::ScheduleError;
use laige_testkit::capture;

struct Pos(f32);
impl Component for Pos {}
/// Never registered.
struct Ghost;
impl Component for Ghost {}
/// A resource, inserted late or never.
struct Weather {
    rain: u32,
}

fn world() -> World {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.spawn((Pos(0.0),)).unwrap();
    world
}

#[test]
fn a_typed_query_of_an_unregistered_component_names_the_type() {
    let mut world = world();
    let haunt = |mut ghosts: Query<'_, (&Pos, &Ghost)>| ghosts.each(|_| ());
    let (err, events) = capture(|| world.system("Haunt", haunt).register().unwrap_err());
    assert!(
        matches!(
            err,
            RegisterError::IoUnregistered { name: "Haunt", component: Some(ty), .. }
                if ty == std::any::type_name::<Ghost>()
        ),
        "{err:?}"
    );
    assert_eq!(events[0].name, "system/io_unregistered");
    assert_eq!(
        events[0].field("name"),
        Some("Haunt"),
        "the contract's field keys"
    );
    insta::assert_snapshot!("typed_query", err.to_string());
}

#[test]
fn a_builder_declaration_of_an_unregistered_component_names_the_type() {
    let mut world = world();
    fn haunt(_: &mut SystemContext<'_>) {}
    let err = world
        .system_fn("Haunt", haunt)
        .reads::<Pos>()
        .writes::<Ghost>()
        .register()
        .unwrap_err();
    insta::assert_snapshot!("builder", err.to_string());
}

#[test]
fn a_plain_res_of_a_resource_never_inserted_is_a_schedule_error_naming_both() {
    let mut world = world();
    let forecast = world
        .system("Forecast", |weather: Res<'_, Weather>| {
            assert!(weather.rain < 10)
        })
        .register()
        .expect("registering before the resource is inserted is fine");
    let (err, events) = capture(|| world.schedule().unwrap_err());
    let ScheduleError::ResourceMissing { system, resource } = err else {
        panic!("{err:?}");
    };
    assert_eq!(
        (system.id, resource),
        (forecast.id(), std::any::type_name::<Weather>())
    );
    assert_eq!(events[0].name, "system/resource_missing");
    insta::assert_snapshot!("res_never_inserted", err.to_string());

    // Inserted before the schedule is built, it runs.
    world.insert_resource(Weather { rain: 3 }).unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
}

#[test]
fn optional_resources_work_for_a_resource_inserted_later_or_never() {
    let mut world = world();
    world
        .system(
            "Gauge",
            |weather: Option<Res<'_, Weather>>, mut pos: Query<'_, &mut Pos>| {
                let rain = weather.map_or(0, |it| it.rain);
                pos.each(|p| p.0 = rain as f32)
            },
        )
        .register()
        .unwrap();
    world
        .system("Storm", |weather: Option<ResMut<'_, Weather>>| {
            if let Some(mut weather) = weather {
                weather.rain += 1;
            }
        })
        .register()
        .unwrap();
    let schedule = world.schedule().expect("optional resources need no value");
    world.run_systems(&schedule).unwrap();
    let rain = |world: &mut World| {
        let mut seen = 0.0;
        world.each::<&Pos>(|p| seen = p.0).unwrap();
        seen
    };
    assert_eq!(rain(&mut world), 0.0, "never inserted: None");
    world.insert_resource(Weather { rain: 5 }).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(
        world.resource::<Weather>().unwrap().rain,
        6,
        "Storm wrote it"
    );
    assert!(rain(&mut world) >= 5.0, "inserted later: Some");
}

#[test]
fn two_writers_of_a_resource_not_inserted_yet_still_conflict() {
    let mut world = world();
    world
        .system("A", |_: Option<ResMut<'_, Weather>>| {})
        .register()
        .unwrap();
    world
        .system("B", |_: Option<ResMut<'_, Weather>>| {})
        .register()
        .unwrap();
    let err = world.schedule().unwrap_err();
    assert_eq!(err.event(), "double_writer", "{err}");
    assert!(err.to_string().contains("Weather"), "{err}");
}

#[test]
fn a_nan_or_negative_budget_is_named_as_such() {
    let mut world = world();
    let mut message = |ms: f32| {
        let err = world
            .system("Tick", || {})
            .budget_ms(ms)
            .register()
            .unwrap_err();
        assert!(
            matches!(err, RegisterError::BudgetInvalid { .. }),
            "{err:?}"
        );
        err.to_string()
    };
    insta::assert_snapshot!("budget_nan", message(f32::NAN));
    insta::assert_snapshot!("budget_negative", message(-2.5));
    insta::assert_snapshot!("budget_zero", message(0.0));
}
