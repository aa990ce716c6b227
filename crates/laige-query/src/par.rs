//! A query's rows cut into batches that other threads may visit at once: what `par_each` and
//! `par_each_chunk` run on.
//!
//! Each matched table (ascending id) is cut into runs of [`PAR_BATCH_ROWS`] rows, the last
//! one shorter, so the batches depend on the tables alone, never on the thread count. Each
//! batch can be visited once per check: a second visit of the same batch (from a runner that
//! hands an index out twice) visits nothing, so batches never alias.

use std::fmt;
use std::slice;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::query::{Checks, Matcher, QueryData, for_each_run, mixed_row};
use crate::{Entity, Queries, QueryError, Storage};

/// How many rows one batch of `par_each` / `par_each_chunk` covers at most.
pub const PAR_BATCH_ROWS: usize = 256;

/// One matched table, as the batches see it.
#[derive(Clone, Copy, Debug)]
pub struct BatchTable {
    table: u32,
    rows: u32,
    first_batch: u32,
}

/// What the batches of one system's parallel loops keep between runs, so a steady tick
/// allocates nothing: the matched tables and each batch's visited mark.
#[derive(Debug, Default)]
pub struct BatchTables {
    tables: Vec<BatchTable>,
    visited: Vec<AtomicBool>,
}

/// A checked query's rows, cut into batches, each visited at most once.
pub struct ParBatches<'s, Q: QueryData> {
    storage: &'s Storage,
    state: Q::State,
    matcher: Matcher,
    tables: &'s [BatchTable],
    visited: &'s [AtomicBool],
    count: u32,
}

// SAFETY: the batches are shared to visit disjoint rows from several threads: `visit` claims
// each batch once (an atomic swap), so no row is reached by two threads; the state is ids and
// pointers into a storage that nobody changes structurally meanwhile (it is borrowed for
// `'s`); and items may be used on another thread (every component is `Send + Sync`, which is
// the only way to register one, and `QueryData`'s contract covers the elements).
unsafe impl<Q: QueryData> Sync for ParBatches<'_, Q> {}

impl<'w> Queries<'w> {
    /// Checks `Q` once and cuts its matched rows into batches, keeping the tables in
    /// `scratch`.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn par_batches<'s, Q: QueryData>(
        &'s mut self,
        scratch: &'s mut BatchTables,
    ) -> Result<ParBatches<'s, Q>, QueryError> {
        let (storage, checks) = (self.storage(), self.checks());
        // SAFETY: as for `Queries::each`: the view's access covers `Q` once checked (here),
        // and `&mut self` keeps every other query of this view out while the batches live.
        unsafe { par_batches_in::<Q>(storage, checks, scratch, false) }
    }

    /// [`Queries::par_batches`] for visiting with [`ParBatches::chunk`].
    ///
    /// # Errors
    ///
    /// As for [`Queries::each_chunk`]: a query that touches a sparse component has no chunks
    /// ([`QueryError::SparseChunk`]).
    pub fn par_chunk_batches<'s, Q: QueryData>(
        &'s mut self,
        scratch: &'s mut BatchTables,
    ) -> Result<ParBatches<'s, Q>, QueryError> {
        let (storage, checks) = (self.storage(), self.checks());
        // SAFETY: as for `par_batches`.
        unsafe { par_batches_in::<Q>(storage, checks, scratch, true) }
    }
}

/// [`Queries::par_batches`] over `storage` under `checks`.
///
/// # Safety
///
/// As for [`each_in`](crate::query::each_in), for as long as the result lives.
unsafe fn par_batches_in<'s, Q: QueryData>(
    storage: &'s Storage,
    checks: Checks<'s>,
    scratch: &'s mut BatchTables,
    chunks: bool,
) -> Result<ParBatches<'s, Q>, QueryError> {
    let (state, matcher) = crate::query::prepare_checked::<Q>(storage, checks)?;
    if chunks {
        crate::query::refuse_mixed_chunks::<Q>(storage, checks, &matcher)?;
    }
    scratch.tables.clear();
    let mut count = 0u32;
    for (index, table) in storage.archetypes().iter().enumerate() {
        if table.is_empty() || !matcher.matches(table) {
            continue;
        }
        // A table whose change summary is old has no row to visit.
        if Q::FILTERS_ROWS && !Q::may_match(&Q::fetch(&state, table)) {
            continue;
        }
        let rows = table.len() as u32;
        scratch.tables.push(BatchTable {
            table: index as u32,
            rows,
            first_batch: count,
        });
        count += (rows as usize).div_ceil(PAR_BATCH_ROWS) as u32;
    }
    if scratch.visited.len() < count as usize {
        // Grows while a world grows; a steady tick finds its marks.
        scratch
            .visited
            .resize_with(count as usize, AtomicBool::default);
    }
    for mark in &mut scratch.visited[..count as usize] {
        *mark.get_mut() = false;
    }
    Ok(ParBatches {
        storage,
        state,
        matcher,
        tables: &scratch.tables,
        visited: &scratch.visited[..count as usize],
        count,
    })
}

