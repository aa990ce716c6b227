//! The arena example (`examples/arena/`): a game written with the typed API, the derives,
//! `rand` on the systems' streams and `Commands`, deterministic on any number of threads.

// The game lives beside its example, not in the facade.
#[allow(dead_code)]
#[path = "../examples/arena/game.rs"]
mod arena;

use laige_sim::prelude::*;

const TICKS: u32 = 900;

fn run(seed: u64, threads: Option<usize>) -> (u64, arena::Score, arena::Stats) {
    let (mut world, schedule) = arena::build(seed, WorldOptions::default()).expect("it builds");
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let hash = arena::run(&mut world, &schedule, TICKS).expect("it runs");
    let score = *world.resource::<arena::Score>().unwrap();
    let stats = *world.resource::<arena::Stats>().unwrap();
    (hash, score, stats)
}

#[test]
fn the_arena_hash_is_the_same_on_one_and_two_threads() {
    let sequential = run(7, None);
    let one = run(7, Some(1));
    let two = run(7, Some(2));
    assert_eq!(one, sequential, "one worker thread");
    assert_eq!(two, sequential, "two worker threads");
    println!(
        "arena ticks={TICKS} seed=7 threads=1,2 kills={} hash={:#018x}",
        sequential.1.kills, sequential.0
    );
}

#[test]
fn the_game_is_played_and_the_seed_matters() {
    let (hash, score, stats) = run(7, None);
    // A game that stood still would make the determinism test vacuous.
    assert!(score.kills > 0, "the player kills something");
    assert!(
        stats.enemies > 0 || stats.shots > 0,
        "something is alive at the end"
    );
    assert_ne!(run(8, None).0, hash, "another seed plays another game");
}
