//! Typed queries: what a system asks for, checked once per call against what it declared.
//!
//! A query is a type: `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`, [`Fresh<&T>`],
//! [`Entity`](crate::Entity), [`Ref<T>`], [`Mut<T>`], the filters [`With<T>`], [`Without<T>`],
//! [`Changed<T>`] and [`Added<T>`], or a tuple of up to 8
//! of these (tuples nest).
//! Matched archetypes are visited in ascending id, rows in table order.

/// The mixed-walk presence test of an element that requires its one component, whose state
/// is an `ElementId`: a sparse component's set must hold the row's entity.
macro_rules! mixed_presence {
    () => {
        #[inline(always)]
        unsafe fn row_matches_mixed(
            state: &Self::State,
            _: &Self::Fetch,
            storage: &Storage,
            entity: Entity,
            _: usize,
        ) -> bool {
            state.present_mixed(storage, entity)
        }
    };
}

/// The mixed-walk skip of an element of one component: a sparse one has no cursor to move.
macro_rules! mixed_skip {
    () => {
        #[inline(always)]
        unsafe fn skip_rows_mixed(
            state: &Self::State,
            fetch: &mut Self::Fetch,
            storage: &Storage,
            rows: usize,
        ) {
            if !is_sparse(state, storage) {
                // SAFETY: a table component: forwarded from the caller.
                unsafe { Self::skip_rows(fetch, rows) }
            }
        }
    };
}

mod changes;
mod elements;
mod filter;
mod fresh;
mod iter;
mod prepared;
mod snapshot;
mod tuple;

use std::any::type_name;
use std::ptr::NonNull;

use laige_registry::{Access, ComponentId, ComponentSet, SystemId, SystemRecord};

use crate::declare::{Claim, ParamInit};
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;
use laige_storage::component::Components;
use laige_storage::snapshot::{SnapshotView, Snapshots};

pub use changes::{Added, Changed, Mut, Ref};
pub use elements::skip;
pub use filter::{QueryFilter, With, Without};
pub use fresh::{Filtered, Fresh};
pub use iter::QueryIter;
pub(crate) use iter::{
    each_chunk_in, each_in, for_each_run, mixed_row, prepare as prepare_checked, prepared_in,
    refuse_mixed_chunks,
};
pub use prepared::Prepared;
pub use snapshot::Snapshot;

/// A query over component storage.
///
/// `Item<'a>` is what the per-entity closure of `SystemContext::each`
/// gets for one row; `Chunk<'a>` is what the per-archetype closure of
/// `SystemContext::each_chunk` gets: slices over whole
/// columns, which the compiler can vectorise.
///
/// | element | item | chunk | access |
/// |---|---|---|---|
/// | `&T` | `&T` | `&[T]` | read `T`; entity must have `T` |
/// | `&mut T` | `&mut T` | `&mut [T]` | write `T`; entity must have `T` |
/// | `Option<&T>` | `Option<&T>` | `Option<&[T]>` | read `T` |
/// | `Option<&mut T>` | `Option<&mut T>` | `Option<&mut [T]>` | write `T` |
/// | `Entity` | `Entity` | `&[Entity]` | none |
/// | `With<T>` / `Without<T>` | `()` | `()` | none (presence only) |
/// | `Snapshot<&T>` | `Option<&T>` | `SnapshotView<T>` | snapshot read of the versioned `T` |
///
/// | `Fresh<&T>` | `&T` | `&[T]` | read `T`; a typed system declares it `reads_fresh` |
/// | `Ref<T>` | `Ref<T>` (`&T`, `is_changed`) | `&[T]` | read the tracked `T` |
/// | `Mut<T>` | `Mut<T>` (marks on `DerefMut`) | `&mut [T]` (marks it) | write `T` |
/// | `Changed<T>` / `Added<T>` | `()` | `()` | read the tracked `T` (its ticks) |
///
/// # Safety
///
/// Implementations must declare in `init` and in `declare` every component they read or
/// write, and `item` / `chunk` must touch nothing else; items and chunks must be sound to use
/// on another thread than the one that made them (`par_each` does), as the components'
/// references are (every component is `Send + Sync`). The impls in this crate do. The
/// methods are the implementor's side, which the checked views drive; code that only
/// queries never calls them.
pub unsafe trait QueryData {
    /// What one row yields.
    type Item<'a>;
    /// What one archetype yields.
    type Chunk<'a>;
    /// The resolved component ids.
    type State: Copy;
    /// Raw column pointers for one archetype.
    type Fetch: Copy;

