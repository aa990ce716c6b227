//! Parallel iteration inside one system: `par_each` and `par_each_chunk`.
//!
//! The rows a query matches are cut into batches: each matched table (ascending id) into
//! runs of [`PAR_BATCH_ROWS`] rows, the last one shorter. The batches depend on the tables
//! alone, never on the thread count, and run on the pool of the executor that runs the
//! system (`laige_executor::run_batches`), or in order on the calling thread without one.
//! Each batch records commands into its own buffer, applied after the system's own
//! commands in batch order, and draws from its own PRNG stream, derived from the system's
//! seed, how many loops the system ran before (one a tick for a system that loops once) and
//! the batch index. So the world after a tick is the same for every thread count.

use std::ptr::NonNull;

use laige_executor::run_batches;

use crate::command::{CommandBuffer, Commands};
use crate::prng::SPLITMIX64_INCREMENT;
use crate::{Entity, Prng, QueryError, Storage, SystemMeta};
use laige_query::query::{Matcher, QueryData, QueryDesc};

/// How many rows one batch of `par_each` / `par_each_chunk` covers at most.
pub const PAR_BATCH_ROWS: usize = 256;

/// What a batch of `par_each` has besides its rows: its index, its own commands and its own
/// PRNG stream.
#[derive(Debug)]
pub struct Batch<'b> {
    index: u32,
    commands: Commands<'b>,
    rng: Prng,
}

impl<'b> Batch<'b> {
    /// The batch's index: 0 for the first rows of the first matched table, counting on through
    /// the tables in ascending id.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The batch's commands: applied after the system's own, batch by batch in index order.
    pub fn commands(&mut self) -> &mut Commands<'b> {
        &mut self.commands
    }

    /// The batch's own PRNG stream: derived from the system's seed, the loop and the batch
    /// index, so it draws the same numbers whichever thread runs the batch.
    pub fn rng(&mut self) -> &mut Prng {
        &mut self.rng
    }
}

/// One matched table, as the batches see it.
#[derive(Clone, Copy, Debug)]
struct BatchTable {
    table: u32,
    rows: u32,
    first_batch: u32,
}

/// A system's memory for its parallel loops, kept between runs so a tick allocates nothing:
/// the per-batch command buffers and the matched tables of the current loop.
#[derive(Debug, Default)]
pub(crate) struct BatchScratch {
    /// The system's PRNG seed, the root of its batches' streams.
    seed: u64,
    /// Loops run so far: the per-loop part of each batch's PRNG stream.
    loops: u64,
    buffers: Vec<CommandBuffer>,
    /// How many of `buffers` hold commands since the last apply.
    used: usize,
    tables: Vec<BatchTable>,
}

impl BatchScratch {
    /// The scratch of a system whose PRNG was seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            seed,
            ..Self::default()
        }
    }

    /// Whether no batch recorded into its buffer since the last apply.
    #[inline]
    pub(crate) fn is_idle(&self) -> bool {
        self.used == 0
    }

    /// The buffers recorded into since the last apply, in the order they apply.
    pub(crate) fn used_buffers(&mut self) -> &mut [CommandBuffer] {
        let used = self.used;
        self.used = 0;
        &mut self.buffers[..used]
    }

    /// Drops what the batches recorded (the system failed or panicked).
    pub(crate) fn clear(&mut self) {
        for buffer in self.used_buffers() {
            buffer.clear();
        }
    }
}

/// The per-batch PRNG of batch `batch` in the `loops`-th loop of a system seeded `seed`.
fn batch_rng(seed: u64, loops: u64, batch: u32) -> Prng {
    let stream = Prng::new(seed ^ loops.wrapping_mul(SPLITMIX64_INCREMENT)).next_u64();
    Prng::derive_substream(stream, batch)
}

/// Where a batch's rows are: `(table, first row, rows)`.
fn locate(tables: &[BatchTable], batch: u32) -> (usize, usize, usize) {
    let at = tables.partition_point(|it| it.first_batch <= batch) - 1;
    let entry = tables[at];
    let start = (batch - entry.first_batch) as usize * PAR_BATCH_ROWS;
    let rows = (entry.rows as usize - start).min(PAR_BATCH_ROWS);
    (entry.table as usize, start, rows)
}

