//! The executor: modes, the auto policy, and the typed face of the pool.

use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_diag::{ClockSpan, TickClock};
use laige_registry::SystemId;
use laige_scheduler::MAX_TRACKS;

use crate::error::drop_payload;
use crate::error::{ExecError, PanicMessage};
use crate::host::SharedHost;
use crate::order::PickOrder;
use crate::plan::Plan;
use crate::pool::Pool;
use crate::shared::Job;
use crate::sync::Liveness;

/// Auto mode runs a track in parallel once its measured work *off the critical path* (the
/// systems' summed durations minus the longest chain of them through the plan) reaches this
/// many nanoseconds: only that work can run beside the chain that bounds the track.
///
/// On two threads, parallel pays off when the work a second thread can take exceeds the cost
/// of handing it over. On the 2-core development machine (docs/decisions/0003-executor.md) a hand-off
/// to a spinning worker costs about 1.2 µs and to a parked one about 24 µs (futex wake and
/// reschedule); the first track of a frame usually finds the workers parked, so the line
/// sits at twice the parked figure.
pub const AUTO_PARALLEL_NANOS: u64 = 50_000;

/// Auto mode goes back to sequential once a parallel track's measured work off the critical
/// path falls below this; the gap to [`AUTO_PARALLEL_NANOS`] keeps a track near the line from flapping.
pub const AUTO_SEQUENTIAL_NANOS: u64 = 35_000;

/// Auto mode measures a track's work on its first run and then every this many runs.
pub const AUTO_SAMPLE_EVERY: u32 = 16;

/// How an [`Executor`] runs a track.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Mode {
    /// One system at a time on the calling thread, in sequential order.
    Sequential,
    /// On every thread of the pool, each system as soon as its predecessors finished (a
    /// track of fewer than two systems, a track that is a chain, or an executor of one
    /// thread, runs sequentially: no second thread could take anything).
    Parallel,
    /// Per track: parallel when the track's measured work off its critical path is large
    /// enough ([`AUTO_PARALLEL_NANOS`]); sequential otherwise.
    Auto,
}

/// The mode a track actually ran in.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ChosenMode {
    /// On the calling thread alone.
    Sequential,
    /// On the pool.
    Parallel,
}

/// How an [`Executor`] is set up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ExecutorOptions {
    /// Threads that run systems, the calling thread included; 0 means the available cores
    /// (`std::thread::available_parallelism`).
    pub threads: usize,
    /// How tracks run.
    pub mode: Mode,
    /// Measure every system's duration and span, for [`Executor::last_duration`] and
    /// [`Executor::last_span`].
    pub time_systems: bool,
}

impl ExecutorOptions {
    /// `threads` threads (the calling thread included; 0 means every core), every track in
    /// [`Mode::Parallel`], no per-system timing.
    pub const fn parallel(threads: usize) -> Self {
        Self {
            threads,
            mode: Mode::Parallel,
            time_systems: false,
        }
    }
}

impl Default for ExecutorOptions {
    /// All cores, [`Mode::Auto`], no per-system timing.
    fn default() -> Self {
        Self {
            threads: 0,
            mode: Mode::Auto,
            time_systems: false,
        }
    }
}

/// What one track run did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TrackReport {
    /// How the track ran.
    pub mode: ChosenMode,
    /// The track's wall time in nanoseconds, from just before the first system to just
    /// after the last. Measured only when `time_systems` is on or auto mode sampled the
    /// track; 0 otherwise, so an untimed tick reads no clock.
    pub wall_nanos: u64,
    /// How many systems ran.
    pub systems: usize,
}

/// The auto policy's memory of one track.
#[derive(Clone, Copy, Debug)]
struct AutoTrack {
    /// Whether the last sample said the track is worth the pool.
    parallel: bool,
    /// Runs left until the next sample; 0 samples now.
    countdown: u32,
}

impl AutoTrack {
    const FRESH: Self = Self {
        parallel: false,
        countdown: 0,
    };
}

/// Runs the tracks of a [`Plan`] on a persistent pool of worker threads.
///
/// The calling thread works too. Dropping the executor stops and joins the workers.
#[derive(Debug)]
pub struct Executor {
    options: ExecutorOptions,
    pool: Pool,
    auto_plan: u64,
    auto: [AutoTrack; MAX_TRACKS],
    last_modes: [Option<ChosenMode>; MAX_TRACKS],
    /// The plan the pick orders were measured for.
    order_plan: u64,
    /// Per track, which ready system the threads take first (`crate::order`).
    orders: Box<[PickOrder]>,
    /// Per track, timed runs left until the pick order is measured again; 0 measures now.
    order_countdown: [u32; MAX_TRACKS],
}