    /// Resolves component ids and records the access in `desc`, checking it.
    fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError>;

    /// Records, for a typed system's registration, the access each element needs.
    fn declare(init: &mut ParamInit<'_>);

    /// The column pointers of a matched archetype.
    fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch;

    /// [`QueryData::fetch`] for an archetype the query matched through the column directory of
    /// `driver`, without the checks that makes redundant (a required component always has
    /// its column there). An element that requires `driver` takes `driver_column` instead of
    /// looking its column up in the table, which spares the walk through the table when the
    /// driver is all a query needs of it.
    ///
    /// # Safety
    ///
    /// `state` comes from `init` on a [`QueryDesc`] whose matcher accepts `archetype` (it has
    /// every component the query requires); `driver_column` is the base of `archetype`'s
    /// column of `driver`.
    #[inline]
    unsafe fn fetch_driven(
        state: &Self::State,
        archetype: &Archetype,
        driver: ComponentId,
        driver_column: NonNull<u8>,
    ) -> Self::Fetch {
        let _ = (driver, driver_column);
        Self::fetch(state, archetype)
    }

    /// The item of the row `fetch` is at, moving `fetch` on to the next row. A fetch starts at
    /// row 0; iterating by pointer steps rather than row indices lets the compiler vectorise
    /// the per-row loop the way it does a slice iterator.
    ///
    /// # Safety
    ///
    /// `fetch` comes from a matched archetype and is at one of its rows; the caller has the
    /// declared access for `'a`; the same row is not yielded twice while a mutable item of it
    /// lives.
    unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Self::Item<'a>;

    /// Moves `fetch` on by `rows` rows, to reach one entity's row.
    ///
    /// # Safety
    ///
    /// `fetch` comes from a matched archetype, at a row at least `rows` before its end.
    unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize);

