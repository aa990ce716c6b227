//! Change detection: the filters `Changed<T>` and `Added<T>`, and `Ref<T>`, a read that
//! says whether its value changed. All relative to the running system's previous run
//! ([`RunTicks`](super::RunTicks)), and only for tracked components.
//!
//! A filter keeps a row when its tick is above the system's `last_run`. It reads the
//! table's summary first and skips the table when nothing in it is newer; then each block's
//! summary, skipping the block's rows unread; and only then the rows of a newer block, as a
//! bit mask. In a query that touches a sparse component the rows are walked one by one, and
//! a filter reads each row's ticks (a sparse component's, in its set) directly.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;
use std::slice;

use laige_registry::{Access, ComponentId};

use super::elements::{ElementId, is_sparse};
use super::{QueryData, QueryDesc, ReadOnlyQueryData};
use crate::declare::ParamInit;
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;
use laige_storage::column::{ColumnTicks, ComponentTicks, TickKind};

/// A filter that keeps the entities whose `T` changed since the system last ran: written
/// through `&mut T` (or `World::get_mut`), replaced by an insert, or added (spawned or
/// inserted). `T` must be tracked (`ComponentOptions::tracked`).
///
/// Yields `()`. Needs a live read of `T` (declared read or write), as its ticks are written
/// by `T`'s writers; it does not alias `&mut T` in the same query.
pub struct Changed<T>(PhantomData<fn() -> T>);

/// A filter that keeps the entities whose `T` was added since the system last ran: spawned
/// with it, or given it by an insert. `T` must be tracked.
///
/// Yields `()`. Needs a live read of `T`, as for [`Changed`].
pub struct Added<T>(PhantomData<fn() -> T>);

impl<T> fmt::Debug for Changed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Changed<{}>", std::any::type_name::<T>())
    }
}

impl<T> fmt::Debug for Added<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Added<{}>", std::any::type_name::<T>())
    }
}

/// What a change filter resolved: its component and the system's previous run.
#[derive(Clone, Copy, Debug)]
pub struct FilterState {
    id: Option<ComponentId>,
    last_run: u64,
}

impl ElementId for FilterState {
    #[inline(always)]
    fn component(&self) -> Option<ComponentId> {
        self.id
    }
}

impl ElementId for MutState {
    #[inline(always)]
    fn component(&self) -> Option<ComponentId> {
        self.id
    }
}

/// `kind`'s tick of `ticks`.
#[inline(always)]
fn tick_of(ticks: ComponentTicks, kind: TickKind) -> u64 {
    match kind {
        TickKind::Added => ticks.added,
        TickKind::Changed => ticks.changed,
    }
}

/// Where `entity`'s value of the sparse component `state` names is, with its ticks: `None`
/// for a table component; `Some(None)` when the entity has no value. Reading through them
/// needs the access the element declared.
#[inline(always)]
fn sparse_entry<'s>(
    state: &impl ElementId,
    storage: &'s Storage,
    entity: Entity,
) -> Option<Option<(*mut u8, Option<&'s ColumnTicks>, usize)>> {
    let set = storage.sparse_sets().get(state.component()?)?;
    Some(
        set.position(entity)
            .map(|at| (set.ptr_at(at), set.ticks(), at)),
    )
}

/// A change filter's view of one table: its column's ticks (`None` when the component is
/// not registered, so nothing matches) and the threshold.
#[derive(Clone, Copy, Debug)]
pub struct FilterFetch {
    ticks: Option<NonNull<ColumnTicks>>,
    last_run: u64,
}

/// The change ticks of `id`'s column in `archetype`, if it has a tracked one.
#[inline]
fn column_ticks(archetype: &Archetype, id: Option<ComponentId>) -> Option<NonNull<ColumnTicks>> {
    let index = archetype.column_index(id?)?;
    archetype.columns()[index].ticks().map(NonNull::from)
}

