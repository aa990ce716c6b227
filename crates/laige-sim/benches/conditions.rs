//! What a skipped system costs: a tick of 256 typed systems (a registry's most) whose run condition is false
//! (bevy's `run_condition/no/1000_systems` shape), against the same 256 systems without a
//! condition, and with a condition that reads a resource (`resource_equals`). Per-system cost
//! is the tick's time over 256. Timing is off (bevy times nothing); sequential runner.
//!
//! `cargo bench -p laige-sim --bench conditions` times alternating rounds in one binary
//! (median per round). For instruction counts, which a loaded machine does not change:
//!
//! ```text
//! cargo build --release -p laige-sim --bench conditions
//! valgrind --tool=callgrind --toggle-collect='*probe_tick*' target/release/deps/conditions-* probe skipped 200
//! ```
//! (`skipped`, `skipped-resource`, `plain`, `ran`; divide by ticks and by 256.)

use std::hint::black_box;
use std::time::Instant;

use laige_sim::prelude::*;

/// A registry holds at most 256 systems.
const SYSTEMS: usize = 256;

#[derive(PartialEq)]
struct Gate(bool);

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// 256 empty typed systems, gated as `kind` says.
fn world(kind: &str) -> (World, Schedule) {
    let mut world = World::default();
    world.set_timing(false);
    world.insert_resource(Gate(false)).unwrap();
    for k in 0..SYSTEMS {
        let builder = world.system(leak(format!("S{k}")), || {});
        let builder = match kind {
            "skipped" => builder.run_if(|| false),
            "skipped-resource" => builder.run_if(resource_equals(Gate(true))),
            "ran" => builder.run_if(|| true),
            _ => builder,
        };
        builder.register().unwrap();
    }
    let schedule = world.schedule().unwrap();
    world.prepare_schedule(&schedule).unwrap();
    for _ in 0..20 {
        world.run_systems(&schedule).unwrap();
    }
    (world, schedule)
}

#[inline(never)]
fn probe_tick(world: &mut World, schedule: &Schedule) {
    world.run_systems(black_box(schedule)).unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("probe") {
        let kind = args.get(2).map_or("skipped", String::as_str);
        let ticks: u32 = args.get(3).and_then(|it| it.parse().ok()).unwrap_or(200);
        let (mut world, schedule) = world(kind);
        for _ in 0..ticks {
            probe_tick(&mut world, &schedule);
        }
        return;
    }
    let quick = args.iter().any(|it| it == "--quick");
    let (rounds, ticks) = if quick { (11, 200) } else { (41, 1000) };
    let kinds = ["plain", "skipped", "skipped-resource", "ran"];
    let mut worlds: Vec<_> = kinds.iter().map(|kind| world(kind)).collect();
    let mut per_system: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    for round in 0..rounds {
        for k in 0..kinds.len() {
            // Alternate the order, so drift in the host's load hits each kind alike.
            let k = if round % 2 == 0 {
                k
            } else {
                kinds.len() - 1 - k
            };
            let (world, schedule) = &mut worlds[k];
            let start = Instant::now();
            for _ in 0..ticks {
                probe_tick(world, schedule);
            }
            let nanos = start.elapsed().as_nanos() as f64;
            per_system[k].push(nanos / f64::from(ticks) / SYSTEMS as f64);
        }
    }
    for (kind, mut samples) in kinds.iter().zip(per_system) {
        samples.sort_by(f64::total_cmp);
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
        println!(
            "conditions/{kind}/{SYSTEMS}_systems: {:.1} ns per system (p10 {:.1}, p90 {:.1})",
            at(0.5),
            at(0.1),
            at(0.9)
        );
    }
}
