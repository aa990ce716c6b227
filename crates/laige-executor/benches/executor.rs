//! Executor benches: W2 `empty-100` and W3 `chain-100` per mode against a plain
//! `Vec<Box<dyn FnMut()>>` loop, a `heavy_compute`-style pair of ~1 ms systems, and the
//! cost of handing a track to a spinning or a parked worker (the auto threshold's basis).
//!
//! Run with `cargo bench -p laige-executor --bench executor`.

use std::cell::UnsafeCell;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use laige_executor::{Executor, ExecutorOptions, Mode, Plan, SharedHost};
use laige_registry::{Conflicts, Registry, SystemDef, SystemId};
use laige_scheduler::{Schedule, schedule};

type Run = fn();
fn empty() {}

/// Runs each system's function; holds no data.
struct Calls;

// SAFETY: systems touch nothing.
unsafe impl SharedHost<Run> for Calls {
    unsafe fn run_system(&self, _: SystemId, run: &Run) {
        run()
    }
}

fn registry(chain: bool) -> Registry<Run> {
    let names: Vec<&'static str> = (0..100)
        .map(|i| &*Box::leak(format!("s{i}").into_boxed_str()))
        .collect();
    let mut registry = Registry::new();
    for i in 0..100 {
        let deps = if chain && i > 0 { names[i - 1] } else { "" };
        let def = SystemDef::new(names[i], empty as Run)
            .budget_ms(1.0)
            .depends_on(deps);
        registry.register(def).unwrap();
    }
    registry
}

fn executor(mode: Mode) -> Executor {
    Executor::new(ExecutorOptions {
        threads: 2,
        mode,
        time_systems: false,
    })
}

