//! Resolution of `depends_on` names and the stable topological sort.

use laige_registry::{MAX_SYSTEMS, Registry, SystemId, SystemSet};

use crate::{Cycle, Schedule, ScheduleError, SystemRef};

/// Resolves every spec into `schedule`'s edges ([`Schedule::after`]); the first unknown
/// name in (system id, position) order fails. Returns whether every system depends only on
/// systems registered before it.
pub(crate) fn resolve<R>(
    registry: &Registry<R>,
    schedule: &mut Schedule,
) -> Result<bool, ScheduleError> {
    let mut backward = true;
    for (i, record) in registry.iter().enumerate() {
        for (position, &dep) in registry.depends_on(record.id()).iter().enumerate() {
            let Some(target) = registry.find(dep) else {
                return Err(ScheduleError::DepMissing {
                    system: system_ref(registry, i),
                    missing_dep: dep,
                    position,
                    suggestion: registry.closest_name(dep),
                });
            };
            backward &= target.index() < i;
            schedule.add_edge(record.id(), target);
        }
    }
    Ok(backward)
}

/// Pushes the execution order of `schedule`'s `n` systems: Kahn's algorithm, smallest
/// ready id first. `backward` says every system depends only on systems registered before
/// it (see [`resolve`]); then the smallest ready id is always the next id, and the order
/// is the registration order without sorting. Fails with the systems placed when some
/// are left on a cycle.
pub(crate) fn order(n: usize, schedule: &mut Schedule, backward: bool) -> Result<(), SystemSet> {
    if backward {
        for i in 0..n {
            schedule.push(id_at(i));
        }
        return Ok(());
    }
    let placed = kahn(n, schedule);
    if schedule.order().len() < n {
        return Err(placed);
    }
    Ok(())
}

/// Kahn's algorithm over the edges of `schedule`'s `n` systems, smallest ready id first:
/// pushes the order onto `schedule` and returns the systems placed; fewer than `n` means
/// a cycle.
///
/// Rather than count each system's pending dependencies, which needs every edge reversed
/// (an 8 KiB table cleared per schedule), a waiting system watches one unplaced
/// dependency; once that one is placed it watches the next, or is ready. The ready sets,
/// and so the order, are those of the counting version.
fn kahn(n: usize, schedule: &mut Schedule) -> SystemSet {
    let mut watchers = Watchers::new();
    let mut ready = ReadySet::default();
    let mut placed = SystemSet::EMPTY;
    for i in 0..n {
        watchers.wait(i, schedule.after(id_at(i)), &placed, &mut ready);
    }
    while let Some(next) = ready.pop_min() {
        schedule.push(id_at(next));
        placed.insert(id_at(next));
        let mut watcher = watchers.take(next);
        while let Some(i) = watcher {
            watcher = watchers.after(i);
            watchers.wait(i, schedule.after(id_at(i)), &placed, &mut ready);
        }
    }
    placed
}

/// The contract's cycle walk: from the smallest unplaced id, follow each system's first
/// unplaced dependency (in spec order) until a system repeats; the cycle is the path from
/// its first visit.
pub(crate) fn find_cycle<R>(registry: &Registry<R>, placed: &SystemSet) -> Cycle {
    const UNVISITED: u16 = u16::MAX;
    let mut step_of = [UNVISITED; MAX_SYSTEMS];
    let mut path = [0u16; MAX_SYSTEMS];
    let mut len = 0;
    let mut current = (0..registry.len())
        .find(|&i| !placed.contains(id_at(i)))
        .expect("a cycle leaves systems unplaced");
    while step_of[current] == UNVISITED {
        step_of[current] = len as u16;
        path[len] = current as u16;
        len += 1;
        current = registry
            .depends_on(id_at(current))
            .iter()
            .map(|&dep| registry.find(dep).expect("dependencies resolved"))
            .find(|&d| !placed.contains(d))
            .expect("an unplaced system has an unplaced dependency")
            .index();
    }
    let mut cycle = Cycle::new();
    for &i in &path[usize::from(step_of[current])..len] {
        cycle.push(system_ref(registry, usize::from(i)));
    }
    cycle
}

pub(crate) fn system_ref<R>(registry: &Registry<R>, index: usize) -> SystemRef {
    let record = &registry.records()[index];
    SystemRef {
        id: record.id(),
        name: record.name(),
    }
}

/// The id of the system at 0-based position `index` (inline: the generic callers are
/// compiled in other crates).
#[inline]
pub(crate) fn id_at(index: usize) -> SystemId {
    SystemId::new(index as u32 + 1).expect("index + 1 is never 0")
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
