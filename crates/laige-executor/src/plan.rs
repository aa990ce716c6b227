//! The execution-shaped form of a schedule: per track, a DAG in compressed arrays.

use std::sync::atomic::{AtomicU64, Ordering};

use laige_registry::{Conflicts, DenseId, IdSet, MAX_SYSTEMS, Registry, SystemId, SystemSet};
use laige_scheduler::Schedule;

/// A 0-based position within a track (a track holds at most [`MAX_SYSTEMS`] systems), as a
/// dense id, so that sets of positions are [`IdSet`]s.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Position(u16);

impl Position {
    fn at(index: usize) -> Self {
        Self::from_index(index).expect("a track holds at most MAX_SYSTEMS systems")
    }
}

impl DenseId for Position {
    #[inline]
    fn index(self) -> usize {
        usize::from(self.0)
    }

    #[inline]
    fn from_index(index: usize) -> Option<Self> {
        (index < MAX_SYSTEMS).then_some(Position(index as u16))
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A set of track-local positions.
pub(crate) type Positions = IdSet<Position>;

/// Words in [`Positions::to_words`], which the pool keeps in atomics.
pub(crate) const WORDS: usize = MAX_SYSTEMS / 64;
const _: () = assert!(WORDS == 4, "an IdSet is four words");

const NO_POSITION: u16 = u16::MAX;

/// Why one system waits for another in a [`Plan`], for diagnostics.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EdgeReason {
    /// No direct edge: the two are unordered, in different tracks, or ordered only through
    /// other systems.
    None,
    /// The later system declared that it runs after the earlier one (`depends_on` and the
    /// other explicit edges of the schedule). Wins over [`EdgeReason::Conflict`] when both hold.
    Explicit,
    /// Their accesses conflict, so they run in their sequential order.
    Conflict,
}

/// The execution-shaped form of a [`Schedule`]: per track, the systems in sequential order,
/// how many predecessors each waits for, and who waits for each (compressed rows).
///
/// Built once at setup, where it allocates; running it allocates nothing. Within a track,
/// `a` precedes `b` when `a` comes first in the sequential order and either `b` declared it
/// runs after `a` or the two conflict. Edges implied by others are dropped (transitive
/// reduction), so a tick touches fewer atomics; [`Plan::edge_reason`] still answers for the
/// full relation.
///
/// Tracks are barriers: no edge crosses one, and the executor runs one track at a time.
#[derive(Clone, Debug)]
pub struct Plan {
    identity: u64,
    nodes: Vec<SystemId>,
    track_starts: Vec<usize>,
    pred_count: Vec<u16>,
    pred_start: Vec<u32>,
    preds: Vec<u16>,
    succ_start: Vec<u32>,
    succs: Vec<u16>,
    roots: Vec<Positions>,
    widths: Vec<usize>,
    explicit: Vec<Positions>,
    conflict: Vec<Positions>,
    position: Vec<u16>,
    runs_needed: usize,
}

impl Plan {
    /// Builds the plan of `schedule`.
    ///
    /// Edges: every explicit edge of `after` (indexed by [`SystemId::index`], as
    /// [`Schedule::strong_edges`] gives them) within a track, plus an edge `a → b` for every
    /// pair with `a` before `b` in the track's sequential order that `conflicts` holds. A system listed twice (only a hand-built schedule can do that) always waits
    /// for its earlier run. An explicit edge against the sequential order or across tracks
    /// is ignored: the sequential order is what the executor reproduces, and the scheduler
    /// never produces such an edge.
    ///
    /// Both are data computed above the executor (the scheduler's strong edges, and
    /// [`Registry::conflicts`] from the declared access and, in a World, the live tables):
    /// the plan never decides what must be ordered, it only orders what it is told.
    ///
    /// # Panics
    ///
    /// When the schedule names a system id past [`MAX_SYSTEMS`]; the runner's `check`
    /// refuses such a schedule first.
    pub fn build(schedule: &Schedule, after: &[SystemSet], conflicts: &Conflicts) -> Plan {
        static NEXT_IDENTITY: AtomicU64 = AtomicU64::new(1);
        let order = schedule.order();
        let len = order.len();
        let mut plan = Plan {
            identity: NEXT_IDENTITY.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::with_capacity(len),
            track_starts: vec![0],
            pred_count: vec![0; len],
            pred_start: Vec::with_capacity(len + 1),
            preds: Vec::new(),
            succ_start: vec![0; len + 1],
            succs: Vec::new(),
            roots: Vec::new(),
            widths: Vec::new(),
            explicit: vec![Positions::EMPTY; len],
            conflict: vec![Positions::EMPTY; len],
            position: vec![NO_POSITION; MAX_SYSTEMS],
            runs_needed: 0,
        };
        plan.pred_start.push(0);
        // Reduced predecessors per node, track-local.
        let mut reduced: Vec<Positions> = vec![Positions::EMPTY; len];
        let mut runs = Runs::new();
        for track in schedule.tracks() {
            let base = plan.nodes.len();
            runs.clear();
            // While the track lists systems by id from the first (one track in
            // registration order, say), a system's position is its index.
            let mut by_id = true;
            for (j, &b) in track.iter().enumerate() {
                assert!(
                    b.index() < MAX_SYSTEMS,
                    "system id {b} is past MAX_SYSTEMS ({MAX_SYSTEMS}): check the schedule first"
                );
                if plan.position[b.index()] == NO_POSITION {
                    plan.position[b.index()] = (base + j) as u16;
                }
                plan.runs_needed = plan.runs_needed.max(b.index() + 1);
                plan.nodes.push(b);
                // The systems already in the track that `b` waits for, then where they run:
                // set algebra over ids instead of a test of every earlier position.
                let explicit = after
                    .get(b.index())
                    .unwrap_or(&SystemSet::EMPTY)
                    .intersection(&runs.seen);
                let mut conflict = conflicts.of(b).intersection(&runs.seen);
                if runs.seen.contains(b) {
                    conflict.insert(b);
                }
                by_id &= b.index() == j;
                if by_id {
                    plan.explicit[base + j] = Positions::same_positions(&explicit);
                    plan.conflict[base + j] = Positions::same_positions(&conflict);
                } else {
                    plan.explicit[base + j] = runs.positions(&explicit);
                    plan.conflict[base + j] = runs.positions(&conflict);
                }
                runs.push(b, j);
            }
            let (roots, width) = reduce(
                &plan.explicit[base..],
                &plan.conflict[base..],
                &mut reduced[base..base + track.len()],
            );
            plan.roots.push(roots);
            plan.widths.push(width);
            plan.track_starts.push(plan.nodes.len());
        }
        // Compressed rows: predecessors in node order, dependents by counting.
        for (node, preds) in reduced.iter().enumerate() {
            let track_base = plan.track_base(node);
            for i in preds.iter().map(Position::index) {
                plan.preds.push(i as u16);
                plan.succ_start[track_base + i + 1] += 1;
            }
            plan.pred_count[node] = preds.len() as u16;
            plan.pred_start.push(plan.preds.len() as u32);
        }
        for node in 0..len {
            plan.succ_start[node + 1] += plan.succ_start[node];
        }
        plan.succs = vec![0; plan.succ_start[len] as usize];
        let mut fill = plan.succ_start.clone();
        for (node, preds) in reduced.iter().enumerate() {
            let track_base = plan.track_base(node);
            for i in preds.iter().map(Position::index) {
                let slot = &mut fill[track_base + i];
                plan.succs[*slot as usize] = (node - track_base) as u16;
                *slot += 1;
            }
        }
        plan
    }

