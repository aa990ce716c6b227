//! A [`WorldState`] written to a save file and read back (feature `serde`): the compact
//! binary form (postcard) and the readable text form (JSON), docs/api/rollback.md "Save
//! files" and docs/decisions/0019-save-files.md.
//!
//! The file is the header (`LAIGESAV`, format version), then the sections: `tick` (the tick
//! number, whether the first tick ran, the skips asked for the next one), the storage's
//! (`types`, `entities`, `tables`, `resources`, `snapshots`, `sparse`; see
//! `laige_storage::StorageState::write_file`), and `systems` (per system its name, PRNG
//! stream, `par_each` loop count and change ticks). A read checks the whole file against
//! the world before the state is replaced, so a failed read leaves the state as it was.

use laige_query::RunTicks;
use laige_storage::{SaveFileError, SaveReader, SaveWriter, StorageState};
use serde::{Deserialize, Serialize};

use super::{SavedLocals, StorageSection, SystemsSection, TickSection, WorldState};
use crate::gate::code;
use crate::{Prng, World};

/// The `tick` section.
#[derive(Debug, Serialize, Deserialize)]
struct TickDoc {
    tick: u64,
    ticked: bool,
    /// Per system the skip asked for its next run: status code and cause (empty for none).
    requests: Vec<(u8, u32)>,
}

/// One system of the `systems` section.
#[derive(Debug, Serialize, Deserialize)]
struct SystemDoc {
    name: String,
    seed: u64,
    rng: (u64, u64),
    /// `par_each` loops run: the root of its batches' streams.
    loops: u64,
    last_run: u64,
    this_run: u64,
    next_tick: u64,
}

impl WorldState {
    /// The state as a binary save file (postcard; see [`WorldState::write_binary`]).
    ///
    /// # Errors
    ///
    /// As for [`WorldState::write_binary`].
    pub fn to_binary(&self, world: &World) -> Result<Vec<u8>, SaveFileError> {
        let mut out = Vec::new();
        self.write_binary(world, &mut out)?;
        Ok(out)
    }

    /// Appends the state to `out` as a binary save file: the header, then every section,
    /// values through their types' serde impls as postcard. `world` is the world the state
    /// was saved from (it holds the serde functions of each type). Feature `serde`.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::Empty`]; [`SaveFileError::OtherWorld`] for a state saved from
    /// another world; [`SaveFileError::NotSerde`] naming the first registered type (by id)
    /// without serde registration (event queues have no file form);
    /// [`SaveFileError::LocalHasNoFileForm`] for a system that keeps `Local` values;
    /// [`SaveFileError::Value`] when a value's `Serialize` fails. `out` is left as it was
    /// then, and the event is emitted.
    pub fn write_binary(&self, world: &World, out: &mut Vec<u8>) -> Result<(), SaveFileError> {
        let start = out.len();
        let written = self.write(world, &mut SaveWriter::binary(out));
        if written.is_err() {
            out.truncate(start);
        }
        written.map_err(|err| world.storage.report(err))
    }

    /// The state as a JSON save file: the same sections as [`WorldState::write_binary`],
    /// keys sorted, pretty-printed, each value as its serde impl writes it.
    ///
    /// # Errors
    ///
    /// As for [`WorldState::write_binary`].
    pub fn to_json(&self, world: &World) -> Result<String, SaveFileError> {
        let mut out = SaveWriter::json();
        match self.write(world, &mut out) {
            Ok(()) => Ok(out.into_json()),
            Err(err) => Err(world.storage.report(err)),
        }
    }

    /// Makes this state the one the binary save file `bytes` holds, for `world` (which
    /// supplies the registry the file is matched against and the serde functions); then
    /// `world.restore_state(&state)` loads it. The whole file is checked first: on any
    /// error the state is left as it was. Never panics on any input.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::BadMagic`], [`SaveFileError::UnsupportedVersion`],
    /// [`SaveFileError::Truncated`], [`SaveFileError::Malformed`] and
    /// [`SaveFileError::Trailing`] for damaged input; [`SaveFileError::TypesDiffer`],
    /// [`SaveFileError::TypeDiffers`] and [`SaveFileError::SystemsDiffer`] for a file of
    /// another registry; [`SaveFileError::NotSerde`], [`SaveFileError::Value`] and
    /// [`SaveFileError::Inconsistent`]. The event is emitted.
    pub fn from_binary(&mut self, world: &World, bytes: &[u8]) -> Result<(), SaveFileError> {
        let read = SaveReader::binary(bytes).and_then(|input| Self::read(world, input));
        self.replace_with(world, read)
    }

