//! `SystemTiming.*` (contract §8.3) cases that need no World, against the budget contract
//! of §5: healthy ticks, overrun and critical events with their fields and message grammar,
//! rate limiting (§4, 60 s window on a manual clock), the rolling 64-sample window,
//! exact thresholds, and timing switched off.
//!
//! Time is the test's: the runner times systems on the same [`ManualClock`] the limiter
//! reads, and a system "takes" 6.5 ms by advancing it. So every measured duration is exact,
//! whatever the machine, the load or valgrind does to real time, and no case needs a retry.
//!
//! Not here: `QueriesValidateIdsAndNoSystemsWorld` (the World validates ids against its
//! registry; only the timing table's own bound is tested), and
//! `HealthyTicksAllocateNothing`, which is in `no_alloc.rs`.

use std::sync::Arc;
use std::time::Duration;

use laige_diag::{Diagnostics, ManualClock, TickClock};
use laige_registry::{Budget, Registry, SystemDef, SystemId};
use laige_runner::{CRITICAL_MULTIPLIER, Runner, RunnerOptions, TimingStats, WINDOW_SAMPLES};
use laige_scheduler::Schedule;
use laige_testkit::{Event, capture, render_with_messages};

/// The doc anchor every budget event's message ends with.
const ANCHOR: &str = "docs/api/system_timing.md";

/// What the systems run on: how often each kind ran, whether `Toggle` is slow, and the
/// clock they spend time on.
#[derive(Debug)]
struct World {
    runs: u64,
    slow: bool,
    clock: Arc<ManualClock>,
}

impl World {
    fn new(clock: &Arc<ManualClock>) -> Self {
        Self {
            runs: 0,
            slow: false,
            clock: clock.clone(),
        }
    }

    /// Takes `duration` on the test's clock.
    fn spend(&mut self, duration: Duration) {
        self.clock.advance(duration);
    }
}

type Run = fn(&mut World);

fn cheap(world: &mut World) {
    world.runs += 1;
}

fn burn_6_5_ms(world: &mut World) {
    world.spend(Duration::from_micros(6500));
    world.runs += 1;
}

fn burn_7_ms(world: &mut World) {
    world.spend(Duration::from_millis(7));
    world.runs += 1;
}

/// Cheap, or 200 µs when the world says slow.
fn toggle(world: &mut World) {
    if world.slow {
        world.spend(SLOW);
    }
    world.runs += 1;
}

const SLOW: Duration = Duration::from_micros(200);

fn def(name: &'static str, run: Run, budget: Budget) -> SystemDef<Run> {
    SystemDef::new(name, run).budget(budget)
}

/// A registry of `defs` reporting through a 60 s window on a manual clock, and its schedule.
fn setup(
    defs: impl IntoIterator<Item = SystemDef<Run>>,
) -> (Registry<Run>, Schedule, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    let mut registry = Registry::with_diagnostics(Diagnostics::with_clock(
        Duration::from_secs(60),
        clock.clone(),
    ));
    for def in defs {
        registry.register(def).unwrap();
    }
    let schedule = laige_scheduler::schedule(&registry).unwrap();
    (registry, schedule, clock)
}

/// A runner with `options` timing systems on `clock`.
fn runner_on(clock: &Arc<ManualClock>, options: RunnerOptions) -> Runner {
    Runner::with_clock(options, TickClock::manual(clock.clone()))
}

/// A runner with timing on, timing systems on `clock`.
fn timed_runner(clock: &Arc<ManualClock>) -> Runner {
    runner_on(clock, RunnerOptions::default())
}

fn tick(runner: &mut Runner, schedule: &Schedule, registry: &Registry<Run>, world: &mut World) {
    runner
        .run(schedule, registry, &mut |_: SystemId, run: &Run| run(world))
        .unwrap();
}

fn sid(value: u32) -> SystemId {
    SystemId::new(value).unwrap()
}

fn stats(runner: &Runner, id: u32) -> TimingStats {
    runner.timing_stats(sid(id)).unwrap()
}

