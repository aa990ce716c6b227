//! Queries: element kinds, filters, order, chunks, and the access-check matrix.

use laige_testkit::capture;
use laige_world::{Access, Entity, QueryError, SystemContext, SystemId, With, Without, World};
use rstest::rstest;

use crate::support::{
    Decl, Health, Pos, Tag, Unregistered, Vel, Wide, declare, named, one, pos, vel, world,
};

/// Entities in three archetypes created in the order {Pos, Tag}, {Pos}, {Pos, Vel}.
fn layered() -> (World, Vec<Entity>) {
    let mut world = world();
    let es = vec![
        world.spawn((pos(0.0), Tag)).unwrap(),
        world.spawn((pos(1.0),)).unwrap(),
        world.spawn((pos(2.0), vel(2.0))).unwrap(),
        world.spawn((pos(3.0), Tag)).unwrap(),
        world.spawn((pos(4.0), vel(4.0))).unwrap(),
        world.spawn((Health(5),)).unwrap(),
    ];
    (world, es)
}

#[test]
fn archetypes_in_ascending_id_rows_in_table_order() {
    let (mut world, es) = layered();
    let mut seen = Vec::new();
    world.each::<&Pos>(|e, _| seen.push(e)).unwrap();
    assert_eq!(seen, [es[0], es[3], es[1], es[2], es[4]]);
    let mut all = Vec::new();
    world
        .each::<Entity>(|e, item| {
            assert_eq!(e, item);
            all.push(e);
        })
        .unwrap();
    assert_eq!(
        all,
        [es[0], es[3], es[1], es[2], es[4], es[5]],
        "`Entity` alone visits every entity"
    );
}

/// The entities of every non-empty table, in ascending table id, whose signature has all of
/// `with` and none of `without`: what a query must visit.
fn brute_force(
    world: &World,
    with: &[Option<laige_world::ComponentId>],
    without: &[Option<laige_world::ComponentId>],
) -> Vec<Entity> {
    world
        .archetypes()
        .iter()
        .filter(|table| {
            with.iter()
                .all(|c| c.is_some_and(|c| table.signature().contains(c)))
                && without
                    .iter()
                    .all(|c| c.is_none_or(|c| !table.signature().contains(c)))
        })
        .flat_map(|table| table.entities().iter().copied())
        .collect()
}

#[test]
fn queries_visit_exactly_the_matching_tables() {
    let mut world = world();
    // Tables of many shapes, created in an order unrelated to their components, with one
    // left empty: Health is in more tables than Tag, Tag in more than Vel.
    for i in 0..40 {
        let e = world.spawn((Health(i),)).unwrap();
        if i % 2 == 0 {
            world.insert(e, Tag).unwrap();
        }
        if i % 3 == 0 {
            world.insert(e, pos(i as f32)).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, vel(1.0)).unwrap();
        }
        if i % 7 == 0 {
            world.insert(e, Wide(7)).unwrap();
        }
    }
    let gone = world.spawn((Tag, Wide(1), vel(0.0))).unwrap();
    world.despawn(gone).unwrap();
    let [h, t, p, v, w] = [
        world.component_id::<Health>(),
        world.component_id::<Tag>(),
        world.component_id::<Pos>(),
        world.component_id::<Vel>(),
        world.component_id::<Wide>(),
    ];

    let mut seen = Vec::new();
    world
        .each::<(&Health, With<Tag>)>(|e, _| seen.push(e))
        .unwrap();
    assert_eq!(seen, brute_force(&world, &[h, t], &[]));
    let mut seen = Vec::new();
    world
        .each::<(With<Tag>, &Health, Without<Pos>)>(|e, _| seen.push(e))
        .unwrap();
    assert_eq!(seen, brute_force(&world, &[h, t], &[p]));
    let mut seen = Vec::new();
    world
        .each::<(&Vel, Option<&Pos>, Without<Wide>)>(|e, _| seen.push(e))
        .unwrap();
    assert_eq!(seen, brute_force(&world, &[v], &[w]));
    let mut seen = Vec::new();
    world
        .each::<(&mut Health, &Wide)>(|e, _| seen.push(e))
        .unwrap();
    assert_eq!(seen, brute_force(&world, &[h, w], &[]));
    let mut seen = Vec::new();
    world
        .each_chunk::<&Health>(|es, _| seen.extend_from_slice(es))
        .unwrap();
    assert_eq!(seen, brute_force(&world, &[h], &[]));
    let mut seen = Vec::new();
    world
        .each::<(Entity, Without<Health>)>(|e, _| seen.push(e))
        .unwrap();
    assert_eq!(seen, brute_force(&world, &[], &[h]));
    assert!(seen.is_empty());
}

