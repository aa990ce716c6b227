//! The change ticks of a tracked column: per row the tick its value was added and last
//! changed at, and the largest of each per block of [`CHANGE_BLOCK_ROWS`] rows and per
//! table, so a change filter skips a table or a block without reading its rows.
//!
//! A tick is a plain number the layer above hands down (the World counts one per system run
//! and one per command application); the storage never reads a clock and never advances it
//! by itself. Ticks are `u64`, so they never wrap.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many rows one change summary block covers: one bit each in a `u64` row mask.
pub const CHANGE_BLOCK_ROWS: usize = 64;

/// The ticks of one row of a tracked component: when its value was added (inserted or
/// spawned) and when it last changed (written through `&mut`, or replaced; adding counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ComponentTicks {
    /// The tick the value was added at.
    pub added: u64,
    /// The tick the value last changed at (at least `added`).
    pub changed: u64,
}

impl ComponentTicks {
    /// A value added (and so changed) at `tick`.
    #[inline]
    pub const fn new(tick: u64) -> Self {
        Self {
            added: tick,
            changed: tick,
        }
    }
}

/// Which of a row's two ticks a filter asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickKind {
    /// The tick the value was added at (`Added<T>`).
    Added,
    /// The tick the value last changed at (`Changed<T>`).
    Changed,
}

/// One row's tick, written through a shared reference under the storage's access contract
/// (only the context holding write access to the component writes it).
#[repr(transparent)]
#[derive(Default)]
struct TickCell(UnsafeCell<u64>);

impl TickCell {
    fn new(tick: u64) -> Self {
        Self(UnsafeCell::new(tick))
    }

    fn get_mut(&mut self) -> &mut u64 {
        self.0.get_mut()
    }
}

/// How many rows one group summary covers: a block of [`CHANGE_BLOCK_ROWS`] rows has 8,
/// and a group's 8 ticks are one cache line.
const GROUP_ROWS: usize = 8;

/// The largest tick of each run of `per` rows: upper bounds that rise as rows are stamped
/// or move in, and fall only when the column is cleared.
#[derive(Default)]
struct Maxima<const PER: usize> {
    cells: Vec<AtomicU64>,
}

impl<const PER: usize> Maxima<PER> {
    /// Makes room for row `row` (the new last row) and raises its cell to `tick`.
    fn push(&mut self, row: usize, tick: u64) {
        if row.is_multiple_of(PER) {
            self.cells.push(AtomicU64::new(0));
        }
        raise(self.cells[row / PER].get_mut(), tick);
    }

    /// Drops the last cell when `len` rows no longer reach it.
    fn shrink_to(&mut self, len: usize) {
        self.cells.truncate(len.div_ceil(PER));
    }

    fn raise(&mut self, row: usize, tick: u64) {
        raise(self.cells[row / PER].get_mut(), tick);
    }

    fn raise_all(&mut self, tick: u64) {
        for cell in &mut self.cells {
            raise(cell.get_mut(), tick);
        }
    }

    /// Raises the cells of rows `first..=last` to `tick`, through a shared reference.
    #[inline]
    fn mark(&self, first: usize, last: usize, tick: u64) {
        // A load first: a run marks many rows of one cell with one tick, and only the first
        // needs the read-modify-write.
        for cell in &self.cells[first / PER..=last / PER] {
            if cell.load(Ordering::Relaxed) < tick {
                cell.fetch_max(tick, Ordering::Relaxed);
            }
        }
    }

    #[inline]
    fn get(&self, index: usize) -> u64 {
        self.cells[index].load(Ordering::Relaxed)
    }

    fn reserve_rows(&mut self, cap: usize) {
        let cells = cap.div_ceil(PER);
        self.cells.reserve(cells.saturating_sub(self.cells.len()));
    }
}

