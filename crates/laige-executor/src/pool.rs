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
//! # Ready systems
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

use laige_diag::TickClock;
use laige_registry::{MAX_SYSTEMS, SystemId};

use crate::error::{PANIC_MESSAGE_BYTES, PanicMessage};
use crate::idle::{Handle, NAP_AFTER_NANOS, Naps};
use crate::plan::{Plan, Positions, WORDS};
use crate::sync::{
    Arc, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Backoff, CachePadded, Liveness, Ordering,
    fence, happens_after, happens_before, thread,
};

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

/// How long an idle worker spins between tracks before it parks.
#[cfg(not(loom))]
const SPIN_NANOS: u64 = 100_000;

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
    /// Whether to store each system's duration (needs `timed`).
    pub(crate) record: bool,
    /// Where the job's lifetime is visible to loom.
    pub(crate) alive: Liveness,
    /// The calling thread, so whoever ends the track can wake it from a nap.
    pub(crate) caller: Handle,
}

/// A thread's earliest panic of the current track, written only by its owner during the
/// track and read by the caller after it.
struct PanicSlot {
    position: AtomicU32,
    system: AtomicU32,
    len: AtomicU32,
    text: [AtomicU64; TEXT_WORDS],
}

/// Per-thread state; index 0 is the calling thread.
struct Slot {
    sleeping: AtomicBool,
    panic: PanicSlot,
}

/// Everything the threads share, allocated once when the pool starts.
pub(crate) struct Shared {
    state: CachePadded<AtomicU64>,
    job: CachePadded<AtomicPtr<Job>>,
    remaining: CachePadded<AtomicU32>,
    /// Per thread, the ready systems it was dealt or made ready; index 0 is the caller.
    ready: Box<[CachePadded<[AtomicU64; WORDS]>]>,
    panicked: CachePadded<AtomicU32>,
    busy: CachePadded<AtomicU64>,
    pending: Box<[AtomicU32]>,
    durations: Box<[AtomicU64]>,
    slots: Box<[CachePadded<Slot>]>,
    naps: Naps,
    /// Paces the idle loops: always the machine's clock.
    clock: TickClock,
    /// Times systems and tracks: the executor's (possibly manual) clock.
    timer: TickClock,
    threads: u32,
    started: AtomicU32,
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
            durations: (0..MAX_SYSTEMS).map(|_| AtomicU64::new(0)).collect(),
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
            clock: TickClock::new(),
            timer,
            threads: threads as u32,
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

    /// The last recorded duration of the system at `index`.
    pub(crate) fn duration(&self, index: usize) -> u64 {
        self.shared
            .durations
            .get(index)
            .map_or(0, |it| it.load(Ordering::Relaxed))
    }

