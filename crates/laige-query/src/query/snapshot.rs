//! The `Snapshot<&T>` query element: a versioned component's frozen copy, read row by row or
//! as a whole view while other systems write the live values.

use std::any::type_name;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use laige_registry::Access;

use super::{QueryData, QueryDesc, ReadOnlyQueryData};
use crate::declare::ParamInit;
use crate::{Entity, QueryError};
use laige_storage::archetype::Archetype;
use laige_storage::snapshot::{RawView, SnapshotView};

/// A query element that reads the snapshot of a versioned component:
/// `ctx.each::<(&mut Vel, Snapshot<&Pos>)>(|e, (vel, old_pos)| ..)`.
///
/// Per row it yields `Option<&T>`: the entity's value as of the last
/// `World::end_tick`, or `None` when it had none then (one binary search per row). Per
/// archetype (`SystemContext::each_chunk`) it yields the whole [`SnapshotView`]. It does
/// not narrow the matched entities, and reads no live column, so it aliases nothing: it
/// needs a `.reads_snapshot::<T>()` declaration, never a read or write of `T`.
pub struct Snapshot<Q>(PhantomData<fn() -> Q>);

impl<Q> fmt::Debug for Snapshot<Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Snapshot<{}>", type_name::<Q>())
    }
}

// SAFETY: `init` checks a snapshot read of `T` (declared `ReadSnapshot`) and records no live
// access; `item`/`chunk` read only the snapshot store, which does not change while the storage
// is borrowed (only `&mut Storage` refreshes it), and the archetype's entity column, which no
// system writes.
unsafe impl<T: Send + Sync + 'static> QueryData for Snapshot<&T> {
    type Item<'a> = Option<&'a T>;
    type Chunk<'a> = SnapshotView<'a, T>;
    type State = RawView<T>;
    type Fetch = (RawView<T>, NonNull<Entity>);

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        desc.snapshot::<T>().map(RawView::erase)
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::ReadSnapshot);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        (*state, Entity::fetch(&(), archetype))
    }

    #[inline]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Option<&'a T> {
        let (view, entities) = fetch;
        // SAFETY: `entities` is at a row of the matched archetype's entity column (the
        // caller's promise, as for `Entity`); the store is unchanged for `'a` (the storage
        // stays borrowed while the query runs).
        unsafe { view.view().get(Entity::next_item(entities)) }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller: the target is a row of the entity column.
        unsafe { Entity::skip_rows(&mut fetch.1, rows) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, _: usize) -> SnapshotView<'a, T> {
        // SAFETY: the store is unchanged for `'a`, as for `item`.
        unsafe { fetch.0.view() }
    }
}

// SAFETY: items are shared references into the frozen copy, chunks its shared view.
unsafe impl<T: Send + Sync + 'static> ReadOnlyQueryData for Snapshot<&T> {}
