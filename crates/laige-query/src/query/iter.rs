//! The iteration loops shared by the world (unchecked) and system contexts (checked).

use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::slice;

use laige_registry::ComponentId;

use super::Checks;
use super::{Matcher, Prepared, QueryData, QueryDesc};
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;
use laige_storage::column::{CHANGE_BLOCK_ROWS, TableColumn};

/// Resolves and checks `Q`; reports a refusal.
#[inline(always)]
pub(crate) fn prepare<Q: QueryData>(
    storage: &Storage,
    checks: Checks<'_>,
) -> Result<(Q::State, Matcher), QueryError> {
    let mut desc = QueryDesc::checked(storage, checks);
    match Q::init(&mut desc).and_then(|state| desc.check_footprint().map(|()| state)) {
        Ok(state) => Ok((state, desc.matcher())),
        Err(err) => Err(refuse(storage, err)),
    }
}

/// Reports a refused query; out of line, off the hot path.
#[cold]
#[inline(never)]
fn refuse(storage: &Storage, err: QueryError) -> QueryError {
    storage.report(err)
}

/// A matched, non-empty table, as the loops below get it.
struct Matched<'s> {
    table: &'s Archetype,
    rows: usize,
    /// The driver and the base of its column here, when the table was reached through the
    /// column directory.
    driver: Option<(ComponentId, NonNull<u8>)>,
}

impl Matched<'_> {
    /// The column pointers of `Q` in this table.
    ///
    /// # Safety
    ///
    /// `state` comes from the [`QueryDesc`] whose matcher accepted the table.
    #[inline(always)]
    unsafe fn fetch<Q: QueryData>(&self, state: &Q::State, mixed: bool) -> Q::Fetch {
        match self.driver {
            // SAFETY: the table matched (the caller's promise), and the base is the driver's
            // column in it (`for_each_table`). A mixed query takes the checked `fetch`: its
            // sparse elements have no column here.
            Some((driver, column)) if !mixed => unsafe {
                Q::fetch_driven(state, self.table, driver, column)
            },
            _ => Q::fetch(state, self.table),
        }
    }

    /// The entity column's base, valid for `rows` entities.
    #[inline(always)]
    fn entities(&self) -> NonNull<Entity> {
        self.table.entities_ptr()
    }
}

/// Where the matched tables come from: the driver's column directory, or every table.
#[derive(Clone, Debug)]
enum Source<'s> {
    /// A query that requires a component walks that component's column directory, which
    /// reaches the column (its rows and base) in one step; only when the driver is not the
    /// query's only condition is the table itself tested.
    Directory {
        entries: slice::Iter<'s, TableColumn>,
        driver: ComponentId,
        exact: bool,
    },
    /// A query that requires nothing tests every table.
    All(slice::Iter<'s, Archetype>),
}

/// The walk over the non-empty tables a matcher accepts, in ascending archetype id: what
/// every loop and iterator over a query's rows steps through.
#[derive(Clone, Debug)]
struct Tables<'s> {
    tables: &'s [Archetype],
    source: Source<'s>,
    matcher: Matcher,
}

impl<'s> Tables<'s> {
    #[inline(always)]
    fn new(storage: &'s Storage, matcher: Matcher) -> Self {
        let tables = storage.archetypes();
        let source = match matcher.driver() {
            // An unmatchable query walks an empty directory.
            _ if matcher.unmatchable() => Source::All([].iter()),
            Some(driver) => Source::Directory {
                entries: storage.tables_with(driver).iter(),
                driver,
                exact: matcher.exact(),
            },
            None => Source::All(tables.iter()),
        };
        Self {
            tables,
            source,
            matcher,
        }
    }

