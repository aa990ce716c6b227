//! Time sources, injectable so tests control time: [`Clock`] for the rate limiter's window,
//! and [`TickClock`] for timing systems against their budgets, with [`ClockSpan`] for one
//! timed run.
//!
//! A test that hands one [`ManualClock`] to both controls every duration a runner measures
//! and every window the limiter opens, so budget events are a pure function of the test.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic time source, measured from an arbitrary origin.
///
/// Timestamps only decide whether a diagnostic is emitted; they never reach an order,
/// an id or world state.
pub trait Clock: Send + Sync {
    /// The time elapsed since this clock's origin.
    fn now(&self) -> Duration;
}

/// The default clock: [`Instant`] measured from the clock's creation.
#[derive(Debug)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that moves only when told to; for tests.
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: AtomicU64,
}

impl ManualClock {
    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(by, Ordering::Relaxed);
    }

    /// Sets the clock to `at` after its origin.
    pub fn set(&self, at: Duration) {
        let at = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX);
        self.nanos.store(at, Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }
}

impl ManualClock {
    /// The nanoseconds since the origin.
    fn nanos(&self) -> u64 {
        self.nanos.load(Ordering::Relaxed)
    }
}

/// The clock runners time systems with: raw readings at system boundaries, turned into
/// nanoseconds only when a duration is recorded.
///
/// By default it reads the CPU's calibrated time-stamp counter (`quanta`): a read costs a
/// few nanoseconds where [`Instant::now`] costs about 25, which per-system timing needs
/// (docs/decisions/0006-timing-clock.md). Under Miri, which cannot run the counter's
/// inline assembly, it reads [`Instant`] instead. [`TickClock::manual`] makes every
/// duration a test's choice: a system that advances the [`ManualClock`] by 1 ms is
/// measured at exactly 1 ms, whatever the machine or valgrind does to real time.
///
/// ```
/// use std::{sync::Arc, time::Duration};
/// use laige_diag::{ManualClock, TickClock};
///
/// let manual = Arc::new(ManualClock::default());
/// let clock = TickClock::manual(manual.clone());
/// let start = clock.raw();
/// manual.advance(Duration::from_micros(250));
/// assert_eq!(clock.delta_as_nanos(start, clock.raw()), 250_000);
/// ```
#[derive(Clone, Debug)]
pub struct TickClock {
    source: Source,
}

#[derive(Clone, Debug)]
enum Source {
    #[cfg(not(miri))]
    Counter(quanta::Clock),
    #[cfg(miri)]
    Std(Instant),
    Manual(Arc<ManualClock>),
}

impl TickClock {
    /// The machine's fast clock (the calibrated time-stamp counter; [`Instant`] under Miri).
    ///
    /// One counter clock per process, cloned: making one asks the CPU what it supports
    /// (`cpuid`, which in a virtual machine traps to the hypervisor), and that cost a fifth
    /// of building a 256-system World.
    pub fn new() -> Self {
        #[cfg(not(miri))]
        let source = {
            static MACHINE: std::sync::OnceLock<quanta::Clock> = std::sync::OnceLock::new();
            Source::Counter(MACHINE.get_or_init(quanta::Clock::new).clone())
        };
        #[cfg(miri)]
        let source = Source::Std(Instant::now());
        Self { source }
    }

    /// A clock that reads `manual`: it moves only when the test advances it.
    pub fn manual(manual: Arc<ManualClock>) -> Self {
        Self {
            source: Source::Manual(manual),
        }
    }

    /// Whether this clock reads a [`ManualClock`].
    pub fn is_manual(&self) -> bool {
        matches!(self.source, Source::Manual(_))
    }

    /// A raw reading, in the source's own units; compare two with
    /// [`TickClock::delta_as_nanos`].
    #[inline]
    pub fn raw(&self) -> u64 {
        match &self.source {
            #[cfg(not(miri))]
            Source::Counter(clock) => clock.raw(),
            #[cfg(miri)]
            Source::Std(origin) => u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX),
            Source::Manual(manual) => manual.nanos(),
        }
    }

    /// The nanoseconds from raw reading `start` to raw reading `end`; 0 when `end` is not
    /// after `start`.
    #[inline]
    pub fn delta_as_nanos(&self, start: u64, end: u64) -> u64 {
        match &self.source {
            #[cfg(not(miri))]
            Source::Counter(clock) => clock.delta_as_nanos(start, end),
            #[cfg(miri)]
            Source::Std(_) => end.saturating_sub(start),
            Source::Manual(_) => end.saturating_sub(start),
        }
    }
}

impl Default for TickClock {
    /// [`TickClock::new`].
    fn default() -> Self {
        Self::new()
    }
}

/// One timed run on one thread: raw readings of a [`TickClock`] just before and just after
/// it, and the index of the thread in its pool (0 for the thread that called the runner or
/// the executor, workers 1 and up). Turn the readings into nanoseconds with the clock's
/// [`TickClock::delta_as_nanos`]; a timeline is built from these.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ClockSpan {
    /// The raw reading before the run (on the sequential runner: the previous run's end,
    /// so one reading serves both).
    pub start: u64,
    /// The raw reading after it returned.
    pub end: u64,
    /// The thread that ran it.
    pub thread: u32,
}