macro_rules! change_filter {
    ($ty:ident, $kind:expr, $name:literal) => {
        // SAFETY: a change filter reads only its component's ticks, under the live read
        // `init` checks and `declare` records; it yields `()`.
        unsafe impl<T: 'static> QueryData for $ty<T> {
            type Item<'a> = ();
            type Chunk<'a> = ();
            type State = FilterState;
            type Fetch = FilterFetch;

            const FILTERS_ROWS: bool = true;

            fn init(desc: &mut QueryDesc<'_>) -> Result<FilterState, QueryError> {
                let id = desc.change_filter::<T>($name)?;
                Ok(FilterState {
                    id,
                    last_run: desc.run_ticks().last_run(),
                })
            }

            fn declare(init: &mut ParamInit<'_>) {
                init.change_filter::<T>($name);
            }

            #[inline]
            fn fetch(state: &FilterState, archetype: &Archetype) -> FilterFetch {
                FilterFetch {
                    ticks: column_ticks(archetype, state.id),
                    last_run: state.last_run,
                }
            }

            #[inline(always)]
            unsafe fn next_item<'a>(_: &mut FilterFetch) -> Self::Item<'a> {}

            #[inline(always)]
            unsafe fn skip_rows(_: &mut FilterFetch, _: usize) {}

            #[inline]
            unsafe fn chunk<'a>(_: &FilterFetch, _: usize) -> Self::Chunk<'a> {}

            #[inline]
            fn may_match(fetch: &FilterFetch) -> bool {
                let Some(ticks) = fetch.ticks else {
                    return false;
                };
                // SAFETY: the ticks belong to a table of the borrowed storage; the summary
                // is an atomic.
                let ticks = unsafe { ticks.as_ref() };
                ticks.max($kind) > fetch.last_run
            }

            #[inline(always)]
            unsafe fn row_matches_mixed(
                state: &FilterState,
                fetch: &FilterFetch,
                storage: &Storage,
                entity: Entity,
                row: usize,
            ) -> bool {
                let ticks = match sparse_entry(state, storage, entity) {
                    // SAFETY: `at` is the value's position in the set; the filter holds a
                    // live read of the component.
                    Some(entry) => entry.and_then(|(_, ticks, at)| Some(unsafe { ticks?.row(at) })),
                    // SAFETY: `row` is `entity`'s row of the table `fetch` was made for (the
                    // caller's promise), and the filter holds a live read of the component.
                    None => fetch.ticks.map(|ticks| unsafe { ticks.as_ref().row(row) }),
                };
                ticks.is_some_and(|ticks| tick_of(ticks, $kind) > state.last_run)
            }

            #[inline]
            unsafe fn block_rows(fetch: &FilterFetch, block: usize) -> u64 {
                match fetch.ticks {
                    // SAFETY: the table has the block (the caller's promise) and the caller
                    // holds a live read of the component, so no one writes its ticks.
                    Some(ticks) => unsafe {
                        ticks.as_ref().newer_than($kind, block, fetch.last_run)
                    },
                    None => 0,
                }
            }
        }

        // SAFETY: a filter yields `()`.
        unsafe impl<T: 'static> ReadOnlyQueryData for $ty<T> {}

        impl<T: 'static> super::QueryFilter for $ty<T> {}
    };
}

change_filter!(Changed, TickKind::Changed, "Changed");
change_filter!(Added, TickKind::Added, "Added");

/// A shared read of a tracked `T` that also says whether the value was added or changed
/// since the system last ran: the item of the query element `Ref<T>`.
///
/// ```
/// use laige_world::{Component, ComponentOptions, Ref, World};
///
/// struct Pos(f32);
/// impl Component for Pos {}
///
/// let mut world = World::default();
/// world.register_component_with(ComponentOptions::<Pos>::new().tracked())?;
/// world.spawn(Pos(1.0))?;
/// // A setup query has no previous run: everything counts as added.
/// world.each::<Ref<Pos>>(|pos| assert!(pos.is_added() && pos.is_changed() && pos.0 == 1.0))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Ref<'a, T> {
    value: &'a T,
    ticks: ComponentTicks,
    last_run: u64,
}

impl<'a, T> Ref<'a, T> {
    /// Whether the value was added since the system last ran.
    #[inline]
    pub fn is_added(&self) -> bool {
        self.ticks.added > self.last_run
    }

    /// Whether the value changed (or was added) since the system last ran.
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.ticks.changed > self.last_run
    }

    /// The value's change ticks.
    #[inline]
    pub fn ticks(&self) -> ComponentTicks {
        self.ticks
    }

    /// The reference, for as long as the query's borrow.
    #[inline]
    pub fn into_inner(self) -> &'a T {
        self.value
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ref")
            .field("value", self.value)
            .field("ticks", &self.ticks)
            .finish()
    }
}

/// `Ref<T>`'s cursor in one table: the value cursor, the row it is at, and the ticks.
#[derive(Debug)]
pub struct RefFetch<T> {
    cursor: NonNull<T>,
    row: usize,
    ticks: Option<NonNull<ColumnTicks>>,
    last_run: u64,
}

