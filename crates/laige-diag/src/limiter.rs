//! The per-key rate limiter and the `rate_limited` summary events.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::{Clock, MonotonicClock};

/// The contract's default rate window: one emitted event per key per second.
pub const DEFAULT_RATE_WINDOW: Duration = Duration::from_secs(1);

/// Room for every distinct key laige emits, reserved up front so reporting never allocates.
const KEY_CAPACITY: usize = 64;

/// The part of laige an event comes from; the prefix of its name (`system/...`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Subsystem {
    /// Registry, scheduler, runner and timing events.
    System,
    /// World storage and query events.
    Ecs,
}

impl Subsystem {
    /// The subsystem's name as it appears in event names.
    pub const fn name(self) -> &'static str {
        match self {
            Subsystem::System => "system",
            Subsystem::Ecs => "ecs",
        }
    }
}

/// How serious an event is. Only these severities are rate limited, as in the contract.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Something is wrong but the simulation can go on.
    Warn,
    /// A hard failure, such as a critical budget overrun.
    Error,
}

/// The rate-limit key: (subsystem, event, severity). Fields are deliberately not part of it,
/// so `double_writer` reports for different components share one key (contract §9.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct EventKey {
    /// Where the event comes from.
    pub subsystem: Subsystem,
    /// The event name without the subsystem prefix, e.g. `double_writer`.
    pub event: &'static str,
    /// The event's severity.
    pub severity: Severity,
}

impl EventKey {
    /// A key for `subsystem/event` at `severity`.
    pub const fn new(subsystem: Subsystem, event: &'static str, severity: Severity) -> Self {
        Self {
            subsystem,
            event,
            severity,
        }
    }
}

impl fmt::Display for EventKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.subsystem.name(), self.event)
    }
}

#[derive(Debug)]
struct KeyState {
    key: EventKey,
    last_emitted: Duration,
    suppressed: u64,
}

#[derive(Debug)]
struct State {
    keys: Vec<KeyState>,
}

impl State {
    /// Emits one `rate_limited` summary per key with pending suppressions, in key-creation
    /// order, and resets the counts.
    fn flush(&mut self) {
        for entry in &mut self.keys {
            let suppressed = std::mem::take(&mut entry.suppressed);
            if suppressed > 0 {
                emit_rate_limited(entry.key, suppressed);
            }
        }
    }
}

struct Inner {
    window: Duration,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
}

/// Reports events at one instant under one lock; see [`Diagnostics::batch`].
pub struct Batch<'a> {
    state: MutexGuard<'a, State>,
    now: Duration,
    window: Duration,
}

impl Batch<'_> {
    /// Emits through `emit` unless the key went out less than one window ago; see
    /// [`Diagnostics::report`]. Returns whether `emit` ran.
    pub fn report(&mut self, key: EventKey, emit: impl FnOnce()) -> bool {
        let now = self.now;
        let idx = match self.state.keys.iter().position(|it| it.key == key) {
            Some(idx) => idx,
            None => {
                self.state.keys.push(KeyState {
                    key,
                    last_emitted: now,
                    suppressed: 0,
                });
                emit();
                return true;
            }
        };
        let entry = &mut self.state.keys[idx];
        if now.saturating_sub(entry.last_emitted) < self.window {
            entry.suppressed += 1;
            return false;
        }
        let suppressed = std::mem::take(&mut entry.suppressed);
        entry.last_emitted = now;
        if suppressed > 0 {
            emit_rate_limited(key, suppressed);
        }
        emit();
        true
    }
}

impl fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

/// A shared handle to one rate limiter. Cloning shares the state.
///
/// Reporting takes a lock, but only failure paths report: a healthy tick never touches it.
#[derive(Clone)]
pub struct Diagnostics {
    inner: Arc<Inner>,
}

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Diagnostics")
            .field("window", &self.inner.window)
            .finish_non_exhaustive()
    }
}

impl Default for Diagnostics {
    fn default() -> Self {
        Self::new(DEFAULT_RATE_WINDOW)
    }
}

impl Diagnostics {
    /// A limiter with the given window on the monotonic clock.
    pub fn new(window: Duration) -> Self {
        Self::with_clock(window, Arc::new(MonotonicClock::new()))
    }

