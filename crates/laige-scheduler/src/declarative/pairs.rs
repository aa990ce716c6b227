//! Which pairs each declarative pass looks at: for a system, the later (or, for the
//! same-phase check, earlier) systems whose pair with it can add an edge or fail a check,
//! found by set algebra.
//!
//! Each pass (derived edges, the same-phase check, the DAG check) keeps its pair test as it
//! is and asks here only which systems to pair with each one, in ascending order, so edges
//! and the first error come out as a scan of every pair gives them. Every set here holds at
//! least the pairs that test can act on: it is built from the same access sets, transposed
//! per component ([`Accessors`]), so the work is a few set unions per system instead of one
//! test per pair. [`Pairs::all`] (every later or earlier system) is the scan itself, which
//! the tests compare against.

use laige_registry::{Accessors, Registry, SystemSet};

use super::build::Placed;

/// Where the pair candidates come from.
pub(crate) struct Pairs<'r> {
    /// `None`: every later system is a candidate (the scan, for comparison).
    accessors: Option<&'r Accessors>,
}

impl Pairs<'_> {
    /// Candidates from the access sets of `registry`'s systems.
    pub(crate) fn indexed<R>(registry: &Registry<R>) -> Pairs<'_> {
        Pairs {
            accessors: Some(registry.accessors()),
        }
    }

    /// Every later system, whatever the access: the pairwise scan.
    #[cfg(test)]
    pub(crate) fn all() -> Self {
        Self { accessors: None }
    }

    /// Later systems of the same DAG that may get a derived edge with `a`: in another
    /// phase, those whose access conflicts with it; in its phase, those that read fresh what
    /// it writes or write what it reads fresh.
    pub(crate) fn derived<R>(
        &self,
        registry: &Registry<R>,
        placed: &Placed,
        a: usize,
    ) -> SystemSet {
        let Some(accessors) = self.accessors else {
            return later(registry, a);
        };
        let record = &registry.records()[a];
        let phase = placed.phase_members(a);
        let other_phases = placed.dag_members(a).difference(phase);
        let across = if other_phases.is_empty() {
            SystemSet::EMPTY
        } else {
            accessors.conflicting(record).intersection(&other_phases)
        };
        let fresh = accessors
            .fresh_readers_of(&record.produces())
            .union(&accessors.producers_of(record.reads_fresh()))
            .intersection(phase);
        across
            .union(&fresh)
            .intersection(placed.dag_members(a))
            .intersection(&later(registry, a))
    }

    /// Earlier systems of `b`'s phase that `reach` does not order before it, and that
    /// write what it writes or reads plainly, or read plainly what it writes.
    pub(crate) fn same_phase<R>(
        &self,
        registry: &Registry<R>,
        placed: &Placed,
        reach: &[SystemSet],
        b: usize,
    ) -> SystemSet {
        let earlier = SystemSet::first(b);
        let Some(accessors) = self.accessors else {
            return earlier;
        };
        let record = &registry.records()[b];
        let writes = record.writes();
        let plain = record.reads().difference(record.reads_fresh());
        accessors
            .writers_of(writes)
            .union(&accessors.plain_readers_of(writes))
            .union(&accessors.writers_of(&plain))
            .intersection(placed.phase_members(b))
            .intersection(&earlier)
            .difference(&reach[b])
    }

    /// Later systems whose access conflicts with `a`'s, in another DAG of its track.
    pub(crate) fn dag_conflicts<R>(
        &self,
        registry: &Registry<R>,
        placed: &Placed,
        a: usize,
    ) -> SystemSet {
        let Some(accessors) = self.accessors else {
            return later(registry, a);
        };
        let others = placed.track_members(a).difference(placed.dag_members(a));
        if others.is_empty() {
            return SystemSet::EMPTY;
        }
        accessors
            .conflicting(&registry.records()[a])
            .intersection(&others)
            .intersection(&later(registry, a))
    }
}

/// The systems of `registry` after 0-based position `a`.
fn later<R>(registry: &Registry<R>, a: usize) -> SystemSet {
    SystemSet::first(registry.len()).difference(&SystemSet::first(a + 1))
}

#[cfg(test)]
mod tests {
    use laige_registry::{ComponentId, SystemDef};
    use proptest::prelude::*;

    use super::Pairs;
    use crate::declarative::Layout;
    use crate::declarative::build::derive_with;

    type Run = fn(&mut ());

    fn noop(_: &mut ()) {}

    const COMPONENTS: u64 = 9;
    const TRACKS: [&str; 2] = ["T0", "T1"];
    const DAGS: [&str; 3] = ["D0", "D1", "D2"];
    const PHASES: [&str; 3] = ["P0", "P1", "P2"];

    struct SplitMix64(u64);

