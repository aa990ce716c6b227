//! The time resources systems read: the fixed step ([`FixedTime`]) and the frame's measured
//! time ([`FrameTime`]).

use std::time::Duration;

use laige_world::{StateHash, StateHasher};

/// The fixed step, as a resource: what a fixed-rate system reads instead of measured time.
///
/// Its fields are pure functions of the tick count and the agreed overload level, never of
/// the clock, so two peers that run the same ticks read the same values. It enters the state
/// hash (tick and step), so a peer that ran at another rate differs there too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedTime {
    /// The tick being run: 0 for the runtime's first.
    pub tick: u64,
    /// The simulated time one tick advances: the base interval times the current tick-rate
    /// multiplier (at a lower rate each tick covers more time, so simulated time keeps pace).
    pub dt: Duration,
    /// The tick-rate multiplier the tick runs at (1 unless the ladder lowered the rate).
    pub multiplier: u32,
}

impl FixedTime {
    /// [`FixedTime::dt`] in seconds.
    pub fn dt_secs(&self) -> f32 {
        self.dt.as_secs_f32()
    }

    /// [`FixedTime::dt`] in seconds, as `f64`.
    pub fn dt_secs_f64(&self) -> f64 {
        self.dt.as_secs_f64()
    }
}

impl StateHash for FixedTime {
    fn hash_state(&self, h: &mut StateHasher) {
        self.tick.hash_state(h);
        u64::try_from(self.dt.as_nanos())
            .unwrap_or(u64::MAX)
            .hash_state(h);
        self.multiplier.hash_state(h);
    }
}

/// The frame schedule's time, as a resource: measured, so it differs between runs and
/// machines. Only the frame schedule (rendering, input, audio) may read it; state that
/// enters the hash must come from fixed-rate systems reading [`FixedTime`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTime {
    /// The measured time since the previous frame.
    pub delta: Duration,
    /// How far the clock is into the next fixed interval, in `[0, 1)`: interpolate between
    /// the last two fixed states by it.
    pub overstep_fraction: f64,
    /// Frames run so far, this one excluded.
    pub frame: u64,
}