    /// [`QueryData::next_item`] in a query that touches a sparse component: the row is
    /// `entity`'s, and passed the query's sparse conditions. An element of a sparse
    /// component looks its value up in the component's set and leaves `fetch` alone (it is
    /// not a column there); every other element steps its cursor as `next_item` does.
    ///
    /// # Safety
    ///
    /// As for [`QueryData::next_item`], with `fetch` from [`QueryData::fetch`] (never
    /// `fetch_driven`); `storage` is the one the query was checked on.
    #[inline(always)]
    unsafe fn next_item_mixed<'a>(
        state: &Self::State,
        fetch: &mut Self::Fetch,
        storage: &'a Storage,
        entity: Entity,
    ) -> Self::Item<'a> {
        let _ = (state, storage, entity);
        // SAFETY: forwarded from the caller.
        unsafe { Self::next_item(fetch) }
    }

    /// Whether `entity`'s row `row`, in a table the query matches, passes this element's
    /// per-row condition in a query that touches a sparse component: an element that
    /// requires a sparse component (`&T`, `&mut T`, `With<T>`) needs the entity to have it,
    /// `Without<T>` not to; a change filter needs the row's ticks (or, for a sparse
    /// component, its value's ticks in the set) to be newer than the system's last run;
    /// every other element passes.
    ///
    /// # Safety
    ///
    /// `fetch` comes from [`QueryData::fetch`] of the matched table that holds `entity` at
    /// `row`; `storage` is the one the query was checked on; the caller has the query's
    /// declared access.
    #[inline(always)]
    unsafe fn row_matches_mixed(
        state: &Self::State,
        fetch: &Self::Fetch,
        storage: &Storage,
        entity: Entity,
        row: usize,
    ) -> bool {
        let _ = (state, fetch, storage, entity, row);
        true
    }

    /// [`QueryData::skip_rows`] in a query that touches a sparse component: an element of a
    /// sparse component leaves `fetch` alone.
    ///
    /// # Safety
    ///
    /// As for [`QueryData::skip_rows`], with `fetch` from [`QueryData::fetch`].
    #[inline(always)]
    unsafe fn skip_rows_mixed(
        state: &Self::State,
        fetch: &mut Self::Fetch,
        storage: &Storage,
        rows: usize,
    ) {
        let _ = (state, storage);
        // SAFETY: forwarded from the caller.
        unsafe { Self::skip_rows(fetch, rows) }
    }

    /// The chunk of a whole archetype of `len` rows.
    ///
    /// # Safety
    ///
    /// As for [`QueryData::next_item`], for all `len` rows at once.
    unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> Self::Chunk<'a>;

    /// Whether the query keeps only some rows of the tables it matches: it holds a change
    /// filter ([`Changed`], [`Added`]). The loops then visit rows by the masks of
    /// [`QueryData::block_rows`] instead of every row.
    const FILTERS_ROWS: bool = false;

    /// Whether the table `fetch` was made for may hold a row the query keeps: a change
    /// filter reads the table's summary tick, and no row.
    #[inline]
    fn may_match(fetch: &Self::Fetch) -> bool {
        let _ = fetch;
        true
    }

    /// The rows of block `block` (rows `block * CHANGE_BLOCK_ROWS ..`, one bit each) that
    /// the query keeps; every bit for a query without change filters (the caller masks off
    /// rows past the table's end).
    ///
    /// # Safety
    ///
    /// `fetch` comes from a matched table that has the block, and the caller has the
    /// query's declared access.
    #[inline]
    unsafe fn block_rows(fetch: &Self::Fetch, block: usize) -> u64 {
        let _ = (fetch, block);
        u64::MAX
    }

    /// Marks rows `first..first + len` of the table changed at the running system's tick:
    /// what `&mut T` (and `Option<&mut T>`) of a tracked `T` does for the rows it hands out;
    /// nothing for every other element.
    ///
    /// # Safety
    ///
    /// `fetch` comes from a matched table that has those rows, and the caller has the
    /// query's declared (write) access to them.
    #[inline]
    unsafe fn mark_rows(fetch: &Self::Fetch, first: usize, len: usize) {
        let _ = (fetch, first, len);
    }
}

/// A [`QueryData`] whose items only read: `&T`, `Option<&T>`, [`Fresh<&T>`], [`Snapshot<&T>`],
/// [`Entity`](crate::Entity), the filters, and tuples of these. Any number of its iterators and
/// items may be alive at once, so `iter`, `single` and `get` take a shared borrow.
///
/// # Safety
///
/// Every item and chunk of the query is a shared reference, a copy, or a value without
/// references to the storage's columns: nothing through which a column can be written.
pub unsafe trait ReadOnlyQueryData: QueryData {}

/// Which tables a checked query visits: all it needs of its [`QueryDesc`] while iterating,
/// small enough to move around in registers.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct Matcher {
    required: ComponentSet,
    excluded: ComponentSet,
    /// The required component with the fewest tables, if the query requires any.
    driver: Option<ComponentId>,
    /// Whether the driver is the query's only condition: every table that has it matches.
    exact: bool,
    unmatchable: bool,
    /// Whether any element touches a sparse component: the rows are then walked one by
    /// one, with their entities, and each element tests its sparse condition
    /// ([`QueryData::row_matches_mixed`], [`QueryData::next_item_mixed`]).
    mixed: bool,
}

