//! The worker pool and the per-track protocol: the crate's synchronisation core.
//!
//! # The state word
//!
//! One `AtomicU64` carries the tick handshake (`crate::handshake`): bits 0..16 count the workers inside the
//! current track (`active`), bit 16 says the track is open for joining, bit 17 asks the
//! workers to exit, and bits 32..64 hold the epoch, bumped once per published track.
//!
//! A track run, seen from the calling thread ([`Pool::run`]):
//! 1. reset the per-track atomics (no worker is inside a track, see 5);
//! 2. store the job pointer, then bump the epoch and set `open` in one releasing RMW, and
//!    unpark the workers that went to sleep;
//! 3. work like any worker until every system of the track has run (`remaining == 0`);
//! 4. clear `open`;
//! 5. wait until `active == 0`, so no worker still reads the job or anything it points to.
//!
//! A worker joins with a CAS that increments `active` only while the epoch it saw is still
//! open; since joining and closing are RMWs on the same word, a worker either joined before
//! the close (and the caller waits for it) or sees the track closed (and never touches it).
//!
//! # Ready systems (`crate::work`)
//!
//! Per track, a system is ready when its predecessor count reaches 0. Ready systems are
//! bits of four `AtomicU64` words (track-local slots: lowest first is the track's pick order
//! first, sequential order unless `crate::order` measured a critical path), and every thread has its own four words on its own cache line. The caller
//! deals the track's roots out in contiguous blocks, the lowest to itself, before it
//! publishes the track. A thread claims a few systems at once with one CAS (guided: a
//! quarter of what a word holds for two threads, at most [`MAX_CHUNK`]), from its own words
//! first, where nobody else competes for the line, and steals from the other threads' words
//! only when its own are empty; so a hundred tiny independent systems cost a handful of
//! uncontended RMWs, not a hundred contended ones. A thread that has not joined yet loses
//! nothing: its block is stolen. When a finished system makes dependents ready, the thread
//! keeps the first one for itself if it holds nothing else (so a chain never changes
//! threads) and publishes the rest into its own words with one `fetch_or` per word.
//!
//! # Idle threads
//!
//! A thread with nothing to run spins and yields. After 100 µs a worker leaves the track
//! (it decrements `active` like one that finished) and parks in the wait loop; a publisher
//! of new ready systems worth a wake-up (`crate::order`) unparks it, and it rejoins the same
//! epoch while the track is open. So the end of a track never waits for a sleeper to wake.
//! The caller cannot leave: it naps (`crate::idle`), and the thread whose completion count
//! brings `remaining` to 0 wakes it (docs/decisions/0013-idle-workers-leave-the-track.md).

use laige_diag::{ClockSpan, TickClock};
use laige_registry::SystemId;

use crate::batch::CurrentPool;
use crate::error::PanicMessage;
use crate::handshake::{ACTIVE_MASK, EPOCH_ONE, EPOCH_SHIFT, OPEN, SHUTDOWN, close_and_wait, join};
use crate::plan::WORDS;
use crate::shared::{Job, NO_PANIC, Shared, spin_start};
use crate::sync::{Arc, Backoff, Ordering, fence, happens_after, happens_before, thread};
use crate::work::{Left, any_ready, work};

/// Under loom, spin twice and park: spinning only multiplies the interleavings.
#[cfg(loom)]
const SPIN_LIMIT: u32 = 2;