fn ticks(c: &mut Criterion) {
    let mut group = c.benchmark_group("tick");
    for (label, chain) in [("w2-empty-100", false), ("w3-chain-100", true)] {
        let registry = registry(chain);
        let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
        for (name, mode) in [
            ("sequential", Mode::Sequential),
            ("parallel-2", Mode::Parallel),
            ("auto-2", Mode::Auto),
        ] {
            let mut executor = executor(mode);
            group.bench_function(format!("{label}/{name}"), |b| {
                b.iter(|| {
                    executor
                        .run_track(black_box(&plan), 0, registry.runs(), &Calls)
                        .unwrap()
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

/// A column of 4x4 matrices per system; the two systems touch disjoint columns.
struct Heavy {
    columns: [UnsafeCell<Vec<[f32; 16]>>; 2],
}

// SAFETY: system `i` alone touches `columns[i - 1]`, and the executor never runs one
// system twice at once.
unsafe impl Sync for Heavy {}

/// Entities per system: about 1 ms of inversions on the development machine.
const ENTITIES: usize = 256;
/// Inversions per entity per run, as in ecs_bench_suite's heavy_compute.
const INVERSIONS: usize = 100;

// SAFETY: each system touches only its own column (see the `Sync` impl).
unsafe impl SharedHost<usize> for Heavy {
    unsafe fn run_system(&self, _: SystemId, column: &usize) {
        // SAFETY: only this system touches this column while it runs.
        let column = unsafe { &mut *self.columns[*column].get() };
        for matrix in column.iter_mut() {
            for _ in 0..INVERSIONS {
                *matrix = black_box(invert(matrix));
            }
        }
    }
}

/// The inverse of a 4x4 matrix (column-major) by cofactors; the identity when singular.
fn invert(m: &[f32; 16]) -> [f32; 16] {
    let [
        a00,
        a01,
        a02,
        a03,
        a10,
        a11,
        a12,
        a13,
        a20,
        a21,
        a22,
        a23,
        a30,
        a31,
        a32,
        a33,
    ] = *m;
    let b00 = a00 * a11 - a01 * a10;
    let b01 = a00 * a12 - a02 * a10;
    let b02 = a00 * a13 - a03 * a10;
    let b03 = a01 * a12 - a02 * a11;
    let b04 = a01 * a13 - a03 * a11;
    let b05 = a02 * a13 - a03 * a12;
    let b06 = a20 * a31 - a21 * a30;
    let b07 = a20 * a32 - a22 * a30;
    let b08 = a20 * a33 - a23 * a30;
    let b09 = a21 * a32 - a22 * a31;
    let b10 = a21 * a33 - a23 * a31;
    let b11 = a22 * a33 - a23 * a32;
    let det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
    if det == 0.0 {
        return IDENTITY;
    }
    let inv = 1.0 / det;
    [
        (a11 * b11 - a12 * b10 + a13 * b09) * inv,
        (a02 * b10 - a01 * b11 - a03 * b09) * inv,
        (a31 * b05 - a32 * b04 + a33 * b03) * inv,
        (a22 * b04 - a21 * b05 - a23 * b03) * inv,
        (a12 * b08 - a10 * b11 - a13 * b07) * inv,
        (a00 * b11 - a02 * b08 + a03 * b07) * inv,
        (a32 * b02 - a30 * b05 - a33 * b01) * inv,
        (a20 * b05 - a22 * b02 + a23 * b01) * inv,
        (a10 * b10 - a11 * b08 + a13 * b06) * inv,
        (a01 * b08 - a00 * b10 - a03 * b06) * inv,
        (a30 * b04 - a31 * b02 + a33 * b00) * inv,
        (a21 * b02 - a20 * b04 - a23 * b00) * inv,
        (a11 * b07 - a10 * b09 - a12 * b06) * inv,
        (a00 * b09 - a01 * b07 + a02 * b06) * inv,
        (a31 * b01 - a30 * b03 - a32 * b00) * inv,
        (a20 * b03 - a21 * b01 + a22 * b00) * inv,
    ]
}

const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// A rotation about z by `angle`, column-major.
fn rotation(angle: f32) -> [f32; 16] {
    let (s, c) = angle.sin_cos();
    let mut m = IDENTITY;
    m[0] = c;
    m[1] = s;
    m[4] = -s;
    m[5] = c;
    m
}

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    let schedule = Schedule::hand_built(2, &[SystemId::new(1).unwrap(), SystemId::new(2).unwrap()]);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    let host = Heavy {
        columns: std::array::from_fn(|k| {
            UnsafeCell::new(
                (0..ENTITIES)
                    .map(|i| rotation((i + k) as f32 * 0.01))
                    .collect(),
            )
        }),
    };
    for (name, mode) in [
        ("sequential", Mode::Sequential),
        ("parallel-2", Mode::Parallel),
        ("auto-2", Mode::Auto),
    ] {
        let mut executor = executor(mode);
        group.bench_function(name, |b| {
            b.iter(|| executor.run_track(&plan, 0, &[0, 1], &host).unwrap())
        });
    }
    group.finish();
}

/// Two systems that each wait for the other to start: a tick ends only once the worker
/// has joined, so its time is the cost of handing work to the worker.
struct Rendezvous {
    arrived: AtomicU64,
}

// SAFETY: only an atomic is touched.
unsafe impl SharedHost<()> for Rendezvous {
    unsafe fn run_system(&self, _: SystemId, _: &()) {
        // Arrivals come in pairs, one pair per tick: wait for this one's partner.
        let n = self.arrived.fetch_add(1, Ordering::SeqCst) + 1;
        let pair = n.next_multiple_of(2);
        while self.arrived.load(Ordering::SeqCst) < pair {
            std::hint::spin_loop();
        }
    }
}

/// What handing a track to the worker costs when it is still spinning (back-to-back
/// ticks) and when it has parked (ticks 300 µs apart, past its spin budget).
fn handoff(c: &mut Criterion) {
    let mut group = c.benchmark_group("handoff");
    let schedule = Schedule::hand_built(2, &[SystemId::new(1).unwrap(), SystemId::new(2).unwrap()]);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    let runs = [(); 2];
    let host = Rendezvous {
        arrived: AtomicU64::new(0),
    };
    let mut executor = executor(Mode::Parallel);
    group.bench_function("spinning-worker", |b| {
        b.iter(|| executor.run_track(&plan, 0, &runs, &host).unwrap())
    });
    group.bench_function("parked-worker", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                std::thread::sleep(Duration::from_micros(300));
                let start = Instant::now();
                executor.run_track(&plan, 0, &runs, &host).unwrap();
                total += start.elapsed();
            }
            total
        })
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
}

criterion_group! {
    name = executor_benches;
    config = config();
    targets = ticks, heavy_compute, handoff
}
criterion_main!(executor_benches);
