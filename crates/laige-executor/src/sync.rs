//! The synchronisation primitives the pool is built on, from `std` or, under `--cfg loom`,
//! from `loom`, so the model checker explores the very code that ships.
//!
//! Everything the workers share goes through this module: atomics, `Arc`, threads, parking
//! and the spin hint. Code outside it never names `std::sync::atomic` directly.

#[cfg(loom)]
pub(crate) use loom::{
    hint::spin_loop,
    sync::Arc,
    sync::Mutex,
    sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering, fence},
    thread,
};

#[cfg(not(loom))]
pub(crate) use std::{
    hint::spin_loop,
    sync::Arc,
    sync::Mutex,
    sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering, fence},
    thread,
};

/// Keeps a value on its own cache line (128 bytes: two lines, for the adjacent-line
/// prefetcher), so threads hammering one counter do not slow down readers of its neighbour.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> std::ops::Deref for CachePadded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// How many spin iterations pass between two `yield_now` calls while a thread waits.
#[cfg(not(loom))]
pub(crate) const SPINS_PER_YIELD: u32 = 64;

/// Under loom every spin is a scheduling point already; yield at once to keep models small.
#[cfg(loom)]
pub(crate) const SPINS_PER_YIELD: u32 = 1;

/// A waiting thread's patience: spins with [`spin_loop`], and yields its core every
/// [`SPINS_PER_YIELD`] spins so a descheduled thread that holds the work gets to run.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    spins: u32,
}

impl Backoff {
    /// Waits a little.
    #[inline]
    pub(crate) fn snooze(&mut self) {
        self.spins = self.spins.wrapping_add(1);
        if self.spins.is_multiple_of(SPINS_PER_YIELD) {
            thread::yield_now();
        } else {
            spin_loop();
        }
    }

    /// How many times [`Backoff::snooze`] was called since the last reset.
    pub(crate) fn spins(&self) -> u32 {
        self.spins
    }

    /// Starts over.
    pub(crate) fn reset(&mut self) {
        self.spins = 0;
    }
}

/// Marks the lifetime of a value that threads borrow through a raw pointer (the job on the
/// caller's stack). Free in normal builds; under loom, a cell that workers read while they
/// use the job and the owner writes when the job dies, so loom reports any worker access
/// that is not ordered before the end of [`Pool::run`](crate::pool::Pool::run).
#[derive(Debug, Default)]
pub(crate) struct Liveness {
    #[cfg(loom)]
    cell: loom::cell::UnsafeCell<()>,
}

impl Liveness {
    /// A borrower still uses the value.
    #[inline]
    pub(crate) fn touch(&self) {
        #[cfg(loom)]
        self.cell.with(|_| ());
    }

    /// The owner is done with the value: every borrower must have finished.
    #[inline]
    pub(crate) fn retire(&self) {
        #[cfg(loom)]
        self.cell.with_mut(|_| ());
    }
}

/// Tells valgrind's DRD and Helgrind that what this thread did so far happens before
/// whatever a thread does after a matching [`happens_after`] on the same address.
///
/// The pool's happens-before edges come from atomics, which those tools do not model; these
/// annotations (client requests, see `valgrind/drd.h`) describe them. Compiled into debug
/// builds only, where they cost a few instructions and do nothing outside valgrind; not
/// under loom or Miri, which cannot run inline assembly (and model atomics themselves).
#[inline]
pub(crate) fn happens_before<T>(addr: &T) {
    valgrind::client_request(valgrind::HAPPENS_BEFORE, std::ptr::from_ref(addr).addr());
}

/// The receiving end of [`happens_before`].
#[inline]
pub(crate) fn happens_after<T>(addr: &T) {
    valgrind::client_request(valgrind::HAPPENS_AFTER, std::ptr::from_ref(addr).addr());
}

mod valgrind {
    /// `VG_USERREQ__DRD_ANNOTATE_HAPPENS_BEFORE` (Helgrind's `USERSO_SEND_PRE`).
    pub(super) const HAPPENS_BEFORE: u64 = 0x4847_0000 + 256 + 33;
    /// `VG_USERREQ__DRD_ANNOTATE_HAPPENS_AFTER` (Helgrind's `USERSO_RECV_POST`).
    pub(super) const HAPPENS_AFTER: u64 = 0x4847_0000 + 256 + 34;

    #[cfg(all(debug_assertions, target_arch = "x86_64", not(loom), not(miri)))]
    #[inline]
    pub(super) fn client_request(request: u64, arg: usize) {
        let args: [u64; 6] = [request, arg as u64, 0, 0, 0, 0];
        // SAFETY: valgrind's amd64 "special instruction" sequence. Natively it changes
        // nothing: rotating rdi by 3 + 13 + 61 + 51 = 128 bits restores it, `xchg rbx, rbx`
        // swaps a register with itself, and rdx gets back the default we passed in (the
        // rotations only touch flags, which are not declared preserved). Under valgrind
        // it reads the six words of `args`, which live across the asm block.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") 0u64 => _,
                options(nostack),
            );
        }
    }

    #[cfg(not(all(debug_assertions, target_arch = "x86_64", not(loom), not(miri))))]
    #[inline(always)]
    pub(super) fn client_request(_: u64, _: usize) {}
}
