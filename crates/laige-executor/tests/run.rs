//! Running plans: ordering, real concurrency, panics, modes, timing and errors.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::{
    Recorder, Run, busy, chain_registry, empty, id, millisecond, plain_registry, random_graph,
};
use laige_executor::{
    ChosenMode, EdgeReason, ExecError, Executor, ExecutorOptions, Mode, PanicMessage, Plan,
    SharedHost,
};
use laige_registry::{Conflicts, SystemId};
use laige_scheduler::{Schedule, schedule};
use rstest::rstest;

fn options(threads: usize, mode: Mode) -> ExecutorOptions {
    ExecutorOptions {
        threads,
        mode,
        time_systems: false,
    }
}

fn executor(threads: usize, mode: Mode) -> Executor {
    Executor::new(options(threads, mode))
}

/// Every system runs exactly once per tick, and every pair the plan orders (directly or by
/// reduction) runs in that order, for random DAGs and any worker count.
#[rstest]
fn random_dags_run_each_system_once_in_plan_order(
    #[values(1, 2, 4, 8)] threads: usize,
    #[values(Mode::Parallel, Mode::Auto)] mode: Mode,
) {
    let mut executor = executor(threads, mode);
    for seed in 0..40 {
        let (graph, spin) = random_graph(seed, 40);
        let schedule = schedule(&graph.registry).unwrap();
        let plan = Plan::build_from_access(&schedule, &graph.registry);
        let host = Recorder::with_spin(spin);
        let order = plan.track(0);
        for tick in 1..=5 {
            executor
                .run_track(&plan, 0, graph.registry.runs(), &host)
                .unwrap();
            for (j, &b) in order.iter().enumerate() {
                assert_eq!(host.runs(b), tick, "seed {seed}: {b} ran once per tick");
                for &a in &order[..j] {
                    if plan.edge_reason(a, b) != EdgeReason::None {
                        assert!(
                            host.end(a) < host.start(b),
                            "seed {seed}, {threads} threads: {a} must end before {b} starts"
                        );
                    }
                }
            }
        }
    }
}

/// Plain (non-atomic) data ordered only by the plan: system `k` writes `values[k]` from the
/// values of its inputs, which the plan orders before it. A missing happens-before edge is
/// a data race (which valgrind's DRD reports, see docs/api/executor.md) and a wrong value.
struct Cells {
    inputs: Vec<Vec<usize>>,
    values: Vec<std::cell::UnsafeCell<u64>>,
    tick: AtomicU32,
}

// SAFETY: system `k` writes `values[k]` alone and reads the values of its inputs, each of
// which the plan orders before it; the test thread reads them after `run_track` returned.
unsafe impl Sync for Cells {}

// SAFETY: see the `Sync` impl.
unsafe impl SharedHost<()> for Cells {
    unsafe fn run_system(&self, id: SystemId, _: &()) {
        let k = id.index();
        let tick = u64::from(self.tick.load(Ordering::Relaxed));
        let mut value = tick;
        for &input in &self.inputs[k] {
            // SAFETY: `input` finished before `k` started, and nothing writes it meanwhile.
            value = value
                .wrapping_mul(31)
                .wrapping_add(unsafe { *self.values[input].get() });
        }
        // SAFETY: only system `k` writes `values[k]`.
        unsafe { *self.values[k].get() = value };
    }
}

