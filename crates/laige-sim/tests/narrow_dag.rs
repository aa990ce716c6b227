//! The narrow-DAG workload is honest: its two tracks have the shape the bench claims (the
//! `Late` track is a chain, `Main` a chain with light systems beside it), and every mode
//! and thread count reaches the same state.

#[path = "support/narrow_dag.rs"]
mod narrow_dag;

use laige_sim::prelude::*;

const UNITS: u32 = 256;
const TICKS: u32 = 40;

fn run(executor: Option<(usize, Mode)>) -> u64 {
    let (mut world, schedule) = narrow_dag::build(UNITS).expect("narrow_dag builds");
    if let Some((threads, mode)) = executor {
        world.use_executor(ExecutorOptions {
            threads,
            mode,
            ..Default::default()
        });
    }
    for tick in 0..TICKS {
        world
            .run_systems(&schedule)
            .unwrap_or_else(|err| panic!("{executor:?} tick {tick}: {err}"));
    }
    world.state_hash()
}

#[test]
fn the_workload_has_sixty_systems_in_two_tracks_the_second_a_chain() {
    let (mut world, schedule) = narrow_dag::build(UNITS).unwrap();
    assert_eq!(schedule.order().len(), 60);
    assert_eq!(schedule.tracks().count(), 2);
    world.use_executor(ExecutorOptions::parallel(2));
    world.run_systems(&schedule).unwrap();
    let plan = world.plan().expect("the executor built a plan");
    assert_eq!(plan.track(0).len(), 57);
    assert!(
        plan.max_width(0) >= 10,
        "light systems run beside the chain"
    );
    assert_eq!(plan.track(1).len(), 3);
    assert_eq!(plan.max_width(1), 1, "the Late track is a chain");
}

#[test]
fn every_mode_reaches_the_same_state_hash() {
    let sequential = run(None);
    for executor in [
        (1, Mode::Parallel),
        (2, Mode::Parallel),
        (4, Mode::Parallel),
        (2, Mode::Auto),
        (2, Mode::Sequential),
    ] {
        assert_eq!(run(Some(executor)), sequential, "{executor:?}");
    }
    println!("narrow_dag units={UNITS} ticks={TICKS} hash={sequential:#018x}");
}
