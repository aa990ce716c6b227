//! What a system declared, and the checked query view a system gets under it.

use laige_registry::{Access, ComponentId, ComponentSet, SystemId, SystemRecord};

use crate::query::{Prepared, QueryData, each_chunk_in, each_in, prepared_in};
use crate::{Entity, QueryError, Storage};

/// Who a context runs for: the system's id, name and declared access.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SystemMeta {
    /// The system's id.
    pub id: SystemId,
    /// The system's registration name.
    pub name: &'static str,
    /// The components it declared read-only.
    pub reads: ComponentSet,
    /// The components it declared write (writing includes reading).
    pub writes: ComponentSet,
    /// The components it declared read-fresh (a subset of `reads`).
    pub reads_fresh: ComponentSet,
    /// The components it declared snapshot reads of (the previous tick's value; not
    /// readable through live queries).
    pub reads_snapshot: ComponentSet,
    /// Its table footprint (`.matching::<T>()`): every query must require each of these, so
    /// the system touches only tables that hold them all.
    pub matching: ComponentSet,
}

impl SystemMeta {
    /// The meta of a registered system.
    pub fn of(record: &SystemRecord) -> Self {
        Self {
            id: record.id(),
            name: record.name(),
            reads: *record.reads(),
            writes: *record.writes(),
            reads_fresh: *record.reads_fresh(),
            reads_snapshot: *record.reads_snapshot(),
            matching: *record.matching(),
        }
    }

    /// How the system declared `component`, if at all.
    pub fn declared(&self, component: ComponentId) -> Option<Access> {
        if self.writes.contains(component) {
            Some(Access::Write)
        } else if self.reads_fresh.contains(component) {
            Some(Access::ReadFresh)
        } else if self.reads.contains(component) {
            Some(Access::Read)
        } else if self.reads_snapshot.contains(component) {
            Some(Access::ReadSnapshot)
        } else {
            None
        }
    }
}

/// The checked query half of a context, split off by [`SystemContext::split`] so a query's
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
