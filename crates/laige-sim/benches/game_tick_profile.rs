//! Where a `game_tick` tick spends its time, per mode: the wall time, the systems' own
//! time (the World's per-system timing), the snapshot refresh (`World::end_tick`, timed on
//! its own after each tick), and for the executor the critical path through the plan with
//! the measured durations: the parallel tick can take no less than the longest of that
//! path and the work shared out over the threads.
//!
//! Run with `cargo bench -p laige-sim --bench game_tick_profile`; prints one table.
//! `-- sequential` (or `parallel-2`, `auto-2`, `parallel-8`) runs just that mode's
//! 2,000 ticks, for `perf record`; `-- w4 <world|world-plan|bare|bare-plan|floor> <count>`
//! runs `count` W4 builds, for instruction counts under callgrind, which the load of a
//! shared host does not move (the difference of two counts, over the difference of builds).
//! `-- interleaved <rounds>` times every mode in turn, 20 ticks per mode per round, and
//! prints each mode's median per-tick time and its ratio to sequential: on a loaded host,
//! ratios from alternating rounds are the ones to compare.

use std::time::{Duration, Instant};

use laige_sim::prelude::*;

#[path = "../tests/support/game_tick/mod.rs"]
mod game_tick;
#[path = "../../laige-scheduler/benches/support/w4.rs"]
mod w4;
#[path = "common/w4_world.rs"]
mod w4_world;

use game_tick::{ENTITIES, RunMode};

const WARM_UP: u32 = 60;
const TICKS: u32 = 300;

