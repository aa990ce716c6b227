//! The narrow-DAG workload (issue 23: "a second core never makes a tick slower") beside
//! `game_tick`, in alternating rounds in one binary: sequential, parallel on 2 threads and
//! `Mode::Auto` on 2 threads of each, every mode in turn, a round at a time.
//!
//! `cargo bench -p laige-sim --bench narrow_dag -- [rounds]` prints, per workload, the
//! critical path's share of the work (from the World's per-system timing and the plan), then
//! each mode's median per-tick time and the median and p10..p90 of its per-round ratio to
//! sequential. `-- only <narrow|game>-<sequential|parallel-2|auto-2> <ticks>` runs one mode
//! alone, for callgrind or `perf`.

use std::time::Instant;

use laige_sim::prelude::*;

#[path = "../tests/support/game_tick/mod.rs"]
mod game_tick;
#[path = "../tests/support/narrow_dag.rs"]
mod narrow_dag;

const MODES: [(&str, Option<(usize, Mode)>); 3] = [
    ("sequential", None),
    ("parallel-2", Some((2, Mode::Parallel))),
    ("auto-2", Some((2, Mode::Auto))),
];

fn build(workload: &str) -> (World, Schedule) {
    match workload {
        "narrow" => narrow_dag::build(narrow_dag::UNITS).unwrap(),
        "game" => game_tick::build(game_tick::ENTITIES, 0x6A4E_5EED).unwrap(),
        other => panic!("unknown workload {other}: narrow or game"),
    }
}

fn setup(workload: &str, executor: Option<(usize, Mode)>) -> (World, Schedule) {
    let (mut world, schedule) = build(workload);
    if let Some((threads, mode)) = executor {
        world.use_executor(ExecutorOptions {
            threads,
            mode,
            ..Default::default()
        });
    }
    for _ in 0..60 {
        world.run_systems(&schedule).unwrap();
    }
    (world, schedule)
}

/// Over 20 more ticks, the systems' mean durations summed, and the longest path through the
/// plan's edges with them, in microseconds, per track summed (tracks are barriers).
fn work_and_path(world: &mut World, schedule: &Schedule) -> (f64, f64) {
    let mut means = vec![0.0f64; schedule.order().len() + 1];
    for _ in 0..20 {
        world.run_systems(schedule).unwrap();
        for &id in schedule.order() {
            means[id.index()] += world.timing_stats(id).unwrap().last.as_secs_f64() * 1e6 / 20.0;
        }
    }
    let micros = |id: SystemId| means[id.index()];
    let mut work = 0.0;
    let mut path = 0.0;
    let plan = world.plan().expect("an executor's plan");
    for track in schedule.tracks() {
        let mut finish = vec![0.0f64; schedule.order().len() + 1];
        let mut longest = 0.0f64;
        for &id in track {
            let ready = plan
                .predecessors(id)
                .map(|p| finish[p.index()])
                .fold(0.0, f64::max);
            finish[id.index()] = ready + micros(id);
            longest = longest.max(finish[id.index()]);
            work += micros(id);
        }
        path += longest;
    }
    (work, path)
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn interleaved(workload: &str, rounds: usize, ticks: u32) {
    let mut runs: Vec<_> = MODES
        .iter()
        .map(|&(label, executor)| {
            let (world, schedule) = setup(workload, executor);
            (label, world, schedule, Vec::with_capacity(rounds))
        })
        .collect();
    {
        let (mut world, schedule) = setup(workload, MODES[1].1);
        let (work, path) = work_and_path(&mut world, &schedule);
        println!(
            "{workload}: work {work:.0} µs a tick, critical path {path:.0} µs ({:.1}% of the work), off the path {:.0} µs",
            100.0 * path / work,
            work - path
        );
    }
    for _ in 0..rounds {
        for (_, world, schedule, times) in &mut runs {
            let start = Instant::now();
            for _ in 0..ticks {
                world.run_systems(schedule).unwrap();
            }
            times.push(start.elapsed().as_secs_f64() * 1e6 / f64::from(ticks));
        }
    }
    let hashes: Vec<u64> = runs.iter().map(|(_, w, _, _)| w.state_hash()).collect();
    assert!(
        hashes.windows(2).all(|h| h[0] == h[1]),
        "every mode reaches the same state"
    );
    let sequential = runs[0].3.clone();
    println!("| {workload} | median tick µs | × sequential, median of rounds | p10..p90 |");
    println!("|---|---|---|---|");
    for (label, _, _, times) in &runs {
        let mut ratios: Vec<f64> = times.iter().zip(&sequential).map(|(t, s)| t / s).collect();
        ratios.sort_by(f64::total_cmp);
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "| {label} | {:.1} | {:.3}x | {:.3}..{:.3} |",
            quantile(&sorted, 0.5),
            quantile(&ratios, 0.5),
            quantile(&ratios, 0.1),
            quantile(&ratios, 0.9)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if let [only, which, ticks] = &args[..]
        && only == "only"
    {
        let (workload, mode) = which.split_once('-').expect("<workload>-<mode>");
        let executor = MODES
            .iter()
            .find(|(label, _)| *label == mode)
            .expect("a mode: sequential, parallel-2 or auto-2")
            .1;
        let (mut world, schedule) = setup(workload, executor);
        for _ in 0..ticks.parse::<u32>().expect("a tick count") {
            world.run_systems(&schedule).unwrap();
        }
        return;
    }
    let rounds = args
        .first()
        .map_or(30, |r| r.parse().expect("a round count"));
    interleaved("narrow", rounds, 40);
    interleaved("game", rounds, 8);
}
