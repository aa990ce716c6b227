//! Zero allocation per tick, counted on every thread of the process.
//!
//! Counted with `laige_testkit::allocations_all_threads`, which covers the workers; so this
//! binary runs without the test harness (no other test, and no harness thread, allocates
//! while it counts).

use std::sync::atomic::{AtomicU64, Ordering};

use laige_executor::{ChosenMode, Executor, ExecutorOptions, Mode, Plan, SharedHost};
use laige_registry::{Conflicts, SystemId};
use laige_scheduler::Schedule;

#[global_allocator]
static GLOBAL: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

/// Counts runs and burns a little time, so both threads get work.
struct Host {
    runs: [AtomicU64; 10],
    /// Runs on a thread other than `main`, so the count covers workers that did work.
    on_workers: AtomicU64,
}

thread_local! {
    static MAIN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

// SAFETY: only atomics are touched.
unsafe impl SharedHost<u32> for Host {
    unsafe fn run_system(&self, id: SystemId, spin: &u32) {
        let mut x = 0u32;
        for i in 0..*spin {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        self.runs[id.index()].fetch_add(1, Ordering::Relaxed);
        if !MAIN.with(std::cell::Cell::get) {
            self.on_workers.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn id(value: u32) -> SystemId {
    SystemId::new(value).unwrap()
}

/// Runs `ticks` ticks and returns how many allocations all threads made meanwhile.
fn count(executor: &mut Executor, plan: &Plan, runs: &[u32], host: &Host, ticks: u32) -> u64 {
    let before = laige_testkit::allocations_all_threads();
    for _ in 0..ticks {
        let report = executor.run_track(plan, 0, runs, host).unwrap();
        assert!(report.mode == ChosenMode::Parallel || executor.options().mode != Mode::Parallel);
    }
    laige_testkit::allocations_all_threads() - before
}

/// System 1 spins for 2 ms, system 2 is empty: whichever thread is left idle naps.
struct Napper;

// SAFETY: nothing is touched.
unsafe impl SharedHost<()> for Napper {
    unsafe fn run_system(&self, id: SystemId, _: &()) {
        if id.get() == 1 {
            let until = std::time::Instant::now() + std::time::Duration::from_millis(2);
            while std::time::Instant::now() < until {
                std::hint::spin_loop();
            }
        }
    }
}

/// Naps and their wake-ups (`park_timeout`, `unpark`, the caller's handle in each job)
/// allocate nothing either. Ticks until a nap was taken (a thread may lose its core for
/// whole ticks on a shared machine), up to 500.
fn naps_allocate_nothing() {
    let plan = Plan::build(
        &Schedule::hand_built(2, &[id(1), id(2)]),
        &[],
        &Conflicts::none(2),
    );
    let mut executor = Executor::new(ExecutorOptions {
        threads: 2,
        mode: Mode::Parallel,
        time_systems: false,
    });
    let before = laige_testkit::allocations_all_threads();
    let mut ticks = 0;
    while executor.naps() == 0 && ticks < 500 {
        executor.run_track(&plan, 0, &[(), ()], &Napper).unwrap();
        ticks += 1;
    }
    let allocs = laige_testkit::allocations_all_threads() - before;
    let naps = executor.naps();
    println!("executor-zeroalloc naps={naps} ticks={ticks} allocs={allocs}");
    assert!(naps > 0, "no thread napped in {ticks} ticks");
    assert_eq!(allocs, 0, "a tick with naps allocated");
}

fn main() {
    MAIN.with(|it| it.set(true));
    // A 10-system DAG with fan-out and fan-in: 1 → {2, 3, 4}; {2, 3} → 5; 4 → 6;
    // {5, 6} → 7; 8, 9 and 10 are free.
    let order: Vec<SystemId> = (1..=10).map(id).collect();
    let schedule = Schedule::hand_built(10, &order);
    let edges = [
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 5),
        (3, 5),
        (4, 6),
        (5, 7),
        (6, 7),
    ];
    let plan = Plan::build(
        &schedule,
        &[],
        &Conflicts::from_pairs(10, |a, b| edges.contains(&(a.get(), b.get()))),
    );
    let runs = [200u32; 10];
    let host = Host {
        runs: std::array::from_fn(|_| AtomicU64::new(0)),
        on_workers: AtomicU64::new(0),
    };
    for (mode, time_systems) in [
        (Mode::Parallel, false),
        (Mode::Parallel, true),
        (Mode::Auto, true),
        (Mode::Sequential, true),
    ] {
        let mut executor = Executor::new(ExecutorOptions {
            threads: 2,
            mode,
            time_systems,
        });
        // Warm up: first-use thread-locals, the clock's calibration.
        count(&mut executor, &plan, &runs, &host, 20);
        let runs_before = host.runs[0].load(Ordering::Relaxed);
        let before = host.on_workers.load(Ordering::Relaxed);
        let mut ticks = 100u32;
        let mut allocs = count(&mut executor, &plan, &runs, &host, 100);
        // On a loaded machine the worker may not get a core for a while: go on (still
        // counting) until it has run something, so the count covers a worker that worked.
        while mode == Mode::Parallel
            && host.on_workers.load(Ordering::Relaxed) == before
            && ticks < 10_000
        {
            allocs += count(&mut executor, &plan, &runs, &host, 100);
            ticks += 100;
        }
        let worker_runs = host.on_workers.load(Ordering::Relaxed) - before;
        // And once more after the worker had time to park: waking it allocates nothing.
        std::thread::sleep(std::time::Duration::from_millis(5));
        allocs += count(&mut executor, &plan, &runs, &host, 1);
        println!(
            "executor-zeroalloc ticks={ticks} threads=2 mode={mode:?} time_systems={time_systems} \
             allocs={allocs} worker_runs={worker_runs}"
        );
        assert_eq!(allocs, 0, "{mode:?}: a tick allocated");
        if mode == Mode::Parallel {
            assert!(worker_runs > 0, "the worker never ran a system");
        }
        // Every system ran once per tick.
        let ran = host.runs[0].load(Ordering::Relaxed) - runs_before;
        assert_eq!(ran, u64::from(ticks) + 1);
        assert!(
            host.runs
                .iter()
                .all(|it| it.load(Ordering::Relaxed) == host.runs[0].load(Ordering::Relaxed))
        );
    }
    naps_allocate_nothing();
}
