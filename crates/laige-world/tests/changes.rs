//! Change detection (issue 22): `Changed<T>`, `Added<T>` and `Ref<T>` relative to each
//! system's previous run, marking by `&mut T`, commands and `World::get_mut`, the untracked
//! errors, block skipping against a model, and identical results on the sequential runner
//! and 1, 2, 4 and 8 threads.

use laige_executor::ExecutorOptions;
use laige_world::{
    Added, Changed, Commands, Component, ComponentOptions, Entity, Mut, Query, QueryError, Ref,
    ResMut, StateHash, StateHasher, SystemContext, With, World, WorldOptions,
};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(u32);
impl Component for Pos {}
impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// Untracked: filters on it are refused.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(u32);
impl Component for Vel {}

/// Marks the entities a mover writes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Moving;
impl Component for Moving {}

/// What the watchers saw, per run: entity indices in query order.
#[derive(Debug, Default)]
struct Seen(Vec<Vec<u32>>);

#[derive(Debug, Default)]
struct SeenAdded(Vec<Vec<u32>>);

fn world() -> World {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Pos>::new().tracked().hashed())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Moving>().unwrap();
    world.insert_resource(Seen::default()).unwrap();
    world.insert_resource(SeenAdded::default()).unwrap();
    world
}

fn mover(mut q: Query<'_, &mut Pos, With<Moving>>) {
    for pos in q.iter_mut().unwrap() {
        pos.0 += 1;
    }
}

fn watcher(q: Query<'_, Entity, Changed<Pos>>, mut seen: ResMut<'_, Seen>) {
    let run = q.iter().unwrap().map(|e| e.index()).collect();
    seen.0.push(run);
}

fn added_watcher(q: Query<'_, Entity, Added<Pos>>, mut seen: ResMut<'_, SeenAdded>) {
    let run = q.iter().unwrap().map(|e| e.index()).collect();
    seen.0.push(run);
}

fn spawn(world: &mut World, n: u32) -> Vec<Entity> {
    (0..n)
        .map(|i| {
            if i % 3 == 0 {
                world.spawn((Pos(i), Moving)).unwrap()
            } else {
                world.spawn((Pos(i),)).unwrap()
            }
        })
        .collect()
}

#[test]
fn a_watcher_after_the_writer_sees_everything_first_then_only_the_writes() {
    let mut world = world();
    spawn(&mut world, 7);
    world.system("Mover", mover).register().unwrap();
    world
        .system("Watcher", watcher)
        .after("Mover")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let seen = &world.resource::<Seen>().unwrap().0;
    assert_eq!(seen[0], vec![0, 3, 6, 1, 2, 4, 5], "first run: all added");
    assert_eq!(seen[1], vec![0, 3, 6]);
    assert_eq!(seen[2], vec![0, 3, 6]);
}

#[test]
fn a_watcher_before_the_writer_sees_its_writes_one_tick_later_and_loses_none() {
    let mut world = world();
    spawn(&mut world, 4);
    world.system("Watcher", watcher).register().unwrap();
    world
        .system("Mover", mover)
        .after("Watcher")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let seen = &world.resource::<Seen>().unwrap().0;
    assert_eq!(seen[0], vec![0, 3, 1, 2]);
    assert_eq!(seen[1], vec![0, 3], "the writes of the previous tick");
    assert_eq!(seen[2], vec![0, 3]);
}

#[test]
fn a_system_does_not_see_its_own_writes_and_merely_borrowing_mut_counts() {
    let mut world = world();
    spawn(&mut world, 3);
    #[derive(Debug, Default)]
    struct Counts(Vec<usize>);
    world.insert_resource(Counts::default()).unwrap();
    // Takes `&mut Pos` of the changed rows without writing through it.
    fn borrow_only(mut q: Query<'_, &mut Pos, Changed<Pos>>, mut counts: ResMut<'_, Counts>) {
        counts.0.push(q.iter_mut().unwrap().count());
    }
    world.system("BorrowOnly", borrow_only).register().unwrap();
    world
        .system("Watcher", watcher)
        .after("BorrowOnly")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    // Its own marks are at its own run's tick, so its next run does not see them...
    assert_eq!(world.resource::<Counts>().unwrap().0, vec![3, 0, 0]);
    // ...but the watcher after it does: handing out `&mut` marked the rows.
    let seen = &world.resource::<Seen>().unwrap().0;
    assert_eq!(seen, &vec![vec![0, 1, 2], vec![], vec![]]);
}

