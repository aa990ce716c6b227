//! What recording costs a World tick: W2 `empty-100` and W3 `chain-100`
//! (`../shared/bench/workloads.md`), sequential and on two threads, with timing on or off,
//! and with the timeline or the checksums recorded; every variant measured in turn, round
//! after round, in one binary, so load changes hit them all alike. Beside them, the floor
//! the World's tick is held to (issue 13): the same ticks on the bare runner over a host
//! that only calls each system's `fn()`, timed and untimed, and on the bare executor.
//!
//! ```text
//! cargo bench -p laige-sim --bench recording             # every variant, and the ratios
//! cargo bench -p laige-sim --bench recording -- --off    # only the recording-off variants
//! recording-<hash> --only w2-seq-timing --ticks 5000      # one variant, N ticks, untimed
//! ```
//!
//! The last form is for counting instructions (`valgrind --tool=callgrind`): two runs with
//! different tick counts, subtracted, give the instructions of one tick, which the load of a
//! shared machine does not move.
//!
//! `scripts/bench-recording-off.sh` runs the `--off` variants of this binary and of a build
//! of another revision (without the recorders) alternately, for the recording-off target.
//! Each figure is the median over rounds of the median per-tick time of a round's batches.

use std::hint::black_box;
use std::time::Instant;

use laige_sim::executor::{Executor, Plan, SharedHost};
use laige_sim::prelude::*;
use laige_sim::registry::Registry;
use laige_sim::runner::{Runner, RunnerOptions};

const SYSTEMS: usize = 100;
const ROUNDS: usize = 9;
const BATCHES: usize = 5;
const TICKS_PER_BATCH: u32 = 2_000;

/// W2 (`chain` false: no ordering) or W3 (each system after the previous one), 100 empty
/// typed systems.
fn world(chain: bool) -> (World, Schedule) {
    let mut world = World::new(WorldOptions::default());
    let mut previous: Option<SystemHandle> = None;
    for i in 0..SYSTEMS {
        let builder = world.system(format!("s{i:03}"), || {}).budget_ms(1.0);
        let builder = match (chain, previous) {
            (true, Some(handle)) => builder.after(handle),
            _ => builder,
        };
        previous = Some(builder.register().expect("a valid system"));
    }
    let schedule = world.schedule().expect("a valid schedule");
    (world, schedule)
}

struct Variant {
    name: String,
    /// One tick of the variant.
    tick: Box<dyn FnMut()>,
    /// Per round, the median nanoseconds per tick.
    rounds: Vec<f64>,
}

type BareRun = fn();

fn bare_empty() {}

/// Runs each system's `fn()`; holds no data.
struct Calls;

// SAFETY: the systems touch nothing.
unsafe impl SharedHost<BareRun> for Calls {
    unsafe fn run_system(&self, _: SystemId, run: &BareRun) {
        run()
    }
}

/// The bare crates: W2 or W3 as a registry of `fn()`s and its flat schedule.
fn bare(chain: bool) -> (Registry<BareRun>, Schedule) {
    let mut registry = Registry::new();
    for i in 0..SYSTEMS {
        let after = if chain && i > 0 {
            format!("s{:03}", i - 1)
        } else {
            String::new()
        };
        let name: &'static str = Box::leak(format!("s{i:03}").into_boxed_str());
        let after: &'static str = Box::leak(after.into_boxed_str());
        let def = SystemDef::new(name, bare_empty as BareRun)
            .budget_ms(1.0)
            .depends_on(after);
        registry.register(def).expect("a valid system");
    }
    let schedule = laige_sim::scheduler::schedule(&registry).expect("a valid schedule");
    (registry, schedule)
}

/// The variants to measure: every one, or only the one named `only`.
struct Variants {
    only: Option<String>,
    all: Vec<Variant>,
}

impl Variants {
    fn add(
        &mut self,
        workload: &str,
        threads: usize,
        setting: &str,
        set_up: impl FnOnce(&mut World),
    ) {
        let mode = if threads > 0 { "par2" } else { "seq" };
        let name = format!("{workload}-{mode}-{setting}");
        if self.only.as_ref().is_some_and(|only| *only != name) {
            return;
        }
        let (mut world, schedule) = world(workload == "w3");
        if threads > 0 {
            world.use_executor(ExecutorOptions::parallel(threads));
        }
        set_up(&mut world);
        self.push(
            name,
            Box::new(move || world.run_systems(black_box(&schedule)).expect("a tick")),
        );
    }

