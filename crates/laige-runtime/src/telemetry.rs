//! Per-tick telemetry: a ring of the last ticks, sized once, written without allocating.

use std::fmt::Write as _;

use laige_registry::SystemId;
use laige_world::{SkipReason, SystemOutcome};

use crate::OverloadLevel;

/// One tick as the runtime saw it. Durations are measured (they differ between runs); the
/// tick number, level and multiplier are decisions (every lockstep peer has the same).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TickTelemetry {
    /// The tick number ([`FixedTime::tick`](crate::FixedTime::tick)).
    pub tick: u64,
    /// The tick's target time on the runtime's clock, in nanoseconds since it started.
    pub target_nanos: u64,
    /// When the tick started on the runtime's clock: its start minus its target is the
    /// start jitter (or the lateness of a catch-up tick).
    pub start_nanos: u64,
    /// The interval the tick was due in: the base interval times the multiplier.
    pub target_duration_nanos: u64,
    /// How long the tick took, systems and commands.
    pub actual_duration_nanos: u64,
    /// The actual duration over the base interval (the budget at 1x): what the ladder reads.
    pub overrun_ratio: f64,
    /// The overload level the tick ran at.
    pub level: OverloadLevel,
    /// The tick-rate multiplier it ran at.
    pub multiplier: u32,
    /// The threads that ran systems (1 on the sequential runner).
    pub active_workers: u32,
    /// Which tick of a catch-up run this was: 0 for a tick run on time, 1 for the first run
    /// back to back behind it, and so on.
    pub catch_up: u32,
    /// Ticks dropped (never run) just before this one, to end a backlog.
    pub dropped: u64,
    /// Systems skipped this tick, for any reason.
    pub skipped: u32,
    /// Systems that panicked or failed this tick.
    pub failed: u32,
}

/// How `outcome` reads in the JSON export: `ran`, `failed`, `panicked`, `not_scheduled`,
/// or the skip: `run_condition_false`, `events_empty`, `throttled`, `shed`,
/// `dependency_failed`, `aborted`.
pub fn outcome_name(outcome: SystemOutcome) -> &'static str {
    match outcome {
        SystemOutcome::Ran => "ran",
        SystemOutcome::Failed => "failed",
        SystemOutcome::Panicked => "panicked",
        SystemOutcome::Skipped(reason) => match reason {
            SkipReason::RunConditionFalse => "run_condition_false",
            SkipReason::EventsEmpty => "events_empty",
            SkipReason::Throttled => "throttled",
            SkipReason::Shed => "shed",
            SkipReason::DependencyFailed { .. } => "dependency_failed",
            SkipReason::Aborted => "aborted",
            _ => "skipped",
        },
        _ => "not_scheduled",
    }
}

/// One system on one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemTelemetry {
    /// The system.
    pub system: Option<SystemId>,
    /// How long it ran (0 when skipped, or when the world does not time systems).
    pub duration_nanos: u64,
    /// Whether it ran, failed or panicked, and if skipped, why (the World's tick report).
    pub outcome: SystemOutcome,
    /// The thread that ran it: 0 the calling thread, workers 1 and up.
    pub worker: u32,
}

impl SystemTelemetry {
    /// A slot no tick wrote yet.
    pub const EMPTY: Self = Self {
        system: None,
        duration_nanos: 0,
        outcome: SystemOutcome::NotScheduled,
        worker: 0,
    };
}

/// The last ticks' telemetry: per tick a [`TickTelemetry`], per tick and system a
/// [`SystemTelemetry`]. Both rings are allocated at creation; recording a tick writes in
/// place.
#[derive(Clone, Debug)]
pub struct Telemetry {
    ticks: Vec<TickTelemetry>,
    systems: Vec<SystemTelemetry>,
    /// Systems per tick row.
    width: usize,
    /// Ticks recorded in all; the ring holds the last `ticks.len()`.
    recorded: u64,
}

