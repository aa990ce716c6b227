//! Comparing two checksum records: the first tick, system and component that differ.

use std::fmt;

use super::ChecksumRecord;

/// The system and component a [`Desync`] names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Culprit {
    /// The system's registration name.
    pub system: String,
    /// The written component whose checksum differs.
    pub component: String,
}

/// Where two runs first differ ([`ChecksumRecord::first_desync`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desync {
    /// The first tick both records hold on which they differ.
    pub tick: u64,
    /// The first system in schedule order whose written component differs after its track,
    /// with that component; `None` when every written component matches and only the state
    /// hash differs (commands, undeclared state, or a change made outside systems).
    pub culprit: Option<Culprit>,
    /// That checksum (or the state hash, without a culprit) in the first record.
    pub ours: u64,
    /// The same in the second record.
    pub theirs: u64,
    /// Whether the state hashes of that tick differ too.
    pub state_differs: bool,
    /// Whether what differs first is a skip: the culprit ran in one run and was skipped in
    /// the other, or skipped for other reasons; `ours` and `theirs` are then skip codes
    /// ([`skip_code`](super::skip_code)) and the culprit's component is empty.
    pub skip_differs: bool,
}

impl fmt::Display for Desync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (tick, ours, theirs) = (self.tick, self.ours, self.theirs);
        if let (true, Some(Culprit { system, .. })) = (self.skip_differs, &self.culprit) {
            let how = |code| super::skip_token(code).map_or("ran", |it| it);
            return write!(
                f,
                "desync at tick {tick}: system `{system}` did not run the same way (here: {}, \
                 there: {}); look at what its run condition or the systems before it read \
                 that is not the same in both runs (docs/lockstep.md)",
                how(ours),
                how(theirs)
            );
        }
        match &self.culprit {
            Some(Culprit { system, component }) => {
                write!(
                    f,
                    "desync at tick {tick}: system `{system}` wrote `{component}` differently \
                     (checksum {ours:#018x} here, {theirs:#018x} there)"
                )?;
                if !self.state_differs {
                    f.write_str(", though the state hashes still agree")?;
                }
                write!(
                    f,
                    "; look in `{system}` for a read of something not the same in both runs: \
                     an unseeded random source, a hash map's iteration order, the clock, or a \
                     float function outside IEEE's basic operations (docs/lockstep.md)"
                )
            }
            None => write!(
                f,
                "desync at tick {tick}: the state hash differs ({ours:#018x} here, \
                 {theirs:#018x} there) but every system's written components match; look at \
                 commands (spawns, despawns, inserts), PRNG draws, and changes made to the \
                 world outside systems"
            ),
        }
    }
}

/// Why two records cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompareError {
    /// The records list different systems, or a system with different writes: they come
    /// from different schedules.
    DifferentSchedules {
        /// The first position in schedule order where they differ.
        position: usize,
        /// That system in the first record, with its writes (`None` past its end).
        ours: Option<String>,
        /// The same in the second.
        theirs: Option<String>,
    },
    /// No tick is in both records.
    NoCommonTick {
        /// The first record's ticks, first and last (`None` when empty).
        ours: Option<(u64, u64)>,
        /// The second's.
        theirs: Option<(u64, u64)>,
    },
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let or_none = |it: &Option<String>| it.clone().unwrap_or_else(|| "no system".to_owned());
        let range = |it: &Option<(u64, u64)>| {
            it.map_or("no ticks".to_owned(), |(a, b)| format!("ticks {a}..={b}"))
        };
        match self {
            CompareError::DifferentSchedules {
                position,
                ours,
                theirs,
            } => write!(
                f,
                "the records come from different schedules: at position {position} one has {} \
                 and the other {}; compare runs of the same build of the same systems",
                or_none(ours),
                or_none(theirs)
            ),
            CompareError::NoCommonTick { ours, theirs } => write!(
                f,
                "the records share no tick: one holds {} and the other {}; record the same \
                 ticks on both sides (a larger capacity keeps more)",
                range(ours),
                range(theirs)
            ),
        }
    }
}

