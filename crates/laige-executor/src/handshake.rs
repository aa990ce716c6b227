//! The join/close handshake on a state word, shared by the per-track protocol
//! (`crate::pool`) and the shared loop of a `par_each` (`crate::batch`), each on a word of
//! its own.
//!
//! Bits 0..16 count the threads inside (`active`), bit 16 says the word is open for joining,
//! bit 17 (tracks only) asks the workers to exit, and bits 32..64 hold the epoch, bumped once
//! per opening. Joining and closing are RMWs on the same word, so a thread either joined
//! before the close (and the closer waits for it) or sees the word closed (and stays out).

use crate::sync::{AtomicU64, Backoff, Ordering};

pub(crate) const ACTIVE_MASK: u64 = 0xFFFF;
pub(crate) const OPEN: u64 = 1 << 16;
pub(crate) const SHUTDOWN: u64 = 1 << 17;
pub(crate) const EPOCH_SHIFT: u32 = 32;
pub(crate) const EPOCH_ONE: u64 = 1 << EPOCH_SHIFT;

/// Joins `state` (counts the calling thread in `active`, with acquire) while `admits` holds
/// for its value, starting from `current`, a recent load; returns whether it joined.
#[inline]
pub(crate) fn join(state: &AtomicU64, mut current: u64, admits: impl Fn(u64) -> bool) -> bool {
    loop {
        if !admits(current) {
            return false;
        }
        match state.compare_exchange_weak(
            current,
            current + 1,
            Ordering::Acquire,
            Ordering::Relaxed,
        ) {
            Ok(_) => return true,
            Err(now) => current = now,
        }
    }
}

/// Clears `open`, then waits until no thread is inside; the acquire loads read the leavers'
/// releasing decrements, so everything they did happens before this returns.
pub(crate) fn close_and_wait(state: &AtomicU64) {
    state.fetch_and(!OPEN, Ordering::AcqRel);
    let mut backoff = Backoff::default();
    while state.load(Ordering::Acquire) & ACTIVE_MASK != 0 {
        backoff.snooze();
    }
}
