//! Snapshots on the World: refreshing the copies at the end of a tick, and setup code's
//! reads (a system's checked reads are its view's, `Queries::snapshot_view`). A component is
//! versioned at registration (`ComponentOptions::versioned`).

use std::any::type_name;

use crate::{Entity, SnapshotView, World, WorldError};
use laige_query::read_snapshot;

impl World {
    /// Ends a tick: refreshes the snapshot of every versioned component from its live values
    /// (call it after the tick's commands are applied; call it once after setup too, or
    /// snapshot readers see no values in the first tick). The old copies are dropped, the new
    /// ones cloned in ascending entity index. Buffers are reused: in a steady state (no
    /// entity count above its previous peak) it allocates nothing. With no versioned
    /// component it does nothing. If a component's `clone` panics, every snapshot is left
    /// empty (the copies made so far are dropped) and the panic comes out.
    ///
    /// On an executor of two threads or more, the refresh is split into ranges of
    /// entity slots that the pool's threads share, with the same copies as on one thread.
    pub fn end_tick(&mut self) {
        match &self.runtime.executor {
            Some(executor) if executor.threads() > 1 => self
                .storage
                .refresh_snapshots_split(|count, batch| executor.run_batches(count, batch)),
            _ => self.storage.refresh_snapshots(),
        }
    }

    /// The snapshot of the versioned component `T`, for setup code and tools; systems use
    /// [`Queries::snapshot_view`](crate::Queries::snapshot_view).
    ///
    /// # Errors
    ///
    /// [`WorldError::UnregisteredComponent`], [`WorldError::ResourceAsComponent`], or
    /// [`WorldError::NotVersioned`].
    pub fn snapshot_view<T: Send + Sync + 'static>(
        &self,
    ) -> Result<SnapshotView<'_, T>, WorldError> {
        self.storage.require::<T>()?;
        read_snapshot::<T>(&self.storage).map_err(|_| {
            self.storage.report(WorldError::NotVersioned {
                component: type_name::<T>(),
            })
        })
    }

    /// `entity`'s value of the versioned `T` as of the last [`World::end_tick`]; `Ok(None)`
    /// when it had none then.
    ///
    /// # Errors
    ///
    /// As for [`World::snapshot_view`].
    pub fn snapshot<T: Send + Sync + 'static>(
        &self,
        entity: Entity,
    ) -> Result<Option<&T>, WorldError> {
        Ok(self.snapshot_view::<T>()?.get(entity))
    }
}

#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod tests;
