//! Batches: a parallel loop inside one system (`par_each`), run on the same pool.
//!
//! A system that splits its work into `count` batches calls [`run_batches`]. The batches
//! are a function of the data, never of the thread count; the pool only decides who runs
//! which, so the results are those of running them in order, whatever ran them.
//!
//! # The protocol
//!
//! One loop at a time is shared (the `owner` flag); a loop that finds it taken runs its
//! batches alone, in order. The owner:
//! 1. resets `next` and stores the job pointer (no helper is inside a loop, see 4);
//! 2. bumps the epoch and sets `open` in one releasing RMW on the state word, then wakes
//!    sleeping workers (best effort: the owner runs every batch nobody else takes);
//! 3. claims batches with `fetch_add` on `next` until they are all taken;
//! 4. clears `open`, then waits until `active == 0`, so no helper still runs a batch or
//!    reads the job.
//!
//! A helper (an idle worker, inside a track or between tracks) joins with a CAS that
//! increments `active` only while the loop is open, claims batches like the owner, and
//! leaves with a releasing decrement. This is the track handshake of `crate::pool` on a
//! word of its own (`crate::handshake`), and the same argument makes the stack pointer sound.
//!
//! A batch that panics does not unwind through the loop: every batch runs, the payload of
//! the lowest panicking batch is kept, and the owner resumes it once every helper left, so
//! the panic is the same for any thread count.

use std::any::Any;
#[cfg(not(loom))]
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::handshake::{EPOCH_ONE, OPEN, close_and_wait, join};
use crate::idle::Naps;
use crate::sync::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, CachePadded, Liveness, Mutex, Ordering,
    happens_after, happens_before,
};

/// One shared loop, on the owner's stack for the duration of [`Batches::run`].
#[repr(align(128))]
pub(crate) struct BatchJob {
    ctx: *const (),
    run: unsafe fn(*const (), u32),
    count: u32,
    alive: Liveness,
}

/// The lowest panicking batch of a loop and its payload.
type FirstPanic = Option<(u32, Box<dyn Any + Send>)>;

/// The pool's shared-loop slot.
pub(crate) struct Batches {
    owner: CachePadded<AtomicBool>,
    state: CachePadded<AtomicU64>,
    job: CachePadded<AtomicPtr<BatchJob>>,
    next: CachePadded<AtomicU32>,
    /// The open loop's batch count: a hint for helpers, read before they join.
    limit: AtomicU32,
    panic: Mutex<FirstPanic>,
}

impl Batches {
    pub(crate) fn new() -> Self {
        Self {
            owner: CachePadded(AtomicBool::new(false)),
            state: CachePadded(AtomicU64::new(0)),
            job: CachePadded(AtomicPtr::new(std::ptr::null_mut())),
            next: CachePadded(AtomicU32::new(0)),
            limit: AtomicU32::new(0),
            panic: Mutex::new(None),
        }
    }

    /// Whether a loop is open with batches left to claim (a relaxed hint).
    #[inline]
    pub(crate) fn wants_help(&self) -> bool {
        self.state.load(Ordering::Relaxed) & OPEN != 0
            && self.next.load(Ordering::Relaxed) < self.limit.load(Ordering::Relaxed)
    }

    /// Runs batches of the open loop, if there is one with batches left; returns whether it
    /// joined one.
    pub(crate) fn help(&self) -> bool {
        if !self.wants_help() {
            return false;
        }
        let current = self.state.load(Ordering::Relaxed);
        if !join(&self.state, current, |state| state & OPEN != 0) {
            return false;
        }
        happens_after(&*self.state);
        // SAFETY: the owner stored the job pointer before opening the loop we joined (our
        // acquire CAS read that release RMW or a later one of its release sequence), and it
        // keeps the job alive until it closed the loop and saw `active == 0`; we are counted
        // in `active` until the `fetch_sub` below.
        let job = unsafe { &*self.job.load(Ordering::Relaxed) };
        job.alive.touch();
        self.claim_all(job);
        job.alive.touch();
        happens_before(&*self.job);
        self.state.fetch_sub(1, Ordering::Release);
        true
    }

    /// Runs `job` on this thread and every helper that joins; returns after every batch ran.
    /// `wake` is called once the loop is open, to wake sleeping workers.
    ///
    /// # Safety
    ///
    /// Calling `job.run` with `job.ctx` must be sound from any thread, concurrently for
    /// different batches, until this returns.
    pub(crate) unsafe fn run(&self, job: &BatchJob, wake: impl FnOnce()) {
        if self.owner.swap(true, Ordering::Acquire) {
            // Another loop is shared right now (a nested or concurrent `par_each`): this one
            // runs alone, in order.
            run_alone(job);
            return;
        }
        happens_after(&*self.owner);
        // 1. No helper is inside a loop: the previous owner waited for `active == 0` before
        // it gave up the `owner` flag, which our acquire swap read.
        self.next.store(0, Ordering::Relaxed);
        self.limit.store(job.count, Ordering::Relaxed);
        self.job
            .store(std::ptr::from_ref(job).cast_mut(), Ordering::Relaxed);
        // 2. Publish: the release hands the stores above to every helper that joins.
        happens_before(&*self.state);
        self.state.fetch_add(EPOCH_ONE | OPEN, Ordering::Release);
        wake();
        // 3. Work.
        self.claim_all(job);
        // 4. Close, then wait for the joined helpers to leave; the acquire loads read their
        // releasing decrements, so everything their batches did happens before we return.
        close_and_wait(&self.state);
        happens_after(&*self.job);
        self.job.store(std::ptr::null_mut(), Ordering::Relaxed);
        job.alive.retire();
        let panic = self.panic.lock().ok().and_then(|mut it| it.take());
        happens_before(&*self.owner);
        self.owner.store(false, Ordering::Release);
        if let Some((_, payload)) = panic {
            resume_unwind(payload);
        }
    }

