//! Plan building: explicit edges, conflict edges, reduction, tracks as barriers, widths.

mod common;

use common::{Recorder, Run, chain_registry, component, empty, id, name, plain_registry};
use laige_executor::{EdgeReason, Plan};
use laige_registry::{Conflicts, Registry, SystemDef, SystemId};
use laige_scheduler::{Layout, Schedule, schedule, schedule_declared};
use rstest::rstest;

fn preds(plan: &Plan, system: u32) -> Vec<u32> {
    plan.predecessors(id(system)).map(SystemId::get).collect()
}

fn ids(track: &[SystemId]) -> Vec<u32> {
    track.iter().map(|it| it.get()).collect()
}

/// s1 writes P; s2 and s3 read P; s4 reads P and writes Q; s5 reads Q; s6 touches nothing
/// and depends on s5; s7 reads Q and depends on s2.
fn access_registry() -> Registry<Run> {
    let (p, q) = (component(1), component(2));
    let mut registry = Registry::new();
    registry.register_component(p);
    registry.register_component(q);
    let def = |i: usize| SystemDef::new(name(i), empty as Run).budget_ms(1.0);
    registry.register(def(1).writes(p)).unwrap();
    registry.register(def(2).reads(p)).unwrap();
    registry.register(def(3).reads(p)).unwrap();
    registry.register(def(4).reads(p).writes(q)).unwrap();
    registry.register(def(5).reads(q)).unwrap();
    registry.register(def(6).depends_on(name(5))).unwrap();
    registry
        .register(def(7).reads(q).depends_on(name(2)))
        .unwrap();
    registry
}

#[rstest]
#[case::writer_then_reader(1, 2, EdgeReason::Conflict)]
#[case::writer_then_other_reader(1, 3, EdgeReason::Conflict)]
#[case::readers_of_one_component(2, 3, EdgeReason::None)]
#[case::reader_then_writer_of_another(2, 4, EdgeReason::None)]
#[case::writer_then_reader_of_q(4, 5, EdgeReason::Conflict)]
#[case::depends_on(5, 6, EdgeReason::Explicit)]
#[case::depends_on_and_no_conflict(2, 7, EdgeReason::Explicit)]
#[case::writer_of_q_then_reader(4, 7, EdgeReason::Conflict)]
#[case::against_the_order(2, 1, EdgeReason::None)]
#[case::unrelated(1, 6, EdgeReason::None)]
fn build_from_access_edges(#[case] a: u32, #[case] b: u32, #[case] reason: EdgeReason) {
    let registry = access_registry();
    let schedule = schedule(&registry).unwrap();
    let plan = Plan::build_from_access(&schedule, &registry);
    assert_eq!(plan.edge_reason(id(a), id(b)), reason);
}

