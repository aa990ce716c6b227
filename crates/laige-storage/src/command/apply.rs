//! Applying a command buffer to the storage, in recording order.

use super::{ApplyStats, CommandKind, CommandSkipReason};
use super::{Command, CommandBuffer, Target};
use crate::storage::{RowWriter, RunValues};
use crate::{Entity, Storage, WorldError};

impl CommandBuffer {
    fn resolve(&self, target: Target) -> Option<Entity> {
        match target {
            Target::Entity(entity) => Some(entity),
            Target::Pending(index) => self.resolved.get(index as usize).copied().flatten(),
        }
    }
}

impl Storage {
    /// Applies every command of `buffer` in recording order, then empties it (keeping its
    /// capacity). A command whose target is stale is skipped, its value dropped, and reported
    /// (`ecs/stale_entity_access`, or `ecs/stale_entity_destroy` for a despawn).
    ///
    /// # Errors
    ///
    /// [`WorldError::ForeignCommandBuffer`] when the buffer was filled for another world; it
    /// is then cleared without applying anything.
    pub fn apply_commands(&mut self, buffer: &mut CommandBuffer) -> Result<ApplyStats, WorldError> {
        if buffer.world != 0 && buffer.world != self.identity() {
            buffer.clear();
            return Err(self.report(WorldError::ForeignCommandBuffer));
        }
        let mut stats = ApplyStats::default();
        buffer.resolved.clear();
        let mut i = 0;
        // Commands before this one are inserts already found to need the single path (a
        // sparse component's run): they skip the run test.
        let mut single_until = 0;
        while i < buffer.commands.len() {
            // Only a spawn or an insert can start a run: other commands skip the tests.
            let batched = match buffer.commands[i] {
                Command::Spawn { .. } => spawn_run(self, buffer, i),
                Command::SpawnRow { .. } => batch_run(self, buffer, i),
                Command::Insert { .. } if i >= single_until => {
                    // It counts its own commands, some of which may be skipped.
                    match insert_run(self, buffer, i, &mut stats) {
                        InsertRun::Applied(run) => {
                            i += run;
                            continue;
                        }
                        InsertRun::Single(run) => single_until = i + run,
                    }
                    0
                }
                _ => 0,
            };
            if batched > 0 {
                stats.applied += batched;
                i += batched;
                continue;
            }
            let (command, skip) = match buffer.commands[i] {
                Command::Spawn {
                    signature,
                    first,
                    count,
                } => {
                    let range = first as usize..(first + count) as usize;
                    let values = &mut buffer.values;
                    let arena = &mut buffer.arena;
                    // SAFETY: the values were recorded from a bundle resolved to exactly
                    // `signature`, one per component, each live and owned by the buffer; each is
                    // marked dead as it is moved.
                    let spawned = unsafe {
                        self.spawn_with(&signature, |row| {
                            for value in &mut values[range.clone()] {
                                value.live = false;
                                row.write(value.component, arena.ptr(value.offset));
                            }
                        })
                    };
                    if spawned.is_err() {
                        for v in range {
                            buffer.drop_value(v);
                        }
                    }
                    buffer.resolved.push(spawned.ok());
                    (
                        CommandKind::Spawn,
                        spawned.err().map(CommandSkipReason::Refused),
                    )
                }
                Command::SpawnRow { batch, row } => {
                    let (batch, row) = (batch as usize, row as usize);
                    let record = buffer.batches[batch];
                    let first = record.first_column as usize;
                    let columns = &buffer.batch_columns[first..first + record.columns as usize];
                    let base = buffer.arena.ptr(0);
                    // SAFETY: the row's values were recorded from a bundle resolved to exactly
                    // the batch's signature, one per column, each live and owned by the buffer
                    // until the row is marked consumed just below.
                    let spawned = unsafe {
                        self.spawn_with(&record.signature, |writer| {
                            for column in columns {
                                let src = base.wrapping_add(column.offset + row * column.size);
                                writer.write(column.component, src);
                            }
                        })
                    };
                    match spawned {
                        Ok(_) => buffer.batches[batch].consumed = row as u32 + 1,
                        Err(_) => buffer.drop_batch_rows(batch, row as u32 + 1),
                    }
                    buffer.resolved.push(spawned.ok());
                    (
                        CommandKind::Spawn,
                        spawned.err().map(CommandSkipReason::Refused),
                    )
                }
                Command::Despawn { target } => {
                    let skip = match live_target(self, buffer, target, "despawn") {
                        Ok((entity, location)) => {
                            self.despawn_at(entity, location);
                            None
                        }
                        Err(reason) => Some(reason),
                    };
                    (CommandKind::Despawn, skip)
                }
                Command::Insert { target, value } => {
                    let component = buffer.values[value as usize].component;
                    let kind = CommandKind::Insert(self.components().get(component).name());
                    let skip = match live_target(self, buffer, target, "insert") {
                        Ok((entity, location)) => {
                            let value = &mut buffer.values[value as usize];
                            value.live = false;
                            let src = buffer.arena.ptr(value.offset);
                            // SAFETY: the entity is live at `location`; the value is a valid,
                            // aligned value of its component's type, owned by the buffer until now
                            // (marked dead above, so the buffer never drops it).
                            unsafe { self.insert_erased(entity, location, value.component, src) };
                            None
                        }
                        Err(reason) => {
                            buffer.drop_value(value as usize);
                            Some(reason)
                        }
                    };
                    (kind, skip)
                }
                Command::Remove { target, component } => {
                    let kind = CommandKind::Remove(self.components().get(component).name());
                    let skip = match live_target(self, buffer, target, "remove") {
                        Ok((entity, location)) => {
                            // SAFETY: the entity is live at `location`; no output: the value is dropped.
                            unsafe { self.remove_erased(entity, location, component, None) };
                            None
                        }
                        Err(reason) => Some(reason),
                    };
                    (kind, skip)
                }
                Command::Refused { command, error } => {
                    if command == CommandKind::Spawn {
                        // Its placeholder resolves to nothing, so commands on it are skipped too.
                        buffer.resolved.push(None);
                    }
                    (command, Some(CommandSkipReason::Refused(error)))
                }
            };
            stats.count(i, command, skip);
            i += 1;
        }
        buffer.reset();
        Ok(stats)
    }
}

