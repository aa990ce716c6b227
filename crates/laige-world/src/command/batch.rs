//! Recording a batch of spawns of one bundle type: the bundle's ids are resolved and
//! checked once, and the buffer's lists are reserved once; applying the buffer then spawns
//! the batch as one run (see `apply::spawn_run`).

use std::alloc::Layout;

use laige_registry::ComponentId;
use laige_storage::bundle::{Bundle, BundleIds, ValueSink};

use super::{BatchColumn, BatchRecord, Command, CommandBuffer, Commands, PendingEntity};
use crate::tick_report::CommandKind;

/// The placeholders of a batch recorded by [`Commands::spawn_batch`]: consecutive spawn
/// indices of one buffer, as a range (it holds no list, so recording allocates nothing for
/// it).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct PendingBatch {
    buffer: u32,
    epoch: u32,
    first: u32,
    len: u32,
}

impl PendingBatch {
    /// How many spawns the batch recorded.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the batch recorded no spawn.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The placeholder of the batch's `i`-th spawn.
    pub fn get(&self, i: usize) -> Option<PendingEntity> {
        (i < self.len as usize).then(|| PendingEntity {
            buffer: self.buffer,
            epoch: self.epoch,
            index: self.first + i as u32,
        })
    }

    /// The placeholders in spawn order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PendingEntity> + use<> {
        let Self {
            buffer,
            epoch,
            first,
            len,
        } = *self;
        (first..first + len).map(move |index| PendingEntity {
            buffer,
            epoch,
            index,
        })
    }
}

impl Commands<'_> {
    /// Records spawning one entity per bundle of `bundles`, all of one bundle type, in
    /// order; returns their placeholders. The same as [`Commands::spawn`] for each bundle
    /// (the same placeholders, entities, failures and reports), with the bundle type
    /// resolved and checked once; applying the buffer spawns the batch with one table
    /// lookup and one reservation.
    ///
    /// A bundle type that [`Commands::spawn`] would refuse is refused once here (its event
    /// emitted) and every bundle dropped; applying skips each spawn and every later command
    /// on its placeholder.
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> PendingBatch
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        let bundles = bundles.into_iter();
        let first = self.buffer.spawns;
        let ids = B::resolve(self.storage.components())
            .map_err(|err| self.storage.report(err))
            .and_then(|ids| self.storage.refuse_resources(ids.set()).map(|()| ids))
            .and_then(|ids| self.buffer.bind(self.storage).map(|()| ids));
        let hint = bundles.size_hint().0;
        self.buffer.commands.reserve(hint);
        match ids {
            Ok(ids) => {
                let mut batch: Option<usize> = None;
                for bundle in bundles {
                    let at = match batch {
                        Some(at)
                            if self.buffer.batches[at].rows < self.buffer.batches[at].capacity =>
                        {
                            at
                        }
                        // The first record holds the size hint; one for an iterator that
                        // yields more holds twice the last.
                        _ => {
                            let capacity = batch
                                .map_or(hint, |at| self.buffer.batches[at].capacity as usize * 2)
                                .max(8);
                            self.new_batch(&ids, capacity)
                        }
                    };
                    batch = Some(at);
                    self.buffer.spawns += 1;
                    self.buffer.record_row(at, &ids, bundle);
                }
            }
            Err(error) => {
                for bundle in bundles {
                    drop(bundle);
                    self.buffer.spawns += 1;
                    self.buffer.commands.push(Command::Refused {
                        command: CommandKind::Spawn,
                        error,
                    });
                }
            }
        }
        PendingBatch {
            buffer: self.buffer.id,
            epoch: self.buffer.epoch,
            first,
            len: self.buffer.spawns - first,
        }
    }
}

impl Commands<'_> {
    /// Starts a batch record of `ids`'s bundle type with room for `capacity` rows: one arena
    /// region per component. Returns its index.
    fn new_batch(&mut self, ids: &BundleIds, capacity: usize) -> usize {
        let buffer = &mut *self.buffer;
        let first_column = buffer.batch_columns.len() as u32;
        // One reservation for every region (each padded to its alignment at most), so the
        // arena moves its bytes once at most.
        let (bytes, align) = ids
            .ids()
            .iter()
            .fold((0usize, 1usize), |(bytes, align), &c| {
                let info = self.storage.components().get(c);
                let region = info.size().saturating_mul(capacity);
                (
                    bytes.saturating_add(region + info.align()),
                    align.max(info.align()),
                )
            });
        buffer.arena.reserve(bytes, align);
        for &component in ids.ids() {
            let info = self.storage.components().get(component);
            let layout = Layout::from_size_align(
                info.size()
                    .checked_mul(capacity)
                    .expect("command arena overflow"),
                info.align(),
            )
            .expect("command arena overflow");
            let offset = buffer.arena.alloc(layout);
            buffer.batch_columns.push(BatchColumn {
                component,
                offset,
                size: info.size(),
                drop: info.drop_fn(),
            });
        }
        buffer.batches.push(BatchRecord {
            signature: *ids.set(),
            first_column,
            columns: ids.ids().len() as u32,
            rows: 0,
            capacity: capacity as u32,
            consumed: 0,
        });
        buffer.batches.len() - 1
    }
}

impl CommandBuffer {
    /// Records `bundle` (of the type `ids` resolved) as the next row of batch `at`, which has
    /// room for it, and its spawn command.
    #[inline(always)]
    fn record_row<B: Bundle>(&mut self, at: usize, ids: &BundleIds, bundle: B) {
        let record = self.batches[at];
        let first = record.first_column as usize;
        let mut sink = RowSink {
            base: self.arena.ptr(0),
            columns: &self.batch_columns[first..first + record.columns as usize],
            row: record.rows as usize,
            next: 0,
        };
        bundle.put_from(ids, &mut 0, &mut sink);
        self.batches[at].rows += 1;
        self.commands.push(Command::SpawnRow {
            batch: at as u32,
            row: record.rows,
        });
    }
}

/// Moves one bundle's values into their batch columns' regions, at one row.
struct RowSink<'a> {
    base: *mut u8,
    columns: &'a [BatchColumn],
    row: usize,
    /// The next column, in bundle order.
    next: usize,
}

impl ValueSink for RowSink<'_> {
    #[inline(always)]
    unsafe fn put<T: 'static>(&mut self, id: ComponentId, value: *mut T) {
        let column = self.columns[self.next];
        debug_assert_eq!(column.component, id);
        self.next += 1;
        let dst = self
            .base
            .wrapping_add(column.offset + self.row * size_of::<T>())
            .cast::<T>();
        // SAFETY: the region has room for `capacity` values of `T` (the column's type, in
        // bundle order) aligned for it, and `row` is below the capacity; `value` is a valid
        // `T`, given up: moved by a byte copy.
        unsafe { std::ptr::copy_nonoverlapping(value, dst, 1) };
    }
}
