//! Resources: singletons stored in the world (time, input, settings), declared and checked
//! like components.
//!
//! A resource type is registered in the component table, so it gets a [`ComponentId`] in the
//! same id space: systems declare it with `.reads::<T>()` / `.writes::<T>()`, the registry
//! records it, and the schedulers find conflicts on it exactly as on a component. It is never
//! stored on an entity: spawning, inserting or querying a resource type is an error, and so is
//! inserting a component type as a resource.

use std::ptr;

use laige_registry::ComponentId;

use crate::StateHasher;
use crate::column::Column;
use crate::component::{ComponentInfo, Components};

/// One resource type's value: a column of length 0 (removed) or 1.
#[derive(Debug)]
struct Slot {
    id: ComponentId,
    column: Column,
}

/// The resource values of a storage, in ascending id.
///
/// Each value lives in its own one-row [`Column`], which owns and drops it, and whose data is
/// written through a shared reference only under the storage's access contract (see
/// [`Storage`](crate::Storage)).
#[derive(Debug, Default)]
pub struct Resources {
    slots: Vec<Slot>,
}

impl Resources {
    /// How many resource values are held.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.column.len() == 1).count()
    }

    fn position(&self, id: ComponentId) -> Result<usize, usize> {
        self.slots.binary_search_by_key(&id, |s| s.id)
    }

    /// A pointer to resource `id`'s value, if it holds one.
    #[inline]
    pub fn ptr(&self, id: ComponentId) -> Option<*mut u8> {
        let slot = &self.slots[self.position(id).ok()?];
        (slot.column.len() == 1).then(|| slot.column.ptr_at(0))
    }

    /// Stores the value at `src` as resource `info.id()`, dropping the value it replaces.
    ///
    /// # Safety
    ///
    /// `src` points to a valid, aligned value of `info`'s type, which the caller gives up, and
    /// is writable (a replaced old value is dropped in place there).
    pub(crate) unsafe fn put(&mut self, info: &ComponentInfo, src: *mut u8) {
        let at = match self.position(info.id()) {
            Ok(at) => at,
            Err(at) => {
                let mut column = Column::new(info);
                column.reserve_total(1);
                self.slots.insert(
                    at,
                    Slot {
                        id: info.id(),
                        column,
                    },
                );
                at
            }
        };
        let column = &mut self.slots[at].column;
        if column.len() == 1 {
            // SAFETY: row 0 holds the old value; `src` is a valid value of the column's type
            // outside the column, given up by the caller.
            unsafe { column.replace(0, src) }
        } else {
            // SAFETY: the column is empty with room for one; `src` is a valid value of its
            // type, given up by the caller.
            unsafe { column.push(src) }
        }
    }

    /// Moves resource `id`'s value to `out`; returns whether there was one.
    ///
    /// # Safety
    ///
    /// `out` is valid for writing one value of `id`'s type.
    pub(crate) unsafe fn take(&mut self, id: ComponentId, out: *mut u8) -> bool {
        let Ok(at) = self.position(id) else {
            return false;
        };
        let column = &mut self.slots[at].column;
        if column.len() == 0 {
            return false;
        }
        // SAFETY: row 0 is in bounds; its value is left just past the end and moved out at
        // once, which claims it.
        unsafe {
            column.swap_remove_to_end(0);
            ptr::copy_nonoverlapping(column.ptr_at(column.len()), out, column.item().size());
        }
        true
    }

    /// Feeds every held value of a hashed resource to `h`, in ascending id: the id (u16),
    /// then the bytes of its [`StateHash`].
    pub(crate) fn hash(&self, components: &Components, h: &mut StateHasher) {
        for slot in &self.slots {
            if slot.column.len() == 0 {
                continue;
            }
            if let Some(hash) = components.get(slot.id).hash {
                h.write_u16(slot.id.get());
                // SAFETY: row 0 holds a valid value of the type `hash` was registered for; the
                // caller has no concurrent writer (a world-level `&self`, or a context that
                // declared a read of every hashed component and resource).
                *h = unsafe { hash(slot.column.ptr_at(0), *h) };
            }
        }
    }
}