#[rstest]
fn plain_data_is_ordered_by_the_plan(#[values(2, 4)] threads: usize) {
    const N: usize = 30;
    let mut rng = common::SplitMix64(threads as u64);
    let inputs: Vec<Vec<usize>> = (0..N)
        .map(|k| (0..k).filter(|_| rng.chance(1, 5)).collect())
        .collect();
    let order: Vec<SystemId> = (1..=N as u32).map(id).collect();
    let schedule = Schedule::hand_built(N, &order);
    let plan = Plan::build(
        &schedule,
        &[],
        &Conflicts::from_pairs(N, |a, b| inputs[b.index()].contains(&a.index())),
    );
    let host = Cells {
        inputs: inputs.clone(),
        values: (0..N).map(|_| std::cell::UnsafeCell::new(0)).collect(),
        tick: AtomicU32::new(0),
    };
    let mut executor = executor(threads, Mode::Parallel);
    for tick in 1..=50u32 {
        host.tick.store(tick, Ordering::Relaxed);
        executor.run_track(&plan, 0, &[(); N], &host).unwrap();
        let mut expected = [0u64; N];
        for k in 0..N {
            let mut value = u64::from(tick);
            for &input in &inputs[k] {
                value = value.wrapping_mul(31).wrapping_add(expected[input]);
            }
            expected[k] = value;
        }
        for (k, (value, expected)) in host.values.iter().zip(expected).enumerate() {
            // SAFETY: `run_track` returned; no system runs.
            let value = unsafe { *value.get() };
            assert_eq!(value, expected, "tick {tick}, system {k}");
        }
    }
}

/// Two systems that can only finish together: each waits (up to 2 s) for the other to
/// start. They pass only if the executor really runs them at the same time.
struct Rendezvous {
    arrived: AtomicU32,
    met: [AtomicU32; 2],
}

