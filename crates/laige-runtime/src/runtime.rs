//! The runtime: a World, its schedule, a metronome, the overload ladder and the telemetry.

use std::time::Duration;

use laige_executor::ExecutorOptions;
use laige_registry::SystemId;
use laige_scheduler::Schedule;
use laige_world::{SkipReason, SystemOutcome, TickError, World};

use crate::clock::{Metronome, Waiter};
use crate::options::interval_of;
use crate::overload::{Detector, Verdict};
use crate::{
    FixedTime, FrameTime, OverloadLevel, RuntimeError, RuntimeOptions, SystemPolicy,
    SystemTelemetry, Telemetry, TickTelemetry,
};

/// How many level confirmations a lockstep runtime keeps pending.
pub const MAX_PENDING_CONFIRMATIONS: usize = 16;

/// Runs a World's schedule at a fixed rate: in real time ([`Runtime::run_frame`]) or one
/// tick at a time ([`Runtime::step`]), both through the same tick.
///
/// ```
/// use std::sync::Arc;
/// use laige_diag::ManualClock;
/// use laige_runtime::{FixedTime, Runtime, RuntimeClock, RuntimeOptions};
/// use laige_world::{Res, World};
///
/// let manual = Arc::new(ManualClock::default());
/// let mut world = World::default();
/// Runtime::install(&mut world).unwrap();
/// world
///     .system("Read", |time: Res<'_, FixedTime>| assert_eq!(time.dt.as_millis(), 10))
///     .register()
///     .unwrap();
/// let options = RuntimeOptions { tick_rate: 100, clock: RuntimeClock::Manual(manual), ..RuntimeOptions::default() };
/// let mut runtime = Runtime::new(world, options).unwrap();
/// runtime.step().unwrap();
/// assert_eq!(runtime.ticks_run(), 1);
/// ```
#[derive(Debug)]
pub struct Runtime {
    world: World,
    schedule: Schedule,
    /// The frame schedule (`RuntimeOptions::frame_track`), run after a frame's fixed ticks.
    frame_schedule: Option<Schedule>,
    options: RuntimeOptions,
    waiter: Waiter,
    metronome: Metronome,
    /// The next tick's number.
    tick: u64,
    frame: u64,
    last_frame: Duration,
    level: OverloadLevel,
    proposed: OverloadLevel,
    highest: OverloadLevel,
    detector: Detector,
    lockstep: bool,
    /// Confirmed `(tick, level)` pairs not applied yet, in the order confirmed.
    pending: [(u64, OverloadLevel); MAX_PENDING_CONFIRMATIONS],
    pending_len: usize,
    policies: Vec<SystemPolicy>,
    telemetry: Telemetry,
}

/// What one [`Runtime::run_frame`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameSummary {
    /// Fixed ticks run.
    pub ticks: u32,
    /// Ticks that were due and dropped to end a backlog.
    pub dropped: u64,
}

impl Runtime {
    /// Inserts the runtime's time resources ([`FixedTime`], hashed, and [`FrameTime`]), so
    /// systems registered afterwards may declare `.reads::<FixedTime>()` or take
    /// `Res<FixedTime>`. [`Runtime::new`] calls it too; call it first when systems read them.
    ///
    /// # Errors
    ///
    /// The world's, when a component of those types is registered.
    pub fn install(world: &mut World) -> Result<(), RuntimeError> {
        if !world.has_resource::<FixedTime>() {
            let time = FixedTime {
                tick: 0,
                dt: RuntimeOptions::default().interval(),
                multiplier: 1,
            };
            world
                .insert_hashed_resource(time)
                .map_err(RuntimeError::Resource)?;
        }
        if !world.has_resource::<FrameTime>() {
            world
                .insert_resource(FrameTime::default())
                .map_err(RuntimeError::Resource)?;
        }
        Ok(())
    }