fn field<'e>(event: &'e Event, key: &str) -> &'e str {
    event
        .field(key)
        .unwrap_or_else(|| panic!("{} has no field {key}", event.name))
}

fn float_field(event: &Event, key: &str) -> f64 {
    field(event, key)
        .parse()
        .unwrap_or_else(|_| panic!("{key} of {} is not a number", event.name))
}

/// Asserts `event` is a budget event of `system` with exactly the §5 fields, and returns
/// its `measured_ms`.
#[track_caller]
fn assert_budget_event(
    event: &Event,
    name: &str,
    level: &str,
    system: &str,
    id: u32,
    budget_ms: f64,
    samples: usize,
) -> f64 {
    assert_eq!(event.name, format!("system/{name}"));
    assert_eq!(event.level, level);
    let keys: Vec<&str> = event.fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "budget_ms",
            "id",
            "measured_ms",
            "p99_ms",
            "system",
            "window_samples"
        ]
    );
    assert_eq!(field(event, "system"), system);
    assert_eq!(field(event, "id"), id.to_string());
    assert_eq!(float_field(event, "budget_ms"), budget_ms);
    assert_eq!(field(event, "window_samples"), samples.to_string());
    assert_grammar(event, name);
    float_field(event, "measured_ms")
}

/// The fixed 5-field message grammar (§5): `code | what | why | fix | anchor`.
#[track_caller]
fn assert_grammar(event: &Event, code: &str) {
    let parts: Vec<&str> = event.message.split(" | ").collect();
    assert_eq!(parts.len(), 5, "{:?}", event.message);
    assert!(
        parts
            .iter()
            .all(|p| !p.trim().is_empty() && !p.contains('|')),
        "{:?}",
        event.message
    );
    assert_eq!(parts[0], code);
    assert_eq!(parts[4], ANCHOR);
}

#[track_caller]
fn assert_summary(event: &Event, of: &str, suppressed: u64) {
    assert_eq!(event.name, "system/rate_limited");
    let fields: Vec<(&str, &str)> = event
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("event", of),
            ("suppressed", suppressed.to_string().as_str())
        ]
    );
}

/// `HealthyTicksLogNothingAndTrackStats`: 8 ticks, no event, runs 8, lastMs in [0, 1),
/// 8 samples in the window.
#[test]
fn healthy_ticks_log_nothing_and_track_stats() {
    let (registry, schedule, clock) = setup([def("Healthy", cheap, Budget::from_millis(5))]);
    let mut runner = timed_runner(&clock);
    let mut world = World::new(&clock);
    let ((), events) = capture(|| {
        for _ in 0..8 {
            tick(&mut runner, &schedule, &registry, &mut world);
        }
    });
    assert!(events.is_empty(), "{}", render_with_messages(&events));
    assert_eq!(world.runs, 8);
    let stats = stats(&runner, 1);
    assert_eq!(stats.runs, 8);
    assert_eq!(stats.last, Duration::ZERO, "a system that took no time");
    assert_eq!(stats.window_samples, 8);
    assert_eq!((stats.warns, stats.errors), (0, 0));
    assert_eq!(runner.timing().total_recorded(sid(1)), 8);
    assert_eq!(runner.timing().window(sid(1)).count(), 8);
    assert_eq!(stats.p99, Duration::ZERO);
}