impl Matcher {
    /// Whether rows of `archetype` match.
    #[inline]
    #[doc(hidden)]
    pub fn matches(&self, archetype: &Archetype) -> bool {
        !self.unmatchable
            && self.required.is_subset(archetype.signature())
            && !self.excluded.intersects(archetype.signature())
    }

    /// The component whose column directory the query walks: the required component with
    /// the fewest tables. `None` when the query requires nothing, so every table must be
    /// tested.
    #[inline]
    #[doc(hidden)]
    pub fn driver(&self) -> Option<ComponentId> {
        self.driver
    }

    /// Whether every table that has the driver matches (it is the query's only condition).
    #[inline]
    #[doc(hidden)]
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Whether no table can match (the query requires a type never registered).
    #[inline]
    #[doc(hidden)]
    pub fn unmatchable(&self) -> bool {
        self.unmatchable
    }

    /// Whether the query touches a sparse component, so its rows are walked one by one.
    #[inline]
    pub(crate) fn mixed(&self) -> bool {
        self.mixed
    }
}

/// What a query touches, built by [`QueryData::init`] and checked element by element.
#[doc(hidden)]
#[derive(Debug)]
pub struct QueryDesc<'a> {
    storage: &'a Storage,
    declared: Option<&'a SystemMeta>,
    /// What a typed parameter's view claimed, which its queries must stay inside.
    limit: Option<&'a Claim>,
    required: ComponentSet,
    excluded: ComponentSet,
    reads: ComponentSet,
    writes: ComponentSet,
    /// Kept as components are required, so that iterating needs no pass over the sets.
    driver: Option<ComponentId>,
    /// How many distinct components are required or excluded.
    conditions: u16,
    unmatchable: bool,
    ticks: RunTicks,
    /// The sparse components the query requires (tested per row, by the elements), for the
    /// footprint check.
    sparse_required: ComponentSet,
    mixed: bool,
}

impl<'a> QueryDesc<'a> {
    #[doc(hidden)]
    pub fn new(storage: &'a Storage, declared: Option<&'a SystemMeta>) -> Self {
        Self {
            storage,
            declared,
            limit: None,
            required: ComponentSet::EMPTY,
            excluded: ComponentSet::EMPTY,
            reads: ComponentSet::EMPTY,
            writes: ComponentSet::EMPTY,
            driver: None,
            conditions: 0,
            unmatchable: false,
            ticks: declared.map_or(
                RunTicks::first(storage.change_tick()),
                SystemMeta::run_ticks,
            ),
            sparse_required: ComponentSet::EMPTY,
            mixed: false,
        }
    }

    /// A description checked against `checks`: the system's meta and a parameter's claim.
    pub(crate) fn checked(storage: &'a Storage, checks: Checks<'a>) -> Self {
        Self {
            limit: checks.limit,
            ..Self::new(storage, checks.meta)
        }
    }