    /// The bare runner (`threads` 0, timed or not) or the bare executor on `threads`.
    fn add_bare(&mut self, workload: &str, threads: usize, timing: bool) {
        let setting = if timing { "timing" } else { "untimed" };
        let name = match threads {
            0 => format!("{workload}-seq-{setting}-runner"),
            _ => format!("{workload}-par{threads}-{setting}-executor"),
        };
        if self.only.as_ref().is_some_and(|only| *only != name) {
            return;
        }
        let (registry, schedule) = bare(workload == "w3");
        if threads == 0 {
            let mut runner = Runner::with_options(RunnerOptions { timing });
            self.push(
                name,
                Box::new(move || {
                    let mut host = |_: SystemId, run: &BareRun| run();
                    let schedule = black_box(&schedule);
                    runner.run(schedule, &registry, &mut host).expect("a tick");
                }),
            );
        } else {
            let plan = Plan::build_from_access(&schedule, &registry);
            let mut executor = Executor::new(ExecutorOptions {
                threads,
                mode: Mode::Parallel,
                time_systems: timing,
            });
            self.push(
                name,
                Box::new(move || {
                    for t in 0..plan.track_count() {
                        let runs = registry.runs();
                        executor
                            .run_track(black_box(&plan), t, runs, &Calls)
                            .expect("a track");
                    }
                }),
            );
        }
    }

    fn push(&mut self, name: String, tick: Box<dyn FnMut()>) {
        if self.only.as_ref().is_some_and(|only| *only != name) {
            return;
        }
        self.all.push(Variant {
            name,
            tick,
            rounds: Vec::new(),
        });
    }
}

fn variants(off_only: bool, only: Option<String>) -> Vec<Variant> {
    let mut v = Variants {
        only,
        all: Vec::new(),
    };
    for workload in ["w2", "w3"] {
        for threads in [0, 2] {
            v.add(workload, threads, "timing", |_| {});
            v.add(workload, threads, "untimed", |w| w.set_timing(false));
        }
    }
    if off_only {
        return v.all;
    }
    for workload in ["w2", "w3"] {
        for threads in [0, 2] {
            v.add_bare(workload, threads, true);
            v.add_bare(workload, threads, false);
        }
    }
    // recording:begin (scripts/bench-recording-off.sh cuts this out for older revisions)
    for threads in [0, 2] {
        v.add("w2", threads, "timeline", |w| w.record_timeline(1_000));
        v.add("w2", threads, "checksums", |w| w.record_checksums(1_000));
    }
    // recording:end
    v.all
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// One round of `v`: a warm-up, then the median per-tick time of its batches.
fn measure(v: &mut Variant) {
    for _ in 0..200 {
        (v.tick)();
    }
    let mut batches = [0.0; BATCHES];
    for batch in &mut batches {
        let start = Instant::now();
        for _ in 0..TICKS_PER_BATCH {
            (v.tick)();
        }
        *batch = start.elapsed().as_nanos() as f64 / f64::from(TICKS_PER_BATCH);
    }
    v.rounds.push(median(&mut batches));
}

/// The value after flag `name`, if given.
fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|it| it == name)?;
    args.get(at + 1).cloned()
}

fn main() {
    let off_only = std::env::args().any(|it| it == "--off");
    let only = flag("--only");
    let mut all = variants(off_only, only.clone());
    if let Some(only) = only {
        let ticks: u32 = flag("--ticks")
            .and_then(|it| it.parse().ok())
            .unwrap_or(1_000);
        let Some(v) = all.first_mut() else {
            eprintln!("no variant `{only}`");
            std::process::exit(2);
        };
        for _ in 0..ticks {
            (v.tick)();
        }
        return;
    }
    for _ in 0..ROUNDS {
        for v in &mut all {
            measure(v);
        }
    }
    println!("variant                      median ns/tick   (rounds: min .. max)");
    for v in &all {
        let mut rounds = v.rounds.clone();
        let mid = median(&mut rounds);
        println!(
            "{:<28} {mid:>10.0}       ({:.0} .. {:.0})",
            v.name,
            rounds[0],
            rounds[rounds.len() - 1]
        );
    }
    // Ratios per round (the variants of a round ran seconds apart), then their median.
    let ratio = |a: &str, b: &str| {
        let find = |name: &str| all.iter().find(|v| v.name == name);
        let (Some(a), Some(b)) = (find(a), find(b)) else {
            return;
        };
        let mut per_round: Vec<f64> = a.rounds.iter().zip(&b.rounds).map(|(x, y)| x / y).collect();
        println!(
            "ratio {a:<20} / {b:<20} {:.3}",
            median(&mut per_round),
            a = a.name,
            b = b.name
        );
    };
    // The World against its floor (issue 13): the bare runner, the bare executor.
    for workload in ["w2", "w3"] {
        for setting in ["timing", "untimed"] {
            ratio(
                &format!("{workload}-seq-{setting}"),
                &format!("{workload}-seq-{setting}-runner"),
            );
            ratio(
                &format!("{workload}-par2-{setting}"),
                &format!("{workload}-par2-{setting}-executor"),
            );
        }
    }
    for mode in ["seq", "par2"] {
        ratio(&format!("w2-{mode}-timeline"), &format!("w2-{mode}-timing"));
        ratio(
            &format!("w2-{mode}-checksums"),
            &format!("w2-{mode}-timing"),
        );
    }
}
