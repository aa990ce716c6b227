//! What the runner runs systems on: the plug between the runner and a world.

use laige_registry::SystemId;

/// Runs one system. The runner decides *which* system runs *when*; the host decides
/// *how*: it builds the system's fresh context and calls its run function.
///
/// A World implements this over its storage; a test harness can use a closure, since
/// every `FnMut(SystemId, &R)` is a host.
pub trait Host<R> {
    /// Runs system `id`, whose run payload is `run`.
    fn run_system(&mut self, id: SystemId, run: &R);
}

impl<R, F: FnMut(SystemId, &R)> Host<R> for F {
    #[inline]
    fn run_system(&mut self, id: SystemId, run: &R) {
        self(id, run)
    }
}
