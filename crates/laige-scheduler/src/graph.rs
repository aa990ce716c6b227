//! The one scheduling graph both front ends build: edges with their causes, the stable
//! Kahn sort (smallest id first) and the cycle walk.
//!
//! The flat rules add only `depends_on` edges, which the registry already lists in order,
//! so their graph keeps just the predecessor sets, on the stack; the declarative rules add
//! theirs with causes and keep the list on the heap. Both then sort and, on a cycle,
//! report it the same way.

use arrayvec::ArrayVec;
use laige_registry::{MAX_SYSTEMS, Registry, SystemSet};

use crate::Cycle;
use crate::cause::{Cause, id_at};
use crate::cycle::Step;

/// `later` runs after `earlier` because of `cause` (0-based registry positions).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Edge {
    pub(crate) later: u8,
    pub(crate) earlier: u8,
    pub(crate) cause: Cause,
}

/// Where a graph's edges and their causes are, in insertion order.
pub(crate) trait EdgeList {
    /// Records a new edge (its pair was not in the graph yet).
    fn push_edge(&mut self, edge: Edge);

    /// The systems `later` waits for, with the cause of each, in insertion order.
    fn waits(&self, later: usize) -> impl Iterator<Item = (usize, Cause)> + '_;
}

/// The flat rules' edges are the registry's `depends_on`, whose spec order is their
/// insertion order: nothing is stored, and a cycle walk resolves the names again.
pub(crate) struct DependsOn<'r, R>(pub(crate) &'r Registry<R>);

impl<R> EdgeList for DependsOn<'_, R> {
    #[inline]
    fn push_edge(&mut self, _: Edge) {}

    fn waits(&self, later: usize) -> impl Iterator<Item = (usize, Cause)> + '_ {
        self.0
            .depends_on(id_at(later))
            .iter()
            .filter_map(|&name| self.0.find(name))
            .map(|earlier| (earlier.index(), Cause::After))
    }
}

impl EdgeList for Vec<Edge> {
    fn push_edge(&mut self, edge: Edge) {
        self.push(edge);
    }

    fn waits(&self, later: usize) -> impl Iterator<Item = (usize, Cause)> + '_ {
        self.iter()
            .filter(move |e| usize::from(e.later) == later)
            .map(|e| (usize::from(e.earlier), e.cause))
    }
}

/// A dependency graph over a registry's systems: for each system the set it waits for, and
/// every edge with its cause in insertion order (the first cause recorded for a pair wins).
pub(crate) struct Graph<E> {
    preds: [SystemSet; MAX_SYSTEMS],
    edges: E,
    backward: bool,
}

impl<E: EdgeList> Graph<E> {
    #[inline]
    pub(crate) fn new(edges: E) -> Self {
        Self {
            preds: [SystemSet::EMPTY; MAX_SYSTEMS],
            edges,
            backward: true,
        }
    }

    /// Records that `later` runs after `earlier` (0-based positions).
    #[inline]
    pub(crate) fn add(&mut self, earlier: usize, later: usize, cause: Cause) {
        if self.preds[later].insert(id_at(earlier)) {
            self.backward &= earlier < later;
            self.edges.push_edge(Edge {
                later: later as u8,
                earlier: earlier as u8,
                cause,
            });
        }
    }

    /// Kahn's algorithm over `members` (whose edges stay among them), smallest ready id
    /// first: calls `place` with each system in order and returns the systems placed; fewer
    /// than `members` means the rest contain a cycle.
    ///
    /// When every edge points to a smaller id, the smallest ready id is always the next
    /// member, so the order is the id order and nothing is sorted. Otherwise, rather than
    /// count each system's pending predecessors (which needs every edge reversed, an 8 KiB
    /// table), a waiting system watches one unplaced predecessor; once that one is placed
    /// it watches the next, or is ready. The ready sets, and so the order, are those of the
    /// counting version.
    pub(crate) fn kahn(&self, members: &SystemSet, mut place: impl FnMut(usize)) -> SystemSet {
        if self.backward {
            members.iter().for_each(|id| place(id.index()));
            return *members;
        }
        let mut watchers = Watchers::new();
        let mut ready = ReadySet::default();
        let mut placed = SystemSet::EMPTY;
        for id in members {
            watchers.wait(id.index(), &self.preds[id.index()], &placed, &mut ready);
        }
        while let Some(next) = ready.pop_min() {
            place(next);
            placed.insert(id_at(next));
            let mut watcher = watchers.take(next);
            while let Some(i) = watcher {
                watcher = watchers.after(i);
                watchers.wait(i, &self.preds[i], &placed, &mut ready);
            }
        }
        placed
    }