impl Executor {
    /// Starts the workers (`options.threads - 1` of them) and returns once they all run.
    ///
    /// # Panics
    ///
    /// When the operating system refuses to start a thread.
    pub fn new(options: ExecutorOptions) -> Executor {
        Self::with_clock(options, TickClock::new())
    }

    /// [`Executor::new`], timing systems and tracks on `clock`: the durations it records and
    /// the work auto mode measures. A test's [`TickClock::manual`] makes them its choice.
    /// Idle threads still pace their spinning and naps by the machine's clock.
    ///
    /// # Panics
    ///
    /// When the operating system refuses to start a thread.
    pub fn with_clock(options: ExecutorOptions, clock: TickClock) -> Executor {
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        let pool = Pool::new(threads, clock);
        Executor {
            options: ExecutorOptions {
                threads: pool.threads(),
                ..options
            },
            pool,
            auto_plan: 0,
            auto: [AutoTrack::FRESH; MAX_TRACKS],
            last_modes: [None; MAX_TRACKS],
            order_plan: 0,
            orders: (0..MAX_TRACKS).map(|_| PickOrder::identity()).collect(),
            order_countdown: [0; MAX_TRACKS],
        }
    }

    /// How many threads run systems, the calling thread included.
    pub fn threads(&self) -> usize {
        self.options.threads
    }

    /// The options, with `threads` resolved.
    pub fn options(&self) -> ExecutorOptions {
        self.options
    }

    /// Runs `f(0)`, ..., `f(count - 1)` on this executor's pool, where its idle threads
    /// help, outside any track: for work between tracks that splits into independent
    /// batches (the World refreshes snapshots with it). As [`crate::run_batches`]: every
    /// batch runs even when one panics, the lowest panicking batch's panic then resumes
    /// here, and nothing is allocated.
    pub fn run_batches<F: Fn(u32) + Sync>(&self, count: u32, f: F) {
        let _current = self.pool.enter();
        crate::run_batches(count, f);
    }

    /// Runs track `t` of `plan` on `host`; `runs[id.index()]` is what system `id` runs
    /// (`Registry::runs()`).
    ///
    /// Returns after every system of the track has finished and no worker still references
    /// `host`, `runs` or `plan`. Allocates nothing.
    ///
    /// # Errors
    ///
    /// [`ExecError::SystemPanicked`] when a system panicked: the rest of the track still ran,
    /// dependents included, and the next call runs normally. [`ExecError::TrackOutOfRange`]
    /// and [`ExecError::RunsTooShort`] before anything runs.
    pub fn run_track<R: Sync, H: SharedHost<R>>(
        &mut self,
        plan: &Plan,
        t: usize,
        runs: &[R],
        host: &H,
    ) -> Result<TrackReport, ExecError> {
        if t >= plan.track_count() {
            return Err(ExecError::TrackOutOfRange {
                track: t,
                tracks: plan.track_count(),
            });
        }
        if runs.len() < plan.runs_needed() {
            return Err(ExecError::RunsTooShort {
                needed: plan.runs_needed(),
                given: runs.len(),
            });
        }
        let (base, len) = plan.track_span(t);
        let (mode, sample) = self.choose(plan, t);
        self.forget_other_plans_orders(plan);
        // A system's `par_each` finds the pool through this, whichever way the track runs.
        let _current = self.pool.enter();
        let timed = self.options.time_systems;
        let clock = self.pool.timer();
        let start = if timed || sample { clock.raw() } else { 0 };
        let (_, panic) = match mode {
            ChosenMode::Sequential => {
                (0, self.run_sequential(plan, t, runs, host, timed || sample))
            }
            ChosenMode::Parallel => {
                let ctx = Erased { runs, host };
                let job = Job {
                    plan,
                    track: t,
                    base,
                    len,
                    ctx: std::ptr::from_ref(&ctx).cast(),
                    run: run_erased::<R, H>,
                    timed: timed || sample,
                    record: timed || sample,
                    alive: Liveness::default(),
                    caller: std::thread::current(),
                    order: &self.orders[t],
                };
                // SAFETY: `plan` and `ctx` (with the `runs` and `host` it borrows) outlive
                // this call; `t` is a track of `plan` (checked above) and `base`/`len` its span;
                // `run_erased::<R, H>` matches `ctx`'s type, `runs` covers every system of the
                // plan (checked above), and `H: SharedHost<R>` is sound to call from several
                // threads for systems the plan leaves unordered, which is all the pool does.
                unsafe { self.pool.run(&job) }
            }
        };
        let clock = self.pool.timer();
        let wall_nanos = if timed || sample {
            clock.delta_as_nanos(start, clock.raw())
        } else {
            0
        };
        if sample {
            let off_path = self.work_off_critical_path(plan, t);
            self.learn(t, off_path);
        }
        self.last_modes[t] = Some(mode);
        if timed {
            self.measure_pick_order(plan, t);
        }
        match panic {
            Some((system, message)) => Err(ExecError::SystemPanicked { system, message }),
            None => Ok(TrackReport {
                mode,
                wall_nanos,
                systems: len,
            }),
        }
    }

