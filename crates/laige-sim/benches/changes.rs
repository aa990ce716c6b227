//! Change detection (issue 22): a `Changed<Pos>` query over 100,000 entities of which 1%
//! changed since the reader's last run (spread and clustered), and writing every value of a
//! tracked component against an untracked one. bevy_ecs's figures for the same workloads
//! come from peer-bench's `changes` binary.
//!
//! Run with `cargo bench -p laige-sim --bench changes -- --quick`; for instruction counts,
//! `CHANGES_COUNT=write-tracked valgrind --tool=callgrind --toggle-collect='*measured*'
//! target/release/deps/changes-<hash>` (variants in `common/changes.rs`, `count`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};

#[path = "common/changes.rs"]
mod changes;

fn changed_query(c: &mut Criterion) {
    for (label, spread) in [("spread", true), ("clustered", false)] {
        let (mut world, ids, schedule) = changes::changed_world();
        let mut tick = 0;
        c.bench_function(&format!("changes/changed_1pct_{label}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    tick += 1;
                    changes::change(&mut world, &ids, tick, spread);
                    let start = Instant::now();
                    world.run_systems(black_box(&schedule)).unwrap();
                    total += start.elapsed();
                }
                let sum = world.resource::<changes::Sum>().unwrap();
                assert_eq!(sum.1, changes::CHANGED);
                total
            });
        });
    }
}

fn write_all(c: &mut Criterion) {
    for (label, tracked) in [("tracked", true), ("untracked", false)] {
        let (mut world, schedule) = changes::write_world(tracked);
        c.bench_function(&format!("changes/write_all_{label}"), |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap());
        });
    }
}

criterion_group!(benches, changed_query, write_all);

/// `CHANGES_COUNT=<variant>` runs one variant 100 times for callgrind instead (see
/// `changes::count`); otherwise the criterion benches.
fn main() {
    if let Ok(variant) = std::env::var("CHANGES_COUNT") {
        assert!(changes::count(&variant, 100), "unknown variant {variant}");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