    /// The next matched, non-empty table.
    #[inline(always)]
    fn next_table(&mut self) -> Option<Matched<'s>> {
        match &mut self.source {
            Source::Directory {
                entries,
                driver,
                exact,
            } => {
                for entry in entries.by_ref() {
                    debug_assert!((entry.table() as usize) < self.tables.len());
                    // SAFETY: directory entries name only created archetypes, which are never
                    // removed; the entry belongs to the storage, borrowed shared for `'s`, so
                    // no `&mut` to any table's columns exists meanwhile.
                    let (table, column) = unsafe {
                        (
                            self.tables.get_unchecked(entry.table() as usize),
                            entry.column(),
                        )
                    };
                    let rows = column.len();
                    if rows != 0 && (*exact || self.matcher.matches(table)) {
                        let driver = Some((*driver, column.data()));
                        return Some(Matched {
                            table,
                            rows,
                            driver,
                        });
                    }
                }
                None
            }
            Source::All(tables) => {
                let matcher = &self.matcher;
                let table = tables.find(|table| !table.is_empty() && matcher.matches(table))?;
                Some(Matched {
                    table,
                    rows: table.len(),
                    driver: None,
                })
            }
        }
    }
}

/// Calls `visit` with every non-empty table `matcher` accepts, in ascending archetype id.
#[inline(always)]
fn for_each_table<'s>(storage: &'s Storage, matcher: &Matcher, mut visit: impl FnMut(Matched<'s>)) {
    let mut tables = Tables::new(storage, *matcher);
    while let Some(table) = tables.next_table() {
        visit(table);
    }
}

/// The rows a checked query matches, as an [`Iterator`]: archetypes in ascending id, rows in
/// table order. Made by `iter` / `iter_mut` on a view, which check the query first.
pub struct QueryIter<'s, Q: QueryData> {
    tables: Tables<'s>,
    state: Q::State,
    /// For a query that touches a sparse component (`Matcher::mixed`): the storage its sets
    /// are in, and the current table's entity cursor.
    storage: &'s Storage,
    entities: NonNull<Entity>,
    /// Rows left in the current table of a mixed query, whose `rows` stays 0 so that the
    /// table-only path of `next` pays nothing for mixed queries.
    mixed_rows: usize,
    /// The row of the current table a mixed query's cursors are at.
    mixed_row: usize,
    /// The current table's cursors, valid while `rows` is above zero.
    fetch: MaybeUninit<Q::Fetch>,
    /// Rows left in the current table.
    rows: usize,
    /// With change filters: where the rows are visited by block masks instead.
    filtered: FilteredCursor,
    _items: PhantomData<Q::Item<'s>>,
}

/// Where a query with change filters is in its current table: rows are visited by the
/// masks of their blocks, so a block whose summary is old is skipped unread.
#[derive(Clone, Copy, Debug, Default)]
struct FilteredCursor {
    /// The row the fetch cursors are at.
    row: usize,
    /// The table's rows.
    rows: usize,
    /// The next block to read a mask of.
    next_block: usize,
    /// The block `mask` is of, and its rows still to visit.
    block: usize,
    mask: u64,
}

