//! Loom models of the synchronisation core, on the code that ships (see `sync`).
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p laige-executor --release --lib loom`.
//! Each model runs the real [`Executor`] with two threads (the caller and one worker) over a
//! host whose data lives in loom cells, so loom reports any access that is not ordered by
//! the executor's happens-before edges, any lost wakeup (the rendezvous never ends), and any
//! use of the job by a worker after `run_track` returned.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicU32, Ordering};

use laige_registry::{Conflicts, SystemId};
use laige_scheduler::Schedule;

use crate::{Executor, ExecutorOptions, Mode, Plan, SharedHost};

fn id(value: u32) -> SystemId {
    SystemId::new(value).unwrap()
}

fn parallel_executor() -> Executor {
    Executor::new(ExecutorOptions {
        threads: 2,
        mode: Mode::Parallel,
        time_systems: false,
    })
}

/// Checks `model` under every interleaving with at most `LOOM_MAX_PREEMPTIONS` (default 3)
/// preemptions, and prints how many executions that took.
fn check(name: &str, model: impl Fn() + Sync + Send + 'static) {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let executions = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&executions);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = builder.preemption_bound.or(Some(3));
    builder.max_branches = 20_000;
    let model = std::sync::Arc::new(model);
    builder.check(move || {
        counter.fetch_add(1, Relaxed);
        // The model's main thread runs on a 32 KiB coroutine stack, too small for a plan
        // build or a panic report; the calling thread of the executor gets a large one.
        let model = std::sync::Arc::clone(&model);
        loom::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || model())
            .unwrap()
            .join()
            .unwrap();
    });
    println!("loom {name}: {} executions", executions.load(Relaxed));
}

/// A diamond: 1 writes `a`; 2 and 3 read it and write `b` and `c`; 4 reads `b` and `c`.
/// Finishing 1 makes two systems ready at once, so one is kept and one is published.
struct Diamond {
    a: UnsafeCell<u32>,
    b: UnsafeCell<u32>,
    c: UnsafeCell<u32>,
    seen: UnsafeCell<u32>,
    runs: [AtomicU32; 4],
}

// SAFETY: the cells are only touched inside `run_system`, whose contract (the plan's edges,
// and no system twice at once) is what the model checks, and by the test thread after
// `run_track` returned.
unsafe impl Sync for Diamond {}

// SAFETY: sound exactly under the plan's ordering, which is what the model verifies.
unsafe impl SharedHost<u8> for Diamond {
    unsafe fn run_system(&self, id: SystemId, _: &u8) {
        self.runs[id.index()].fetch_add(1, Ordering::Relaxed);
        // Every cell has one writer, and the plan orders each of its readers after it.
        match id.get() {
            // SAFETY: see above.
            1 => self.a.with_mut(|a| unsafe { *a = 1 }),
            2 => {
                // SAFETY: see above.
                let a = self.a.with(|a| unsafe { *a });
                // SAFETY: see above.
                self.b.with_mut(|b| unsafe { *b = a + 10 });
            }
            3 => {
                // SAFETY: see above.
                let a = self.a.with(|a| unsafe { *a });
                // SAFETY: see above.
                self.c.with_mut(|c| unsafe { *c = a + 100 });
            }
            _ => {
                // SAFETY: see above.
                let sum = self.b.with(|b| unsafe { *b }) + self.c.with(|c| unsafe { *c });
                // SAFETY: see above.
                self.seen.with_mut(|seen| unsafe { *seen = sum });
            }
        }
    }
}

/// Claim, complete and count down: every system runs once, each after its predecessors.
#[test]
fn loom_diamond_claim_complete_countdown() {
    check("diamond", || {
        let schedule = Schedule::hand_built(4, &[id(1), id(2), id(3), id(4)]);
        // Conflicts: 1-2 and 1-3 on `a`, 2-4 on `b`, 3-4 on `c`; 2 and 3 only read `a`.
        let plan = Plan::build(
            &schedule,
            &[],
            &Conflicts::from_pairs(4, |a, b| {
                matches!((a.get(), b.get()), (1, 2 | 3) | (2 | 3, 4))
            }),
        );
        let mut executor = parallel_executor();
        let host = Diamond {
            a: UnsafeCell::new(0),
            b: UnsafeCell::new(0),
            c: UnsafeCell::new(0),
            seen: UnsafeCell::new(0),
            runs: std::array::from_fn(|_| AtomicU32::new(0)),
        };
        executor.run_track(&plan, 0, &[0u8; 4], &host).unwrap();
        for runs in &host.runs {
            assert_eq!(runs.load(Ordering::Relaxed), 1);
        }
        // SAFETY: `run_track` returned, so no worker touches the host any more.
        assert_eq!(host.seen.with(|seen| unsafe { *seen }), 112);
    });
}

/// Two systems that must overlap: each writes its own cell, then waits until the other
/// has started. Only a worker that wakes up for the track lets them both finish.
struct Pair {
    cells: [UnsafeCell<u32>; 2],
    started: AtomicU32,
}

// SAFETY: system `i` alone writes `cells[i]` during a track; the test thread touches them
// only after `run_track` returned.
unsafe impl Sync for Pair {}

// SAFETY: each system touches only its own cell.
unsafe impl SharedHost<u8> for Pair {
    unsafe fn run_system(&self, id: SystemId, _: &u8) {
        // SAFETY: only system `id` touches this cell, and never twice at once.
        self.cells[id.index()].with_mut(|cell| unsafe { *cell += 1 });
        self.started.fetch_add(1, Ordering::Relaxed);
        while self.started.load(Ordering::Relaxed) < 2 {
            loom::thread::yield_now();
        }
    }
}

/// The tick handshake, two ticks in a row, each on a host that dies right after its tick:
/// the worker wakes for each track (a lost wakeup would never end the rendezvous), and
/// `run_track` returns only after every system ran and the worker left.
#[test]
fn loom_tick_start_finish_handshake() {
    check("handshake", || {
        let schedule = Schedule::hand_built(2, &[id(1), id(2)]);
        let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
        let mut executor = parallel_executor();
        for _ in 0..2 {
            let host = Pair {
                cells: [UnsafeCell::new(0), UnsafeCell::new(0)],
                started: AtomicU32::new(0),
            };
            executor.run_track(&plan, 0, &[0u8; 2], &host).unwrap();
            for cell in &host.cells {
                // SAFETY: `run_track` returned; an unsynchronised worker access would be a
                // race loom reports here.
                cell.with_mut(|cell| unsafe { assert_eq!(*cell, 1) });
            }
        }
    });
}

/// A shared loop (`crate::batch`) of two batches, each writing its own cell: the owner and a
/// helper that tries to join twice. Loom checks that the owner reads both cells only after
/// the batch that wrote it (its wait for `active == 0` synchronises with the helper's
/// leave), that no helper touches the job after `Batches::run` returned, and that the next
/// loop's reset cannot race a helper of the last one.
#[test]
fn loom_shared_loop_hands_batches_to_a_helper() {
    check("shared loop", || {
        let batches = loom::sync::Arc::new(crate::batch::Batches::new());
        let helper = {
            let batches = loom::sync::Arc::clone(&batches);
            loom::thread::spawn(move || {
                for _ in 0..2 {
                    batches.help();
                    loom::thread::yield_now();
                }
            })
        };
        for round in 1..=2u32 {
            let cells = Cells([UnsafeCell::new(0u32), UnsafeCell::new(0u32)]);
            let write = |batch: u32| {
                let cell = cells.get(batch as usize);
                // SAFETY: each batch is claimed by one thread and writes its own cell.
                cell.with_mut(|it| unsafe { *it = round + batch });
            };
            let job = crate::batch::loom_job(2, &write);
            // SAFETY: `write` touches only its batch's cell, so batches may overlap.
            unsafe { batches.run(&job, || {}) };
            for batch in 0..2usize {
                let cell = cells.get(batch);
                // SAFETY: every batch finished before `run` returned.
                let value = cell.with(|it| unsafe { *it });
                assert_eq!(value, round + batch as u32);
            }
        }
        helper.join().unwrap();
    });
}

/// Two cells that the shared loop's batches write, one each.
struct Cells([UnsafeCell<u32>; 2]);

// SAFETY: each batch writes only its own cell, and loom checks every access's ordering.
unsafe impl Sync for Cells {}

impl Cells {
    /// A method, so a closure captures the `Sync` wrapper, not the cells.
    fn get(&self, batch: usize) -> &UnsafeCell<u32> {
        &self.0[batch]
    }
}
