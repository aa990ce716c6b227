//! The computed execution order: what the runner executes every tick.

use arrayvec::ArrayVec;
use laige_registry::{ComponentId, Fnv1a64, MAX_SYSTEMS, Names, Registry, SystemId, SystemSet};

use crate::cause::id_at;
use crate::{ReadBeforeWrite, SystemRef};

/// How many `read_before_write` warnings a schedule keeps as data; the count goes on.
pub const MAX_KEPT_WARNINGS: usize = 32;

/// The most tracks one schedule has.
pub const MAX_TRACKS: usize = 16;

/// A validated execution order over one registry's systems, plus the warnings scheduling
/// raised. About 1.2 KiB, returned by value: computing a flat one never allocates.
///
/// Beyond the sequential order it carries what a parallel executor needs: the track
/// boundaries (each track is a barrier) and the edges that bind whatever the data
/// (`depends_on`/`after`, `before`, exclusive phases; see [`Schedule::after`]). Conflicts of
/// declared access, and the declarative edges that follow from them (`after_weak`, fresh
/// reads, cross-phase conflicts), are not stored: an executor derives them from the
/// registry's conflict rule and the order.
#[derive(Clone)]
pub struct Schedule {
    order: [SystemId; MAX_SYSTEMS],
    len: u16,
    track_ends: [u16; MAX_TRACKS],
    tracks: u8,
    verified: bool,
    system_count: usize,
    registry: Option<u64>,
    edges: StrongEdges,
    warnings: ArrayVec<Warning, MAX_KEPT_WARNINGS>,
    names: Option<Names>,
    warning_count: usize,
    stamp: u64,
}

/// Where a schedule's strong edges are.
#[derive(Clone, Debug)]
pub(crate) enum StrongEdges {
    /// A hand-built schedule has none.
    None,
    /// The flat rules' edges are the registry's `depends_on`, resolved when asked: the
    /// schedule needs no room (and no allocation) for them.
    DependsOn,
    /// The declarative rules' strong edges, per system (built at setup, where that
    /// front end allocates anyway).
    Kept(Box<[SystemSet]>),
}

/// A kept `read_before_write` warning: reader, writer and component by 0-based index; the
/// names come from the registry's shared [`Names`].
#[derive(Clone, Copy, Debug)]
struct Warning {
    reader: u8,
    writer: u8,
    component: u8,
}

fn next_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

const FIRST: SystemId = match SystemId::new(1) {
    Some(id) => id,
    None => panic!("1 is a valid system id"),
};

impl Schedule {
    pub(crate) fn new(system_count: usize, registry: u64, edges: StrongEdges) -> Self {
        Self {
            order: [FIRST; MAX_SYSTEMS],
            len: 0,
            track_ends: [0; MAX_TRACKS],
            tracks: 0,
            verified: true,
            system_count,
            registry: Some(registry),
            edges,
            warnings: ArrayVec::new_const(),
            names: None,
            warning_count: 0,
            stamp: next_stamp(),
        }
    }

    /// A hand-built schedule for `system_count` systems running in `order`.
    ///
    /// Nothing is checked here: the runner checks it (`schedule_invalid`) before running
    /// anything. It is bound to no registry, so only the system count tells it is stale.
    /// Entries past [`MAX_SYSTEMS`] are dropped, which the runner then reports too.
    pub fn hand_built(system_count: usize, order: &[SystemId]) -> Self {
        let mut schedule = Self::new(system_count, 0, StrongEdges::None);
        schedule.registry = None;
        schedule.verified = false;
        let len = order.len().min(MAX_SYSTEMS);
        schedule.order[..len].copy_from_slice(&order[..len]);
        schedule.len = len as u16;
        schedule.end_track();
        schedule
    }

    #[inline]
    pub(crate) fn push(&mut self, id: SystemId) {
        self.order[usize::from(self.len)] = id;
        self.len += 1;
    }

    /// Closes the current track at the current end of the order.
    pub(crate) fn end_track(&mut self) {
        self.track_ends[usize::from(self.tracks)] = self.len;
        self.tracks += 1;
    }