impl<T> Clone for RefFetch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RefFetch<T> {}

// SAFETY: `init` records a read of `T` (required); the items read only `T`'s column and
// its ticks.
unsafe impl<T: Send + Sync + 'static> QueryData for Ref<'_, T> {
    type Item<'a> = Ref<'a, T>;
    type Chunk<'a> = &'a [T];
    type State = FilterState;
    type Fetch = RefFetch<T>;

    fn init(desc: &mut QueryDesc<'_>) -> Result<FilterState, QueryError> {
        let id = desc.read::<T>(true)?;
        if let Some(id) = id {
            desc.check_tracked::<T>(id, "Ref")?;
        }
        Ok(FilterState {
            id,
            last_run: desc.run_ticks().last_run(),
        })
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::Read);
        init.require_tracked::<T>("Ref");
    }

    #[inline]
    fn fetch(state: &FilterState, archetype: &Archetype) -> RefFetch<T> {
        RefFetch {
            cursor: <&T>::fetch(&state.id, archetype),
            row: 0,
            ticks: column_ticks(archetype, state.id),
            last_run: state.last_run,
        }
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut RefFetch<T>) -> Ref<'a, T> {
        // SAFETY: the cursor is at a row of a matched table's column of `T`, with read
        // access for `'a` (the caller's promise).
        let value = unsafe { <&T>::next_item(&mut fetch.cursor) };
        let ticks = match fetch.ticks {
            // SAFETY: the row is the table's, and the read access covers its ticks.
            Some(ticks) => unsafe { ticks.as_ref().row(fetch.row) },
            None => ComponentTicks::default(),
        };
        fetch.row += 1;
        Ref {
            value,
            ticks,
            last_run: fetch.last_run,
        }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut RefFetch<T>, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::skip_rows(&mut fetch.cursor, rows) };
        fetch.row += rows;
    }

    #[inline]
    unsafe fn chunk<'a>(fetch: &RefFetch<T>, len: usize) -> &'a [T] {
        // SAFETY: the column holds `len` values from the cursor on; read access for `'a`.
        unsafe { slice::from_raw_parts(fetch.cursor.as_ptr(), len) }
    }

    #[inline(always)]
    unsafe fn next_item_mixed<'a>(
        state: &FilterState,
        fetch: &mut RefFetch<T>,
        storage: &'a Storage,
        entity: Entity,
    ) -> Ref<'a, T> {
        match sparse_entry(state, storage, entity) {
            Some(entry) => {
                debug_assert!(entry.is_some());
                // SAFETY: `T` is required, so the row passed `row_matches_mixed` only because
                // `entity` has a value: a live `T` at its position, with read access for `'a`.
                let (ptr, ticks, at) = unsafe { entry.unwrap_unchecked() };
                Ref {
                    // SAFETY: as above.
                    value: unsafe { &*ptr.cast::<T>() },
                    // SAFETY: `at` is in the set; read access covers its ticks.
                    ticks: ticks.map_or_else(ComponentTicks::default, |t| unsafe { t.row(at) }),
                    last_run: state.last_run,
                }
            }
            // SAFETY: a table component: forwarded from the caller.
            None => unsafe { Self::next_item(fetch) },
        }
    }

    mixed_presence!();
    mixed_skip!();
}

// SAFETY: `Ref`'s items are shared references with copied ticks; chunks are shared slices.
unsafe impl<T: Send + Sync + 'static> ReadOnlyQueryData for Ref<'_, T> {}

/// A write of `T` that marks the value changed only when written: the item of the query
/// element `Mut<T>`. Reading through it (`Deref`) marks nothing; the first `DerefMut` marks
/// the row changed at the running system's tick (later ones find it marked). For an
/// untracked `T` it is a plain `&mut T`.
///
/// Use it where a system visits many rows and writes few, so `Changed<T>` readers see only
/// those; `&mut T` marks every row it hands out.
pub struct Mut<'a, T> {
    value: &'a mut T,
    ticks: Option<&'a ColumnTicks>,
    row: usize,
    tick: u64,
    marked: bool,
}

impl<T> Mut<'_, T> {
    /// Marks the value changed without writing it.
    #[inline]
    pub fn set_changed(&mut self) {
        if self.marked {
            return;
        }
        self.marked = true;
        if let Some(ticks) = self.ticks {
            // SAFETY: this item is the only handle to its row (each row is yielded once per
            // query run), and the query holds write access to `T`, so no one else reads or
            // writes the row's ticks meanwhile.
            unsafe { ticks.mark_changed(self.row, 1, self.tick) }
        }
    }
}

