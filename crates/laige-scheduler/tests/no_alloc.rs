//! The flat front end's failure paths allocate nothing, a cycle included, up to the 24
//! steps a cycle holds inline; a longer cycle (at most 256 systems) moves to the heap once.
//!
//! Its own binary: the counting allocator counts per thread, and no tracing subscriber is
//! installed, so what is measured is the scheduler and the rate limiter.

use laige_registry::{Registry, SystemDef};
use laige_scheduler::ScheduleError;
use laige_testkit::{CountingAlloc, count_allocations};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

type Run = fn(&mut ());

fn noop(_: &mut ()) {}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

fn ring(n: usize) -> Registry<Run> {
    let mut registry = Registry::new();
    for i in 0..n {
        let def = SystemDef::new(leak(format!("Ring{i}")), noop as Run)
            .budget_ms(1.0)
            .depends_on(leak(format!("Ring{}", (i + 1) % n)));
        registry.register(def).unwrap();
    }
    registry
}

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
