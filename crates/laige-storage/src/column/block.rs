//! The columns of one table in a block that never moves, and the directory entries that
//! point into it.

use std::ptr::NonNull;

use super::Column;

/// A table's columns, allocated once and never resized or moved, so that the storage's
/// column directory ([`TableColumn`]) can point at them.
///
/// It is a boxed slice held as a raw pointer. Every reference to a column (the table's own,
/// and the directory's) is derived from that pointer, so a directory pointer stays valid
/// while the table mutates its columns through `&mut` (a `Box` would be retagged as unique
/// on every access, invalidating pointers taken before).
pub(crate) struct ColumnBlock {
    columns: NonNull<[Column]>,
}

// SAFETY: the block owns its columns as a `Box<[Column]>` would, and `Column` is `Send`.
unsafe impl Send for ColumnBlock {}
// SAFETY: shared access to the block only gives out `&Column`, and `Column` is `Sync`.
unsafe impl Sync for ColumnBlock {}

impl ColumnBlock {
    pub(crate) fn new(columns: Vec<Column>) -> Self {
        let raw = Box::into_raw(columns.into_boxed_slice());
        // SAFETY: `Box::into_raw` never returns null.
        let columns = unsafe { NonNull::new_unchecked(raw) };
        Self { columns }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[Column] {
        // SAFETY: the block owns a live, initialised slice; `&self` rules out a `&mut` to it.
        unsafe { self.columns.as_ref() }
    }

    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [Column] {
        // SAFETY: as for `as_slice`; `&mut self` rules out any other reference made through
        // the block. Directory entries are only dereferenced under a shared borrow of the
        // storage that owns both (see `TableColumn::column`), so none is live either.
        unsafe { self.columns.as_mut() }
    }

    /// The directory entry for column `index` of table `table`.
    pub(crate) fn entry(&self, table: u32, index: usize) -> TableColumn {
        assert!(index < self.columns.len(), "column index out of range");
        // SAFETY: in bounds (checked); derived from the block's own pointer without making a
        // reference, so it shares that pointer's permissions.
        let column = unsafe { self.columns.cast::<Column>().add(index) };
        TableColumn { table, column }
    }
}

impl Drop for ColumnBlock {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` in `new` and is freed only here.
        drop(unsafe { Box::from_raw(self.columns.as_ptr()) });
    }
}

/// One entry of the storage's column directory: a table that has some component, and that
/// component's column in it. Iterating these reaches a column in one step, without going
/// through the table.
///
/// Not `Clone`: entries live in the storage, next to the tables they point into, and are only
/// ever borrowed from it.
#[derive(Debug)]
pub struct TableColumn {
    column: NonNull<Column>,
    table: u32,
}

// SAFETY: an entry is a shared pointer to a `Column`, which is `Sync`; it is dereferenced
// only under the storage's borrow rules (see `TableColumn::column`).
unsafe impl Send for TableColumn {}
// SAFETY: as for `Send`.
unsafe impl Sync for TableColumn {}

impl TableColumn {
    /// The table's archetype id.
    #[inline]
    pub fn table(&self) -> u32 {
        self.table
    }

    /// The column.
    ///
    /// # Safety
    ///
    /// The table this entry was made for is alive (tables are never removed, so: the storage
    /// that holds the entry is), and nothing holds a `&mut` to its columns while the returned
    /// borrow lives, which a shared borrow of that storage guarantees.
    #[inline]
    pub unsafe fn column(&self) -> &Column {
        // SAFETY: the pointer targets a column of a live `ColumnBlock` (the caller's promise),
        // which never moves; no `&mut` to it exists while the borrow lives.
        unsafe { self.column.as_ref() }
    }
}
