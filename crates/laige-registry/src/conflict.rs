//! The one conflict rule: when two systems may not run at the same time.
//!
//! Every layer that asks "do these two systems conflict?" asks here: the declarative
//! scheduler (phase order, concurrent DAGs), the executor's plan, the schedule graph export
//! and the World, which adds what it alone knows, the live tables, as data
//! ([`LiveTables`]).

use crate::accessors::Accessors;
use crate::{ComponentId, ComponentSet, MAX_SYSTEMS, Registry, SystemId, SystemRecord, SystemSet};

/// Where two systems can meet at run time: the signature (component set) of every
/// archetype table that exists, the components that are resources (one instance, in
/// no table), and the sparse components (stored by entity, in no table).
///
/// Tables are never removed and may refill without notice, so every table counts,
/// empty or not.
#[derive(Clone, Copy, Debug)]
pub struct LiveTables<'a> {
    tables: &'a [ComponentSet],
    resources: &'a ComponentSet,
    sparse: &'a ComponentSet,
}

impl<'a> LiveTables<'a> {
    /// The tables with these signatures, and these resources; no sparse component.
    pub fn new(tables: &'a [ComponentSet], resources: &'a ComponentSet) -> Self {
        Self {
            tables,
            resources,
            sparse: &ComponentSet::EMPTY,
        }
    }

    /// The same, with these components stored in sparse sets
    /// (`docs/decisions/0018-sparse-components.md`): a shared sparse component always
    /// counts, and a sparse component in a footprint narrows no table.
    pub fn with_sparse(self, sparse: &'a ComponentSet) -> Self {
        Self { sparse, ..self }
    }
}

impl SystemRecord {
    /// The components on which `self` and `other` conflict by what they declare: one
    /// writes what the other reads as it is this tick (`reads`, `reads_fresh`) or writes,
    /// or one emits into a queue the other reads (or writes). Snapshot reads see a frozen
    /// copy and conflict with nothing; two emitters of one queue append to buffers of their
    /// own and do not conflict either.
    pub fn declared_conflicts(&self, other: &SystemRecord) -> ComponentSet {
        let written = self
            .writes()
            .intersection(&other.touches_live())
            .union(&other.writes().intersection(&self.touches_live()));
        let emitted = self
            .emits()
            .intersection(other.reads())
            .union(&other.emits().intersection(self.reads()));
        written.union(&emitted)
    }

    /// What the system reaches as it is this tick: reads (plain and fresh), writes and
    /// emits.
    fn touches_live(&self) -> ComponentSet {
        self.reads().union(self.writes()).union(self.emits())
    }

    /// The lowest component on which `self` and `other` may touch the same data, if any:
    /// the rule every scheduler, plan and world applies.
    ///
    /// Without `live`, any declared conflict counts ([`SystemRecord::declared_conflicts`]).
    /// With it, a shared resource or sparse component always counts (neither is in a table,
    /// so no footprint can keep two systems apart on it), and a shared table component counts
    /// only if some table holds it and both systems' footprints (`matching`, without their
    /// sparse components, which narrow no table), so both could visit it.
    pub fn conflict_with(
        &self,
        other: &SystemRecord,
        live: Option<&LiveTables<'_>>,
    ) -> Option<ComponentId> {
        let shared = self.declared_conflicts(other);
        if shared.is_empty() {
            return None;
        }
        let Some(live) = live else {
            return shared.iter().next();
        };
        let footprint = self
            .matching()
            .union(other.matching())
            .difference(live.sparse);
        let mut reachable = shared.intersection(&live.resources.union(live.sparse));
        for table in live.tables {
            if footprint.is_subset(table) {
                reachable = reachable.union(&shared.intersection(table));
            }
        }
        reachable.iter().next()
    }
}

/// Which systems conflict with which, as data: one set per system, symmetric.
///
/// Computed once at setup by [`Registry::conflicts`] and handed down to whoever orders or
/// runs systems, so nothing below has to call back up to decide. A system past the
/// registered ones (only a hand-built schedule names one) conflicts with every system.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conflicts {
    sets: Vec<SystemSet>,
}

