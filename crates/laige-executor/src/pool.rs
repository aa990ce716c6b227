//! The worker pool and the per-track protocol: the crate's synchronisation core.
//!
//! # The state word
//!
//! One `AtomicU64` carries the tick handshake: bits 0..16 count the workers inside the
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
//! bits of four `AtomicU64` words (track-local positions, so lowest first is sequential
//! order first), and every thread has its own four words on its own cache line. The caller
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
//! A thread with nothing to run spins and yields; after 100 µs it naps (`crate::idle`), and
//! the thread whose completion count brings `remaining` to 0 wakes every napper.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_diag::{ClockSpan, TickClock};
use laige_registry::{MAX_SYSTEMS, SystemId};

use crate::batch::{Batches, CurrentPool};
use crate::error::{PANIC_MESSAGE_BYTES, PanicMessage};
use crate::idle::{Handle, NAP_AFTER_NANOS, Naps, OVERSUBSCRIBED_SPIN_NANOS};
use crate::order::PickOrder;
use crate::plan::{Plan, Positions, WORDS};
use crate::sync::{
    Arc, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Backoff, CachePadded, Liveness, Ordering,
    fence, happens_after, happens_before, thread,
};
use crate::work::{lowest_bits, work};

const ACTIVE_MASK: u64 = 0xFFFF;
const OPEN: u64 = 1 << 16;
const SHUTDOWN: u64 = 1 << 17;
const EPOCH_SHIFT: u32 = 32;
const EPOCH_ONE: u64 = 1 << EPOCH_SHIFT;

/// "No panic" in a position slot.
const NO_PANIC: u32 = u32::MAX;

/// The most systems one claim takes. Larger chunks mean fewer contended RMWs for tiny
/// systems, but bind more systems to one thread when they turn out long.
pub(crate) const MAX_CHUNK: u32 = 8;

/// Under loom, spin twice and park: spinning only multiplies the interleavings.
#[cfg(loom)]
const SPIN_LIMIT: u32 = 2;

const TEXT_WORDS: usize = PANIC_MESSAGE_BYTES / 8;

/// One track run, as the threads see it. It lives on the caller's stack for the duration
/// of [`Pool::run`]; workers reach it through [`Shared::job`].
///
/// Aligned to its own cache lines: every thread reads it for every system it runs, and the
/// caller's stack frame around it is written all the time (spills, return addresses), so a
/// shared line would cost the workers a miss per system.
#[repr(align(128))]
pub(crate) struct Job {
    /// The plan being run.
    pub(crate) plan: *const Plan,
    /// The track index.
    pub(crate) track: usize,
    /// The track's first node and its length.
    pub(crate) base: usize,
    /// How many systems the track has.
    pub(crate) len: usize,
    /// The type-erased run table and host, passed back to `run`.
    pub(crate) ctx: *const (),
    /// Runs one system through `ctx`.
    pub(crate) run: unsafe fn(*const (), SystemId),
    /// Whether to read the clock around each system (busy time).
    pub(crate) timed: bool,
    /// Whether to store each system's span (needs `timed`).
    pub(crate) record: bool,
    /// Where the job's lifetime is visible to loom.
    pub(crate) alive: Liveness,
    /// The calling thread, so whoever ends the track can wake it from a nap.
    pub(crate) caller: Handle,
    /// Which ready system to take first (`crate::order`).
    pub(crate) order: *const PickOrder,
}

/// A thread's earliest panic of the current track, written only by its owner during the
/// track and read by the caller after it.
struct PanicSlot {
    position: AtomicU32,
    system: AtomicU32,
    len: AtomicU32,
    text: [AtomicU64; TEXT_WORDS],
}

/// The last span of one system, written by the thread that ran it and read by the caller
/// after the track.
struct SpanSlot {
    start: AtomicU64,
    end: AtomicU64,
    thread: AtomicU32,
}

impl SpanSlot {
    fn new() -> Self {
        Self {
            start: AtomicU64::new(0),
            end: AtomicU64::new(0),
            thread: AtomicU32::new(0),
        }
    }
}

/// Per-thread state; index 0 is the calling thread.
struct Slot {
    sleeping: AtomicBool,
    panic: PanicSlot,
}

