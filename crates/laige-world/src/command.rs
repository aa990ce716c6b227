//! Deferred structural changes: the command buffers and [`Commands`] of laige-storage. The
//! erased values and their application live there, beside the storage they change, so the
//! tick layer holds no `unsafe` for them.

pub use laige_storage::command::{
    ApplyStats, CommandBuffer, CommandTarget, Commands, PendingBatch, PendingEntity,
};
