//! Named resources: two resources of one type, keyed by name, declared, ordered and hashed
//! apart; an unknown name is refused with "did you mean".

use laige_executor::ExecutorOptions;
use laige_world::{
    NamedRes, NamedResMut, RegisterError, Res, ResMut, StateHash, StateHasher, SystemContext,
    World, WorldOptions, resource_name,
};

#[derive(Clone, Debug, PartialEq)]
struct Grid(Vec<u32>);
impl StateHash for Grid {
    fn hash_state(&self, h: &mut StateHasher) {
        for cell in &self.0 {
            cell.hash_state(h);
        }
    }
}

struct Step(u32);

struct Tally(u64);
impl StateHash for Tally {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h)
    }
}

resource_name!(Terrain = "terrain"; Units = "units"; Typo = "terain");

fn world() -> World {
    let mut world = World::new(WorldOptions::default());
    world
        .insert_hashed_named_resource("terrain", Grid(vec![1, 2, 3]))
        .unwrap();
    world
        .insert_hashed_named_resource("units", Grid(vec![0; 3]))
        .unwrap();
    world.insert_resource(Step(1)).unwrap();
    world.insert_hashed_resource(Tally(0)).unwrap();
    world
}

#[test]
fn two_resources_of_one_type_live_apart() {
    let mut world = world();
    assert_eq!(
        world.named_resource::<Grid>("terrain").unwrap().0,
        [1, 2, 3]
    );
    assert_eq!(world.named_resource::<Grid>("units").unwrap().0, [0, 0, 0]);
    assert!(
        world.resource::<Grid>().is_err(),
        "the plain `Grid` is another resource"
    );
    let terrain = world
        .insert_named_resource("terrain", Grid(vec![4, 5, 6]))
        .unwrap();
    assert_eq!(
        world.component_info(terrain).unwrap().name(),
        "Grid \"terrain\""
    );
    assert_eq!(
        world.component_info(terrain).unwrap().label(),
        Some("terrain")
    );
    assert_eq!(
        world.named_resource::<Grid>("terrain").unwrap().0,
        [4, 5, 6]
    );
    world.named_resource_mut::<Grid>("units").unwrap().0[0] = 9;
    assert_eq!(
        world.remove_named_resource::<Grid>("units"),
        Some(Grid(vec![9, 0, 0]))
    );
    assert!(world.named_resource::<Grid>("units").is_err());
}

#[test]
fn typed_parameters_read_and_write_by_name_and_conflict_per_name() {
    let mut world = world();
    let spread = world
        .system(
            "Spread",
            |terrain: NamedRes<'_, Grid, Terrain>,
             mut units: NamedResMut<'_, Grid, Units>,
             step: Res<'_, Step>| {
                for (unit, cell) in units.0.iter_mut().zip(&terrain.0) {
                    *unit += cell * step.0;
                }
            },
        )
        .register()
        .unwrap();
    let erode = world
        .system("Erode", |mut terrain: NamedResMut<'_, Grid, Terrain>| {
            for cell in &mut terrain.0 {
                *cell += 1;
            }
        })
        .after(spread)
        .register()
        .unwrap();
    let count = world
        .system("Count", |units: NamedRes<'_, Grid, Units>| {
            assert!(units.0.len() == 3)
        })
        .register()
        .unwrap();
    let conflicts = world.registry().conflicts(None);
    assert!(
        conflicts.of(spread.id()).contains(erode.id()),
        "R×W on terrain"
    );
    assert!(
        conflicts.of(spread.id()).contains(count.id()),
        "W×R on units"
    );
    assert!(
        !conflicts.of(erode.id()).contains(count.id()),
        "terrain and units are apart"
    );
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.named_resource::<Grid>("units").unwrap().0, [3, 5, 7]);
    assert_eq!(
        world.named_resource::<Grid>("terrain").unwrap().0,
        [3, 4, 5]
    );
}