    fn components(&self) -> &'a Components {
        self.storage.components()
    }

    /// Records that matched entities must have `id`; the driver becomes the required
    /// component with the fewest tables (which one wins a tie does not matter: every driver
    /// visits the same matching tables in the same ascending order).
    fn require(&mut self, id: ComponentId) {
        if self.components().is_sparse(id) {
            // No table holds it: tested per row instead.
            self.sparse_required.insert(id);
            self.mixed = true;
            return;
        }
        if !self.required.insert(id) {
            return;
        }
        self.conditions += 1;
        let tables = |c| self.storage.tables_with(c).len();
        if self.driver.is_none_or(|driver| tables(id) < tables(driver)) {
            self.driver = Some(id);
        }
    }

    /// Records that matched entities must not have `id`.
    fn exclude(&mut self, id: ComponentId) {
        if self.components().is_sparse(id) {
            self.mixed = true;
            return;
        }
        if self.excluded.insert(id) {
            self.conditions += 1;
        }
    }

    /// What iterating needs of the checked query: which tables match.
    #[inline]
    #[doc(hidden)]
    pub fn matcher(&self) -> Matcher {
        Matcher {
            required: self.required,
            excluded: self.excluded,
            driver: self.driver,
            exact: self.conditions == 1,
            unmatchable: self.unmatchable,
            mixed: self.mixed,
        }
    }

    fn undeclared<T>(
        &self,
        meta: &SystemMeta,
        access: Access,
        declared: Option<Access>,
    ) -> QueryError {
        QueryError::Undeclared {
            system: meta.name,
            system_id: meta.id,
            component: type_name::<T>(),
            access,
            declared,
        }
    }

    fn aliased<T>(&self) -> QueryError {
        QueryError::Aliased {
            system: self.declared.map(|meta| meta.name),
            component: type_name::<T>(),
        }
    }

    /// Records a read of `T`; `required` when the entity must have it.
    #[doc(hidden)]
    pub fn read<T: 'static>(&mut self, required: bool) -> Result<Option<ComponentId>, QueryError> {
        self.access::<T>(Access::Read, required)
    }

    /// Records a write of `T`; `required` when the entity must have it.
    #[doc(hidden)]
    pub fn write<T: 'static>(&mut self, required: bool) -> Result<Option<ComponentId>, QueryError> {
        self.access::<T>(Access::Write, required)
    }

    fn access<T: 'static>(
        &mut self,
        access: Access,
        required: bool,
    ) -> Result<Option<ComponentId>, QueryError> {
        let write = access == Access::Write;
        let Some(id) = self.components().id_of::<T>() else {
            // A type never registered can neither be declared nor stored.
            if let Some(meta) = self.declared {
                return Err(self.undeclared::<T>(meta, access, None));
            }
            self.unmatchable |= required;
            return Ok(None);
        };
        if self.components().is_resource(id) {
            return Err(self.resource::<T>());
        }
        let aliased = self.writes.contains(id) || (write && self.reads.contains(id));
        if aliased {
            return Err(self.aliased::<T>());
        }
        if let Some(meta) = self.declared {
            let declared = meta.declared(id);
            // A live read needs a read (plain or fresh) or a write declaration; a snapshot
            // declaration promises not to read the live value.
            let allowed = match declared {
                Some(Access::Write) => true,
                Some(Access::Read | Access::ReadFresh) => !write,
                Some(Access::ReadSnapshot | Access::Emit) | None => false,
            };
            if !allowed {
                return Err(self.undeclared::<T>(meta, access, declared));
            }
        }
        // A parameter's view reaches only what the parameter claimed at registration.
        if self.limit.is_some_and(|claim| !claim.allows(id, write)) {
            return Err(self.aliased::<T>());
        }
        if write {
            self.writes.insert(id);
        } else {
            self.reads.insert(id);
        }
        self.mixed |= self.components().is_sparse(id);
        if required {
            self.require(id);
        }
        Ok(Some(id))
    }

    /// Checks that the query stays inside the system's table footprint: it requires every
    /// component the system declared `matching` (snapshot reads visit no table, so they do
    /// not count either way).
    #[doc(hidden)]
    pub fn check_footprint(&self) -> Result<(), QueryError> {
        let Some(meta) = self.declared else {
            return Ok(());
        };
        // A sparse component in the footprint narrows no table (ADR 0018), but a query must
        // still require it, so the footprint keeps meaning "entities with all of these".
        let required = self.required.union(&self.sparse_required);
        match meta.matching.difference(&required).iter().next() {
            Some(component) => Err(QueryError::Unmatched {
                system: meta.name,
                system_id: meta.id,
                component: self.components().get(component).name(),
            }),
            None => Ok(()),
        }
    }

    /// Checks a snapshot read of `T`, which records no live access; see [`snapshot_of`].
    #[doc(hidden)]
    pub fn snapshot<T: Send + Sync + 'static>(
        &mut self,
    ) -> Result<SnapshotView<'a, T>, QueryError> {
        snapshot_of::<T>(self.components(), self.storage.snapshots(), self.declared)
    }

    fn resource<T>(&self) -> QueryError {
        QueryError::ResourceInQuery {
            system: self.declared.map(|meta| meta.name),
            component: type_name::<T>(),
        }
    }

    /// The change ticks of the run the query is for.
    #[inline]
    pub(crate) fn run_ticks(&self) -> RunTicks {
        self.ticks
    }

    /// Records a change filter on `T` (`filter` names it: `Changed`, `Added`): matched
    /// entities must have `T`, which must be tracked, and the system must be allowed to
    /// read it live (its ticks are written by `T`'s writers). Records no read of the values,
    /// so `Query<&mut T, Changed<T>>` does not alias.
    pub(crate) fn change_filter<T: 'static>(
        &mut self,
        filter: &'static str,
    ) -> Result<Option<ComponentId>, QueryError> {
        let Some(id) = self.components().id_of::<T>() else {
            if let Some(meta) = self.declared {
                return Err(self.undeclared::<T>(meta, Access::Read, None));
            }
            self.unmatchable = true;
            return Ok(None);
        };
        if self.components().is_resource(id) {
            return Err(self.resource::<T>());
        }
        self.check_tracked::<T>(id, filter)?;
        if let Some(meta) = self.declared {
            let declared = meta.declared(id);
            if !matches!(
                declared,
                Some(Access::Read | Access::ReadFresh | Access::Write)
            ) {
                return Err(self.undeclared::<T>(meta, Access::Read, declared));
            }
        }
        if self.limit.is_some_and(|claim| !claim.allows(id, false)) {
            return Err(self.aliased::<T>());
        }
        self.require(id);
        Ok(Some(id))
    }

    /// Whether component `id` keeps change ticks.
    #[inline]
    pub(crate) fn is_tracked(&self, id: ComponentId) -> bool {
        self.components().get(id).is_tracked()
    }

    /// Refuses an untracked `T` for `filter` (`Changed`, `Added`, `Ref`).
    pub(crate) fn check_tracked<T: 'static>(
        &self,
        id: ComponentId,
        filter: &'static str,
    ) -> Result<(), QueryError> {
        if self.components().get(id).is_tracked() {
            return Ok(());
        }
        Err(QueryError::Untracked {
            system: self.declared.map(|meta| meta.name),
            component: type_name::<T>(),
            filter,
        })
    }

    /// Records a presence filter: with `T` (`present`) or without it.
    #[doc(hidden)]
    pub fn filter<T: 'static>(&mut self, present: bool) -> Result<Option<ComponentId>, QueryError> {
        let Some(id) = self.components().id_of::<T>() else {
            // Nothing has an unregistered type.
            self.unmatchable |= present;
            return Ok(None);
        };
        if self.components().is_resource(id) {
            return Err(self.resource::<T>());
        }
        if present {
            self.require(id);
        } else {
            self.exclude(id);
        }
        Ok(Some(id))
    }
}

