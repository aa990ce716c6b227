//! What the tick report says of one recorded command that was not carried out.

use std::fmt;

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