/// One kind of tick for every row of a column, with its summaries: per block of
/// [`CHANGE_BLOCK_ROWS`] rows, per group of [`GROUP_ROWS`] rows, and per table.
///
/// A row's tick is the larger of its own cell and the column's `floor`: marking every row
/// of the column at once (a query without change filters writing the whole table) only
/// raises the floor, so writing all of a tracked component costs one store per table, not
/// one per row. A row that enters with an older tick (moved in from another table, or
/// restored) first writes the floor into every cell and clears it.
#[derive(Default)]
struct TickTrack {
    rows: Vec<TickCell>,
    /// Per block of rows; the floor is not included.
    blocks: Maxima<CHANGE_BLOCK_ROWS>,
    /// Per group of rows; the floor is not included.
    groups: Maxima<GROUP_ROWS>,
    /// The largest tick of the whole column (an upper bound; it includes the floor).
    max: AtomicU64,
    /// A tick every row is at least (0: none).
    floor: AtomicU64,
}

impl TickTrack {
    /// The tick of `row`, floor included, with exclusive access.
    fn effective(&mut self, row: usize) -> u64 {
        (*self.rows[row].get_mut()).max(*self.floor.get_mut())
    }

    /// Writes the floor into every row below it and clears it, before a row with an older
    /// tick enters; O(rows), and only when a floor is set.
    fn materialize(&mut self) {
        let floor = std::mem::take(self.floor.get_mut());
        if floor == 0 {
            return;
        }
        for cell in &mut self.rows {
            raise(cell.get_mut(), floor);
        }
        self.blocks.raise_all(floor);
        self.groups.raise_all(floor);
    }

    fn push(&mut self, tick: u64) {
        if tick < *self.floor.get_mut() {
            self.materialize();
        }
        let row = self.rows.len();
        self.rows.push(TickCell::new(tick));
        self.blocks.push(row, tick);
        self.groups.push(row, tick);
        raise(self.max.get_mut(), tick);
    }

    /// Swap-removes `row`, returning its tick; the last row moves into `row`, raising its
    /// summaries there.
    fn swap_remove(&mut self, row: usize) -> u64 {
        let removed = self.effective(row);
        self.rows.swap_remove(row);
        if row < self.rows.len() {
            let moved = *self.rows[row].get_mut();
            self.blocks.raise(row, moved);
            self.groups.raise(row, moved);
        }
        self.blocks.shrink_to(self.rows.len());
        self.groups.shrink_to(self.rows.len());
        removed
    }

    fn reserve_total(&mut self, cap: usize) {
        self.rows.reserve(cap.saturating_sub(self.rows.len()));
        self.blocks.reserve_rows(cap);
        self.groups.reserve_rows(cap);
    }

    fn clear(&mut self) {
        self.rows.clear();
        self.blocks.cells.clear();
        self.groups.cells.clear();
        *self.max.get_mut() = 0;
        *self.floor.get_mut() = 0;
    }

    fn set(&mut self, row: usize, tick: u64) {
        if tick < *self.floor.get_mut() {
            self.materialize();
        }
        *self.rows[row].get_mut() = tick;
        self.blocks.raise(row, tick);
        self.groups.raise(row, tick);
        raise(self.max.get_mut(), tick);
    }

    /// Writes `tick` to rows `first..first + len` and raises their summaries.
    ///
    /// # Safety
    ///
    /// The rows are in bounds, and no other thread reads or writes their ticks meanwhile.
    #[inline]
    unsafe fn mark(&self, first: usize, len: usize, tick: u64) {
        if len == 0 {
            return;
        }
        debug_assert!(first + len <= self.rows.len());
        if first == 0 && len == self.rows.len() {
            // Every row: the floor says it, with no row written.
            self.floor.fetch_max(tick, Ordering::Relaxed);
            self.max.fetch_max(tick, Ordering::Relaxed);
            return;
        }
        let base = self.rows.as_ptr().cast::<u64>().cast_mut();
        for row in first..first + len {
            // SAFETY: in bounds (the caller's promise); a `TickCell` is a transparent
            // `UnsafeCell<u64>`, so its bytes may be written through a shared reference, and
            // no one else touches these rows meanwhile.
            unsafe { base.add(row).write(tick) };
        }
        let last = first + len - 1;
        self.blocks.mark(first, last, tick);
        self.groups.mark(first, last, tick);
        if self.max.load(Ordering::Relaxed) < tick {
            self.max.fetch_max(tick, Ordering::Relaxed);
        }
    }

