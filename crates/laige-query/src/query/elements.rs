//! The data elements of a query: `&T`, `&mut T`, their `Option`s, and `Entity`. A `&mut T`
//! of a tracked `T` marks the rows it hands out changed (`mark_rows`, which the loops call).

use std::ptr::NonNull;
use std::slice;

use laige_registry::{Access, ComponentId};

use super::{QueryData, QueryDesc, ReadOnlyQueryData};
use crate::declare::ParamInit;
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;
use laige_storage::column::ColumnTicks;
use laige_storage::sparse::SparseSet;

/// Where `entity`'s value of the component `state` names is, when that component is sparse:
/// `Some` of its address in the set (`None` inside when the entity has none), marked changed
/// there when the element writes a tracked component; `None` for a table component (or an
/// unregistered type), whose value is at the element's cursor.
///
/// # Safety
///
/// The caller has the element's declared access to `entity`'s value.
#[inline(always)]
unsafe fn sparse_value(
    state: &impl ElementId,
    storage: &Storage,
    entity: Entity,
) -> Option<Option<*mut u8>> {
    let set = storage.sparse_sets().get(state.component()?)?;
    Some(set.position(entity).map(|at| {
        // SAFETY: `at` is the entity's position; the access is the caller's promise.
        unsafe { state.mark_sparse(set, at) };
        set.ptr_at(at)
    }))
}

/// The component an element of one component resolved to: its state, or part of it.
pub(super) trait ElementId {
    fn component(&self) -> Option<ComponentId>;

    /// Marks the value at `at` of `set` (the element's component's) as handed out: a write
    /// of a tracked component marks it changed; a read does nothing.
    ///
    /// # Safety
    ///
    /// `at` is a position in `set`; the caller has the element's declared access to it.
    #[inline(always)]
    unsafe fn mark_sparse(&self, set: &SparseSet, at: usize) {
        let _ = (set, at);
    }

    /// Whether `entity` passes the element's presence test in a mixed walk: a table
    /// component's presence was the table's; a sparse one's is the set's.
    #[inline(always)]
    fn present_mixed(&self, storage: &Storage, entity: Entity) -> bool {
        self.component()
            .and_then(|id| storage.sparse_sets().get(id))
            .is_none_or(|set| set.contains(entity))
    }
}

impl ElementId for Option<ComponentId> {
    #[inline(always)]
    fn component(&self) -> Option<ComponentId> {
        *self
    }
}

impl ElementId for WriteState {
    #[inline(always)]
    fn component(&self) -> Option<ComponentId> {
        self.id
    }

    #[inline(always)]
    unsafe fn mark_sparse(&self, set: &SparseSet, at: usize) {
        if let (true, Some(ticks)) = (self.tracked, set.ticks()) {
            // SAFETY: `at` is in the set; the caller holds the write access to it.
            unsafe { ticks.mark_changed(at, 1, self.tick) }
        }
    }
}

/// Whether the component `state` names is sparse (its element has no column cursor).
#[inline(always)]
pub(super) fn is_sparse(state: &impl ElementId, storage: &Storage) -> bool {
    state
        .component()
        .is_some_and(|id| storage.sparse_sets().get(id).is_some())
}

/// Implements the mixed-walk methods of an element of one component, required or not.
macro_rules! mixed_methods {
    (required, $item:ty, $deref:expr) => {
        #[inline(always)]
        unsafe fn next_item_mixed<'a>(
            state: &Self::State,
            fetch: &mut Self::Fetch,
            storage: &'a Storage,
            entity: Entity,
        ) -> $item {
            // SAFETY: the caller has the declared access (forwarded).
            match unsafe { sparse_value(state, storage, entity) } {
                Some(ptr) => {
                    debug_assert!(ptr.is_some());
                    // SAFETY: the component is required, so the row passed the query's sparse
                    // conditions (`row_matches_mixed`) only because `entity` has a value (the
                    // caller's promise); it
                    // is a live value of `T`, and the caller has the declared access for `'a`.
                    unsafe { $deref(ptr.unwrap_unchecked().cast::<T>()) }
                }
                // SAFETY: a table component: forwarded from the caller.
                None => unsafe { Self::next_item(fetch) },
            }
        }

        mixed_presence!();
        mixed_skip!();
    };
    (optional, $item:ty, $deref:expr) => {
        #[inline(always)]
        unsafe fn next_item_mixed<'a>(
            state: &Self::State,
            fetch: &mut Self::Fetch,
            storage: &'a Storage,
            entity: Entity,
        ) -> $item {
            // SAFETY: the caller has the declared access (forwarded).
            match unsafe { sparse_value(state, storage, entity) } {
                // SAFETY: a live value of `T` in its set, when there is one; the caller has the
                // declared access for `'a`.
                Some(ptr) => ptr.map(|ptr| unsafe { $deref(ptr.cast::<T>()) }),
                // SAFETY: a table component: forwarded from the caller.
                None => unsafe { Self::next_item(fetch) },
            }
        }

        mixed_skip!();
    };
}