#[test]
fn read_write_and_optional_elements() {
    let (mut world, es) = layered();
    world
        .each::<(&mut Pos, &Vel)>(|_, (p, v)| p.x += v.x)
        .unwrap();
    assert_eq!(world.get::<Pos>(es[2]).unwrap().x, 4.0);
    assert_eq!(world.get::<Pos>(es[4]).unwrap().x, 8.0);
    assert_eq!(world.get::<Pos>(es[1]).unwrap().x, 1.0);

    let mut opt = Vec::new();
    world
        .each::<(Entity, &Pos, Option<&Vel>)>(|_, (e, _, v)| opt.push((e, v.map(|v| v.x))))
        .unwrap();
    assert_eq!(
        opt,
        [
            (es[0], None),
            (es[3], None),
            (es[1], None),
            (es[2], Some(2.0)),
            (es[4], Some(4.0))
        ]
    );

    world
        .each::<Option<&mut Vel>>(|_, v| {
            if let Some(v) = v {
                v.y = 0.0
            }
        })
        .unwrap();
    assert_eq!(world.get::<Vel>(es[2]).unwrap().y, 0.0);
}

#[test]
fn with_and_without_filter_without_access() {
    let (mut world, es) = layered();
    let mut with = Vec::new();
    world
        .each::<(&Pos, With<Tag>)>(|e, _| with.push(e))
        .unwrap();
    assert_eq!(with, [es[0], es[3]]);
    let mut without = Vec::new();
    world
        .each::<(&Pos, Without<Tag>, Without<Vel>)>(|e, _| without.push(e))
        .unwrap();
    assert_eq!(without, [es[1]]);
    let mut nothing = 0;
    world
        .each::<(Entity, With<Unregistered>)>(|_, _| nothing += 1)
        .unwrap();
    world.each::<&Unregistered>(|_, _| nothing += 1).unwrap();
    assert_eq!(
        nothing, 0,
        "an unregistered type matches nothing in setup queries"
    );
    let mut everything = 0;
    world
        .each::<(Entity, Without<Unregistered>)>(|_, _| everything += 1)
        .unwrap();
    assert_eq!(everything, 6);
}

#[test]
fn nested_tuples_and_eight_elements() {
    let (mut world, es) = layered();
    world.insert(es[2], Health(7)).unwrap();
    let mut seen = Vec::new();
    world
        .each::<(
            Entity,
            &Pos,
            Option<&Vel>,
            Option<&Wide>,
            Without<Tag>,
            With<Vel>,
            Option<&Tag>,
            (Entity, &mut Health),
        )>(|_, (e, p, v, w, (), (), t, (e2, h2))| {
            h2.0 += 1;
            seen.push((e, e2, p.x, v.is_some(), w.map(|w| w.0), t.is_some(), h2.0));
        })
        .unwrap();
    assert_eq!(seen, [(es[2], es[2], 2.0, true, None, false, 8)]);
    assert_eq!(world.get::<Health>(es[2]).unwrap().0, 8);
}