    /// The plan of `schedule` (computed from `registry`) with its strong edges and the
    /// conflicts of the systems' declared access ([`Registry::conflicts`] without live
    /// tables): two systems conflict when one writes a component the other reads this tick
    /// or writes. A system the registry does not know conflicts with every other one.
    pub fn build_from_access<R>(schedule: &Schedule, registry: &Registry<R>) -> Plan {
        Plan::build(
            schedule,
            &schedule.strong_edges(registry),
            &registry.conflicts(None),
        )
    }

    /// How many tracks the plan has.
    pub fn track_count(&self) -> usize {
        self.track_starts.len() - 1
    }

    /// The systems of track `t`, in sequential order.
    ///
    /// # Panics
    ///
    /// When `t` is not below [`Plan::track_count`].
    pub fn track(&self, t: usize) -> &[SystemId] {
        &self.nodes[self.track_starts[t]..self.track_starts[t + 1]]
    }

    /// The systems `id` waits for directly when it runs, in sequential order: the edges
    /// left after transitive reduction. Empty for a system the plan does not run.
    pub fn predecessors(&self, id: SystemId) -> impl Iterator<Item = SystemId> + '_ {
        let node = self.node_of(id);
        let (base, range) = match node {
            Some(node) => {
                let range = self.pred_start[node] as usize..self.pred_start[node + 1] as usize;
                (self.track_base(node), range)
            }
            None => (0, 0..0),
        };
        self.preds[range]
            .iter()
            .map(move |&i| self.nodes[base + usize::from(i)])
    }

