//! Contract §8.2 test 23 `RegistrationPerformsNoHeapAllocation` (§7.4 registry window):
//! once the registry exists, 32 registrations (one declared access each) and a read-back
//! allocate nothing. Its own binary, so the counting allocator sees only this test.

use laige_registry::{Budget, ComponentId, Registry, SystemDef};
use laige_testkit::{CountingAlloc, count_allocations};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

type Run = fn(&mut u64);

fn tick(counter: &mut u64) {
    *counter += 1;
}

const REGISTRATIONS: usize = 32;

fn component(i: usize) -> ComponentId {
    ComponentId::from_index(i).expect("fewer than 256 components")
}

/// A registry with components 1..=32 registered (allocation here is fine).
fn registry() -> Registry<Run> {
    let mut registry = Registry::new();
    for i in 0..REGISTRATIONS {
        registry.register_component(component(i));
    }
    registry
}

/// Definition `i`: system `Sys{i}`, writing component i + 1 (even i) or reading it (odd i).
fn def(names: &[&'static str], i: usize) -> SystemDef<Run> {
    let def = SystemDef::new(names[i], tick as Run).budget(Budget::from_millis(1));
    if i.is_multiple_of(2) {
        def.writes(component(i))
    } else {
        def.reads(component(i))
    }
}

#[test]
fn registration_performs_no_heap_allocation() {
    // Names are made before the window: only registration is measured.
    let names: Vec<&'static str> = (0..REGISTRATIONS)
        .map(|i| &*Box::leak(format!("Sys{i:02}").into_boxed_str()))
        .collect();

    // Warm-up: a throwaway registry walks the same path once.
    let mut warm = registry();
    for i in 0..REGISTRATIONS {
        warm.register(def(&names, i)).unwrap();
    }

    let mut registry = registry();
    let (last, allocs) = count_allocations(|| {
        for i in 0..REGISTRATIONS {
            registry.register(def(&names, i)).unwrap();
        }
        let last = ComponentId::from_index(REGISTRATIONS - 1).unwrap();
        let id = registry.find(names[REGISTRATIONS - 1]).unwrap();
        let record = registry.get(id).unwrap();
        (record.id().get(), record.name(), record.declares_read(last))
    });
    println!("registry-zeroalloc registrations={REGISTRATIONS} allocs={allocs}");

    assert_eq!(last, (32, "Sys31", true));
    assert_eq!(registry.len(), REGISTRATIONS);
    assert_eq!(allocs, 0);
}

#[test]
fn counter_sees_allocations() {
    // The window above can fail: an allocation inside it is counted.
    let (_, allocs) = count_allocations(|| std::hint::black_box(Box::new(1u8)));
    assert_eq!(allocs, 1);
}
