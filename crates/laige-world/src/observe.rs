//! Opt-in observers of a tick: the [`Timeline`] and the [`ChecksumRecord`], and, with the
//! `tracing-spans` cargo feature, one `tracing` span around every system run.
//!
//! `World::run_systems` calls in here once per tick and once per track; a system run goes
//! through [`in_system_span`]. With nothing recording, a track costs four `Option` checks
//! and a tick three; without the feature, the span wrapper compiles to the bare call.

use laige_registry::SystemId;
use laige_scheduler::Schedule;

use laige_record::{ChecksumRecord, Timeline};

use crate::observers::MAX_RECORDED_TICKS;
use crate::{SkipReason, World};

impl World {
    /// Records a timeline of the next ticks, keeping the last `ticks` of them (at least 1,
    /// at most [`MAX_RECORDED_TICKS`]):
    /// per system its thread and start and end time, per track its span, its barrier and
    /// its command application. Export it with [`Timeline::to_chrome_trace`] and open it in
    /// Perfetto. Calling it again starts a fresh timeline.
    ///
    /// Times come from the world's clock ([`WorldOptions::clock`](crate::WorldOptions::clock)),
    /// on the sequential runner and the executor alike; recording reads it at every system
    /// boundary even with timing off. The buffers are sized on the next tick (and again when
    /// the schedule changes, which drops the ticks recorded so far); after that a recorded
    /// tick allocates nothing.
    pub fn record_timeline(&mut self, ticks: usize) {
        let clock = self.runtime.clock().clone();
        self.observers.timeline = Some(Timeline::new(ticks.min(MAX_RECORDED_TICKS), clock));
        self.runtime.keep_spans(true);
    }

    /// The timeline being recorded, if any.
    pub fn timeline(&self) -> Option<&Timeline> {
        self.observers.timeline.as_ref()
    }

    /// The timeline being recorded, mutably: for a layer above that adds per-tick counter
    /// tracks ([`Timeline::counter_track`]).
    pub fn timeline_mut(&mut self) -> Option<&mut Timeline> {
        self.observers.timeline.as_mut()
    }

    /// Stops recording the timeline and returns it.
    pub fn take_timeline(&mut self) -> Option<Timeline> {
        self.runtime.keep_spans(false);
        self.observers.timeline.take()
    }

    /// Records checksums of the next ticks, keeping the last `ticks` of them (at least 1, at
    /// most [`MAX_RECORDED_TICKS`]):
    /// per tick the state hash, and per system the checksum of each component it declares
    /// as a write, in the tables it may touch, after its track. Compare two records with
    /// [`ChecksumRecord::first_desync`]. Calling it again starts a fresh record.
    ///
    /// Costs one pass over every written column per tick plus a state hash; the rows are
    /// reserved on the next tick (and again when the schedule changes, which drops the
    /// ticks recorded so far), so a recorded tick allocates nothing.
    pub fn record_checksums(&mut self, ticks: usize) {
        self.observers.checksums = Some(ChecksumRecord::new(ticks.min(MAX_RECORDED_TICKS)));
    }

    /// The checksum record being kept, if any.
    pub fn checksums(&self) -> Option<&ChecksumRecord> {
        self.observers.checksums.as_ref()
    }

    /// Stops recording checksums and returns the record.
    pub fn take_checksums(&mut self) -> Option<ChecksumRecord> {
        self.observers.checksums.take()
    }

    /// How many ticks [`World::run_systems`] has run (a tick whose schedule was refused
    /// does not count): the number the next tick records under.
    pub fn ticks_run(&self) -> u64 {
        self.observers.tick
    }

    /// Opens tick `self.observers.tick` in the recorders. The checks are inlined into
    /// `run_systems` and the work is not, so a tick with nothing recording stays as it was.
    #[inline]
    pub(crate) fn observe_tick_start(&mut self, schedule: &Schedule) {
        if self.observers.active() {
            self.begin_recorded_tick(schedule);
        }
    }

    /// Before a track's first system.
    #[inline]
    pub(crate) fn observe_track_start(&mut self) {
        if let Some(timeline) = &mut self.observers.timeline {
            timeline.mark_start();
        }
    }

    /// After a track's last system returned, before its panics are settled.
    #[inline]
    pub(crate) fn observe_track_ran(&mut self) {
        if let Some(timeline) = &mut self.observers.timeline {
            timeline.mark_ran();
        }
    }

    /// Records track `t` after its commands were applied.
    #[inline]
    pub(crate) fn observe_track(&mut self, t: usize) {
        if self.observers.active() {
            self.record_track(t);
        }
    }

    /// Closes the tick: the state hash for the checksums, and the tick count.
    #[inline]
    pub(crate) fn observe_tick_end(&mut self) {
        if self.observers.active() {
            self.end_recorded_tick();
        }
        self.observers.tick += 1;
    }

    /// Lays out the recorders' rows for `schedule` ahead of its first tick
    /// ([`World::prepare_schedule`]).
    pub(crate) fn prepare_observers(&mut self, schedule: &Schedule) {
        if let Some(timeline) = &mut self.observers.timeline {
            timeline.prepare(schedule, &self.registry);
        }
        if let Some(checksums) = &mut self.observers.checksums {
            checksums.prepare(schedule, &self.registry);
        }
    }

    #[inline(never)]
    fn begin_recorded_tick(&mut self, schedule: &Schedule) {
        let tick = self.observers.tick;
        if let Some(timeline) = &mut self.observers.timeline {
            timeline.begin_tick(schedule, &self.registry, tick);
        }
        if let Some(checksums) = &mut self.observers.checksums {
            checksums.begin_tick(schedule, &self.registry, tick);
        }
    }

    #[inline(never)]
    fn record_track(&mut self, t: usize) {
        if let Some(timeline) = &mut self.observers.timeline {
            let runtime = &self.runtime;
            timeline.record_track(t, |id: SystemId| runtime.last_span(id));
        }
        if let Some(checksums) = &mut self.observers.checksums {
            checksums.record_track(t, &mut self.storage);
        }
        // Skips are rare: only a tick with any looks them up.
        if self.runtime.gate.is_active() {
            let gate = &self.runtime.gate;
            let skip_of = |id: SystemId| {
                let (status, cause) = gate.status(id.index());
                SkipReason::from_code(status, cause).map(SkipReason::token)
            };
            if let Some(timeline) = &mut self.observers.timeline {
                timeline.record_skips(t, skip_of);
            }
            if let Some(checksums) = &mut self.observers.checksums {
                checksums.record_skips(t, skip_of);
            }
        }
    }

    #[inline(never)]
    fn end_recorded_tick(&mut self) {
        if self.observers.checksums.is_some() {
            let hash = self.state_hash();
            if let Some(checksums) = &mut self.observers.checksums {
                checksums.end_tick(hash);
            }
        }
    }
}
