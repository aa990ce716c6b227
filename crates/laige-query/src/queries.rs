//! What a system declared, and the checked query view a system gets under it.

use laige_registry::Access;

use crate::query::{
    Prepared, QueryData, SystemMeta, checked_ptr, each_chunk_in, each_in, prepared_in, snapshot_of,
};
use crate::{Entity, QueryError, SnapshotView, Storage};

/// The checked query half of a context, split off by `SystemContext::split` so a query's
/// closure can record commands and draw random numbers at the same time.
///
/// Every query is checked once per call against the system's declared access.
#[derive(Debug)]
pub struct Queries<'a> {
    #[doc(hidden)]
    pub storage: &'a Storage,
    #[doc(hidden)]
    pub meta: &'a SystemMeta,
}

impl<'a> Queries<'a> {
    /// The checked queries of the system described by `meta`.
    ///
    /// # Safety
    ///
    /// As for the tick layer's `SystemContext::new`: while this value lives, no other live
    /// view may write a component that `meta` declares read (plain or fresh) or write, or
    /// read a component that `meta` declares write (resources count as components).
    #[doc(hidden)]
    pub unsafe fn new(storage: &'a Storage, meta: &'a SystemMeta) -> Self {
        Self { storage, meta }
    }

    /// Calls `f` with each matching entity and its item: archetypes in ascending id, rows
    /// in table order.
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] when the system did not declare an access the query needs
    /// (reads need a read or write declaration, writes a write declaration);
    /// [`QueryError::Aliased`] for a query naming a component twice with a write;
    /// [`QueryError::Unmatched`] when the system declared a table footprint
    /// (`.matching::<T>()`) and the query does not require every component of it. Nothing is
    /// visited then, and the error's event (`ecs/access_violation`, ...) is reported.
    pub fn each<Q: QueryData>(
        &mut self,
        f: impl FnMut(Entity, Q::Item<'_>),
    ) -> Result<(), QueryError> {
        // SAFETY: `Queries` is only built from a context, whose constructor guarantees that
        // the declared access is exclusive as declared; `each_in` checks `Q` against it first.
        // `&mut self` keeps a second query of this context from running inside `f`.
        unsafe { each_in::<Q>(self.storage, Some(self.meta), f) }
    }

    /// Calls `f` once per matching non-empty archetype with its entities and whole columns
    /// (`&[T]`, `&mut [T]`, ...), in ascending archetype id.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn each_chunk<Q: QueryData>(
        &mut self,
        f: impl FnMut(&[Entity], Q::Chunk<'_>),
    ) -> Result<(), QueryError> {
        // SAFETY: as for `each`.
        unsafe { each_chunk_in::<Q>(self.storage, Some(self.meta), f) }
    }

    /// Checks `Q` once, for many lookups by handle ([`Prepared::get`]): random access to a
    /// target, a parent or a neighbour. The check comes before any lookup, so a dead handle
    /// never hides an undeclared access.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn prepare<Q: QueryData>(&mut self) -> Result<Prepared<'_, Q>, QueryError> {
        // SAFETY: as for `each`; the result borrows `self` mutably for as long as it lives.
        unsafe { prepared_in::<Q>(self.storage, Some(self.meta)) }
    }

    /// The storage's metadata: liveness, counts, archetypes.
    pub fn storage(&self) -> &'a Storage {
        self.storage
    }
}

impl Queries<'_> {
    /// `SystemContext::resource` on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for `SystemContext::resource`.
    pub fn resource<T: Send + Sync + 'static>(&self) -> Result<&T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.meta, Access::Read)?;
        // SAFETY: as for `SystemContext::resource`: declared, so no other context writes it,
        // and this half hands out `&mut T` only from `resource_mut(&mut self)`.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// `SystemContext::resource_mut` on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for `SystemContext::resource`.
    pub fn resource_mut<T: Send + Sync + 'static>(&mut self) -> Result<&mut T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.meta, Access::Write)?;
        // SAFETY: as for `SystemContext::resource_mut`: declared write, and `&mut self`
        // excludes every other reference from this half (the split context is borrowed by it).
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }
}

impl<'a> Queries<'a> {
    /// `SystemContext::snapshot_view` on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for `SystemContext::snapshot_view`.
    pub fn snapshot_view<T: Send + Sync + 'static>(
        &self,
    ) -> Result<SnapshotView<'a, T>, QueryError> {
        let storage = self.storage;
        snapshot_of::<T>(storage.components(), storage.snapshots(), Some(self.meta))
            .map_err(|err| storage.report(err))
    }

    /// `SystemContext::snapshot` on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for `SystemContext::snapshot_view`.
    pub fn snapshot<T: Send + Sync + 'static>(
        &self,
        entity: Entity,
    ) -> Result<Option<&'a T>, QueryError> {
        Ok(self.snapshot_view::<T>()?.get(entity))
    }
}