#[test]
fn commands_insert_marks_added_and_changed_and_a_replace_marks_changed_only() {
    let mut world = world();
    let a = world.spawn((Vel(0),)).unwrap();
    let b = world.spawn((Pos(1),)).unwrap();
    #[derive(Debug, Default)]
    struct Step(u32);
    world.insert_resource(Step::default()).unwrap();
    fn inserter(
        mut commands: Commands<'_>,
        mut step: ResMut<'_, Step>,
        ids: Query<'_, Entity, With<Vel>>,
    ) {
        step.0 += 1;
        if step.0 == 2 {
            for e in ids.iter().unwrap() {
                commands.insert(e, Pos(9));
            }
        }
    }
    fn replacer(
        mut commands: Commands<'_>,
        step: laige_world::Res<'_, Step>,
        q: Query<'_, Entity>,
    ) {
        if step.0 == 3 {
            for e in q.iter().unwrap() {
                if e.index() == 1 {
                    commands.insert(e, Pos(5));
                }
            }
        }
    }
    world.system("Inserter", inserter).register().unwrap();
    world
        .system("Replacer", replacer)
        .after("Inserter")
        .register()
        .unwrap();
    world
        .system("Watcher", watcher)
        .after("Replacer")
        .register()
        .unwrap();
    world
        .system("AddedWatcher", added_watcher)
        .after("Replacer")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    for _ in 0..5 {
        world.run_systems(&schedule).unwrap();
    }
    let changed = &world.resource::<Seen>().unwrap().0;
    let added = &world.resource::<SeenAdded>().unwrap().0;
    // Commands apply after the track, so the watchers see them on their next run.
    assert_eq!(changed, &vec![vec![1], vec![], vec![0], vec![1], vec![]]);
    assert_eq!(added, &vec![vec![1], vec![], vec![0], vec![], vec![]]);
    let (ta, tb) = (
        world.component_ticks::<Pos>(a).unwrap(),
        world.component_ticks::<Pos>(b).unwrap(),
    );
    assert_eq!(ta.added, ta.changed);
    assert!(tb.changed > tb.added);
}

#[test]
fn ref_says_per_item_what_changed_and_get_mut_marks_outside_systems() {
    let mut world = world();
    let ids = spawn(&mut world, 4);
    #[derive(Debug, Default)]
    struct Flags(Vec<Vec<(u32, bool, bool)>>);
    world.insert_resource(Flags::default()).unwrap();
    fn flags(q: Query<'_, (Entity, Ref<'_, Pos>)>, mut out: ResMut<'_, Flags>) {
        let run = q
            .iter()
            .unwrap()
            .map(|(e, pos)| (e.index(), pos.is_added(), pos.is_changed()))
            .collect();
        out.0.push(run);
    }
    world.system("Flags", flags).register().unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    world.get_mut::<Pos>(ids[2]).unwrap().0 = 40;
    world.run_systems(&schedule).unwrap();
    world.run_systems(&schedule).unwrap();
    let runs = &world.resource::<Flags>().unwrap().0;
    assert!(runs[0].iter().all(|&(_, added, changed)| added && changed));
    let second: Vec<_> = runs[1].iter().filter(|it| it.2).map(|it| it.0).collect();
    assert_eq!(second, vec![2]);
    assert!(runs[1].iter().all(|it| !it.1), "nothing added");
    assert!(runs[2].iter().all(|it| !it.2));
}