    /// The rows of block `block` whose tick is above `since`, one bit per row (bit `i` is
    /// row `block * CHANGE_BLOCK_ROWS + i`): 0 without reading a row when the block's
    /// summary is not above `since`, and only the rows of groups whose summary is.
    ///
    /// # Safety
    ///
    /// `block` is in bounds, and no one writes its rows' ticks meanwhile.
    #[inline]
    unsafe fn newer_than(&self, block: usize, since: u64) -> u64 {
        let first = block * CHANGE_BLOCK_ROWS;
        let len = (self.rows.len() - first).min(CHANGE_BLOCK_ROWS);
        if self.floor.load(Ordering::Relaxed) > since {
            return if len == CHANGE_BLOCK_ROWS {
                u64::MAX
            } else {
                (1u64 << len) - 1
            };
        }
        if self.blocks.get(block) <= since {
            return 0;
        }
        let base = self.rows.as_ptr().cast::<u64>();
        // SAFETY: in bounds; no writer meanwhile (the caller's promise). A `TickCell` is a
        // transparent `UnsafeCell<u64>`.
        let ticks = unsafe { std::slice::from_raw_parts(base.add(first), len) };
        let mut mask = 0u64;
        let first_group = first / GROUP_ROWS;
        for (g, group) in ticks.chunks(GROUP_ROWS).enumerate() {
            if self.groups.get(first_group + g) <= since {
                continue;
            }
            let bits = match <&[u64; GROUP_ROWS]>::try_from(group) {
                // A fixed trip count, which the compiler unrolls into vector compares.
                Ok(full) => newer_mask(full, since),
                Err(_) => newer_mask(group, since),
            };
            mask |= bits << (g * GROUP_ROWS);
        }
        mask
    }

    /// The tick of `row`, floor included.
    ///
    /// # Safety
    ///
    /// `row` is in bounds, and no one writes its tick meanwhile.
    #[inline]
    unsafe fn read(&self, row: usize) -> u64 {
        // SAFETY: forwarded from the caller.
        let own = unsafe { self.rows.as_ptr().cast::<u64>().add(row).read() };
        own.max(self.floor.load(Ordering::Relaxed))
    }
}

/// The rows whose tick is above `since`, one bit each.
#[inline(always)]
fn newer_mask(ticks: &[u64], since: u64) -> u64 {
    let mut mask = 0u64;
    for (i, &tick) in ticks.iter().enumerate() {
        mask |= u64::from(tick > since) << i;
    }
    mask
}

/// Raises `summary` to `tick` when below it.
#[inline]
fn raise(summary: &mut u64, tick: u64) {
    *summary = (*summary).max(tick);
}

/// The change ticks of one tracked column: its rows' added and changed ticks, with their
/// summaries. Row count always equals the column's.
///
/// The row ticks are written through a shared reference only by the context that holds
/// write access to the component (marking the rows it hands out `&mut` to), and read only
/// by contexts that hold read access, so the storage's access contract covers them as it
/// covers the values; the summaries are atomics, raised with `fetch_max`, because `par_each`
/// batches of one column may share a block.
#[derive(Default)]
pub struct ColumnTicks {
    added: TickTrack,
    changed: TickTrack,
    /// The ticks of the row `swap_remove` last left past the column's end.
    removed: ComponentTicks,
}

// SAFETY: the row cells are written through `&ColumnTicks` only under the storage's access
// contract (one writer of a component at a time, with no reader meanwhile); the summaries
// are atomics.
unsafe impl Sync for ColumnTicks {}

impl ColumnTicks {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.added.rows.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn push(&mut self, ticks: ComponentTicks) {
        self.added.push(ticks.added);
        self.changed.push(ticks.changed);
    }

    /// Swap-removes `row`; its ticks are kept as [`ColumnTicks::removed`].
    pub(crate) fn swap_remove(&mut self, row: usize) {
        self.removed = ComponentTicks {
            added: self.added.swap_remove(row),
            changed: self.changed.swap_remove(row),
        };
    }

    /// The ticks of the row the last `swap_remove` took out.
    pub(crate) fn removed(&self) -> ComponentTicks {
        self.removed
    }