    /// The tracks in order, each a slice of the order; a track starts only when the
    /// previous one has finished, structural commands applied.
    pub fn tracks(&self) -> impl ExactSizeIterator<Item = &[SystemId]> + '_ {
        (0..usize::from(self.tracks)).map(|t| {
            let start = if t == 0 {
                0
            } else {
                usize::from(self.track_ends[t - 1])
            };
            &self.order[start..usize::from(self.track_ends[t])]
        })
    }

    /// The schedule of the tracks `keep` selects (by index), in their order: the same
    /// registry, strong edges and warnings, a new [`Schedule::stamp`]. Still verified, since
    /// every track is a barrier: a runtime runs a frame track apart from the fixed ones with
    /// it (`laige-runtime`'s frame schedule).
    pub fn select_tracks(&self, keep: impl Fn(usize) -> bool) -> Schedule {
        let mut selected = self.clone();
        selected.len = 0;
        selected.tracks = 0;
        for (t, track) in self.tracks().enumerate() {
            if keep(t) {
                for &id in track {
                    selected.push(id);
                }
                selected.end_track();
            }
        }
        selected.stamp = next_stamp();
        selected
    }

    /// The systems `id` must run after whatever the data: `depends_on` / `after`,
    /// `before`, exclusive phases. Executors keep these edges and add the pairs whose
    /// access conflicts, in the order's direction.
    ///
    /// `registry` is the one this schedule was computed from: a flat schedule's strong
    /// edges are exactly its `depends_on`, which the registry keeps and resolves here
    /// (setup time). A hand-built schedule has none.
    pub fn after<R>(&self, id: SystemId, registry: &Registry<R>) -> SystemSet {
        match &self.edges {
            StrongEdges::None => SystemSet::EMPTY,
            StrongEdges::DependsOn => registry
                .depends_on(id)
                .iter()
                .filter_map(|&name| registry.find(name))
                .collect(),
            StrongEdges::Kept(sets) => sets.get(id.index()).copied().unwrap_or_default(),
        }
    }

    /// [`Schedule::after`] for every system of `registry`, indexed by [`SystemId::index`]:
    /// what an executor's plan keeps whatever the data (setup time, allocates).
    pub fn strong_edges<R>(&self, registry: &Registry<R>) -> Vec<SystemSet> {
        (0..registry.len())
            .map(|i| self.after(id_at(i), registry))
            .collect()
    }

    /// Keeps (the first [`MAX_KEPT_WARNINGS`] of) the warnings and counts them all; `names`
    /// names their systems.
    pub(crate) fn warn(&mut self, warning: &ReadBeforeWrite, names: &Names) {
        let index = |system: SystemRef| system.id.index() as u8;
        let _ = self.warnings.try_push(Warning {
            reader: index(warning.reader),
            writer: index(warning.writer),
            component: warning.component.id.index() as u8,
        });
        self.names.get_or_insert_with(|| names.clone());
        self.warning_count += 1;
    }

    /// A process-unique number for this schedule (kept by clones), so executors can cache
    /// what they derive from it. It never reaches an order or a result.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// The systems in execution order.
    pub fn order(&self) -> &[SystemId] {
        &self.order[..usize::from(self.len)]
    }

    /// How many systems the registry had when this schedule was computed.
    pub fn system_count(&self) -> usize {
        self.system_count
    }

    /// Whether the schedule runs nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The identity of the registry this schedule was computed from; `None` when hand built.
    pub fn registry_identity(&self) -> Option<u64> {
        self.registry
    }

    /// Whether the scheduler computed this order (and so proved it well formed).
    pub fn is_verified(&self) -> bool {
        self.verified
    }

    /// The `read_before_write` warnings, in emission order (at most [`MAX_KEPT_WARNINGS`]).
    pub fn warnings(&self) -> impl ExactSizeIterator<Item = ReadBeforeWrite> + '_ {
        self.warnings.iter().map(|w| {
            let names = self.names.as_ref().expect("a kept warning kept its names");
            let system = |index: u8| {
                let id = id_at(usize::from(index));
                SystemRef {
                    id,
                    name: names.system(id),
                }
            };
            ReadBeforeWrite {
                reader: system(w.reader),
                writer: system(w.writer),
                component: names.component(
                    ComponentId::from_index(usize::from(w.component)).expect("a component index"),
                ),
            }
        })
    }

    /// How many warnings scheduling raised, including any past [`MAX_KEPT_WARNINGS`].
    pub fn warning_count(&self) -> usize {
        self.warning_count
    }

    /// The known-answer hash of the order: FNV-1a 64 over each id widened to a big-endian
    /// `u64`. Two registries with the same registrations give the same hash.
    pub fn order_hash(&self) -> u64 {
        let mut h = Fnv1a64::new();
        for id in self.order() {
            h.write_u64(u64::from(id.get()));
        }
        h.finish()
    }
}

impl PartialEq for Schedule {
    /// Schedules are equal when they run the same systems in the same order for the same
    /// system count; the registry identity is deliberately ignored.
    fn eq(&self, other: &Self) -> bool {
        self.system_count == other.system_count && self.order() == other.order()
    }
}

impl Eq for Schedule {}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tracks: Vec<Vec<u32>> = self
            .tracks()
            .map(|t| t.iter().map(|id| id.get()).collect())
            .collect();
        f.debug_struct("Schedule")
            .field("system_count", &self.system_count)
            .field("tracks", &tracks)
            .field("verified", &self.verified)
            .field("warnings", &self.warning_count)
            .finish_non_exhaustive()
    }
}