/// `OverBudgetSystemWarnsAtTheDocumentedMultiplier`: 5 ms budget, 6.5 ms burn.
#[test]
fn over_budget_system_warns() {
    let (registry, schedule, clock) = setup([def("Burn", burn_6_5_ms, Budget::from_millis(5))]);
    let mut runner = timed_runner(&clock);
    let mut world = World::new(&clock);
    let ((), first) = capture(|| tick(&mut runner, &schedule, &registry, &mut world));
    let ((), second) = capture(|| tick(&mut runner, &schedule, &registry, &mut world));

    assert_eq!(first.len(), 1, "{}", render_with_messages(&first));
    let measured = assert_budget_event(&first[0], "budget_overrun", "warn", "Burn", 1, 5.0, 1);
    assert_eq!(measured, 6.5);
    assert_eq!(
        field(&first[0], "p99_ms"),
        field(&first[0], "measured_ms"),
        "one sample: p99 is it"
    );

    assert!(
        second.is_empty(),
        "inside the window: {}",
        render_with_messages(&second)
    );
    let stats = stats(&runner, 1);
    assert_eq!((stats.runs, stats.warns, stats.errors), (2, 2, 0));

    let ((), summary) = capture(|| registry.diagnostics().flush());
    assert_eq!(summary.len(), 1, "{}", render_with_messages(&summary));
    assert_summary(&summary[0], "budget_overrun", 1);
}

/// `CriticallyOverBudgetSystemErrorsAfterTheWarn`: 1 ms budget, 7 ms burn.
#[test]
fn critically_over_budget_system_errors_after_the_warn() {
    let (registry, schedule, clock) = setup([def("Critical", burn_7_ms, Budget::from_millis(1))]);
    let mut runner = timed_runner(&clock);
    let mut world = World::new(&clock);
    let ((), events) = capture(|| tick(&mut runner, &schedule, &registry, &mut world));

    assert_eq!(events.len(), 2, "{}", render_with_messages(&events));
    let warned = assert_budget_event(&events[0], "budget_overrun", "warn", "Critical", 1, 1.0, 1);
    let errored = assert_budget_event(
        &events[1],
        "budget_critical",
        "error",
        "Critical",
        1,
        1.0,
        1,
    );
    assert_eq!(warned, errored, "one measurement, two events");
    assert_eq!(warned, 7.0);
    let once = stats(&runner, 1);
    assert_eq!((once.runs, once.warns, once.errors), (1, 1, 1));
    assert_eq!(world.runs, 1, "an over-budget system still runs");

    // A second critical run: both events are suppressed, both counters count. At shutdown
    // each key gets its summary, in key-creation order, at the key's own severity (§4).
    let ((), events) = capture(|| tick(&mut runner, &schedule, &registry, &mut world));
    assert!(events.is_empty(), "{}", render_with_messages(&events));
    let again = stats(&runner, 1);
    assert_eq!((again.runs, again.warns, again.errors), (2, 2, 2));
    let ((), summaries) = capture(|| registry.diagnostics().flush());
    assert_eq!(summaries.len(), 2, "{}", render_with_messages(&summaries));
    assert_summary(&summaries[0], "budget_overrun", 1);
    assert_eq!(summaries[0].level, "warn");
    assert_summary(&summaries[1], "budget_critical", 1);
    assert_eq!(summaries[1].level, "error");
}

/// `EventsFollowTheErrorGrammar`: two 6.5 ms systems with budgets 5 and 2: a warn for the
/// first, an error for the second (whose own warn shares the first's key and is
/// suppressed), then at shutdown one summary for `budget_overrun`.
#[test]
fn events_follow_the_error_grammar() {
    let (registry, schedule, clock) = setup([
        def("BurnFive", burn_6_5_ms, Budget::from_millis(5)),
        def("BurnTwo", burn_6_5_ms, Budget::from_millis(2)),
    ]);
    let mut runner = timed_runner(&clock);
    let mut world = World::new(&clock);
    let ((), events) = capture(|| tick(&mut runner, &schedule, &registry, &mut world));

    assert_eq!(events.len(), 2, "{}", render_with_messages(&events));
    assert_budget_event(&events[0], "budget_overrun", "warn", "BurnFive", 1, 5.0, 1);
    assert_budget_event(&events[1], "budget_critical", "error", "BurnTwo", 2, 2.0, 1);
    assert_eq!((stats(&runner, 2).warns, stats(&runner, 2).errors), (1, 1));

    let ((), summary) = capture(|| registry.diagnostics().flush());
    assert_eq!(summary.len(), 1, "{}", render_with_messages(&summary));
    assert_summary(&summary[0], "budget_overrun", 1);
    assert_eq!(summary[0].level, "warn");
}

