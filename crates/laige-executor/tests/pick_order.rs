//! The pick order: on timed runs the executor measures each system and has the threads take
//! the ready system with the longest remaining chain first.

mod common;

use std::time::Duration;

use common::{Recorder, Run, id, name, plain_registry, random_graph};
use laige_executor::{EdgeReason, Executor, ExecutorOptions, Mode, Plan};
use laige_registry::{Registry, SystemDef, SystemId};
use laige_scheduler::schedule;

/// Each system's duration on the host's manual clock, in microseconds, by index.
const MICROS: [u64; 5] = [10, 5, 20, 1, 3];

fn weighted(host: &Recorder, id: SystemId) {
    host.clock
        .advance(Duration::from_micros(MICROS[id.index()]));
}

/// 1 (10 µs), 2 (5 µs) then 3 (20 µs) after it, 4 (1 µs), and 5 (3 µs) after 4.
fn registry() -> Registry<Run> {
    let mut registry = Registry::new();
    for (i, deps) in [(0, ""), (1, ""), (2, name(1)), (3, ""), (4, name(3))] {
        registry
            .register(
                SystemDef::new(name(i), weighted as Run)
                    .budget_ms(1.0)
                    .depends_on(deps),
            )
            .unwrap();
    }
    registry
}

fn ids(values: &[u32]) -> Vec<SystemId> {
    values.iter().map(|&v| id(v)).collect()
}

#[test]
fn the_longest_remaining_chain_comes_first_once_measured() {
    let registry = registry();
    let schedule = schedule(&registry).unwrap();
    let plan = Plan::build_from_access(&schedule, &registry);
    let host = Recorder::new(5);
    // Sequential runs, so each measured duration is the system's own (on two threads, a
    // system's span on the shared manual clock would include what ran beside it).
    for threads in [1, 2] {
        let mode = Mode::Sequential;
        let mut executor = host.executor(ExecutorOptions {
            threads,
            mode,
            time_systems: true,
        });
        // Before any timed run: sequential order.
        let sequential: Vec<SystemId> = plan.track(0).to_vec();
        assert_eq!(
            executor.pick_order(&plan, 0).collect::<Vec<_>>(),
            sequential
        );
        executor
            .run_track(&plan, 0, registry.runs(), &host)
            .unwrap();
        // Chains: 2 → 3 is 25 µs, 3 alone 20, 1 is 10, 4 → 5 is 4, 5 alone 3.
        assert_eq!(
            executor.pick_order(&plan, 0).collect::<Vec<_>>(),
            ids(&[2, 3, 1, 4, 5]),
            "{threads} threads"
        );
    }
}

#[test]
fn untimed_runs_keep_the_sequential_order() {
    let registry = registry();
    let schedule = schedule(&registry).unwrap();
    let plan = Plan::build_from_access(&schedule, &registry);
    let host = Recorder::new(5);
    let mut executor = host.executor(ExecutorOptions {
        threads: 2,
        mode: Mode::Parallel,
        time_systems: false,
    });
    for _ in 0..3 {
        executor
            .run_track(&plan, 0, registry.runs(), &host)
            .unwrap();
        assert_eq!(
            executor.pick_order(&plan, 0).collect::<Vec<_>>(),
            plan.track(0).to_vec()
        );
    }
}

/// With the pick order measured from real durations (not the sequential order any more),
/// every system still runs once per tick and every edge of the plan is kept.
#[test]
fn a_measured_pick_order_keeps_every_edge() {
    for threads in [2, 4] {
        let mut executor = Executor::new(ExecutorOptions {
            threads,
            mode: Mode::Parallel,
            time_systems: true,
        });
        let mut reordered = false;
        for seed in 0..20 {
            let (graph, spin) = random_graph(seed, 40);
            let schedule = schedule(&graph.registry).unwrap();
            let plan = Plan::build_from_access(&schedule, &graph.registry);
            let host = Recorder::with_spin(spin);
            let order = plan.track(0);
            for tick in 1..=4 {
                executor
                    .run_track(&plan, 0, graph.registry.runs(), &host)
                    .unwrap();
                reordered |= executor.pick_order(&plan, 0).collect::<Vec<_>>() != order;
                for (j, &b) in order.iter().enumerate() {
                    assert_eq!(host.runs(b), tick, "seed {seed}: {b} ran once per tick");
                    for &a in &order[..j] {
                        if plan.edge_reason(a, b) != EdgeReason::None {
                            assert!(host.end(a) < host.start(b), "seed {seed}: {a} before {b}");
                        }
                    }
                }
            }
        }
        assert!(
            reordered,
            "no measured order differed from the sequential one"
        );
    }
}

/// Takes 1 µs on the host's manual clock, except the first ten systems, which take nothing.
fn all_but_ten(host: &Recorder, id: SystemId) {
    if id.index() >= 10 {
        host.clock.advance(Duration::from_micros(1));
    }
}

/// A pick order measured for one plan is not used for another. Measured on 100 systems, it
/// puts the ten that take nothing in the last slots; used for a track of ten, those slots
/// lie past the words its threads claim from, and the track never ended.
#[test]
fn a_new_plan_starts_from_the_sequential_order() {
    let host = Recorder::new(100);
    let mut executor = host.executor(ExecutorOptions {
        threads: 2,
        mode: Mode::Parallel,
        time_systems: true,
    });
    let large = plain_registry(100, all_but_ten);
    let large_plan = Plan::build_from_access(&schedule(&large).unwrap(), &large);
    executor
        .run_track(&large_plan, 0, large.runs(), &host)
        .unwrap();
    let small = plain_registry(10, all_but_ten);
    let small_plan = Plan::build_from_access(&schedule(&small).unwrap(), &small);
    executor
        .run_track(&small_plan, 0, small.runs(), &host)
        .unwrap();
    for system in small_plan.track(0) {
        assert_eq!(host.runs(*system), 2, "{system} ran in both tracks");
    }
}
