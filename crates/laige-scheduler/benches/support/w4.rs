//! W4 `build-256` (`../shared/bench/workloads.md`): the seeded random graph, the
//! definitions a user registers to make it runnable, and the hand-rolled floor.
//!
//! Shared by `laige-scheduler/benches/build.rs` (the bare crates) and
//! `laige-sim/benches/game_tick.rs` (the World, beside the floor), which include it by path.
#![allow(dead_code)]

use std::hint::black_box;

use laige_registry::{ComponentId, SystemDef};

/// The W4 graph seed (any fixed seed; recorded in docs/benchmarks.md).
pub const W4_SEED: u64 = 0x1F05_5EED;
/// Systems in the graph.
pub const SYSTEMS: usize = 256;
/// Component types in the graph.
pub const COMPONENTS: usize = 64;

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

/// One system of the graph: its accesses `(component index, write)`, its `depends_on`
/// edges and the `after_weak` edges that make the declarative build runnable (all to
/// earlier systems, by index).
#[derive(Clone, Debug, Default)]
pub struct W4System {
    pub accesses: Vec<(usize, bool)>,
    pub deps: Vec<usize>,
    pub weak: Vec<usize>,
}

/// 256 systems over 64 components, 1–4 distinct accesses each (write with p = 1/3),
/// 0–3 `depends_on` edges to earlier systems; then, in registration order, an `after_weak`
/// edge to every earlier system it conflicts with (two writers, or a reader and a writer,
/// of one component) and is not yet ordered after: the pairs the declarative rules would
/// refuse.
pub fn w4_graph() -> Vec<W4System> {
    let mut rng = SplitMix64(W4_SEED);
    let mut graph: Vec<W4System> = Vec::with_capacity(SYSTEMS);
    for i in 0..SYSTEMS {
        let mut system = W4System::default();
        let mut taken = [false; COMPONENTS];
        for _ in 0..1 + rng.below(4) {
            let c = loop {
                let c = rng.below(COMPONENTS as u64) as usize;
                if !taken[c] {
                    break c;
                }
            };
            taken[c] = true;
            system.accesses.push((c, rng.below(3) == 0));
        }
        if i > 0 {
            for _ in 0..rng.below(4) {
                let d = rng.below(i as u64) as usize;
                if !system.deps.contains(&d) {
                    system.deps.push(d);
                }
            }
        }
        graph.push(system);
    }
    add_weak_edges(&mut graph);
    graph
}

/// Whether `a` and `b` write a component the other reads or writes.
pub fn conflicts(a: &W4System, b: &W4System) -> bool {
    a.accesses
        .iter()
        .any(|&(c, wa)| b.accesses.iter().any(|&(d, wb)| c == d && (wa || wb)))
}

/// Setup, not timed: reachability as 256-bit sets, grown in registration order.
fn add_weak_edges(graph: &mut [W4System]) {
    let mut reach = vec![[0u64; SYSTEMS / 64]; graph.len()];
    for i in 0..graph.len() {
        let mut mine = [0u64; SYSTEMS / 64];
        for &d in &graph[i].deps {
            union(&mut mine, &reach[d], d);
        }
        // Latest first: an edge to a late system orders it after more of the others.
        for j in (0..i).rev() {
            let ordered = mine[j / 64] >> (j % 64) & 1 == 1;
            if !ordered && conflicts(&graph[i], &graph[j]) {
                graph[i].weak.push(j);
                let from = reach[j];
                union(&mut mine, &from, j);
            }
        }
        graph[i].weak.reverse();
        reach[i] = mine;
    }
}

fn union(into: &mut [u64; SYSTEMS / 64], from: &[u64; SYSTEMS / 64], also: usize) {
    for (a, b) in into.iter_mut().zip(from) {
        *a |= b;
    }
    into[also / 64] |= 1 << (also % 64);
}

/// System names, leaked once so definitions can borrow them for `'static`.
pub fn names() -> &'static [&'static str] {
    let names: Vec<&'static str> = (0..SYSTEMS)
        .map(|i| &*Box::leak(format!("sys{i:03}").into_boxed_str()))
        .collect();
    Box::leak(names.into_boxed_slice())
}

/// Joins names into a leaked spec.
pub fn spec(systems: &[usize], names: &[&'static str]) -> &'static str {
    let joined: Vec<&str> = systems.iter().map(|&d| names[d]).collect();
    Box::leak(joined.join(", ").into_boxed_str())
}

/// The component of index `c`: ids 1..=64, in registration order.
pub fn component(c: usize) -> ComponentId {
    ComponentId::new(c as u16 + 1).expect("below the id limit")
}

/// How the definitions are made runnable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// As specified, for the flat rules: ends at `double_writer`.
    Flat,
    /// The flat rules with every write to an already-written component turned into a read.
    SingleWriter,
    /// The declarative rules with the `after_weak` edges: runnable, as workloads.md asks.
    Declared,
}

/// The 256 definitions of `graph` in `variant`, each running `run`.
pub fn w4_defs<R: Copy>(graph: &[W4System], run: R, variant: Variant) -> Vec<SystemDef<R>> {
    let names = names();
    let mut written = [false; COMPONENTS];
    graph
        .iter()
        .enumerate()
        .map(|(i, system)| {
            let mut def = SystemDef::new(names[i], run).budget_ms(1.0);
            for &(c, write) in &system.accesses {
                let write = write && !(variant == Variant::SingleWriter && written[c]);
                written[c] |= write;
                def = if write {
                    def.writes(component(c))
                } else {
                    def.reads(component(c))
                };
            }
            if !system.deps.is_empty() {
                def = def.depends_on(spec(&system.deps, names));
            }
            if variant == Variant::Declared && !system.weak.is_empty() {
                def = def.after_weak(spec(&system.weak, names));
            }
            def
        })
        .collect()
}

/// What the floor computes: boxed closures, access masks, predecessor counts and
/// successor lists.
pub struct Floor {
    pub systems: Vec<Box<dyn FnMut()>>,
    pub reads: Vec<u64>,
    pub writes: Vec<u64>,
    pub pred_count: Vec<u32>,
    pub succs: Vec<Vec<u16>>,
}

/// The hand-rolled floor of workloads.md: box 256 closures, compute each system's access
/// bitmasks, and its predecessor count and successor list from the explicit edges and from
/// every conflicting pair (earlier first).
pub fn floor(graph: &[W4System]) -> Floor {
    let n = graph.len();
    let mut floor = Floor {
        systems: Vec::with_capacity(n),
        reads: vec![0; n],
        writes: vec![0; n],
        pred_count: vec![0; n],
        succs: vec![Vec::new(); n],
    };
    for (i, system) in graph.iter().enumerate() {
        floor.systems.push(Box::new(|| {}));
        for &(c, write) in &system.accesses {
            if write {
                floor.writes[i] |= 1 << c;
            } else {
                floor.reads[i] |= 1 << c;
            }
        }
        let mut preds = [0u64; SYSTEMS / 64];
        for &d in &system.deps {
            preds[d / 64] |= 1 << (d % 64);
        }
        let (r, w) = (floor.reads[i], floor.writes[i]);
        for j in 0..i {
            if w & (floor.reads[j] | floor.writes[j]) != 0 || floor.writes[j] & r != 0 {
                preds[j / 64] |= 1 << (j % 64);
            }
        }
        for (word, bits) in preds.iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                let j = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                floor.succs[j].push(i as u16);
                floor.pred_count[i] += 1;
            }
        }
    }
    black_box(floor)
}
