//! Test support: a recording host over atomics, a seeded PRNG, and registries.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use laige_diag::{ManualClock, TickClock};
use laige_executor::{Executor, ExecutorOptions, SharedHost};
use laige_registry::{ComponentId, Registry, SystemDef, SystemId};

/// What a test system does, given the host and its own id.
pub type Run = fn(&Recorder, SystemId);

/// Does nothing.
pub fn empty(_: &Recorder, _: SystemId) {}

/// Spins for the system's `spin` iterations, so systems overlap in time.
pub fn busy(host: &Recorder, id: SystemId) {
    let mut x = 0u64;
    for i in 0..host.spin[id.index()] {
        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(u64::from(i)));
    }
    std::hint::black_box(x);
}

/// Takes exactly 1 ms on the host's manual clock (see [`Recorder::executor`]), whatever the
/// machine or valgrind does to real time.
pub fn millisecond(host: &Recorder, _: SystemId) {
    host.clock.advance(Duration::from_millis(1));
}

/// A host that stamps every run's start and end from one shared counter.
///
/// The stamps come from `fetch_add` on one atomic, whose modification order agrees with
/// happens-before: when the executor orders `a` before `b`, `end(a) < start(b)`.
pub struct Recorder {
    pub counter: AtomicU64,
    pub start: Vec<AtomicU64>,
    pub end: Vec<AtomicU64>,
    pub runs: Vec<AtomicU32>,
    pub spin: Vec<u32>,
    pub tick: AtomicU32,
    /// The time systems of this host take: only they advance it.
    pub clock: Arc<ManualClock>,
}

impl Recorder {
    pub fn new(systems: usize) -> Self {
        Self::with_spin(vec![0; systems])
    }

    pub fn with_spin(spin: Vec<u32>) -> Self {
        let systems = spin.len();
        Self {
            counter: AtomicU64::new(0),
            start: (0..systems).map(|_| AtomicU64::new(0)).collect(),
            end: (0..systems).map(|_| AtomicU64::new(0)).collect(),
            runs: (0..systems).map(|_| AtomicU32::new(0)).collect(),
            spin,
            tick: AtomicU32::new(0),
            clock: Arc::new(ManualClock::default()),
        }
    }

    /// An executor that times systems on this host's manual clock.
    pub fn executor(&self, options: ExecutorOptions) -> Executor {
        Executor::with_clock(options, TickClock::manual(self.clock.clone()))
    }

    pub fn start(&self, id: SystemId) -> u64 {
        self.start[id.index()].load(Ordering::Relaxed)
    }

    pub fn end(&self, id: SystemId) -> u64 {
        self.end[id.index()].load(Ordering::Relaxed)
    }

    pub fn runs(&self, id: SystemId) -> u32 {
        self.runs[id.index()].load(Ordering::Relaxed)
    }

    /// Whether the last runs of `a` and `b` overlapped in time.
    pub fn overlapped(&self, a: SystemId, b: SystemId) -> bool {
        self.start(a) < self.end(b) && self.start(b) < self.end(a)
    }
}

// SAFETY: the recorder only touches atomics, so any overlap of systems is sound.
unsafe impl SharedHost<Run> for Recorder {
    unsafe fn run_system(&self, id: SystemId, run: &Run) {
        let start = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        self.start[id.index()].store(start, Ordering::Relaxed);
        self.runs[id.index()].fetch_add(1, Ordering::Relaxed);
        run(self, id);
        let end = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        self.end[id.index()].store(end, Ordering::Relaxed);
    }
}

/// SplitMix64, for seeded random graphs.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

pub fn id(value: u32) -> SystemId {
    SystemId::new(value).unwrap()
}

pub fn component(value: u16) -> ComponentId {
    ComponentId::new(value).unwrap()
}