    /// Why `b` waits for `a`: a direct edge of the full relation (before reduction), or
    /// [`EdgeReason::None`].
    pub fn edge_reason(&self, a: SystemId, b: SystemId) -> EdgeReason {
        let (Some(na), Some(nb)) = (self.node_of(a), self.node_of(b)) else {
            return EdgeReason::None;
        };
        let base = self.track_base(nb);
        if self.track_base(na) != base || na >= nb {
            return EdgeReason::None;
        }
        let i = na - base;
        if self.explicit[nb].contains(Position::at(i)) {
            EdgeReason::Explicit
        } else if self.conflict[nb].contains(Position::at(i)) {
            EdgeReason::Conflict
        } else {
            EdgeReason::None
        }
    }

    /// An estimate of how many systems of track `t` can run at once: the size of the largest
    /// level of its DAG (systems at the same longest-path distance from the track start).
    /// Every level is a set of mutually unordered systems, so this never exceeds the true
    /// maximum, and it is 1 exactly when the track is a chain.
    ///
    /// # Panics
    ///
    /// When `t` is not below [`Plan::track_count`].
    pub fn max_width(&self, t: usize) -> usize {
        self.widths[t]
    }

    /// How many edges the executor counts down per run of the whole plan (after reduction).
    pub fn edge_count(&self) -> usize {
        self.preds.len()
    }

    /// How many systems the plan runs, over all tracks.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the plan runs nothing.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// A process-unique number for this plan, so the executor can tell plans apart.
    pub(crate) fn identity(&self) -> u64 {
        self.identity
    }

    /// The length a run table needs: one past the highest system index the plan runs.
    pub(crate) fn runs_needed(&self) -> usize {
        self.runs_needed
    }

    /// The first node of track `t` and its system count.
    pub(crate) fn track_span(&self, t: usize) -> (usize, usize) {
        let start = self.track_starts[t];
        (start, self.track_starts[t + 1] - start)
    }

    /// The system at node `node` (a position in the concatenated order).
    #[inline]
    pub(crate) fn node(&self, node: usize) -> SystemId {
        self.nodes[node]
    }

    /// How many predecessors node `node` waits for.
    #[inline]
    pub(crate) fn pred_count(&self, node: usize) -> u16 {
        self.pred_count[node]
    }

    /// The track-local positions of the systems waiting for node `node`, ascending.
    #[inline]
    pub(crate) fn dependents(&self, node: usize) -> &[u16] {
        &self.succs[self.succ_start[node] as usize..self.succ_start[node + 1] as usize]
    }

    /// The track-local positions of track `t` that wait for nothing.
    pub(crate) fn roots(&self, t: usize) -> &Positions {
        &self.roots[t]
    }

    fn node_of(&self, id: SystemId) -> Option<usize> {
        let position = *self.position.get(id.index())?;
        (position != NO_POSITION).then_some(usize::from(position))
    }

    fn track_base(&self, node: usize) -> usize {
        // `track_starts` is ascending: the last start at or before `node`.
        let t = self.track_starts.partition_point(|&start| start <= node) - 1;
        self.track_starts[t]
    }
}

/// Where each system runs in the part of a track built so far: per system, its latest
/// position, and per position the previous run of the same system (only a hand-built
/// schedule lists one twice).
struct Runs {
    seen: SystemSet,
    latest: [u16; MAX_SYSTEMS],
    previous: [u16; MAX_SYSTEMS],
}

impl Runs {
    fn new() -> Self {
        Self {
            seen: SystemSet::EMPTY,
            latest: [NO_POSITION; MAX_SYSTEMS],
            previous: [NO_POSITION; MAX_SYSTEMS],
        }
    }

    /// Forgets the previous track.
    fn clear(&mut self) {
        for id in &self.seen {
            self.latest[id.index()] = NO_POSITION;
        }
        self.seen = SystemSet::EMPTY;
    }

