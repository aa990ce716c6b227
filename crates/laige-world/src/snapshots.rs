//! Snapshots on the World and in a system's context: refreshing the copies at the end of a
//! tick, and a context's checked snapshot reads. A component is versioned at registration
//! (`ComponentOptions::versioned`).

use std::any::type_name;

use crate::{Entity, QueryError, SnapshotView, SystemContext, World, WorldError};
use laige_query::query::snapshot_of;

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
    /// [`SystemContext::snapshot_view`].
    ///
    /// # Errors
    ///
    /// [`WorldError::UnregisteredComponent`], [`WorldError::ResourceAsComponent`], or
    /// [`WorldError::NotVersioned`].
    pub fn snapshot_view<T: Send + Sync + 'static>(
        &self,
    ) -> Result<SnapshotView<'_, T>, WorldError> {
        self.storage.require::<T>()?;
        snapshot_of::<T>(self.storage.components(), self.storage.snapshots(), None).map_err(|_| {
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

impl<'w> SystemContext<'w> {
    /// The snapshot of the versioned `T`: its values as of the last [`World::end_tick`].
    /// Checked once per call: the system must have declared `.reads_snapshot::<T>()` (a
    /// `reads` or `writes` declaration does not do: the declaration is the contract). The view
    /// borrows the world, not the context, so it may be used inside a query's closure.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotVersioned`] (event `ecs/snapshot_unversioned`) when `T` is not
    /// versioned; [`QueryError::Undeclared`] (event `ecs/access_violation`, access
    /// `read_snapshot`) when not declared; [`QueryError::ResourceInQuery`] for a resource.
    pub fn snapshot_view<T: Send + Sync + 'static>(
        &self,
    ) -> Result<SnapshotView<'w, T>, QueryError> {
        let storage = self.storage;
        snapshot_of::<T>(storage.components(), storage.snapshots(), Some(self.meta))
            .map_err(|err| storage.report(err))
    }

    /// `entity`'s snapshot value of `T`: `Ok(None)` when it had none at the last
    /// `end_tick` (spawned, or given `T`, since). A despawned entity keeps its last value
    /// until the next `end_tick`. A binary search; for many lookups take
    /// [`SystemContext::snapshot_view`] once.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::snapshot_view`].
    pub fn snapshot<T: Send + Sync + 'static>(
        &self,
        entity: Entity,
    ) -> Result<Option<&'w T>, QueryError> {
        Ok(self.snapshot_view::<T>()?.get(entity))
    }

    /// Calls `f` with every entity that has a snapshot value of `T` and that value, in
    /// ascending entity index (including entities despawned since the snapshot, excluding
    /// ones spawned since).
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::snapshot_view`]; nothing is visited then.
    pub fn each_snapshot<T: Send + Sync + 'static>(
        &self,
        mut f: impl FnMut(Entity, &'w T),
    ) -> Result<(), QueryError> {
        for (entity, value) in self.snapshot_view::<T>()?.iter() {
            f(entity, value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod tests;