impl<Q: QueryData> ParBatches<'_, Q> {
    /// How many batches there are.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Where batch `batch`'s rows are: `(table, first row, rows)`, if it is one.
    fn locate(&self, batch: u32) -> Option<(usize, usize, usize)> {
        let at = self
            .tables
            .partition_point(|it| it.first_batch <= batch)
            .checked_sub(1)?;
        let entry = self.tables[at];
        let start = (batch - entry.first_batch) as usize * PAR_BATCH_ROWS;
        let rows = (entry.rows as usize)
            .checked_sub(start)?
            .min(PAR_BATCH_ROWS);
        Some((entry.table as usize, start, rows))
    }

    /// Calls `f` with batch `batch`'s entities, the query's cursors at its first row and that
    /// row (for a query with change filters: once per run of the rows it keeps, with those
    /// rows, marked); `false` (and no call) for an index that is not a batch or was visited
    /// already. A mixed query gets the whole batch unmarked: it tests and marks row by row.
    fn visit(&self, batch: u32, mut f: impl FnMut(&[Entity], Q::Fetch, usize)) -> bool {
        let Some((table, start, rows)) = self.locate(batch) else {
            return false;
        };
        if self.visited[batch as usize].swap(true, Ordering::AcqRel) {
            return false;
        }
        let archetype = &self.storage.archetypes()[table];
        let fetch = Q::fetch(&self.state, archetype);
        let entities = |first: usize, len: usize| {
            // SAFETY: `first..first + len` is within the batch, so within the matched table
            // (`locate`); the entity column changes only under `&mut Storage`.
            unsafe { slice::from_raw_parts(archetype.entities_ptr().as_ptr().add(first), len) }
        };
        if self.matcher.mixed() {
            let mut at = fetch;
            // SAFETY: the batch's first row is the table's (`locate`).
            unsafe { Q::skip_rows_mixed(&self.state, &mut at, self.storage, start) };
            f(entities(start, rows), at, start);
            return true;
        }
        let mut run = |first: usize, len: usize| {
            let mut at = fetch;
            // SAFETY: `first..first + len` is within the batch, so within the matched table
            // (`locate`); the batch is visited once, so its rows are marked by this thread
            // alone.
            unsafe {
                Q::skip_rows(&mut at, first);
                Q::mark_rows(&at, first, len);
            }
            f(entities(first, len), at, first);
        };
        if Q::FILTERS_ROWS {
            // SAFETY: the batch's rows are the table's; access is the view's.
            unsafe { for_each_run::<Q>(&fetch, start, start + rows, run) };
        } else {
            run(start, rows);
        }
        true
    }

    /// Calls `f` with each item of batch `batch`, in row order; `false` (and no call) for an
    /// index that is not a batch or was visited already.
    #[inline]
    pub fn each(&self, batch: u32, mut f: impl FnMut(Q::Item<'_>)) -> bool {
        if self.matcher.mixed() {
            let (storage, state) = (self.storage, &self.state);
            return self.visit(batch, |entities, mut fetch, first| {
                for (row, &entity) in (first..).zip(entities) {
                    // SAFETY: `fetch` comes from `Q::fetch` and is at `entity`'s row `row`
                    // (each turn moves it on by one); the batch is visited once, and batches
                    // are disjoint rows; access is the view's.
                    let item = unsafe { mixed_row::<Q>(state, &mut fetch, storage, entity, row) };
                    if let Some(item) = item {
                        f(item);
                    }
                }
            });
        }
        self.visit(batch, |entities, mut fetch, _| {
            for _ in entities {
                // SAFETY: `fetch` is at one of the batch's rows, and each turn moves it on by
                // one; this batch is visited once (`visit`), and batches are disjoint rows;
                // access is the view's (`par_batches`).
                f(unsafe { Q::next_item(&mut fetch) });
            }
        })
    }

    /// Calls `f` once with batch `batch`'s entities and its rows of each column; `false`
    /// (and no call) for an index that is not a batch or was visited already.
    /// For a query with change filters, `f` is called once per run of consecutive rows the
    /// filters keep. A query that touches a sparse component has no chunks: its batches
    /// visit nothing here (`Queries::par_chunk_batches` refuses such a query).
    #[inline]
    pub fn chunk(&self, batch: u32, mut f: impl FnMut(&[Entity], Q::Chunk<'_>)) -> bool {
        if self.matcher.mixed() {
            return false;
        }
        self.visit(batch, |entities, fetch, _| {
            // SAFETY: the batch's rows from `fetch` on, one per entity, visited once.
            f(entities, unsafe { Q::chunk(&fetch, entities.len()) });
        })
    }
}

impl<Q: QueryData> fmt::Debug for ParBatches<'_, Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParBatches")
            .field("query", &std::any::type_name::<Q>())
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}
