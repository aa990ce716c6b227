//! Instruction-count probes for `valgrind --tool=callgrind`, which counts the same on a
//! loaded machine as on an idle one: W4 `build-256` (256 registrations plus scheduling, as
//! specified, for the flat rules; `build-single-writer` is its flat variant that schedules,
//! with 32 `read_before_write` warnings; `build-declared` the runnable declarative build of
//! the `build` bench, with an `after_weak` edge for every pair the rules would refuse) and a
//! W2 tick (100 empty typed systems through `World::run_systems`, sequential; `tick` with
//! timing on, the default, `tick-untimed` with it off) beside the same tick on the bare
//! runner over a host that only calls each system's `fn()` (`runner`, timing off, and
//! `runner-timed`), the floor the World's tick is held to. `tick-w3` and `tick-w3-untimed` are
//! W3 (each system after the previous one); `tick* COUNT THREADS` runs on the executor.
//! `simple-each` and `simple-iter-mut` are `simple_iter` (10,000 entities, `pos += vel`)
//! through a context's `each` and its `iter_mut` (probes `probe_iter_each`, `probe_iter_mut`).
//!
//! Each measured call is an `#[inline(never)]` function, so callgrind counts only it:
//!
//! ```text
//! cargo build --release -p laige-sim --example callgrind   # `-p`: without laige-world's test-only tracing spans
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

#[path = "../../laige-scheduler/benches/support/w4.rs"]
mod w4;
use w4::Variant;

type Run = fn(&mut ());

fn noop(_: &mut ()) {}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

#[inline(never)]
fn probe_build(defs: &[SystemDef<Run>], layout: Option<&Layout>) -> bool {
    let mut registry = Registry::new();
    for c in 0..w4::COMPONENTS {
        registry.register_component(w4::component(c));
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

/// `simple_iter`'s components (ecs_bench_suite): `pos += vel` over 10,000 entities.
#[derive(Component)]
struct Transform(#[allow(dead_code)] [f32; 16]);
#[derive(Component)]
struct Position([f32; 3]);
#[derive(Component)]
struct Rotation(#[allow(dead_code)] [f32; 3]);
#[derive(Component)]
struct Velocity([f32; 3]);

#[inline(always)]
fn step(p: &mut Position, v: &Velocity) {
    for i in 0..3 {
        p.0[i] += v.0[i];
    }
}

#[inline(never)]
fn probe_iter_each(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Position, &Velocity)>(|(p, v)| step(p, v))
        .unwrap();
}

#[inline(never)]
fn probe_iter_mut(ctx: &mut SystemContext<'_>) {
    for (p, v) in ctx.iter_mut::<(&mut Position, &Velocity)>().unwrap() {
        step(p, v);
    }
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
            let defs = w4::w4_defs(&w4::w4_graph(), noop as Run, variant);
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
        "tick" | "tick-untimed" | "tick-w3" | "tick-w3-untimed" => {
            // A third argument runs the tick on the executor with that many threads; only
            // the calling thread's instructions are counted then (callgrind toggles per thread).
            let threads: usize = args
                .next()
                .map_or(0, |it| it.parse().expect("a thread count"));
            let mut world = World::new(WorldOptions {
                timing: !what.ends_with("untimed"),
                ..WorldOptions::default()
            });
            let chain = what.starts_with("tick-w3");
            let mut previous: Option<SystemHandle> = None;
            for i in 0..100 {
                let builder = world
                    .system(leak(format!("empty{i:03}")), empty)
                    .budget_ms(50.0);
                let builder = match (chain, previous) {
                    (true, Some(handle)) => builder.after(handle),
                    _ => builder,
                };
                previous = Some(builder.register().unwrap());
            }
            if threads > 0 {
                world.use_executor(ExecutorOptions::parallel(threads));
            }
            let schedule = world.schedule().unwrap();
            probe_tick(&mut world, &schedule);
            for _ in 0..count {
                probe_tick(&mut world, black_box(&schedule));
            }
        }
        "simple-each" | "simple-iter-mut" => {
            let mut world = World::default();
            world.register_component::<Transform>().unwrap();
            world.register_component::<Position>().unwrap();
            world.register_component::<Rotation>().unwrap();
            world.register_component::<Velocity>().unwrap();
            for _ in 0..10_000 {
                let mut m = [0.0; 16];
                for i in 0..4 {
                    m[i * 5] = 1.0;
                }
                let x = [1.0, 0.0, 0.0];
                world
                    .spawn((Transform(m), Position(x), Rotation(x), Velocity(x)))
                    .unwrap();
            }
            let id = world
                .system_fn("Move", |_| {})
                .writes::<Position>()
                .reads::<Velocity>()
                .register()
                .unwrap()
                .id();
            let probe = if what == "simple-each" {
                probe_iter_each
            } else {
                probe_iter_mut
            };
            for _ in 0..count {
                probe(black_box(&mut world.context(id).unwrap()));
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
            "usage: callgrind build|build-single-writer|build-declared|tick|tick-untimed|tick-w3|tick-w3-untimed|simple-each|simple-iter-mut|runner|runner-timed [count] [threads]"
        ),
    }
}