/// `s0`, `s1`, ...: leaked once per process, as registration wants `'static` names.
pub fn name(i: usize) -> &'static str {
    use std::sync::OnceLock;
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..256)
            .map(|i| &*Box::leak(format!("s{i}").into_boxed_str()))
            .collect()
    })[i]
}

/// `depends_on` specs are `'static` too: leaked, one per distinct spec.
pub fn leak(spec: String) -> &'static str {
    Box::leak(spec.into_boxed_str())
}

/// A registry of `n` systems running `run`, with no access and no dependencies.
pub fn plain_registry(n: usize, run: Run) -> Registry<Run> {
    let mut registry = Registry::new();
    for i in 0..n {
        registry
            .register(SystemDef::new(name(i), run).budget_ms(1.0))
            .unwrap();
    }
    registry
}

/// W3: `n` systems, each depending on the one before.
pub fn chain_registry(n: usize, run: Run) -> Registry<Run> {
    let mut registry = Registry::new();
    for i in 0..n {
        let deps = if i == 0 { "" } else { name(i - 1) };
        registry
            .register(SystemDef::new(name(i), run).budget_ms(1.0).depends_on(deps))
            .unwrap();
    }
    registry
}

/// What a random registry declared, to check the plan against.
pub struct RandomGraph {
    pub registry: Registry<Run>,
    /// `deps[i]` are the 0-based systems system `i` depends on.
    pub deps: Vec<Vec<usize>>,
}

impl RandomGraph {
    /// Whether systems `a` and `b` (0-based) conflict by declared access: the one rule
    /// (`SystemRecord::conflict_with`, checked against an entity-level oracle in
    /// laige-registry's tests), not a copy of it.
    pub fn conflict(&self, a: usize, b: usize) -> bool {
        let records = self.registry.records();
        records[a].conflict_with(&records[b], None).is_some()
    }
}

/// A random flat registry: 2 to `max` systems over 6 components, each component written
/// by at most one system (the flat rules refuse two writers), reads with p = 1/4, and up to
/// 2 `depends_on` edges to earlier systems. Every system runs `busy` for a random while.
pub fn random_graph(seed: u64, max: usize) -> (RandomGraph, Vec<u32>) {
    const COMPONENTS: u16 = 6;
    let mut rng = SplitMix64(seed);
    let n = 2 + rng.below(max as u64 - 1) as usize;
    let mut writes = vec![0u64; n];
    let mut reads = vec![0u64; n];
    for c in 0..COMPONENTS {
        if rng.chance(3, 4) {
            writes[rng.below(n as u64) as usize] |= 1 << c;
        }
    }
    for (i, read) in reads.iter_mut().enumerate() {
        for c in 0..COMPONENTS {
            if writes[i] & (1 << c) == 0 && rng.chance(1, 4) {
                *read |= 1 << c;
            }
        }
    }
    let mut deps = vec![Vec::new(); n];
    for (i, deps) in deps.iter_mut().enumerate().skip(1) {
        for _ in 0..rng.below(3) {
            let d = rng.below(i as u64) as usize;
            if !deps.contains(&d) {
                deps.push(d);
            }
        }
    }
    let mut registry = Registry::new();
    for c in 1..=COMPONENTS {
        registry.register_component(component(c));
    }
    for i in 0..n {
        let spec = deps[i]
            .iter()
            .map(|&d| name(d))
            .collect::<Vec<_>>()
            .join(", ");
        let mut def = SystemDef::new(name(i), busy as Run)
            .budget_ms(1.0)
            .depends_on(leak(spec));
        for c in 0..COMPONENTS {
            if writes[i] & (1 << c) != 0 {
                def = def.writes(component(c + 1));
            } else if reads[i] & (1 << c) != 0 {
                def = def.reads(component(c + 1));
            }
        }
        registry.register(def).unwrap();
    }
    let spin = (0..n).map(|_| rng.below(2000) as u32).collect();
    let graph = RandomGraph { registry, deps };
    (graph, spin)
}