/// The typed column base of `component` in `archetype`, if it has it.
#[inline]
fn column<T>(archetype: &Archetype, component: Option<ComponentId>) -> Option<NonNull<T>> {
    component
        .and_then(|c| archetype.column_ptr(c))
        .map(NonNull::cast)
}

/// The typed column base of the required `component` in a matched `archetype`.
///
/// # Safety
///
/// `component` is `Some`, and `archetype` has it.
#[inline]
unsafe fn fetch_required<T>(component: Option<ComponentId>, archetype: &Archetype) -> NonNull<T> {
    debug_assert!(component.is_some());
    // SAFETY: the caller guarantees a registered, present component.
    unsafe { archetype.column_ptr_unchecked(component.unwrap_unchecked()) }.cast()
}

/// Returns the row `cursor` is at and moves it on by one.
///
/// # Safety
///
/// `cursor` is at a row of its column (so the next position is in bounds or one past the end).
#[inline(always)]
unsafe fn advance<T>(cursor: &mut NonNull<T>) -> NonNull<T> {
    let current = *cursor;
    // SAFETY: `current` is at a row, so one step on is at most one past the end.
    unsafe { skip(cursor, 1) };
    current
}

/// Moves `cursor` on by `rows` rows.
///
/// # Safety
///
/// The target is in bounds of the cursor's column, or one past its end.
#[inline(always)]
#[doc(hidden)]
pub unsafe fn skip<T>(cursor: &mut NonNull<T>, rows: usize) {
    // SAFETY: the caller keeps the target inside the column's allocation (or one past it).
    *cursor = unsafe { cursor.add(rows) };
}

/// [`fetch_required`], taking the base of `driver`'s column when the component is the driver.
///
/// # Safety
///
/// As for [`fetch_required`]; `driver_column` is the base of `archetype`'s column of `driver`.
#[inline]
unsafe fn fetch_required_driven<T>(
    component: Option<ComponentId>,
    archetype: &Archetype,
    driver: ComponentId,
    driver_column: NonNull<u8>,
) -> NonNull<T> {
    if component == Some(driver) {
        driver_column.cast()
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { fetch_required(component, archetype) }
    }
}

