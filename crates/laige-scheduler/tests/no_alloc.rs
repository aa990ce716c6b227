//! The flat front end's failure paths allocate nothing, a cycle included, up to the 24
//! steps a cycle holds inline; a longer cycle (at most 256 systems) moves to the heap once.
//!
//! Its own binary: the counting allocator counts per thread, and no tracing subscriber is
//! installed, so what is measured is the scheduler and the rate limiter.

#[path = "support/ring.rs"]
mod support;

use laige_registry::Registry;
use laige_scheduler::ScheduleError;
use laige_testkit::{CountingAlloc, count_allocations};
use support::{Run, ring};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Schedules `registry` once to warm up, then counts the allocations of a second attempt.
fn cycle_allocations(registry: &Registry<Run>) -> (usize, u64) {
    let warm = laige_scheduler::schedule(registry).unwrap_err();
    drop(warm);
    let (len, allocs) = count_allocations(|| match laige_scheduler::schedule(registry) {
        Err(ScheduleError::DependencyCycle(cycle)) => cycle.len(),
        _ => 0,
    });
    (len, allocs)
}

#[test]
fn cycles_up_to_24_systems_allocate_nothing() {
    for n in [1, 2, 24] {
        assert_eq!(cycle_allocations(&ring(n)), (n, 0), "a ring of {n}");
    }
    let (len, allocs) = cycle_allocations(&ring(25));
    assert_eq!((len, allocs), (25, 1), "past 24 steps, one allocation");
}