// SAFETY: only atomics are touched.
unsafe impl SharedHost<()> for Rendezvous {
    unsafe fn run_system(&self, id: SystemId, _: &()) {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_secs(2);
        while self.arrived.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
            std::hint::spin_loop();
        }
        if self.arrived.load(Ordering::SeqCst) == 2 {
            self.met[id.index()].fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[rstest]
fn unordered_systems_really_run_at_the_same_time(#[values(2, 4)] threads: usize) {
    let schedule = Schedule::hand_built(2, &[id(1), id(2)]);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    let mut executor = executor(threads, Mode::Parallel);
    let host = Rendezvous {
        arrived: AtomicU32::new(0),
        met: [AtomicU32::new(0), AtomicU32::new(0)],
    };
    for tick in 1..=10 {
        host.arrived.store(0, Ordering::SeqCst);
        executor.run_track(&plan, 0, &[(), ()], &host).unwrap();
        assert_eq!(host.met[0].load(Ordering::SeqCst), tick, "tick {tick}");
        assert_eq!(host.met[1].load(Ordering::SeqCst), tick, "tick {tick}");
        // Let the worker park now and then, so waking it is tested too.
        if tick % 3 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// The caller holds system 1 and will not let go until some other thread has run a system
/// from the caller's own dealt block (the lowest positions). With a worker that finishes its
/// own block and then steals, that happens at once; without stealing, it never does.
struct StolenWhileBusy {
    caller: std::thread::ThreadId,
    /// Systems of the caller's block (ids 9..=half) that ran on another thread.
    stolen: AtomicU32,
    runs: Vec<AtomicU32>,
    half: u32,
}

// SAFETY: only atomics are touched.
unsafe impl SharedHost<()> for StolenWhileBusy {
    unsafe fn run_system(&self, id: SystemId, _: &()) {
        self.runs[id.index()].fetch_add(1, Ordering::SeqCst);
        let on_caller = std::thread::current().id() == self.caller;
        // System 1's first claim takes at most 8 ids (`MAX_CHUNK`: 1..=8 on two threads,
        // 1..=6 on four); 9..=half are left in the caller's words, so another thread can
        // only run them by stealing.
        if !on_caller && (9..=self.half).contains(&id.get()) {
            self.stolen.fetch_add(1, Ordering::SeqCst);
        }
        if id.get() == 1 {
            let deadline = Instant::now() + Duration::from_secs(5);
            while self.stolen.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
                std::thread::yield_now();
            }
        }
    }
}

#[rstest]
fn a_busy_threads_dealt_systems_are_stolen(#[values(2, 4)] threads: usize) {
    const N: u32 = 200;
    let order: Vec<SystemId> = (1..=N).map(id).collect();
    let schedule = Schedule::hand_built(N as usize, &order);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    let mut executor = executor(threads, Mode::Parallel);
    let host = StolenWhileBusy {
        caller: std::thread::current().id(),
        stolen: AtomicU32::new(0),
        runs: (0..N).map(|_| AtomicU32::new(0)).collect(),
        half: N / threads as u32,
    };
    for tick in 1..=5 {
        host.stolen.store(0, Ordering::SeqCst);
        executor
            .run_track(&plan, 0, &[(); N as usize], &host)
            .unwrap();
        assert!(
            host.stolen.load(Ordering::SeqCst) > 0,
            "tick {tick}: no other thread ran the busy caller's systems"
        );
        for (k, runs) in host.runs.iter().enumerate() {
            assert_eq!(runs.load(Ordering::SeqCst), tick, "system {}", k + 1);
        }
    }
}

#[rstest]
fn conflicting_systems_never_overlap(#[values(2, 4, 8)] threads: usize) {
    // 12 systems; a pair conflicts when their ids share a bit of 0b11 (a fixed pattern
    // with both chains and wide levels).
    let order: Vec<SystemId> = (1..=12).map(id).collect();
    let schedule = Schedule::hand_built(12, &order);
    let conflicts = |a: SystemId, b: SystemId| a.get() & b.get() & 0b11 != 0;
    let plan = Plan::build(&schedule, &[], &Conflicts::from_pairs(12, conflicts));
    let runs = [busy as Run; 12];
    let host = Recorder::with_spin(vec![3000; 12]);
    let mut executor = executor(threads, Mode::Parallel);
    let mut overlaps = 0;
    for _ in 0..300 {
        executor.run_track(&plan, 0, &runs, &host).unwrap();
        for &a in &order {
            for &b in &order {
                if a < b && host.overlapped(a, b) {
                    assert!(!conflicts(a, b), "{a} and {b} conflict but overlapped");
                    overlaps += 1;
                }
            }
        }
    }
    // Not a guarantee on a loaded machine, but 300 ticks of 4-wide levels always overlap some.
    assert!(overlaps > 0, "no two systems ever ran at the same time");
}

/// Panics on tick 3.
fn panicking(host: &Recorder, _: SystemId) {
    let tick = host.tick.load(Ordering::Relaxed);
    if tick == 3 {
        panic!("boom at tick {tick}");
    }
}

#[rstest]
fn a_panic_names_the_system_and_the_next_tick_runs_normally(
    #[values(1, 2)] threads: usize,
    #[values(Mode::Sequential, Mode::Parallel)] mode: Mode,
) {
    let runs = [panicking as Run, empty, empty];
    let schedule = Schedule::hand_built(3, &[id(1), id(2), id(3)]);
    // System 1 panics on tick 3; system 2 waits for it; system 3 is independent.
    let plan = Plan::build(
        &schedule,
        &[],
        &Conflicts::from_pairs(3, |a, b| (a.get(), b.get()) == (1, 2)),
    );
    let host = Recorder::new(3);
    let mut executor = executor(threads, mode);
    for tick in 1..=4 {
        host.tick.store(tick, Ordering::Relaxed);
        let res = executor.run_track(&plan, 0, &runs, &host);
        if tick == 3 {
            let Err(ExecError::SystemPanicked { system, message }) = res else {
                panic!("tick 3 must fail, got {res:?}");
            };
            assert_eq!(system, id(1));
            assert_eq!(message.as_str(), "boom at tick 3");
        } else {
            res.unwrap();
        }
        // The rest of the track ran, the panicking system's dependent included.
        for system in 1..=3 {
            assert_eq!(host.runs(id(system)), tick, "system {system}, tick {tick}");
        }
    }
}

fn always_panics(_: &Recorder, id: SystemId) {
    if id.get() == 7 {
        std::panic::panic_any(7u32);
    }
    panic!("system {} failed", id.get());
}

#[rstest]
fn the_first_panic_in_sequential_order_is_reported(
    #[values(1, 2, 4)] threads: usize,
    #[values(Mode::Sequential, Mode::Parallel)] mode: Mode,
) {
    let order: Vec<SystemId> = [9, 7, 3, 5].into_iter().map(id).collect();
    let schedule = Schedule::hand_built(9, &order);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    let runs = [always_panics as Run; 9];
    let host = Recorder::new(9);
    let mut executor = executor(threads, mode);
    for _ in 0..20 {
        let res = executor.run_track(&plan, 0, &runs, &host);
        let Err(ExecError::SystemPanicked { system, message }) = res else {
            panic!("must fail, got {res:?}");
        };
        assert_eq!((system, message.as_str()), (id(9), "system 9 failed"));
    }
}

#[test]
fn panic_messages_are_copied_truncated_and_text_only() {
    assert_eq!(PanicMessage::new("short").as_str(), "short");
    assert!(!PanicMessage::new("short").is_truncated());
    let long = "é".repeat(100);
    let message = PanicMessage::new(&long);
    assert!(message.is_truncated());
    assert_eq!(message.as_str(), "é".repeat(56));
    assert!(message.to_string().ends_with("..."));
    assert_eq!(PanicMessage::from_payload(&7u32).as_str(), "");
    assert_eq!(
        PanicMessage::from_payload(&String::from("owned")).as_str(),
        "owned"
    );
}

/// 100 empty systems take no time on the manual clock: auto mode keeps them on the calling
/// thread, where waking the pool cannot pay off.
#[test]
fn auto_runs_tiny_systems_sequentially() {
    let registry = plain_registry(100, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(100);
    let mut executor = host.executor(options(2, Mode::Auto));
    for _ in 0..40 {
        let report = executor
            .run_track(&plan, 0, registry.runs(), &host)
            .unwrap();
        assert_eq!(report.mode, ChosenMode::Sequential);
    }
    assert_eq!(executor.last_mode(0), Some(ChosenMode::Sequential));
}

/// Spins on the calling thread until `duration` has passed.
fn burn(duration: Duration) {
    let until = Instant::now() + duration;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// System 1 burns 5 ms; system 2 is empty.
fn long_then_empty(_: &Recorder, id: SystemId) {
    if id.get() == 1 {
        burn(Duration::from_millis(5));
    }
}

/// At most this many ticks of a nap test: on a shared machine a thread can lose its core
/// for whole ticks (then the other thread runs both systems and nobody idles), so a test
/// goes on until it saw a nap, up to this cap.
const NAP_TICKS: u32 = 100;

/// The caller is dealt the long system and the worker the empty one: the worker then has
/// nothing to do for 5 ms, naps instead of spinning, and is woken when the track ends, so
/// every tick still runs each system once and ends soon after the long system.
#[test]
fn an_idle_worker_naps_during_a_long_system() {
    let registry = plain_registry(2, long_then_empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(2);
    let mut executor = executor(2, Mode::Parallel);
    assert_eq!(executor.naps(), 0);
    for tick in 1..=NAP_TICKS {
        // How soon a tick ends after its long system is a figure for a bench; this checks
        // that napping loses no run and that a nap happens.
        executor
            .run_track(&plan, 0, registry.runs(), &host)
            .unwrap();
        assert_eq!((host.runs(id(1)), host.runs(id(2))), (tick, tick));
        if tick >= 10 && executor.naps() > 0 {
            break;
        }
    }
    assert!(executor.naps() > 0, "the idle worker never napped");
}

/// System 1 waits (up to 1 s) until system 2 has started on another thread, so the worker
/// takes system 2, which burns 5 ms; meanwhile the caller has nothing to run.
struct LongSecond {
    caller: std::thread::ThreadId,
    on_worker: AtomicU32,
}

// SAFETY: only an atomic is touched.
unsafe impl SharedHost<()> for LongSecond {
    unsafe fn run_system(&self, id: SystemId, _: &()) {
        if id.get() == 1 {
            let deadline = Instant::now() + Duration::from_secs(1);
            while self.on_worker.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
                std::thread::yield_now();
            }
            return;
        }
        if std::thread::current().id() != self.caller {
            self.on_worker.store(1, Ordering::SeqCst);
        }
        burn(Duration::from_millis(5));
    }
}

/// While a worker runs the long system, the caller idles and naps (only the caller is idle
/// then), and is woken when the track ends.
#[test]
fn an_idle_caller_naps_while_a_worker_runs_a_long_system() {
    let schedule = Schedule::hand_built(2, &[id(1), id(2)]);
    let plan = Plan::build(&schedule, &[], &Conflicts::none(schedule.system_count()));
    let mut executor = executor(2, Mode::Parallel);
    let host = LongSecond {
        caller: std::thread::current().id(),
        on_worker: AtomicU32::new(0),
    };
    let mut caller_napped = false;
    for _ in 0..NAP_TICKS {
        host.on_worker.store(0, Ordering::SeqCst);
        let before = executor.naps();
        executor.run_track(&plan, 0, &[(), ()], &host).unwrap();
        if host.on_worker.load(Ordering::SeqCst) == 1 {
            caller_napped |= executor.naps() > before;
        }
        if caller_napped {
            break;
        }
    }
    assert!(caller_napped, "the caller never napped while a worker ran");
}

/// Tracks where one thread idles beside a long system, the caller's side and the worker's,
/// run each system once per tick. No timing assertion: under valgrind (the DRD run, which
/// skips the `an_idle_*` tests) this is what takes the nap and wake-up paths.
#[test]
fn tracks_with_idle_threads_run_each_system_once() {
    let registry = plain_registry(2, long_then_empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let recorder = Recorder::new(2);
    let hand_built = Plan::build(
        &Schedule::hand_built(2, &[id(1), id(2)]),
        &[],
        &Conflicts::none(2),
    );
    let long_second = LongSecond {
        caller: std::thread::current().id(),
        on_worker: AtomicU32::new(0),
    };
    let mut executor = executor(2, Mode::Parallel);
    for tick in 1..=4u32 {
        executor
            .run_track(&plan, 0, registry.runs(), &recorder)
            .unwrap();
        assert_eq!((recorder.runs(id(1)), recorder.runs(id(2))), (tick, tick));
        long_second.on_worker.store(0, Ordering::SeqCst);
        executor
            .run_track(&hand_built, 0, &[(), ()], &long_second)
            .unwrap();
    }
}

/// Two unordered systems of 1 ms each on the manual clock: 2 ms of work, over
/// `AUTO_PARALLEL_NANOS`, so auto mode sends the track to the pool after measuring it.
#[test]
fn auto_runs_two_heavy_unordered_systems_in_parallel() {
    let registry = plain_registry(2, millisecond);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(2);
    let mut executor = host.executor(options(2, Mode::Auto));
    let modes: Vec<ChosenMode> = (0..20)
        .map(|_| {
            executor
                .run_track(&plan, 0, registry.runs(), &host)
                .unwrap()
                .mode
        })
        .collect();
    // The first run measures the work sequentially; from then on the pool runs it.
    assert_eq!(modes[0], ChosenMode::Sequential);
    assert!(
        modes[1..].iter().all(|&m| m == ChosenMode::Parallel),
        "{modes:?}"
    );
    assert_eq!(executor.last_modes()[0], Some(ChosenMode::Parallel));
}

#[test]
fn auto_runs_a_heavy_chain_sequentially() {
    let registry = chain_registry(2, millisecond);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(2);
    let mut executor = host.executor(options(2, Mode::Auto));
    for _ in 0..5 {
        let report = executor
            .run_track(&plan, 0, registry.runs(), &host)
            .unwrap();
        assert_eq!(report.mode, ChosenMode::Sequential);
    }
}

/// A chain has no parallel width: even `Mode::Parallel` keeps it on the calling thread,
/// where no worker joins, finds nothing, and makes the end of the track wait for it.
#[test]
fn a_chain_runs_on_the_caller_in_parallel_mode() {
    let registry = chain_registry(3, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    assert_eq!(plan.max_width(0), 1);
    let host = Recorder::new(3);
    let mut executor = executor(2, Mode::Parallel);
    for tick in 1..=5 {
        let report = executor
            .run_track(&plan, 0, registry.runs(), &host)
            .unwrap();
        assert_eq!(report.mode, ChosenMode::Sequential);
        assert_eq!(host.runs(id(3)), tick);
    }
}

/// 2 ms of work, far over `AUTO_PARALLEL_NANOS`, but all of it on the chain 1 → 2; the
/// empty system 3 beside it is all a second thread could take. Auto weighs the work off
/// the critical path, so the track stays on the calling thread.
#[test]
fn auto_keeps_a_track_sequential_when_only_its_critical_path_is_heavy() {
    let schedule = Schedule::hand_built(3, &[id(1), id(2), id(3)]);
    let plan = Plan::build(
        &schedule,
        &[],
        &Conflicts::from_pairs(3, |a, b| (a.get(), b.get()) == (1, 2)),
    );
    assert_eq!(plan.max_width(0), 2);
    let runs: [Run; 3] = [millisecond, millisecond, empty];
    let host = Recorder::new(3);
    let mut executor = host.executor(options(2, Mode::Auto));
    for _ in 0..40 {
        let report = executor.run_track(&plan, 0, &runs, &host).unwrap();
        assert_eq!(report.mode, ChosenMode::Sequential);
    }
}

/// Each of three systems takes exactly 1 ms on the manual clock. Sequentially each is
/// measured at exactly that; in parallel a system's window may also hold the other
/// thread's millisecond, never less than its own. The track's wall time holds all three.
#[rstest]
fn durations_are_recorded_when_timing_is_on(
    #[values(Mode::Sequential, Mode::Parallel)] mode: Mode,
) {
    const MS: u64 = 1_000_000;
    let registry = plain_registry(3, millisecond);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(3);
    let mut executor = host.executor(ExecutorOptions {
        time_systems: true,
        ..options(2, mode)
    });
    let report = executor
        .run_track(&plan, 0, registry.runs(), &host)
        .unwrap();
    for system in 1..=3 {
        let measured = executor.last_duration(id(system));
        match mode {
            Mode::Sequential => assert_eq!(measured, MS, "system {system}"),
            _ => assert!(
                (MS..=3 * MS).contains(&measured),
                "system {system}: {measured}"
            ),
        }
    }
    assert_eq!(report.wall_nanos, 3 * MS, "{report:?}");
}

/// Spans agree with durations, name a thread of the pool, and never overlap on one thread:
/// sequentially the three 1 ms systems run back to back on the calling thread.
#[rstest]
fn spans_are_recorded_when_timing_is_on(#[values(Mode::Sequential, Mode::Parallel)] mode: Mode) {
    const MS: u64 = 1_000_000;
    let registry = plain_registry(3, millisecond);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(3);
    let mut executor = host.executor(ExecutorOptions {
        time_systems: true,
        ..options(2, mode)
    });
    executor
        .run_track(&plan, 0, registry.runs(), &host)
        .unwrap();
    let spans: Vec<_> = (1..=3).map(|s| executor.last_span(id(s))).collect();
    for (s, span) in (1..=3).zip(&spans) {
        assert_eq!(
            span.end - span.start,
            executor.last_duration(id(s)),
            "{span:?}"
        );
        assert!(span.thread < 2, "{span:?}");
    }
    if mode == Mode::Sequential {
        let starts: Vec<u64> = spans.iter().map(|it| it.start).collect();
        assert_eq!(starts, [0, MS, 2 * MS]);
        assert!(
            spans
                .iter()
                .all(|it| it.thread == 0 && it.end - it.start == MS)
        );
    }
    for a in &spans {
        for b in &spans {
            let overlap = a.start < b.end && b.start < a.end;
            assert!(a == b || a.thread != b.thread || !overlap, "{a:?} {b:?}");
        }
    }
}

#[rstest]
fn untimed_runs_read_no_clock(#[values(Mode::Sequential, Mode::Parallel)] mode: Mode) {
    let registry = plain_registry(3, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(3);
    let mut executor = executor(2, mode);
    let report = executor
        .run_track(&plan, 0, registry.runs(), &host)
        .unwrap();
    assert_eq!((report.wall_nanos, report.systems), (0, 3));
    assert_eq!(executor.last_duration(id(1)), 0);
    assert_eq!(executor.last_span(id(1)), Default::default());
}

#[test]
fn bad_arguments_run_nothing() {
    let registry = plain_registry(3, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let host = Recorder::new(3);
    let mut executor = executor(2, Mode::Parallel);
    assert_eq!(
        executor.run_track(&plan, 1, registry.runs(), &host),
        Err(ExecError::TrackOutOfRange {
            track: 1,
            tracks: 1
        })
    );
    assert_eq!(
        executor.run_track(&plan, 0, &registry.runs()[..2], &host),
        Err(ExecError::RunsTooShort {
            needed: 3,
            given: 2
        })
    );
    assert_eq!(host.counter.load(Ordering::Relaxed), 0);
}

#[test]
fn thread_counts_resolve_and_one_thread_is_sequential() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(executor(0, Mode::Auto).threads(), cores);
    let mut one = executor(1, Mode::Parallel);
    assert_eq!(one.threads(), 1);
    let registry = plain_registry(4, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let report = one
        .run_track(&plan, 0, registry.runs(), &Recorder::new(4))
        .unwrap();
    assert_eq!(report.mode, ChosenMode::Sequential);
}

#[test]
fn executors_and_plans_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Executor>();
    send_sync::<Plan>();
    send_sync::<ExecError>();
}

#[test]
fn a_single_system_runs_on_the_calling_thread() {
    let registry = plain_registry(1, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let mut executor = executor(2, Mode::Parallel);
    let report = executor
        .run_track(&plan, 0, registry.runs(), &Recorder::new(1))
        .unwrap();
    assert_eq!((report.mode, report.systems), (ChosenMode::Sequential, 1));
}

#[test]
fn empty_tracks_run_nothing() {
    let registry = plain_registry(0, empty);
    let plan = Plan::build_from_access(&schedule(&registry).unwrap(), &registry);
    let mut executor = executor(2, Mode::Parallel);
    let report = executor
        .run_track(&plan, 0, registry.runs(), &Recorder::new(0))
        .unwrap();
    assert_eq!(report.systems, 0);
}

#[test]
fn one_executor_runs_several_plans_and_shuts_down_cleanly() {
    let wide = plain_registry(30, busy);
    let chain = chain_registry(30, busy);
    let plans = [
        Plan::build_from_access(&schedule(&wide).unwrap(), &wide),
        Plan::build_from_access(&schedule(&chain).unwrap(), &chain),
    ];
    let host = Recorder::with_spin(vec![100; 30]);
    for threads in [2, 3, 8] {
        let mut executor = executor(threads, Mode::Parallel);
        for tick in 0..100 {
            let runs = if tick % 2 == 0 {
                wide.runs()
            } else {
                chain.runs()
            };
            executor
                .run_track(&plans[tick % 2], 0, runs, &host)
                .unwrap();
        }
    }
    // Starting and dropping pools back to back, some with parked workers, never hangs.
    for i in 0..50 {
        let mut executor = executor(2 + i % 3, Mode::Parallel);
        if i % 2 == 0 {
            executor
                .run_track(&plans[0], 0, wide.runs(), &host)
                .unwrap();
        }
        if i % 10 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert_eq!(host.runs(id(1)), 3 * 100 + 25);
}
