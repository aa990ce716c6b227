//! Change detection over sparse components (`ComponentOptions::sparse().tracked()`), and the
//! mixed walk's per-row elements: `Mut<T>`, `Ref<T>`, `Changed<T>` and `Added<T>` in a query
//! that touches a sparse component, whether the tracked component is the sparse one or a
//! table component beside it (docs/api/changes.md, docs/decisions/0018-sparse-components.md).

use laige_executor::ExecutorOptions;
use laige_world::{
    Added, Changed, Component, Entity, Mut, Query, QueryError, Ref, ResMut, StateHash, StateHasher,
    With, World, WorldState,
};

/// A tracked table component.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(tracked, hashed, saved_copy)]
struct Pos(u32);

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// A sparse, untracked component.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(sparse, saved_copy)]
struct Stun(u32);

/// A sparse, tracked component.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(sparse, tracked, hashed, saved_copy)]
struct Burn(u32);

impl StateHash for Burn {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// What a watcher saw, per run: entity indices in query order.
#[derive(Clone, Debug, Default)]
struct Seen(Vec<Vec<u32>>);

#[derive(Clone, Debug, Default)]
struct SeenAdded(Vec<Vec<u32>>);

fn world() -> World {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.register_component::<Stun>().unwrap();
    world.register_component::<Burn>().unwrap();
    world.insert_resource(Seen::default()).unwrap();
    world.insert_resource(SeenAdded::default()).unwrap();
    world.save_resource::<Seen>().unwrap();
    world.save_resource::<SeenAdded>().unwrap();
    world
}

fn burn_watcher(q: Query<'_, Entity, Changed<Burn>>, mut seen: ResMut<'_, Seen>) {
    seen.0.push(q.iter().unwrap().map(|e| e.index()).collect());
}

fn burn_added(q: Query<'_, Entity, Added<Burn>>, mut seen: ResMut<'_, SeenAdded>) {
    seen.0.push(q.iter().unwrap().map(|e| e.index()).collect());
}

fn last_seen(world: &mut World) -> Vec<u32> {
    world.resource_mut::<Seen>().unwrap().0.pop().unwrap()
}

#[test]
fn sparse_and_tracked_registers() {
    let world = world();
    let id = world.component_id::<Burn>().unwrap();
    let info = world.component_info(id).unwrap();
    assert!(info.is_sparse() && info.is_tracked());
}

#[test]
fn mut_and_ref_reach_a_sparse_value_in_its_set() {
    let mut world = world();
    let es: Vec<_> = (0..4).map(|i| world.spawn((Pos(i),)).unwrap()).collect();
    world.insert(es[1], Stun(10)).unwrap();
    world.insert(es[3], Stun(30)).unwrap();
    world.insert(es[2], Burn(5)).unwrap();
    // `Mut` of an untracked sparse component: a plain write into the set.
    world
        .each::<(Entity, Mut<'_, Stun>)>(|(_, mut stun)| stun.0 += 1)
        .unwrap();
    assert_eq!(*world.get::<Stun>(es[1]).unwrap(), Stun(11));
    assert_eq!(*world.get::<Stun>(es[3]).unwrap(), Stun(31));
    let mut seen = Vec::new();
    world
        .each::<(Entity, Ref<'_, Burn>)>(|(e, burn)| seen.push((e, burn.0, burn.is_added())))
        .unwrap();
    assert_eq!(seen, [(es[2], 5, true)], "only the entity with a value");
    // `Ref` of an untracked sparse component is refused like any untracked one.
    let err = world.each::<Ref<'_, Stun>>(|_| {}).unwrap_err();
    assert!(matches!(err, QueryError::Untracked { .. }), "{err}");
}

#[test]
fn a_table_change_filter_in_a_mixed_query_keeps_only_the_changed_rows() {
    let mut world = world();
    let es: Vec<_> = (0..6)
        .map(|i| world.spawn((Pos(i), Stun(i))).unwrap())
        .collect();
    fn mixed(q: Query<'_, (Entity, &Stun), Changed<Pos>>, mut seen: ResMut<'_, Seen>) {
        // A `for` loop calls `next` (not `fold`): the iterator's own walk.
        let mut run = Vec::new();
        for (e, stun) in q.iter().unwrap() {
            assert_eq!(stun.0, e.index());
            run.push(e.index());
        }
        seen.0.push(run);
    }
    world.system("Mixed", mixed).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), [0, 1, 2, 3, 4, 5], "all added");
    world.get_mut::<Pos>(es[4]).unwrap().0 += 1;
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), [4]);
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), Vec::<u32>::new());
}