#[test]
fn chunks_are_whole_columns_per_archetype() {
    let (mut world, es) = layered();
    let mut calls = Vec::new();
    world
        .each_chunk::<(&mut Pos, Option<&Vel>)>(|entities, (ps, vs)| {
            for p in ps.iter_mut() {
                p.y = 100.0;
            }
            calls.push((entities.to_vec(), ps.len(), vs.map(<[Vel]>::len)));
        })
        .unwrap();
    assert_eq!(
        calls,
        [
            (vec![es[0], es[3]], 2, None),
            (vec![es[1]], 1, None),
            (vec![es[2], es[4]], 2, Some(2))
        ]
    );
    assert_eq!(world.get::<Pos>(es[4]).unwrap().y, 100.0);
}

#[test]
fn aliasing_in_one_query_is_rejected_before_any_visit() {
    let (mut world, _) = layered();
    let mut visits = 0;
    let (results, events) = capture(|| {
        [
            world.each::<(&mut Pos, &Pos)>(|_, _| visits += 1),
            world.each::<(&Pos, &mut Pos)>(|_, _| visits += 1),
            world.each::<(&mut Pos, Option<&mut Pos>)>(|_, _| visits += 1),
            world.each::<(Entity, (Option<&Pos>, &mut Pos))>(|_, _| visits += 1),
        ]
    });
    let component = std::any::type_name::<Pos>();
    for result in results {
        assert_eq!(
            result,
            Err(QueryError::Aliased {
                system: None,
                component
            })
        );
    }
    assert_eq!(visits, 0);
    assert_eq!(
        one(&events, "ecs/query_aliased").field("component"),
        Some(component)
    );
    // Reading twice is fine.
    world
        .each::<(&Pos, &Pos)>(|_, (a, b)| assert_eq!(a, b))
        .unwrap();
}

/// The query the matrix runs.
#[derive(Clone, Copy, Debug)]
enum Run {
    ReadPos,
    WritePos,
    OptReadPos,
    OptWritePos,
    AliasWriteRead,
    ReadVelWritePos,
    WithPos,
    WithoutPos,
    Entities,
    ChunkWritePos,
    ReadHealth,
    ReadUnregistered,
    /// `prepare`, then `get` the first entity.
    LookupReadPos,
    /// `prepare`, then `get` every entity, writing each.
    LookupWritePos,
    /// `prepare`, then `get` a handle that is not alive.
    LookupWriteDead,
}