    /// [`WorldState::from_binary`] for a JSON save file.
    ///
    /// # Errors
    ///
    /// As for [`WorldState::from_binary`]; a text that is no JSON is
    /// [`SaveFileError::Malformed`] with serde_json's line and column.
    pub fn from_json(&mut self, world: &World, text: &str) -> Result<(), SaveFileError> {
        let read = SaveReader::json(text).and_then(|input| Self::read(world, input));
        self.replace_with(world, read)
    }

    fn replace_with(
        &mut self,
        world: &World,
        read: Result<WorldState, SaveFileError>,
    ) -> Result<(), SaveFileError> {
        match read {
            Ok(state) => {
                *self = state;
                Ok(())
            }
            Err(err) => Err(world.storage.report(err)),
        }
    }

    fn write(&self, world: &World, out: &mut SaveWriter<'_>) -> Result<(), SaveFileError> {
        if !self.is_saved() {
            return Err(SaveFileError::Empty);
        }
        let records = world.registry.records();
        let names = &self.systems.names;
        for index in 0..names.len().max(records.len()) {
            let (state, live) = (
                names.get(index).copied(),
                records.get(index).map(|r| r.name()),
            );
            if state != live {
                return Err(SaveFileError::OtherWorld {
                    kind: "system",
                    id: index as u32 + 1,
                    state: state.unwrap_or(""),
                    world: live.unwrap_or(""),
                });
            }
        }
        for (name, locals) in names.iter().zip(&self.systems.locals) {
            if let Some(local) = locals.types.first() {
                return Err(SaveFileError::LocalHasNoFileForm {
                    system: name,
                    local,
                });
            }
        }
        out.section(
            "tick",
            &TickDoc {
                tick: self.tick.tick,
                ticked: self.tick.ticked,
                requests: self.tick.requests.clone(),
            },
        )?;
        self.storage.0.write_file(&world.storage, out)?;
        let systems: Vec<SystemDoc> = names
            .iter()
            .zip(&self.systems.rngs)
            .zip(&self.systems.change_ticks)
            .map(|((name, (rng, loops)), (ticks, next_tick))| SystemDoc {
                name: (*name).to_owned(),
                seed: rng.seed(),
                rng: rng.state(),
                loops: *loops,
                last_run: ticks.last_run(),
                this_run: ticks.this_run(),
                next_tick: *next_tick,
            })
            .collect();
        out.section("systems", &systems)
    }

    fn read(world: &World, mut input: SaveReader<'_>) -> Result<WorldState, SaveFileError> {
        let tick: TickDoc = input.section("tick")?;
        let storage = StorageState::read_file(&world.storage, &mut input)?;
        let systems: Vec<SystemDoc> = input.section("systems")?;
        input.finish()?;

        let records = world.registry.records();
        for index in 0..systems.len().max(records.len()) {
            let file = systems.get(index).map(|it| it.name.as_str());
            let live = records.get(index).map(|it| it.name());
            if file != live {
                return Err(SaveFileError::SystemsDiffer {
                    id: u32::try_from(index + 1).unwrap_or(u32::MAX),
                    file: file.unwrap_or("").into(),
                    world: live.unwrap_or(""),
                });
            }
        }
        let count = records.len();
        let request_fits =
            |&(status, cause): &(u8, u32)| status <= code::ABORTED && cause as usize <= count;
        if !(tick.requests.is_empty() || tick.requests.len() == count)
            || !tick.requests.iter().all(request_fits)
        {
            return Err(SaveFileError::Inconsistent {
                section: "tick",
                detail: format!(
                    "the skips asked for the next tick are not one known status and cause per \
                     system ({} for {count} systems)",
                    tick.requests.len()
                )
                .into(),
            });
        }
        Ok(WorldState {
            storage: StorageSection(storage),
            systems: SystemsSection {
                names: records.iter().map(|it| it.name()).collect(),
                rngs: systems
                    .iter()
                    .map(|it| (Prng::from_parts(it.seed, it.rng), it.loops))
                    .collect(),
                change_ticks: systems
                    .iter()
                    .map(|it| (RunTicks::new(it.last_run, it.this_run), it.next_tick))
                    .collect(),
                // No `Local` has a file form: a world whose systems keep some refuses the
                // restore by name (`StateError::LocalsDiffer`).
                locals: (0..count).map(|_| SavedLocals::default()).collect(),
            },
            tick: TickSection {
                tick: tick.tick,
                ticked: tick.ticked,
                requests: tick.requests,
            },
        })
    }
}
