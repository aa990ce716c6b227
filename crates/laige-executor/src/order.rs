//! The pick order of a track: which ready system a thread takes first.
//!
//! Threads claim the lowest ready bits first (`crate::work`). Bits are *slots*, and a track's
//! [`PickOrder`] maps its positions (sequential order) to slots and back. The identity puts
//! the sequential order first; [`PickOrder::by_critical_path`] puts the system with the
//! longest remaining chain of measured durations first, so the chain that bounds the track
//! starts as early as it can. Only the bits are permuted: pending counts, panics (reported
//! earliest in sequential order) and everything the World sees stay in positions, and since
//! the plan orders every conflicting pair, which ready system runs first changes no result.

use laige_registry::{MAX_SYSTEMS, SystemId};

use crate::plan::{Plan, WORDS};

/// A newly ready system whose remaining chain (its duration plus the longest chain after
/// it) is shorter than this is not worth waking a sleeping thread for: a futex wake costs the
/// publisher several microseconds on the critical path and the sleeper tens before it runs
/// anything (docs/decisions/0013-idle-workers-leave-the-track.md), and the publisher, or a
/// thread still spinning, takes it soon anyway.
pub const WAKE_WORTH_NANOS: u64 = 20_000;

/// A track's position-to-slot permutation and its inverse, and which slots hold systems
/// whose remaining chain is too short to wake a thread for.
#[derive(Clone, Debug)]
pub(crate) struct PickOrder {
    slot_of: [u16; MAX_SYSTEMS],
    position_of: [u16; MAX_SYSTEMS],
    short: [u64; WORDS],
}

impl PickOrder {
    /// Sequential order first.
    pub(crate) fn identity() -> Self {
        let ids: [u16; MAX_SYSTEMS] = std::array::from_fn(|i| i as u16);
        Self {
            slot_of: ids,
            position_of: ids,
            short: [0; WORDS],
        }
    }

    /// The slots whose systems' remaining chains are shorter than [`WAKE_WORTH_NANOS`]
    /// (none in the identity order, which knows no durations).
    #[inline]
    pub(crate) fn short_slots(&self) -> &[u64; WORDS] {
        &self.short
    }

    /// The slot of track-local `position`.
    #[inline]
    pub(crate) fn slot(&self, position: usize) -> usize {
        usize::from(self.slot_of[position])
    }

    /// The track-local position in `slot`.
    #[inline]
    pub(crate) fn position(&self, slot: usize) -> usize {
        usize::from(self.position_of[slot])
    }

    /// The slots of a set of positions.
    pub(crate) fn slots_of(&self, positions: [u64; WORDS]) -> [u64; WORDS] {
        let mut slots = [0u64; WORDS];
        for (w, &word) in positions.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let slot = self.slot(w * 64 + bits.trailing_zeros() as usize);
                slots[slot / 64] |= 1 << (slot % 64);
                bits &= bits - 1;
            }
        }
        slots
    }

    /// Orders track `t` of `plan` by the longest remaining chain first: each system's
    /// duration plus the longest chain of its dependents (ties: sequential order).
    /// `duration` gives a system's last measured duration.
    pub(crate) fn by_critical_path(
        plan: &Plan,
        t: usize,
        duration: impl Fn(SystemId) -> u64,
    ) -> Self {
        let (_, len) = plan.track_span(t);
        let chain = chains(plan, t, duration);
        let mut order = Self::identity();
        order.position_of[..len].sort_by_key(|&p| (std::cmp::Reverse(chain[usize::from(p)]), p));
        for slot in 0..len {
            let position = order.position(slot);
            order.slot_of[position] = slot as u16;
            if chain[position] < WAKE_WORTH_NANOS {
                order.short[slot / 64] |= 1 << (slot % 64);
            }
        }
        order
    }

    /// The systems of track `t` of `plan` in pick order.
    pub(crate) fn systems<'a>(
        &'a self,
        plan: &'a Plan,
        t: usize,
    ) -> impl Iterator<Item = SystemId> + 'a {
        let (base, len) = plan.track_span(t);
        (0..len).map(move |slot| plan.node(base + self.position(slot)))
    }
}

/// Per track-local position of track `t`, the system's duration plus the longest chain of
/// its dependents (the longest first entry is the track's critical path).
pub(crate) fn chains(
    plan: &Plan,
    t: usize,
    duration: impl Fn(SystemId) -> u64,
) -> [u64; MAX_SYSTEMS] {
    let (base, len) = plan.track_span(t);
    let mut chain = [0u64; MAX_SYSTEMS];
    // Dependents come later in sequential order, so one backward pass sees them first.
    for position in (0..len).rev() {
        let longest_after = plan
            .dependents(base + position)
            .iter()
            .map(|&d| chain[usize::from(d)])
            .max()
            .unwrap_or(0);
        chain[position] = duration(plan.node(base + position)).saturating_add(longest_after);
    }
    chain
}