fn noop(_: &mut SystemContext<'_>) {}

fn matrix_world(decl: Decl) -> (World, SystemId) {
    let mut world = world();
    for i in 0..3 {
        world.spawn((pos(i as f32), vel(1.0))).unwrap();
    }
    let builder = world.system("Matrix", noop).budget_ms(1.0).reads::<Vel>();
    let builder = declare::<Pos>(builder, decl);
    let id = builder.register().unwrap().id();
    (world, id)
}

/// The `k`-th live entity in table order, read from metadata (no query).
fn first(ctx: &SystemContext<'_>, k: usize) -> Entity {
    let tables = ctx.storage().archetypes();
    tables
        .iter()
        .flat_map(|t| t.entities())
        .nth(k)
        .copied()
        .unwrap()
}

/// A handle that was never alive: the first entity's slot, one generation on.
fn dead(ctx: &SystemContext<'_>) -> Entity {
    let e = first(ctx, 0);
    Entity::from_parts(e.index(), e.generation() + 1).unwrap()
}

fn run(ctx: &mut SystemContext<'_>, query: Run) -> (Result<(), QueryError>, usize) {
    let mut n = 0;
    let res = match query {
        Run::ReadPos => ctx.each::<&Pos>(|_, _| n += 1),
        Run::WritePos => ctx.each::<&mut Pos>(|_, p| {
            p.x += 1.0;
            n += 1;
        }),
        Run::OptReadPos => ctx.each::<(&Vel, Option<&Pos>)>(|_, _| n += 1),
        Run::OptWritePos => ctx.each::<(&Vel, Option<&mut Pos>)>(|_, _| n += 1),
        Run::AliasWriteRead => ctx.each::<(&mut Pos, &Pos)>(|_, _| n += 1),
        Run::ReadVelWritePos => ctx.each::<(&Vel, &mut Pos)>(|_, _| n += 1),
        Run::WithPos => ctx.each::<(&Vel, With<Pos>)>(|_, _| n += 1),
        Run::WithoutPos => ctx.each::<(Entity, Without<Pos>)>(|_, _| n += 1),
        Run::Entities => ctx.each::<Entity>(|_, _| n += 1),
        Run::ChunkWritePos => ctx.each_chunk::<&mut Pos>(|es, _| n += es.len()),
        Run::ReadHealth => ctx.each::<&Health>(|_, _| n += 1),
        Run::ReadUnregistered => ctx.each::<&Unregistered>(|_, _| n += 1),
        Run::LookupReadPos => {
            let target = first(ctx, 0);
            ctx.prepare::<&Pos>()
                .map(|mut pos| n += usize::from(pos.get(target).is_some()))
        }
        Run::LookupWritePos | Run::LookupWriteDead => {
            let targets: Vec<Entity> = match query {
                Run::LookupWriteDead => vec![dead(ctx)],
                _ => (0..3).map(|k| first(ctx, k)).collect(),
            };
            ctx.prepare::<&mut Pos>().map(|mut pos| {
                for target in targets {
                    if let Some(p) = pos.get(target) {
                        p.x += 1.0;
                        n += 1;
                    }
                }
            })
        }
    };
    (res, n)
}

/// `Ok(visits)`, or the refused access (`None` for aliasing) and what was declared.
type Expect = Result<usize, (&'static str, Option<(Access, Option<Access>)>)>;

const POS: &str = "Pos";

#[rstest]
#[case::undeclared_read(Decl::Nothing, Run::ReadPos, Err((POS, Some((Access::Read, None)))))]
#[case::undeclared_write(Decl::Nothing, Run::WritePos, Err((POS, Some((Access::Write, None)))))]
#[case::write_of_read_declared(Decl::Read, Run::WritePos, Err((POS, Some((Access::Write, Some(Access::Read))))))]
#[case::option_mut_of_read_declared(Decl::Read, Run::OptWritePos, Err((POS, Some((Access::Write, Some(Access::Read))))))]
#[case::option_read_undeclared(Decl::Nothing, Run::OptReadPos, Err((POS, Some((Access::Read, None)))))]
#[case::chunk_write_of_read_declared(Decl::Read, Run::ChunkWritePos, Err((POS, Some((Access::Write, Some(Access::Read))))))]
#[case::write_second_element(Decl::Read, Run::ReadVelWritePos, Err((POS, Some((Access::Write, Some(Access::Read))))))]
#[case::undeclared_other_component(Decl::Write, Run::ReadHealth, Err(("Health", Some((Access::Read, None)))))]
#[case::unregistered_type(Decl::Write, Run::ReadUnregistered, Err(("Unregistered", Some((Access::Read, None)))))]
#[case::aliasing(Decl::Write, Run::AliasWriteRead, Err((POS, None)))]
#[case::write_of_fresh_declared(Decl::Fresh, Run::WritePos, Err((POS, Some((Access::Write, Some(Access::ReadFresh))))))]
#[case::live_read_of_snapshot_declared(Decl::Snapshot, Run::ReadPos, Err((POS, Some((Access::Read, Some(Access::ReadSnapshot))))))]
#[case::read_of_fresh_declared(Decl::Fresh, Run::ReadPos, Ok(3))]
#[case::read_of_read_declared(Decl::Read, Run::ReadPos, Ok(3))]
#[case::read_of_write_declared(Decl::Write, Run::ReadPos, Ok(3))]
#[case::write_of_write_declared(Decl::Write, Run::WritePos, Ok(3))]
#[case::option_read_of_read_declared(Decl::Read, Run::OptReadPos, Ok(3))]
#[case::option_mut_of_write_declared(Decl::Write, Run::OptWritePos, Ok(3))]
#[case::write_second_element_declared(Decl::Write, Run::ReadVelWritePos, Ok(3))]
#[case::chunk_write_declared(Decl::Write, Run::ChunkWritePos, Ok(3))]
#[case::filters_need_no_declaration(Decl::Nothing, Run::WithPos, Ok(3))]
#[case::without_needs_no_declaration(Decl::Nothing, Run::WithoutPos, Ok(0))]
#[case::entities_need_no_declaration(Decl::Nothing, Run::Entities, Ok(3))]
#[case::lookup_read_undeclared(Decl::Nothing, Run::LookupReadPos, Err((POS, Some((Access::Read, None)))))]
#[case::lookup_write_of_read_declared(Decl::Read, Run::LookupWritePos, Err((POS, Some((Access::Write, Some(Access::Read))))))]
#[case::lookup_checked_before_liveness(Decl::Read, Run::LookupWriteDead, Err((POS, Some((Access::Write, Some(Access::Read))))))]
#[case::lookup_read_of_read_declared(Decl::Read, Run::LookupReadPos, Ok(1))]
#[case::lookup_write_of_write_declared(Decl::Write, Run::LookupWritePos, Ok(3))]
#[case::lookup_of_a_dead_handle_is_none(Decl::Write, Run::LookupWriteDead, Ok(0))]
fn access_matrix(#[case] decl: Decl, #[case] query: Run, #[case] expected: Expect) {
    let (mut world, id) = matrix_world(decl);
    let ((result, visits), events) = capture(|| run(&mut world.context(id).unwrap(), query));
    match expected {
        Ok(n) => {
            assert_eq!(result, Ok(()), "{decl:?} {query:?}");
            assert_eq!(visits, n);
            assert!(events.is_empty(), "{}", laige_testkit::render(&events));
        }
        Err((component, access)) => {
            let err = result.unwrap_err();
            assert_eq!(visits, 0, "checked before the first row");
            let message = err.to_string();
            assert!(
                message.contains("`Matrix`") && message.contains(component),
                "{message}"
            );
            match (err, access) {
                (
                    QueryError::Undeclared {
                        system,
                        system_id,
                        component: name,
                        access,
                        declared,
                    },
                    Some(want),
                ) => {
                    assert_eq!((system, system_id), ("Matrix", id));
                    assert!(name.ends_with(component), "{name}");
                    assert_eq!((access, declared), want);
                    let event = one(&events, "ecs/access_violation");
                    assert_eq!(event.field("system"), Some("Matrix"));
                    assert_eq!(event.field("component"), Some(name));
                    assert_eq!(
                        event.field("access"),
                        Some(if access == Access::Write {
                            "write"
                        } else {
                            "read"
                        })
                    );
                }
                (
                    QueryError::Aliased {
                        system,
                        component: name,
                    },
                    None,
                ) => {
                    assert_eq!(system, Some("Matrix"));
                    assert!(name.ends_with(component));
                    one(&events, "ecs/query_aliased");
                }
                (err, want) => panic!("{decl:?} {query:?}: got {err:?}, want {want:?}"),
            }
        }
    }
}

#[test]
fn a_violation_is_checked_per_call_and_reported_rate_limited() {
    let (mut world, id) = matrix_world(Decl::Read);
    let (results, events) = capture(|| {
        let mut ctx = world.context(id).unwrap();
        (0..5)
            .map(|_| run(&mut ctx, Run::WritePos).0.is_err())
            .collect::<Vec<_>>()
    });
    assert_eq!(results, [true; 5], "every call is refused");
    assert_eq!(
        named(&events, "ecs/access_violation").len(),
        1,
        "one event per rate window"
    );
    assert_eq!(
        world.diagnostics().pending_suppressed(
            QueryError::Undeclared {
                system: "Matrix",
                system_id: id,
                component: "",
                access: Access::Write,
                declared: None,
            }
            .key()
        ),
        4
    );
}

fn reaper(ctx: &mut SystemContext<'_>) {
    ctx.each_with_commands::<(&Health, Option<&Pos>)>(|e, (h, p), cmds| {
        if h.0 <= 0 {
            cmds.despawn(e);
        } else if p.is_none() {
            cmds.insert(e, pos(h.0 as f32));
        }
    })
    .unwrap();
    let (mut queries, mut cmds, rng) = ctx.split();
    queries
        .each::<(Entity, &Health)>(|_, (e, _)| {
            if rng.next_range(0, 2) == 7 {
                cmds.remove::<Health>(e);
            }
        })
        .unwrap();
}

#[test]
fn commands_can_be_recorded_while_iterating() {
    let mut world = world();
    let dead = world.spawn((Health(0), pos(0.0))).unwrap();
    let alive = world.spawn((Health(3),)).unwrap();
    let id = world
        .system("Reaper", reaper)
        .budget_ms(1.0)
        .reads::<Health>()
        .reads::<Pos>()
        .register()
        .unwrap()
        .id();
    reaper(&mut world.context(id).unwrap());
    assert!(world.is_alive(dead), "commands are deferred");
    assert_eq!(world.system_commands(id).unwrap().len(), 2);
    let stats = world.apply_commands([id]).unwrap();
    assert_eq!((stats.applied, stats.skipped), (2, 0));
    assert!(!world.is_alive(dead));
    assert_eq!(world.get::<Pos>(alive).unwrap(), &pos(3.0));
}

#[test]
fn prepared_lookups_reach_entities_by_handle() {
    let (mut world, es) = layered();
    // es[0] and es[3] have {Pos, Tag}, es[1] {Pos}, es[2] and es[4] {Pos, Vel}, es[5] {Health}.
    let mut pos_vel = world.prepare::<(&Pos, Option<&Vel>)>().unwrap();
    let got: Vec<_> = es
        .iter()
        .map(|&e| pos_vel.get(e).map(|(p, v)| (p.x, v.map(|v| v.x))))
        .collect();
    let want = [
        Some((0.0, None)),
        Some((1.0, None)),
        Some((2.0, Some(2.0))),
        Some((3.0, None)),
        Some((4.0, Some(4.0))),
        None,
    ];
    assert_eq!(got, want, "es[5] has no Pos");
    let mut untagged = world.prepare::<(Entity, &Pos, Without<Tag>)>().unwrap();
    assert_eq!(
        untagged.get(es[1]).map(|(e, p, ())| (e, p.x)),
        Some((es[1], 1.0))
    );
    assert!(untagged.get(es[3]).is_none(), "a filtered-out table");

    let mut tagged = world.prepare::<(&mut Pos, With<Tag>)>().unwrap();
    for &e in &es {
        if let Some((p, ())) = tagged.get(e) {
            p.x += 100.0;
        }
    }
    let xs: Vec<f32> = es[..5]
        .iter()
        .map(|&e| world.get::<Pos>(e).unwrap().x)
        .collect();
    assert_eq!(xs, [100.0, 1.0, 2.0, 103.0, 4.0], "only the tagged rows");

    world.despawn(es[2]).unwrap();
    let mut pos = world.prepare::<&Pos>().unwrap();
    assert!(pos.get(es[2]).is_none(), "stale handle");
    // The last row of es[2]'s table moved into its slot: still reached by its own handle.
    assert_eq!(pos.get(es[4]).map(|p| p.x), Some(4.0));

    assert!(matches!(
        world.prepare::<(&mut Pos, &Pos)>(),
        Err(QueryError::Aliased { .. })
    ));
}
