//! Recording a batch of spawns of one bundle type: the bundle's ids are resolved and
//! checked once, and the buffer's lists are reserved once; applying the buffer then spawns
//! the batch as one run (see `apply::spawn_run`).

use std::alloc::Layout;

use crate::MAX_BUNDLE;
use crate::bundle::{Bundle, BundleIds, ValueSink};
use laige_registry::ComponentId;

use super::CommandKind;
use super::{BatchColumn, BatchRecord, Command, Commands, PendingEntity};

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
                // The record being filled: its index, rows so far, room, and each column's
                // row-0 address (valid until the next record moves the arena).
                let (mut at, mut row, mut capacity) = (usize::MAX, 0u32, 0u32);
                let mut bases = [std::ptr::null_mut::<u8>(); MAX_BUNDLE];
                for bundle in bundles {
                    if row == capacity {
                        // The first record holds the size hint; one for an iterator that
                        // yields more holds twice the last.
                        let rows = match at {
                            usize::MAX => hint,
                            _ => capacity as usize * 2,
                        }
                        .max(8);
                        at = self.new_batch(&ids, rows, &mut bases);
                        (row, capacity) = (0, rows as u32);
                    }
                    let buffer = &mut *self.buffer;
                    buffer.spawns += 1;
                    bundle.put_from(
                        &ids,
                        &mut 0,
                        &mut RowSink {
                            bases: &bases,
                            row: row as usize,
                            next: 0,
                        },
                    );
                    buffer.batches[at].rows = row + 1;
                    buffer.commands.push(Command::SpawnRow {
                        batch: at as u32,
                        row,
                    });
                    row += 1;
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
    fn new_batch(
        &mut self,
        ids: &BundleIds,
        capacity: usize,
        bases: &mut [*mut u8; MAX_BUNDLE],
    ) -> usize {
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
        let base = buffer.arena.ptr(0);
        let columns = &buffer.batch_columns[first_column as usize..];
        for (address, column) in bases.iter_mut().zip(columns) {
            *address = base.wrapping_add(column.offset);
        }
        buffer.batches.push(BatchRecord {
            signature: *ids.set(),
            first_column,
            columns: ids.ids().len() as u32,
            rows: 0,
            consumed: 0,
        });
        buffer.batches.len() - 1
    }
}

/// Moves one bundle's values into their batch columns' regions, at one row.
struct RowSink<'a> {
    /// Each column's row-0 address, in bundle order.
    bases: &'a [*mut u8; MAX_BUNDLE],
    row: usize,
    /// The next column, in bundle order.
    next: usize,
}

impl ValueSink for RowSink<'_> {
    #[inline(always)]
    unsafe fn put<T: 'static>(&mut self, id: ComponentId, value: *mut T) {
        let _ = id;
        let dst = self.bases[self.next]
            .wrapping_add(self.row * size_of::<T>())
            .cast::<T>();
        self.next += 1;
        // SAFETY: the column's region has room for `capacity` values of `T` (its type, in
        // bundle order) aligned for it, and `row` is below the capacity; `value` is a valid
        // `T`, given up: moved by a byte copy.
        unsafe { std::ptr::copy_nonoverlapping(value, dst, 1) };
    }
}
