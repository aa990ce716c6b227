//! Per-system timing and budgets (contract §5): observation only, never control.

use std::fmt;
use std::time::Duration;

use laige_diag::Diagnostics;
use laige_registry::{Budget, MAX_SYSTEMS, SystemId, SystemRecord};
use laige_scheduler::SystemRef;

/// Samples kept per system: about a second at 60 Hz.
pub const WINDOW_SAMPLES: usize = 64;

/// A run at this multiple of its budget or more is critical.
pub const CRITICAL_MULTIPLIER: u64 = 3;

/// One system's timing counters; its samples are in [`Timing`]'s windows.
#[derive(Clone, Copy, Debug)]
struct Record {
    total: u64,
    last_ns: u64,
    warns: u64,
    errors: u64,
}

impl Record {
    const EMPTY: Self = Self {
        total: 0,
        last_ns: 0,
        warns: 0,
        errors: 0,
    };

    fn stored(&self) -> usize {
        (self.total as usize).min(WINDOW_SAMPLES)
    }
}

/// One system's last [`WINDOW_SAMPLES`] durations, a ring indexed by its run count.
type Window = [u64; WINDOW_SAMPLES];

/// A snapshot of one system's timing since the timing table was created.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct TimingStats {
    /// How many times the runner invoked the system's host. A skip decided there (a run
    /// condition, a reactive reader with nothing to read, a requested skip) counts too, timed
    /// as the decision; the tick report and the timeline say which runs were skips.
    pub runs: u64,
    /// The last run's duration.
    pub last: Duration,
    /// Runs strictly over budget (`budget_overrun`), counted even when the log suppressed them.
    pub warns: u64,
    /// Runs at three times the budget or more (`budget_critical`).
    pub errors: u64,
    /// The window's 99th percentile (nearest rank); zero before the first run.
    pub p99: Duration,
    /// How many samples the window holds (at most [`WINDOW_SAMPLES`]).
    pub window_samples: usize,
}

/// Timing records for every system, reserved up front so a tick never allocates.
#[derive(Clone)]
pub struct Timing {
    /// Plain arrays of zeros, kept apart from the counters: `vec![[0; _]; _]` takes zeroed
    /// pages from the allocator, where a table of structs is written out (128 KiB on every
    /// new World, most of it for systems that never exist).
    windows: Vec<Window>,
    records: Vec<Record>,
}

impl fmt::Debug for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timing").finish_non_exhaustive()
    }
}

impl Default for Timing {
    fn default() -> Self {
        Self::new()
    }
}

impl Timing {
    /// Records for [`MAX_SYSTEMS`] systems.
    pub fn new() -> Self {
        Self {
            windows: vec![[0; WINDOW_SAMPLES]; MAX_SYSTEMS],
            records: vec![Record::EMPTY; MAX_SYSTEMS],
        }
    }

    /// Records one run of `system` lasting `nanos`, and reports a budget breach.
    ///
    /// A run strictly over budget emits `system/budget_overrun`; a run at three times the
    /// budget or more also emits `system/budget_critical`, warn first. The counters count
    /// every breach; only the events are rate limited.
    pub fn observe(&mut self, system: &SystemRecord, nanos: u64, diag: &Diagnostics) {
        let (record, window) = (
            &mut self.records[system.id().index()],
            &mut self.windows[system.id().index()],
        );
        window[(record.total % WINDOW_SAMPLES as u64) as usize] = nanos;
        record.total += 1;
        record.last_ns = nanos;
        // `as_nanos` rounds the exact Q16.16 budget down, and for a whole number of
        // nanoseconds `nanos > floor(budget)` is exactly `nanos > budget`.
        if nanos <= system.budget().as_nanos() {
            return;
        }
        let critical = is_critical(nanos, system.budget());
        record.warns += 1;
        record.errors += u64::from(critical);
        let breach = Breach {
            system: SystemRef {
                id: system.id(),
                name: system.name(),
            },
            measured_ms: nanos as f64 / 1e6,
            budget_ms: system.budget().as_millis_f64(),
            window: &window[..record.stored()],
        };
        // One clock reading and one lock for both events; the p99 is only computed for an
        // event the rate limiter lets out.
        diag.batch(|batch| {
            let overrun = BudgetEvent::Overrun(breach);
            batch.report(overrun.key(), || overrun.emit());
            if critical {
                let critical = BudgetEvent::Critical(breach);
                batch.report(critical.key(), || critical.emit());
            }
        });
    }

    /// The timing snapshot of `id`.
    pub fn stats(&self, id: SystemId) -> Option<TimingStats> {
        let record = self.records.get(id.index())?;
        let samples = &self.windows[id.index()][..record.stored()];
        Some(TimingStats {
            runs: record.total,
            last: Duration::from_nanos(record.last_ns),
            warns: record.warns,
            errors: record.errors,
            p99: Duration::from_nanos(percentile(samples, 99)),
            window_samples: record.stored(),
        })
    }

    /// The window of `id`, oldest sample first.
    pub fn window(&self, id: SystemId) -> impl Iterator<Item = Duration> + '_ {
        let (window, total, stored) = self.records.get(id.index()).map_or((&[][..], 0, 0), |it| {
            (
                &self.windows[id.index()][..],
                it.total as usize,
                it.stored(),
            )
        });
        (total - stored..total).map(move |i| Duration::from_nanos(window[i % WINDOW_SAMPLES]))
    }

    /// How many samples `id` has recorded in all, including those the window dropped.
    pub fn total_recorded(&self, id: SystemId) -> u64 {
        self.records.get(id.index()).map_or(0, |it| it.total)
    }
}

