//! A counting global allocator: how many allocations this thread, or the whole process, made.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Every thread's allocations, for code that runs on worker threads too.
static ALL_THREADS: AtomicU64 = AtomicU64::new(0);

/// Forwards to the system allocator and counts `alloc`, `alloc_zeroed` and `realloc`
/// calls per thread, so tests running in parallel do not pollute each other's counts, and
/// over all threads ([`allocations_all_threads`]).
///
/// ```
/// #[global_allocator]
/// static ALLOC: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;
///
/// let (_, n) = laige_testkit::count_allocations(|| std::hint::black_box(vec![1u8]));
/// assert_eq!(n, 1);
/// let (_, n) = laige_testkit::count_allocations(|| std::hint::black_box(1 + 1));
/// assert_eq!(n, 0);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

fn bump() {
    // `try_with`: allocations during thread teardown must not panic.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    ALL_THREADS.fetch_add(1, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's own layout and pointer, so
// `System`'s guarantees carry over unchanged; counting touches only a thread-local `Cell`
// and a static atomic, neither of which allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: forwarded with the caller's layout, which the caller guarantees non-zero.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: `ptr` came from `System` with `layout`; the caller upholds `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations this thread has made so far (only counted where [`CountingAlloc`] is the
/// global allocator).
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Runs `f` and returns its result with the number of allocations it made on this thread.
pub fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = allocations();
    let out = f();
    (out, allocations() - before)
}

/// Allocations made by every thread of the process so far (only counted where
/// [`CountingAlloc`] is the global allocator). Other tests of the same binary running in
/// parallel count too, so use it in a binary with a single test.
pub fn allocations_all_threads() -> u64 {
    ALL_THREADS.load(Ordering::Relaxed)
}