    /// The duration in nanoseconds of the last run of system `id`, when `time_systems` is
    /// on; 0 before its first timed run.
    ///
    /// Written by whichever thread ran it, read after [`Executor::run_track`] returned, so
    /// the caller can feed a timing table (`laige_runner::Timing::observe`) in schedule order
    /// on its own thread.
    pub fn last_duration(&self, id: SystemId) -> u64 {
        let span = self.pool.span(id.index());
        self.pool.timer().delta_as_nanos(span.start, span.end)
    }

    /// Where and when system `id` last ran, in raw readings of the executor's clock, when
    /// `time_systems` is on (or on auto mode's sampled runs, which time every system); all
    /// zero before its first timed run. Thread 0 is the calling
    /// thread, workers are 1 and up. Read it, like [`Executor::last_duration`], after
    /// [`Executor::run_track`] returned; a timeline is built from these.
    pub fn last_span(&self, id: SystemId) -> ClockSpan {
        self.pool.span(id.index())
    }

    /// Switches per-system timing ([`ExecutorOptions::time_systems`]) on or off, from the
    /// next track on; the pool keeps running.
    pub fn set_time_systems(&mut self, on: bool) {
        self.options.time_systems = on;
    }

    /// How many times a thread (a worker or the calling thread) napped inside a track since
    /// the executor started.
    ///
    /// A worker that finds nothing to run for 100 µs while other threads run long systems
    /// leaves the track and sleeps until more work is published or the next track starts;
    /// the calling thread naps in place (at most 250 µs a nap) and the thread that ends the
    /// track wakes it. Both count here. Useful to see whether a schedule leaves threads idle.
    pub fn naps(&self) -> u64 {
        self.pool.naps()
    }

    /// The mode track `t` ran in last time; `None` before it ran.
    pub fn last_mode(&self, t: usize) -> Option<ChosenMode> {
        self.last_modes.get(t).copied().flatten()
    }

    /// The modes of every track, by index, as of their last runs.
    pub fn last_modes(&self) -> &[Option<ChosenMode>] {
        &self.last_modes
    }

