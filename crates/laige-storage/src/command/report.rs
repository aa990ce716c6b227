//! What applying command buffers did: counts, and the first command skipped and why.

use std::fmt;
use std::ops::AddAssign;

use crate::WorldError;

/// Which command was skipped; a component command names the component's type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum CommandKind {
    /// `Commands::spawn`.
    Spawn,
    /// `Commands::despawn`.
    Despawn,
    /// `Commands::insert` of the named type.
    Insert(&'static str),
    /// `Commands::remove` of the named type.
    Remove(&'static str),
}

impl fmt::Display for CommandKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandKind::Spawn => f.write_str("spawn"),
            CommandKind::Despawn => f.write_str("despawn"),
            CommandKind::Insert(ty) => write!(f, "insert::<{ty}>"),
            CommandKind::Remove(ty) => write!(f, "remove::<{ty}>"),
        }
    }
}

/// Why a recorded command was not carried out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum CommandSkipReason {
    /// The world refused it, when it was recorded or applied: a stale target
    /// ([`WorldError::StaleEntity`] names the entity), the entity limit, an unregistered or
    /// resource type, a repeated bundle type, a placeholder from another buffer.
    Refused(WorldError),
    /// It targets an entity spawned earlier in the same buffer whose spawn was skipped.
    SpawnSkipped {
        /// The placeholder's spawn index in its buffer.
        pending: u32,
    },
}

impl fmt::Display for CommandSkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandSkipReason::Refused(err) => err.fmt(f),
            CommandSkipReason::SpawnSkipped { pending } => write!(
                f,
                "its target, pending entity #{pending} of the same buffer, was never spawned \
                 (that spawn was skipped first)"
            ),
        }
    }
}

/// One command that was skipped: where it stood in its buffer, what it was, and why.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SkippedCommand {
    /// Its position among the commands its buffer recorded, from 0.
    pub index: u32,
    /// The command.
    pub command: CommandKind,
    /// Why it was not carried out.
    pub reason: CommandSkipReason,
}

impl fmt::Display for SkippedCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "command #{} ({}): {}",
            self.index, self.command, self.reason
        )
    }
}

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
    pub(crate) fn count(
        &mut self,
        index: usize,
        command: CommandKind,
        skip: Option<CommandSkipReason>,
    ) {
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
