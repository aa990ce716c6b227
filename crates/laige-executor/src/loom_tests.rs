//! Loom models of the synchronisation core, on the code that ships (see `sync`).
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p laige-executor --release --lib loom`.
//! Each model runs the real [`Executor`] with two threads (the caller and one worker) over a
//! host whose data lives in loom cells, so loom reports any access that is not ordered by
//! the executor's happens-before edges, any lost wakeup (a deadlock), and any leak of a
//! worker past `run_track`'s return.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicU32, Ordering};

use laige_registry::SystemId;
use laige_scheduler::Schedule;

use crate::{Executor, ExecutorOptions, Mode, Plan, SharedHost};

fn id(value: u32) -> SystemId {
    SystemId::new(value).unwrap()
}

/// Three systems: 1 and 2 write their own cell, 3 reads both (so it conflicts with both).
struct Diamond {
    a: UnsafeCell<u32>,
    b: UnsafeCell<u32>,
    seen: UnsafeCell<u32>,
    runs: [AtomicU32; 3],
}

// SAFETY: the cells are only touched inside `run_system`, whose contract (the plan orders
// 3 after 1 and 2, and no system runs twice at once) is what the model checks, and by the
// test thread after `run_track` returned.
unsafe impl Sync for Diamond {}

// SAFETY: sound exactly under the plan's ordering, which is what the model verifies.
unsafe impl SharedHost<u8> for Diamond {
    unsafe fn run_system(&self, id: SystemId, _: &u8) {
        self.runs[id.index()].fetch_add(1, Ordering::Relaxed);
        match id.get() {
            // SAFETY: only system 1 writes `a`, and 3 reads it after 1 finished.
            1 => self.a.with_mut(|a| unsafe { *a += 1 }),
            // SAFETY: as for `a`.
            2 => self.b.with_mut(|b| unsafe { *b += 10 }),
            _ => {
                // SAFETY: 1 and 2 finished before 3 started.
                let sum = self.a.with(|a| unsafe { *a }) + self.b.with(|b| unsafe { *b });
                // SAFETY: only system 3 writes `seen`.
                self.seen.with_mut(|seen| unsafe { *seen = sum });
            }
        }
    }
}

fn diamond_plan() -> Plan {
    let schedule = Schedule::hand_built(3, &[id(1), id(2), id(3)]);
    Plan::build(&schedule, |a, b| b.get() == 3 && a.get() != 3)
}

fn parallel_executor() -> Executor {
    Executor::new(ExecutorOptions {
        threads: 2,
        mode: Mode::Parallel,
        time_systems: false,
    })
}

fn builder() -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder
}

/// Claim, complete and count down: 3 starts only after 1 and 2, each runs once.
#[test]
fn loom_diamond_claim_complete_countdown() {
    builder().check(|| {
        let plan = diamond_plan();
        let mut executor = parallel_executor();
        let host = Diamond {
            a: UnsafeCell::new(0),
            b: UnsafeCell::new(0),
            seen: UnsafeCell::new(0),
            runs: std::array::from_fn(|_| AtomicU32::new(0)),
        };
        executor.run_track(&plan, 0, &[0u8; 3], &host).unwrap();
        for runs in &host.runs {
            assert_eq!(runs.load(Ordering::Relaxed), 1);
        }
        // SAFETY: `run_track` returned, so no worker touches the host any more.
        assert_eq!(host.seen.with(|seen| unsafe { *seen }), 11);
    });
}

/// Two systems that may overlap, each writing its own cell.
struct Pair {
    cells: [UnsafeCell<u32>; 2],
}

// SAFETY: system `i` alone writes `cells[i]` during a track; the test thread touches them
// only after `run_track` returned.
unsafe impl Sync for Pair {}

// SAFETY: each system touches only its own cell.
unsafe impl SharedHost<u8> for Pair {
    unsafe fn run_system(&self, id: SystemId, _: &u8) {
        // SAFETY: only system `id` touches this cell, and never twice at once.
        self.cells[id.index()].with_mut(|cell| unsafe { *cell += 1 });
    }
}

/// The tick handshake: `run_track` returns only after every system ran and the worker left,
/// two ticks in a row, each on a host that dies right after its tick.
#[test]
fn loom_tick_start_finish_handshake() {
    builder().check(|| {
        let schedule = Schedule::hand_built(2, &[id(1), id(2)]);
        let plan = Plan::build(&schedule, |_, _| false);
        let mut executor = parallel_executor();
        for _ in 0..2 {
            let host = Pair {
                cells: [UnsafeCell::new(0), UnsafeCell::new(0)],
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
