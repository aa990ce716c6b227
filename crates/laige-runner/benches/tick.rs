//! W2 `empty-100` and W3 `chain-100` on the sequential runner, against a plain
//! `Vec<Box<dyn FnMut()>>` loop measured in the same run.
//!
//! Run with `cargo bench -p laige-runner --bench tick`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_registry::{Registry, SystemDef, SystemId};
use laige_runner::{Runner, RunnerOptions};
use laige_scheduler::Schedule;

type Run = fn(&mut u64);
fn empty(_: &mut u64) {}

fn names() -> Vec<&'static str> {
    (0..100)
        .map(|i| &*Box::leak(format!("s{i}").into_boxed_str()))
        .collect()
}

fn registry(chain: bool) -> (Registry<Run>, Schedule) {
    let names = names();
    let mut registry = Registry::new();
    for i in 0..100 {
        let deps = if chain && i > 0 { names[i - 1] } else { "" };
        let def = SystemDef::new(names[i], empty as Run)
            .budget_ms(1.0)
            .depends_on(deps);
        registry.register(def).unwrap();
    }
    let schedule = laige_scheduler::schedule(&registry).unwrap();
    (registry, schedule)
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("tick");
    for (label, chain) in [("w2-empty-100", false), ("w3-chain-100", true)] {
        let (registry, schedule) = registry(chain);
        for timing in [false, true] {
            let mut runner = Runner::with_options(RunnerOptions { timing });
            let mut state = 0u64;
            let name = format!("{label}/sequential{}", if timing { "+timing" } else { "" });
            group.bench_function(name, |b| {
                b.iter(|| {
                    // No `black_box` per call: the run pointers come from the registry, so
                    // every call stays an indirect call, as in the boxed-closure loop below.
                    let mut host = |_: SystemId, run: &Run| run(&mut state);
                    runner
                        .run(black_box(&schedule), &registry, &mut host)
                        .unwrap();
                })
            });
        }
    }
    let mut boxed: Vec<Box<dyn FnMut()>> = (0..100)
        .map(|_| Box::new(|| {}) as Box<dyn FnMut()>)
        .collect();
    group.bench_function("baseline-vec-box-dyn-fnmut-100", |b| {
        b.iter(|| {
            for f in black_box(&mut boxed).iter_mut() {
                f();
            }
        })
    });
    group.finish();
}

criterion_group!(tick_benches, benches);
criterion_main!(tick_benches);