    /// A runtime over `world`, scheduling its systems now ([`World::schedule`]); the first
    /// tick is due at once. Sets the world's executor from `options.workers`, and measures
    /// the sleep threshold of a real clock (a few milliseconds).
    ///
    /// # Errors
    ///
    /// Invalid options, the resources, or a schedule that cannot be computed or prepared.
    pub fn new(mut world: World, options: RuntimeOptions) -> Result<Self, RuntimeError> {
        validate(&options)?;
        Self::install(&mut world)?;
        let (schedule, frame_schedule) = split_frame(&world, &options)?;
        if options.workers > 0 {
            world.use_executor(ExecutorOptions {
                threads: options.workers,
                ..ExecutorOptions::default()
            });
        } else {
            world.use_sequential();
        }
        world
            .prepare_schedule(&schedule)
            .map_err(RuntimeError::Prepare)?;
        // Telemetry names the worker that ran each system.
        if options.system_telemetry {
            world.keep_system_spans(true);
        }
        let waiter = Waiter::start(&options.clock);
        let metronome = Metronome::new(waiter.now());
        let highest = OverloadLevel::highest(&options.overload, options.tick_rate);
        let systems = world.registry().len();
        let rows = if options.system_telemetry { systems } else { 0 };
        let telemetry = Telemetry::new(options.telemetry_ticks, rows);
        let mut runtime = Self {
            world,
            schedule,
            frame_schedule,
            waiter,
            metronome,
            tick: 0,
            frame: 0,
            last_frame: Duration::ZERO,
            level: OverloadLevel::NORMAL,
            proposed: OverloadLevel::NORMAL,
            highest,
            detector: Detector::new(highest),
            lockstep: false,
            pending: [(0, OverloadLevel::NORMAL); MAX_PENDING_CONFIRMATIONS],
            pending_len: 0,
            policies: vec![SystemPolicy::default(); systems],
            telemetry,
            options,
        };
        runtime.last_frame = runtime.waiter.now();
        runtime.write_fixed_time();
        Ok(runtime)
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, mutably: for setup between ticks. Registering systems makes the schedule
    /// stale; call [`Runtime::reschedule`] after.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// Gives the world back.
    pub fn into_world(self) -> World {
        self.world
    }

    /// The schedule the fixed ticks run.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Schedules the world's systems again, after registrations through
    /// [`Runtime::world_mut`]; new systems get the default [`SystemPolicy`].
    ///
    /// # Errors
    ///
    /// As [`World::schedule`] and [`World::prepare_schedule`]; the old schedule stays.
    pub fn reschedule(&mut self) -> Result<(), RuntimeError> {
        let (schedule, frame_schedule) = split_frame(&self.world, &self.options)?;
        self.world
            .prepare_schedule(&schedule)
            .map_err(RuntimeError::Prepare)?;
        self.schedule = schedule;
        self.frame_schedule = frame_schedule;
        let systems = self.world.registry().len();
        self.policies.resize(systems, SystemPolicy::default());
        let rows = if self.options.system_telemetry {
            systems
        } else {
            0
        };
        self.telemetry = Telemetry::new(self.options.telemetry_ticks, rows);
        Ok(())
    }

    /// The frame schedule, when `RuntimeOptions::frame_track` names one.
    pub fn frame_schedule(&self) -> Option<&Schedule> {
        self.frame_schedule.as_ref()
    }

    /// The options the runtime was built with.
    pub fn options(&self) -> &RuntimeOptions {
        &self.options
    }

    /// How many fixed ticks ran: the next tick's number.
    pub fn ticks_run(&self) -> u64 {
        self.tick
    }

    /// The overload level ticks run at now.
    pub fn level(&self) -> OverloadLevel {
        self.level
    }

    /// The highest level the ladder can reach with these options.
    pub fn highest_level(&self) -> OverloadLevel {
        self.highest
    }

    /// The interval between ticks now: the base interval times the level's multiplier.
    pub fn interval(&self) -> Duration {
        interval_of(self.options.tick_rate) * self.multiplier()
    }

    fn multiplier(&self) -> u32 {
        self.level.multiplier(&self.options.overload)
    }

    /// The target time of the next tick on the runtime's clock.
    pub fn next_target(&self) -> Duration {
        self.metronome.next_target
    }

    /// The time on the runtime's clock since it started.
    pub fn now(&self) -> Duration {
        self.waiter.now()
    }

    /// The sleep threshold measured at start-up: waits shorter than this spin.
    pub fn spin_threshold(&self) -> Duration {
        self.waiter.spin_threshold()
    }

    /// How far the clock is into the interval after the last tick, in `[0, 1)`: what a
    /// renderer interpolates between the last two fixed states by.
    pub fn overstep_fraction(&self) -> f64 {
        self.metronome
            .overstep_fraction(self.waiter.now(), self.interval())
    }

    /// The telemetry ring.
    pub fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }

    /// Sets what the overload ladder may do to system `id`.
    ///
    /// # Errors
    ///
    /// [`RuntimeError::UnknownSystem`] when `id` is not registered.
    pub fn set_policy(
        &mut self,
        id: impl Into<SystemId>,
        policy: SystemPolicy,
    ) -> Result<(), RuntimeError> {
        let id = id.into();
        let systems = self.policies.len();
        let slot = self
            .policies
            .get_mut(id.index())
            .ok_or(RuntimeError::UnknownSystem {
                id: id.get(),
                systems,
            })?;
        *slot = policy;
        Ok(())
    }