    pub(crate) fn reserve_total(&mut self, cap: usize) {
        self.added.reserve_total(cap);
        self.changed.reserve_total(cap);
    }

    pub(crate) fn clear(&mut self) {
        self.added.clear();
        self.changed.clear();
    }

    /// Makes these ticks a copy of `src`'s, row by row (a save or a restore of the world);
    /// allocates nothing once this column has held as many rows.
    pub(crate) fn copy_from(&mut self, src: &ColumnTicks) {
        self.clear();
        self.reserve_total(src.len());
        for row in 0..src.len() {
            // SAFETY: in bounds; `src` is the ticks of a saved state or of a storage borrowed
            // exclusively by its save, and neither has a writing view open.
            self.push(unsafe { src.row(row) });
        }
        self.removed = src.removed;
    }

    /// Sets the ticks [`ColumnTicks::removed`] reports (a save file being read).
    #[cfg(feature = "serde")]
    pub(crate) fn set_removed(&mut self, ticks: ComponentTicks) {
        self.removed = ticks;
    }

    /// Marks `row` changed at `tick` (a replaced value), with exclusive access.
    pub(crate) fn set_changed(&mut self, row: usize, tick: u64) {
        self.changed.set(row, tick);
    }

    /// Sets both ticks of `row`, with exclusive access (a rollback restoring saved ticks).
    pub(crate) fn set(&mut self, row: usize, ticks: ComponentTicks) {
        self.added.set(row, ticks.added);
        self.changed.set(row, ticks.changed);
    }

    /// The ticks of `row`, with exclusive access (no writer can be running).
    pub(crate) fn get(&mut self, row: usize) -> Option<ComponentTicks> {
        (row < self.len()).then(|| ComponentTicks {
            added: self.added.effective(row),
            changed: self.changed.effective(row),
        })
    }

    /// Marks rows `first..first + len` changed at `tick`.
    ///
    /// # Safety
    ///
    /// The rows are in bounds, and the caller holds write access to the component for them:
    /// no other thread reads or writes their ticks meanwhile.
    #[inline]
    pub unsafe fn mark_changed(&self, first: usize, len: usize, tick: u64) {
        // SAFETY: forwarded from the caller.
        unsafe { self.changed.mark(first, len, tick) }
    }

    /// The largest `kind` tick of the column (an upper bound): no row is newer than it.
    #[inline]
    pub fn max(&self, kind: TickKind) -> u64 {
        self.track(kind).max.load(Ordering::Relaxed)
    }

    /// The number of summary blocks.
    #[inline]
    pub fn blocks(&self) -> usize {
        self.added.blocks.cells.len()
    }

    /// The rows of block `block` whose `kind` tick is above `since`, one bit per row (bit
    /// `i` is row `block * CHANGE_BLOCK_ROWS + i`); 0 without reading any row when the
    /// block's summary is not above `since`.
    ///
    /// # Safety
    ///
    /// `block < self.blocks()`, and the caller holds read access to the component: no one
    /// writes these rows' ticks meanwhile.
    #[inline]
    pub unsafe fn newer_than(&self, kind: TickKind, block: usize, since: u64) -> u64 {
        debug_assert!(block < self.blocks());
        // SAFETY: forwarded from the caller.
        unsafe { self.track(kind).newer_than(block, since) }
    }

    /// The ticks of `row`.
    ///
    /// # Safety
    ///
    /// `row < self.len()`, and the caller holds read access to the component: no one writes
    /// the row's ticks meanwhile.
    #[inline]
    pub unsafe fn row(&self, row: usize) -> ComponentTicks {
        debug_assert!(row < self.len());
        let read = |track: &TickTrack| {
            // SAFETY: in bounds, no writer meanwhile (the caller's promise).
            unsafe { track.read(row) }
        };
        ComponentTicks {
            added: read(&self.added),
            changed: read(&self.changed),
        }
    }

    fn track(&self, kind: TickKind) -> &TickTrack {
        match kind {
            TickKind::Added => &self.added,
            TickKind::Changed => &self.changed,
        }
    }
}