/// Per-tick means, in microseconds.
#[derive(Default)]
struct Profile {
    wall: f64,
    systems: f64,
    end_tick: f64,
    critical_path: f64,
    heaviest: (f64, &'static str),
    path: Vec<(&'static str, f64)>,
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn profile(mode: RunMode) -> Profile {
    let (mut world, schedule) = game_tick::build(ENTITIES, 0x6A4E_5EED).unwrap();
    mode.apply(&mut world);
    for _ in 0..WARM_UP {
        world.run_systems(&schedule).unwrap();
    }
    let ids: Vec<SystemId> = schedule.order().to_vec();
    let mut p = Profile::default();
    let mut durations = vec![0.0f64; ids.len() + 1];
    for _ in 0..TICKS {
        let start = Instant::now();
        world.run_systems(&schedule).unwrap();
        p.wall += micros(start.elapsed());
        let start = Instant::now();
        world.end_tick();
        p.end_tick += micros(start.elapsed());
        for &id in &ids {
            let last = micros(world.timing_stats(id).unwrap().last);
            durations[id.index()] += last;
            p.systems += last;
        }
    }
    let n = f64::from(TICKS);
    for d in &mut durations {
        *d /= n;
    }
    p.wall /= n;
    p.systems /= n;
    p.end_tick /= n;
    let names = |id: SystemId| world.registry().get(id).unwrap().name();
    let heaviest = ids
        .iter()
        .max_by(|a, b| durations[a.index()].total_cmp(&durations[b.index()]))
        .unwrap();
    p.heaviest = (durations[heaviest.index()], names(*heaviest));
    // The longest path through the plan's edges, in schedule order (a topological order).
    if let Some(plan) = world.plan() {
        let mut finish = vec![0.0f64; ids.len() + 1];
        let mut via: Vec<Option<SystemId>> = vec![None; ids.len() + 1];
        for &id in &ids {
            let last = plan
                .predecessors(id)
                .max_by(|a, b| finish[a.index()].total_cmp(&finish[b.index()]));
            let ready = last.map_or(0.0, |pred| finish[pred.index()]);
            via[id.index()] = last;
            finish[id.index()] = ready + durations[id.index()];
        }
        let end = ids
            .iter()
            .copied()
            .max_by(|a, b| finish[a.index()].total_cmp(&finish[b.index()]));
        p.critical_path = end.map_or(0.0, |id| finish[id.index()]);
        let mut at = end;
        while let Some(id) = at {
            p.path.push((names(id), durations[id.index()]));
            at = via[id.index()];
        }
        p.path.reverse();
    }
    p
}

/// `count` W4 builds of `variant`.
fn w4_builds(variant: &str, count: u32) {
    let graph = w4::w4_graph();
    let defs = w4::w4_defs(&graph, w4_world::noop as SystemFn, w4::Variant::Declared);
    let layout = w4_world::layout();
    for _ in 0..count {
        match variant {
            "world" => drop(std::hint::black_box(w4_world::world_build(&defs, false))),
            "world-plan" => drop(std::hint::black_box(w4_world::world_build(&defs, true))),
            "bare" => drop(std::hint::black_box(w4_world::bare_build(
                &defs, &layout, false,
            ))),
            "bare-plan" => drop(std::hint::black_box(w4_world::bare_build(
                &defs, &layout, true,
            ))),
            "floor" => drop(w4::floor(&graph)),
            other => panic!("unknown W4 variant {other}"),
        }
    }
}

/// Every mode in turn, `rounds` times; medians of the per-round mean tick.
fn interleaved_rounds(rounds: usize) {
    let mut worlds: Vec<_> = RunMode::ALL
        .into_iter()
        .map(|mode| {
            let (mut world, schedule) = game_tick::build(ENTITIES, 0x6A4E_5EED).unwrap();
            mode.apply(&mut world);
            for _ in 0..WARM_UP {
                world.run_systems(&schedule).unwrap();
            }
            (mode, world, schedule, Vec::with_capacity(rounds))
        })
        .collect();
    for _ in 0..rounds {
        for (_, world, schedule, times) in &mut worlds {
            let start = Instant::now();
            for _ in 0..20 {
                world.run_systems(schedule).unwrap();
            }
            times.push(micros(start.elapsed()) / 20.0);
        }
    }
    let hashes: Vec<u64> = worlds.iter().map(|(_, w, _, _)| w.state_hash()).collect();
    assert!(
        hashes.windows(2).all(|h| h[0] == h[1]),
        "every mode reaches the same state"
    );
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let sequential = median(&mut worlds[0].3);
    println!("| mode | median tick µs | × sequential |");
    println!("|---|---|---|");
    for (mode, _, _, times) in &mut worlds {
        let m = median(times);
        println!("| {} | {m:.0} | {:.2}x |", mode.label(), m / sequential);
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if let [w4, variant, count] = &args[..]
        && w4 == "w4"
    {
        return w4_builds(variant, count.parse().expect("a build count"));
    }
    if let [interleaved, rounds] = &args[..]
        && interleaved == "interleaved"
    {
        return interleaved_rounds(rounds.parse().expect("a round count"));
    }
    if let Some(label) = args.first() {
        let mode = RunMode::ALL
            .into_iter()
            .find(|m| &m.label() == label)
            .expect("a mode: sequential, parallel-2, auto-2 or parallel-8");
        let (mut world, schedule) = game_tick::build(ENTITIES, 0x6A4E_5EED).unwrap();
        mode.apply(&mut world);
        for _ in 0..2_000 {
            world.run_systems(&schedule).unwrap();
        }
        return;
    }
    println!(
        "| mode | wall µs | systems µs | end_tick µs | critical path µs | bound µs | heaviest |"
    );
    println!("|---|---|---|---|---|---|---|");
    for mode in RunMode::ALL {
        let p = profile(mode);
        let threads = match mode {
            RunMode::Sequential => 1.0,
            RunMode::Parallel(n) | RunMode::Auto(n) => n.min(2) as f64,
        };
        let bound = p.critical_path.max(p.systems / threads) + p.end_tick;
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {} {:.0} |",
            mode.label(),
            p.wall,
            p.systems,
            p.end_tick,
            p.critical_path,
            bound,
            p.heaviest.1,
            p.heaviest.0
        );
        if mode == RunMode::Parallel(2) {
            let path: Vec<String> = p
                .path
                .iter()
                .map(|(name, us)| format!("{name} {us:.0}"))
                .collect();
            println!("critical path of parallel-2 (µs): {}", path.join(" -> "));
        }
    }
}
