//! How a runtime is configured: rate, workers, catch-up, clock, overload ladder, telemetry.

use std::time::Duration;

use crate::RuntimeClock;

/// Runtime options; [`RuntimeOptions::default`] is 60 Hz on the sequential runner.
///
/// ```
/// use laige_runtime::RuntimeOptions;
///
/// let options = RuntimeOptions { tick_rate: 30, workers: 2, ..RuntimeOptions::default() };
/// assert_eq!(options.interval(), std::time::Duration::from_nanos(33_333_333));
/// ```
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// The base tick rate in ticks per second (at least 1).
    pub tick_rate: u32,
    /// Threads that run systems, the calling thread included: 0 runs them one at a time on
    /// the calling thread (the sequential runner), 1 and up on the parallel executor.
    pub workers: usize,
    /// How many ticks a frame that is behind runs back to back beyond the one due; past that
    /// the backlog is dropped (never run) and reported, so a slow host never spirals.
    pub max_catch_up: u32,
    /// Where time is read and how the runtime waits.
    pub clock: RuntimeClock,
    /// The overload ladder.
    pub overload: OverloadOptions,
    /// How many ticks the telemetry ring keeps (at least 1); sized once, at creation.
    pub telemetry_ticks: usize,
    /// Whether each tick's row also records every scheduled system (duration, outcome,
    /// worker). On by default; off, a tick records only its own fields, and the runtime
    /// costs less per system (docs/benchmarks.md).
    pub system_telemetry: bool,
    /// The layout track (`Layout::dag(track, ..)`) whose systems form the *frame schedule*:
    /// run once per real-time frame after the due fixed ticks, not in the fixed ticks
    /// (docs/api/runtime.md, "The frame schedule"). `None` (the default): no frame schedule.
    pub frame_track: Option<&'static str>,
}

impl RuntimeOptions {
    /// The default base rate: 60 ticks per second.
    pub const DEFAULT_TICK_RATE: u32 = 60;
    /// The default catch-up: 3 ticks beyond the one due, so a frame runs at most 4.
    pub const DEFAULT_MAX_CATCH_UP: u32 = 3;
    /// The default telemetry ring: 1024 ticks, as Typhon's.
    pub const DEFAULT_TELEMETRY_TICKS: usize = 1024;

    /// The base interval between ticks: one second over the rate.
    pub fn interval(&self) -> Duration {
        interval_of(self.tick_rate)
    }
}

/// One second over `rate` (a rate of 0 counts as 1).
pub(crate) fn interval_of(rate: u32) -> Duration {
    Duration::from_nanos(1_000_000_000 / u64::from(rate.max(1)))
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            tick_rate: Self::DEFAULT_TICK_RATE,
            workers: 0,
            max_catch_up: Self::DEFAULT_MAX_CATCH_UP,
            clock: RuntimeClock::Real,
            overload: OverloadOptions::default(),
            telemetry_ticks: Self::DEFAULT_TELEMETRY_TICKS,
            system_telemetry: true,
            frame_track: None,
        }
    }
}

/// The overload ladder's settings (docs/api/runtime.md); the defaults are Typhon's.
///
/// The overrun ratio of a tick is its measured duration over the base interval. Above
/// `escalate_ratio` for `escalate_ticks` ticks in a row the level goes up one step; below
/// `deescalate_ratio` for `deescalate_ticks` in a row it goes down one. Between the two
/// thresholds both counts are kept, so the level does not flap.
#[derive(Clone, Debug, PartialEq)]
pub struct OverloadOptions {
    /// Whether the ladder moves at all; off, every tick runs at [`OverloadLevel::NORMAL`](crate::OverloadLevel::NORMAL).
    pub enabled: bool,
    /// The overrun ratio above which a tick counts toward escalation.
    pub escalate_ratio: f64,
    /// Consecutive such ticks that escalate one level.
    pub escalate_ticks: u32,
    /// The overrun ratio below which a tick counts toward de-escalation.
    pub deescalate_ratio: f64,
    /// Consecutive such ticks that de-escalate one level.
    pub deescalate_ticks: u32,
    /// The tick-rate multipliers of the rate-modulation levels, in order; a multiplier that
    /// would take the rate below `min_tick_rate` is not used.
    pub multipliers: Vec<u32>,
    /// The lowest tick rate the ladder may lower to, in ticks per second.
    pub min_tick_rate: u32,
}

impl Default for OverloadOptions {
    /// Typhon's: 1.2x for 5 ticks up, 0.6x for 20 ticks down, multipliers 2, 3, 4, 6, at
    /// least 10 Hz.
    fn default() -> Self {
        Self {
            enabled: true,
            escalate_ratio: 1.2,
            escalate_ticks: 5,
            deescalate_ratio: 0.6,
            deescalate_ticks: 20,
            multipliers: vec![2, 3, 4, 6],
            min_tick_rate: 10,
        }
    }
}
