//! Applying a command buffer to the storage, in recording order.

use std::ops::AddAssign;

use super::{Command, CommandBuffer, Target};
use crate::tick_report::{CommandKind, CommandSkipReason, SkippedCommand};
use crate::{Entity, Storage, WorldError};

/// What applying command buffers did.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ApplyStats {
    /// Commands carried out.
    pub applied: usize,
    /// Commands skipped: refused when recorded, stale targets, failed spawns (and commands
    /// on them).
    pub skipped: usize,
    /// Buffers dropped whole, unapplied, because their system's run failed.
    pub dropped_buffers: usize,
    /// The first command skipped, in application order, and why.
    pub first_skip: Option<SkippedCommand>,
}

impl AddAssign for ApplyStats {
    fn add_assign(&mut self, other: Self) {
        self.applied += other.applied;
        self.skipped += other.skipped;
        self.dropped_buffers += other.dropped_buffers;
        self.first_skip = self.first_skip.or(other.first_skip);
    }
}

impl ApplyStats {
    /// Counts command `index`, skipped for `reason` when there is one.
    #[inline]
    fn count(&mut self, index: usize, command: CommandKind, skip: Option<CommandSkipReason>) {
        match skip {
            None => self.applied += 1,
            Some(reason) => {
                self.skipped += 1;
                if self.first_skip.is_none() {
                    self.first_skip = Some(SkippedCommand {
                        index: index as u32,
                        command,
                        reason,
                    });
                }
            }
        }
    }
}

impl CommandBuffer {
    fn resolve(&self, target: Target) -> Option<Entity> {
        match target {
            Target::Entity(entity) => Some(entity),
            Target::Pending(index) => self.resolved.get(index as usize).copied().flatten(),
        }
    }
}

/// Applying command buffers to the storage: the tick layer's side of structural changes,
/// written as a trait because the storage is another crate's type.
pub(crate) trait ApplyCommands {
    /// See the impl for [`Storage`].
    fn apply(&mut self, buffer: &mut CommandBuffer) -> Result<ApplyStats, WorldError>;
}

#[doc(hidden)]
impl ApplyCommands for Storage {
    /// Applies every command of `buffer` in recording order, then empties it (keeping its
    /// capacity). A command whose target is stale is skipped, its value dropped, and reported
    /// (`ecs/stale_entity_access`, or `ecs/stale_entity_destroy` for a despawn).
    ///
    /// # Errors
    ///
    /// [`WorldError::ForeignCommandBuffer`] when the buffer was filled for another world; it
    /// is then cleared without applying anything.
    fn apply(&mut self, buffer: &mut CommandBuffer) -> Result<ApplyStats, WorldError> {
        if buffer.world != 0 && buffer.world != self.identity() {
            buffer.clear();
            return Err(self.report(WorldError::ForeignCommandBuffer));
        }
        let mut stats = ApplyStats::default();
        buffer.resolved.clear();
        for i in 0..buffer.commands.len() {
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
        }
        buffer.reset();
        Ok(stats)
    }
}

/// The live entity a command targets, or why there is none (a stale target was reported
/// here; a failed spawn was reported when it failed).
fn live_target(
    storage: &Storage,
    buffer: &CommandBuffer,
    target: Target,
    op: &'static str,
) -> Result<(Entity, laige_storage::entity::Location), CommandSkipReason> {
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
