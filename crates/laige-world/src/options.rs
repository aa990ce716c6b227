//! How a world is created.

use laige_diag::{Diagnostics, TickClock};

/// World creation options.
///
/// ```
/// use laige_world::{World, WorldOptions};
///
/// let world = World::new(WorldOptions { capacity: 10_000, seed: 0x1F05_5EED, ..WorldOptions::default() });
/// assert!(world.options().deterministic);
/// ```
#[derive(Clone, Debug)]
pub struct WorldOptions {
    /// Entity slots to reserve up front: a hint, not a limit.
    pub capacity: u32,
    /// The most entities that may be live at once; `None` for no limit below `u32::MAX`.
    pub max_entities: Option<u32>,
    /// The master seed; system `id` draws from `Prng::derive_substream(seed, id)`.
    pub seed: u64,
    /// Whether systems get a PRNG substream ([`SystemContext::rng`](crate::SystemContext::rng)
    /// is `None` otherwise).
    pub deterministic: bool,
    /// Where events go and how they are rate limited; `None` for a fresh limiter with the
    /// default 1 s window.
    pub diagnostics: Option<Diagnostics>,
    /// Time every system run and check it against its budget (on by default; switch off
    /// per world when its cost matters more than the budget watch).
    pub timing: bool,
    /// The clock systems are timed with, on the sequential runner and the executor alike;
    /// a test's [`TickClock::manual`] makes every measured duration its choice.
    pub clock: TickClock,
}

impl Default for WorldOptions {
    /// No reservation, no limit, seed 0, deterministic, fresh diagnostics, timing on the
    /// machine's fast clock.
    fn default() -> Self {
        Self {
            capacity: 0,
            max_entities: None,
            seed: 0,
            deterministic: true,
            diagnostics: None,
            timing: true,
            clock: TickClock::new(),
        }
    }
}