/// Shares a value that is only read, or only handed out in disjoint parts, with the
/// threads that run batches.
struct Shared<T>(T);

// SAFETY: every use below reads the wrapped value (ids, table pointers of a storage nobody
// changes structurally meanwhile, the query's state) or hands out disjoint parts of it (one
// command buffer per batch, claimed by one thread); components are `Send + Sync` (the only
// way to register one), so items made on another thread are sound to use there.
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The value; a method, so a closure captures the wrapper, not the field.
    fn get(&self) -> &T {
        &self.0
    }
}

/// Where a parallel loop's batches run and record.
pub(crate) enum BatchSink<'a> {
    /// The running system's scratch: the batches run on the current pool, each recording
    /// into its own buffer.
    Pool(&'a mut BatchScratch),
    /// A context built by hand: the batches run in order on this thread, recording into the
    /// system's own buffer and drawing from streams rooted at the seed.
    Inline(&'a mut CommandBuffer, u64),
}

/// Calls `f` with each of `Q`'s matched rows, batch by batch: what every `par_each` runs.
///
/// # Safety
///
/// As for [`each_in`](laige_query::query::each_in), for every batch at once: the caller has the
/// access `Q` needs for the whole call.
pub(crate) unsafe fn par_each_in<Q: QueryData>(
    storage: &Storage,
    declared: Option<&SystemMeta>,
    sink: BatchSink<'_>,
    f: impl Fn(&mut Batch<'_>, Entity, Q::Item<'_>) + Sync,
) -> Result<(), QueryError> {
    let visit = |batch: &mut Batch<'_>, entities: &[Entity], mut fetch| {
        for &entity in entities {
            // SAFETY: `fetch` is at one of the batch's rows, and each turn moves it on by
            // one; `par_batches_in` yields each row once.
            let item = unsafe { Q::next_item(&mut fetch) };
            f(batch, entity, item);
        }
    };
    // SAFETY: forwarded from the caller.
    unsafe { par_batches_in::<Q>(storage, declared, sink, visit) }
}

/// Calls `f` with each batch of `Q`'s matched rows as columns: what every `par_each_chunk`
/// runs.
///
/// # Safety
///
/// As for [`par_each_in`].
pub(crate) unsafe fn par_each_chunk_in<Q: QueryData>(
    storage: &Storage,
    declared: Option<&SystemMeta>,
    sink: BatchSink<'_>,
    f: impl Fn(&mut Batch<'_>, &[Entity], Q::Chunk<'_>) + Sync,
) -> Result<(), QueryError> {
    let visit = |batch: &mut Batch<'_>, entities: &[Entity], fetch| {
        // SAFETY: the batch's rows from `fetch` on, one per entity, are its own.
        let chunk = unsafe { Q::chunk(&fetch, entities.len()) };
        f(batch, entities, chunk);
    };
    // SAFETY: forwarded from the caller.
    unsafe { par_batches_in::<Q>(storage, declared, sink, visit) }
}