#[test]
fn a_mixed_query_marks_only_the_table_rows_it_hands_out() {
    let mut world = world();
    let es: Vec<_> = (0..5).map(|i| world.spawn((Pos(i),)).unwrap()).collect();
    world.insert(es[1], Stun(0)).unwrap();
    world.insert(es[3], Stun(0)).unwrap();
    fn writer(mut q: Query<'_, &mut Pos, With<Stun>>) {
        for pos in q.iter_mut().unwrap() {
            pos.0 += 100;
        }
    }
    fn watcher(q: Query<'_, Entity, Changed<Pos>>, mut seen: ResMut<'_, Seen>) {
        seen.0.push(q.iter().unwrap().map(|e| e.index()).collect());
    }
    world.system("Writer", writer).register().unwrap();
    world
        .system("Watcher", watcher)
        .after("Writer")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), [1, 3], "not the rows without `Stun`");
    assert_eq!(world.get::<Pos>(es[0]).unwrap().0, 0);
}

#[test]
fn inserts_writes_and_removes_of_a_sparse_component_are_tracked() {
    let mut world = world();
    let es: Vec<_> = (0..5).map(|i| world.spawn((Pos(i),)).unwrap()).collect();
    world.system("Added", burn_added).register().unwrap();
    world.system("Watcher", burn_watcher).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.insert(es[3], Burn(1)).unwrap();
    world.insert(es[1], Burn(1)).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(
        last_seen(&mut world),
        [1, 3],
        "table order, not insertion order"
    );
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), Vec::<u32>::new());

    // A write through `World::get_mut`, and a replacing insert: changed, not added.
    world.get_mut::<Burn>(es[3]).unwrap().0 += 1;
    world.insert(es[1], Burn(9)).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), [1, 3]);
    let added = world.resource_mut::<SeenAdded>().unwrap().0.pop().unwrap();
    assert!(added.is_empty(), "{added:?}");
    let ticks = world.component_ticks::<Burn>(es[1]).unwrap();
    assert!(ticks.changed > ticks.added);

    // Removing and adding again: added anew; a removed value has no ticks.
    world.remove::<Burn>(es[1]).unwrap();
    assert_eq!(world.component_ticks::<Burn>(es[1]), None);
    world.insert(es[1], Burn(2)).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), [1]);
    let added = world.resource_mut::<SeenAdded>().unwrap().0.pop().unwrap();
    assert_eq!(added, [1]);
}

#[test]
fn mut_marks_a_sparse_value_only_when_written_and_mut_refs_mark_every_one() {
    let mut world = world();
    let es: Vec<_> = (0..6)
        .map(|i| world.spawn((Pos(i), Burn(i))).unwrap())
        .collect();
    fn visit(mut q: Query<'_, (Entity, Mut<'_, Burn>)>) {
        for (e, mut burn) in q.iter_mut().unwrap() {
            if e.index() % 2 == 0 {
                burn.0 += 1;
            } else {
                let _ = burn.0;
            }
        }
    }
    fn all(mut q: Query<'_, &mut Burn>) {
        q.par_each(|_, burn| burn.0 += 1).unwrap();
    }
    world.system("Visit", visit).register().unwrap();
    world
        .system("Watcher", burn_watcher)
        .after("Visit")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), [0, 2, 4], "only the written values");
    assert_eq!(world.get::<Burn>(es[4]).unwrap().0, 6);

    let mut world2 = self::world();
    for i in 0..6 {
        world2.spawn((Pos(i), Burn(i))).unwrap();
    }
    world2.system("All", all).register().unwrap();
    world2
        .system("Watcher", burn_watcher)
        .after("All")
        .register()
        .unwrap();
    let schedule = world2.schedule().unwrap();
    world2.run_systems(&schedule).unwrap();
    world2.run_systems(&schedule).unwrap();
    assert_eq!(
        last_seen(&mut world2),
        [0, 1, 2, 3, 4, 5],
        "`par_each` marks"
    );
}

