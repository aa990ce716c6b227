//! Instruction-count probes for `valgrind --tool=callgrind`, which counts the same on a
//! loaded machine as on an idle one: W4 `build-256` (256 registrations plus scheduling, as
//! specified, for the flat rules; `build-single-writer` is its flat variant that schedules,
//! with 32 `read_before_write` warnings; `build-declared` the runnable declarative build of
//! the `build` bench, with an `after_weak` edge for every pair the rules would refuse) and a
//! W2 tick (100 empty typed systems through `World::run_systems`, sequential; `tick` with
//! timing on, the default, `tick-untimed` with it off) beside the same tick on the bare
//! runner over a host that only calls each system's `fn()` (`runner`, timing off, and
//! `runner-timed`), the floor the World's tick is held to.
//!
//! Each measured call is an `#[inline(never)]` function, so callgrind counts only it:
//!
//! ```text
//! cargo build --release --example callgrind
//! valgrind --tool=callgrind --toggle-collect='*probe_build*' target/release/examples/callgrind build 100
//! valgrind --tool=callgrind --toggle-collect='*probe_build*' target/release/examples/callgrind build-declared 10
//! valgrind --tool=callgrind --toggle-collect='*probe_tick*' target/release/examples/callgrind tick 1000
//! valgrind --tool=callgrind --toggle-collect='*probe_runner*' target/release/examples/callgrind runner 1000
//! ```
//!
//! Divide the reported total by the count. docs/benchmarks.md records the figures.

use std::hint::black_box;

use laige_sim::prelude::*;
use laige_sim::registry::Registry;
use laige_sim::runner::{Runner, RunnerOptions};

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

/// How the W4 definitions are made (the `build` bench's variants).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Flat,
    SingleWriter,
    Declared,
}

/// One W4 system: `(component index, write)` accesses, `depends_on` and `after_weak` edges.
#[derive(Default)]
struct W4System {
    accesses: Vec<(usize, bool)>,
    deps: Vec<usize>,
    weak: Vec<usize>,
}

/// W4 as specified: 256 systems over 64 components, 1-4 accesses each (write with p = 1/3),
/// 0-3 `depends_on` edges to earlier systems (the `build` bench's generator); then, in
/// registration order, an `after_weak` edge to every earlier system it conflicts with and
/// is not yet ordered after.
fn w4_graph() -> Vec<W4System> {
    let mut rng = SplitMix64(W4_SEED);
    let mut graph: Vec<W4System> = Vec::new();
    for i in 0..256 {
        let mut system = W4System::default();
        let mut taken = [false; 64];
        for _ in 0..1 + rng.below(4) {
            let c = loop {
                let c = rng.below(64) as usize;
                if !taken[c] {
                    break c;
                }
            };
            taken[c] = true;
            system.accesses.push((c, rng.below(3) == 0));
        }
        if i > 0 {
            for _ in 0..rng.below(4) {
                let d = rng.below(i as u64) as usize;
                if !system.deps.contains(&d) {
                    system.deps.push(d);
                }
            }
        }
        graph.push(system);
    }
    let conflicts = |a: &W4System, b: &W4System| {
        a.accesses
            .iter()
            .any(|&(c, wa)| b.accesses.iter().any(|&(d, wb)| c == d && (wa || wb)))
    };
    let mut reach = vec![[false; 256]; graph.len()];
    for i in 0..graph.len() {
        let mut mine = [false; 256];
        for &d in &graph[i].deps.clone() {
            for k in 0..256 {
                mine[k] |= reach[d][k];
            }
            mine[d] = true;
        }
        for j in (0..i).rev() {
            if !mine[j] && conflicts(&graph[i], &graph[j]) {
                graph[i].weak.push(j);
                for k in 0..256 {
                    mine[k] |= reach[j][k];
                }
                mine[j] = true;
            }
        }
        graph[i].weak.reverse();
        reach[i] = mine;
    }
    graph
}