/// Applies the run of consecutive spawns of one component set that starts at command
/// `start`, as one batch: one table lookup and one reservation. Returns how many spawns it
/// applied; 0 when no run of two or more starts there, or none could be batched. The run
/// is cut to the entities the limit leaves room for, so the spawns it leaves fail one by
/// one, each reported, exactly as without batching.
fn spawn_run(storage: &mut Storage, buffer: &mut CommandBuffer, start: usize) -> usize {
    let Command::Spawn { signature, .. } = buffer.commands[start] else {
        return 0;
    };
    let room = storage.room() as usize;
    let run = buffer.commands[start..]
        .iter()
        .take(room)
        .take_while(|c| matches!(c, Command::Spawn { signature: s, .. } if *s == signature))
        .count();
    if run < 2 {
        return 0;
    }
    let values = &buffer.values;
    let base = buffer.arena.ptr(0);
    let rows = buffer.commands[start..start + run].iter().map(|command| {
        let Command::Spawn { first, count, .. } = *command else {
            unreachable!("the run holds spawns only");
        };
        move |row: &mut RowWriter<'_>| {
            for value in &values[first as usize..(first + count) as usize] {
                // SAFETY: the values were recorded from a bundle resolved to exactly
                // `signature`, one per component, each live, aligned in the arena and owned
                // by the buffer; they are marked dead below once moved.
                unsafe { row.write(value.component, base.wrapping_add(value.offset)) };
            }
        }
    });
    // SAFETY: each row writes every component of `signature` once (above).
    let (spawned, outcome) = unsafe { storage.spawn_rows_with(&signature, rows) };
    debug_assert!(outcome.is_ok() || spawned.len() < run);
    let spawned_count = spawned.len();
    buffer.resolved.extend(spawned.iter().copied().map(Some));
    for command in &buffer.commands[start..start + spawned_count] {
        let Command::Spawn { first, count, .. } = *command else {
            unreachable!("the run holds spawns only");
        };
        for value in &mut buffer.values[first as usize..(first + count) as usize] {
            value.live = false;
        }
    }
    spawned_count
}

/// Applies the run of consecutive rows of one batch (`Commands::spawn_batch`) that starts at
/// command `start` with one column copy per component (`Storage::spawn_columns`). Returns
/// how many spawns it applied; 0 when no run of two or more starts there. The run is cut to
/// the entities the limit leaves room for, as `spawn_run` does.
fn batch_run(storage: &mut Storage, buffer: &mut CommandBuffer, start: usize) -> usize {
    let Some(&Command::SpawnRow { batch, row }) = buffer.commands.get(start) else {
        return 0;
    };
    let record = buffer.batches[batch as usize];
    // A batch's rows are recorded as consecutive commands, so the run is the rest of them.
    let run = ((record.rows - row) as usize).min(storage.room() as usize);
    if run < 2 {
        return 0;
    }
    debug_assert!(buffer.commands[start..start + run].iter().enumerate().all(
        |(i, c)| matches!(*c, Command::SpawnRow { batch: b, row: r } if b == batch && r as usize == row as usize + i)
    ));
    let first = record.first_column as usize;
    let columns = &buffer.batch_columns[first..first + record.columns as usize];
    let base = buffer.arena.ptr(0);
    let source = |component| {
        let column = columns
            .iter()
            .find(|column| column.component == component)
            .expect("the batch has a column for every component of its signature");
        base.wrapping_add(column.offset + row as usize * column.size)
            .cast_const()
    };
    // SAFETY: rows `row..row + run` of each column hold live values of its component, packed
    // (the batch's regions), owned by the buffer; they are marked consumed below when spawned.
    match unsafe { storage.spawn_columns(&record.signature, run, source) } {
        Ok(spawned) => {
            buffer.resolved.extend(spawned.iter().copied().map(Some));
            buffer.batches[batch as usize].consumed = row + run as u32;
            run
        }
        // Refused as a whole (cannot happen for a run cut to the room): the rows fail one by
        // one, each reported, through the single path.
        Err(_) => 0,
    }
}