/// The persistent workers and the state they share.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.shared.threads)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// Starts `threads - 1` workers; the calling thread is the last one.
    pub(crate) fn new(threads: usize, timer: TickClock) -> Pool {
        let threads = threads.clamp(1, ACTIVE_MASK as usize);
        let shared = Arc::new(Shared::new(threads, timer));
        let workers = (1..threads)
            .map(|me| {
                let shared = Arc::clone(&shared);
                let builder = thread::Builder::new().name(format!("laige-exec-{me}"));
                // Loom runs threads on small coroutine stacks; a panic report needs more.
                #[cfg(loom)]
                let builder = builder.stack_size(1 << 20);
                builder
                    .spawn(move || worker_main(&shared, me))
                    .expect("the executor could not start a worker thread")
            })
            .collect();
        // Wait until every worker runs: a thread's start-up allocates (its name, signal
        // stack), and that must not land inside the first ticks.
        let mut backoff = Backoff::default();
        while shared.started.load(Ordering::Acquire) < threads as u32 - 1 {
            backoff.snooze();
        }
        Pool { shared, workers }
    }

    /// How many threads run a track, the caller included.
    pub(crate) fn threads(&self) -> usize {
        self.shared.threads as usize
    }

    /// The clock the threads time systems with.
    pub(crate) fn timer(&self) -> &TickClock {
        &self.shared.timer
    }

    /// How many naps threads (the caller included) took inside tracks since the pool started.
    pub(crate) fn naps(&self) -> u64 {
        self.shared.naps.taken()
    }

    /// Makes this pool the calling thread's until the guard drops, so a system's
    /// `par_each` finds it ([`crate::run_batches`]).
    pub(crate) fn enter(&self) -> CurrentPool {
        CurrentPool::enter(&self.shared.batches, &self.shared.naps)
    }

    /// The last recorded span of the system at `index`.
    pub(crate) fn span(&self, index: usize) -> ClockSpan {
        self.shared
            .spans
            .get(index)
            .map_or_else(ClockSpan::default, |it| ClockSpan {
                start: it.start.load(Ordering::Relaxed),
                end: it.end.load(Ordering::Relaxed),
                thread: it.thread.load(Ordering::Relaxed),
            })
    }

    /// Records a span measured on the calling thread.
    pub(crate) fn set_span(&self, index: usize, start: u64, end: u64) {
        self.shared.set_span(index, start, end, 0);
    }

    /// Runs every system of `job`'s track on all threads and returns the summed busy time
    /// (raw clock units, 0 unless `job.timed`) and the first panic in sequential order.
    ///
    /// # Safety
    ///
    /// `job.plan` and `job.ctx` must stay valid until this returns, `job.track` must be a
    /// track of the plan with `job.base`/`job.len` its span, and calling `job.run` with
    /// `job.ctx` must be sound from any thread for each system of the track, concurrently
    /// for systems the plan leaves unordered.
    pub(crate) unsafe fn run(&mut self, job: &Job) -> (u64, Option<(SystemId, PanicMessage)>) {
        let shared = &*self.shared;
        // SAFETY: the caller keeps the plan alive until we return.
        let plan = unsafe { &*job.plan };
        // 1. No worker is inside a track: the previous run waited for `active == 0`, and a
        // worker can only join while `open` is set.
        for i in 0..job.len {
            let count = u32::from(plan.pred_count(job.base + i));
            shared.pending[i].store(count, Ordering::Relaxed);
        }
        // SAFETY: the caller keeps the pick order alive until we return, like the plan.
        let order = unsafe { &*job.order };
        shared.deal(plan.roots(job.track), order);
        shared.remaining.store(job.len as u32, Ordering::Relaxed);
        shared.panicked.store(NO_PANIC, Ordering::Relaxed);
        shared.busy.store(0, Ordering::Relaxed);
        shared
            .job
            .store(std::ptr::from_ref(job).cast_mut(), Ordering::Relaxed);
        // 2. Publish. The release hands the stores above to every worker that joins (it
        // reads this value, or a later RMW of its release sequence, with acquire). The fence
        // orders the publish before the `sleeping` loads (see `wait_for_track`).
        happens_before(&*shared.state);
        shared.state.fetch_add(EPOCH_ONE | OPEN, Ordering::Release);
        fence(Ordering::SeqCst);
        // Wake no more sleepers than the track can ever keep busy besides the caller: a
        // thread woken for nothing costs a futex wake here and its core meanwhile.
        let mut wanted = plan.max_width(job.track).saturating_sub(1);
        for (me, worker) in self.workers.iter().enumerate() {
            if wanted == 0 {
                break;
            }
            let sleeping = shared.naps.sleeping(me + 1);
            if sleeping.load(Ordering::Relaxed) && sleeping.swap(false, Ordering::Relaxed) {
                worker.thread().unpark();
                wanted -= 1;
            }
        }
        // 3. Work.
        work(shared, job, plan, 0);
        // 4. Close, then 5. wait for the joined workers to leave. The acquire loads read
        // their releasing `fetch_sub`s, so everything they did happens before we return.
        close_and_wait(&shared.state);
        happens_after(&*shared.job);
        shared.job.store(std::ptr::null_mut(), Ordering::Relaxed);
        job.alive.retire();
        (shared.busy.load(Ordering::Relaxed), shared.take_panic())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.state.fetch_or(SHUTDOWN, Ordering::SeqCst);
        for worker in &self.workers {
            worker.thread().unpark();
        }
        for worker in self.workers.drain(..) {
            // A worker never panics outside `catch_unwind`; if one did, there is nothing
            // left to clean up.
            let _ = worker.join();
        }
    }
}