impl<'s, Q: QueryData> QueryIter<'s, Q> {
    /// Checks `Q` and starts before the first matched row.
    ///
    /// # Safety
    ///
    /// As for [`each_in`], for as long as the iterator and its items live; for a query that
    /// is not read-only, no other iterator or item of the same access lives meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn new(storage: &'s Storage, checks: Checks<'_>) -> Result<Self, QueryError> {
        let (state, matcher) = prepare::<Q>(storage, checks)?;
        Ok(Self {
            tables: Tables::new(storage, matcher),
            state,
            storage,
            entities: NonNull::dangling(),
            mixed_rows: 0,
            mixed_row: 0,
            fetch: MaybeUninit::uninit(),
            rows: 0,
            filtered: FilteredCursor::default(),
            _items: PhantomData,
        })
    }

    /// Moves on to the next matched table; `false` at the end. Borrows the table walk alone,
    /// so the row cursors stay in registers across a `for` loop.
    /// A query without change filters hands out every row of a table it enters, so its
    /// `&mut` elements mark them all changed here, at once.
    #[inline(always)]
    fn next_table(tables: &mut Tables<'s>, state: &Q::State) -> Option<(Q::Fetch, usize)> {
        let table = tables.next_table()?;
        // SAFETY: `Tables` yields only tables the query's matcher accepts.
        let fetch = unsafe { table.fetch::<Q>(state, false) };
        // SAFETY: the table's rows, under the access `new`'s caller promised.
        unsafe { Q::mark_rows(&fetch, 0, table.rows) };
        Some((fetch, table.rows))
    }

    /// [`Iterator::next`] for a query with change filters: the next row its masks keep,
    /// marked (for its `&mut` elements) as it is handed out.
    #[inline]
    fn next_filtered(&mut self) -> Option<Q::Item<'s>> {
        let at = &mut self.filtered;
        loop {
            if at.mask != 0 {
                let row = at.block * CHANGE_BLOCK_ROWS + at.mask.trailing_zeros() as usize;
                at.mask &= at.mask - 1;
                // SAFETY: a mask is only set once the table's fetch is.
                let fetch = unsafe { self.fetch.assume_init_mut() };
                // SAFETY: `row` is a row of the table (masks keep no row past its end) at or
                // after the cursors' row; access is `new`'s caller's promise; each row is
                // yielded once (its bit is cleared).
                unsafe {
                    Q::skip_rows(fetch, row - at.row);
                    Q::mark_rows(fetch, row, 1);
                    at.row = row + 1;
                    return Some(Q::next_item(fetch));
                }
            }
            if at.next_block * CHANGE_BLOCK_ROWS < at.rows {
                at.block = at.next_block;
                at.next_block += 1;
                // SAFETY: the block is the table's; a mask is read once the fetch is set.
                let rows = unsafe { Q::block_rows(self.fetch.assume_init_ref(), at.block) };
                at.mask = rows & valid_rows(at.rows - at.block * CHANGE_BLOCK_ROWS);
                continue;
            }
            let table = self.tables.next_table()?;
            // SAFETY: `Tables` yields only tables the query's matcher accepts.
            let fetch = unsafe { table.fetch::<Q>(&self.state, false) };
            if !Q::may_match(&fetch) {
                continue;
            }
            self.fetch = MaybeUninit::new(fetch);
            *at = FilteredCursor {
                rows: table.rows,
                ..FilteredCursor::default()
            };
        }
    }

    /// [`QueryIter::next_mixed`] out of line, so the table-only `next` stays small.
    #[inline(never)]
    fn next_mixed_out_of_line(&mut self) -> Option<Q::Item<'s>> {
        self.next_mixed()
    }

    /// [`Iterator::fold`] for a query that touches a sparse component, out of line so the
    /// table-only loop stays as it was.
    #[inline(never)]
    fn fold_mixed<B, F: FnMut(B, Q::Item<'s>) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        while let Some(item) = self.next_mixed() {
            acc = f(acc, item);
        }
        acc
    }

    /// [`Iterator::next`] for a query that touches a sparse component: row by row, each
    /// tested against the per-row conditions with its entity (change filters included).
    #[inline]
    fn next_mixed(&mut self) -> Option<Q::Item<'s>> {
        loop {
            if self.mixed_rows == 0 {
                let table = self.tables.next_table()?;
                // SAFETY: `Tables` yields only tables the query's matcher accepts.
                self.fetch = MaybeUninit::new(unsafe { table.fetch::<Q>(&self.state, true) });
                self.entities = table.entities();
                self.mixed_rows = table.rows;
                self.mixed_row = 0;
            }
            self.mixed_rows -= 1;
            let row = self.mixed_row;
            self.mixed_row += 1;
            // SAFETY: `mixed_rows` was above zero, so the entity cursor is at one of the current
            // table's rows (each turn moves it on by one), and one step on stays in bounds or
            // one past the end; the entity column changes only under `&mut Storage`.
            let entity = unsafe {
                let entity = *self.entities.as_ptr();
                self.entities = self.entities.add(1);
                entity
            };
            // SAFETY: `mixed_rows` was above zero, so `fetch` is set (by `Q::fetch`) and at the
            // row.
            let fetch = unsafe { self.fetch.assume_init_mut() };
            // SAFETY: `fetch` is at `row`, `entity`'s row of the matched table; access is
            // `new`'s caller's promise; each row is visited once.
            let item = unsafe { mixed_row::<Q>(&self.state, fetch, self.storage, entity, row) };
            if item.is_some() {
                return item;
            }
        }
    }
}