/// What [`insert_run`] did with the inserts at its start.
enum InsertRun {
    /// Applied (or skipped) this many commands.
    Applied(usize),
    /// Applied none: this many commands, from the start, take the single path.
    Single(usize),
}

/// Applies the run of consecutive inserts of one table component that starts at command
/// `start` table by table (`Storage::insert_run`), counting each command in `stats`, with
/// the rows, values, drops, reports and skips of applying them one by one. A run of one, or
/// of a sparse component (whose insert moves no row), is left to the single path.
fn insert_run(
    storage: &mut Storage,
    buffer: &mut CommandBuffer,
    start: usize,
    stats: &mut ApplyStats,
) -> InsertRun {
    let Command::Insert { value, .. } = buffer.commands[start] else {
        return InsertRun::Single(1);
    };
    let component = buffer.values[value as usize].component;
    let values = &buffer.values;
    let run = buffer.commands[start..]
        .iter()
        .take_while(|c| {
            matches!(c, Command::Insert { value, .. } if values[*value as usize].component == component)
        })
        .count();
    #[cfg(test)]
    if ONE_BY_ONE.get() {
        return InsertRun::Single(run);
    }
    if run < 2 || storage.sparse_sets().get(component).is_some() {
        return InsertRun::Single(run);
    }
    let kind = CommandKind::Insert(storage.components().get(component).name());
    let mut targets = std::mem::take(&mut buffer.run_targets);
    targets.clear();
    // Stale targets are reported here, in command order, as one by one: liveness cannot
    // change within a run of inserts.
    for (i, command) in buffer.commands[start..start + run].iter().enumerate() {
        let Command::Insert { target, .. } = *command else {
            unreachable!("the run holds inserts only");
        };
        let (entity, skip) = match live_target(storage, buffer, target, "insert") {
            Ok((entity, _)) => (Some(entity), None),
            Err(reason) => (None, Some(reason)),
        };
        targets.push(entity);
        stats.count(start + i, kind, skip);
    }
    let mut source = RunSource { buffer, start };
    // SAFETY: the component is a table component (tested above; a resource is refused when
    // recorded); each `Some` target is live (located above); `take` hands out a live value
    // of the buffer recorded for that component, marking it moved (see `RunSource`).
    unsafe { storage.insert_run(component, &targets, &mut source) };
    source.buffer.run_targets = targets;
    InsertRun::Applied(run)
}

#[cfg(test)]
thread_local! {
    /// Set by a test to apply inserts one by one, the reference `insert_run` is held to.
    pub(crate) static ONE_BY_ONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The values of an insert run: item `i` is the value of command `start + i`.
struct RunSource<'a> {
    buffer: &'a mut CommandBuffer,
    start: usize,
}

impl RunSource<'_> {
    fn value_index(&self, item: usize) -> usize {
        let Command::Insert { value, .. } = self.buffer.commands[self.start + item] else {
            unreachable!("the run holds inserts only");
        };
        value as usize
    }
}

impl RunValues for RunSource<'_> {
    fn take(&mut self, item: usize) -> *mut u8 {
        let index = self.value_index(item);
        let value = &mut self.buffer.values[index];
        debug_assert!(value.live);
        // Marked moved first: the buffer never drops it, even if a later drop panics.
        value.live = false;
        self.buffer.arena.ptr(value.offset)
    }

    fn skip(&mut self, item: usize) {
        let index = self.value_index(item);
        self.buffer.drop_value(index);
    }
}

/// The live entity a command targets, or why there is none (a stale target was reported
/// here; a failed spawn was reported when it failed).
fn live_target(
    storage: &Storage,
    buffer: &CommandBuffer,
    target: Target,
    op: &'static str,
) -> Result<(Entity, crate::entity::Location), CommandSkipReason> {
    let entity = match target {
        Target::Entity(entity) => entity,
        Target::Pending(pending) => buffer
            .resolve(target)
            .ok_or(CommandSkipReason::SpawnSkipped { pending })?,
    };
    let location = storage
        .locate(entity, op)
        .map_err(CommandSkipReason::Refused)?;
    Ok((entity, location))
}