/// `RollingWindowDropsOldestSamples`: 50 ms budget; 3 x 64 fast ticks, 64 slow, 64 fast.
/// The window stays at 64 while the total keeps counting.
#[test]
fn rolling_window_drops_oldest_samples() {
    let (registry, schedule, clock) = setup([def("Toggle", toggle, Budget::from_millis(50))]);
    let mut runner = timed_runner(&clock);
    let mut world = World::new(&clock);
    let timing = |runner: &Runner| {
        let window: Vec<Duration> = runner.timing().window(sid(1)).collect();
        (
            window,
            runner.timing().total_recorded(sid(1)),
            stats(runner, 1).window_samples,
        )
    };

    let ((), events) = capture(|| {
        for _ in 0..3 * WINDOW_SAMPLES {
            tick(&mut runner, &schedule, &registry, &mut world);
        }
        let (window, total, samples) = timing(&runner);
        assert_eq!((window.len(), total, samples), (64, 192, 64));

        world.slow = true;
        for _ in 0..WINDOW_SAMPLES {
            tick(&mut runner, &schedule, &registry, &mut world);
        }
        let (window, total, samples) = timing(&runner);
        assert_eq!((window.len(), total, samples), (64, 256, 64));
        // Every fast sample is gone: the window holds the 64 slow runs only.
        assert!(window.iter().all(|&d| d == SLOW), "{window:?}");

        world.slow = false;
        for _ in 0..WINDOW_SAMPLES {
            tick(&mut runner, &schedule, &registry, &mut world);
        }
    });
    let (window, total, samples) = timing(&runner);
    assert_eq!((window.len(), total, samples), (64, 320, 64));
    assert_eq!(stats(&runner, 1).runs, 320);
    assert!(events.is_empty(), "{}", render_with_messages(&events));
    println!(
        "system-timing window ticks={} capacity={} total={total}",
        world.runs,
        window.len()
    );
}

/// Drop-oldest exactly, through the timing table's own entry point: after samples
/// 1..=n ns the window holds the last 64, oldest first, and p99 is the nearest rank.
#[test]
fn window_keeps_the_newest_samples_in_order() {
    let (registry, _schedule, _clock) = setup([def("Fed", cheap, Budget::from_millis(50))]);
    let record = registry.get(sid(1)).unwrap();
    let mut runner = Runner::new();
    for n in 1..=320u64 {
        runner
            .timing_mut()
            .observe(record, n, registry.diagnostics());
        let window: Vec<u64> = runner
            .timing()
            .window(sid(1))
            .map(|d| d.as_nanos() as u64)
            .collect();
        let oldest = n.saturating_sub(WINDOW_SAMPLES as u64) + 1;
        assert_eq!(window, (oldest..=n).collect::<Vec<_>>());
        let stats = stats(&runner, 1);
        assert_eq!(stats.runs, n);
        assert_eq!(stats.last, Duration::from_nanos(n));
        // Nearest rank: r = ceil(99 * len / 100), the r-th smallest.
        let len = window.len() as u64;
        let rank = (99 * len).div_ceil(100).max(1);
        assert_eq!(stats.p99, Duration::from_nanos(oldest + rank - 1));
    }
    assert_eq!(runner.timing().total_recorded(sid(1)), 320);
}

