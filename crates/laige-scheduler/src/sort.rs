//! Resolution of `depends_on` names and the stable topological sort.

use laige_registry::{MAX_DEPENDENCIES, MAX_SYSTEMS, Registry, SystemId};

use crate::{Cycle, Schedule, ScheduleError, SystemRef};

/// The `depends_on` edges as 0-based positions, on the stack.
pub(crate) struct Graph {
    n: usize,
    deps: [[u16; MAX_DEPENDENCIES]; MAX_SYSTEMS],
    dep_len: [u8; MAX_SYSTEMS],
}

impl Graph {
    /// A graph of `n` systems without edges.
    pub(crate) fn new(n: usize) -> Self {
        Graph {
            n,
            deps: [[0; MAX_DEPENDENCIES]; MAX_SYSTEMS],
            dep_len: [0; MAX_SYSTEMS],
        }
    }

    /// Resolves every spec into this graph, in place (it is 8 KiB); the first unknown name
    /// in (system id, position) order fails.
    pub(crate) fn resolve<R>(&mut self, registry: &Registry<R>) -> Result<(), ScheduleError> {
        let graph = self;
        for (i, record) in registry.iter().enumerate() {
            let deps = registry.depends_on(record.id());
            for (position, &dep) in deps.iter().enumerate() {
                let Some(target) = registry.find(dep) else {
                    return Err(ScheduleError::DepMissing {
                        system: system_ref(registry, i),
                        missing_dep: dep,
                        position,
                        suggestion: registry.closest_name(dep),
                    });
                };
                graph.deps[i][position] = target.index() as u16;
            }
            graph.dep_len[i] = deps.len() as u8;
        }
        Ok(())
    }

    /// Copies the resolved edges onto the schedule.
    pub(crate) fn record_edges(&self, schedule: &mut Schedule) {
        for i in 0..self.n {
            for &d in self.deps_of(i) {
                schedule.add_edge(id_at(i), id_at(usize::from(d)));
            }
        }
    }

    fn deps_of(&self, i: usize) -> &[u16] {
        &self.deps[i][..usize::from(self.dep_len[i])]
    }

    /// Kahn's algorithm, smallest ready id first. Fills `order` with 0-based positions and
    /// returns how many were placed; fewer than `n` means a cycle.
    pub(crate) fn kahn(
        &self,
        order: &mut [u16; MAX_SYSTEMS],
        placed: &mut [bool; MAX_SYSTEMS],
    ) -> usize {
        let n = self.n;
        let mut pending = [0u8; MAX_SYSTEMS];
        // Dependents in compressed rows: dependents of d are at start[d]..start[d + 1].
        let mut start = [0u16; MAX_SYSTEMS + 1];
        let mut dependents = [0u16; MAX_SYSTEMS * MAX_DEPENDENCIES];
        for (i, slot) in pending.iter_mut().enumerate().take(n) {
            *slot = self.dep_len[i];
            for &d in self.deps_of(i) {
                start[usize::from(d) + 1] += 1;
            }
        }
        for d in 0..n {
            start[d + 1] += start[d];
        }
        let mut fill = start;
        for i in 0..n {
            for &d in self.deps_of(i) {
                let slot = &mut fill[usize::from(d)];
                dependents[usize::from(*slot)] = i as u16;
                *slot += 1;
            }
        }
        let mut ready = ReadySet::default();
        for (i, &p) in pending.iter().enumerate().take(n) {
            if p == 0 {
                ready.insert(i);
            }
        }
        let mut len = 0;
        while let Some(next) = ready.pop_min() {
            order[len] = next as u16;
            placed[next] = true;
            len += 1;
            for &j in &dependents[usize::from(start[next])..usize::from(start[next + 1])] {
                let j = usize::from(j);
                pending[j] -= 1;
                if pending[j] == 0 {
                    ready.insert(j);
                }
            }
        }
        len
    }

    /// The contract's cycle walk: from the smallest unplaced id, follow each system's first
    /// unplaced dependency until a system repeats; the cycle is the path from its first visit.
    pub(crate) fn find_cycle<R>(
        &self,
        registry: &Registry<R>,
        placed: &[bool; MAX_SYSTEMS],
    ) -> Cycle {
        const UNVISITED: u16 = u16::MAX;
        let mut step_of = [UNVISITED; MAX_SYSTEMS];
        let mut path = [0u16; MAX_SYSTEMS];
        let mut len = 0;
        let mut current = (0..self.n)
            .find(|&i| !placed[i])
            .expect("a cycle leaves systems unplaced");
        while step_of[current] == UNVISITED {
            step_of[current] = len as u16;
            path[len] = current as u16;
            len += 1;
            current = self
                .deps_of(current)
                .iter()
                .map(|&d| usize::from(d))
                .find(|&d| !placed[d])
                .expect("an unplaced system has an unplaced dependency");
        }
        let mut cycle = Cycle::new();
        for &i in &path[usize::from(step_of[current])..len] {
            cycle.push(system_ref(registry, usize::from(i)));
        }
        cycle
    }
}

pub(crate) fn system_ref<R>(registry: &Registry<R>, index: usize) -> SystemRef {
    let record = &registry.records()[index];
    SystemRef {
        id: record.id(),
        name: record.name(),
    }
}

/// The id of the system at 0-based position `index`.
pub(crate) fn id_at(index: usize) -> SystemId {
    SystemId::new(index as u32 + 1).expect("index + 1 is never 0")
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
