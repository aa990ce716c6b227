//! [`Fresh<&T>`]: a read that must see this tick's writes, and [`Filtered`]: a query with a
//! filter whose items are the query's alone.

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use laige_registry::{Access, ComponentId};

use super::QueryFilter;
use super::{QueryData, QueryDesc, ReadOnlyQueryData};
use crate::declare::ParamInit;
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;

/// A query element that reads `T` as it is this tick: it yields what `&T` yields, and a
/// typed system that uses it declares `.reads_fresh::<T>()` (the declarative scheduler then
/// orders it after the same phase's writers of `T`).
///
/// In a context's own queries it is a plain read.
pub struct Fresh<Q>(PhantomData<fn() -> Q>);

impl<Q> fmt::Debug for Fresh<Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fresh<{}>", std::any::type_name::<Q>())
    }
}

// SAFETY: everything but `declare` is `&T`'s, which records and touches exactly `T`.
unsafe impl<T: Send + Sync + 'static> QueryData for Fresh<&T> {
    type Item<'a> = &'a T;
    type Chunk<'a> = &'a [T];
    type State = <&'static T as QueryData>::State;
    type Fetch = <&'static T as QueryData>::Fetch;

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        <&T>::init(desc)
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::ReadFresh);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        <&T>::fetch(state, archetype)
    }

    #[inline]
    unsafe fn fetch_driven(
        state: &Self::State,
        archetype: &Archetype,
        driver: ComponentId,
        driver_column: NonNull<u8>,
    ) -> Self::Fetch {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::fetch_driven(state, archetype, driver, driver_column) }
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> &'a T {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::next_item(fetch) }
    }

    #[inline(always)]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::skip_rows(fetch, rows) }
    }

    #[inline(always)]
    unsafe fn next_item_mixed<'a>(
        state: &Self::State,
        fetch: &mut Self::Fetch,
        storage: &'a Storage,
        entity: Entity,
    ) -> &'a T {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::next_item_mixed(state, fetch, storage, entity) }
    }

    #[inline(always)]
    unsafe fn skip_rows_mixed(
        state: &Self::State,
        fetch: &mut Self::Fetch,
        storage: &Storage,
        rows: usize,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::skip_rows_mixed(state, fetch, storage, rows) }
    }

    #[inline(always)]
    unsafe fn row_matches_mixed(
        state: &Self::State,
        fetch: &Self::Fetch,
        storage: &Storage,
        entity: Entity,
        row: usize,
    ) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::row_matches_mixed(state, fetch, storage, entity, row) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> &'a [T] {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::chunk(fetch, len) }
    }
}

/// The query `Q` narrowed by the filter `F`, yielding `Q`'s items only: what a
/// `Query<'_, Q, F>` parameter runs.
pub struct Filtered<Q, F>(PhantomData<fn() -> (Q, F)>);

impl<Q, F> fmt::Debug for Filtered<Q, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (q, filter) = (std::any::type_name::<Q>(), std::any::type_name::<F>());
        write!(f, "Filtered<{q}, {filter}>")
    }
}

// SAFETY: everything is the pair `(Q, F)`'s, whose elements record and touch their own
// access; only the filter's `()` items are dropped.
unsafe impl<Q: QueryData, F: QueryFilter> QueryData for Filtered<Q, F> {
    type Item<'a> = Q::Item<'a>;
    type Chunk<'a> = Q::Chunk<'a>;
    type State = <(Q, F) as QueryData>::State;
    type Fetch = <(Q, F) as QueryData>::Fetch;

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        <(Q, F)>::init(desc)
    }

    fn declare(init: &mut ParamInit<'_>) {
        <(Q, F)>::declare(init);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        <(Q, F)>::fetch(state, archetype)
    }

    #[inline]
    unsafe fn fetch_driven(
        state: &Self::State,
        archetype: &Archetype,
        driver: ComponentId,
        driver_column: NonNull<u8>,
    ) -> Self::Fetch {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::fetch_driven(state, archetype, driver, driver_column) }
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Q::Item<'a> {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::next_item(fetch).0 }
    }

    #[inline(always)]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::skip_rows(fetch, rows) }
    }

    #[inline(always)]
    unsafe fn next_item_mixed<'a>(
        state: &Self::State,
        fetch: &mut Self::Fetch,
        storage: &'a Storage,
        entity: Entity,
    ) -> Q::Item<'a> {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::next_item_mixed(state, fetch, storage, entity).0 }
    }

    #[inline(always)]
    unsafe fn skip_rows_mixed(
        state: &Self::State,
        fetch: &mut Self::Fetch,
        storage: &Storage,
        rows: usize,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::skip_rows_mixed(state, fetch, storage, rows) }
    }

    #[inline(always)]
    unsafe fn row_matches_mixed(
        state: &Self::State,
        fetch: &Self::Fetch,
        storage: &Storage,
        entity: Entity,
        row: usize,
    ) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::row_matches_mixed(state, fetch, storage, entity, row) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> Q::Chunk<'a> {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::chunk(fetch, len).0 }
    }

    const FILTERS_ROWS: bool = <(Q, F)>::FILTERS_ROWS;

    #[inline]
    fn may_match(fetch: &Self::Fetch) -> bool {
        <(Q, F)>::may_match(fetch)
    }

    #[inline]
    unsafe fn block_rows(fetch: &Self::Fetch, block: usize) -> u64 {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::block_rows(fetch, block) }
    }

    #[inline]
    unsafe fn mark_rows(fetch: &Self::Fetch, first: usize, len: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { <(Q, F)>::mark_rows(fetch, first, len) }
    }
}

// SAFETY: `&T`'s items.
unsafe impl<T: Send + Sync + 'static> ReadOnlyQueryData for Fresh<&T> {}
// SAFETY: the items are `Q`'s, which only read; a filter's are `()`.
unsafe impl<Q: ReadOnlyQueryData, F: QueryFilter> ReadOnlyQueryData for Filtered<Q, F> {}