    /// System `id`'s policy (the default for an unknown id).
    pub fn policy(&self, id: impl Into<SystemId>) -> SystemPolicy {
        self.policies
            .get(id.into().index())
            .copied()
            .unwrap_or_default()
    }

    /// Switches lockstep mode on or off. In lockstep mode the detector only proposes
    /// ([`Runtime::proposed_level`]); the level changes only on a tick a confirmation names
    /// ([`Runtime::confirm_level`]), so every peer that gets the same confirmations skips
    /// the same systems on the same ticks.
    pub fn set_lockstep(&mut self, on: bool) {
        self.lockstep = on;
    }

    /// Whether lockstep mode is on.
    pub fn is_lockstep(&self) -> bool {
        self.lockstep
    }

    /// The level the detector proposes from this runtime's measured load. Outside lockstep
    /// mode it is applied at the next tick; in lockstep mode, send it to the netcode, which
    /// decides a level and confirms it on every peer.
    pub fn proposed_level(&self) -> OverloadLevel {
        self.proposed
    }

    /// Confirms `level` for tick `tick` (lockstep mode): the tick numbered `tick` and those
    /// after it run at `level` (capped at [`Runtime::highest_level`]), on every peer given
    /// the same confirmation.
    ///
    /// # Errors
    ///
    /// [`RuntimeError::ConfirmedTooLate`] when `tick` already ran, or
    /// [`RuntimeError::TooManyConfirmations`] when [`MAX_PENDING_CONFIRMATIONS`] are pending.
    pub fn confirm_level(&mut self, tick: u64, level: OverloadLevel) -> Result<(), RuntimeError> {
        if tick < self.tick {
            return Err(RuntimeError::ConfirmedTooLate {
                tick,
                next_tick: self.tick,
            });
        }
        if self.pending_len == MAX_PENDING_CONFIRMATIONS {
            return Err(RuntimeError::TooManyConfirmations {
                capacity: MAX_PENDING_CONFIRMATIONS,
            });
        }
        self.pending[self.pending_len] = (tick, level.min(self.highest));
        self.pending_len += 1;
        Ok(())
    }

    /// Runs one fixed tick now, whatever the clock says, and moves the metronome's target
    /// on by one interval: how lockstep peers driven by the network, and tests, run ticks.
    ///
    /// # Errors
    ///
    /// The tick's error ([`World::run_systems`]); the tick still counts, and the rest of
    /// the world's systems ran as the failure policy says.
    pub fn step(&mut self) -> Result<TickTelemetry, TickError> {
        self.fixed_tick(0, 0)
    }

    /// One real-time frame: waits until the next tick is due, runs every tick due (back to
    /// back when behind, at most `1 + max_catch_up`; the older excess is dropped and
    /// reported), then updates [`FrameTime`].
    ///
    /// # Errors
    ///
    /// The first tick error; every due tick still ran.
    pub fn run_frame(&mut self) -> Result<FrameSummary, TickError> {
        self.waiter.wait_until(self.metronome.next_target);
        let due = self.metronome.due(
            self.waiter.now(),
            self.interval(),
            self.options.max_catch_up,
        );
        let mut first_error = None;
        for k in 0..due.run {
            let dropped = if k == 0 { due.dropped } else { 0 };
            if let Err(err) = self.fixed_tick(k, dropped) {
                first_error.get_or_insert(err);
            }
        }
        if let Err(err) = self.frame() {
            first_error.get_or_insert(err);
        }
        match first_error {
            Some(err) => Err(err),
            None => Ok(FrameSummary {
                ticks: due.run,
                dropped: due.dropped,
            }),
        }
    }

