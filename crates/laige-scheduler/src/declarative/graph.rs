//! The derived dependency graph: explicit and access-derived edges, with their causes.

use laige_registry::{Registry, SystemSet};

use super::{CycleStep, EdgeCause};
use crate::sort::{id_at, system_ref};

/// Edges as predecessor sets plus, per system, its predecessors in insertion order with
/// the cause of each (the first cause recorded for a pair wins).
pub(crate) struct Graph {
    pub(crate) preds: Vec<SystemSet>,
    causes: Vec<Vec<(usize, EdgeCause)>>,
}

impl Graph {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            preds: vec![SystemSet::EMPTY; n],
            causes: vec![Vec::new(); n],
        }
    }

    /// Records that `later` runs after `earlier`.
    pub(crate) fn add(&mut self, earlier: usize, later: usize, cause: EdgeCause) {
        if self.preds[later].insert(id_at(earlier)) {
            self.causes[later].push((earlier, cause));
        }
    }

    /// `(later, earlier, cause)` for every edge, in insertion order per system.
    pub(crate) fn edges(&self) -> impl Iterator<Item = (usize, usize, EdgeCause)> + '_ {
        self.causes.iter().enumerate().flat_map(|(later, preds)| {
            preds
                .iter()
                .map(move |&(earlier, cause)| (later, earlier, cause))
        })
    }

    /// Kahn's algorithm over `members`, smallest ready id first. Returns the order and
    /// the members left unplaced (non-empty exactly when they contain a cycle).
    pub(crate) fn kahn(&self, members: &SystemSet) -> (Vec<usize>, SystemSet) {
        let mut unplaced = *members;
        let mut order = Vec::with_capacity(members.len());
        'outer: while !unplaced.is_empty() {
            for candidate in &unplaced {
                if !self.preds[candidate.index()].intersects(&unplaced) {
                    order.push(candidate.index());
                    unplaced.remove(candidate);
                    continue 'outer;
                }
            }
            break;
        }
        (order, unplaced)
    }

    /// From the smallest unplaced system, follows each system's first unplaced predecessor
    /// until one repeats; the cycle is the path from its first visit.
    pub(crate) fn cycle<R>(&self, registry: &Registry<R>, unplaced: &SystemSet) -> Vec<CycleStep> {
        let mut path: Vec<(usize, usize, EdgeCause)> = Vec::new();
        let mut current = unplaced
            .iter()
            .next()
            .expect("a cycle leaves systems unplaced")
            .index();
        loop {
            if let Some(start) = path.iter().position(|&(s, _, _)| s == current) {
                return path[start..]
                    .iter()
                    .map(|&(s, next, cause)| CycleStep {
                        system: system_ref(registry, s),
                        waits_for: system_ref(registry, next),
                        cause,
                    })
                    .collect();
            }
            let &(next, cause) = self.causes[current]
                .iter()
                .find(|(p, _)| unplaced.contains(id_at(*p)))
                .expect("an unplaced system waits for an unplaced one");
            path.push((current, next, cause));
            current = next;
        }
    }

    /// For each system, every system with a path to it, following `order`.
    pub(crate) fn reachability(&self, order: &[usize]) -> Vec<SystemSet> {
        let mut reach = vec![SystemSet::EMPTY; self.preds.len()];
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
