//! One type-erased, growable, correctly aligned column of an archetype table.

mod block;
mod ticks;

pub(crate) use block::ColumnBlock;
pub use block::TableColumn;
pub use ticks::{CHANGE_BLOCK_ROWS, ColumnTicks, ComponentTicks, TickKind};

use std::alloc::{self, Layout};
use std::ptr::{self, NonNull};

use crate::component::{CloneFn, ComponentInfo, DropFn};

/// A `Vec<T>` with `T` erased: `len` initialised values of one component type, packed at
/// `data + row * size`, in an allocation aligned for the type.
///
/// Values are moved in and out as bytes (every Rust value may be moved by a byte copy).
/// The column owns its values: it drops the live ones when dropped.
///
/// Interior mutability without a cell: the data pointer is read through `&Column`, and
/// writes go through that pointer to the heap block, which the column struct does not
/// contain. Who may write a row when is decided above this type (see [`crate::Storage`]).
pub struct Column {
    data: NonNull<u8>,
    len: usize,
    cap: usize,
    item: Layout,
    drop: Option<DropFn>,
    /// The rows' change ticks, for a tracked component's table column; `None` otherwise, so
    /// an untracked column pays one pointer test per structural change and nothing per row.
    ticks: Option<Box<ColumnTicks>>,
}

// SAFETY: a column only holds values of a component type, and every component type is
// `Send + Sync` (enforced where types are registered); moving the column between threads
// moves those values, which `Send` allows.
unsafe impl Send for Column {}
// SAFETY: shared access to a column gives out its data pointer; writes through it from a
// shared reference happen only under the storage's access contract (no write concurrent with
// any other access to the same component), and the values are `Sync`.
unsafe impl Sync for Column {}

/// A dangling, non-null pointer aligned to `align`, for empty and zero-sized columns.
fn dangling(align: usize) -> NonNull<u8> {
    // SAFETY: a `Layout`'s alignment is a non-zero power of two, so the address is non-null.
    unsafe { NonNull::new_unchecked(ptr::without_provenance_mut(align)) }
}

/// Copies one value of `size` bytes from `src` to `dst`. The common component sizes get a
/// copy of constant size, which compiles to a few moves instead of a call to `memcpy` with a
/// size known only at run time (a fifth of a batch spawn's instructions, issue 21).
///
/// # Safety
///
/// As for [`ptr::copy_nonoverlapping`] of `size` bytes.
#[inline(always)]
pub(crate) unsafe fn copy_value(src: *const u8, dst: *mut u8, size: usize) {
    /// One constant-size copy.
    macro_rules! sized {
        ($($n:literal)*) => {
            match size {
                $(
                    // SAFETY: forwarded from the caller, with `size == $n`.
                    $n => unsafe { ptr::copy_nonoverlapping(src, dst, $n) },
                )*
                // SAFETY: forwarded from the caller.
                _ => unsafe { ptr::copy_nonoverlapping(src, dst, size) },
            }
        };
    }
    sized!(0 1 2 4 8 12 16 24 32 48 64)
}

/// Swaps the `size` bytes at `a` and `b`, with constant-size swaps for the common sizes (see
/// [`copy_value`]).
///
/// # Safety
///
/// As for [`ptr::swap_nonoverlapping`] of `size` bytes.
#[inline(always)]
unsafe fn swap_values(a: *mut u8, b: *mut u8, size: usize) {
    /// One constant-size swap.
    macro_rules! sized {
        ($($n:literal)*) => {
            match size {
                $(
                    // SAFETY: forwarded from the caller, with `size == $n`.
                    $n => unsafe { ptr::swap_nonoverlapping(a, b, $n) },
                )*
                // SAFETY: forwarded from the caller.
                _ => unsafe { ptr::swap_nonoverlapping(a, b, size) },
            }
        };
    }
    sized!(0 1 2 4 8 12 16 24 32 48 64)
}

impl Column {
    /// An empty column for `info`'s type.
    pub(crate) fn new(info: &ComponentInfo) -> Self {
        let item = info.layout();
        let cap = if item.size() == 0 { usize::MAX } else { 0 };
        Self {
            data: dangling(item.align()),
            len: 0,
            cap,
            item,
            drop: info.drop,
            ticks: None,
        }
    }

