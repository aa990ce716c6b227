//! The desync finder for lockstep engines: a per-tick record of checksums, its file form,
//! and the comparison that names the first tick, system and component where two runs part.
//!
//! Each recorded tick holds the world's `state_hash` after the
//! tick, and, per system in schedule order and per component it declares as a write, a
//! checksum of that component's values in the tables the system may touch, taken after the
//! system's track (its commands applied). Two peers that record the same schedule can
//! compare records ([`ChecksumRecord::first_desync`]); the first checksum that differs names
//! the system that wrote differently, usually because it read something that was not the
//! same on both sides (an unseeded random source, a hash map's order, a platform `sin`).

mod compare;
mod file;

use laige_registry::{ComponentId, ComponentSet, Registry, SystemId};
use laige_scheduler::Schedule;

use laige_storage::Storage;

pub use compare::{CompareError, Culprit, Desync};
pub use file::{CHECKSUM_MAGIC, CHECKSUM_VERSION, RecordError};

/// The skip reasons a record stores, by code (code `k + 1` is `SKIP_TOKENS[k]`; 0 is a
/// system that was not skipped): the World's `SkipReason` tokens.
pub const SKIP_TOKENS: [&str; 6] = [
    "run_condition_false",
    "events_empty",
    "throttled",
    "shed",
    "dependency_failed",
    "aborted",
];

/// The code a record stores for skip reason `token` (0 for `None` or a token it does not
/// know, so an unknown reason reads as ran rather than failing a record).
pub fn skip_code(token: Option<&str>) -> u64 {
    token
        .and_then(|token| SKIP_TOKENS.iter().position(|&it| it == token))
        .map_or(0, |k| k as u64 + 1)
}

/// The skip reason a stored code stands for; `None` for 0 (ran) or an unknown code.
pub fn skip_token(code: u64) -> Option<&'static str> {
    let k = usize::try_from(code.checked_sub(1)?).ok()?;
    SKIP_TOKENS.get(k).copied()
}

/// One system of a record: its name and the components it declares as writes (ascending id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedSystem {
    /// The system's registration name.
    pub name: String,
    /// The names of the components it writes, each with one checksum per tick.
    pub writes: Vec<String>,
}

/// What a live record checksums: one (component, the writer's footprint) per slot.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Slot {
    component: ComponentId,
    footprint: ComponentSet,
}

/// Per-tick checksums of one world, or of a record read from a file.
///
/// A tick's row is its tick number, the state hash, one skip code per system in schedule
/// order ([`skip_code`]: 0 when it ran), then one checksum per slot: per system in schedule
/// order, per written component in ascending id. It keeps the last `capacity`
/// ticks; all rows are reserved when the schedule is first seen, so recording allocates
/// nothing per tick.
///
/// The world drives its record each tick ([`ChecksumRecord::begin_tick`],
/// [`ChecksumRecord::record_track`], [`ChecksumRecord::end_tick`]); a record made with
/// [`ChecksumRecord::new`] and driven by hand records what it is given, and a call out of
/// order records nothing rather than panicking.
#[derive(Clone, Debug)]
pub struct ChecksumRecord {
    systems: Vec<RecordedSystem>,
    capacity: usize,
    /// How many ticks were recorded in all; the ring holds the last `capacity`.
    recorded: u64,
    /// The first recording still held by number (0 unless a rewind moved it): the ticks
    /// before it were overwritten by ones a rewind then dropped.
    oldest: u64,
    /// `capacity` rows of `width()` words.
    rows: Vec<u64>,
    /// A live record's schedule stamp (0 for a record read from a file) and its slots.
    schedule: u64,
    slots: Vec<Slot>,
    /// Per track, its slots: `track_slots[t]..track_slots[t + 1]`.
    track_slots: Vec<usize>,
    /// A live record's systems' ids in schedule order, and per track its systems:
    /// `track_systems[t]..track_systems[t + 1]`.
    ids: Vec<SystemId>,
    track_systems: Vec<usize>,
}

/// One recorded tick of a [`ChecksumRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickChecksums<'a> {
    row: &'a [u64],
    systems: usize,
}

impl<'a> TickChecksums<'a> {
    /// The world's tick number (0 for the first tick it ran).
    pub fn tick(&self) -> u64 {
        self.row[0]
    }