    /// The cycle walk (contract §2.3, for every cause): from the smallest of `unplaced`,
    /// follow each system's first unplaced predecessor in insertion order (for `depends_on`,
    /// spec order) until a system repeats; the cycle is the path from its first visit, each
    /// step with the cause of its wait.
    pub(crate) fn cycle<R>(&self, registry: &Registry<R>, unplaced: &SystemSet) -> Cycle {
        const UNVISITED: u16 = u16::MAX;
        let mut step_of = [UNVISITED; MAX_SYSTEMS];
        let mut path: ArrayVec<Step, MAX_SYSTEMS> = ArrayVec::new();
        let mut current = unplaced
            .iter()
            .next()
            .expect("a cycle leaves systems unplaced")
            .index();
        while step_of[current] == UNVISITED {
            step_of[current] = path.len() as u16;
            let (earlier, cause) = self
                .edges
                .waits(current)
                .find(|&(earlier, _)| unplaced.contains(id_at(earlier)))
                .expect("an unplaced system waits for an unplaced one");
            path.push(Step {
                system: current as u8,
                cause,
            });
            current = earlier;
        }
        let steps = &path[usize::from(step_of[current])..];
        let names = registry.share_names(steps.iter().map(|s| id_at(s.system.into())));
        Cycle::new(names, steps)
    }
}

impl Graph<Vec<Edge>> {
    /// Every edge, in insertion order.
    pub(crate) fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// For each system, every system with a path to it, following `order`.
    pub(crate) fn reachability(&self, order: &[usize]) -> Vec<SystemSet> {
        let mut reach = vec![SystemSet::EMPTY; MAX_SYSTEMS];
        for &s in order {
            let mut acc = self.preds[s];
            for p in &self.preds[s] {
                acc = acc.union(&reach[p.index()]);
            }
            reach[s] = acc;
        }
        reach
    }
}

/// For each system, the systems watching it, as linked lists of 0-based positions:
/// every system is in at most one list.
struct Watchers {
    head: [u16; MAX_SYSTEMS],
    next: [u16; MAX_SYSTEMS],
}

impl Watchers {
    const NONE: u16 = u16::MAX;

    fn new() -> Self {
        Self {
            head: [Self::NONE; MAX_SYSTEMS],
            next: [Self::NONE; MAX_SYSTEMS],
        }
    }

    /// Makes `i`, which runs after `deps`, watch its smallest unplaced dependency, or
    /// marks it ready when there is none.
    fn wait(&mut self, i: usize, deps: &SystemSet, placed: &SystemSet, ready: &mut ReadySet) {
        match deps.difference(placed).iter().next() {
            Some(dep) => {
                self.next[i] = self.head[dep.index()];
                self.head[dep.index()] = i as u16;
            }
            None => ready.insert(i),
        }
    }

    /// Empties the list of `watched`, returning its first entry.
    fn take(&mut self, watched: usize) -> Option<usize> {
        let first = std::mem::replace(&mut self.head[watched], Self::NONE);
        (first != Self::NONE).then_some(usize::from(first))
    }

    /// The entry after `i` in the list `i` was taken from.
    fn after(&self, i: usize) -> Option<usize> {
        let next = self.next[i];
        (next != Self::NONE).then_some(usize::from(next))
    }
}

/// A 256-bit set of ready positions with O(1) minimum extraction.
#[derive(Default)]
struct ReadySet {
    words: [u64; MAX_SYSTEMS / 64],
}

impl ReadySet {
    fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    fn pop_min(&mut self) -> Option<usize> {
        for (w, word) in self.words.iter_mut().enumerate() {
            if *word != 0 {
                let bit = word.trailing_zeros() as usize;
                *word &= *word - 1;
                return Some(w * 64 + bit);
            }
        }
        None
    }
}