/// §5 thresholds, exactly: over budget is strictly greater (equality is fine); critical is
/// at least 3 x the budget. The counters count every breach even when the events are
/// suppressed. The 0.3 ms budget is not a whole number of nanoseconds
/// (raw 19661 = 300003.0517578125 ns).
#[test]
fn thresholds_are_exact() {
    let one_ms = Budget::from_millis(1);
    let point_three = Budget::from_millis_f32(0.3);
    assert_eq!(point_three.raw(), 19661);
    assert_eq!(CRITICAL_MULTIPLIER, 3);
    let cases: [(Budget, u64, u64, u64); 10] = [
        (one_ms, 1_000_000, 0, 0),
        (one_ms, 1_000_001, 1, 0),
        (one_ms, 2_999_999, 1, 0),
        (one_ms, 3_000_000, 1, 1),
        (point_three, 300_003, 0, 0),
        (point_three, 300_004, 1, 0),
        (point_three, 900_009, 1, 0),
        (point_three, 900_010, 1, 1),
        (Budget::from_raw(1), 45, 1, 0),
        (Budget::from_raw(1), 46, 1, 1),
    ];
    for (budget, nanos, warns, errors) in cases {
        let (registry, _schedule, _clock) = setup([def("Edge", cheap, budget)]);
        let mut runner = Runner::new();
        let record = registry.get(sid(1)).unwrap();
        let ((), events) = capture(|| {
            runner
                .timing_mut()
                .observe(record, nanos, registry.diagnostics())
        });
        let stats = stats(&runner, 1);
        assert_eq!(
            (stats.warns, stats.errors),
            (warns, errors),
            "{nanos} ns against {budget:?}"
        );
        assert_eq!(
            events.len() as u64,
            warns + errors,
            "{}",
            render_with_messages(&events)
        );
    }

    // Counters keep counting while the log is rate limited.
    let (registry, _schedule, _clock) = setup([def("Edge", cheap, one_ms)]);
    let mut runner = Runner::new();
    let record = registry.get(sid(1)).unwrap();
    let ((), events) = capture(|| {
        for _ in 0..5 {
            runner
                .timing_mut()
                .observe(record, 4_000_000, registry.diagnostics());
        }
    });
    assert_eq!(events.len(), 2, "{}", render_with_messages(&events));
    let stats = stats(&runner, 1);
    assert_eq!((stats.warns, stats.errors), (5, 5));
}

/// Timing off: systems run, nothing is recorded, nothing is reported; back on, it counts.
#[test]
fn timing_off_records_nothing() {
    let (registry, schedule, clock) = setup([def("Critical", burn_7_ms, Budget::from_millis(1))]);
    let mut runner = runner_on(&clock, RunnerOptions { timing: false });
    assert!(!runner.options().timing);
    let mut world = World::new(&clock);
    let ((), events) = capture(|| {
        for _ in 0..3 {
            tick(&mut runner, &schedule, &registry, &mut world);
        }
    });
    assert!(events.is_empty(), "{}", render_with_messages(&events));
    assert_eq!(world.runs, 3);
    let off = stats(&runner, 1);
    assert_eq!(
        (off.runs, off.window_samples, off.warns, off.errors),
        (0, 0, 0, 0)
    );
    assert_eq!(runner.timing().total_recorded(sid(1)), 0);

    runner.set_timing(true);
    tick(&mut runner, &schedule, &registry, &mut world);
    let on = stats(&runner, 1);
    assert_eq!((on.runs, on.warns, on.errors), (1, 1, 1));

    let mut off_again = timed_runner(&clock);
    off_again.set_timing(false);
    tick(&mut off_again, &schedule, &registry, &mut world);
    assert_eq!(stats(&off_again, 1).runs, 0);
    assert_eq!(world.runs, 5);
}

/// `TimingStateTravelsWithMove`, runner half: the timing table moves with its runner.
/// The table's own bound: an id past the 256 systems has no stats.
#[test]
fn timing_state_travels_with_the_runner() {
    let (registry, schedule, clock) = setup([def("Cheap", cheap, Budget::from_millis(50))]);
    let mut runner = timed_runner(&clock);
    let mut world = World::new(&clock);
    for _ in 0..3 {
        tick(&mut runner, &schedule, &registry, &mut world);
    }
    let before = stats(&runner, 1);
    let moved = runner;
    assert_eq!(stats(&moved, 1), before);
    assert_eq!(moved.timing().total_recorded(sid(1)), 3);

    assert_eq!(moved.timing_stats(sid(257)), None);
    assert_eq!(moved.timing().window(sid(257)).count(), 0);
    assert_eq!(moved.timing().total_recorded(sid(257)), 0);
}