impl std::error::Error for CompareError {}

impl ChecksumRecord {
    /// Compares this record with `other` (another process, machine or build, or a saved
    /// file) over the ticks both hold, and returns where they first differ: the first such
    /// tick, and in it the first system in schedule order and the first component it writes
    /// whose checksum differs. `Ok(None)` when every common tick agrees.
    ///
    /// # Errors
    ///
    /// [`CompareError::DifferentSchedules`] when the records list different systems or
    /// writes, [`CompareError::NoCommonTick`] when they hold no tick in common.
    pub fn first_desync(&self, other: &ChecksumRecord) -> Result<Option<Desync>, CompareError> {
        self.same_schedule(other)?;
        let (mut ours, mut theirs) = (self.ticks().peekable(), other.ticks().peekable());
        let mut common = false;
        // Both hold ascending ticks: walk them like a merge, comparing the ticks in both.
        while let (Some(&a), Some(&b)) = (ours.peek(), theirs.peek()) {
            if a.tick() < b.tick() {
                ours.next();
                continue;
            }
            if b.tick() < a.tick() {
                theirs.next();
                continue;
            }
            common = true;
            ours.next();
            theirs.next();
            if a.row[1..] == b.row[1..] {
                continue;
            }
            let state_differs = a.state_hash() != b.state_hash();
            // A skip decides what a system wrote, so it is named before any checksum.
            let skipped = a.skips().iter().zip(b.skips()).position(|(x, y)| x != y);
            if let Some(position) = skipped {
                return Ok(Some(Desync {
                    tick: a.tick(),
                    culprit: self.systems.get(position).map(|system| Culprit {
                        system: system.name.clone(),
                        component: String::new(),
                    }),
                    ours: a.skips()[position],
                    theirs: b.skips()[position],
                    state_differs,
                    skip_differs: true,
                }));
            }
            let slot = a
                .checksums()
                .iter()
                .zip(b.checksums())
                .position(|(x, y)| x != y);
            let Some(slot) = slot else {
                return Ok(Some(Desync {
                    tick: a.tick(),
                    culprit: None,
                    ours: a.state_hash(),
                    theirs: b.state_hash(),
                    state_differs,
                    skip_differs: false,
                }));
            };
            let culprit = self
                .systems
                .iter()
                .flat_map(|system| system.writes.iter().map(move |c| (system, c)))
                .nth(slot)
                .map(|(system, component)| Culprit {
                    system: system.name.clone(),
                    component: component.clone(),
                });
            return Ok(Some(Desync {
                tick: a.tick(),
                culprit,
                ours: a.checksums()[slot],
                theirs: b.checksums()[slot],
                state_differs,
                skip_differs: false,
            }));
        }
        if !common {
            let span = |record: &ChecksumRecord| {
                let mut ticks = record.ticks().map(|it| it.tick());
                ticks
                    .next()
                    .map(|first| (first, ticks.last().unwrap_or(first)))
            };
            return Err(CompareError::NoCommonTick {
                ours: span(self),
                theirs: span(other),
            });
        }
        Ok(None)
    }

    fn same_schedule(&self, other: &ChecksumRecord) -> Result<(), CompareError> {
        let describe = |record: &ChecksumRecord, position: usize| {
            record
                .systems
                .get(position)
                .map(|it| format!("`{}` (writes: {})", it.name, it.writes.join(", ")))
        };
        let positions = self.systems.len().max(other.systems.len());
        match (0..positions).find(|&p| self.systems.get(p) != other.systems.get(p)) {
            None => Ok(()),
            Some(position) => Err(CompareError::DifferentSchedules {
                position,
                ours: describe(self, position),
                theirs: describe(other, position),
            }),
        }
    }
}