    /// Runs frames until `ticks` more fixed ticks ran (dropped ticks do not count).
    ///
    /// # Errors
    ///
    /// The first tick error; the ticks still ran.
    pub fn run_ticks(&mut self, ticks: u64) -> Result<(), TickError> {
        let end = self.tick + ticks;
        let mut first_error = None;
        while self.tick < end {
            if let Err(err) = self.run_frame() {
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Ends a frame now: updates [`FrameTime`] (the time since the last frame, the
    /// overstep fraction) and runs the frame schedule once, if there is one. [`Runtime::run_frame`]
    /// calls it after the due fixed ticks; a caller that steps ticks ([`Runtime::step`])
    /// calls it when it renders, as often as it likes: fixed ticks never depend on it.
    ///
    /// # Errors
    ///
    /// The frame pass's error ([`World::run_frame_systems`]); the rest of it ran.
    pub fn frame(&mut self) -> Result<(), TickError> {
        self.end_frame();
        match &self.frame_schedule {
            Some(frame) => self.world.run_frame_systems(frame),
            None => Ok(()),
        }
    }

    /// Updates [`FrameTime`] after a frame's fixed ticks.
    fn end_frame(&mut self) {
        let now = self.waiter.now();
        let frame = FrameTime {
            delta: now.saturating_sub(self.last_frame),
            overstep_fraction: self.overstep_fraction(),
            frame: self.frame,
        };
        self.last_frame = now;
        self.frame += 1;
        if let Ok(time) = self.world.resource_mut::<FrameTime>() {
            *time = frame;
        }
    }

    /// The one tick both paths run: the level decided at this boundary, the time resource,
    /// the systems, the measurement, the telemetry and the detector.
    fn fixed_tick(&mut self, catch_up: u32, dropped: u64) -> Result<TickTelemetry, TickError> {
        self.apply_level_at_boundary();
        self.write_fixed_time();
        let requested = self.request_skips();
        let interval = self.interval();
        let target = self.metronome.next_target;
        let start = self.waiter.now();
        let result = self.world.run_systems(&self.schedule);
        let actual = self.waiter.now().saturating_sub(start);
        self.metronome.advance(interval);
        let base = interval_of(self.options.tick_rate);
        let ratio = actual.as_secs_f64() / base.as_secs_f64();
        let record = TickTelemetry {
            tick: self.tick,
            target_nanos: nanos(target),
            start_nanos: nanos(start),
            target_duration_nanos: nanos(interval),
            actual_duration_nanos: nanos(actual),
            overrun_ratio: ratio,
            level: self.level,
            multiplier: self.multiplier(),
            active_workers: self.active_workers(),
            catch_up,
            dropped,
            // Counted per system below when the row has systems; else what is known here.
            skipped: requested,
            failed: u32::from(result.is_err()),
        };
        self.record(record);
        self.proposed = self
            .detector
            .observe(ratio, self.level, &self.options.overload);
        self.tick += 1;
        result.map(|()| record)
    }

    /// The level this tick runs at: the detector's proposal outside lockstep mode; in it,
    /// the last confirmation naming this tick or an earlier one.
    fn apply_level_at_boundary(&mut self) {
        if !self.lockstep {
            self.level = self.proposed;
            return;
        }
        let mut k = 0;
        while k < self.pending_len {
            let (tick, level) = self.pending[k];
            if tick <= self.tick {
                self.level = level;
                self.pending.copy_within(k + 1..self.pending_len, k);
                self.pending_len -= 1;
            } else {
                k += 1;
            }
        }
    }

    fn write_fixed_time(&mut self) {
        let time = FixedTime {
            tick: self.tick,
            dt: self.interval(),
            multiplier: self.multiplier(),
        };
        if let Ok(slot) = self.world.resource_mut::<FixedTime>() {
            *slot = time;
        }
    }

    /// Asks the World to skip what the level skips on this tick; returns how many.
    fn request_skips(&mut self) -> u32 {
        if self.level < OverloadLevel::THROTTLE {
            return 0;
        }
        let mut skipped = 0;
        for &id in self.schedule.order() {
            let policy = self.policies.get(id.index()).copied().unwrap_or_default();
            let reason = match policy.verdict(self.level, self.tick) {
                Verdict::Run => continue,
                Verdict::Throttled => SkipReason::Throttled,
                Verdict::Shed => SkipReason::Shed,
            };
            // Every scheduled system is registered (the schedule was prepared on this world).
            if self.world.skip_next_tick(id, reason).is_ok() {
                skipped += 1;
            }
        }
        skipped
    }

    fn active_workers(&self) -> u32 {
        self.world
            .executor()
            .map_or(1, |it| u32::try_from(it.threads()).unwrap_or(u32::MAX))
    }

    /// Writes the tick's row of the ring: the tick, then each scheduled system's duration,
    /// outcome and worker, in schedule order.
    fn record(&mut self, mut record: TickTelemetry) {
        let world = &self.world;
        let clock = &world.options().clock;
        let (tick, systems) = self.telemetry.next_row();
        let (mut skipped, mut failed) = (0, 0);
        for (slot, &id) in systems.iter_mut().zip(self.schedule.order()) {
            let outcome = world
                .tick_report()
                .system(id)
                .map_or(SystemOutcome::NotScheduled, |it| it.outcome);
            skipped += u32::from(matches!(outcome, SystemOutcome::Skipped(_)));
            let span = world.last_span(id);
            let ran = matches!(
                outcome,
                SystemOutcome::Ran | SystemOutcome::Failed | SystemOutcome::Panicked
            );
            failed += u32::from(matches!(
                outcome,
                SystemOutcome::Failed | SystemOutcome::Panicked
            ));
            *slot = SystemTelemetry {
                system: Some(id),
                duration_nanos: if ran {
                    clock.delta_as_nanos(span.start, span.end)
                } else {
                    0
                },
                outcome,
                worker: span.thread,
            };
        }
        if !systems.is_empty() {
            record.skipped = skipped;
            record.failed = failed;
        }
        *tick = record;
        if let Some(timeline) = self.world.timeline_mut() {
            counters(timeline, &record);
        }
    }
}

/// The tick's decisions and load as counter tracks of the world's timeline, so the Chrome
/// trace shows the ladder move above the threads.
#[cold]
fn counters(timeline: &mut laige_world::Timeline, record: &TickTelemetry) {
    let values = [
        ("overload level", f64::from(record.level.0)),
        ("tick multiplier", f64::from(record.multiplier)),
        ("overrun ratio", record.overrun_ratio),
        ("catch-up", f64::from(record.catch_up)),
        ("skipped systems", f64::from(record.skipped)),
    ];
    for (name, value) in values {
        if let Some(track) = timeline.counter_track(name) {
            timeline.set_counter(track, value);
        }
    }
}

/// The fixed schedule and, when `options.frame_track` names a track, the frame schedule
/// (that track alone), after checking that no frame system writes fixed-tick state.
fn split_frame(
    world: &World,
    options: &RuntimeOptions,
) -> Result<(Schedule, Option<Schedule>), RuntimeError> {
    let schedule = world.schedule().map_err(RuntimeError::Schedule)?;
    let Some(track) = options.frame_track else {
        return Ok((schedule, None));
    };
    let tracks = world.layout().map_or(&[][..], |it| it.tracks());
    let Some(frame_track) = tracks.iter().position(|&t| t == track) else {
        return Err(RuntimeError::UnknownFrameTrack {
            track,
            tracks: tracks.to_vec(),
        });
    };
    let fixed = schedule.select_tracks(|t| t != frame_track);
    let frame = schedule.select_tracks(|t| t == frame_track);
    check_frame_writes(world, &fixed, &frame)?;
    Ok((fixed, Some(frame)))
}

/// [`RuntimeError::FrameWritesFixedState`] for the first frame system (in schedule order)
/// that declares a write of something a fixed system touches or the state hash covers.
fn check_frame_writes(
    world: &World,
    fixed: &Schedule,
    frame: &Schedule,
) -> Result<(), RuntimeError> {
    let registry = world.registry();
    let name_of = |c| registry.component_name(c).name;
    for &f in frame.order() {
        let Ok(frame_system) = registry.get(f) else {
            continue;
        };
        for component in frame_system.writes().iter() {
            let toucher = fixed.order().iter().find_map(|&id| {
                registry
                    .get(id)
                    .ok()
                    .filter(|record| record.touches().contains(component))
            });
            let hashed = world
                .storage()
                .components()
                .info(component)
                .is_some_and(|info| info.is_hashed());
            if toucher.is_some() || hashed {
                return Err(RuntimeError::FrameWritesFixedState {
                    system: frame_system.name(),
                    component: name_of(component),
                    fixed: toucher.map(|it| it.name()),
                });
            }
        }
    }
    Ok(())
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

fn validate(options: &RuntimeOptions) -> Result<(), RuntimeError> {
    if options.tick_rate == 0 {
        return Err(RuntimeError::ZeroTickRate);
    }
    let overload = &options.overload;
    if overload.min_tick_rate == 0 || overload.min_tick_rate > options.tick_rate {
        return Err(RuntimeError::MinTickRate {
            tick_rate: options.tick_rate,
            min_tick_rate: overload.min_tick_rate,
        });
    }
    let rising = overload.multipliers.windows(2).all(|w| w[0] < w[1]);
    if !rising || overload.multipliers.iter().any(|&m| m < 2) {
        return Err(RuntimeError::Multipliers {
            multipliers: overload.multipliers.clone(),
        });
    }
    Ok(())
}