/// One row of a mixed walk (a query that touches a sparse component): the item of
/// `entity`'s row `row` when it passes the query's per-row conditions, its `&mut` table
/// elements marking it changed; else `None`, with `fetch` moved past the row.
///
/// # Safety
///
/// `fetch` comes from [`QueryData::fetch`] of the matched table that holds `entity` at
/// `row`, and is at that row; `storage` is the one the query was checked on; the caller has
/// the query's access, and the row is not yielded twice while a mutable item of it lives.
#[inline(always)]
pub(crate) unsafe fn mixed_row<'s, Q: QueryData>(
    state: &Q::State,
    fetch: &mut Q::Fetch,
    storage: &'s Storage,
    entity: Entity,
    row: usize,
) -> Option<Q::Item<'s>> {
    // SAFETY: forwarded from the caller.
    unsafe {
        if Q::row_matches_mixed(state, fetch, storage, entity, row) {
            Q::mark_rows(fetch, row, 1);
            Some(Q::next_item_mixed(state, fetch, storage, entity))
        } else {
            Q::skip_rows_mixed(state, fetch, storage, 1);
            None
        }
    }
}

/// The bits of the rows that exist in a block with `left` rows from its start on.
#[inline(always)]
fn valid_rows(left: usize) -> u64 {
    if left >= CHANGE_BLOCK_ROWS {
        u64::MAX
    } else {
        (1u64 << left) - 1
    }
}

/// Calls `f(first_row, len)` for each run of consecutive rows in `first..end` that `Q`'s
/// block masks keep, in row order (a run may span blocks).
///
/// # Safety
///
/// `fetch` comes from a matched table with at least `end` rows; the caller has `Q`'s access.
#[inline]
pub(crate) unsafe fn for_each_run<Q: QueryData>(
    fetch: &Q::Fetch,
    first: usize,
    end: usize,
    mut f: impl FnMut(usize, usize),
) {
    let mut open: Option<usize> = None;
    let mut block = first / CHANGE_BLOCK_ROWS;
    while block * CHANGE_BLOCK_ROWS < end {
        let base = block * CHANGE_BLOCK_ROWS;
        // SAFETY: the block is the table's (below `end`); access is the caller's.
        let mut mask = unsafe { Q::block_rows(fetch, block) } & valid_rows(end - base);
        if base < first {
            mask &= !((1u64 << (first - base)) - 1);
        }
        let mut pos = 0u32;
        while pos < 64 {
            let rest = mask >> pos;
            let zeros = if rest == 0 {
                64 - pos
            } else {
                rest.trailing_zeros()
            };
            if zeros > 0 {
                if let Some(start) = open.take() {
                    f(start, base + pos as usize - start);
                }
                pos += zeros;
                if pos >= 64 {
                    break;
                }
            }
            open.get_or_insert(base + pos as usize);
            pos += (mask >> pos).trailing_ones();
        }
        block += 1;
    }
    if let Some(start) = open {
        f(start, end - start);
    }
}

impl<'s, Q: QueryData> Iterator for QueryIter<'s, Q> {
    type Item = Q::Item<'s>;

