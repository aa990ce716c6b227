//! W4 `build-256` and the worst case: registration plus scheduling and validation.
//!
//! Run with `cargo bench -p laige-scheduler --bench build`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use laige_registry::{ComponentId, Registry, SystemDef};

type Run = fn(&mut ());
fn noop(_: &mut ()) {}

/// The W4 graph seed (any fixed seed; recorded in docs/benchmarks.md).
const W4_SEED: u64 = 0x1F05_5EED;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// System names, leaked once so definitions can borrow them for `'static`.
fn names() -> &'static [&'static str] {
    let names: Vec<&'static str> = (0..256)
        .map(|i| &*Box::leak(format!("sys{i:03}").into_boxed_str()))
        .collect();
    Box::leak(names.into_boxed_slice())
}

/// Joins dependency names into a leaked spec.
fn spec(deps: &[usize], names: &[&'static str]) -> &'static str {
    let joined: Vec<&str> = deps.iter().map(|&d| names[d]).collect();
    Box::leak(joined.join(", ").into_boxed_str())
}

/// W4: 256 systems over 64 components, 1–4 distinct accesses each (write with p = 1/3),
/// 0–3 `depends_on` edges to earlier systems. With `single_writer`, a write to a component
/// that already has a writer becomes a read, so the flat registry's `double_writer` rule
/// passes and the whole pipeline runs to a usable schedule.
fn w4_defs(single_writer: bool) -> Vec<SystemDef<Run>> {
    let names = names();
    let mut rng = SplitMix64(W4_SEED);
    let mut written = [false; 64];
    (0..256)
        .map(|i| {
            let mut def = SystemDef::new(names[i], noop as Run).budget_ms(1.0);
            let mut taken = [false; 64];
            for _ in 0..1 + rng.below(4) {
                let c = loop {
                    let c = rng.below(64) as usize;
                    if !taken[c] {
                        break c;
                    }
                };
                taken[c] = true;
                let id = ComponentId::new(c as u16 + 1).unwrap();
                let write = rng.below(3) == 0 && !(single_writer && written[c]);
                written[c] |= write;
                def = if write { def.writes(id) } else { def.reads(id) };
            }
            if i > 0 {
                let mut deps = Vec::new();
                for _ in 0..rng.below(4) {
                    let d = rng.below(i as u64) as usize;
                    if !deps.contains(&d) {
                        deps.push(d);
                    }
                }
                def = def.depends_on(spec(&deps, names));
            }
            def
        })
        .collect()
}

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

fn build(defs: &[SystemDef<Run>], components: u16) -> bool {
    let mut registry = Registry::new();
    for c in 1..=components {
        registry.register_component(ComponentId::new(c).unwrap());
    }
    for def in defs {
        registry.register(def).expect("bench definitions are valid");
    }
    laige_scheduler::schedule(&registry).is_ok()
}

fn benches(c: &mut Criterion) {
    let w4 = w4_defs(false);
    let w4_valid = w4_defs(true);
    let worst = worst_case_defs();
    assert!(
        !build(&w4, 64),
        "W4 as specified has two writers of a component"
    );
    assert!(
        build(&w4_valid, 64),
        "the single-writer W4 variant schedules"
    );
    assert!(build(&worst, 256), "the worst case schedules");

    let mut group = c.benchmark_group("build");
    group.bench_function("w4-build-256", |b| b.iter(|| build(black_box(&w4), 64)));
    group.bench_function("w4-build-256-single-writer", |b| {
        b.iter(|| build(black_box(&w4_valid), 64))
    });
    group.bench_function("worst-256x16x256", |b| {
        b.iter(|| build(black_box(&worst), 256))
    });
    group.finish();
}

criterion_group!(build_benches, benches);
criterion_main!(build_benches);