/// Everything the threads share, allocated once when the pool starts.
pub(crate) struct Shared {
    pub(crate) state: CachePadded<AtomicU64>,
    pub(crate) job: CachePadded<AtomicPtr<Job>>,
    pub(crate) remaining: CachePadded<AtomicU32>,
    /// Per thread, the ready systems it was dealt or made ready; index 0 is the caller.
    pub(crate) ready: Box<[CachePadded<[AtomicU64; WORDS]>]>,
    pub(crate) panicked: CachePadded<AtomicU32>,
    pub(crate) busy: CachePadded<AtomicU64>,
    pub(crate) pending: Box<[AtomicU32]>,
    spans: Box<[SpanSlot]>,
    slots: Box<[CachePadded<Slot>]>,
    pub(crate) naps: Naps,
    /// The shared loop of a `par_each`, which idle threads help with.
    pub(crate) batches: Batches,
    /// Paces the idle loops: always the machine's clock.
    pub(crate) clock: TickClock,
    /// Times systems and tracks: the executor's (possibly manual) clock.
    pub(crate) timer: TickClock,
    pub(crate) threads: u32,
    /// How many threads may spin for long: as many as the machine has cores. The others
    /// (higher indices) would spin on a core another thread needs.
    spinners: u32,
    pub(crate) started: AtomicU32,
}

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
        let shared = Arc::new(Shared {
            state: CachePadded(AtomicU64::new(0)),
            job: CachePadded(AtomicPtr::new(std::ptr::null_mut())),
            remaining: CachePadded(AtomicU32::new(0)),
            ready: (0..threads)
                .map(|_| CachePadded(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect(),
            panicked: CachePadded(AtomicU32::new(NO_PANIC)),
            busy: CachePadded(AtomicU64::new(0)),
            pending: (0..MAX_SYSTEMS).map(|_| AtomicU32::new(0)).collect(),
            spans: (0..MAX_SYSTEMS).map(|_| SpanSlot::new()).collect(),
            slots: (0..threads)
                .map(|_| {
                    CachePadded(Slot {
                        sleeping: AtomicBool::new(false),
                        panic: PanicSlot {
                            position: AtomicU32::new(NO_PANIC),
                            system: AtomicU32::new(0),
                            len: AtomicU32::new(0),
                            text: std::array::from_fn(|_| AtomicU64::new(0)),
                        },
                    })
                })
                .collect(),
            naps: Naps::new(threads),
            batches: Batches::new(),
            clock: TickClock::new(),
            timer,
            threads: threads as u32,
            spinners: cores(threads),
            started: AtomicU32::new(0),
        });
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
        CurrentPool::enter(&self.shared)
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
        for (worker, slot) in self.workers.iter().zip(&shared.slots[1..]) {
            if wanted == 0 {
                break;
            }
            if slot.sleeping.load(Ordering::Relaxed) && slot.sleeping.swap(false, Ordering::Relaxed)
            {
                worker.thread().unpark();
                wanted -= 1;
            }
        }
        // 3. Work.
        work(shared, job, plan, 0);
        // 4. Close, then 5. wait for the joined workers to leave. The acquire loads read
        // their releasing `fetch_sub`s, so everything they did happens before we return.
        shared.state.fetch_and(!OPEN, Ordering::AcqRel);
        let mut backoff = Backoff::default();
        while shared.state.load(Ordering::Acquire) & ACTIVE_MASK != 0 {
            backoff.snooze();
        }
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

impl Shared {
    /// How long thread `me` idles before it naps (inside a track) or parks (between tracks).
    #[inline]
    pub(crate) fn spin_nanos(&self, me: usize) -> u64 {
        if (me as u32) < self.spinners {
            NAP_AFTER_NANOS
        } else {
            OVERSUBSCRIBED_SPIN_NANOS
        }
    }

    /// Wakes the workers that sleep between tracks or nap inside one, so they help with the
    /// shared loop just opened. Best effort: the loop's owner runs what nobody takes.
    pub(crate) fn wake_helpers(&self) {
        fence(Ordering::SeqCst);
        for me in 1..self.slots.len() {
            let sleeping = &self.slots[me].sleeping;
            if sleeping.load(Ordering::Relaxed) && sleeping.swap(false, Ordering::Relaxed) {
                self.naps.unpark(me);
            }
        }
        self.naps.wake_workers_if_any();
    }

    /// Deals `roots` out to the threads' ready words in contiguous blocks of positions,
    /// the lowest block to the caller, which starts on it at once.
    fn deal(&self, roots: &Positions, order: &PickOrder) {
        let share = (roots.len() as u32).div_ceil(self.threads);
        let mut rest = order.slots_of(roots.to_words());
        for own in self.ready.iter() {
            let mut quota = share;
            for (word, bits) in own.iter().zip(rest.iter_mut()) {
                let take = lowest_bits(*bits, quota);
                quota -= take.count_ones();
                *bits &= !take;
                word.store(take, Ordering::Relaxed);
            }
        }
    }

    /// Stores the span of the system at `index`, run by thread `me`.
    #[inline]
    pub(crate) fn set_span(&self, index: usize, start: u64, end: u64, me: usize) {
        if let Some(slot) = self.spans.get(index) {
            slot.start.store(start, Ordering::Relaxed);
            slot.end.store(end, Ordering::Relaxed);
            slot.thread.store(me as u32, Ordering::Relaxed);
        }
    }

    /// Keeps `payload`'s message when `position` is this thread's earliest panic so far.
    pub(crate) fn record_panic(
        &self,
        me: usize,
        position: usize,
        id: SystemId,
        payload: &(dyn Any + Send),
    ) {
        let slot = &self.slots[me].panic;
        let position = position as u32;
        if position < slot.position.load(Ordering::Relaxed) {
            let message = PanicMessage::from_payload(payload);
            for (word, chunk) in slot.text.iter().zip(message.bytes().chunks_exact(8)) {
                let bytes = chunk.try_into().expect("chunks of 8");
                word.store(u64::from_le_bytes(bytes), Ordering::Relaxed);
            }
            let len = u32::from(message.len()) | u32::from(message.is_truncated()) << 8;
            slot.len.store(len, Ordering::Relaxed);
            slot.system.store(id.get(), Ordering::Relaxed);
            slot.position.store(position, Ordering::Relaxed);
        }
        self.panicked.fetch_min(position, Ordering::Relaxed);
    }

    /// The earliest panic of the finished track, if any; clears every slot for the next one.
    /// Called by the caller once no worker is inside the track.
    fn take_panic(&self) -> Option<(SystemId, PanicMessage)> {
        let first = self.panicked.load(Ordering::Relaxed);
        if first == NO_PANIC {
            return None;
        }
        let mut res = None;
        for slot in self.slots.iter() {
            let slot = &slot.panic;
            if slot.position.swap(NO_PANIC, Ordering::Relaxed) != first {
                continue;
            }
            let mut bytes = [0u8; PANIC_MESSAGE_BYTES];
            for (chunk, word) in bytes.chunks_exact_mut(8).zip(&slot.text) {
                chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            let len = slot.len.load(Ordering::Relaxed);
            let message = PanicMessage::from_parts(bytes, len as u8, len >> 8 != 0);
            res = SystemId::new(slot.system.load(Ordering::Relaxed)).map(|id| (id, message));
        }
        res
    }
}

/// How many threads may spin for long: the machine's cores (all of them under loom, whose
/// threads have no cores).
fn cores(threads: usize) -> u32 {
    #[cfg(not(loom))]
    let cores = thread::available_parallelism().map_or(1, usize::from);
    #[cfg(loom)]
    let cores = threads;
    cores.min(threads) as u32
}

/// A worker thread: wait for a track, join it, work, leave; until shutdown.
fn worker_main(shared: &Shared, me: usize) {
    shared.naps.register_current(me);
    let _current = CurrentPool::enter(shared);
    shared.started.fetch_add(1, Ordering::Release);
    let mut seen = 0;
    loop {
        let state = wait_for_track(shared, me, seen);
        if state & SHUTDOWN != 0 {
            return;
        }
        seen = state >> EPOCH_SHIFT;
        let mut current = state;
        let joined = loop {
            if current >> EPOCH_SHIFT != seen || current & OPEN == 0 {
                break false;
            }
            match shared.state.compare_exchange_weak(
                current,
                current + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break true,
                Err(now) => current = now,
            }
        };
        if !joined {
            // That track closed before we got in, or a newer one opened: wait again.
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
        work(shared, job, plan, me);
        job.alive.touch();
        happens_before(&*shared.job);
        shared.state.fetch_sub(1, Ordering::Release);
    }
}

/// Waits until the epoch differs from `seen` or shutdown is asked, helping with shared
/// loops meanwhile: spins for [`Shared::spin_nanos`], then parks. Returns the state word it saw.
fn wait_for_track(shared: &Shared, me: usize, seen: u64) -> u64 {
    let sleeping = &shared.slots[me].sleeping;
    let news = |state: u64| state >> EPOCH_SHIFT != seen || state & SHUTDOWN != 0;
    let mut backoff = Backoff::default();
    let mut since = spin_start(shared);
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
        if !spin_budget_spent(shared, me, &backoff, since) {
            backoff.snooze();
            continue;
        }
        // Dekker with `Pool::run`: we store `sleeping` then load the state, it stores the
        // state then loads `sleeping`, with a `SeqCst` fence between each pair. The fences are
        // totally ordered, so either we see the new epoch here, or it sees us asleep and
        // unparks us (a token that arrives before `park` is kept).
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
    }
}

#[cfg(not(loom))]
pub(crate) fn spin_start(shared: &Shared) -> u64 {
    shared.clock.raw()
}

#[cfg(not(loom))]
fn spin_budget_spent(shared: &Shared, me: usize, backoff: &Backoff, since: u64) -> bool {
    // One clock read per 8 spins (a `yield_now` every 64 may have given the core away).
    backoff.spins() % 8 == 7
        && shared.clock.delta_as_nanos(since, shared.clock.raw()) > shared.spin_nanos(me)
}

#[cfg(loom)]
pub(crate) fn spin_start(_: &Shared) -> u64 {
    0
}

#[cfg(loom)]
fn spin_budget_spent(_: &Shared, _: usize, backoff: &Backoff, _: u64) -> bool {
    backoff.spins() >= SPIN_LIMIT
}

/// Drops a caught panic payload; a payload whose destructor panics in turn is leaked
/// instead, so containing a panic never unwinds a second time.
pub fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(again);
    }
}