#[test]
fn two_writers_of_one_name_are_a_double_writer_naming_it() {
    let mut world = world();
    for name in ["A", "B"] {
        world
            .system(name, |_: NamedResMut<'_, Grid, Terrain>| {})
            .register()
            .unwrap();
    }
    world
        .system("C", |_: NamedResMut<'_, Grid, Units>| {})
        .register()
        .unwrap();
    let err = world.schedule().unwrap_err();
    insta::assert_snapshot!("double_writer_by_name", err.to_string());
}

fn low_level(ctx: &mut SystemContext<'_>) {
    let total: u32 = ctx
        .named_resource::<Grid>("terrain")
        .unwrap()
        .0
        .iter()
        .sum();
    ctx.named_resource_mut::<Grid>("units").unwrap().0[0] = total;
}

fn sneaky(ctx: &mut SystemContext<'_>) {
    let err = ctx.named_resource_mut::<Grid>("terrain").unwrap_err();
    insta::assert_snapshot!("undeclared_by_name", err.to_string());
}

#[test]
fn the_low_level_builder_declares_by_name() {
    let mut world = world();
    world
        .system_fn("LowLevel", low_level)
        .reads_named::<Grid>("terrain")
        .writes_named::<Grid>("units")
        .register()
        .unwrap();
    world
        .system_fn("Sneaky", sneaky)
        .reads_named::<Grid>("terrain")
        .after("LowLevel")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.named_resource::<Grid>("units").unwrap().0[0], 6);
}

#[test]
fn an_unknown_name_is_refused_with_did_you_mean() {
    let mut world = world();
    let err = world
        .system("Typed", |_: NamedRes<'_, Grid, Typo>| {})
        .register()
        .unwrap_err();
    assert!(
        matches!(
            err,
            RegisterError::ResourceNameUnknown {
                name: "Typed",
                given: "terain",
                suggestion: Some("terrain"),
                ..
            }
        ),
        "{err:?}"
    );
    insta::assert_snapshot!("unknown_name_typed", err.to_string());
    let err = world
        .system_fn("Builder", |_| {})
        .writes_named::<Grid>("fog")
        .register()
        .unwrap_err();
    insta::assert_snapshot!("unknown_name_builder", err.to_string());
    let err = world
        .system("Gated", || {})
        .run_if(|_: NamedRes<'_, Grid, Typo>| true)
        .register()
        .unwrap_err();
    insta::assert_snapshot!("unknown_name_condition", err.to_string());
    assert!(world.registry().is_empty());
}

fn grids(threads: Option<usize>) -> Vec<u64> {
    let mut world = world();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world
        .system("Grow", |mut terrain: NamedResMut<'_, Grid, Terrain>| {
            for (k, cell) in terrain.0.iter_mut().enumerate() {
                *cell = cell.wrapping_mul(31).wrapping_add(k as u32);
            }
        })
        .register()
        .unwrap();
    world
        .system(
            "March",
            |mut units: NamedResMut<'_, Grid, Units>, step: Res<'_, Step>| {
                units.0.rotate_left(1);
                units.0[0] += step.0;
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Follow",
            |terrain: NamedRes<'_, Grid, Terrain>,
             units: NamedRes<'_, Grid, Units>,
             mut tally: ResMut<'_, Tally>| {
                tally.0 = tally.0.wrapping_mul(7) ^ u64::from(terrain.0[1] ^ units.0[2]);
            },
        )
        .after("Grow, March")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (0..8)
        .map(|_| {
            world.run_systems(&schedule).unwrap();
            world.state_hash()
        })
        .collect()
}

#[test]
fn named_resources_hash_the_same_on_every_runner() {
    let sequential = grids(None);
    assert_ne!(
        sequential[0], sequential[1],
        "the hash sees the named values"
    );
    for threads in [1, 2, 4] {
        assert_eq!(grids(Some(threads)), sequential, "on {threads} threads");
    }
}

/// `Grow` writes `Grid "terrain"`; `Look`, registered first, reads it fresh; `Glance` reads
/// `Grid "units"` fresh, which nobody writes here.
fn look(ctx: &mut SystemContext<'_>) {
    let _ = ctx.named_resource::<Grid>("terrain").unwrap();
}

fn glance(ctx: &mut SystemContext<'_>) {
    let _ = ctx.named_resource::<Grid>("units").unwrap();
}

fn grow(ctx: &mut SystemContext<'_>) {
    ctx.named_resource_mut::<Grid>("terrain").unwrap().0[0] += 1;
}

#[test]
fn a_fresh_read_by_name_gets_its_edge_from_that_names_writer_only() {
    use laige_scheduler::{GraphCause, Layout, ScheduleGraph};
    let mut world = world();
    world.set_layout(Layout::new().dag("Main", "Sim", &["Run"], "Run"));
    world
        .system_fn("Look", look)
        .reads_fresh_named::<Grid>("terrain")
        .register()
        .unwrap();
    world
        .system_fn("Glance", glance)
        .reads_fresh_named::<Grid>("units")
        .register()
        .unwrap();
    world
        .system_fn("Grow", grow)
        .writes_named::<Grid>("terrain")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    let names: Vec<_> = schedule
        .order()
        .iter()
        .map(|&id| world.registry().get(id).unwrap().name())
        .collect();
    assert_eq!(names, ["Glance", "Grow", "Look"]);
    let graph = ScheduleGraph::new(&schedule, world.registry(), world.layout()).unwrap();
    let edges: Vec<_> = graph
        .edges()
        .iter()
        .map(|e| (e.earlier.name, e.later.name, e.cause))
        .collect();
    assert_eq!(edges.len(), 1, "{edges:?}");
    let (earlier, later, cause) = edges[0];
    assert_eq!((earlier, later), ("Grow", "Look"));
    let GraphCause::Fresh(component) = cause else {
        panic!("{cause:?}");
    };
    assert_eq!(component.name, "Grid \"terrain\"");
    world.run_systems(&schedule).unwrap();
    assert_eq!(world.named_resource::<Grid>("terrain").unwrap().0[0], 2);
}

#[test]
fn an_optional_named_resource_runs_without_its_value() {
    let mut world = world();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counted = std::sync::Arc::clone(&seen);
    world
        .system("Maybe", move |units: Option<NamedRes<'_, Grid, Units>>| {
            let code = units.map_or(100, |grid| grid.0[0]);
            counted.store(code, std::sync::atomic::Ordering::Relaxed);
        })
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 0);
    world.remove_named_resource::<Grid>("units").unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 100);
}

#[test]
fn a_plain_named_parameter_needs_its_value_when_the_schedule_is_built() {
    let mut world = world();
    world.remove_named_resource::<Grid>("terrain").unwrap();
    world
        .system("Needs", |_: NamedRes<'_, Grid, Terrain>| {})
        .register()
        .unwrap();
    let err = world.schedule().unwrap_err();
    insta::assert_snapshot!("named_resource_missing", err.to_string());
}
