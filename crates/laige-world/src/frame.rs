//! A frame pass: a schedule run once per real-time frame beside the fixed ticks (a
//! runtime's frame schedule, bevy's `Update` beside `FixedUpdate`), on the calling thread.

use laige_scheduler::Schedule;

use crate::{SystemHost, TickError, World};

impl World {
    /// Runs every system of `schedule` once as a *frame pass*: track by track on the
    /// calling thread, each track's commands applied after it, like a sequential tick, but
    /// not a tick: no snapshot refresh, no timeline or checksum row, no tick report, no
    /// failure policy (a failing frame system's commands are dropped, and the others run),
    /// and the executor's plan and the skips asked for the next tick are left alone.
    ///
    /// So the fixed ticks around it run exactly as without it, as long as the frame's
    /// systems write nothing a fixed system reads or the state hash covers (docs/api/runtime.md,
    /// "The frame schedule").
    ///
    /// # Errors
    ///
    /// A stale or malformed schedule (nothing ran), a panicking or failing system (the rest
    /// ran), or a failure to apply commands.
    pub fn run_frame_systems(&mut self, schedule: &Schedule) -> Result<(), TickError> {
        laige_runner::check(schedule, &self.registry)?;
        let mut first_error = None;
        for track in schedule.tracks() {
            let mut host = SystemHost::new(&mut self.storage, &self.registry, &mut self.systems);
            self.runtime
                .runner
                .run_checked(track, &self.registry, &mut host);
            if host.unsettled() > 0
                && let Some(err) = self.settle_track(track)
            {
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