/// What a view checks each query against: the running system's meta (`None` for setup code
/// holding the storage exclusively), and for a typed parameter's view the parameter's claim.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checks<'a> {
    pub(crate) meta: Option<&'a SystemMeta>,
    pub(crate) limit: Option<&'a Claim>,
}

/// Who a view runs for: the system's id, name and declared access.
///
/// It claims nothing by itself: a view checks queries against it, and only
/// [`Queries::new`](crate::Queries::new), which is `unsafe`, makes a view that shares the
/// storage under it. Made from the registry's record ([`SystemMeta::of`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SystemMeta {
    id: SystemId,
    name: &'static str,
    reads: ComponentSet,
    writes: ComponentSet,
    reads_fresh: ComponentSet,
    reads_snapshot: ComponentSet,
    emits: ComponentSet,
    matching: ComponentSet,
    ticks: RunTicks,
}

/// The change ticks of one system run: its change filters see what changed after
/// `last_run` (the tick of its previous run; 0 before its first), and what it writes through
/// `&mut` is stamped `this_run`. Logical ticks the World hands out in schedule order, never
/// time.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct RunTicks {
    last_run: u64,
    this_run: u64,
}

impl RunTicks {
    /// Ticks for a view with no previous run: everything counts as changed, and writes are
    /// stamped `this_run`.
    pub const fn first(this_run: u64) -> Self {
        Self {
            last_run: 0,
            this_run,
        }
    }

