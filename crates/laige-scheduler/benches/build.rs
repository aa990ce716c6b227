//! W4 `build-256` and the worst case: registration plus scheduling and validation, to a
//! runnable schedule, beside W4's hand-rolled floor.
//!
//! Run with `cargo bench -p laige-scheduler --bench build`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_registry::{ComponentId, Registry, SystemDef};
use laige_scheduler::Layout;

#[path = "support/w4.rs"]
mod w4;
use w4::{Variant, floor, names, spec, w4_defs, w4_graph};

type Run = fn(&mut ());
fn noop(_: &mut ()) {}

/// 256 systems × 16 dependencies × 256 components: system i depends on the 16 systems
/// before it (or all of them), writes component i and reads 31 others.
fn worst_case_defs() -> Vec<SystemDef<Run>> {
    let names = names();
    (0..256usize)
        .map(|i| {
            let deps: Vec<usize> = (i.saturating_sub(16)..i).collect();
            let mut def = SystemDef::new(names[i], noop as Run)
                .budget_ms(1.0)
                .depends_on(spec(&deps, names))
                .writes(ComponentId::new(i as u16 + 1).unwrap());
            for k in 1..32 {
                def = def.reads(ComponentId::new(((i + k * 8) % 256) as u16 + 1).unwrap());
            }
            def
        })
        .collect()
}

/// Registers `defs` over `components` component types and schedules them, by the flat
/// rules or, with a layout, the declarative ones. Whether the schedule was built.
fn build(defs: &[SystemDef<Run>], components: u16, layout: Option<&Layout>) -> bool {
    let mut registry = Registry::new();
    for c in 1..=components {
        registry.register_component(ComponentId::new(c).unwrap());
    }
    for def in defs {
        registry.register(def).expect("bench definitions are valid");
    }
    match layout {
        None => laige_scheduler::schedule(&registry).is_ok(),
        Some(layout) => laige_scheduler::schedule_declared(&registry, layout).is_ok(),
    }
}

fn benches(c: &mut Criterion) {
    let graph = w4_graph();
    let layout = Layout::new().dag("Main", "W4", &["Update"], "Update");
    let w4 = w4_defs(&graph, noop as Run, Variant::Declared);
    let w4_valid = w4_defs(&graph, noop as Run, Variant::SingleWriter);
    let worst = worst_case_defs();
    assert!(
        !build(&w4_defs(&graph, noop as Run, Variant::Flat), 64, None),
        "W4 as specified has two writers of a component, which the flat rules refuse"
    );
    assert!(
        build(&w4, 64, Some(&layout)),
        "W4 with its after_weak edges schedules declaratively"
    );
    assert!(
        build(&w4_valid, 64, None),
        "the single-writer W4 variant schedules"
    );
    assert!(build(&worst, 256, None), "the worst case schedules");

    let mut group = c.benchmark_group("build");
    group.bench_function("w4-build-256", |b| {
        b.iter(|| build(black_box(&w4), 64, Some(&layout)))
    });
    group.bench_function("w4-build-256-flat-single-writer", |b| {
        b.iter(|| build(black_box(&w4_valid), 64, None))
    });
    group.bench_function("w4-hand-rolled-floor", |b| {
        b.iter(|| floor(black_box(&graph)))
    });
    group.bench_function("worst-256x16x256", |b| {
        b.iter(|| build(black_box(&worst), 256, None))
    });
    group.finish();
}

criterion_group!(build_benches, benches);
criterion_main!(build_benches);
