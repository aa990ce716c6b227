//! The executor's host: the one place in the tick layer that opens the checked view's unsafe
//! door ([`Queries::new`]), under the executor's [`SharedHost`] contract.

use std::sync::atomic::{AtomicUsize, Ordering};

use laige_executor::{PerSystem, SharedHost};
use laige_registry::SystemId;

use crate::gate::Gate;
use crate::world::{SystemState, ViewSource};
use crate::{Queries, Storage, SystemMeta, SystemRun};

/// Runs systems of one world from several threads at once.
pub(crate) struct ParallelHost<'w> {
    storage: &'w Storage,
    systems: PerSystem<'w, SystemState>,
    /// How many systems were left unsettled ([`SystemState::is_settled`]).
    unsettled: AtomicUsize,
    /// The tick's skips.
    gate: &'w Gate,
}

impl<'w> ParallelHost<'w> {
    pub(crate) fn new(
        storage: &'w Storage,
        systems: &'w mut [SystemState],
        gate: &'w Gate,
    ) -> Self {
        Self {
            storage,
            systems: PerSystem::new(systems),
            unsettled: AtomicUsize::new(0),
            gate,
        }
    }

    /// How many systems were left unsettled.
    pub(crate) fn unsettled(&self) -> usize {
        self.unsettled.load(Ordering::Relaxed)
    }
}

/// The storage as one system running on the executor reaches it.
struct Proven<'w>(&'w Storage);

impl ViewSource for Proven<'_> {
    #[inline]
    fn view<'s>(&'s mut self, meta: &'s SystemMeta) -> Queries<'s> {
        // SAFETY: a `Proven` is made only in `run_system` below, for the system being run,
        // and `meta` is that system's (its own state's); the executor runs it only while no
        // system whose declared access conflicts with it runs (`SharedHost`'s contract, which
        // the plan keeps for every pair the registry's conflict rule names), which is
        // `Queries::new`'s contract; the storage is borrowed shared for the whole track.
        unsafe { Queries::new(self.0, meta) }
    }
}

// SAFETY: `run_system` reaches system `id`'s own state only (through `PerSystem`, which the
// executor's promise never to run one system twice at once makes exclusive) and the storage
// only through the view of `id`'s meta, whose contract is exactly the executor's other
// promise: no system that conflicts with `id` runs meanwhile.
unsafe impl SharedHost<SystemRun> for ParallelHost<'_> {
    unsafe fn run_system(&self, id: SystemId, run: &SystemRun) {
        if self.gate.is_active() && self.gate.skips(id) {
            return;
        }
        // SAFETY: the executor never runs `id` twice at once, so this is the only reference
        // to its state.
        let Some(state) = (unsafe { self.systems.get_mut(id) }) else {
            return;
        };
        let settled = state.run_contained(Proven(self.storage), run);
        if !settled {
            self.unsettled.fetch_add(1, Ordering::Relaxed);
            if state.take_events_skip() {
                self.gate.record_skip(id, crate::gate::code::EVENTS_EMPTY);
            }
            if state.is_troubled() {
                self.gate.record_failure(id);
            }
        }
    }
}