    /// An empty table column for `info`'s type, with change ticks when it is tracked.
    pub(crate) fn for_table(info: &ComponentInfo) -> Self {
        Self {
            ticks: info.is_tracked().then(Box::default),
            ..Self::new(info)
        }
    }

    /// The rows' change ticks, when the component is tracked.
    #[inline]
    pub fn ticks(&self) -> Option<&ColumnTicks> {
        self.ticks.as_deref()
    }

    /// The change ticks, mutably (structural changes and rollback restores).
    #[inline]
    pub(crate) fn ticks_mut(&mut self) -> Option<&mut ColumnTicks> {
        self.ticks.as_deref_mut()
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The base of the values; valid for `len` reads of the element type.
    #[inline]
    pub fn data(&self) -> NonNull<u8> {
        self.data
    }

    /// The layout of one element.
    #[inline]
    pub fn item(&self) -> Layout {
        self.item
    }

    /// The drop function of the element type; `None` when dropping does nothing.
    #[inline]
    pub fn drop_fn(&self) -> Option<DropFn> {
        self.drop
    }

    /// The address of `row`, which may be `len` (one past the end) or less.
    #[inline]
    pub fn ptr_at(&self, row: usize) -> *mut u8 {
        debug_assert!(row <= self.cap);
        // Stays within (or one past) the allocation: row <= cap, and zero-sized steps are 0.
        self.data.as_ptr().wrapping_add(row * self.item.size())
    }

    /// Makes room for at least `min_cap` values; a no-op when there is room already.
    pub(crate) fn reserve_total(&mut self, min_cap: usize) {
        if let Some(ticks) = &mut self.ticks {
            ticks.reserve_total(min_cap);
        }
        if min_cap <= self.cap {
            return;
        }
        let new_cap = min_cap.max(self.cap.saturating_mul(2)).max(8);
        let size = self.item.size();
        let new_layout = Layout::from_size_align(
            size.checked_mul(new_cap).expect("column capacity overflow"),
            self.item.align(),
        )
        .expect("column capacity overflow");
        let new_data = if self.cap == 0 {
            // SAFETY: the layout has a non-zero size (zero-sized columns never get here,
            // their capacity is `usize::MAX`).
            unsafe { alloc::alloc(new_layout) }
        } else {
            let old_layout = Layout::from_size_align(size * self.cap, self.item.align())
                .expect("the current layout was valid when allocated");
            // SAFETY: `data` was allocated by the global allocator with `old_layout`, and
            // the new size is non-zero and does not overflow `isize` (checked by `Layout`).
            unsafe { alloc::realloc(self.data.as_ptr(), old_layout, new_layout.size()) }
        };
        self.data = NonNull::new(new_data).unwrap_or_else(|| alloc::handle_alloc_error(new_layout));
        self.cap = new_cap;
    }

    /// [`Column::push`] of a value whose type `T` the caller knows: the copy has a constant
    /// size.
    ///
    /// # Safety
    ///
    /// As for [`Column::push`]; `T` is the column's type.
    #[inline(always)]
    pub(crate) unsafe fn push_typed<T>(&mut self, src: *const T, ticks: ComponentTicks) {
        if let Some(column) = &mut self.ticks {
            column.push(ticks);
        }
        debug_assert!(self.len < self.cap);
        debug_assert_eq!(self.item.size(), size_of::<T>());
        // A typed step: the row's address without a multiply by the run-time size.
        let dst = self.data.as_ptr().cast::<T>().wrapping_add(self.len);
        // SAFETY: as for `push`; the column's values are `T`s, aligned in its allocation.
        unsafe { ptr::copy_nonoverlapping(src, dst, 1) };
        self.len += 1;
    }

    /// [`Column::push_typed`] without the change ticks: the value alone. A tracked column's
    /// ticks then lag its values until [`Column::stamp_new_rows`] (a spawn writes its rows'
    /// values first and stamps their ticks after, so the value writes test nothing).
    ///
    /// # Safety
    ///
    /// As for [`Column::push_typed`]; the caller stamps the ticks before they are read.
    #[inline(always)]
    pub(crate) unsafe fn push_typed_value<T>(&mut self, src: *const T) {
        debug_assert!(self.len < self.cap);
        debug_assert_eq!(self.item.size(), size_of::<T>());
        let dst = self.data.as_ptr().cast::<T>().wrapping_add(self.len);
        // SAFETY: as for `push_typed`.
        unsafe { ptr::copy_nonoverlapping(src, dst, 1) };
        self.len += 1;
    }

    /// [`Column::push`] without the change ticks, as [`Column::push_typed_value`].
    ///
    /// # Safety
    ///
    /// As for [`Column::push`]; the caller stamps the ticks before they are read.
    #[inline]
    pub(crate) unsafe fn push_value(&mut self, src: *const u8) {
        debug_assert!(self.len < self.cap);
        // SAFETY: as for `push`.
        unsafe { copy_value(src, self.ptr_at(self.len), self.item.size()) };
        self.len += 1;
    }

    /// Records the rows pushed without ticks ([`Column::push_value`]) as added at `tick`:
    /// a tracked column's ticks are brought up to its length; an untracked one is left.
    pub(crate) fn stamp_new_rows(&mut self, tick: u64) {
        if let Some(column) = &mut self.ticks {
            for _ in column.len()..self.len {
                column.push(ComponentTicks::new(tick));
            }
        }
    }

    /// Moves the value at `src` in as the new last row.
    ///
    /// # Safety
    ///
    /// `src` points to a valid value of the column's type, which the caller gives up (it
    /// must not be used or dropped afterwards); `len < cap`.
    /// A tracked column records `ticks` for the row.
    #[inline]
    pub(crate) unsafe fn push(&mut self, src: *const u8, ticks: ComponentTicks) {
        if let Some(column) = &mut self.ticks {
            column.push(ticks);
        }
        debug_assert!(self.len < self.cap);
        // SAFETY: `len < cap`, so the destination row is inside the allocation; the source is
        // a valid value of this type, and cannot overlap a row the column has not handed out.
        unsafe { copy_value(src, self.ptr_at(self.len), self.item.size()) };
        self.len += 1;
    }

    /// Appends a clone of the value at `src` as the new last row, made by `clone` (the
    /// column type's clone function). If `clone` panics the column is unchanged.
    ///
    /// # Safety
    ///
    /// `src` points to a valid value of the column's type with no concurrent writer, and is
    /// not inside this column's spare capacity; `clone` is the clone function of that type;
    /// `len < cap`.
    #[inline]
    pub(crate) unsafe fn push_clone(&mut self, src: *const u8, clone: CloneFn) {
        debug_assert!(self.len < self.cap);
        // SAFETY: `len < cap`, so the destination row is inside the allocation and holds no
        // value; `src` is a valid value of the type `clone` is for. `len` grows only once the
        // clone is written, so a panicking clone leaves the column as it was.
        unsafe { clone(src, self.ptr_at(self.len)) };
        self.len += 1;
    }

    /// Counts the value written in place at [`Column::ptr_at`]`(len)` as the new last row, with
    /// `ticks` when the column is tracked (a save file being read).
    ///
    /// # Safety
    ///
    /// `len < cap`, and row `len` holds a valid value of the column's type that nothing else
    /// owns.
    #[cfg(feature = "serde")]
    pub(crate) unsafe fn push_written(&mut self, ticks: ComponentTicks) {
        debug_assert!(self.len < self.cap);
        if let Some(column) = &mut self.ticks {
            column.push(ticks);
        }
        self.len += 1;
    }

    /// Counts the first `len` rows as the column's values, written in place through
    /// [`Column::ptr_at`] (the parallel snapshot refresh fills rows out of order).
    ///
    /// # Safety
    ///
    /// `len <= cap`, and rows `0..len` hold valid values of the column's type that nothing
    /// else owns; the column held no values before (any it held are leaked).
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.cap);
        self.len = len;
    }

    /// Appends the `count` values stored one after another at `src`, in one copy.
    ///
    /// # Safety
    ///
    /// `src` points to `count` valid values of the column's type, packed, which the caller
    /// gives up; `len + count <= cap`. A tracked column records them added at `tick`.
    #[inline]
    pub(crate) unsafe fn extend_packed(&mut self, src: *const u8, count: usize, tick: u64) {
        if let Some(column) = &mut self.ticks {
            for _ in 0..count {
                column.push(ComponentTicks::new(tick));
            }
        }
        debug_assert!(self.len + count <= self.cap);
        // SAFETY: room for `count` more rows (the caller's promise), packed like the source.
        unsafe { ptr::copy_nonoverlapping(src, self.ptr_at(self.len), count * self.item.size()) };
        self.len += count;
    }

    /// Shortens the column by one without dropping the last value, which the caller moved
    /// out.
    ///
    /// # Safety
    ///
    /// `len > 0`, and the last value was moved out (it is not used or dropped again).
    #[inline]
    pub(crate) unsafe fn forget_last(&mut self) {
        debug_assert!(self.len > 0);
        self.len -= 1;
    }

    /// Swaps `row` with the last row and shortens the column by one, leaving the value that
    /// was at `row` just past the end (at `ptr_at(len)`) for the caller to move out or drop.
    ///
    /// # Safety
    ///
    /// `row < len`. The value left past the end must then be moved out or dropped by the
    /// caller exactly once (see [`Column::drop_past_end`]).
    #[inline]
    pub(crate) unsafe fn swap_remove_to_end(&mut self, row: usize) {
        debug_assert!(row < self.len);
        if let Some(ticks) = &mut self.ticks {
            ticks.swap_remove(row);
        }
        let last = self.len - 1;
        if row != last {
            // SAFETY: both rows are in bounds and distinct, so the ranges do not overlap.
            unsafe { swap_values(self.ptr_at(row), self.ptr_at(last), self.item.size()) };
        }
        self.len = last;
    }

    /// Swap-removes `rows` one after another, as [`Column::swap_remove_to_end`] would, each
    /// removed value (and its change ticks) appended to `dst`: the rows an insert run moves
    /// out of one table, in one loop with the copy's size fixed.
    ///
    /// # Safety
    ///
    /// `dst` holds the same type; each row is below this column's length at its turn; `dst`
    /// has room for as many more values as `rows` yields.
    pub(crate) unsafe fn move_rows_to<I>(&mut self, dst: &mut Column, rows: I)
    where
        I: Iterator<Item = usize> + Clone,
    {
        debug_assert_eq!(self.item, dst.item);
        if let (Some(from), Some(to)) = (&mut self.ticks, &mut dst.ticks) {
            for row in rows.clone() {
                from.swap_remove(row);
                to.push(from.removed());
            }
        }
        /// The loop, with a constant-size copy for the common sizes (see [`copy_value`]).
        macro_rules! sized {
            ($($n:literal)*) => {
                match self.item.size() {
                    // SAFETY: forwarded from the caller, with the size fixed.
                    $($n => unsafe { self.move_rows_sized::<$n, I>(dst, rows, $n) },)*
                    // SAFETY: forwarded from the caller.
                    size => unsafe { self.move_rows_sized::<0, I>(dst, rows, size) },
                }
            };
        }
        sized!(1 2 4 8 12 16 24 32 48 64)
    }

    /// [`Column::move_rows_to`] for values of `size` bytes; `N` is `size` when it is one of
    /// the constant sizes, else 0 (and the copies take `size`).
    ///
    /// # Safety
    ///
    /// As for [`Column::move_rows_to`].
    #[inline(always)]
    unsafe fn move_rows_sized<const N: usize, I>(&mut self, dst: &mut Column, rows: I, size: usize)
    where
        I: Iterator<Item = usize>,
    {
        let size = if N == 0 { size } else { N };
        let base = self.data.as_ptr();
        let mut out = dst.ptr_at(dst.len);
        for row in rows {
            debug_assert!(row < self.len && dst.len < dst.cap);
            let last = self.len - 1;
            let hole = base.wrapping_add(row * size);
            // SAFETY: `row` and `last` are live rows of this column, `out` the free row past
            // `dst`'s end (room promised), in different allocations or at distinct rows, so
            // no copy overlaps: the removed value moves to `dst`, the last into its place.
            unsafe {
                ptr::copy_nonoverlapping(hole, out, size);
                if row != last {
                    ptr::copy_nonoverlapping(base.wrapping_add(last * size), hole, size);
                }
            }
            out = out.wrapping_add(size);
            self.len = last;
            dst.len += 1;
        }
    }

    /// The change ticks of the row [`Column::swap_remove_to_end`] last left past the end
    /// (zero for an untracked column).
    #[inline]
    pub(crate) fn removed_ticks(&self) -> ComponentTicks {
        self.ticks
            .as_ref()
            .map_or_else(ComponentTicks::default, |it| it.removed())
    }

    /// Drops the value just past the end, left there by [`Column::swap_remove_to_end`].
    ///
    /// # Safety
    ///
    /// A value was left past the end and was not moved out or dropped yet.
    #[inline]
    pub(crate) unsafe fn drop_past_end(&mut self) {
        if let Some(drop) = self.drop {
            // SAFETY: the caller guarantees a live, unclaimed value at `ptr_at(len)`.
            unsafe { drop(self.ptr_at(self.len)) }
        }
    }

    /// Drops the value at `row` and moves the value at `src` in its place; a tracked column
    /// marks the row changed at `tick`.
    ///
    /// # Safety
    ///
    /// `row < len`; `src` points to a valid value of the column's type, which the caller
    /// gives up; `src` is not inside this column.
    pub(crate) unsafe fn replace(&mut self, row: usize, src: *mut u8, tick: u64) {
        debug_assert!(row < self.len);
        if let Some(ticks) = &mut self.ticks {
            ticks.set_changed(row, tick);
        }
        let at = self.ptr_at(row);
        // Swap first, so the old value sits at `src` when its drop runs: if that drop
        // panics, the column still holds a valid new value.
        // SAFETY: `at` is a valid row, `src` a valid value outside this column, both of the
        // column's type and size.
        unsafe { ptr::swap_nonoverlapping(at, src, self.item.size()) };
        if let Some(drop) = self.drop {
            // SAFETY: `src` now holds the old value, which nothing else owns.
            unsafe { drop(src) }
        }
    }

    /// Drops every value and empties the column, keeping its allocation.
    pub(crate) fn clear(&mut self) {
        let rows = self.forget_all();
        // SAFETY: `forget_all` just gave up exactly these `rows` live values.
        unsafe { self.drop_forgotten(rows) }
    }

    /// Empties the column without dropping its values, returning how many it held; the
    /// caller drops them with [`Column::drop_forgotten`] (or leaks them).
    pub(crate) fn forget_all(&mut self) -> usize {
        if let Some(ticks) = &mut self.ticks {
            ticks.clear();
        }
        std::mem::replace(&mut self.len, 0)
    }

    /// Drops the values of rows `0..rows`, which the column no longer counts.
    ///
    /// # Safety
    ///
    /// Rows `0..rows` hold live values that [`Column::forget_all`] gave up and that nothing
    /// has moved out or dropped since.
    pub(crate) unsafe fn drop_forgotten(&mut self, rows: usize) {
        debug_assert!(self.len == 0);
        if let Some(drop) = self.drop {
            for row in 0..rows {
                // SAFETY: the caller guarantees a live, unclaimed value at each row; the column
                // already counts none of them, so a panicking drop leaks the rest rather than
                // dropping anything twice.
                unsafe { drop(self.ptr_at(row)) }
            }
        }
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        self.clear();
        let size = self.item.size() * self.cap;
        if self.item.size() != 0 && self.cap != 0 {
            let layout =
                Layout::from_size_align(size, self.item.align()).expect("valid when allocated");
            // SAFETY: `data` was allocated by the global allocator with exactly this layout.
            unsafe { alloc::dealloc(self.data.as_ptr(), layout) }
        }
    }
}

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("len", &self.len)
            .field("cap", &self.cap)
            .field("item", &self.item)
            .field("tracked", &self.ticks.is_some())
            .finish()
    }
}