// SAFETY: `init` records a read of `T` (required); `item`/`chunk` only read `T`'s column.
unsafe impl<T: Send + Sync + 'static> QueryData for &T {
    type Item<'a> = &'a T;
    type Chunk<'a> = &'a [T];
    type State = Option<ComponentId>;
    type Fetch = NonNull<T>;

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        desc.read::<T>(true)
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::Read);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        // A matched archetype has the column; the dangling fallback is never dereferenced.
        column(archetype, *state).unwrap_or(NonNull::dangling())
    }

    #[inline]
    unsafe fn fetch_driven(
        state: &Self::State,
        archetype: &Archetype,
        driver: ComponentId,
        driver_column: NonNull<u8>,
    ) -> Self::Fetch {
        // SAFETY: `init` required `T`, so a matched archetype means `T` is registered (the
        // state is `Some`) and the archetype has its column; the caller vouches for both.
        unsafe { fetch_required_driven(*state, archetype, driver, driver_column) }
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> &'a T {
        // SAFETY: the caller guarantees `fetch` is at a row of a matched archetype's column
        // of `T`, and read access for `'a`.
        unsafe { &*advance(fetch).as_ptr() }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { skip(fetch, rows) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> &'a [T] {
        // SAFETY: the column holds `len` initialised, aligned values; read access for `'a`.
        unsafe { slice::from_raw_parts(fetch.as_ptr(), len) }
    }

    mixed_methods!(required, &'a T, |p: *mut T| &*p);
}

/// What a `&mut T` element resolved: the component, whether it keeps change ticks, and
/// the tick its rows are marked with.
#[derive(Clone, Copy, Debug)]
pub struct WriteState {
    id: Option<ComponentId>,
    tracked: bool,
    tick: u64,
}

impl WriteState {
    fn init<T: 'static>(desc: &mut QueryDesc<'_>, required: bool) -> Result<Self, QueryError> {
        let id = desc.write::<T>(required)?;
        let tracked = id.is_some_and(|id| desc.is_tracked(id));
        Ok(Self {
            id,
            tracked,
            tick: desc.run_ticks().this_run(),
        })
    }

    /// The change ticks of the element's column in `archetype`, when tracked and present.
    #[inline]
    fn ticks(&self, archetype: &Archetype) -> Option<NonNull<ColumnTicks>> {
        if !self.tracked {
            return None;
        }
        let index = archetype.column_index(self.id?)?;
        archetype.columns()[index].ticks().map(NonNull::from)
    }
}

/// The cursor of a `&mut T` element in one table, with the column's change ticks when `T`
/// is tracked (the rows it hands out are marked there).
#[derive(Debug)]
pub struct WriteFetch<T> {
    cursor: NonNull<T>,
    ticks: Option<NonNull<ColumnTicks>>,
    tick: u64,
}

impl<T> Clone for WriteFetch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for WriteFetch<T> {}

impl<T> WriteFetch<T> {
    /// Marks rows `first..first + len` changed, when the column is tracked.
    ///
    /// # Safety
    ///
    /// The rows are the table's, and the caller holds write access to them.
    #[inline]
    unsafe fn mark(&self, first: usize, len: usize) {
        if let Some(ticks) = self.ticks {
            // SAFETY: the ticks belong to a column of a table of the storage the query
            // borrows (tables and their column blocks never move while it is borrowed); the
            // caller holds write access to these rows.
            unsafe { ticks.as_ref().mark_changed(first, len, self.tick) }
        }
    }
}

// SAFETY: `init` records a write of `T` (required), which rejects any other access to `T`
// in the same query; `item`/`chunk` only touch `T`'s column, and `mark_rows` only its ticks.
unsafe impl<T: Send + Sync + 'static> QueryData for &mut T {
    type Item<'a> = &'a mut T;
    type Chunk<'a> = &'a mut [T];
    type State = WriteState;
    type Fetch = WriteFetch<T>;

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        WriteState::init::<T>(desc, true)
    }

    // The column pointers are those of `&T`; only the items differ.
    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::Write);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        WriteFetch {
            cursor: <&T>::fetch(&state.id, archetype),
            ticks: state.ticks(archetype),
            tick: state.tick,
        }
    }

    #[inline]
    unsafe fn fetch_driven(
        state: &Self::State,
        archetype: &Archetype,
        driver: ComponentId,
        driver_column: NonNull<u8>,
    ) -> Self::Fetch {
        WriteFetch {
            // SAFETY: forwarded from the caller.
            cursor: unsafe { <&T>::fetch_driven(&state.id, archetype, driver, driver_column) },
            ticks: state.ticks(archetype),
            tick: state.tick,
        }
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> &'a mut T {
        // SAFETY: at a row, exclusive write access for `'a`, and each row yielded once.
        unsafe { &mut *advance(&mut fetch.cursor).as_ptr() }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { skip(&mut fetch.cursor, rows) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> &'a mut [T] {
        // SAFETY: `len` initialised values, exclusive write access for `'a`, one chunk per
        // archetype.
        unsafe { slice::from_raw_parts_mut(fetch.cursor.as_ptr(), len) }
    }

    #[inline]
    unsafe fn mark_rows(fetch: &Self::Fetch, first: usize, len: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { fetch.mark(first, len) }
    }

    mixed_methods!(required, &'a mut T, |p: *mut T| &mut *p);
}

// SAFETY: `init` records a read of `T` (optional); only `T`'s column is read.
unsafe impl<T: Send + Sync + 'static> QueryData for Option<&T> {
    type Item<'a> = Option<&'a T>;
    type Chunk<'a> = Option<&'a [T]>;
    type State = Option<ComponentId>;
    type Fetch = Option<NonNull<T>>;

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        desc.read::<T>(false)
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::Read);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        column(archetype, *state)
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Option<&'a T> {
        // SAFETY: as for `&T`, when the archetype has the column.
        fetch.as_mut().map(|p| unsafe { &*advance(p).as_ptr() })
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        if let Some(p) = fetch {
            // SAFETY: forwarded from the caller, when the archetype has the column.
            unsafe { skip(p, rows) }
        }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> Option<&'a [T]> {
        // SAFETY: as for `&T`, when the archetype has the column.
        fetch.map(|p| unsafe { slice::from_raw_parts(p.as_ptr(), len) })
    }

    mixed_methods!(optional, Option<&'a T>, |p: *mut T| &*p);
}

