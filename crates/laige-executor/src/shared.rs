//! What the pool's threads share: the per-track job, the ready words, the counters, the
//! panic and span slots, allocated once when the pool starts (see `crate::pool` for the
//! protocol, `crate::work` for what a thread does inside a track).

use std::any::Any;

use laige_diag::TickClock;
use laige_registry::{MAX_SYSTEMS, SystemId};

use crate::batch::Batches;
use crate::error::{PANIC_MESSAGE_BYTES, PanicMessage};
use crate::idle::{Handle, NAP_AFTER_NANOS, Naps, OVERSUBSCRIBED_SPIN_NANOS};
use crate::order::PickOrder;
use crate::plan::{Plan, Positions, WORDS};
use crate::sync::{AtomicPtr, AtomicU32, AtomicU64, CachePadded, Liveness, Ordering};

/// "No panic" in a position slot.
pub(crate) const NO_PANIC: u32 = u32::MAX;

/// The most systems one claim takes. Larger chunks mean fewer contended RMWs for tiny
/// systems, but bind more systems to one thread when they turn out long.
pub(crate) const MAX_CHUNK: u32 = 8;

const TEXT_WORDS: usize = PANIC_MESSAGE_BYTES / 8;

/// One track run, as the threads see it. It lives on the caller's stack for the duration
/// of `Pool::run`; workers reach it through [`Shared::job`].
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
pub(crate) struct SpanSlot {
    pub(crate) start: AtomicU64,
    pub(crate) end: AtomicU64,
    pub(crate) thread: AtomicU32,
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
    pub(crate) spans: Box<[SpanSlot]>,
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

impl Shared {
    /// The state of a pool of `threads` threads (the caller included).
    pub(crate) fn new(threads: usize, timer: TickClock) -> Self {
        Shared {
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
        }
    }

    /// How long thread `me` idles before it naps (inside a track) or parks (between tracks).
    #[inline]
    pub(crate) fn spin_nanos(&self, me: usize) -> u64 {
        if (me as u32) < self.spinners {
            NAP_AFTER_NANOS
        } else {
            OVERSUBSCRIBED_SPIN_NANOS
        }
    }

    /// Deals `roots` out to the threads' ready words in contiguous blocks of positions,
    /// the lowest block to the caller, which starts on it at once.
    pub(crate) fn deal(&self, roots: &Positions, order: &PickOrder) {
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
    pub(crate) fn take_panic(&self) -> Option<(SystemId, PanicMessage)> {
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
pub(crate) fn cores(threads: usize) -> u32 {
    #[cfg(not(loom))]
    let cores = crate::sync::thread::available_parallelism().map_or(1, usize::from);
    #[cfg(loom)]
    let cores = threads;
    cores.min(threads) as u32
}

#[cfg(not(loom))]
pub(crate) fn spin_start(shared: &Shared) -> u64 {
    shared.clock.raw()
}

#[cfg(loom)]
pub(crate) fn spin_start(_: &Shared) -> u64 {
    0
}

/// The lowest `k` set bits of `bits`.
pub(crate) fn lowest_bits(bits: u64, k: u32) -> u64 {
    let mut rest = bits;
    for _ in 0..k {
        if rest == 0 {
            break;
        }
        rest &= rest - 1;
    }
    bits & !rest
}