#[test]
fn par_each_and_each_chunk_visit_exactly_the_changed_rows() {
    let mut world = world();
    let ids: Vec<Entity> = (0..2000).map(|i| world.spawn((Pos(i),)).unwrap()).collect();
    // Write a scattered few, across blocks and past the last full block.
    let picks = [3u32, 64, 65, 66, 500, 1023, 1024, 1999];
    let first = world.schedule().unwrap();
    // Advance past the spawns' tick with a schedule of no systems.
    world.run_systems(&first).unwrap();
    for &i in &picks {
        world.get_mut::<Pos>(ids[i as usize]).unwrap().0 += 1;
    }
    #[derive(Debug, Default)]
    struct Out(Vec<u32>, Vec<(u32, usize)>);
    world.insert_resource(Out::default()).unwrap();
    fn par(mut q: Query<'_, (Entity, &mut Pos), Changed<Pos>>) {
        q.par_each(|_, (_, pos)| pos.0 += 1000).unwrap();
    }
    fn chunks(mut q: Query<'_, (Entity, &Pos), Changed<Pos>>, mut out: ResMut<'_, Out>) {
        let mut runs = Vec::new();
        q.each_chunk(|entities, (_, pos)| {
            assert_eq!(entities.len(), pos.len());
            runs.push((entities[0].index(), entities.len()));
        })
        .unwrap();
        out.1 = runs;
        out.0 = q.iter().unwrap().map(|(e, _)| e.index()).collect();
    }
    world.system("Par", par).register().unwrap();
    world
        .system("Chunks", chunks)
        .after("Par")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
    let out = world.resource::<Out>().unwrap();
    // The first run of each system sees everything (all added since its last run, 0).
    assert_eq!(out.0.len(), 2000);
    world.run_systems(&schedule).unwrap();
    let out = world.resource::<Out>().unwrap();
    assert!(out.0.is_empty(), "nothing changed since: {:?}", out.0);
    for &i in &picks {
        world.get_mut::<Pos>(ids[i as usize]).unwrap().0 += 1;
    }
    world.run_systems(&schedule).unwrap();
    let out = world.resource::<Out>().unwrap();
    assert_eq!(out.0, picks.to_vec());
    assert_eq!(
        out.1,
        vec![(3, 1), (64, 3), (500, 1), (1023, 2), (1999, 1)],
        "runs of consecutive rows, spanning blocks"
    );
    assert_eq!(world.get::<Pos>(ids[64]).unwrap().0, 64 + 2 + 1000 + 1000);
}