#[test]
fn a_rollback_restores_the_sparse_ticks() {
    let mut world = world();
    let es: Vec<_> = (0..4)
        .map(|i| world.spawn((Pos(i), Burn(i))).unwrap())
        .collect();
    world.system("Watcher", burn_watcher).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.get_mut::<Burn>(es[2]).unwrap().0 += 1;
    let mut state = WorldState::default();
    world.save_state(&mut state).unwrap();
    let ticks: Vec<_> = es
        .iter()
        .map(|&e| world.component_ticks::<Burn>(e))
        .collect();
    world.run_systems(&schedule).unwrap();
    let straight = last_seen(&mut world);
    assert_eq!(straight, [2]);
    // Churn the set after the save, then go back.
    world.remove::<Burn>(es[0]).unwrap();
    world.insert(es[0], Burn(7)).unwrap();
    world.get_mut::<Burn>(es[3]).unwrap().0 += 1;
    world.restore_state(&state).unwrap();
    let restored: Vec<_> = es
        .iter()
        .map(|&e| world.component_ticks::<Burn>(e))
        .collect();
    assert_eq!(restored, ticks);
    world.run_systems(&schedule).unwrap();
    assert_eq!(last_seen(&mut world), straight);
}

/// A game over a sparse tracked component, written by `par_each` and by commands: the
/// watcher's results, the ticks and the hash are the same on every runner.
type Outcome = (Vec<Vec<u32>>, u64, Vec<Option<(u64, u64)>>);

fn determinism_run(threads: Option<usize>) -> Outcome {
    let mut world = world();
    for i in 0..300 {
        world.spawn((Pos(i),)).unwrap();
    }
    #[derive(Debug, Default)]
    struct Tick(u32);
    world.insert_resource(Tick::default()).unwrap();
    fn clock(mut tick: ResMut<'_, Tick>) {
        tick.0 += 1;
    }
    fn ignite(
        q: Query<'_, Entity, With<Pos>>,
        mut commands: laige_world::Commands<'_>,
        tick: laige_world::Res<'_, Tick>,
    ) {
        for e in q.iter().unwrap() {
            let k = e.index() + tick.0;
            if k.is_multiple_of(13) {
                commands.insert(e, Burn(tick.0));
            } else if k.is_multiple_of(29) {
                commands.remove::<Burn>(e);
            }
        }
    }
    fn fan(mut q: Query<'_, (Entity, Mut<'_, Burn>)>, tick: laige_world::Res<'_, Tick>) {
        let t = tick.0;
        q.par_each(|_, (e, mut burn)| {
            if (e.index() + t).is_multiple_of(3) {
                burn.0 += 1;
            }
        })
        .unwrap();
    }
    world.system("Clock", clock).register().unwrap();
    world
        .system("Ignite", ignite)
        .after("Clock")
        .register()
        .unwrap();
    world
        .system("Early", burn_watcher)
        .after("Clock")
        .register()
        .unwrap();
    world
        .system("Fan", fan)
        .after("Early")
        .after("Ignite")
        .register()
        .unwrap();
    world
        .system("Added", burn_added)
        .after("Fan")
        .register()
        .unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let schedule = world.schedule().unwrap();
    for _ in 0..20 {
        world.run_systems(&schedule).unwrap();
    }
    let mut ids = Vec::new();
    world.each::<Entity>(|e| ids.push(e)).unwrap();
    let ticks = ids
        .into_iter()
        .map(|e| {
            world
                .component_ticks::<Burn>(e)
                .map(|t| (t.added, t.changed))
        })
        .collect();
    let mut seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    seen.extend(std::mem::take(
        &mut world.resource_mut::<SeenAdded>().unwrap().0,
    ));
    (seen, world.state_hash(), ticks)
}

#[test]
fn sparse_change_results_ticks_and_hash_match_on_every_runner() {
    let sequential = determinism_run(None);
    assert!(
        sequential.0[2..20].iter().all(|run| !run.is_empty()),
        "the watchers see changes every tick"
    );
    for threads in [1, 2, 4, 8] {
        assert_eq!(
            determinism_run(Some(threads)),
            sequential,
            "{threads} threads"
        );
    }
}
