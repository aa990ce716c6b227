//! Instruction-count probes for `valgrind --tool=callgrind`, which counts the same on a
//! loaded machine as on an idle one: W4 `build-256` (256 registrations plus scheduling, as
//! in `laige-scheduler`'s `build` bench; `build-single-writer` is its variant that schedules,
//! with 32 `read_before_write` warnings) and a W2 tick (100 empty systems through
//! `World::run_systems`, sequential).
//!
//! Each measured call is an `#[inline(never)]` function, so callgrind counts only it:
//!
//! ```text
//! cargo build --release --example callgrind
//! valgrind --tool=callgrind --toggle-collect='*probe_build*' target/release/examples/callgrind build 100
//! valgrind --tool=callgrind --toggle-collect='*probe_tick*' target/release/examples/callgrind tick 1000
//! ```
//!
//! Divide the reported total by the count. docs/benchmarks.md records the figures.

use std::hint::black_box;

use laige_sim::prelude::*;
use laige_sim::registry::Registry;

type Run = fn(&mut ());

fn noop(_: &mut ()) {}

/// The W4 graph seed, as in the `build` bench.
const W4_SEED: u64 = 0x1F05_5EED;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// W4 as specified: 256 systems over 64 components, 1-4 accesses each (write with p = 1/3),
/// 0-3 `depends_on` edges to earlier systems (the `build` bench's generator). With
/// `single_writer`, a write to a component that already has a writer becomes a read.
fn w4_defs(single_writer: bool) -> Vec<SystemDef<Run>> {
    let names: Vec<&'static str> = (0..256).map(|i| leak(format!("sys{i:03}"))).collect();
    let mut rng = SplitMix64(W4_SEED);
    let mut written = [false; 64];
    (0..256)
        .map(|i| {
            let mut def = SystemDef::new(names[i], noop as Run).budget_ms(1.0);
            let mut taken = [false; 64];
            for _ in 0..1 + rng.below(4) {
                let c = loop {
                    let c = rng.below(64) as usize;
                    if !taken[c] {
                        break c;
                    }
                };
                taken[c] = true;
                let id = ComponentId::new(c as u16 + 1).unwrap();
                let write = rng.below(3) == 0 && !(single_writer && written[c]);
                written[c] |= write;
                def = if write { def.writes(id) } else { def.reads(id) };
            }
            if i > 0 {
                let mut deps: Vec<usize> = Vec::new();
                for _ in 0..rng.below(4) {
                    let d = rng.below(i as u64) as usize;
                    if !deps.contains(&d) {
                        deps.push(d);
                    }
                }
                let spec: Vec<&str> = deps.iter().map(|&d| names[d]).collect();
                def = def.depends_on(leak(spec.join(", ")));
            }
            def
        })
        .collect()
}

#[inline(never)]
fn probe_build(defs: &[SystemDef<Run>]) -> bool {
    let mut registry = Registry::new();
    for c in 1..=64 {
        registry.register_component(ComponentId::new(c).unwrap());
    }
    for def in defs {
        registry.register(def).expect("W4 definitions are valid");
    }
    laige_sim::scheduler::schedule(&registry).is_ok()
}

fn empty(_: &mut SystemContext<'_>) {}

#[inline(never)]
fn probe_tick(world: &mut World, schedule: &Schedule) {
    world.run_systems(schedule).unwrap();
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_default();
    let count: usize = args.next().map_or(100, |it| it.parse().expect("a count"));
    match what.as_str() {
        "build" | "build-single-writer" => {
            let single_writer = what == "build-single-writer";
            let defs = w4_defs(single_writer);
            assert_eq!(
                probe_build(&defs),
                single_writer,
                "only the variant schedules"
            );
            for _ in 0..count {
                black_box(probe_build(black_box(&defs)));
            }
        }
        "tick" => {
            let mut world = World::default();
            for i in 0..100 {
                world
                    .system(leak(format!("empty{i:03}")), empty)
                    .budget_ms(50.0)
                    .register()
                    .unwrap();
            }
            let schedule = world.schedule().unwrap();
            probe_tick(&mut world, &schedule);
            for _ in 0..count {
                probe_tick(&mut world, black_box(&schedule));
            }
        }
        _ => panic!("usage: callgrind build|build-single-writer|tick [count]"),
    }
}