/// Runs `visit(batch, entities, fetch at the batch's first row)` for every batch of `Q`'s
/// matched rows, where `sink` says.
///
/// # Safety
///
/// As for [`par_each_in`].
unsafe fn par_batches_in<'s, Q: QueryData>(
    storage: &'s Storage,
    declared: Option<&SystemMeta>,
    sink: BatchSink<'_>,
    visit: impl Fn(&mut Batch<'_>, &'s [Entity], Q::Fetch) + Sync,
) -> Result<(), QueryError> {
    let mut desc = QueryDesc::new(storage, declared);
    let state = match Q::init(&mut desc).and_then(|state| desc.check_footprint().map(|()| state)) {
        Ok(state) => state,
        Err(err) => return Err(storage.report(err)),
    };
    let matcher = desc.matcher();
    let scratch = match sink {
        BatchSink::Pool(scratch) => scratch,
        BatchSink::Inline(main, seed) => {
            // Hand-built contexts only: the World's systems keep their tables in their scratch.
            let mut tables = Vec::new();
            let count = collect_tables(storage, &matcher, &mut tables);
            for batch in 0..count {
                let (table, start, rows) = locate(&tables, batch);
                let mut scope = Batch {
                    index: batch,
                    commands: Commands::new(main, storage),
                    rng: batch_rng(seed, 0, batch),
                };
                // SAFETY: as below, on this thread alone.
                unsafe { visit_rows::<Q>(storage, &state, table, start, rows, &mut scope, &visit) };
            }
            return Ok(());
        }
    };
    scratch.tables.clear();
    let count = collect_tables(storage, &matcher, &mut scratch.tables);
    let first = scratch.used;
    let needed = first + count as usize;
    if scratch.buffers.len() < needed {
        // Grows while a world grows; a steady tick finds its buffers.
        scratch.buffers.resize_with(needed, CommandBuffer::new);
    }
    scratch.used = needed;
    let (seed, loops) = (scratch.seed, scratch.loops);
    scratch.loops += 1;
    let buffers =
        Shared(NonNull::from(&mut scratch.buffers[first..needed]).cast::<CommandBuffer>());
    let tables = Shared(&scratch.tables[..]);
    let state = Shared(state);
    let visit = &visit;
    run_batches(count, |batch| {
        let (table, start, rows) = locate(tables.get(), batch);
        // SAFETY: `run_batches` hands each batch to one thread, so each buffer of the range
        // reserved above is borrowed by one batch at a time; the scratch stays borrowed for
        // the whole loop.
        let buffer = unsafe { &mut *buffers.get().as_ptr().add(batch as usize) };
        let mut scope = Batch {
            index: batch,
            commands: Commands::new(buffer, storage),
            rng: batch_rng(seed, loops, batch),
        };
        // SAFETY: the batch's rows are in bounds of a matched table; batches cover disjoint
        // rows, so no row is yielded twice; access is the caller's promise.
        unsafe { visit_rows::<Q>(storage, state.get(), table, start, rows, &mut scope, visit) };
    });
    Ok(())
}

/// How many batches a table of `rows` rows makes.
fn batches_of(rows: u32) -> u32 {
    (rows as usize).div_ceil(PAR_BATCH_ROWS) as u32
}

/// Lists the non-empty tables `matcher` accepts, ascending, with their first batch; returns
/// how many batches they make in all.
fn collect_tables(storage: &Storage, matcher: &Matcher, out: &mut Vec<BatchTable>) -> u32 {
    let mut next = 0u32;
    for (index, table) in storage.archetypes().iter().enumerate() {
        if table.is_empty() || !matcher.matches(table) {
            continue;
        }
        let rows = table.len() as u32;
        out.push(BatchTable {
            table: index as u32,
            rows,
            first_batch: next,
        });
        next += batches_of(rows);
    }
    next
}

/// Calls `visit` for the rows `start..start + rows` of table `table`.
///
/// # Safety
///
/// The table matches `Q`'s `state`, the rows are in bounds, and the caller has the access
/// `Q` needs to them.
unsafe fn visit_rows<'s, Q: QueryData>(
    storage: &'s Storage,
    state: &Q::State,
    table: usize,
    start: usize,
    rows: usize,
    scope: &mut Batch<'_>,
    visit: &(impl Fn(&mut Batch<'_>, &'s [Entity], Q::Fetch) + Sync),
) {
    let archetype = &storage.archetypes()[table];
    let mut fetch = Q::fetch(state, archetype);
    // SAFETY: `start + rows` is within the table (the caller's promise); the entity column
    // changes only under `&mut Storage`.
    let entities = unsafe {
        Q::skip_rows(&mut fetch, start);
        std::slice::from_raw_parts(archetype.entities_ptr().as_ptr().add(start), rows)
    };
    visit(scope, entities, fetch);
}
