//! Naps for the calling thread when it idles inside a track, and the wake-ups of workers
//! that left a track to sleep (ADR 0013): bounded CPU burn while another thread runs a long
//! system.
//!
//! The caller, when it has found nothing to run for [`NAP_AFTER_NANOS`], sleeps in naps of at most
//! [`NAP_NANOS`], re-checking for work between them. Whoever ends the track (brings
//! `remaining` to 0) wakes the nappers with a Dekker handshake, so the end of a track never
//! waits for a nap to run out; whoever publishes new ready systems wakes them on a best-effort
//! read. A missed wake-up costs at most one nap of latency, never correctness: a nap is only
//! a pause in a loop that re-checks everything.
//!
//! The calling thread naps too: each track's job carries its handle, so whoever ends the
//! track can wake it. Under loom there are no naps: `park_timeout` has no model, and
//! spinning covers the same interleavings.

#[cfg(not(loom))]
use std::sync::OnceLock;
#[cfg(not(loom))]
use std::time::Duration;

use crate::sync::{AtomicBool, AtomicU32, AtomicU64, Ordering, fence};

/// A thread to wake: always std's (the caller's handle comes from `std::thread::current`,
/// under loom too, where nobody naps).
pub(crate) type Handle = std::thread::Thread;

/// How long a thread that has a core of its own idles inside a track before it naps.
pub(crate) const NAP_AFTER_NANOS: u64 = 100_000;

/// How long a thread beyond the machine's core count idles before it naps or parks: it can
/// only spin on a core some other thread needs, so it barely spins at all.
pub(crate) const OVERSUBSCRIBED_SPIN_NANOS: u64 = 2_000;

/// The longest nap. Every way work reaches a napper wakes it behind a `SeqCst` fence (the
/// end of a track, newly ready systems, a shared loop), so the timeout is only a backstop.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) const NAP_NANOS: u64 = 250_000;

/// Per thread: whether it naps right now, and its handle for waking it.
#[derive(Default)]
pub(crate) struct NapSlot {
    napping: AtomicBool,
    /// Whether the worker parked between tracks (`crate::pool`'s wait loop).
    sleeping: AtomicBool,
    #[cfg(not(loom))]
    thread: OnceLock<Handle>,
}

/// The pool's nap bookkeeping: one slot per thread, index 0 the caller (whose handle comes
/// with each track's job, since the executor may move between threads).
pub(crate) struct Naps {
    slots: Box<[NapSlot]>,
    /// How many threads nap right now: publishers read it before looking at the slots.
    napping: AtomicU32,
    /// Naps taken since the pool started.
    taken: AtomicU64,
}

impl Naps {
    pub(crate) fn new(threads: usize) -> Self {
        Self {
            slots: (0..threads).map(|_| NapSlot::default()).collect(),
            napping: AtomicU32::new(0),
            taken: AtomicU64::new(0),
        }
    }

    /// Records the calling thread as worker `me`, so others can wake it. Called once by
    /// each worker as it starts.
    pub(crate) fn register_current(&self, me: usize) {
        #[cfg(not(loom))]
        {
            let slot = &self.slots[me];
            let _ = slot.thread.set(std::thread::current());
            // `OnceLock` publishes the handle with its own atomics, which DRD cannot see.
            crate::sync::happens_before(&slot.thread);
        }
        #[cfg(loom)]
        let _ = me;
    }

    /// Naps for at most [`NAP_NANOS`] unless `still_idle` (checked after announcing the
    /// nap) says work or the end of the track arrived meanwhile.
    pub(crate) fn nap(&self, me: usize, still_idle: impl Fn() -> bool) {
        let slot = &self.slots[me];
        slot.napping.store(true, Ordering::Relaxed);
        self.napping.fetch_add(1, Ordering::Relaxed);
        // Dekker with `wake_all`: we store `napping` then load the track state, the ender
        // stores `remaining == 0` then loads `napping`, a `SeqCst` fence between each pair;
        // either we see the end here or it sees us napping and unparks us (a token that
        // arrives before the park is kept).
        fence(Ordering::SeqCst);
        if still_idle() {
            self.taken.fetch_add(1, Ordering::Relaxed);
            #[cfg(not(loom))]
            std::thread::park_timeout(Duration::from_nanos(NAP_NANOS));
        }
        self.napping.fetch_sub(1, Ordering::Relaxed);
        slot.napping.store(false, Ordering::Relaxed);
    }

