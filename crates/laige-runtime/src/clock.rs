//! The runtime's time source and the metronome: when each tick is due, and how to wait for it.
//!
//! The metronome is drift-free: the next target is the previous target plus the interval,
//! never "now plus the interval", so a late tick does not push every later one back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use laige_diag::ManualClock;

/// Where the runtime reads time, and how it waits.
#[derive(Clone, Debug, Default)]
pub enum RuntimeClock {
    /// The machine's monotonic clock; waiting sleeps, then spins the last stretch.
    #[default]
    Real,
    /// A clock that moves only when told to, for tests: waiting for a target sets the clock
    /// to it, so every timing decision is the test's choice and no test reads wall time.
    Manual(Arc<ManualClock>),
}

/// A [`RuntimeClock`] started: its origin, and the sleep threshold measured at start-up.
#[derive(Debug)]
pub(crate) struct Waiter {
    source: Source,
    /// Waits shorter than this spin instead of sleeping: the sleep overshoot measured at
    /// start-up, with a margin.
    spin_threshold: Duration,
}

#[derive(Debug)]
enum Source {
    Real(Instant),
    Manual(Arc<ManualClock>),
}

/// The longest stretch ever spun: a host whose sleeps overshoot more than this spins this
/// much and accepts the rest as jitter, rather than burning a core.
const MAX_SPIN: Duration = Duration::from_millis(4);
/// The shortest spin stretch, for hosts whose sleeps look exact.
const MIN_SPIN: Duration = Duration::from_micros(50);
/// How many 1 ms sleeps the start-up calibration times.
const CALIBRATION_SLEEPS: u32 = 5;

impl Waiter {
    /// Starts `clock`; a real clock measures its sleep overshoot now (a few milliseconds).
    pub(crate) fn start(clock: &RuntimeClock) -> Self {
        match clock {
            RuntimeClock::Real => Self {
                spin_threshold: calibrate_spin(),
                source: Source::Real(Instant::now()),
            },
            RuntimeClock::Manual(manual) => Self {
                spin_threshold: Duration::ZERO,
                source: Source::Manual(manual.clone()),
            },
        }
    }

    /// The time since the clock's origin.
    pub(crate) fn now(&self) -> Duration {
        match &self.source {
            Source::Real(origin) => origin.elapsed(),
            Source::Manual(manual) => laige_diag::Clock::now(&**manual),
        }
    }

    /// The spin threshold measured at start-up (zero on a manual clock).
    pub(crate) fn spin_threshold(&self) -> Duration {
        self.spin_threshold
    }

    /// Returns at `target` or later: sleeps until the spin threshold before it, then spins.
    /// A manual clock is set to `target` when it is behind.
    pub(crate) fn wait_until(&self, target: Duration) {
        match &self.source {
            Source::Manual(manual) => {
                if laige_diag::Clock::now(&**manual) < target {
                    manual.set(target);
                }
            }
            Source::Real(origin) => {
                let now = origin.elapsed();
                if target > now + self.spin_threshold {
                    std::thread::sleep(target - now - self.spin_threshold);
                }
                while origin.elapsed() < target {
                    std::hint::spin_loop();
                }
            }
        }
    }
}

/// How far past its request a 1 ms sleep wakes on this host, at worst over a few tries,
/// plus a quarter for margin, clamped to [`MIN_SPIN`]..=[`MAX_SPIN`].
fn calibrate_spin() -> Duration {
    let request = Duration::from_millis(1);
    let mut worst = Duration::ZERO;
    for _ in 0..CALIBRATION_SLEEPS {
        let start = Instant::now();
        std::thread::sleep(request);
        worst = worst.max(start.elapsed().saturating_sub(request));
    }
    (worst + worst / 4).clamp(MIN_SPIN, MAX_SPIN)
}

/// When the next tick is due, and how many were dropped to keep up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Metronome {
    /// The next tick's target time, on the waiter's clock.
    pub(crate) next_target: Duration,
    /// The target of the last tick run.
    pub(crate) last_target: Duration,
}

/// What the metronome found due at one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Due {
    /// Ticks to run now, back to back (at most `1 + max_catch_up`).
    pub(crate) run: u32,
    /// Ticks that were due and are dropped: their targets are skipped, never run.
    pub(crate) dropped: u64,
}

impl Metronome {
    /// A metronome whose first tick is due at `start`.
    pub(crate) fn new(start: Duration) -> Self {
        Self {
            next_target: start,
            last_target: start,
        }
    }