#[rstest]
#[case::root(1, &[])]
#[case::reader(2, &[1])]
#[case::other_reader(3, &[1])]
#[case::writer_of_q(4, &[1])]
#[case::reader_of_q(5, &[4])]
#[case::explicit(6, &[5])]
#[case::explicit_and_conflict(7, &[2, 4])]
fn build_from_access_predecessors(#[case] system: u32, #[case] expected: &[u32]) {
    let registry = access_registry();
    let schedule = schedule(&registry).unwrap();
    let plan = Plan::build_from_access(&schedule, &registry);
    assert_eq!(plan.track_count(), 1);
    assert_eq!(ids(plan.track(0)), [1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(preds(&plan, system), expected);
}

#[test]
fn a_reader_ordered_before_a_writer_keeps_the_sequential_order() {
    let p = component(1);
    let mut registry = Registry::<Run>::new();
    registry.register_component(p);
    let def = |i: usize| SystemDef::new(name(i), empty as Run).budget_ms(1.0);
    registry.register(def(0).reads(p)).unwrap();
    registry.register(def(1).writes(p)).unwrap();
    let schedule = schedule(&registry).unwrap();
    assert_eq!(schedule.warning_count(), 1);
    let plan = Plan::build_from_access(&schedule, &registry);
    assert_eq!(preds(&plan, 2), [1]);
    assert_eq!(plan.edge_reason(id(1), id(2)), EdgeReason::Conflict);
}

#[test]
fn snapshot_reads_conflict_with_nothing() {
    let p = component(1);
    let mut registry = Registry::<Run>::new();
    registry.register_component(p);
    let def = |i: usize| SystemDef::new(name(i), empty as Run).budget_ms(1.0);
    registry.register(def(0).writes(p)).unwrap();
    registry.register(def(1).reads_snapshot(p)).unwrap();
    registry.register(def(2).reads_fresh(p)).unwrap();
    let schedule = Schedule::hand_built(3, &[id(1), id(2), id(3)]);
    let plan = Plan::build_from_access(&schedule, &registry);
    assert_eq!(plan.edge_reason(id(1), id(2)), EdgeReason::None);
    assert_eq!(plan.edge_reason(id(1), id(3)), EdgeReason::Conflict);
}

#[test]
fn implied_edges_are_reduced_but_still_explained() {
    // 1 writes P; 2 reads P, writes Q; 3 reads P and Q: 1 → 3 is implied by 1 → 2 → 3.
    let (p, q) = (component(1), component(2));
    let mut registry = Registry::<Run>::new();
    registry.register_component(p);
    registry.register_component(q);
    let def = |i: usize| SystemDef::new(name(i), empty as Run).budget_ms(1.0);
    registry.register(def(0).writes(p)).unwrap();
    registry.register(def(1).reads(p).writes(q)).unwrap();
    registry.register(def(2).reads(p).reads(q)).unwrap();
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    assert_eq!(preds(&plan, 3), [2]);
    assert_eq!(plan.edge_count(), 2);
    assert_eq!(plan.edge_reason(id(1), id(3)), EdgeReason::Conflict);
    assert_eq!(plan.max_width(0), 1);
}

#[test]
fn build_orders_a_conflicting_pair_as_the_track_does() {
    let schedule = Schedule::hand_built(4, &[id(3), id(1), id(4), id(2)]);
    let conflicts = Conflicts::from_pairs(4, |a, b| (a.get(), b.get()) == (2, 3));
    let plan = Plan::build(&schedule, &[], &conflicts);
    // 3 comes first in the order, so 2 waits for it, whichever way the pair was told.
    assert_eq!(preds(&plan, 2), [3]);
    assert_eq!(plan.edge_reason(id(3), id(2)), EdgeReason::Conflict);
    assert_eq!(plan.edge_reason(id(2), id(3)), EdgeReason::None);
    assert_eq!(plan.max_width(0), 3);
}

#[test]
fn a_system_listed_twice_waits_for_its_earlier_run() {
    let schedule = Schedule::hand_built(2, &[id(1), id(2), id(1)]);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    assert_eq!(plan.len(), 3);
    let recorder = Recorder::new(2);
    let mut executor = laige_executor::Executor::new(laige_executor::ExecutorOptions {
        threads: 2,
        mode: laige_executor::Mode::Parallel,
        time_systems: false,
    });
    for _ in 0..50 {
        executor
            .run_track(&plan, 0, &[empty as Run, empty as Run], &recorder)
            .unwrap();
    }
    assert_eq!(recorder.runs(id(1)), 100);
}

#[test]
fn unknown_systems_conflict_with_everything() {
    let registry = plain_registry(2, empty);
    let schedule = Schedule::hand_built(3, &[id(1), id(2), id(3)]);
    let plan = Plan::build_from_access(&schedule, &registry);
    assert_eq!(plan.edge_reason(id(1), id(2)), EdgeReason::None);
    assert_eq!(plan.edge_reason(id(1), id(3)), EdgeReason::Conflict);
    assert_eq!(plan.edge_reason(id(2), id(3)), EdgeReason::Conflict);
}

#[test]
fn tracks_are_barriers_no_edge_crosses_them() {
    let p = component(1);
    let mut registry = Registry::<Run>::new();
    registry.register_component(p);
    let def = |i: usize| SystemDef::new(name(i), empty as Run).budget_ms(1.0);
    registry.register(def(0).writes(p)).unwrap();
    registry.register(def(1).reads(p).in_dag("Late")).unwrap();
    registry.register(def(2).reads_fresh(p)).unwrap();
    let layout =
        Layout::new()
            .dag("Main", "Game", &["Sim"], "Sim")
            .dag("Post", "Late", &["Sim"], "Sim");
    let schedule = schedule_declared(&registry, &layout).unwrap();
    let plan = Plan::build_from_access(&schedule, &registry);
    assert_eq!(plan.track_count(), 2);
    assert_eq!(ids(plan.track(0)), [1, 3]);
    assert_eq!(ids(plan.track(1)), [2]);
    assert_eq!(preds(&plan, 3), [1]);
    assert_eq!(preds(&plan, 2), Vec::<u32>::new());
    assert_eq!(plan.edge_reason(id(1), id(2)), EdgeReason::None);
    assert_eq!(plan.edge_reason(id(1), id(3)), EdgeReason::Conflict);
}

#[rstest]
#[case::w2_empty_100(plain_registry(100, empty), 100, 0)]
#[case::w3_chain_100(chain_registry(100, empty), 1, 99)]
#[case::one(plain_registry(1, empty), 1, 0)]
#[case::none(plain_registry(0, empty), 0, 0)]
fn widths_and_edge_counts(
    #[case] registry: Registry<Run>,
    #[case] width: usize,
    #[case] edges: usize,
) {
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    assert_eq!(plan.max_width(0), width);
    assert_eq!(plan.edge_count(), edges);
}

#[test]
fn random_plans_match_the_declared_relation() {
    for seed in 0..200 {
        let (graph, _) = common::random_graph(seed, 40);
        let schedule = schedule(&graph.registry).unwrap();
        let plan = Plan::build_from_access(&schedule, &graph.registry);
        let order = plan.track(0);
        for (j, &b) in order.iter().enumerate() {
            for &a in &order[..j] {
                let (ia, ib) = (a.index(), b.index());
                let expected = if graph.deps[ib].contains(&ia) {
                    EdgeReason::Explicit
                } else if graph.conflict(ia, ib) {
                    EdgeReason::Conflict
                } else {
                    EdgeReason::None
                };
                assert_eq!(plan.edge_reason(a, b), expected, "seed {seed}: {a} -> {b}");
            }
            // Every direct predecessor comes earlier, and none is implied by another.
            let direct: Vec<SystemId> = plan.predecessors(b).collect();
            for &p in &direct {
                assert!(order[..j].contains(&p), "seed {seed}: {p} before {b}");
            }
        }
    }
}
