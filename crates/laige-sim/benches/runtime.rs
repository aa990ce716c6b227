//! The tick runtime's cost: one `Runtime::step` against one plain `World::run_systems` on
//! W2 `empty-100` and on `game_tick` (sequential), timed in alternating rounds in one
//! binary; and the real-time start jitter and drift of 10 s at 60 Hz.
//!
//! Run with `cargo bench -p laige-sim --bench runtime` (`-- --quick` for 1 s of real time).

use std::hint::black_box;
use std::time::{Duration, Instant};

use laige_sim::prelude::*;
use laige_sim::runtime::{Runtime, RuntimeOptions};

#[path = "../tests/support/game_tick/mod.rs"]
mod game_tick;

fn empty(_: &mut SystemContext<'_>) {}

/// W2: 100 systems with empty bodies, no access, no order.
fn w2() -> World {
    let mut world = World::default();
    for k in 0..100 {
        let name: &'static str = Box::leak(format!("Empty{k}").into_boxed_str());
        world.system_fn(name, empty).register().unwrap();
    }
    world
}

fn game() -> World {
    game_tick::build(game_tick::ENTITIES, 0x6A4E_5EED)
        .unwrap()
        .0
}

/// Median over `rounds` of (runtime step time / plain tick time), each round `ticks` of
/// each, the order alternating.
fn overhead(label: &str, make: fn() -> World, ticks: u32, rounds: usize, system_telemetry: bool) {
    let mut plain = make();
    Runtime::install(&mut plain).unwrap();
    let schedule = plain.schedule().unwrap();
    plain.prepare_schedule(&schedule).unwrap();
    let options = RuntimeOptions {
        system_telemetry,
        ..RuntimeOptions::default()
    };
    let mut rt = Runtime::new(make(), options).unwrap();
    for _ in 0..30 {
        plain.run_systems(&schedule).unwrap();
        rt.step().unwrap();
    }
    let mut time_plain = || {
        let start = Instant::now();
        for _ in 0..ticks {
            plain.run_systems(black_box(&schedule)).unwrap();
        }
        start.elapsed()
    };
    let mut ratios = Vec::with_capacity(rounds);
    let (mut sum_plain, mut sum_rt) = (Duration::ZERO, Duration::ZERO);
    for round in 0..rounds {
        let mut time_rt = || {
            let start = Instant::now();
            for _ in 0..ticks {
                black_box(rt.step().unwrap());
            }
            start.elapsed()
        };
        let (p, r) = if round % 2 == 0 {
            let p = time_plain();
            (p, time_rt())
        } else {
            let r = time_rt();
            (time_plain(), r)
        };
        sum_plain += p;
        sum_rt += r;
        ratios.push(r.as_secs_f64() / p.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let per = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(ticks) / rounds as f64;
    println!(
        "{label} (system telemetry {system_telemetry}): plain {:.2} µs/tick, runtime {:.2} µs/tick, median ratio {:.3} (p10 {:.3}, p90 {:.3}) over {rounds} rounds of {ticks}",
        per(sum_plain),
        per(sum_rt),
        ratios[rounds / 2],
        ratios[rounds / 10],
        ratios[rounds * 9 / 10],
    );
}

/// Real time at 60 Hz: p50/p99/max of start minus target over ticks run on time, and the
/// drift of the last tick's target from the first's plus n intervals.
fn jitter(seconds: u32) {
    let mut world = World::default();
    world.system_fn("Empty", empty).register().unwrap();
    let options = RuntimeOptions {
        telemetry_ticks: 60 * seconds as usize,
        ..RuntimeOptions::default()
    };
    let mut rt = Runtime::new(world, options).unwrap();
    rt.run_ticks(u64::from(60 * seconds)).unwrap();
    let interval = rt.interval().as_nanos() as u64;
    let ticks: Vec<_> = rt.telemetry().ticks().map(|(t, _)| *t).collect();
    let mut late: Vec<u64> = ticks
        .iter()
        .filter(|t| t.catch_up == 0)
        .map(|t| t.start_nanos.saturating_sub(t.target_nanos))
        .collect();
    late.sort_unstable();
    let (first, last) = (ticks[0], ticks[ticks.len() - 1]);
    let drift = last.target_nanos as i128
        - (first.target_nanos as i128 + (last.tick - first.tick) as i128 * interval as i128);
    let dropped: u64 = ticks.iter().map(|t| t.dropped).sum();
    println!(
        "jitter at 60 Hz over {seconds} s: {} ticks, start late p50 {} µs, p99 {} µs, max {} µs; target drift {} ns; {dropped} dropped; spin threshold {:?}",
        ticks.len(),
        late[late.len() / 2] / 1000,
        late[late.len() * 99 / 100] / 1000,
        late[late.len() - 1] / 1000,
        drift,
        rt.spin_threshold(),
    );
}

fn main() {
    let quick = std::env::args().any(|it| it == "--quick");
    // `--w2` (or `--w2-lean`, without system telemetry) alone: a short W2 run, for
    // instruction counts under callgrind.
    for (flag, system_telemetry) in [("--w2", true), ("--w2-lean", false)] {
        if std::env::args().any(|it| it == flag) {
            overhead("W2 empty-100", w2, 200, 3, system_telemetry);
            return;
        }
    }
    let rounds = if quick { 11 } else { 41 };
    for system_telemetry in [true, false] {
        overhead("W2 empty-100", w2, 2_000, rounds, system_telemetry);
        overhead("game_tick sequential", game, 20, rounds, system_telemetry);
    }
    jitter(if quick { 1 } else { 10 });
}
