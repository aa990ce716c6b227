//! Shared loops inside a system (`run_batches`, what `par_each` runs on): every batch runs
//! once, helpers really take part, and a panic is the lowest batch's for any thread count.

mod common;

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use common::{Recorder, Run, plain_registry};
use laige_executor::{ExecError, Executor, ExecutorOptions, Mode, Plan, run_batches};
use laige_registry::SystemId;
use laige_scheduler::schedule;
use rstest::rstest;

const BATCHES: usize = 200;

/// Per batch, how often it ran and which thread ran it.
static RUNS: [AtomicU32; BATCHES] = [const { AtomicU32::new(0) }; BATCHES];
static THREADS: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
static SERIAL: Mutex<()> = Mutex::new(());

fn looping(_: &Recorder, _: SystemId) {
    run_batches(BATCHES as u32, |batch| {
        // Long enough that a helper gets to join before the owner runs out of batches.
        let mut x = 0u64;
        for i in 0..20_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        RUNS[batch as usize].fetch_add(1, Ordering::Relaxed);
        let name = std::thread::current().name().unwrap_or("caller").to_owned();
        THREADS.lock().unwrap().insert(name);
    });
}

fn panicking(_: &Recorder, _: SystemId) {
    run_batches(64, |batch| {
        if batch == 41 || batch == 17 || batch == 60 {
            panic!("batch {batch} failed");
        }
    });
}

fn run_one_system(threads: usize, mode: Mode, run: Run) -> Result<(), ExecError> {
    let registry = plain_registry(1, run);
    let schedule = schedule(&registry).unwrap();
    let plan = Plan::build_from_access(&schedule, &registry);
    let mut executor = Executor::new(ExecutorOptions {
        threads,
        mode,
        time_systems: false,
    });
    let host = Recorder::new(1);
    executor
        .run_track(&plan, 0, registry.runs(), &host)
        .map(|_| ())
}

#[rstest]
fn every_batch_runs_once_and_idle_workers_help(
    #[values(1, 2, 4, 8)] threads: usize,
    #[values(Mode::Sequential, Mode::Parallel)] mode: Mode,
) {
    let _serial = SERIAL.lock().unwrap_or_else(|it| it.into_inner());
    for run in &RUNS {
        run.store(0, Ordering::Relaxed);
    }
    THREADS.lock().unwrap().clear();
    // A one-system track runs on the calling thread in every mode; the workers wait between
    // tracks, and that is where they help.
    let mut helped = false;
    for _ in 0..20 {
        run_one_system(threads, mode, looping).unwrap();
        helped |= THREADS.lock().unwrap().len() > 1;
        if threads == 1 || helped {
            break;
        }
    }
    let expected = RUNS[0].load(Ordering::Relaxed);
    assert!(expected >= 1);
    for (batch, run) in RUNS.iter().enumerate() {
        assert_eq!(
            run.load(Ordering::Relaxed),
            expected,
            "batch {batch} ran once per loop"
        );
    }
    if threads == 1 {
        assert_eq!(
            THREADS.lock().unwrap().len(),
            1,
            "one thread runs everything"
        );
    } else {
        assert!(
            helped,
            "{threads} threads: no worker ever helped in 20 loops"
        );
    }
}

#[rstest]
fn the_lowest_panicking_batch_is_reported(#[values(1, 2, 4, 8)] threads: usize) {
    let err = run_one_system(threads, Mode::Parallel, panicking).unwrap_err();
    match err {
        ExecError::SystemPanicked { message, .. } => {
            assert_eq!(message.as_str(), "batch 17 failed");
        }
        other => panic!("expected a panic, got {other}"),
    }
}

#[test]
fn without_a_pool_batches_run_in_order_on_this_thread() {
    let order = Mutex::new(Vec::new());
    let caller = std::thread::current().id();
    run_batches(50, |batch| {
        assert_eq!(std::thread::current().id(), caller);
        order.lock().unwrap().push(batch);
    });
    assert_eq!(*order.lock().unwrap(), (0..50).collect::<Vec<u32>>());
}