    #[inline(always)]
    fn next(&mut self) -> Option<Q::Item<'s>> {
        if Q::FILTERS_ROWS {
            // A mixed walk tests change filters row by row; the masks are for tables alone.
            if self.tables.matcher.mixed() {
                return self.next_mixed_out_of_line();
            }
            return self.next_filtered();
        }
        if self.rows == 0 {
            // A mixed query keeps `rows` at 0, so the test costs a table-only query nothing
            // per row.
            if self.tables.matcher.mixed() {
                return self.next_mixed_out_of_line();
            }
            let (fetch, rows) = Self::next_table(&mut self.tables, &self.state)?;
            self.fetch = MaybeUninit::new(fetch);
            self.rows = rows;
        }
        self.rows -= 1;
        // SAFETY: `rows` was above zero, so `fetch` is set and at one of the current table's
        // rows (each turn moves it on by one); access is `new`'s caller's promise; each row
        // is yielded once, and `Q` has no aliasing elements (`prepare`).
        Some(unsafe { Q::next_item(self.fetch.assume_init_mut()) })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        if Q::FILTERS_ROWS {
            return (0, None);
        }
        // A mixed query keeps `rows` at 0: it may skip any of its rows.
        (self.rows, None)
    }

    // A table at a time, as `each` has always run: the row loop has no table test in it.
    #[inline]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(mut self, init: B, mut f: F) -> B {
        if self.tables.matcher.mixed() {
            return self.fold_mixed(init, f);
        }
        let mut acc = init;
        if Q::FILTERS_ROWS {
            while let Some(item) = self.next_filtered() {
                acc = f(acc, item);
            }
            return acc;
        }
        if self.rows != 0 {
            // SAFETY: as for `next`: `rows` above zero means `fetch` is set.
            let mut fetch = unsafe { self.fetch.assume_init() };
            for _ in 0..self.rows {
                // SAFETY: as for `next`.
                acc = f(acc, unsafe { Q::next_item(&mut fetch) });
            }
        }
        while let Some((mut fetch, rows)) = Self::next_table(&mut self.tables, &self.state) {
            for _ in 0..rows {
                // SAFETY: as for `next`: a fresh table's cursors, `rows` rows.
                acc = f(acc, unsafe { Q::next_item(&mut fetch) });
            }
        }
        acc
    }
}

impl<Q: QueryData> fmt::Debug for QueryIter<'_, Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryIter")
            .field("query", &std::any::type_name::<Q>())
            .field("rows_left_in_table", &self.rows)
            .finish_non_exhaustive()
    }
}

/// Calls `f` for every row matched by `Q`: archetypes in ascending id, rows in table order.
///
/// # Safety
///
/// For `'s`, the caller has the access `Q` needs to every matched column: no one else writes
/// a component `Q` reads, and no one else touches a component `Q` writes. (`Storage` cannot
/// change structurally meanwhile: it is borrowed for `'s`.) With `declared`, `Q` is checked
/// against it first, which is how a view turns its scheduler-proven declaration into this
/// guarantee.
// Rows by pointer steps, not indices: in the frag_iter bench the indexed form of the same
// vectorised loop ran 1.3x slower per table, for the same instruction count.
#[inline(always)]
pub(crate) unsafe fn each_in<'s, Q: QueryData>(
    storage: &'s Storage,
    checks: Checks<'_>,
    f: impl FnMut(Q::Item<'s>),
) -> Result<(), QueryError> {
    // SAFETY: forwarded from the caller; `for_each` walks a table at a time (`fold`).
    unsafe { QueryIter::<Q>::new(storage, checks) }?.for_each(f);
    Ok(())
}

