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