    /// Wakes every napping thread; the calling thread of this function just ended the
    /// track, whose caller is `caller`.
    pub(crate) fn wake_all(&self, caller: &Handle) {
        fence(Ordering::SeqCst);
        self.unpark_nappers(u32::MAX, Some(caller));
    }

    /// Wakes up to `ready` napping threads after `ready` systems became ready. The `SeqCst`
    /// fence pairs with the one in [`Naps::nap`] (Dekker: the publisher stores the ready bits
    /// then loads `napping`, the napper stores `napping` then loads the ready bits), so a
    /// napper either sees the new systems or is woken; waking no more threads than there
    /// are systems keeps a crowd of idle threads from all waking for one system.
    ///
    /// Workers that left the track to sleep (`crate::pool`'s wait loop, `sleeping`) count as
    /// nappers here: the same fence pairs with theirs, and they rejoin the track they left.
    pub(crate) fn wake_for(&self, ready: u32, caller: &Handle) {
        fence(Ordering::SeqCst);
        let mut left = self.unpark_nappers(ready, Some(caller));
        for me in 1..self.slots.len() {
            if left == 0 {
                return;
            }
            let sleeping = &self.slots[me].sleeping;
            if sleeping.load(Ordering::Relaxed) && sleeping.swap(false, Ordering::Relaxed) {
                self.unpark(me);
                left -= 1;
            }
        }
    }

    /// Counts a worker leaving a track to sleep as a nap ([`Naps::taken`]).
    pub(crate) fn count_sleep_in_track(&self) {
        self.taken.fetch_add(1, Ordering::Relaxed);
    }

    /// Unparks worker `me` (not the calling thread, 0), once it registered.
    pub(crate) fn unpark(&self, me: usize) {
        #[cfg(not(loom))]
        if let Some(thread) = self.slots[me].thread.get() {
            crate::sync::happens_after(&self.slots[me].thread);
            thread.unpark();
        }
        #[cfg(loom)]
        let _ = me;
    }

    /// Whether worker `me` parked between tracks: it stores `true` before it parks, and
    /// whoever unparks it swaps it back.
    pub(crate) fn sleeping(&self, me: usize) -> &AtomicBool {
        &self.slots[me].sleeping
    }

    /// Wakes the workers that sleep between tracks or nap inside one, so they help with the
    /// shared loop just opened (`crate::batch`). The fence pairs with the sleeper's and the
    /// napper's; still, this is best effort for correctness: the loop's owner runs what
    /// nobody takes. The calling thread is not woken: its handle comes with a track.
    pub(crate) fn wake_helpers(&self) {
        fence(Ordering::SeqCst);
        for me in 1..self.slots.len() {
            let sleeping = &self.slots[me].sleeping;
            if sleeping.load(Ordering::Relaxed) && sleeping.swap(false, Ordering::Relaxed) {
                self.unpark(me);
            }
        }
        self.unpark_nappers(u32::MAX, None);
    }

    /// Naps taken since the pool started.
    pub(crate) fn taken(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }

    /// Unparks up to `limit` napping threads, lowest index first; the calling thread (0)
    /// only when its handle `caller` is given. The caller of this issued the `SeqCst` fence
    /// that pairs with the napper's, so a zero `napping` count means nobody to wake.
    /// Returns how many of `limit` are left.
    fn unpark_nappers(&self, limit: u32, caller: Option<&Handle>) -> u32 {
        if self.napping.load(Ordering::Relaxed) == 0 {
            return limit;
        }
        let mut left = limit;
        for (me, slot) in self.slots.iter().enumerate() {
            if left == 0 {
                return 0;
            }
            if !slot.napping.load(Ordering::Relaxed) {
                continue;
            }
            match (me, caller) {
                (0, None) => continue,
                #[cfg(not(loom))]
                (0, Some(caller)) => caller.unpark(),
                _ => self.unpark(me),
            }
            left -= 1;
        }
        left
    }
}