    /// Ticks with both parts given (a world state read back from a save file).
    pub const fn new(last_run: u64, this_run: u64) -> Self {
        Self { last_run, this_run }
    }

    /// The tick of the previous run (0 before the first).
    #[inline]
    pub const fn last_run(&self) -> u64 {
        self.last_run
    }

    /// The tick of this run.
    #[inline]
    pub const fn this_run(&self) -> u64 {
        self.this_run
    }
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
            emits: *record.emits(),
            matching: *record.matching(),
            ticks: RunTicks::default(),
        }
    }

    /// The change ticks of the system's current (or last) run.
    #[inline]
    pub fn run_ticks(&self) -> RunTicks {
        self.ticks
    }

    /// Starts a run at change tick `tick`: the previous run's tick becomes `last_run`. The
    /// World calls it once per run, with a tick that grows in schedule order.
    #[inline]
    pub fn begin_run(&mut self, tick: u64) {
        self.ticks = RunTicks {
            last_run: self.ticks.this_run,
            this_run: tick,
        };
    }

    /// Takes back a [`SystemMeta::begin_run`] whose run did not happen (a false run
    /// condition, a reactive system without events): `ticks` are the run ticks from before
    /// it, so the next run that happens sees every change since the last one that did.
    #[inline]
    pub fn undo_run(&mut self, ticks: RunTicks) {
        self.ticks = ticks;
    }

    /// The system's id.
    #[inline]
    pub fn id(&self) -> SystemId {
        self.id
    }

    /// The system's registration name.
    #[inline]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The components it declared read-only.
    #[inline]
    pub fn reads(&self) -> &ComponentSet {
        &self.reads
    }

    /// The components it declared write (writing includes reading).
    #[inline]
    pub fn writes(&self) -> &ComponentSet {
        &self.writes
    }

    /// The components it declared read-fresh (a subset of `reads`).
    #[inline]
    pub fn reads_fresh(&self) -> &ComponentSet {
        &self.reads_fresh
    }

    /// The components it declared snapshot reads of (the previous tick's value; not
    /// readable through live queries).
    #[inline]
    pub fn reads_snapshot(&self) -> &ComponentSet {
        &self.reads_snapshot
    }

    /// The event queues it declared it emits into.
    #[inline]
    pub fn emits(&self) -> &ComponentSet {
        &self.emits
    }

    /// Its table footprint (`.matching::<T>()`): every query must require each of these, so
    /// the system touches only tables that hold them all.
    #[inline]
    pub fn matching(&self) -> &ComponentSet {
        &self.matching
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
        } else if self.emits.contains(component) {
            Some(Access::Emit)
        } else {
            None
        }
    }
}

