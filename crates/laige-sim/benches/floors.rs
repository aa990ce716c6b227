//! The interleaved floor probe: W1 `schedule` and `frag_iter` against their plain-`Vec`
//! floors, timed in alternating batches so that both sides see the same host phases.
//! Criterion times each bench in its own window, and on a shared host the slow phases last
//! seconds (docs/benchmarks.md), which moves a ratio of two criterion medians by 20% or more.
//!
//! Run with `cargo bench -p laige-sim --bench floors`; it prints medians and ratios.

use std::hint::black_box;
use std::time::Instant;

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

fn main() {
    let (mut world, schedule) = w1_world();
    check_w1(&mut world, &schedule);
    let mut tables = w1_plain_tables();
    let [ticks, plain] = interleaved(
        50,
        [
            &mut || world.run_systems(black_box(&schedule)).unwrap(),
            &mut || w1_plain_tick(&mut tables),
        ],
    );
    println!(
        "W1 schedule: run_systems (sequential) {:.2} µs, plain Vecs {:.2} µs: {:.2}x",
        ticks / 1e3,
        plain / 1e3,
        ticks / plain
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
}
