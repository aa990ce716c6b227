//! The `Snapshot<&T>` query element: a setup query joining live rows with snapshot values,
//! and the `.reads_snapshot` declaration a system's query of it needs.

use laige_registry::Access;

use crate::{
    Component, ComponentOptions, Entity, QueryError, Snapshot, SystemContext, World, WorldOptions,
};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(f32);
impl Component for Vel {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plain(u8);
impl Component for Plain {}

fn nothing(_: &mut SystemContext<'_>) {}

fn world() -> (World, [Entity; 3]) {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Pos>::new().versioned())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Plain>().unwrap();
    let a = world.spawn((Pos(1.0), Vel(0.0))).unwrap();
    let b = world.spawn((Pos(2.0),)).unwrap();
    world.end_tick();
    let c = world.spawn((Pos(3.0), Vel(0.0))).unwrap();
    (world, [a, b, c])
}

#[test]
fn a_setup_query_joins_live_rows_with_snapshot_values() {
    let (mut world, [a, b, c]) = world();
    world.get_mut::<Pos>(a).unwrap().0 = 10.0;
    let mut got = Vec::new();
    world
        .each::<(Entity, &mut Pos, Snapshot<&Pos>)>(|(e, live, old)| {
            got.push((e, live.0, old.copied()));
            live.0 += 1.0;
        })
        .unwrap();
    got.sort_by_key(|(e, ..)| e.index());
    assert_eq!(
        got,
        [
            (a, 10.0, Some(Pos(1.0))),
            (b, 2.0, Some(Pos(2.0))),
            (c, 3.0, None)
        ],
        "the live write does not alias the snapshot read; the new entity has none"
    );
    let mut chunks = 0;
    world
        .each_chunk::<(Entity, Snapshot<&Pos>)>(|entities, (_, view)| {
            chunks += 1;
            assert_eq!(view.len(), 2);
            for e in entities {
                assert_eq!(view.get(*e).is_some(), *e != c);
            }
        })
        .unwrap();
    assert_eq!(chunks, 2, "one per archetype");
}

fn join(ctx: &mut SystemContext<'_>) -> Result<Vec<(Entity, Option<f32>)>, QueryError> {
    let mut got = Vec::new();
    ctx.each::<(Entity, &mut Vel, Snapshot<&Pos>)>(|(e, v, old)| {
        v.0 = old.map_or(-1.0, |p| p.0);
        got.push((e, old.map(|p| p.0)));
    })?;
    Ok(got)
}

#[test]
fn a_system_query_needs_the_snapshot_declaration() {
    let (mut world, [a, _, c]) = world();
    let good = world
        .system("Good", nothing)
        .budget_ms(1.0)
        .writes::<Vel>()
        .reads_snapshot::<Pos>()
        .register()
        .unwrap();
    let live = world
        .system("Live", nothing)
        .budget_ms(1.0)
        .writes::<Vel>()
        .reads::<Pos>()
        .register()
        .unwrap();
    let plain = world
        .system("Plain", nothing)
        .budget_ms(1.0)
        .reads_snapshot::<Plain>()
        .register()
        .unwrap();

    let got = join(&mut world.context(good).unwrap()).unwrap();
    assert_eq!(got, [(a, Some(1.0)), (c, None)]);
    assert_eq!(world.get::<Vel>(c).unwrap(), &Vel(-1.0));

    let (err, _) = laige_testkit::capture(|| join(&mut world.context(live).unwrap()));
    assert!(matches!(
        err,
        Err(QueryError::Undeclared {
            system: "Live",
            access: Access::ReadSnapshot,
            declared: Some(Access::Read),
            ..
        })
    ));

    let mut ctx = world.context(plain).unwrap();
    let (err, _) = laige_testkit::capture(|| ctx.each::<Snapshot<&Plain>>(|_| ()));
    assert!(matches!(
        err,
        Err(QueryError::NotVersioned {
            system: Some("Plain"),
            ..
        })
    ));
}
