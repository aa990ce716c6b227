//! How a world is created.

use laige_diag::{Diagnostics, TickClock};
use laige_registry::Budget;

/// World creation options.
///
/// ```
/// use laige_world::{Budget, World, WorldOptions};
///
/// let world = World::new(WorldOptions { capacity: 10_000, seed: 0x1F05_5EED, ..WorldOptions::default() });
/// assert_eq!(world.options().default_budget, Budget::from_millis(1));
/// assert_eq!(WorldOptions::default().seed, WorldOptions::DEFAULT_SEED);
/// ```
#[derive(Clone, Debug)]
pub struct WorldOptions {
    /// Entity slots to reserve up front: a hint, not a limit.
    pub capacity: u32,
    /// The most entities that may be live at once; `None` for no limit below `u32::MAX`.
    pub max_entities: Option<u32>,
    /// The master seed; system `id` draws from `Prng::derive_substream(seed, id)`. Every
    /// system has its stream; a world created without a seed uses
    /// [`WorldOptions::DEFAULT_SEED`].
    pub seed: u64,
    /// The budget of a system registered without one (`.budget_ms(..)` on the builder
    /// overrides it). The registry only accepts a positive budget, so a zero default makes
    /// every registration through the builder name its own.
    pub default_budget: Budget,
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

impl WorldOptions {
    /// The seed of a world created without one: 0, the laige contract's
    /// `kDefaultSimulationSeed`.
    pub const DEFAULT_SEED: u64 = 0;

    /// The budget of a system registered without one, unless the options say otherwise.
    pub const DEFAULT_BUDGET: Budget = Budget::from_millis(1);
}

impl Default for WorldOptions {
    /// No reservation, no limit, [`WorldOptions::DEFAULT_SEED`], a 1 ms default budget,
    /// fresh diagnostics, timing on the machine's fast clock.
    fn default() -> Self {
        Self {
            capacity: 0,
            max_entities: None,
            seed: Self::DEFAULT_SEED,
            default_budget: Self::DEFAULT_BUDGET,
            diagnostics: None,
            timing: true,
            clock: TickClock::new(),
        }
    }
}
