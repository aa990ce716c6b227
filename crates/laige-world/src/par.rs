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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use laige_executor::run_batches;
use laige_query::{BatchTables, ParBatches, Queries};

use crate::command::{CommandBuffer, Commands};
use crate::prng::SPLITMIX64_INCREMENT;
use crate::{Entity, Prng, QueryData, QueryError};

pub use laige_query::PAR_BATCH_ROWS;

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

/// A system's memory for its parallel loops, kept between runs so a tick allocates nothing:
/// the per-batch command buffers and the matched tables of the current loop. Shared by the
/// system's query parameters, one loop at a time (the lock is taken once per loop).
#[derive(Debug, Default)]
pub(crate) struct BatchScratch {
    /// The system's PRNG seed, the root of its batches' streams.
    seed: u64,
    /// How many buffers hold commands since the last apply; outside the lock, so the test
    /// after every run (`is_idle`, through `&mut`) costs a load.
    used: AtomicUsize,
    loops: Mutex<Loops>,
}

/// What a loop changes in the scratch.
#[derive(Debug, Default)]
struct Loops {
    /// Loops run so far: the per-loop part of each batch's PRNG stream.
    count: u64,
    /// One buffer per batch, each locked by the one thread that runs its batch.
    buffers: Vec<Mutex<CommandBuffer>>,
    tables: BatchTables,
}

impl BatchScratch {
    /// The scratch of a system whose PRNG was seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            seed,
            ..Self::default()
        }
    }

    fn loops(&mut self) -> &mut Loops {
        // A loop that panicked leaves buffers the failed run's settling clears.
        self.loops.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many `par_each` loops the system ran: the per-loop part of its batches' PRNG
    /// streams, which a saved world state keeps.
    pub(crate) fn loops_run(&mut self) -> u64 {
        self.loops().count
    }

    /// Sets the root seed and the loop count (a restore; the seed differs when the state
    /// came from a world of another seed, through a save file).
    pub(crate) fn set_loops_run(&mut self, seed: u64, count: u64) {
        self.seed = seed;
        self.loops().count = count;
    }

    /// Whether no batch recorded into its buffer since the last apply.
    #[inline]
    pub(crate) fn is_idle(&mut self) -> bool {
        *self.used.get_mut() == 0
    }

    /// The buffers recorded into since the last apply, in the order they apply.
    pub(crate) fn used_buffers(&mut self) -> impl Iterator<Item = &mut CommandBuffer> {
        let used = std::mem::take(self.used.get_mut());
        self.loops().buffers[..used]
            .iter_mut()
            .map(|buffer| buffer.get_mut().unwrap_or_else(PoisonError::into_inner))
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

/// Where a parallel loop's batches run and record.
pub(crate) enum BatchSink<'a> {
    /// The running system's scratch: the batches run on the current pool, each recording
    /// into its own buffer.
    Pool(&'a BatchScratch),
    /// A context built by hand: the batches run in order on this thread, recording into the
    /// system's own buffer and drawing from streams rooted at the seed.
    Inline(&'a mut CommandBuffer, u64),
}

/// Calls `f` with each of `Q`'s matched items, batch by batch: what every `par_each` runs.
pub(crate) fn par_each_in<Q: QueryData>(
    queries: Queries<'_>,
    sink: BatchSink<'_>,
    f: impl Fn(&mut Batch<'_>, Q::Item<'_>) + Sync,
) -> Result<(), QueryError> {
    par_batches_in::<Q>(queries, sink, false, |scope, batches, batch| {
        batches.each(batch, |item| f(scope, item));
    })
}

/// Calls `f` with each batch of `Q`'s matched rows as columns: what every `par_each_chunk`
/// runs.
pub(crate) fn par_each_chunk_in<Q: QueryData>(
    queries: Queries<'_>,
    sink: BatchSink<'_>,
    f: impl Fn(&mut Batch<'_>, &[Entity], Q::Chunk<'_>) + Sync,
) -> Result<(), QueryError> {
    par_batches_in::<Q>(queries, sink, true, |scope, batches, batch| {
        batches.chunk(batch, |entities, chunk| f(scope, entities, chunk));
    })
}

/// Runs `visit(scope, batches, index)` for every batch of `Q`'s matched rows, where `sink`
/// says, each with its own commands and PRNG stream.
fn par_batches_in<Q: QueryData>(
    mut queries: Queries<'_>,
    sink: BatchSink<'_>,
    chunks: bool,
    visit: impl Fn(&mut Batch<'_>, &ParBatches<'_, Q>, u32) + Sync,
) -> Result<(), QueryError> {
    let storage = queries.storage();
    let scratch = match sink {
        BatchSink::Pool(scratch) => scratch,
        BatchSink::Inline(main, seed) => {
            // Hand-built contexts only: the World's systems keep their tables in their scratch.
            let mut tables = BatchTables::default();
            let batches = match chunks {
                true => queries.par_chunk_batches::<Q>(&mut tables)?,
                false => queries.par_batches::<Q>(&mut tables)?,
            };
            for batch in 0..batches.count() {
                let mut scope = Batch {
                    index: batch,
                    commands: Commands::new(main, storage),
                    rng: batch_rng(seed, 0, batch),
                };
                visit(&mut scope, &batches, batch);
            }
            return Ok(());
        }
    };
    // One loop at a time per system (`par_each` takes `&mut` of its query or context).
    let mut guard = scratch.loops.lock().unwrap_or_else(PoisonError::into_inner);
    let loops = &mut *guard;
    let batches = match chunks {
        true => queries.par_chunk_batches::<Q>(&mut loops.tables)?,
        false => queries.par_batches::<Q>(&mut loops.tables)?,
    };
    let count = batches.count();
    // The lock is held, so no other loop moves `used` meanwhile.
    let first = scratch.used.load(Ordering::Relaxed);
    let needed = first + count as usize;
    if loops.buffers.len() < needed {
        // Grows while a world grows; a steady tick finds its buffers.
        loops.buffers.resize_with(needed, Mutex::default);
    }
    scratch.used.store(needed, Ordering::Relaxed);
    let (seed, loop_index) = (scratch.seed, loops.count);
    loops.count += 1;
    let buffers = &loops.buffers[first..needed];
    let batches = &batches;
    let visit = &visit;
    run_batches(count, |batch| {
        // `run_batches` hands each batch to one thread, so this lock is never contended.
        let mut buffer = buffers[batch as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut scope = Batch {
            index: batch,
            commands: Commands::new(&mut buffer, storage),
            rng: batch_rng(seed, loop_index, batch),
        };
        visit(&mut scope, batches, batch);
    });
    Ok(())
}
