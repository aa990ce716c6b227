//! Sparse-set components (`ComponentOptions::sparse`, `#[component(sparse)]`): stored by
//! entity outside the tables, mixed with table components in queries, commands, the state
//! hash and despawn (docs/decisions/0018-sparse-components.md).

use laige_world::{
    Commands, Component, ComponentOptions, Entity, Query, QueryError, StateHash, StateHasher,
    SystemContext, With, Without, World, WorldError,
};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(hashed)]
struct Pos(f32);

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Vel(f32);

/// A sparse marker with a value, hashed.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(sparse, hashed)]
struct Stun(u32);

impl StateHash for Stun {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// A sparse type that owns heap memory, to catch leaks and double drops under valgrind/Miri.
#[derive(Debug, Clone, PartialEq)]
struct Label(String);
impl Component for Label {}

fn world() -> World {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Stun>().unwrap();
    world
        .register_component_with(ComponentOptions::<Label>::new().sparse())
        .unwrap();
    world
}

fn spawn_line(world: &mut World, n: usize) -> Vec<Entity> {
    (0..n)
        .map(|i| world.spawn((Pos(i as f32), Vel(1.0))).unwrap())
        .collect()
}

#[test]
fn the_option_is_registered_and_derived() {
    let world = world();
    let id = world.component_id::<Stun>().unwrap();
    let info = world.component_info(id).unwrap();
    assert!(info.is_sparse() && info.is_hashed());
    assert!(Stun::component_options().is_sparse());
    let pos = world.component_id::<Pos>().unwrap();
    assert!(!world.component_info(pos).unwrap().is_sparse());
}

#[test]
fn sparse_and_versioned_is_a_clear_registration_error() {
    let mut world = World::default();
    let err = world
        .register_component_with(ComponentOptions::<Vel>::new().sparse().versioned())
        .unwrap_err();
    assert!(matches!(err, WorldError::SparseVersioned { .. }));
    insta::assert_snapshot!(err.to_string(), @"`sparse::Vel` cannot be both sparse and versioned: sparse components keep no snapshot; drop `.sparse()` (table storage) or `.versioned()` from its `ComponentOptions`");
    assert!(world.component_id::<Vel>().is_none(), "nothing registered");
}

#[test]
fn adding_and_removing_moves_no_row() {
    let mut world = world();
    let es = spawn_line(&mut world, 5);
    let before: Vec<_> = es.iter().map(|&e| world.archetype_of_row(e)).collect();
    world.insert(es[1], Stun(3)).unwrap();
    world.insert(es[3], Stun(4)).unwrap();
    world.insert(es[3], Label("x".into())).unwrap();
    let after: Vec<_> = es.iter().map(|&e| world.archetype_of_row(e)).collect();
    assert_eq!(before, after, "same table, same row");
    assert_eq!(
        world.archetypes().len(),
        2,
        "no table was made for the sparse component"
    );
    assert_eq!(world.get::<Stun>(es[1]).unwrap(), &Stun(3));
    assert!(world.has::<Stun>(es[3]).unwrap());
    assert!(!world.has::<Stun>(es[0]).unwrap());
    assert!(matches!(
        world.get::<Stun>(es[0]),
        Err(WorldError::MissingComponent { .. })
    ));
    world.insert(es[1], Stun(30)).unwrap();
    assert_eq!(world.get::<Stun>(es[1]).unwrap(), &Stun(30), "replaced");
    world.get_mut::<Stun>(es[1]).unwrap().0 += 1;
    assert_eq!(world.remove::<Stun>(es[1]).unwrap(), Some(Stun(31)));
    assert_eq!(world.remove::<Stun>(es[1]).unwrap(), None);
    assert_eq!(
        world.remove::<Label>(es[3]).unwrap(),
        Some(Label("x".into()))
    );
    let last: Vec<_> = es.iter().map(|&e| world.archetype_of_row(e)).collect();
    assert_eq!(before, last);
}

trait RowOf {
    fn archetype_of_row(&self, e: Entity) -> (u32, u32);
}

impl RowOf for World {
    fn archetype_of_row(&self, e: Entity) -> (u32, u32) {
        let location = self.storage().entities().location(e).unwrap();
        (location.archetype(), location.row())
    }
}

#[test]
fn queries_mix_sparse_and_table_components_in_table_order() {
    let mut world = world();
    let es = spawn_line(&mut world, 6);
    // Another table, after the first in id order.
    let other = world.spawn((Pos(10.0),)).unwrap();
    let bare = world.spawn((Stun(9),)).unwrap();
    for &i in &[4, 1, 2] {
        world.insert(es[i], Stun(i as u32)).unwrap();
    }
    world.insert(other, Stun(10)).unwrap();

    let mut seen = Vec::new();
    world
        .each::<(Entity, &Pos, &mut Stun)>(|(e, p, s)| {
            s.0 += 100;
            seen.push((e, p.0));
        })
        .unwrap();
    // Tables in id order, rows in table order: the sparse set's insertion order is not used.
    assert_eq!(
        seen,
        [(es[1], 1.0), (es[2], 2.0), (es[4], 4.0), (other, 10.0)]
    );
    assert_eq!(world.get::<Stun>(es[4]).unwrap(), &Stun(104));
    assert_eq!(
        world.get::<Stun>(bare).unwrap(),
        &Stun(9),
        "not matched: no Pos"
    );

    let mut only: Vec<_> = Vec::new();
    world
        .each::<(Entity, &Stun)>(|(e, _)| only.push(e))
        .unwrap();
    assert_eq!(only, [bare, es[1], es[2], es[4], other]);

    let mut with = 0;
    world.each::<(&Pos, With<Stun>)>(|_| with += 1).unwrap();
    assert_eq!(with, 4);
    let mut without = Vec::new();
    world
        .each::<(Entity, &Vel, Without<Stun>)>(|(e, _, ())| without.push(e))
        .unwrap();
    assert_eq!(without, [es[0], es[3], es[5]]);
    let mut optional = Vec::new();
    world
        .each::<(&Pos, Option<&Stun>)>(|(p, s)| optional.push((p.0, s.map(|s| s.0))))
        .unwrap();
    assert_eq!(
        optional,
        [
            (0.0, None),
            (1.0, Some(101)),
            (2.0, Some(102)),
            (3.0, None),
            (4.0, Some(104)),
            (5.0, None),
            (10.0, Some(110)),
        ]
    );

    let iterated: Vec<_> = world
        .queries()
        .iter::<(Entity, &Stun, &Vel)>()
        .unwrap()
        .map(|(e, s, _)| (e, s.0))
        .collect();
    assert_eq!(iterated, [(es[1], 101), (es[2], 102), (es[4], 104)]);

    let mut prepared = world.prepare::<(&Pos, &mut Stun)>().unwrap();
    assert!(prepared.get(es[0]).is_none());
    prepared.get(es[2]).unwrap().1.0 = 7;
    assert!(prepared.get(bare).is_none());
    assert_eq!(world.get::<Stun>(es[2]).unwrap(), &Stun(7));
}

#[test]
fn chunks_of_a_sparse_query_are_refused_with_the_fix() {
    let mut world = world();
    spawn_line(&mut world, 2);
    let err = world
        .each_chunk::<(&Pos, &Stun)>(|_, _| panic!("no chunk"))
        .unwrap_err();
    assert!(matches!(err, QueryError::SparseChunk { system: None, .. }));
    insta::assert_snapshot!(err.to_string(), @"the query `(&sparse::Pos, &sparse::Stun)` touches a sparse component, whose values are in no table column, so it has no chunks: loop over it with `each`, `iter` or `par_each`, or register the component without `.sparse()`");
}

#[test]
fn spawn_with_sparse_components_and_despawn_cleans_them_up() {
    let mut world = world();
    let a = world.spawn((Pos(1.0), Stun(1), Label("a".into()))).unwrap();
    let batch = world
        .spawn_batch((0..3).map(|i| (Pos(i as f32), Stun(10 + i))))
        .unwrap()
        .to_vec();
    assert_eq!(world.archetypes().len(), 2, "one table: (Pos)");
    assert_eq!(world.get::<Stun>(batch[2]).unwrap(), &Stun(12));
    assert_eq!(world.get::<Label>(a).unwrap(), &Label("a".into()));
    let stun = world.component_id::<Stun>().unwrap();
    assert_eq!(world.storage().rows_with(stun), 4);
    world.despawn(a).unwrap();
    assert_eq!(world.storage().rows_with(stun), 3);
    // The slot is reused: the new entity has no value of the old one.
    let reused = world.spawn((Pos(5.0),)).unwrap();
    assert_eq!(reused.index(), a.index());
    assert!(!world.has::<Stun>(reused).unwrap());
    assert!(!world.has::<Label>(reused).unwrap());
    world.clear();
    assert_eq!(world.storage().rows_with(stun), 0);
}

#[test]
fn the_state_hash_ignores_insertion_order_but_not_values() {
    let build = |order: &[usize], value: u32| {
        let mut world = world();
        let es = spawn_line(&mut world, 4);
        for &i in order {
            world.insert(es[i], Stun(value + i as u32)).unwrap();
        }
        world
    };
    let a = build(&[0, 2, 3], 1);
    let b = build(&[3, 0, 2], 1);
    assert_eq!(a.state_hash(), b.state_hash());
    let c = build(&[0, 2, 3], 2);
    assert_ne!(a.state_hash(), c.state_hash(), "hashed values count");
    let d = build(&[0, 2], 1);
    assert_ne!(a.state_hash(), d.state_hash(), "presence counts");
    // Removing and re-adding (which reorders the dense values) changes nothing.
    let mut e = build(&[0, 2, 3], 1);
    let first = e.storage().entities().iter_live().next().unwrap().0;
    let v = e.remove::<Stun>(first).unwrap().unwrap();
    e.insert(first, v).unwrap();
    assert_eq!(a.state_hash(), e.state_hash());
}

fn stun_slow(mut q: Query<'_, (Entity, &Vel, Option<&Stun>)>, mut commands: Commands<'_>) {
    q.each(|(e, _, stun)| match stun {
        Some(_) => commands.remove::<Stun>(e),
        None => commands.insert(e, Stun(e.index())),
    })
    .unwrap();
}

fn move_unstunned(mut q: Query<'_, (&mut Pos, &Vel, Without<Stun>)>) {
    q.each(|(p, v, ())| p.0 += v.0).unwrap();
}

#[test]
fn systems_insert_and_remove_sparse_components_through_commands() {
    let mut world = world();
    let es = spawn_line(&mut world, 4);
    world.insert(es[1], Stun(0)).unwrap();
    world.system("Move", move_unstunned).register().unwrap();
    world
        .system("Stun", stun_slow)
        .after("Move")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let pos: Vec<_> = es.iter().map(|&e| world.get::<Pos>(e).unwrap().0).collect();
    assert_eq!(pos, [1.0, 1.0, 3.0, 4.0]);
    let stunned: Vec<_> = es.iter().map(|&e| world.has::<Stun>(e).unwrap()).collect();
    assert_eq!(stunned, [true, false, true, true]);
    world.run_systems(&schedule).unwrap();
    let pos: Vec<_> = es.iter().map(|&e| world.get::<Pos>(e).unwrap().0).collect();
    assert_eq!(pos, [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn an_undeclared_sparse_access_is_refused() {
    let mut world = world();
    spawn_line(&mut world, 1);
    world
        .system("Sneaky", |ctx: &mut SystemContext<'_>| {
            let err = ctx.each::<(&Pos, &mut Stun)>(|_| {}).unwrap_err();
            assert!(matches!(err, QueryError::Undeclared { .. }));
        })
        .reads::<Pos>()
        .reads::<Stun>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
}

fn slow_stunned(mut q: Query<'_, (&Vel, &mut Stun)>) {
    q.par_each(|_, (v, s)| s.0 += v.0 as u32).unwrap();
}

fn move_free(mut q: Query<'_, (&mut Pos, &Vel, Without<Stun>)>) {
    q.par_each(|_, (p, v, ())| p.0 += v.0).unwrap();
}

fn refuse_chunks(mut q: Query<'_, (&Pos, &Stun)>) {
    let err = q.par_each_chunk(|_, _, _| panic!("no chunk")).unwrap_err();
    assert!(matches!(
        err,
        QueryError::SparseChunk {
            system: Some(_),
            ..
        }
    ));
}

/// 2,000 entities (half with a sparse `Label` from their bundle), every third stunned, ticked
/// three times by `par_each` systems over sparse conditions: the same state on one thread and
/// on two.
fn par_run(threads: Option<usize>) -> u64 {
    let mut world = world();
    for i in 0..2000u32 {
        let e = match i % 2 {
            0 => world.spawn((Pos(i as f32), Vel(1.0))).unwrap(),
            _ => world
                .spawn((Pos(i as f32), Vel(2.0), Label(String::new())))
                .unwrap(),
        };
        if i % 3 == 0 {
            world.insert(e, Stun(i)).unwrap();
        }
    }
    world.system("Slow", slow_stunned).register().unwrap();
    world.system("Move", move_free).register().unwrap();
    world.system("Chunks", refuse_chunks).register().unwrap();
    if let Some(threads) = threads {
        world.use_executor(laige_executor::ExecutorOptions {
            threads,
            mode: laige_executor::Mode::Parallel,
            ..Default::default()
        });
    }
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let mut stunned = 0u64;
    world.each::<&Stun>(|s| stunned += u64::from(s.0)).unwrap();
    let mut moved = 0.0f64;
    world
        .each::<(&Pos, Without<Stun>)>(|(p, ())| moved += f64::from(p.0))
        .unwrap();
    // 667 stunned entities gain 1 or 2 a tick; the others move by 1 or 2 a tick.
    assert_eq!(
        stunned,
        (0..2000u64)
            .step_by(3)
            .map(|i| i + 3 * (1 + i % 2))
            .sum::<u64>()
    );
    let free: f64 = (0..2000u32)
        .filter(|i| i % 3 != 0)
        .map(|i| f64::from(i) + 3.0 * f64::from(1 + i % 2))
        .sum();
    assert_eq!(moved, free);
    world.state_hash()
}

#[test]
fn par_each_over_sparse_conditions_is_the_same_on_any_thread_count() {
    assert_eq!(par_run(None), par_run(Some(2)));
}