/// Whether `nanos` is at least [`CRITICAL_MULTIPLIER`] times `budget`, exactly:
/// `nanos >= 3 * raw * 1e6 / 65536`, compared without division.
fn is_critical(nanos: u64, budget: Budget) -> bool {
    let raw = u128::from(budget.raw().max(0).unsigned_abs());
    u128::from(nanos) * 65536 >= u128::from(CRITICAL_MULTIPLIER) * raw * 1_000_000
}

/// Nearest-rank percentile over `samples`: sort, rank `ceil(p·n/100)` clamped to at least 1.
fn percentile(samples: &[u64], p: usize) -> u64 {
    if samples.is_empty() {
        return 0;
    }
    let mut sorted = [0u64; WINDOW_SAMPLES];
    let sorted = &mut sorted[..samples.len()];
    sorted.copy_from_slice(samples);
    sorted.sort_unstable();
    let rank = (p * samples.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

/// What a budget event reports; `p99_ms` and `window_samples` come from `window`.
#[derive(Clone, Copy)]
struct Breach<'a> {
    system: SystemRef,
    measured_ms: f64,
    budget_ms: f64,
    /// The window, this run included.
    window: &'a [u64],
}

impl Breach<'_> {
    /// The window's p99; computed only for an event the rate limiter lets out.
    fn p99_ms(&self) -> f64 {
        percentile(self.window, 99) as f64 / 1e6
    }
}

/// A budget event: a run over budget, or at least [`CRITICAL_MULTIPLIER`] times over. The
/// messages follow the contract's five-field grammar, whose first field is the event name.
#[derive(Clone, Copy)]
enum BudgetEvent<'a> {
    Overrun(Breach<'a>),
    Critical(Breach<'a>),
}

laige_diag::diagnostics! {
    BudgetEvent<'a> in System;
    Overrun(it) => warn budget_overrun {
        system = it.system.name, id = it.system.id.get(), measured_ms = it.measured_ms,
        budget_ms = it.budget_ms, p99_ms = it.p99_ms(), window_samples = it.window.len(),
    }
    |f| write!(
        f,
        "budget_overrun | system {} ran {} ms | its budget is {} ms | optimise it, split it, or \
         raise its budget | docs/api/system_timing.md",
        it.system, it.measured_ms, it.budget_ms
    );
    Critical(it) => error budget_critical {
        system = it.system.name, id = it.system.id.get(), measured_ms = it.measured_ms,
        budget_ms = it.budget_ms, p99_ms = it.p99_ms(), window_samples = it.window.len(),
    }
    |f| write!(
        f,
        "budget_critical | system {} ran {} ms | that is at least {CRITICAL_MULTIPLIER}x its \
         budget of {} ms | profile it before it eats the frame | docs/api/system_timing.md",
        it.system, it.measured_ms, it.budget_ms
    );
}

#[cfg(test)]
mod tests {
    use super::{Budget, is_critical, percentile};

    #[test]
    fn critical_is_exact_at_three_times_the_budget() {
        let half_ms = Budget::from_raw(32768);
        assert!(is_critical(1_500_000, half_ms));
        assert!(!is_critical(1_499_999, half_ms));
        // 1 raw step is 15.2587890625 ns: 3x is 45.7763671875 ns.
        assert!(is_critical(46, Budget::from_raw(1)));
        assert!(!is_critical(45, Budget::from_raw(1)));
    }

    #[test]
    fn nearest_rank_percentile() {
        assert_eq!(percentile(&[], 99), 0);
        assert_eq!(percentile(&[5], 99), 5);
        let samples: Vec<u64> = (1..=64).rev().collect();
        assert_eq!(percentile(&samples, 99), 64);
        assert_eq!(percentile(&samples, 50), 32);
        // 55..=64: rank ceil(90·10/100) = 9 is 63.
        assert_eq!(percentile(&samples[..10], 90), 63);
    }
}

/// Renders the timing of the systems in `order` as an aligned table: runs, last, p99,
/// budget, overruns (runs over budget) and critical runs (3x budget or more).
#[derive(Debug)]
pub struct TimingTable<'a, R> {
    timing: &'a Timing,
    registry: &'a laige_registry::Registry<R>,
    order: &'a [SystemId],
}

impl<'a, R> TimingTable<'a, R> {
    /// A table of `order`'s systems (usually a schedule's order).
    pub fn new(
        timing: &'a Timing,
        registry: &'a laige_registry::Registry<R>,
        order: &'a [SystemId],
    ) -> Self {
        Self {
            timing,
            registry,
            order,
        }
    }
}

impl<R> fmt::Display for TimingTable<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| format!("{:.4}", d.as_secs_f64() * 1e3);
        let mut table = laige_diag::TextTable::new(&[
            "system",
            "runs",
            "last ms",
            "p99 ms",
            "budget ms",
            "overruns",
            "critical",
        ]);
        for &id in self.order {
            let (Ok(record), Some(stats)) = (self.registry.get(id), self.timing.stats(id)) else {
                continue;
            };
            table.row(vec![
                record.name().to_owned(),
                stats.runs.to_string(),
                ms(stats.last),
                ms(stats.p99),
                format!("{:.4}", record.budget().as_millis_f64()),
                stats.warns.to_string(),
                stats.errors.to_string(),
            ]);
        }
        table.fmt(f)
    }
}