/// Calls `f` once per non-empty matched archetype with its entities and whole columns.
///
/// # Safety
///
/// As for [`each_in`].
pub(crate) unsafe fn each_chunk_in<'s, Q: QueryData>(
    storage: &'s Storage,
    checks: Checks<'_>,
    mut f: impl FnMut(&'s [Entity], Q::Chunk<'s>),
) -> Result<(), QueryError> {
    let (state, matcher) = prepare::<Q>(storage, checks)?;
    refuse_mixed_chunks::<Q>(storage, checks, &matcher)?;
    for_each_table(storage, &matcher, |table| {
        // SAFETY: `for_each_table` visits only tables the query's matcher accepts.
        let fetch = unsafe { table.fetch::<Q>(&state, false) };
        let mut run = |first: usize, len: usize| {
            let mut at = fetch;
            // SAFETY: the entity column holds `rows` entities, which nothing writes meanwhile
            // (it changes only under `&mut Storage`); `first..first + len` are rows of the
            // matched table; access is the caller's promise; each run is yielded once per
            // call, and runs do not overlap.
            let (entities, chunk) = unsafe {
                Q::skip_rows(&mut at, first);
                Q::mark_rows(&at, first, len);
                let entities = slice::from_raw_parts(table.entities().as_ptr().add(first), len);
                (entities, Q::chunk(&at, len))
            };
            f(entities, chunk);
        };
        if !Q::FILTERS_ROWS {
            run(0, table.rows);
        } else if Q::may_match(&fetch) {
            // SAFETY: the matched table has `rows` rows; access is the caller's promise.
            unsafe { for_each_run::<Q>(&fetch, 0, table.rows, run) };
        }
    });
    Ok(())
}

/// A reported [`QueryError::SparseChunk`] when `matcher`'s query touches a sparse component.
pub(crate) fn refuse_mixed_chunks<Q: QueryData>(
    storage: &Storage,
    checks: Checks<'_>,
    matcher: &Matcher,
) -> Result<(), QueryError> {
    if !matcher.mixed() {
        return Ok(());
    }
    Err(refuse(
        storage,
        QueryError::SparseChunk {
            system: checks.meta.map(|meta| meta.name),
            query: std::any::type_name::<Q>(),
        },
    ))
}

/// Checks `Q` once, for [`Prepared::get`] lookups.
///
/// # Safety
///
/// As for [`each_in`], for as long as the result lives.
pub(crate) unsafe fn prepared_in<'s, Q: QueryData>(
    storage: &'s Storage,
    checks: Checks<'_>,
) -> Result<Prepared<'s, Q>, QueryError> {
    let (state, matcher) = prepare::<Q>(storage, checks)?;
    // SAFETY: forwarded from the caller; `state` and `matcher` come from checking `Q`.
    Ok(unsafe { Prepared::new(storage, state, matcher) })
}

/// The item of `entity` for a checked `Q`, if it is alive and its table matches.
///
/// # Safety
///
/// As for [`each_in`], for the entity's row; `state` and `matcher` come from checking `Q`.
pub(crate) unsafe fn get_in<'s, Q: QueryData>(
    storage: &'s Storage,
    state: &Q::State,
    matcher: &Matcher,
    entity: Entity,
) -> Option<Q::Item<'s>> {
    let location = storage.entities().location(entity)?;
    let table = &storage.archetypes()[location.archetype() as usize];
    if !matcher.matches(table) {
        return None;
    }
    let mut fetch = Q::fetch(state, table);
    let row = location.row() as usize;
    if matcher.mixed() {
        // SAFETY: as below, for the mixed walk: `fetch` comes from `Q::fetch` and is moved to
        // `entity`'s row.
        return unsafe {
            Q::skip_rows_mixed(state, &mut fetch, storage, row);
            mixed_row::<Q>(state, &mut fetch, storage, entity, row)
        };
    }
    // SAFETY: the entity's row is in bounds of its table, which the query matches; access is
    // the caller's promise; one item is yielded.
    unsafe {
        if Q::FILTERS_ROWS {
            let kept = Q::block_rows(&fetch, row / CHANGE_BLOCK_ROWS) >> (row % CHANGE_BLOCK_ROWS);
            if !Q::may_match(&fetch) || kept & 1 == 0 {
                return None;
            }
        }
        Q::skip_rows(&mut fetch, row);
        Q::mark_rows(&fetch, row, 1);
        Some(Q::next_item(&mut fetch))
    }
}