    /// A limiter with the given window on an injected clock (tests use [`crate::ManualClock`]).
    pub fn with_clock(window: Duration, clock: Arc<dyn Clock>) -> Self {
        let state = State {
            keys: Vec::with_capacity(KEY_CAPACITY),
        };
        Self {
            inner: Arc::new(Inner {
                window,
                clock,
                state: Mutex::new(state),
            }),
        }
    }

    /// The rate window.
    pub fn window(&self) -> Duration {
        self.inner.window
    }

    /// Emits an event through `emit` unless its key was emitted less than one window ago.
    ///
    /// The first event of a key always goes out. A later one inside the window is counted
    /// and dropped. When an event passes after suppressions, a `rate_limited` summary
    /// (`event`, `suppressed`) is emitted first. Returns whether `emit` ran.
    pub fn report(&self, key: EventKey, emit: impl FnOnce()) -> bool {
        self.batch(|batch| batch.report(key, emit))
    }

    /// Runs `f` with a [`Batch`] that reports many events on one clock reading and one
    /// lock: a scheduling pass raising hundreds of warnings pays for both once.
    ///
    /// Events reported through the batch are emitted while the limiter is locked, so an
    /// emit closure must not report through this `Diagnostics` itself.
    pub fn batch<T>(&self, f: impl FnOnce(&mut Batch<'_>) -> T) -> T {
        let now = self.inner.clock.now();
        let mut batch = Batch {
            state: self.lock(),
            now,
            window: self.inner.window,
        };
        f(&mut batch)
    }

    /// How many events of `key` were suppressed since it last went out.
    pub fn pending_suppressed(&self, key: EventKey) -> u64 {
        self.lock()
            .keys
            .iter()
            .find(|it| it.key == key)
            .map_or(0, |it| it.suppressed)
    }

    /// Emits one `rate_limited` summary per key with pending suppressions, in the order the
    /// keys were first seen, and resets the counts. Call it on shutdown; dropping the last
    /// handle does it too.
    pub fn flush(&self) {
        self.lock().flush();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the counters inconsistent, so a
        // poisoned lock is still usable.
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.state
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .flush();
    }
}

/// The summary record: same subsystem and severity as the key, event `rate_limited`.
fn emit_rate_limited(key: EventKey, suppressed: u64) {
    let event = key.event;
    let subsystem = key.subsystem.name();
    macro_rules! summary {
        ($level:ident, $name:literal) => {
            tracing::$level!(
                name: $name,
                target: "laige",
                event,
                suppressed,
                "suppressed {suppressed} repeats of '{subsystem}/{event}'"
            )
        };
    }
    match (key.subsystem, key.severity) {
        (Subsystem::System, Severity::Warn) => summary!(warn, "system/rate_limited"),
        (Subsystem::System, Severity::Error) => summary!(error, "system/rate_limited"),
        (Subsystem::Ecs, Severity::Warn) => summary!(warn, "ecs/rate_limited"),
        (Subsystem::Ecs, Severity::Error) => summary!(error, "ecs/rate_limited"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ManualClock;

    fn limiter() -> (Diagnostics, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::default());
        (
            Diagnostics::with_clock(Duration::from_millis(1000), clock.clone()),
            clock,
        )
    }

    const KEY: EventKey = EventKey::new(Subsystem::System, "duplicate", Severity::Warn);

    #[test]
    fn window_is_sliding_from_last_emission() {
        let (diag, clock) = limiter();
        assert!(diag.report(KEY, || {}));
        clock.advance(Duration::from_millis(999));
        assert!(!diag.report(KEY, || {}));
        clock.advance(Duration::from_millis(1));
        assert!(diag.report(KEY, || {}));
        assert_eq!(diag.pending_suppressed(KEY), 0);
    }

    #[test]
    fn keys_are_independent_of_each_other() {
        let (diag, _clock) = limiter();
        let other = EventKey::new(Subsystem::System, "duplicate", Severity::Error);
        assert!(diag.report(KEY, || {}));
        assert!(diag.report(other, || {}));
        assert!(!diag.report(KEY, || {}));
        assert_eq!(diag.pending_suppressed(KEY), 1);
        assert_eq!(diag.pending_suppressed(other), 0);
    }

    #[test]
    fn flush_resets_pending_counts() {
        let (diag, _clock) = limiter();
        diag.report(KEY, || {});
        diag.report(KEY, || {});
        diag.flush();
        assert_eq!(diag.pending_suppressed(KEY), 0);
    }
}