impl Conflicts {
    /// No conflicts among `systems` systems.
    pub fn none(systems: usize) -> Self {
        let systems = systems.min(MAX_SYSTEMS);
        // Every set holds the ids past the relation: those conflict with all.
        let unknown = SystemSet::FULL.difference(&SystemSet::first(systems));
        Self {
            sets: vec![unknown; systems],
        }
    }

    /// The conflicts among `systems` systems for which `conflict(a, b)` holds, asked once
    /// per unordered pair (`a` < `b`): for tests and hand-made relations.
    pub fn from_pairs(
        systems: usize,
        mut conflict: impl FnMut(SystemId, SystemId) -> bool,
    ) -> Self {
        let mut conflicts = Self::none(systems);
        for b in 0..conflicts.sets.len() {
            for a in 0..b {
                let (a, b) = (SystemId::from_index(a), SystemId::from_index(b));
                if conflict(a, b) {
                    conflicts.insert(a, b);
                }
            }
        }
        conflicts
    }

    /// Records that `a` and `b` conflict (both ways).
    ///
    /// # Panics
    ///
    /// When either id is past the systems this relation was made for.
    pub fn insert(&mut self, a: SystemId, b: SystemId) {
        self.sets[a.index()].insert(b);
        self.sets[b.index()].insert(a);
    }

    /// The systems `id` conflicts with, those past the relation included: every system
    /// `a` for which [`Conflicts::contains`]`(a, id)` holds.
    pub fn of(&self, id: SystemId) -> &SystemSet {
        self.sets.get(id.index()).unwrap_or(&SystemSet::FULL)
    }

    /// Whether `a` and `b` conflict.
    pub fn contains(&self, a: SystemId, b: SystemId) -> bool {
        // The relation is symmetric, and a system past it is in every set.
        self.of(b).contains(a)
    }

    /// How many systems the relation covers.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether it covers no system.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }
}

impl Accessors {
    /// The accessors of every component `registry`'s systems declare.
    pub fn of<R>(registry: &Registry<R>) -> Self {
        // Systems declare only registered components: room for the highest of them.
        let len = registry
            .components()
            .iter()
            .last()
            .map_or(0, |c| c.index() + 1);
        let mut accessors = Accessors::with_components(len);
        for record in registry.records() {
            let (reads, writes) = (record.reads(), record.writes());
            accessors.add(record.id(), reads, writes, record.reads_fresh());
            accessors.add_emits(record.id(), record.emits());
        }
        accessors
    }

    /// The systems `b` for which `record.declared_conflicts(b)` is not empty
    /// ([`SystemRecord::declared_conflicts`]): those touching what it writes, those
    /// writing or emitting into what it reads, and those reading or writing what it emits
    /// into. The record's own system is among them when it writes.
    pub fn conflicting(&self, record: &SystemRecord) -> SystemSet {
        let live = record.reads().union(record.emits());
        self.touchers_of(record.writes())
            .union(&self.emitters_of(record.writes()))
            .union(&self.writers_of(&live))
            .union(&self.emitters_of(record.reads()))
            .union(&self.readers_of(record.emits()))
    }
}

impl<R> Registry<R> {
    /// Every pair of registered systems that conflicts by [`SystemRecord::conflict_with`]:
    /// declared access only, or refined by the footprints over `live` tables.
    ///
    /// Setup-time work: the pairs whose declared access meets come from [`Accessors`]
    /// (a few set unions per system); only with `live` is each of those pairs asked again,
    /// O(pairs × tables). It allocates one set per system.
    pub fn conflicts(&self, live: Option<&LiveTables<'_>>) -> Conflicts {
        let records = self.records();
        let accessors = self.accessors();
        let mut conflicts = Conflicts::none(records.len());
        for (b, rb) in records.iter().enumerate() {
            let id = rb.id();
            let mut declared = accessors.conflicting(rb);
            declared.remove(id);
            match live {
                // The declared rule is symmetric, so a system's set is all it needs.
                None => conflicts.sets[b] = conflicts.sets[b].union(&declared),
                Some(live) => {
                    // Each pair once, from its later system.
                    let earlier = declared.intersection(&SystemSet::first(b));
                    earlier.iter().for_each(|a| {
                        if records[a.index()].conflict_with(rb, Some(live)).is_some() {
                            conflicts.insert(a, id);
                        }
                    });
                }
            }
        }
        conflicts
    }
}