impl std::fmt::Debug for ColumnTicks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnTicks")
            .field("rows", &self.len())
            .field("added_max", &self.max(TickKind::Added))
            .field("changed_max", &self.max(TickKind::Changed))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(ticks: &[u64]) -> ColumnTicks {
        let mut column = ColumnTicks::default();
        for &tick in ticks {
            column.push(ComponentTicks::new(tick));
        }
        column
    }

    #[test]
    fn a_block_below_the_threshold_reads_no_row_and_masks_nothing() {
        let mut ticks = vec![1u64; 130];
        ticks[70] = 9;
        ticks[129] = 5;
        let column = column(&ticks);
        assert_eq!(column.blocks(), 3);
        // SAFETY: blocks in bounds; nothing writes meanwhile.
        unsafe {
            assert_eq!(column.newer_than(TickKind::Changed, 0, 1), 0);
            assert_eq!(column.newer_than(TickKind::Changed, 1, 1), 1 << 6);
            assert_eq!(column.newer_than(TickKind::Changed, 2, 4), 1 << 1);
            assert_eq!(column.newer_than(TickKind::Changed, 2, 5), 0);
        }
        assert_eq!(column.max(TickKind::Changed), 9);
    }

    #[test]
    fn marking_raises_rows_blocks_and_the_table_but_not_added() {
        let column = column(&[1; 100]);
        // SAFETY: rows in bounds; this test is the only thread.
        unsafe { column.mark_changed(60, 10, 7) };
        assert_eq!(column.max(TickKind::Changed), 7);
        assert_eq!(column.max(TickKind::Added), 1);
        // SAFETY: as above.
        unsafe {
            assert_eq!(column.newer_than(TickKind::Changed, 0, 1), 0b1111 << 60);
            assert_eq!(column.newer_than(TickKind::Changed, 1, 1), 0b11_1111);
            assert_eq!(
                column.row(65),
                ComponentTicks {
                    added: 1,
                    changed: 7
                }
            );
        }
    }

    #[test]
    fn marking_every_row_raises_the_floor_and_an_older_row_entering_materializes_it() {
        let mut column = column(&[1; 70]);
        // SAFETY: rows in bounds; this test is the only thread.
        unsafe { column.mark_changed(0, 70, 5) };
        assert_eq!(*column.changed.floor.get_mut(), 5, "no row written");
        // SAFETY: as above.
        unsafe {
            assert_eq!(column.newer_than(TickKind::Changed, 0, 4), u64::MAX);
            assert_eq!(column.newer_than(TickKind::Changed, 1, 4), 0b11_1111);
            assert_eq!(column.newer_than(TickKind::Changed, 1, 5), 0);
            assert_eq!(column.row(3).changed, 5);
        }
        // A row moved in with older ticks must not inherit the floor.
        column.push(ComponentTicks::new(2));
        assert_eq!(*column.changed.floor.get_mut(), 0);
        assert_eq!(column.get(70), Some(ComponentTicks::new(2)));
        assert_eq!(
            column.get(0),
            Some(ComponentTicks {
                added: 1,
                changed: 5
            })
        );
        // SAFETY: as above.
        let mask = unsafe { column.newer_than(TickKind::Changed, 1, 4) };
        assert_eq!(mask, 0b11_1111);
        column.swap_remove(0);
        assert_eq!(
            column.removed(),
            ComponentTicks {
                added: 1,
                changed: 5
            }
        );
        assert_eq!(column.get(0), Some(ComponentTicks::new(2)));
    }

    #[test]
    fn swap_remove_keeps_the_moved_row_visible_and_the_removed_ticks() {
        let mut column = column(&[1, 2, 3]);
        // SAFETY: row in bounds; this test is the only thread.
        unsafe { column.mark_changed(2, 1, 8) };
        column.swap_remove(0);
        assert_eq!(column.removed(), ComponentTicks::new(1));
        assert_eq!(
            column.get(0),
            Some(ComponentTicks {
                added: 3,
                changed: 8
            })
        );
        // SAFETY: block in bounds; only thread.
        assert_eq!(unsafe { column.newer_than(TickKind::Changed, 0, 7) }, 1);
        column.swap_remove(1);
        column.swap_remove(0);
        assert!(column.is_empty());
        assert_eq!(column.blocks(), 0);
    }
}
