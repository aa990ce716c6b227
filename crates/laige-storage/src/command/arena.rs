//! A growable byte arena for type-erased component values, aligned for every value in it.

use std::alloc::{self, Layout};
use std::ptr::{self, NonNull};

/// The arena's minimum base alignment.
const BASE_ALIGN: usize = 16;

/// Bytes with a base aligned to the largest alignment ever asked for, so an offset aligned
/// for a type is an address aligned for it. Cleared by resetting the length: the capacity
/// stays, so a buffer reused every tick stops allocating once it has seen its largest tick.
pub(crate) struct Arena {
    ptr: NonNull<u8>,
    len: usize,
    cap: usize,
    align: usize,
}

// SAFETY: the arena only holds values of component types, which are `Send`; it is mutated
// only through `&mut`.
unsafe impl Send for Arena {}
// SAFETY: through `&Arena` nothing can be read or written (only `&mut` methods hand out
// pointers), and the values are `Sync` anyway.
unsafe impl Sync for Arena {}

fn dangling(align: usize) -> NonNull<u8> {
    // SAFETY: alignments are non-zero powers of two, so the address is non-null.
    unsafe { NonNull::new_unchecked(ptr::without_provenance_mut(align)) }
}

impl Arena {
    pub(crate) fn new() -> Self {
        Self {
            ptr: dangling(BASE_ALIGN),
            len: 0,
            cap: 0,
            align: BASE_ALIGN,
        }
    }

    /// Reserves room for one value of `layout`; returns its offset.
    pub(crate) fn alloc(&mut self, layout: Layout) -> usize {
        if layout.align() > self.align {
            self.reallocate(self.cap, layout.align());
        }
        let offset = self.len.next_multiple_of(layout.align());
        let end = offset
            .checked_add(layout.size())
            .expect("command arena overflow");
        if end > self.cap {
            let cap = end.max(self.cap.saturating_mul(2)).max(256);
            self.reallocate(cap, self.align);
        }
        self.len = end;
        offset
    }

    /// Makes room for `additional` more bytes at `align` (padding included), so the next
    /// allocations of that many bytes move nothing.
    pub(crate) fn reserve(&mut self, additional: usize, align: usize) {
        if align > self.align {
            self.reallocate(self.cap, align);
        }
        let end = self
            .len
            .checked_add(additional)
            .expect("command arena overflow");
        if end > self.cap {
            let cap = end.max(self.cap.saturating_mul(2)).max(256);
            self.reallocate(cap, self.align);
        }
    }

    /// The address of `offset`; aligned for the value reserved there.
    #[inline]
    pub(crate) fn ptr(&mut self, offset: usize) -> *mut u8 {
        self.ptr.as_ptr().wrapping_add(offset)
    }

    /// Forgets every value (the caller moved or dropped them), keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes reserved so far.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// Moves the bytes to a new block of `cap` bytes aligned to `align`.
    fn reallocate(&mut self, cap: usize, align: usize) {
        if cap == 0 {
            // Nothing allocated yet: only the (dangling) base's alignment changes.
            self.ptr = dangling(align);
            self.align = align;
            return;
        }
        let layout = Layout::from_size_align(cap, align).expect("command arena overflow");
        // SAFETY: `cap > 0`, so the layout has a non-zero size.
        let new = unsafe { alloc::alloc(layout) };
        let new = NonNull::new(new).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        if self.cap != 0 {
            // SAFETY: both blocks are at least `len` bytes and distinct allocations; values
            // are plain bytes to move (every Rust value may be moved by a copy).
            unsafe { ptr::copy_nonoverlapping(self.ptr.as_ptr(), new.as_ptr(), self.len) };
            self.free();
        }
        self.ptr = new;
        self.cap = cap;
        self.align = align;
    }

    fn free(&mut self) {
        if self.cap != 0 {
            let layout =
                Layout::from_size_align(self.cap, self.align).expect("valid when allocated");
            // SAFETY: `ptr` was allocated by the global allocator with exactly this layout.
            unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) };
            self.cap = 0;
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.free();
    }
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("len", &self.len)
            .field("cap", &self.cap)
            .field("align", &self.align)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_aligned_addresses() {
        #[repr(align(64))]
        struct Wide(#[allow(dead_code)] u8);
        let mut arena = Arena::new();
        let a = arena.alloc(Layout::new::<u8>());
        let b = arena.alloc(Layout::new::<u64>());
        let c = arena.alloc(Layout::new::<Wide>());
        let d = arena.alloc(Layout::new::<()>());
        assert_eq!((a, b), (0, 8));
        for (off, align) in [(a, 1), (b, 8), (c, 64), (d, 1)] {
            assert_eq!(arena.ptr(off) as usize % align, 0);
        }
        let cap = arena.capacity();
        arena.clear();
        arena.alloc(Layout::new::<Wide>());
        assert_eq!(arena.capacity(), cap, "clear keeps the capacity");
    }
}
