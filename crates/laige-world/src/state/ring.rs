//! The rollback ring: the last `N` saved states, by tick, for GGPO-style netcode.

use super::{StateError, WorldState};
use crate::World;

/// The world states of the last `capacity` ticks, one slot per tick number (`tick %
/// capacity`), for rollback netcode: save every tick, and when a late input arrives for a
/// tick `k` ticks back, restore that tick's state and simulate forward again
/// (docs/api/rollback.md walks through the GGRS flow).
///
/// Each slot is a [`WorldState`] that keeps its buffers, so once every slot has held the
/// world, saving and restoring allocate nothing.
///
/// ```
/// use laige_world::{StateRing, World};
///
/// let mut world = World::default();
/// let mut ring = StateRing::new(9); // GGRS' prediction window of 8, plus the present
/// let schedule = world.schedule()?;
/// for _ in 0..12 {
///     ring.save(&mut world)?;        // the state the next tick starts from
///     world.run_systems(&schedule)?;
/// }
/// let hash = world.state_hash();
/// ring.load(&mut world, 4)?;         // back to tick 4 (an input for it arrived late)
/// assert_eq!(world.ticks_run(), 4);
/// for _ in 4..12 {
///     world.run_systems(&schedule)?; // simulated again, with the input
/// }
/// assert_eq!(world.state_hash(), hash);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct StateRing {
    states: Vec<WorldState>,
}

impl StateRing {
    /// A ring of `capacity` slots (at least 1): it holds the states of the last `capacity`
    /// ticks saved.
    pub fn new(capacity: usize) -> Self {
        Self {
            states: (0..capacity.max(1)).map(|_| WorldState::new()).collect(),
        }
    }

    /// How many ticks' states it holds.
    pub fn capacity(&self) -> usize {
        self.states.len()
    }

    fn slot(&self, tick: u64) -> usize {
        (tick % self.states.len() as u64) as usize
    }

    /// Saves `world` into the slot of its tick number ([`World::ticks_run`]: the tick it
    /// runs next), replacing the state saved there `capacity` ticks ago.
    ///
    /// # Errors
    ///
    /// As for [`World::save_state`].
    pub fn save(&mut self, world: &mut World) -> Result<(), StateError> {
        let slot = self.slot(world.ticks_run());
        world.save_state(&mut self.states[slot])
    }

    /// The state saved at tick `tick` (before that tick ran), if the ring still holds it.
    pub fn get(&self, tick: u64) -> Option<&WorldState> {
        let state = &self.states[self.slot(tick)];
        (state.is_saved() && state.tick() == tick).then_some(state)
    }

    /// The oldest and newest ticks whose states the ring holds.
    pub fn held(&self) -> Option<(u64, u64)> {
        let ticks = self
            .states
            .iter()
            .filter(|it| it.is_saved())
            .map(WorldState::tick);
        let (lo, hi) = ticks.fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
        (lo <= hi).then_some((lo, hi))
    }

    /// Restores the state saved at tick `tick` into `world` ([`World::restore_state`]), so
    /// its next tick is `tick` again.
    ///
    /// # Errors
    ///
    /// [`StateError::TickNotHeld`] when the ring holds no state of that tick (it was never
    /// saved, or was replaced `capacity` ticks later); otherwise as for
    /// [`World::restore_state`]. Nothing is changed then.
    pub fn load(&self, world: &mut World, tick: u64) -> Result<(), StateError> {
        match self.get(tick) {
            Some(state) => world.restore_state(state),
            None => {
                let (oldest, newest) = self.held().unwrap_or((0, 0));
                let err = StateError::TickNotHeld {
                    tick,
                    oldest,
                    newest,
                };
                Err(world.storage().report(err))
            }
        }
    }

    /// Goes `ticks` ticks back: restores the state saved before tick
    /// `world.ticks_run() - ticks`.
    ///
    /// # Errors
    ///
    /// As for [`StateRing::load`].
    pub fn roll_back(&self, world: &mut World, ticks: u64) -> Result<(), StateError> {
        self.load(world, world.ticks_run().saturating_sub(ticks))
    }
}