// SAFETY: `init` records a write of `T` (optional); only `T`'s column and its ticks are
// touched.
unsafe impl<T: Send + Sync + 'static> QueryData for Option<&mut T> {
    type Item<'a> = Option<&'a mut T>;
    type Chunk<'a> = Option<&'a mut [T]>;
    type State = WriteState;
    type Fetch = Option<WriteFetch<T>>;

    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
        WriteState::init::<T>(desc, false)
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::Write);
    }

    #[inline]
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
        column(archetype, state.id).map(|cursor| WriteFetch {
            cursor,
            ticks: state.ticks(archetype),
            tick: state.tick,
        })
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Option<&'a mut T> {
        let p = fetch.as_mut()?;
        // SAFETY: as for `&mut T`, when the archetype has the column.
        Some(unsafe { &mut *advance(&mut p.cursor).as_ptr() })
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        if let Some(p) = fetch {
            // SAFETY: forwarded from the caller, when the archetype has the column.
            unsafe { skip(&mut p.cursor, rows) }
        }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> Option<&'a mut [T]> {
        // SAFETY: as for `&mut T`, when the archetype has the column.
        fetch.map(|p| unsafe { slice::from_raw_parts_mut(p.cursor.as_ptr(), len) })
    }

    #[inline]
    unsafe fn mark_rows(fetch: &Self::Fetch, first: usize, len: usize) {
        if let Some(fetch) = fetch {
            // SAFETY: forwarded from the caller.
            unsafe { fetch.mark(first, len) }
        }
    }

    mixed_methods!(optional, Option<&'a mut T>, |p: *mut T| &mut *p);
}

// SAFETY: reads only the entity column, which no system writes (it changes only under
// `&mut Storage`).
unsafe impl QueryData for Entity {
    type Item<'a> = Entity;
    type Chunk<'a> = &'a [Entity];
    type State = ();
    type Fetch = NonNull<Entity>;

    fn init(_: &mut QueryDesc<'_>) -> Result<(), QueryError> {
        Ok(())
    }

    fn declare(_: &mut ParamInit<'_>) {}

    #[inline]
    fn fetch(_: &(), archetype: &Archetype) -> Self::Fetch {
        archetype.entities_ptr()
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Self::Item<'a> {
        // SAFETY: `fetch` is at a row of the archetype's entity column.
        unsafe { *advance(fetch).as_ptr() }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { skip(fetch, rows) }
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> &'a [Entity] {
        // SAFETY: the entity column holds `len` entities and is not written while `'a` lives.
        unsafe { slice::from_raw_parts(fetch.as_ptr(), len) }
    }
}

// SAFETY: items and chunks are shared references.
unsafe impl<T: Send + Sync + 'static> ReadOnlyQueryData for &T {}
// SAFETY: items and chunks are optional shared references.
unsafe impl<T: Send + Sync + 'static> ReadOnlyQueryData for Option<&T> {}
// SAFETY: items are copies of the handle, chunks shared slices of the entity column.
unsafe impl ReadOnlyQueryData for Entity {}