    /// The ticks due at `now` with ticks `interval` apart: every target at or before `now`.
    /// More than `1 + max_catch_up` of them and the oldest excess is dropped: the targets
    /// skip ahead by whole intervals (keeping the phase), so a slow host never spirals.
    pub(crate) fn due(&mut self, now: Duration, interval: Duration, max_catch_up: u32) -> Due {
        if now < self.next_target {
            return Due { run: 0, dropped: 0 };
        }
        let interval_nanos = interval.as_nanos().max(1);
        let behind = (now - self.next_target).as_nanos() / interval_nanos;
        let due = behind.saturating_add(1);
        let limit = u128::from(max_catch_up) + 1;
        if due <= limit {
            // `due <= limit`, which fits in u32.
            return Due {
                run: u32::try_from(due).unwrap_or(u32::MAX),
                dropped: 0,
            };
        }
        let dropped = due - limit;
        self.skip(interval, dropped);
        Due {
            run: max_catch_up + 1,
            dropped: u64::try_from(dropped).unwrap_or(u64::MAX),
        }
    }

    /// Moves the next target on by `count` intervals without running ticks.
    fn skip(&mut self, interval: Duration, count: u128) {
        let nanos = interval.as_nanos().saturating_mul(count);
        let nanos = u64::try_from(nanos).unwrap_or(u64::MAX);
        self.next_target = self.next_target.saturating_add(Duration::from_nanos(nanos));
    }

    /// A tick ran for the current target: the next is one `interval` after it.
    pub(crate) fn advance(&mut self, interval: Duration) {
        self.last_target = self.next_target;
        self.next_target = self.next_target.saturating_add(interval);
    }

    /// How far `now` is into the interval after the last tick run, as a fraction in
    /// `[0, 1)`: what a renderer interpolates by.
    pub(crate) fn overstep_fraction(&self, now: Duration, interval: Duration) -> f64 {
        if interval.is_zero() || now <= self.last_target {
            return 0.0;
        }
        let into = (now - self.last_target).as_secs_f64() / interval.as_secs_f64();
        into.clamp(0.0, f64::from(f32::from_bits(0x3F7F_FFFF)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn nothing_is_due_before_the_target() {
        let mut m = Metronome::new(10 * MS);
        assert_eq!(m.due(9 * MS, 10 * MS, 3), Due { run: 0, dropped: 0 });
        assert_eq!(m.due(10 * MS, 10 * MS, 3), Due { run: 1, dropped: 0 });
    }

    #[test]
    fn targets_advance_by_the_interval_not_from_now() {
        let mut m = Metronome::new(Duration::ZERO);
        m.advance(10 * MS);
        m.advance(10 * MS);
        assert_eq!(m.next_target, 20 * MS);
        assert_eq!(m.last_target, 10 * MS);
    }

    #[test]
    fn a_backlog_within_the_catch_up_runs_back_to_back() {
        let mut m = Metronome::new(Duration::ZERO);
        // Targets 0, 10, 20 and 30 are due at 35 ms: four ticks, three of them catch-up.
        assert_eq!(m.due(35 * MS, 10 * MS, 3), Due { run: 4, dropped: 0 });
    }

    #[test]
    fn a_backlog_past_the_catch_up_is_dropped_and_keeps_the_phase() {
        let mut m = Metronome::new(Duration::ZERO);
        // Ten targets (0..=90) are due at 95 ms; four run, six are dropped.
        assert_eq!(m.due(95 * MS, 10 * MS, 3), Due { run: 4, dropped: 6 });
        assert_eq!(m.next_target, 60 * MS);
    }

    #[test]
    fn overstep_is_the_fraction_into_the_next_interval() {
        let mut m = Metronome::new(Duration::ZERO);
        m.advance(10 * MS);
        assert!((m.overstep_fraction(MS * 5 / 2, 10 * MS) - 0.25).abs() < 1e-12);
        assert!(m.overstep_fraction(30 * MS, 10 * MS) < 1.0);
    }

    #[test]
    fn waiting_on_a_manual_clock_sets_it_to_the_target() {
        let manual = Arc::new(ManualClock::default());
        let waiter = Waiter::start(&RuntimeClock::Manual(manual.clone()));
        waiter.wait_until(7 * MS);
        assert_eq!(waiter.now(), 7 * MS);
        // A target in the past leaves the clock alone.
        waiter.wait_until(3 * MS);
        assert_eq!(waiter.now(), 7 * MS);
        assert_eq!(waiter.spin_threshold(), Duration::ZERO);
    }
}