    impl SplitMix64 {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }
    }

    fn leak(text: String) -> &'static str {
        Box::leak(text.into_boxed_str())
    }

    fn spec(names: &[String]) -> &'static str {
        leak(names.join(", "))
    }

    /// A random declarative build: up to 3 DAGs over 2 tracks with up to 3 phases each,
    /// `n` systems with 0 to 3 accesses of every kind over 9 components, a few exclusive
    /// ones, and `after`, `before` and `after_weak` edges.
    ///
    /// So that the later passes are reached, one build in four (`sloppy`) has edges across
    /// DAGs or against the phase order and unversioned components, one in two lets DAGs
    /// share components (else DAG `d` uses components `3d + 1` to `3d + 3`), and `ordered`
    /// adds an `after_weak` edge to earlier systems of the same phase.
    fn random_build(seed: u64, n: usize, ordered: bool) -> (laige_registry::Registry<Run>, Layout) {
        let mut rng = SplitMix64(seed);
        let sloppy = rng.below(4) == 0;
        let shared = rng.below(2) == 0;
        let dags = 1 + rng.below(3) as usize;
        let mut layout = Layout::new();
        let mut phases = Vec::new();
        for dag in DAGS.iter().take(dags) {
            let count = 1 + rng.below(3) as usize;
            let track = TRACKS[rng.below(2) as usize];
            layout = layout.dag(track, dag, &PHASES[..count], PHASES[0]);
            phases.push(count);
        }
        let mut registry = laige_registry::Registry::new();
        for c in 1..=COMPONENTS as u16 {
            let id = ComponentId::new(c).unwrap();
            registry.register_component_info(id, "", !sloppy || c % 3 != 0);
        }
        let placed: Vec<(usize, usize)> = (0..n)
            .map(|_| {
                let dag = rng.below(dags as u64) as usize;
                (dag, rng.below(phases[dag] as u64) as usize)
            })
            .collect();
        let mut fresh_read = [[[false; COMPONENTS as usize + 1]; 3]; 3];
        for i in 0..n {
            let (dag, phase) = placed[i];
            let mut def = SystemDef::new(leak(format!("s{i}")), noop as Run)
                .budget_ms(1.0)
                .in_dag(DAGS[dag])
                .in_phase(PHASES[phase]);
            let mut taken = [false; COMPONENTS as usize + 1];
            for _ in 0..rng.below(4) {
                let c = if shared {
                    1 + rng.below(COMPONENTS) as usize
                } else {
                    1 + 3 * dag + rng.below(3) as usize
                };
                if std::mem::replace(&mut taken[c], true) {
                    continue;
                }
                let id = ComponentId::new(c as u16).unwrap();
                let fresh_here = &mut fresh_read[dag][phase][c];
                def = match rng.below(8) {
                    0..=2 => def.reads(id),
                    3 => {
                        *fresh_here = true;
                        def.reads_fresh(id)
                    }
                    4 => def.reads_snapshot(id),
                    // A write after a fresh read of the phase would wait for that read's
                    // system: against the position order, a cycle with `ordered`.
                    _ if *fresh_here && ordered && !sloppy => def.reads(id),
                    _ => def.writes(id),
                };
            }
            if rng.below(16) == 0 {
                def = def.exclusive_phase();
            }
            // Systems a declaration may name without an early error (edges go from lower
            // to higher positions, so only a sloppy build has a cycle).
            let fits = |rng: &mut SplitMix64, j: usize, later: bool| {
                let (d, p) = placed[j];
                let in_order = if later {
                    p >= phase && j > i
                } else {
                    p <= phase && j < i
                };
                (sloppy && rng.below(8) == 0) || (d == dag && in_order)
            };
            let mut after = Vec::new();
            let mut before = Vec::new();
            let mut weak = Vec::new();
            for _ in 0..i.min(2) {
                let j = rng.below(i as u64) as usize;
                if fits(&mut rng, j, false) && !after.contains(&format!("s{j}")) {
                    after.push(format!("s{j}"));
                }
            }
            if rng.below(4) == 0 {
                let j = rng.below(n as u64) as usize;
                if fits(&mut rng, j, true) {
                    before.push(format!("s{j}"));
                }
            }
            for j in (0..i).rev() {
                let same = placed[j] == (dag, phase);
                if ordered && same && weak.len() < 15 && !after.contains(&format!("s{j}")) {
                    weak.push(format!("s{j}"));
                }
            }
            def = def.depends_on(spec(&after));
            def = def.before(spec(&before));
            def = def.after_weak(spec(&weak));
            registry.register(def).expect("generated systems are valid");
        }
        (registry, layout)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The set-algebra candidates change nothing: every edge with its cause and in its
        /// order, the track orders, and the first error are those of a scan of every pair.
        #[test]
        fn candidates_give_what_every_pair_gives(
            seed in any::<u64>(),
            n in 1usize..=160,
            ordered in any::<bool>(),
        ) {
            let (registry, layout) = random_build(seed, n, ordered);
            let fast = derive_with(&registry, &layout, Pairs::indexed);
            let scan = derive_with(&registry, &layout, |_| Pairs::all());
            match (fast, scan) {
                (Ok(fast), Ok(scan)) => {
                    prop_assert_eq!(fast.graph.edges(), scan.graph.edges());
                    prop_assert_eq!(fast.orders, scan.orders);
                }
                (Err(fast), Err(scan)) => prop_assert_eq!(fast, scan),
                (fast, scan) => prop_assert!(
                    false,
                    "one failed: {:?} / {:?}",
                    fast.err(),
                    scan.err()
                ),
            }
        }
    }
}
