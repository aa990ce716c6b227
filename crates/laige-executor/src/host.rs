//! The trait through which the executor runs systems: what the World implements.

use laige_registry::SystemId;

/// Runs one system with shared access to the world.
///
/// The executor calls [`SharedHost::run_system`] from several threads at once, through a
/// shared reference; that is why the host must be `Sync`.
///
/// # Safety
///
/// For implementors: an implementation may assume that the executor never runs two systems
/// at once whose plan says they must not overlap (an edge, direct or implied, orders them),
/// and never runs one system twice at once. It must be sound under exactly that promise:
/// running systems that the plan leaves unordered at the same time on different threads.
pub unsafe trait SharedHost<R>: Sync {
    /// Runs system `id`, whose run payload is `run`.
    ///
    /// # Safety
    ///
    /// The caller guarantees that no system running concurrently conflicts with `id`
    /// according to the plan it was given, and that `id` is not already running.
    unsafe fn run_system(&self, id: SystemId, run: &R);
}

/// Per-system state that a [`SharedHost`] hands to the thread running each system: a
/// borrowed slice, indexed by [`SystemId::index`], whose element `i` only the thread running
/// system `i` reaches.
///
/// It is what lets a host be `Sync` without a raw pointer of its own: the one promise it
/// needs is the executor's (one system never runs twice at once), stated on
/// [`PerSystem::get_mut`].
#[derive(Debug)]
pub struct PerSystem<'a, T> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: threads reach the slice only through `get_mut`, whose contract gives each element
// to one thread at a time; moving a `&mut T` to another thread needs `T: Send`.
unsafe impl<T: Send> Sync for PerSystem<'_, T> {}
// SAFETY: it holds the `&mut [T]` it was made from, which is `Send` when `T` is.
unsafe impl<T: Send> Send for PerSystem<'_, T> {}

impl<'a, T> PerSystem<'a, T> {
    /// Takes the per-system slice for as long as the host runs.
    pub fn new(slice: &'a mut [T]) -> Self {
        Self {
            len: slice.len(),
            ptr: std::ptr::NonNull::from(slice).cast(),
            _borrow: std::marker::PhantomData,
        }
    }

    /// How many systems there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// System `id`'s element; `None` for an id past the end.
    ///
    /// # Safety
    ///
    /// No other reference to element `id.index()` is live while the result is: call it only
    /// from [`SharedHost::run_system`] for the system being run, which the executor never runs
    /// twice at once.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get_mut(&self, id: SystemId) -> Option<&mut T> {
        if id.index() >= self.len {
            return None;
        }
        // SAFETY: in bounds of the borrowed slice, which lives for `'a`; the caller makes this
        // the only reference to the element.
        Some(unsafe { &mut *self.ptr.as_ptr().add(id.index()) })
    }
}

/// A value reached only through `&mut`, so sharing its holder between threads shares no
/// access to it: `Sync` whenever the value is `Send` (as `std::sync::Exclusive`, unstable,
/// is). A host's per-system state holds a typed system's `FnMut + Send` function in one, so
/// the World stays `Sync` without asking systems to be.
#[derive(Debug, Default)]
pub struct Exclusive<T: ?Sized>(T);

// SAFETY: no method reaches the value through `&self`, so a shared `&Exclusive<T>` on
// another thread can do nothing with it; moving `&mut` access there needs `T: Send`.
unsafe impl<T: ?Sized + Send> Sync for Exclusive<T> {}

impl<T> Exclusive<T> {
    /// Wraps `value`.
    pub const fn new(value: T) -> Self {
        Self(value)
    }
}

impl<T: ?Sized> Exclusive<T> {
    /// The value, through the exclusive borrow of its holder.
    #[inline(always)]
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