impl<T> Deref for Mut<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> std::ops::DerefMut for Mut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mut").field("value", &*self.value).finish()
    }
}

/// `Mut<T>`'s cursor in one table: the value cursor, its row, the ticks and the run's tick.
#[derive(Debug)]
pub struct MutFetch<T> {
    cursor: NonNull<T>,
    row: usize,
    ticks: Option<NonNull<ColumnTicks>>,
    tick: u64,
}

impl<T> Clone for MutFetch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for MutFetch<T> {}

/// What `Mut<T>` resolved: its component and the run's tick.
#[derive(Clone, Copy, Debug)]
pub struct MutState {
    id: Option<ComponentId>,
    tick: u64,
}

// SAFETY: `init` records a write of `T` (required), which rejects any other access to `T`
// in the same query; items touch only their row of `T`'s column and its ticks.
unsafe impl<T: Send + Sync + 'static> QueryData for Mut<'_, T> {
    type Item<'a> = Mut<'a, T>;
    type Chunk<'a> = &'a mut [T];
    type State = MutState;
    type Fetch = MutFetch<T>;

    fn init(desc: &mut QueryDesc<'_>) -> Result<MutState, QueryError> {
        Ok(MutState {
            id: desc.write::<T>(true)?,
            tick: desc.run_ticks().this_run(),
        })
    }

    fn declare(init: &mut ParamInit<'_>) {
        init.component::<T>(Access::Write);
    }

    #[inline]
    fn fetch(state: &MutState, archetype: &Archetype) -> MutFetch<T> {
        MutFetch {
            cursor: <&T>::fetch(&state.id, archetype),
            row: 0,
            ticks: column_ticks(archetype, state.id),
            tick: state.tick,
        }
    }

    #[inline(always)]
    unsafe fn next_item<'a>(fetch: &mut MutFetch<T>) -> Mut<'a, T> {
        let (row, at) = (fetch.row, fetch.cursor);
        fetch.row += 1;
        // SAFETY: the cursor is at a row, so one step on is at most one past the end.
        fetch.cursor = unsafe { at.add(1) };
        Mut {
            // SAFETY: at a row, exclusive write access for `'a`, each row yielded once.
            value: unsafe { &mut *at.as_ptr() },
            // SAFETY: the ticks belong to the table's column, alive while the storage is
            // borrowed for `'a`.
            ticks: fetch.ticks.map(|ticks| unsafe { &*ticks.as_ptr() }),
            row,
            tick: fetch.tick,
            marked: false,
        }
    }

    #[inline]
    unsafe fn skip_rows(fetch: &mut MutFetch<T>, rows: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { <&T>::skip_rows(&mut fetch.cursor, rows) };
        fetch.row += rows;
    }

    /// A chunk can be written anywhere, so handing it out marks all its rows.
    #[inline]
    unsafe fn chunk<'a>(fetch: &MutFetch<T>, len: usize) -> &'a mut [T] {
        if let Some(ticks) = fetch.ticks {
            // SAFETY: the chunk's rows are the table's; the caller holds write access.
            unsafe { ticks.as_ref().mark_changed(fetch.row, len, fetch.tick) };
        }
        // SAFETY: `len` values from the cursor on, exclusive write access for `'a`.
        unsafe { slice::from_raw_parts_mut(fetch.cursor.as_ptr(), len) }
    }

    #[inline(always)]
    unsafe fn next_item_mixed<'a>(
        state: &MutState,
        fetch: &mut MutFetch<T>,
        storage: &'a Storage,
        entity: Entity,
    ) -> Mut<'a, T> {
        match sparse_entry(state, storage, entity) {
            Some(entry) => {
                debug_assert!(entry.is_some());
                // SAFETY: `T` is required, so the row passed `row_matches_mixed` only because
                // `entity` has a value: a live `T` at its position, yielded once, with
                // exclusive write access for `'a`.
                let (ptr, ticks, row) = unsafe { entry.unwrap_unchecked() };
                Mut {
                    // SAFETY: as above.
                    value: unsafe { &mut *ptr.cast::<T>() },
                    ticks,
                    row,
                    tick: state.tick,
                    marked: false,
                }
            }
            // SAFETY: a table component: forwarded from the caller.
            None => unsafe { Self::next_item(fetch) },
        }
    }

    mixed_presence!();
    mixed_skip!();
}