    /// The order in which the threads take track `t`'s ready systems: the longest remaining
    /// chain of measured durations first (each system's last duration plus the longest
    /// chain after it), measured on a timed run (`time_systems`) every
    /// [`AUTO_SAMPLE_EVERY`] runs; sequential order before that. It changes who runs what
    /// when, never a result: the plan orders every pair that conflicts.
    pub fn pick_order<'a>(
        &'a self,
        plan: &'a Plan,
        t: usize,
    ) -> impl Iterator<Item = SystemId> + 'a {
        static IDENTITY: std::sync::LazyLock<PickOrder> =
            std::sync::LazyLock::new(PickOrder::identity);
        let measured = (self.order_plan == plan.identity()).then(|| self.orders.get(t));
        let order = measured.flatten().unwrap_or(&IDENTITY);
        (t < plan.track_count())
            .then_some(t)
            .into_iter()
            .flat_map(move |t| order.systems(plan, t))
    }

    /// Resets the pick orders to sequential order when `plan` is not the one they were
    /// measured for: another plan's permutation may put a system in a slot past the track's
    /// ready words, where no thread would ever claim it.
    fn forget_other_plans_orders(&mut self, plan: &Plan) {
        if self.order_plan != plan.identity() {
            self.order_plan = plan.identity();
            self.orders
                .iter_mut()
                .for_each(|it| *it = PickOrder::identity());
            self.order_countdown = [0; MAX_TRACKS];
        }
    }

    /// After a timed run of track `t`, re-measures its pick order when it is due.
    fn measure_pick_order(&mut self, plan: &Plan, t: usize) {
        let countdown = &mut self.order_countdown[t];
        if *countdown > 0 {
            *countdown -= 1;
            return;
        }
        *countdown = AUTO_SAMPLE_EVERY - 1;
        let pool = &self.pool;
        self.orders[t] = PickOrder::by_critical_path(plan, t, |id| {
            let span = pool.span(id.index());
            pool.timer().delta_as_nanos(span.start, span.end)
        });
    }

    /// The mode for this run of track `t`, and whether to measure its work.
    fn choose(&mut self, plan: &Plan, t: usize) -> (ChosenMode, bool) {
        if self.options.threads < 2 || plan.track(t).len() < 2 || plan.max_width(t) < 2 {
            // Nothing to share (one thread, one system, or a chain): a worker could only
            // join, find nothing, and make the end of the track wait for it.
            return (ChosenMode::Sequential, false);
        }
        match self.options.mode {
            Mode::Sequential => (ChosenMode::Sequential, false),
            Mode::Parallel => (ChosenMode::Parallel, false),
            Mode::Auto => {
                if self.auto_plan != plan.identity() {
                    self.auto_plan = plan.identity();
                    self.auto = [AutoTrack::FRESH; MAX_TRACKS];
                }
                let track = &mut self.auto[t];
                let sample = track.countdown == 0;
                track.countdown = if sample {
                    AUTO_SAMPLE_EVERY - 1
                } else {
                    track.countdown - 1
                };
                let mode = if track.parallel {
                    ChosenMode::Parallel
                } else {
                    ChosenMode::Sequential
                };
                (mode, sample)
            }
        }
    }

    /// The work of track `t` that can run beside its critical path, in nanoseconds: the sum
    /// of its systems' last durations minus the longest chain of them through the plan.
    fn work_off_critical_path(&self, plan: &Plan, t: usize) -> u64 {
        let pool = &self.pool;
        let duration = |id: SystemId| {
            let span = pool.span(id.index());
            pool.timer().delta_as_nanos(span.start, span.end)
        };
        let (_, len) = plan.track_span(t);
        let chains = crate::order::chains(plan, t, duration);
        let critical_path = chains[..len].iter().copied().max().unwrap_or(0);
        let work = plan
            .track(t)
            .iter()
            .fold(0u64, |sum, &id| sum.saturating_add(duration(id)));
        work.saturating_sub(critical_path)
    }

    /// Updates track `t`'s auto state with a measured amount of work off its critical path.
    fn learn(&mut self, t: usize, work: u64) {
        let track = &mut self.auto[t];
        track.parallel = if track.parallel {
            work >= AUTO_SEQUENTIAL_NANOS
        } else {
            work >= AUTO_PARALLEL_NANOS
        };
    }

    /// Runs track `t` on the calling thread in sequential order; returns the first panic.
    fn run_sequential<R, H: SharedHost<R>>(
        &self,
        plan: &Plan,
        t: usize,
        runs: &[R],
        host: &H,
        timed: bool,
    ) -> Option<(SystemId, PanicMessage)> {
        let mut first = None;
        let track = plan.track(t);
        if !timed {
            for &id in track {
                // SAFETY: `run_track` checked `runs.len() >= plan.runs_needed()`, which
                // exceeds every system index of the plan.
                let run = unsafe { runs.get_unchecked(id.index()) };
                // SAFETY: one system at a time on this thread, each once, so nothing runs
                // concurrently with it.
                let res = catch_unwind(AssertUnwindSafe(|| unsafe { host.run_system(id, run) }));
                if let Err(payload) = res {
                    keep_first(&mut first, id, payload);
                }
            }
            return first;
        }
        let clock = self.pool.timer();
        for &id in track {
            let run = &runs[id.index()];
            let start = clock.raw();
            // SAFETY: one system at a time on this thread, as above.
            let res = catch_unwind(AssertUnwindSafe(|| unsafe { host.run_system(id, run) }));
            self.pool.set_span(id.index(), start, clock.raw());
            if let Err(payload) = res {
                keep_first(&mut first, id, payload);
            }
        }
        first
    }
}

/// Keeps the message of the first panic of a sequential run; drops the payload.
#[cold]
fn keep_first(
    first: &mut Option<(SystemId, PanicMessage)>,
    id: SystemId,
    payload: Box<dyn std::any::Any + Send>,
) {
    if first.is_none() {
        *first = Some((id, PanicMessage::from_payload(&*payload)));
    }
    drop_payload(payload);
}

/// The typed context behind a [`Job`]'s `ctx` pointer.
///
/// On its own cache lines, like the [`Job`] itself: it sits in the caller's busy stack frame
/// and every thread reads it for every system.
#[repr(align(128))]
struct Erased<'a, R, H> {
    runs: &'a [R],
    host: &'a H,
}

/// Runs system `id` through an erased [`Erased<R, H>`].
///
/// # Safety
///
/// `ctx` must point to a live `Erased<'_, R, H>` whose `runs` covers `id`, and the call must
/// satisfy [`SharedHost::run_system`]'s contract for `id`.
unsafe fn run_erased<R: Sync, H: SharedHost<R>>(ctx: *const (), id: SystemId) {
    // SAFETY: the caller passes the pointer `run_track` made from an `Erased<'_, R, H>` that
    // is still alive.
    let ctx = unsafe { &*ctx.cast::<Erased<'_, R, H>>() };
    // SAFETY: forwarded from the caller.
    unsafe { ctx.host.run_system(id, &ctx.runs[id.index()]) }
}