#[test]
fn untracked_components_are_refused_with_the_system_and_the_type() {
    let mut world = world();
    fn bad(_: Query<'_, Entity, Changed<Vel>>) {}
    let err = world.system("Grid", bad).register().unwrap_err();
    insta::assert_snapshot!("untracked_register", err.to_string());
    fn bad_ref(_: Query<'_, Ref<'_, Vel>>) {}
    let err = world.system("Reader", bad_ref).register().unwrap_err();
    assert!(err.to_string().contains("`Ref<Vel>`"), "{err}");
    fn low_level(ctx: &mut SystemContext<'_>) {
        let err = ctx.each::<(Entity, Added<Vel>)>(|_| {}).unwrap_err();
        assert!(matches!(err, QueryError::Untracked { .. }));
        insta::assert_snapshot!("untracked_query", err.to_string());
    }
    world
        .system_fn("LowLevel", low_level)
        .reads::<Vel>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
}

/// A game of a few systems: a mover between an `Added<Pos>` watcher and a `Changed<Pos>`
/// grid rebuild, with spawns and despawns by commands. What the grid saw, the state hash and every tick must be the
/// same on every runner.
fn determinism_run(threads: Option<usize>) -> (Vec<Vec<u32>>, u64, Vec<(u64, u64)>) {
    let mut world = world();
    spawn(&mut world, 300);
    #[derive(Debug, Default)]
    struct Tick(u32);
    world.insert_resource(Tick::default()).unwrap();
    fn clock(mut tick: ResMut<'_, Tick>) {
        tick.0 += 1;
    }
    // Visits every row and writes a few: `Mut` marks only those.
    fn early(mut q: Query<'_, (Entity, Mut<'_, Pos>)>, tick: laige_world::Res<'_, Tick>) {
        let t = tick.0;
        q.par_each(|_, (e, mut pos)| {
            if (e.index() + t).is_multiple_of(17) {
                pos.0 += 1;
            }
        })
        .unwrap();
    }
    fn churn(
        q: Query<'_, Entity, With<Moving>>,
        mut commands: Commands<'_>,
        tick: laige_world::Res<'_, Tick>,
    ) {
        for e in q.iter().unwrap() {
            if (e.index() + tick.0).is_multiple_of(31) {
                commands.despawn(e);
                commands.spawn((Pos(tick.0), Moving));
            }
        }
    }
    world.system("Clock", clock).register().unwrap();
    // A watcher before the one writer of `Pos` and one after it.
    world
        .system("Spawned", added_watcher)
        .after("Clock")
        .register()
        .unwrap();
    world
        .system("Mover", early)
        .after("Spawned")
        .register()
        .unwrap();
    world
        .system("Grid", watcher)
        .after("Mover")
        .register()
        .unwrap();
    world
        .system("Churn", churn)
        .after("Clock")
        .register()
        .unwrap();
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let schedule = world.schedule().unwrap();
    for _ in 0..20 {
        world.run_systems(&schedule).unwrap();
    }
    let mut ticks = Vec::new();
    let mut ids = Vec::new();
    world.each::<Entity>(|e| ids.push(e)).unwrap();
    for e in ids {
        let t = world.component_ticks::<Pos>(e).unwrap();
        ticks.push((t.added, t.changed));
    }
    let mut seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    seen.extend(std::mem::take(
        &mut world.resource_mut::<SeenAdded>().unwrap().0,
    ));
    (seen, world.state_hash(), ticks)
}

#[test]
fn filter_results_ticks_and_the_state_hash_match_on_every_runner() {
    let sequential = determinism_run(None);
    assert!(
        sequential.0[1..20]
            .iter()
            .all(|run| !run.is_empty() && run.len() < 300)
    );
    for threads in [1, 2, 4, 8] {
        assert_eq!(
            determinism_run(Some(threads)),
            sequential,
            "{threads} threads"
        );
    }
}

/// A tracked component for the model test, registered in tables or sparse by the case.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Heat(u32);
impl Component for Heat {}

fn heat_watcher(q: Query<'_, Entity, Changed<Heat>>, mut seen: ResMut<'_, Seen>) {
    seen.0.push(q.iter().unwrap().map(|e| e.index()).collect());
}

fn heat_added(q: Query<'_, Entity, Added<Heat>>, mut seen: ResMut<'_, SeenAdded>) {
    seen.0.push(q.iter().unwrap().map(|e| e.index()).collect());
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Despawn(usize),
    Insert(usize),
    Remove(usize),
    Write(usize),
    Check,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Spawn),
        1 => (0usize..400).prop_map(Op::Despawn),
        2 => (0usize..400).prop_map(Op::Insert),
        2 => (0usize..400).prop_map(Op::Remove),
        3 => (0usize..400).prop_map(Op::Write),
        1 => Just(Op::Check),
    ]
}