impl Telemetry {
    /// A ring of `capacity` ticks (at least 1), each with room for `systems` systems.
    pub(crate) fn new(capacity: usize, systems: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            ticks: vec![TickTelemetry::default(); capacity],
            systems: vec![SystemTelemetry::EMPTY; capacity * systems],
            width: systems,
            recorded: 0,
        }
    }

    /// How many ticks it keeps.
    pub fn capacity(&self) -> usize {
        self.ticks.len()
    }

    /// How many ticks it holds (at most its capacity).
    pub fn len(&self) -> usize {
        self.recorded.min(self.ticks.len() as u64) as usize
    }

    /// Whether it holds no tick.
    pub fn is_empty(&self) -> bool {
        self.recorded == 0
    }

    /// How many ticks were recorded in all, the dropped-off ones included.
    pub fn recorded(&self) -> u64 {
        self.recorded
    }

    fn slot(&self, index: u64) -> usize {
        (index % self.ticks.len() as u64) as usize
    }

    /// The ticks held, oldest first, each with its systems in schedule order.
    pub fn ticks(
        &self,
    ) -> impl ExactSizeIterator<Item = (&TickTelemetry, &[SystemTelemetry])> + '_ {
        let first = self.recorded - self.len() as u64;
        (0..self.len()).map(move |k| {
            let slot = self.slot(first + k as u64);
            (
                &self.ticks[slot],
                &self.systems[slot * self.width..(slot + 1) * self.width],
            )
        })
    }

    /// The last tick recorded.
    pub fn latest(&self) -> Option<(&TickTelemetry, &[SystemTelemetry])> {
        self.ticks().last()
    }

    /// The row the next tick is written to: its tick record and its systems' records.
    pub(crate) fn next_row(&mut self) -> (&mut TickTelemetry, &mut [SystemTelemetry]) {
        let slot = self.slot(self.recorded);
        self.recorded += 1;
        let width = self.width;
        (
            &mut self.ticks[slot],
            &mut self.systems[slot * width..(slot + 1) * width],
        )
    }

    /// The ticks held as JSON: `{"version":1,"ticks":[{...,"systems":[...]}]}`, each tick
    /// with the fields of [`TickTelemetry`] and its systems with those of
    /// [`SystemTelemetry`] (`system` is the id's number, `outcome` its
    /// [`outcome_name`]).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        out.push_str("{\"version\":1,\"ticks\":[");
        for (k, (tick, systems)) in self.ticks().enumerate() {
            if k > 0 {
                out.push(',');
            }
            // Writing to a `String` cannot fail.
            let _ = write!(
                out,
                "{{\"tick\":{},\"target_nanos\":{},\"start_nanos\":{},\"target_duration_nanos\":{},\
                 \"actual_duration_nanos\":{},\"overrun_ratio\":{},\"level\":{},\
                 \"multiplier\":{},\"active_workers\":{},\"catch_up\":{},\"dropped\":{},\
                 \"skipped\":{},\"failed\":{},\"systems\":[",
                tick.tick,
                tick.target_nanos,
                tick.start_nanos,
                tick.target_duration_nanos,
                tick.actual_duration_nanos,
                finite(tick.overrun_ratio),
                tick.level.0,
                tick.multiplier,
                tick.active_workers,
                tick.catch_up,
                tick.dropped,
                tick.skipped,
                tick.failed,
            );
            let mut first = true;
            for system in systems {
                let Some(id) = system.system else { continue };
                if !first {
                    out.push(',');
                }
                first = false;
                let _ = write!(
                    out,
                    "{{\"system\":{},\"duration_nanos\":{},\"outcome\":\"{}\",\"worker\":{}}}",
                    id.get(),
                    system.duration_nanos,
                    outcome_name(system.outcome),
                    system.worker
                );
            }
            out.push_str("]}");
        }
        out.push_str("]}");
        out
    }
}

/// `value`, or 0 when it is not finite (JSON has no NaN or infinity).
fn finite(value: f64) -> f64 {
    if value.is_finite() { value } else { 0.0 }
}