/// The snapshot of `T` for a reader: `declared` is the running system, `None` for setup code
/// on the world. Not reported.
///
/// In order: a resource type is [`QueryError::ResourceInQuery`]; a component that is not
/// versioned is [`QueryError::NotVersioned`]; a system needs a `ReadSnapshot` declaration
/// ([`QueryError::Undeclared`] otherwise). An unregistered type gives setup code an empty view
/// and a system [`QueryError::Undeclared`] (it cannot have declared it).
pub(crate) fn snapshot_of<'a, T: Send + Sync + 'static>(
    components: &Components,
    snapshots: &'a Snapshots,
    declared: Option<&SystemMeta>,
) -> Result<SnapshotView<'a, T>, QueryError> {
    let component = type_name::<T>();
    let system = declared.map(|meta| meta.name);
    let undeclared = |meta: &SystemMeta, declared| QueryError::Undeclared {
        system: meta.name,
        system_id: meta.id,
        component,
        access: Access::ReadSnapshot,
        declared,
    };
    let Some(id) = components.id_of::<T>() else {
        return match declared {
            Some(meta) => Err(undeclared(meta, None)),
            None => Ok(SnapshotView::EMPTY),
        };
    };
    if components.is_resource(id) {
        return Err(QueryError::ResourceInQuery { system, component });
    }
    // SAFETY: `id` is `T`'s id.
    let Some(view) = (unsafe { snapshots.view::<T>(id) }) else {
        return Err(QueryError::NotVersioned { system, component });
    };
    if let Some(meta) = declared {
        let access = meta.declared(id);
        if access != Some(Access::ReadSnapshot) {
            return Err(undeclared(meta, access));
        }
    }
    Ok(view)
}

/// The id a setup view's resource errors carry: it runs for no system.
const SETUP_ID: SystemId = match SystemId::new(1) {
    Some(id) => id,
    None => panic!("1 is a valid system id"),
};

/// The checked pointer to resource `T` for the system `meta` (`None`: setup code holding the
/// storage exclusively), needing `access` (read or write). Reported on failure.
pub(crate) fn checked_ptr<T: 'static>(
    storage: &Storage,
    checks: Checks<'_>,
    access: Access,
) -> Result<*mut u8, QueryError> {
    let id = storage.components().id_of::<T>();
    checked_ptr_at::<T>(storage, checks, access, id, type_name::<T>())
}

/// [`checked_ptr`] of the resource `id` (`None`: not registered), of type `T`, named
/// `display` in errors: a plain resource, or a named one (`Grid "terrain"`).
pub(crate) fn checked_ptr_at<T: 'static>(
    storage: &Storage,
    checks: Checks<'_>,
    access: Access,
    id: Option<ComponentId>,
    display: &'static str,
) -> Result<*mut u8, QueryError> {
    let meta = checks.meta;
    let (system, system_id) = match meta {
        Some(meta) => (meta.name, Some(meta.id)),
        None => ("", None),
    };
    let missing = |is_component| QueryError::NoResource {
        system,
        system_id: system_id.unwrap_or(SETUP_ID),
        component: display,
        is_component,
    };
    let Some(id) = id else {
        return Err(storage.report(missing(false)));
    };
    if !storage.components().is_resource(id) {
        return Err(storage.report(missing(true)));
    }
    // Every pointer handed out is cast to `T`: the id must be a `T` resource.
    if !storage.is_resource_of::<T>(id) {
        return Err(storage.report(missing(false)));
    }
    if let Some(meta) = meta {
        let declared = meta.declared(id);
        let allowed = match declared {
            Some(Access::Write) => true,
            Some(Access::Read | Access::ReadFresh) => access != Access::Write,
            // An emitter reaches its queue shared: each writer appends to its own buffer.
            Some(Access::Emit) => access == Access::Read,
            Some(Access::ReadSnapshot) | None => false,
        };
        if !allowed {
            return Err(storage.report(QueryError::Undeclared {
                system: meta.name,
                system_id: meta.id,
                component: display,
                access,
                declared,
            }));
        }
    }
    // A parameter's view reaches only what the parameter claimed at registration.
    if checks
        .limit
        .is_some_and(|claim| !claim.allows(id, access == Access::Write))
    {
        return Err(storage.report(QueryError::Aliased {
            system: meta.map(|meta| meta.name),
            component: display,
        }));
    }
    storage
        .resources()
        .ptr(id)
        .ok_or_else(|| storage.report(missing(false)))
}