/// A worker thread: wait for a track, join it, work, leave; until shutdown.
fn worker_main(shared: &Shared, me: usize) {
    shared.naps.register_current(me);
    let _current = CurrentPool::enter(&shared.batches, &shared.naps);
    shared.started.fetch_add(1, Ordering::Release);
    let mut seen = 0;
    // Whether to spin before sleeping: not right after leaving a track idle, which spun.
    let mut spin = true;
    loop {
        let state = wait_for_track(shared, me, seen, spin);
        if state & SHUTDOWN != 0 {
            return;
        }
        // A new track, or more work in the one this worker left idle: join it either way.
        seen = state >> EPOCH_SHIFT;
        let joined = join(&shared.state, state, |current| {
            current >> EPOCH_SHIFT == seen && current & OPEN != 0
        });
        if !joined {
            // That track closed before we got in, or a newer one opened: wait again.
            spin = true;
            continue;
        }
        happens_after(&*shared.state);
        // SAFETY: the caller stored the job pointer before publishing the epoch we joined
        // (our acquire CAS read that release RMW or a later one of its release sequence), and
        // `Pool::run` does not return, so the `Job` on its stack and everything it points to
        // stay alive, until it has closed the track and seen `active == 0`. We are counted in
        // `active` from our successful CAS until the `fetch_sub` below, and the caller stores
        // another job pointer only in a later `run`, which starts after this one returned.
        let job = unsafe { &*shared.job.load(Ordering::Relaxed) };
        job.alive.touch();
        // SAFETY: as for `job`: `Pool::run`'s caller keeps the plan alive until it returns.
        let plan = unsafe { &*job.plan };
        let left = work(shared, job, plan, me);
        job.alive.touch();
        happens_before(&*shared.job);
        shared.state.fetch_sub(1, Ordering::Release);
        spin = left == Left::Done;
        if left == Left::Idle {
            shared.naps.count_sleep_in_track();
        }
    }
}

/// Waits until the epoch differs from `seen`, shutdown is asked, or the open track `seen`
/// (which this worker left idle) has ready systems again, helping with shared loops
/// meanwhile: spins for [`Shared::spin_nanos`] when `spin`, then parks. Returns the state
/// word it saw.
fn wait_for_track(shared: &Shared, me: usize, seen: u64, spin: bool) -> u64 {
    let sleeping = shared.naps.sleeping(me);
    let news = |state: u64| {
        state >> EPOCH_SHIFT != seen
            || state & SHUTDOWN != 0
            || (state & OPEN != 0 && any_ready(shared, WORDS))
    };
    let mut backoff = Backoff::default();
    let mut since = spin_start(shared);
    let mut spin = spin;
    loop {
        let state = shared.state.load(Ordering::Acquire);
        if news(state) {
            return state;
        }
        if shared.batches.help() {
            backoff.reset();
            since = spin_start(shared);
            continue;
        }
        if spin && !spin_budget_spent(shared, me, &backoff, since) {
            backoff.snooze();
            continue;
        }
        // Dekker with `Pool::run`: we store `sleeping` then load the state, it stores the
        // state then loads `sleeping`, with a `SeqCst` fence between each pair. The fences are
        // totally ordered, so either we see the new epoch here, or it sees us asleep and
        // unparks us (a token that arrives before `park` is kept). The same holds for ready
        // systems of the track we left: a publisher stores the ready bits, fences and loads
        // `sleeping` (`Naps::wake_for`); we store `sleeping`, fence and load the bits.
        sleeping.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let state = shared.state.load(Ordering::Acquire);
        if news(state) {
            sleeping.store(false, Ordering::Relaxed);
            return state;
        }
        if shared.batches.wants_help() {
            sleeping.store(false, Ordering::Relaxed);
            continue;
        }
        thread::park();
        sleeping.store(false, Ordering::Relaxed);
        backoff.reset();
        since = spin_start(shared);
        spin = true;
    }
}

#[cfg(not(loom))]
fn spin_budget_spent(shared: &Shared, me: usize, backoff: &Backoff, since: u64) -> bool {
    // One clock read per 8 spins (a `yield_now` every 64 may have given the core away).
    backoff.spins() % 8 == 7
        && shared.clock.delta_as_nanos(since, shared.clock.raw()) > shared.spin_nanos(me)
}

#[cfg(loom)]
fn spin_budget_spent(_: &Shared, _: usize, backoff: &Backoff, _: u64) -> bool {
    backoff.spins() >= SPIN_LIMIT
}