    /// Records a duration measured on the calling thread.
    pub(crate) fn set_duration(&self, index: usize, nanos: u64) {
        if let Some(it) = self.shared.durations.get(index) {
            it.store(nanos, Ordering::Relaxed);
        }
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
        shared.deal(plan.roots(job.track));
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
        for (worker, slot) in self.workers.iter().zip(&shared.slots[1..]) {
            if slot.sleeping.load(Ordering::Relaxed) && slot.sleeping.swap(false, Ordering::Relaxed)
            {
                worker.thread().unpark();
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
    /// Deals `roots` out to the threads' ready words in contiguous blocks of positions,
    /// the lowest block to the caller, which starts on it at once.
    fn deal(&self, roots: &Positions) {
        let share = (roots.len() as u32).div_ceil(self.threads);
        let mut rest = roots.to_words();
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

    /// Keeps `payload`'s message when `position` is this thread's earliest panic so far.
    fn record_panic(&self, me: usize, position: usize, id: SystemId, payload: &(dyn Any + Send)) {
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

/// A worker thread: wait for a track, join it, work, leave; until shutdown.
fn worker_main(shared: &Shared, me: usize) {
    shared.naps.register_current(me);
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

/// Waits until the epoch differs from `seen` or shutdown is asked: spins for
/// [`SPIN_NANOS`], then parks. Returns the state word it saw.
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
        if !spin_budget_spent(shared, &backoff, since) {
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
        thread::park();
        sleeping.store(false, Ordering::Relaxed);
        backoff.reset();
        since = spin_start(shared);
    }
}

#[cfg(not(loom))]
fn spin_start(shared: &Shared) -> u64 {
    shared.clock.raw()
}

#[cfg(not(loom))]
fn spin_budget_spent(shared: &Shared, backoff: &Backoff, since: u64) -> bool {
    // One clock read per 64 spins.
    backoff.spins() % 64 == 63
        && shared.clock.delta_as_nanos(since, shared.clock.raw()) > SPIN_NANOS
}

#[cfg(loom)]
fn spin_start(_: &Shared) -> u64 {
    0
}

#[cfg(loom)]
fn spin_budget_spent(_: &Shared, backoff: &Backoff, _: u64) -> bool {
    backoff.spins() >= SPIN_LIMIT
}

/// Runs systems of `job` until the whole track has run. Called by the caller (`me == 0`)
/// and by every worker that joined.
fn work(shared: &Shared, job: &Job, plan: &Plan, me: usize) {
    let words = job.len.div_ceil(64);
    let mut done = 0u32;
    let mut next: Option<usize> = None;
    let mut chunk = (0usize, 0u64);
    let mut busy = 0u64;
    let mut backoff = Backoff::default();
    // When this thread last ran out of work; `None` while it has some.
    let mut idle_since: Option<u64> = None;
    loop {
        let local = if let Some(local) = next.take() {
            local
        } else if chunk.1 != 0 {
            let bit = chunk.1.trailing_zeros() as usize;
            chunk.1 &= chunk.1 - 1;
            chunk.0 * 64 + bit
        } else if let Some(claimed) = claim_own(shared, me, words) {
            chunk = claimed;
            idle_since = None;
            continue;
        } else {
            if done != 0 {
                // Completions are counted in batches, when a thread runs out of its own work.
                if shared.remaining.fetch_sub(done, Ordering::AcqRel) == done {
                    // This ended the track: nobody may sleep through that.
                    shared.naps.wake_all(&job.caller);
                }
                done = 0;
            }
            if let Some(stolen) = steal(shared, me, words) {
                chunk = stolen;
                backoff.reset();
                idle_since = None;
                continue;
            }
            if shared.remaining.load(Ordering::Acquire) == 0 {
                break;
            }
            let since = *idle_since.get_or_insert_with(|| spin_start(shared));
            // The clock is read every 8 spins: after a `yield_now` that gave the core away
            // for a while, the nap should not wait for 63 more spins.
            if cfg!(not(loom))
                && backoff.spins() % 8 == 7
                && shared.clock.delta_as_nanos(since, shared.clock.raw()) > NAP_AFTER_NANOS
            {
                shared.naps.nap(me, || {
                    shared.remaining.load(Ordering::Acquire) != 0 && !any_ready(shared, words)
                });
            }
            backoff.snooze();
            continue;
        };
        run_one(shared, job, plan, me, local, &mut busy);
        done += 1;
        // Count down the dependents. The AcqRel RMWs chain every predecessor's release to
        // the thread whose decrement reaches 0, which runs the dependent or publishes it. A
        // dependent with this system as its only predecessor is ready now, no RMW needed:
        // nobody else ever counts it down (so a chain touches no shared counter).
        let mut publish = [0u64; WORDS];
        let mut any = false;
        for &dependent in plan.dependents(job.base + local) {
            let dependent = usize::from(dependent);
            if plan.pred_count(job.base + dependent) != 1 {
                happens_before(&shared.pending[dependent]);
                if shared.pending[dependent].fetch_sub(1, Ordering::AcqRel) != 1 {
                    continue;
                }
                happens_after(&shared.pending[dependent]);
            }
            if next.is_none() && chunk.1 == 0 {
                next = Some(dependent);
            } else {
                publish[dependent / 64] |= 1 << (dependent % 64);
                any = true;
            }
        }
        if any {
            for (word, bits) in shared.ready[me].iter().zip(publish) {
                if bits != 0 {
                    happens_before(word);
                    word.fetch_or(bits, Ordering::Release);
                }
            }
            shared.naps.wake_if_any(&job.caller);
        }
    }
    if busy != 0 {
        shared.busy.fetch_add(busy, Ordering::Relaxed);
    }
}

/// Whether any thread holds ready systems nobody has claimed.
fn any_ready(shared: &Shared, words: usize) -> bool {
    shared.ready.iter().any(|own| {
        own.iter()
            .take(words)
            .any(|word| word.load(Ordering::Relaxed) != 0)
    })
}

/// Takes a few of this thread's own ready systems, lowest positions first.
fn claim_own(shared: &Shared, me: usize, words: usize) -> Option<(usize, u64)> {
    claim(&shared.ready[me], words, |ready| {
        lowest_bits(ready, chunk_size(ready.count_ones(), shared.threads))
    })
}

/// Takes the upper half of a word of another thread's ready systems, trying the threads
/// after `me` in turn, so idle threads spread over their victims. Half, because a thief
/// that takes little comes back soon, and every visit contends for the victim's line.
fn steal(shared: &Shared, me: usize, words: usize) -> Option<(usize, u64)> {
    let threads = shared.ready.len();
    (1..threads).find_map(|k| {
        claim(&shared.ready[(me + k) % threads], words, |ready| {
            let count = ready.count_ones();
            ready & !lowest_bits(ready, count - count.div_ceil(2))
        })
    })
}

/// Takes the systems `bite` picks from the first non-empty word of `ready`, with one CAS:
/// `(word, bits)`.
fn claim(
    ready: &[AtomicU64; WORDS],
    words: usize,
    bite: impl Fn(u64) -> u64,
) -> Option<(usize, u64)> {
    for (w, word) in ready.iter().enumerate().take(words) {
        let mut current = word.load(Ordering::Relaxed);
        while current != 0 {
            let take = bite(current);
            match word.compare_exchange_weak(
                current,
                current & !take,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    happens_after(word);
                    return Some((w, take));
                }
                Err(now) => current = now,
            }
        }
    }
    None
}

/// Guided self-scheduling: a `1 / (2 · threads)` share of what is ready, 1 to [`MAX_CHUNK`].
fn chunk_size(ready: u32, threads: u32) -> u32 {
    (ready / (2 * threads)).clamp(1, MAX_CHUNK)
}

/// The lowest `k` set bits of `bits`.
fn lowest_bits(bits: u64, k: u32) -> u64 {
    let mut rest = bits;
    for _ in 0..k {
        if rest == 0 {
            break;
        }
        rest &= rest - 1;
    }
    bits & !rest
}

/// Runs the system at track-local `local`, catching a panic and timing it when asked.
#[inline]
fn run_one(shared: &Shared, job: &Job, plan: &Plan, me: usize, local: usize, busy: &mut u64) {
    let id = plan.node(job.base + local);
    let start = if job.timed { shared.timer.raw() } else { 0 };
    // SAFETY: `id` is a system of the job's track whose predecessors have all finished (its
    // count reached 0, or it is a root), it was claimed by exactly one thread (one CAS clears
    // its ready bit, or one decrement reaches 0), and `Pool::run`'s caller made `job.run`
    // sound under exactly that ordering.
    let res = catch_unwind(AssertUnwindSafe(|| unsafe { (job.run)(job.ctx, id) }));
    if job.timed {
        let end = shared.timer.raw();
        *busy += end.saturating_sub(start);
        if job.record {
            let nanos = shared.timer.delta_as_nanos(start, end);
            shared.durations[id.index()].store(nanos, Ordering::Relaxed);
        }
    }
    if let Err(payload) = res {
        shared.record_panic(me, local, id, &*payload);
        drop_payload(payload);
    }
}

/// Drops a caught panic payload; a payload whose destructor panics in turn is leaked
/// instead, so containing a panic never unwinds a second time.
pub fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(again);
    }
}

#[cfg(test)]
mod tests {
    use super::{chunk_size, lowest_bits};

    #[test]
    fn lowest_bits_takes_the_lowest_set_bits() {
        assert_eq!(lowest_bits(0b1011_0110, 2), 0b0000_0110);
        assert_eq!(lowest_bits(0b1011_0110, 9), 0b1011_0110);
        assert_eq!(lowest_bits(0, 3), 0);
        assert_eq!(lowest_bits(u64::MAX, 8), 0xFF);
    }

    #[test]
    fn chunks_shrink_with_the_ready_count() {
        assert_eq!(chunk_size(64, 2), 8);
        assert_eq!(chunk_size(20, 2), 5);
        assert_eq!(chunk_size(3, 2), 1);
        assert_eq!(chunk_size(1, 8), 1);
    }
}
