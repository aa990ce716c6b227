//! Proves `DepSpec::parse` (and displaying its errors) never touches the heap.
//!
//! A counting global allocator, per thread, forwards to `System`;
//! every spec is built before the counted region.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Write as _;
use std::hint::black_box;

use laige_depspec::DepSpec;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the slot may be gone while the thread is being torn down.
    let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
}

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the contract.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: our caller upholds `GlobalAlloc::alloc`'s contract; we pass it through as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: as for `alloc`: the caller's arguments are forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: `ptr` came from `System` (all our allocations do); arguments forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this `layout`; forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A `fmt::Write` sink that counts the bytes written and drops the text.
struct Sink {
    written: usize,
}

impl std::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.written += black_box(s).len();
        Ok(())
    }
}

#[test]
fn parse_never_allocates() {
    let seventeen = (0..17)
        .map(|i| format!("Dep{i:03}"))
        .collect::<Vec<_>>()
        .join(", ");
    let sixteen = (0..16)
        .map(|i| format!("Dep{i:03}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut dup_17th = sixteen.clone();
    dup_17th.push_str(", Dep003");
    let mib_token = "x".repeat(1 << 20);
    let mib_mixed = "a b\0é\t".repeat((1 << 20) / 7) + ", Z, Z";
    let specs: Vec<&str> = vec![
        "",
        " \t\r\n",
        "A",
        " Spawner ,Movement",
        "Bewegung, Kollision, 移動",
        "\u{a0}A, A\0B",
        &sixteen,
        "A, , B",
        "A,",
        ",A",
        "A, A",
        "移動, 移動",
        &seventeen,
        &dup_17th,
        &mib_token,
        &mib_mixed,
    ];
    let mut sink = Sink { written: 0 };

    // Warm up (first-use lazies in std, thread-locals), then count.
    for spec in &specs {
        let _ = black_box(DepSpec::parse(black_box(spec)));
    }
    let before = allocs();
    let (mut tokens, mut errors) = (0usize, 0usize);
    for spec in &specs {
        match black_box(DepSpec::parse(black_box(spec))) {
            Ok(deps) => {
                for token in &deps {
                    tokens += black_box(token).len();
                }
                tokens += deps.iter().filter(|t| deps.contains(t)).count();
            }
            Err(err) => {
                errors += 1;
                let _ = write!(sink, "{err} / {}", err.display_with(spec));
            }
        }
    }
    let counted = allocs() - before;

    assert_eq!(errors, 8, "every error kind exercised");
    assert!(tokens > 1 << 20 && sink.written > 0);
    assert_eq!(counted, 0, "DepSpec::parse allocated {counted} times");
    // The counter does see allocations on this thread.
    let probe = allocs();
    drop(black_box(vec![0u8; 8]));
    assert!(allocs() > probe, "the counting allocator is not counting");

    println!("depspec-zeroalloc specs={} allocs={counted}", specs.len());
}