    /// The world's state hash after the tick.
    pub fn state_hash(&self) -> u64 {
        self.row[1]
    }

    /// The written-component checksums: per system in schedule order, per component it
    /// writes in ascending id (as [`ChecksumRecord::systems`] lists them).
    pub fn checksums(&self) -> &'a [u64] {
        &self.row[2 + self.systems..]
    }

    /// Per system in schedule order, its skip code ([`skip_code`]; 0: it was not skipped).
    pub fn skips(&self) -> &'a [u64] {
        &self.row[2..2 + self.systems]
    }

    /// Why the system at `position` in schedule order was skipped this tick, if it was.
    pub fn skip(&self, position: usize) -> Option<&'static str> {
        skip_token(*self.skips().get(position)?)
    }
}

impl ChecksumRecord {
    /// An empty live record keeping the last `capacity` ticks (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            systems: Vec::new(),
            capacity: capacity.max(1),
            recorded: 0,
            oldest: 0,
            rows: Vec::new(),
            schedule: 0,
            slots: Vec::new(),
            track_slots: Vec::new(),
            ids: Vec::new(),
            track_systems: Vec::new(),
        }
    }

    /// A record of `systems` holding `rows` (each `2 + systems + slots` words, oldest
    /// first), as read from a file.
    fn from_rows(systems: Vec<RecordedSystem>, rows: Vec<u64>) -> Self {
        let width = row_width(&systems);
        let ticks = rows.len() / width;
        Self {
            systems,
            capacity: ticks.max(1),
            recorded: ticks as u64,
            oldest: 0,
            rows,
            schedule: 0,
            slots: Vec::new(),
            track_slots: Vec::new(),
            ids: Vec::new(),
            track_systems: Vec::new(),
        }
    }

    /// The systems in schedule order, each with the components it writes.
    pub fn systems(&self) -> &[RecordedSystem] {
        &self.systems
    }

    /// Words per row: the tick number, the state hash, one skip code per system, one
    /// checksum per slot.
    fn width(&self) -> usize {
        row_width(&self.systems)
    }

    /// How many ticks the record holds (at most its capacity).
    pub fn len(&self) -> usize {
        (self.recorded - self.oldest).min(self.capacity as u64) as usize
    }

    /// Whether it holds no tick.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many ticks it keeps: the last ones.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The ticks held, oldest first.
    pub fn ticks(&self) -> impl ExactSizeIterator<Item = TickChecksums<'_>> + '_ {
        let first = self.recorded - self.len() as u64;
        (0..self.len()).map(move |k| TickChecksums {
            row: self.row(self.slot(first + k as u64)),
            systems: self.systems.len(),
        })
    }

    /// The last tick recorded, if any: what a lockstep peer sends each tick.
    pub fn latest(&self) -> Option<TickChecksums<'_>> {
        self.ticks().last()
    }

    fn slot(&self, index: u64) -> usize {
        (index % self.capacity as u64) as usize
    }

    fn row(&self, slot: usize) -> &[u64] {
        let width = self.width();
        &self.rows[slot * width..(slot + 1) * width]
    }

    /// Lays the rows out for `schedule` now, if they are not yet, so its first tick
    /// allocates nothing.
    pub fn prepare<R>(&mut self, schedule: &Schedule, registry: &Registry<R>) {
        if self.schedule != schedule.stamp() {
            self.lay_out(schedule, registry);
        }
    }

    /// Lays the record out for `schedule` when it is not the one it was laid out for and
    /// lists other systems, writes or footprints, which drops the ticks recorded so far
    /// (setup-time work: a new schedule). Then starts the row of tick `tick`.
    pub fn begin_tick<R>(&mut self, schedule: &Schedule, registry: &Registry<R>, tick: u64) {
        self.prepare(schedule, registry);
        let width = self.width();
        let slot = self.slot(self.recorded);
        self.rows[slot * width] = tick;
        self.recorded += 1;
    }

    fn lay_out<R>(&mut self, schedule: &Schedule, registry: &Registry<R>) {
        self.schedule = schedule.stamp();
        let mut systems = Vec::new();
        let mut slots = Vec::new();
        let mut track_slots = Vec::new();
        let mut ids = Vec::new();
        let mut track_systems = Vec::new();
        for track in schedule.tracks() {
            track_slots.push(slots.len());
            track_systems.push(ids.len());
            for &id in track {
                let Ok(record) = registry.get(id) else {
                    continue;
                };
                ids.push(id);
                let mut writes = Vec::new();
                for component in record.writes().iter() {
                    writes.push(component_name(registry, component));
                    slots.push(Slot {
                        component,
                        footprint: *record.matching(),
                    });
                }
                systems.push(RecordedSystem {
                    name: record.name().to_owned(),
                    writes,
                });
            }
        }
        track_slots.push(slots.len());
        track_systems.push(ids.len());
        self.ids = ids;
        self.track_systems = track_systems;
        let same =
            (&systems, &slots, &track_slots) == (&self.systems, &self.slots, &self.track_slots);
        if same && !self.rows.is_empty() {
            return;
        }
        self.systems = systems;
        self.slots = slots;
        self.track_slots = track_slots;
        self.recorded = 0;
        self.oldest = 0;
        self.rows = vec![0; self.capacity * self.width()];
    }

    /// Drops the ticks numbered `tick` or later that the record holds, newest first: after
    /// a world restores a state saved before tick `tick`, its record reads as if those
    /// ticks never ran, and the ticks it runs again are recorded in their place.
    pub fn rewind_to(&mut self, tick: u64) {
        self.oldest = self
            .oldest
            .max(self.recorded.saturating_sub(self.capacity as u64));
        while self.recorded > self.oldest && self.row(self.slot(self.recorded - 1))[0] >= tick {
            self.recorded -= 1;
        }
    }

    /// Checksums what the systems of track `t` wrote, into the current row.
    pub fn record_track(&mut self, t: usize, storage: &mut Storage) {
        let (Some(&first), Some(&last)) = (self.track_slots.get(t), self.track_slots.get(t + 1))
        else {
            return;
        };
        let width = self.width();
        let row = self.slot(self.recorded.wrapping_sub(1)) * width;
        let base = row + 2 + self.systems.len();
        for (slot, value) in self.slots[first..last]
            .iter()
            .zip(&mut self.rows[base + first..base + last])
        {
            *value = storage.written_checksum(slot.component, &slot.footprint);
        }
        if let (Some(&first), Some(&last)) =
            (self.track_systems.get(t), self.track_systems.get(t + 1))
        {
            self.rows[row + 2 + first..row + 2 + last].fill(0);
        }
    }

    /// Records why systems of track `t` of the current row were skipped (`skip_of` gives a
    /// skip reason's token, `None` for a system that ran); call it after
    /// [`ChecksumRecord::record_track`], only for a track with skips.
    pub fn record_skips(&mut self, t: usize, skip_of: impl Fn(SystemId) -> Option<&'static str>) {
        let (Some(&first), Some(&last)) =
            (self.track_systems.get(t), self.track_systems.get(t + 1))
        else {
            return;
        };
        let row = self.slot(self.recorded.wrapping_sub(1)) * self.width();
        for (id, code) in self.ids[first..last]
            .iter()
            .zip(&mut self.rows[row + 2 + first..row + 2 + last])
        {
            *code = skip_code(skip_of(*id));
        }
    }

    /// Ends the current row with the world's state hash; does nothing before the first
    /// [`ChecksumRecord::begin_tick`].
    pub fn end_tick(&mut self, state_hash: u64) {
        if self.recorded == 0 {
            return;
        }
        let width = self.width();
        let slot = self.slot(self.recorded - 1);
        if let Some(hash) = self.rows.get_mut(slot * width + 1) {
            *hash = state_hash;
        }
    }
}

/// Words per row of a record of `systems`.
fn row_width(systems: &[RecordedSystem]) -> usize {
    2 + systems.len() + systems.iter().map(|it| it.writes.len()).sum::<usize>()
}

/// How a record names `component`: its registered name, or `component <id>`.
fn component_name<R>(registry: &Registry<R>, component: ComponentId) -> String {
    let name = registry.component_name(component);
    if name.name.is_empty() {
        format!("component {}", component.get())
    } else {
        name.name.to_owned()
    }
}