    /// Claims and runs batches of `job` until none is left.
    fn claim_all(&self, job: &BatchJob) {
        loop {
            let batch = self.next.fetch_add(1, Ordering::Relaxed);
            if batch >= job.count {
                return;
            }
            if let Err(payload) = run_caught(job, batch) {
                keep_lowest(&self.panic, batch, payload);
            }
        }
    }
}

/// Runs batch `batch` of `job`, catching a panic.
fn run_caught(job: &BatchJob, batch: u32) -> Result<(), Box<dyn Any + Send>> {
    // SAFETY: `Batches::run`'s caller made `job.run` sound from any thread for each batch,
    // and `next`'s `fetch_add` hands every batch to exactly one thread.
    catch_unwind(AssertUnwindSafe(|| unsafe { (job.run)(job.ctx, batch) }))
}

/// Keeps `payload` when `batch` is the lowest panicking batch so far.
#[cold]
fn keep_lowest(slot: &Mutex<FirstPanic>, batch: u32, payload: Box<dyn Any + Send>) {
    let Ok(mut first) = slot.lock() else {
        crate::error::drop_payload(payload);
        return;
    };
    // std's mutex is a futex that DRD does not see: say that the previous holder's section
    // happens before this one, or two batches panicking on two threads read as a race.
    happens_after(slot);
    match &*first {
        Some((lowest, _)) if *lowest < batch => crate::error::drop_payload(payload),
        _ => {
            if let Some((_, old)) = first.replace((batch, payload)) {
                crate::error::drop_payload(old);
            }
        }
    }
    happens_before(slot);
}

/// Runs every batch of `job` on this thread, in order; then resumes the lowest panic.
fn run_alone(job: &BatchJob) {
    let mut first: FirstPanic = None;
    for batch in 0..job.count {
        if let Err(payload) = run_caught(job, batch) {
            match first {
                None => first = Some((batch, payload)),
                Some(_) => crate::error::drop_payload(payload),
            }
        }
    }
    if let Some((_, payload)) = first {
        resume_unwind(payload);
    }
}

#[cfg(not(loom))]
thread_local! {
    /// The pool whose thread this is: set for a worker's whole life, and for the calling
    /// thread while it runs a track.
    static CURRENT: Cell<(*const Batches, *const Naps)> =
        const { Cell::new((std::ptr::null(), std::ptr::null())) };
}

/// Makes `shared` the current thread's pool until the guard drops.
pub(crate) struct CurrentPool {
    #[cfg(not(loom))]
    previous: (*const Batches, *const Naps),
}

impl CurrentPool {
    /// Sets a pool's shared-loop slot and naps as this thread's. Both must outlive the guard.
    pub(crate) fn enter(batches: &Batches, naps: &Naps) -> Self {
        #[cfg(not(loom))]
        {
            let current = (std::ptr::from_ref(batches), std::ptr::from_ref(naps));
            let previous = CURRENT.with(|it| it.replace(current));
            Self { previous }
        }
        #[cfg(loom)]
        {
            let _ = (batches, naps);
            Self {}
        }
    }
}

impl Drop for CurrentPool {
    fn drop(&mut self) {
        #[cfg(not(loom))]
        CURRENT.with(|it| it.set(self.previous));
    }
}

/// Runs `f(0)`, `f(1)`, ..., `f(count - 1)`: on the pool of the executor that runs the
/// current system, where idle threads help, or in order on this thread when there is none
/// (the sequential runner, a context built by hand).
///
/// Which thread runs a batch is up to the pool; `f` must make the result independent of
/// that (each batch writes only what belongs to it). Every batch runs even when one panics;
/// then the lowest panicking batch's panic resumes here. Allocates nothing.
pub fn run_batches<F: Fn(u32) + Sync>(count: u32, f: F) {
    let job = BatchJob {
        ctx: std::ptr::from_ref(&f).cast(),
        run: run_erased::<F>,
        count,
        alive: Liveness::default(),
    };
    #[cfg(not(loom))]
    let (batches, naps) = CURRENT.with(Cell::get);
    #[cfg(loom)]
    let (batches, naps): (*const Batches, *const Naps) = (std::ptr::null(), std::ptr::null());
    if count < 2 || batches.is_null() || naps.is_null() {
        run_alone(&job);
        return;
    }
    // SAFETY: `CURRENT` holds a pool's parts only while the pool is alive: a worker's own
    // (its thread holds an `Arc` of it), or the executor's for the duration of `run_track` on
    // the calling thread (the guard restores the previous value before `run_track` returns).
    let (batches, naps) = unsafe { (&*batches, &*naps) };
    // SAFETY: `f` is `Sync` and outlives the call, and `run_erased::<F>` matches `ctx`.
    unsafe { batches.run(&job, || naps.wake_helpers()) };
}

/// Runs batch `batch` through an erased `&F`.
///
/// # Safety
///
/// `ctx` points to a live `F`.
unsafe fn run_erased<F: Fn(u32) + Sync>(ctx: *const (), batch: u32) {
    // SAFETY: `run_batches` made `ctx` from an `&F` that outlives the loop.
    let f = unsafe { &*ctx.cast::<F>() };
    f(batch);
}

#[cfg(all(test, loom))]
pub(crate) fn loom_job<F: Fn(u32) + Sync>(count: u32, f: &F) -> BatchJob {
    BatchJob {
        ctx: std::ptr::from_ref(f).cast(),
        run: run_erased::<F>,
        count,
        alive: Liveness::default(),
    }
}