/// Runs `ops` on a world whose `Heat` is tracked, in tables or `sparse`, and checks after
/// every `Check` that `Changed<Heat>` and `Added<Heat>` saw exactly what a per-entity model
/// says changed since the watchers' last run.
fn check_against_the_model(sparse: bool, ops: Vec<Op>) -> Result<(), TestCaseError> {
    use std::collections::BTreeSet;
    let mut world = world();
    let heat = ComponentOptions::<Heat>::new().tracked();
    let heat = if sparse { heat.sparse() } else { heat };
    world.register_component_with(heat).unwrap();
    world.system("Watcher", heat_watcher).register().unwrap();
    world.system("Added", heat_added).register().unwrap();
    let schedule = world.schedule().unwrap();
    let (mut live, mut has) = (Vec::<Entity>::new(), BTreeSet::new());
    let (mut changed, mut added) = (BTreeSet::new(), BTreeSet::new());
    for op in ops.into_iter().chain([Op::Check]) {
        match op {
            Op::Spawn => {
                for i in 0..40 {
                    let e = if i % 2 == 0 {
                        let e = world.spawn((Pos(0), Heat(0))).unwrap();
                        for set in [&mut has, &mut changed, &mut added] {
                            set.insert(e.index());
                        }
                        e
                    } else {
                        world.spawn((Pos(0),)).unwrap()
                    };
                    live.push(e);
                }
            }
            Op::Despawn(i) if !live.is_empty() => {
                let e = live.swap_remove(i % live.len());
                world.despawn(e).unwrap();
                for set in [&mut has, &mut changed, &mut added] {
                    set.remove(&e.index());
                }
            }
            Op::Insert(i) if !live.is_empty() => {
                let e = live[i % live.len()];
                world.insert(e, Heat(1)).unwrap();
                if has.insert(e.index()) {
                    added.insert(e.index());
                }
                changed.insert(e.index());
            }
            Op::Remove(i) if !live.is_empty() => {
                let e = live[i % live.len()];
                world.remove::<Heat>(e).unwrap();
                for set in [&mut has, &mut changed, &mut added] {
                    set.remove(&e.index());
                }
            }
            Op::Write(i) if !live.is_empty() => {
                let e = live[i % live.len()];
                if has.contains(&e.index()) {
                    world.get_mut::<Heat>(e).unwrap().0 += 1;
                    changed.insert(e.index());
                }
            }
            Op::Check => {
                world.run_systems(&schedule).unwrap();
                let mut seen = world.resource_mut::<Seen>().unwrap().0.pop().unwrap();
                let mut seen_added = world.resource_mut::<SeenAdded>().unwrap().0.pop().unwrap();
                seen.sort_unstable();
                seen_added.sort_unstable();
                prop_assert_eq!(seen, changed.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(seen_added, added.iter().copied().collect::<Vec<_>>());
                changed.clear();
                added.clear();
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// In tables: spawns and despawns swap-remove rows across blocks, inserts and removes
    /// move rows between tables; the block summaries never hide a change.
    #[test]
    fn table_change_filters_match_a_model(ops in proptest::collection::vec(op(), 1..120)) {
        check_against_the_model(false, ops)?;
    }

    /// In a sparse set: inserts and removes are pushes and swap-removes inside the set.
    #[test]
    fn sparse_change_filters_match_a_model(ops in proptest::collection::vec(op(), 1..120)) {
        check_against_the_model(true, ops)?;
    }
}

#[test]
fn the_derive_registers_a_tracked_component() {
    #[derive(laige_world::Component)]
    #[component(tracked)]
    struct Heat(#[allow(dead_code)] u32);
    let mut world = World::new(WorldOptions::default());
    let id = world.register_component::<Heat>().unwrap();
    assert!(world.component_info(id).is_some_and(|it| it.is_tracked()));
    let e = world.spawn(Heat(1)).unwrap();
    let tick = world.change_tick();
    assert_eq!(
        world.component_ticks::<Heat>(e).map(|t| t.added),
        Some(tick)
    );
}

#[test]
fn a_snapshot_reader_cannot_filter_by_change() {
    let mut world = World::new(WorldOptions::default());
    world
        .register_component_with(ComponentOptions::<Pos>::new().tracked().versioned())
        .unwrap();
    world.spawn((Pos(1),)).unwrap();
    fn snapshot_reader(ctx: &mut SystemContext<'_>) {
        let err = ctx.each::<(Entity, Changed<Pos>)>(|_| {}).unwrap_err();
        assert!(matches!(err, QueryError::Undeclared { .. }), "{err}");
    }
    world
        .system_fn("SnapshotReader", snapshot_reader)
        .reads_snapshot::<Pos>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.run_systems(&schedule).unwrap();
}
