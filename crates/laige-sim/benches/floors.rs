//! The interleaved floor probe: W1 `schedule` (typed systems, and the same systems as `fn`
//! pointers) and `frag_iter` against their plain-`Vec` floors, and the dispatch of typed
//! systems against `fn` pointers on W2 `empty-100` and W3 `chain-100`, timed in alternating
//! batches so that every side sees the same host phases.
//! Criterion times each bench in its own window, and on a shared host the slow phases last
//! seconds (docs/benchmarks.md), which moves a ratio of two criterion medians by 20% or more.
//!
//! Run with `cargo bench -p laige-sim --bench floors`; it prints medians and ratios.
//!
//! `floors probe <typed|fn|plain> <ticks>` instead runs one side of W1 for `ticks` ticks in
//! an `#[inline(never)]` function, for instruction counts that the host's load does not move:
//!
//! ```text
//! cargo bench -p laige-sim --bench floors --no-run   # prints the binary's path
//! valgrind --tool=callgrind --toggle-collect='*probe_w1*' <floors binary> probe typed 20
//! ```

use std::hint::black_box;
use std::time::Instant;

use laige_sim::prelude::*;

mod common;
use common::*;

/// Alternating batches per workload.
const ROUNDS: usize = 200;

/// Runs each of `runs` `batch` times in turn, `ROUNDS` times over; returns the median
/// nanoseconds per run of each.
fn interleaved<const N: usize>(batch: u32, mut runs: [&mut dyn FnMut(); N]) -> [f64; N] {
    let mut samples: [Vec<f64>; N] = std::array::from_fn(|_| Vec::with_capacity(ROUNDS));
    for _ in 0..ROUNDS {
        for (run, samples) in runs.iter_mut().zip(&mut samples) {
            let start = Instant::now();
            for _ in 0..batch {
                run();
            }
            samples.push(start.elapsed().as_nanos() as f64 / f64::from(batch));
        }
    }
    samples.map(|mut it| {
        it.sort_by(f64::total_cmp);
        it[it.len() / 2]
    })
}

/// Runs `ticks` ticks of one side of W1: the only code callgrind counts in probe mode.
#[inline(never)]
fn probe_w1(ticks: u32, tick: &mut dyn FnMut()) {
    for _ in 0..ticks {
        tick();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, probe, side, ticks] = &args[..]
        && probe == "probe"
    {
        let ticks: u32 = ticks.parse().expect("ticks: a number");
        let (mut world, schedule) = match side.as_str() {
            "typed" => w1_world(Form::Typed),
            "fn" => w1_world(Form::FnPointer),
            _ => {
                let mut tables = w1_plain_tables();
                return probe_w1(ticks, &mut || w1_plain_tick(&mut tables));
            }
        };
        return probe_w1(ticks, &mut || world.run_systems(&schedule).unwrap());
    }
    let (mut typed, typed_schedule) = w1_world(Form::Typed);
    check_w1(&mut typed, &typed_schedule);
    let (mut fn_pointers, fn_schedule) = w1_world(Form::FnPointer);
    check_w1(&mut fn_pointers, &fn_schedule);
    let mut tables = w1_plain_tables();
    let [typed_ticks, fn_ticks, plain] = interleaved(
        50,
        [
            &mut || typed.run_systems(black_box(&typed_schedule)).unwrap(),
            &mut || fn_pointers.run_systems(black_box(&fn_schedule)).unwrap(),
            &mut || w1_plain_tick(&mut tables),
        ],
    );
    println!(
        "W1 schedule: run_systems (sequential) typed {:.2} µs, fn pointers {:.2} µs, plain Vecs \
         {:.2} µs: {:.3}x and {:.3}x",
        typed_ticks / 1e3,
        fn_ticks / 1e3,
        plain / 1e3,
        typed_ticks / plain,
        fn_ticks / plain
    );

    // One world per closure: both borrow theirs mutably for the whole probe.
    let (mut for_each, mut for_chunks) = (frag_world(), frag_world());
    let mut tables = frag_plain_tables();
    let [each, chunk, plain] = interleaved(
        1_000,
        [
            &mut || frag_each(&mut for_each),
            &mut || frag_each_chunk(&mut for_chunks),
            &mut || frag_plain(&mut tables),
        ],
    );
    println!(
        "frag_iter: each {each:.0} ns, each_chunk {chunk:.0} ns, plain Vecs {plain:.0} ns: {:.2}x and {:.2}x",
        each / plain,
        chunk / plain
    );

    dispatch();
}

fn empty_fn(_: &mut SystemContext<'_>) {}

/// A marker no entity has: the typed-with-parameters systems query it and find nothing.
struct Marker;
impl Component for Marker {}

/// How the 100 systems of a dispatch world are written.
#[derive(Clone, Copy, Debug)]
enum Dispatch {
    /// `fn(&mut SystemContext)` through its pointer (`system_fn`).
    FnPointer,
    /// A typed closure without parameters.
    Typed,
    /// A typed closure with a query and a `Local`, both fetched every run.
    TypedParams,
}

/// W2 (`chain` false) or W3 (`chain` true) as a World of 100 empty systems written as
/// `form`, on `threads` threads (0: the sequential runner); timing off, so a tick is
/// dispatch alone.
fn dispatch_world(form: Dispatch, chain: bool, threads: usize) -> (World, Schedule) {
    let mut world = World::default();
    world.register_component::<Marker>().unwrap();
    world.set_timing(false);
    let mut previous: Option<SystemHandle> = None;
    for i in 0..100 {
        let name = format!("s{i}");
        let builder = match form {
            Dispatch::FnPointer => world.system_fn(name, empty_fn),
            Dispatch::Typed => world.system(name, || {}),
            Dispatch::TypedParams => world.system(
                name,
                |mut q: Query<'_, &Marker>, mut runs: Local<'_, u32>| {
                    *runs += 1;
                    q.each(|_| {})
                },
            ),
        };
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
    (world, schedule)
}

/// W2 and W3, sequential and on 2 threads: each form's tick interleaved with the others.
fn dispatch() {
    for (workload, chain) in [("W2 empty-100", false), ("W3 chain-100", true)] {
        for (mode, threads) in [("sequential", 0), ("parallel-2", 2)] {
            let [mut fns, mut typed, mut params] =
                [Dispatch::FnPointer, Dispatch::Typed, Dispatch::TypedParams]
                    .map(|form| dispatch_world(form, chain, threads));
            let [fn_tick, typed_tick, params_tick] = interleaved(
                50,
                [
                    &mut || fns.0.run_systems(black_box(&fns.1)).unwrap(),
                    &mut || typed.0.run_systems(black_box(&typed.1)).unwrap(),
                    &mut || params.0.run_systems(black_box(&params.1)).unwrap(),
                ],
            );
            println!(
                "{workload} {mode}: fn pointers {:.2} µs, typed {:.2} µs ({:.3}x), typed with a \
                 query and a Local {:.2} µs ({:.3}x)",
                fn_tick / 1e3,
                typed_tick / 1e3,
                typed_tick / fn_tick,
                params_tick / 1e3,
                params_tick / fn_tick
            );
        }
    }
}