    /// Records that `id` runs at track-local position `position`.
    fn push(&mut self, id: SystemId, position: usize) {
        self.previous[position] = self.latest[id.index()];
        self.latest[id.index()] = position as u16;
        self.seen.insert(id);
    }

    /// Every position where a system of `systems` runs.
    fn positions(&self, systems: &SystemSet) -> Positions {
        systems.iter().fold(Positions::EMPTY, |mut positions, id| {
            let mut at = self.latest[id.index()];
            while at != NO_POSITION {
                positions.insert(Position::at(usize::from(at)));
                at = self.previous[usize::from(at)];
            }
            positions
        })
    }
}

/// Transitive reduction of one track, nodes in sequential order (every edge points
/// forward). Fills `reduced` and returns the roots and the largest level.
fn reduce(
    explicit: &[Positions],
    conflict: &[Positions],
    reduced: &mut [Positions],
) -> (Positions, usize) {
    let n = reduced.len();
    let mut ancestors = vec![Positions::EMPTY; n];
    let mut level = vec![0usize; n];
    let mut level_size = vec![0usize; n + 1];
    let mut roots = Positions::EMPTY;
    for j in 0..n {
        let direct = explicit[j].union(&conflict[j]);
        let implied = direct.iter().fold(Positions::EMPTY, |implied, i| {
            implied.union(&ancestors[i.index()])
        });
        reduced[j] = direct.difference(&implied);
        ancestors[j] = direct.union(&implied);
        level[j] = reduced[j]
            .iter()
            .map(|i| level[i.index()] + 1)
            .max()
            .unwrap_or(0);
        level_size[level[j]] += 1;
        if reduced[j].is_empty() {
            roots.insert(Position::at(j));
        }
    }
    (roots, level_size.into_iter().max().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use laige_registry::{Conflicts, SystemId, SystemSet};
    use laige_scheduler::Schedule;

    use super::{Plan, Position};

    fn id(index: usize) -> SystemId {
        SystemId::new(index as u32 + 1).unwrap()
    }

    /// The full relation, as sets over ids and the runs of each system, is the relation a
    /// test of every earlier position gives: explicit when `after` names the earlier
    /// system, conflict when it is the same system or the pair conflicts, on hand-built
    /// orders that list systems by id, list systems twice and name systems past the relation.
    #[test]
    fn the_relation_is_that_of_every_earlier_position() {
        let mut state = 0x5EED_u64;
        let mut below = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % n
        };
        for round in 0..60 {
            let systems = 1 + below(150) as usize;
            let len = 1 + below(180) as usize;
            // Often a prefix listed by id (where positions are indices), then anything.
            let by_id = below(len as u64 + 1) as usize;
            let order: Vec<SystemId> = (0..len)
                .map(|i| {
                    id(if i < by_id {
                        i
                    } else {
                        below(systems as u64 + 5) as usize
                    })
                })
                .collect();
            let schedule = Schedule::hand_built(systems, &order);
            let pairs: Vec<(usize, usize)> = (0..systems * 2)
                .map(|_| {
                    (
                        below(systems as u64) as usize,
                        below(systems as u64) as usize,
                    )
                })
                .collect();
            let conflict =
                |a: usize, b: usize| pairs.contains(&(a.min(b), a.max(b))) || a.max(b) >= systems;
            let conflicts = Conflicts::from_pairs(systems, |a, b| conflict(a.index(), b.index()));
            let after: Vec<SystemSet> = (0..systems)
                .map(|_| {
                    (0..3)
                        .map(|_| id(below(systems as u64 + 5) as usize))
                        .collect()
                })
                .collect();
            let plan = Plan::build(&schedule, &after, &conflicts);
            for (j, b) in order.iter().map(|b| b.index()).enumerate() {
                for (i, a) in order[..j].iter().map(|a| a.index()).enumerate() {
                    let explicit = after.get(b).is_some_and(|s| s.contains(id(a)));
                    let conflicting = a == b || conflict(a, b);
                    let at = Position::at(i);
                    let context = format!("round {round}: {a} at {i} before {b} at {j}");
                    assert_eq!(plan.explicit[j].contains(at), explicit, "{context}");
                    assert_eq!(plan.conflict[j].contains(at), conflicting, "{context}");
                }
            }
        }
    }
}