fn w4_defs(variant: Variant) -> Vec<SystemDef<Run>> {
    let names: Vec<&'static str> = (0..256).map(|i| leak(format!("sys{i:03}"))).collect();
    let spec = |systems: &[usize]| {
        let joined: Vec<&str> = systems.iter().map(|&d| names[d]).collect();
        leak(joined.join(", "))
    };
    let mut written = [false; 64];
    w4_graph()
        .iter()
        .enumerate()
        .map(|(i, system)| {
            let mut def = SystemDef::new(names[i], noop as Run).budget_ms(1.0);
            for &(c, write) in &system.accesses {
                let id = ComponentId::new(c as u16 + 1).unwrap();
                let write = write && !(variant == Variant::SingleWriter && written[c]);
                written[c] |= write;
                def = if write { def.writes(id) } else { def.reads(id) };
            }
            if !system.deps.is_empty() {
                def = def.depends_on(spec(&system.deps));
            }
            if variant == Variant::Declared && !system.weak.is_empty() {
                def = def.after_weak(spec(&system.weak));
            }
            def
        })
        .collect()
}

#[inline(never)]
fn probe_build(defs: &[SystemDef<Run>], layout: Option<&Layout>) -> bool {
    let mut registry = Registry::new();
    for c in 1..=64 {
        registry.register_component(ComponentId::new(c).unwrap());
    }
    for def in defs {
        registry.register(def).expect("W4 definitions are valid");
    }
    match layout {
        None => laige_sim::scheduler::schedule(&registry).is_ok(),
        Some(layout) => laige_sim::scheduler::schedule_declared(&registry, layout).is_ok(),
    }
}

fn empty(_: &mut SystemContext<'_>) {}

#[inline(never)]
fn probe_tick(world: &mut World, schedule: &Schedule) {
    world.run_systems(schedule).unwrap();
}

type BareRun = fn();

fn bare_empty() {}

#[inline(never)]
fn probe_runner(runner: &mut Runner, schedule: &Schedule, registry: &Registry<BareRun>) {
    let mut host = |_: SystemId, run: &BareRun| run();
    runner.run(schedule, registry, &mut host).unwrap();
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_default();
    let count: usize = args.next().map_or(100, |it| it.parse().expect("a count"));
    match what.as_str() {
        "build" | "build-single-writer" | "build-declared" => {
            let variant = match what.as_str() {
                "build" => Variant::Flat,
                "build-single-writer" => Variant::SingleWriter,
                _ => Variant::Declared,
            };
            let defs = w4_defs(variant);
            let layout = Layout::new().dag("Main", "W4", &["Update"], "Update");
            let layout = (variant == Variant::Declared).then_some(&layout);
            assert_eq!(
                probe_build(&defs, layout),
                variant != Variant::Flat,
                "W4 as specified ends at double_writer; the variants schedule"
            );
            for _ in 0..count {
                black_box(probe_build(black_box(&defs), layout));
            }
        }
        "tick" | "tick-untimed" => {
            let mut world = World::new(WorldOptions {
                timing: what == "tick",
                ..WorldOptions::default()
            });
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
        "runner" | "runner-timed" => {
            let mut registry = Registry::new();
            for i in 0..100 {
                let def = SystemDef::new(leak(format!("empty{i:03}")), bare_empty as BareRun);
                registry.register(def.budget_ms(50.0)).unwrap();
            }
            let schedule = laige_sim::scheduler::schedule(&registry).unwrap();
            let mut runner = Runner::with_options(RunnerOptions {
                timing: what == "runner-timed",
            });
            probe_runner(&mut runner, &schedule, &registry);
            for _ in 0..count {
                probe_runner(&mut runner, black_box(&schedule), &registry);
            }
        }
        _ => panic!(
            "usage: callgrind build|build-single-writer|build-declared|tick|tick-untimed|runner|runner-timed [count]"
        ),
    }
}
