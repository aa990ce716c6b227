//! Proves `DepSpec::parse` (and displaying its errors) never touches the heap.
//!
//! The shared counting allocator (`laige-testkit`, per thread) forwards to `System`;
//! every spec is built before the counted region.

use std::fmt::Write as _;
use std::hint::black_box;

use laige_depspec::DepSpec;

#[global_allocator]
static GLOBAL: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

fn allocs() -> u64 {
    laige_testkit::allocations()
}

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
