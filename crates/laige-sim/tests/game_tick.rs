//! The `game_tick` workload is honest: every mode the bench times reaches the same state,
//! the population stays level while about 1% of it is replaced each tick, and the
//! simulation really moves (commands, rng, deaths and respawns all happen).

#[path = "support/game_tick/mod.rs"]
mod game_tick;

use game_tick::components::{Clock, Score, Transform};
use game_tick::{RunMode, build, census};
use laige_sim::prelude::*;

/// A tenth of the full size, so 300 ticks in four modes stay quick in a debug build.
const ENTITIES: u32 = 2_000;
const TICKS: u32 = 300;
const SEED: u64 = 0x6A4E_5EED;

/// What one run leaves behind: the state hash, the population after each tick, and the
/// score.
struct Outcome {
    hash: u64,
    population: Vec<usize>,
    score: Score,
}

fn run(mode: RunMode) -> Outcome {
    let (mut world, schedule) = build(ENTITIES, SEED).expect("game_tick builds");
    mode.apply(&mut world);
    let mut population = Vec::with_capacity(TICKS as usize);
    for tick in 0..TICKS {
        world
            .run_systems(&schedule)
            .unwrap_or_else(|err| panic!("{} tick {tick}: {err}", mode.label()));
        population.push(world.len());
    }
    assert_eq!(world.resource::<Clock>().unwrap().tick, TICKS);
    Outcome {
        hash: world.state_hash(),
        population,
        score: *world.resource::<Score>().unwrap(),
    }
}

#[test]
fn every_mode_reaches_the_same_state_hash() {
    let sequential = run(RunMode::Sequential);
    for mode in RunMode::ALL.into_iter().skip(1) {
        let other = run(mode);
        assert_eq!(
            other.hash,
            sequential.hash,
            "{} after {TICKS} ticks",
            mode.label()
        );
        assert_eq!(other.population, sequential.population, "{}", mode.label());
    }
    println!(
        "game_tick entities={ENTITIES} ticks={TICKS} modes=4 hash={:#018x}",
        sequential.hash
    );
}

#[test]
fn the_population_stays_level_while_entities_are_replaced() {
    let (mut world, schedule) = build(ENTITIES, SEED).unwrap();
    let start = world.len();
    assert_eq!(start as u32, census(ENTITIES).iter().sum::<u32>());
    let mut despawned = 0usize;
    let mut hash = world.state_hash();
    for tick in 0..TICKS {
        let before = live_entities(&mut world);
        world.run_systems(&schedule).unwrap();
        despawned += before.iter().filter(|e| !world.is_alive(**e)).count();
        let population = world.len();
        // Level: within 15% of the start on every tick (projectile and particle counts
        // follow random cooldowns and draws; everything else is replaced one for one).
        assert!(
            population.abs_diff(start) * 100 <= start * 15,
            "tick {tick}: population {population}, started at {start}"
        );
        let next = world.state_hash();
        assert_ne!(next, hash, "tick {tick} changed nothing");
        hash = next;
    }
    let per_tick = despawned as f64 / f64::from(TICKS) / start as f64;
    // About 1% of the entities are replaced per tick.
    assert!(
        (0.005..0.02).contains(&per_tick),
        "{:.2}% despawned per tick",
        per_tick * 100.0
    );
    let score = *world.resource::<Score>().unwrap();
    assert!(
        score.kills > 0,
        "no unit died, so respawns were not exercised"
    );
    assert!(score.occupied > 0 && score.top_speed > 0.0, "{score:?}");
}

/// Every live entity: each archetype of the workload holds a `Transform`.
fn live_entities(world: &mut World) -> Vec<Entity> {
    let mut out = Vec::with_capacity(world.len());
    world
        .each::<(Entity, &Transform)>(|(e, _)| out.push(e))
        .unwrap();
    assert_eq!(out.len(), world.len());
    out
}

#[test]
fn every_rng_system_draws() {
    // A run whose rng systems drew nothing would leave every PRNG where it started.
    let outcome = run(RunMode::Sequential);
    let (fresh, _) = build(ENTITIES, SEED).unwrap();
    assert_ne!(outcome.hash, fresh.state_hash());
    let drew = ["player_input", "ai_think", "fire", "emit"]
        .iter()
        .filter(|name| {
            let (mut world, schedule) = build(ENTITIES, SEED).unwrap();
            let id = world.registry().find(name).unwrap();
            let start = *world.system_rng(id).unwrap();
            world.run_systems(&schedule).unwrap();
            *world.system_rng(id).unwrap() != start
        })
        .count();
    assert_eq!(drew, 4, "every rng system draws in its first tick");
    assert!(outcome.score.kills > 0);
}
