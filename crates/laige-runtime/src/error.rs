//! Why a runtime cannot be built or steered.

use std::fmt;

use laige_runner::RunError;
use laige_scheduler::ScheduleError;
use laige_world::WorldError;

/// Why [`Runtime::new`](crate::Runtime::new) or a runtime call refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The base tick rate is 0.
    ZeroTickRate,
    /// The minimum tick rate of the overload ladder is 0 or above the base rate.
    MinTickRate {
        /// The base rate.
        tick_rate: u32,
        /// The minimum asked for.
        min_tick_rate: u32,
    },
    /// A tick-rate multiplier of the overload ladder is below 2, or not above the one
    /// before it.
    Multipliers {
        /// The multipliers given.
        multipliers: Vec<u32>,
    },
    /// The time resources could not be inserted into the world.
    Resource(WorldError),
    /// The world's systems cannot be scheduled.
    Schedule(ScheduleError),
    /// The schedule cannot run on the world (stale or malformed); nothing ran.
    Prepare(RunError),
    /// A level was confirmed for a tick that already ran.
    ConfirmedTooLate {
        /// The tick the confirmation named.
        tick: u64,
        /// The next tick the runtime will run.
        next_tick: u64,
    },
    /// More level confirmations are pending than the runtime keeps.
    TooManyConfirmations {
        /// How many it keeps.
        capacity: usize,
    },
    /// `RuntimeOptions::frame_track` names no track of the world's layout.
    UnknownFrameTrack {
        /// The track asked for.
        track: &'static str,
        /// The layout's tracks (none without a layout).
        tracks: Vec<&'static str>,
    },
    /// A frame system declares a write of a component or resource a fixed-rate system
    /// touches, or that the state hash covers: frames differ between peers and runs, so
    /// that write would reach the fixed ticks' state.
    FrameWritesFixedState {
        /// The frame system.
        system: &'static str,
        /// What it writes.
        component: &'static str,
        /// The fixed-rate system that touches it; `None` when it is hashed.
        fixed: Option<&'static str>,
    },
    /// A system id the world does not know.
    UnknownSystem {
        /// The id's number.
        id: u32,
        /// How many systems the world has.
        systems: usize,
    },
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroTickRate => f.write_str(
                "the runtime's tick rate is 0; set `RuntimeOptions::tick_rate` to the ticks per \
                 second to run (60 by default)",
            ),
            Self::MinTickRate {
                tick_rate,
                min_tick_rate,
            } => write!(
                f,
                "the overload ladder's minimum tick rate {min_tick_rate} Hz is not within 1..={tick_rate} \
                 (the base rate); set `OverloadOptions::min_tick_rate` between them"
            ),
            Self::Multipliers { multipliers } => write!(
                f,
                "the overload ladder's tick-rate multipliers {multipliers:?} must each be at least \
                 2 and rise strictly; set `OverloadOptions::multipliers` like the default [2, 3, 4, 6]"
            ),
            Self::Resource(err) => write!(
                f,
                "the runtime could not insert its time resources (`FixedTime`, `FrameTime`): {err}"
            ),
            Self::Schedule(err) => {
                write!(f, "the runtime cannot schedule the world's systems: {err}")
            }
            Self::Prepare(err) => {
                write!(f, "the runtime's schedule cannot run on its world: {err}")
            }
            Self::ConfirmedTooLate { tick, next_tick } => write!(
                f,
                "an overload level was confirmed for tick {tick}, which already ran (the next tick \
                 is {next_tick}); confirm a level for a tick at least {next_tick}, as every peer must"
            ),
            Self::TooManyConfirmations { capacity } => write!(
                f,
                "{capacity} overload level confirmations are already pending; run the ticks they \
                 name before confirming more"
            ),
            Self::UnknownFrameTrack { track, tracks } => write!(
                f,
                "the frame track `{track}` is not a track of the world's layout (tracks: {tracks:?}); \
                 place the frame systems in a track of their own with `Layout::dag({track:?}, ..)` \
                 and `World::set_layout`, or name one of those in `RuntimeOptions::frame_track`"
            ),
            Self::FrameWritesFixedState {
                system,
                component,
                fixed: Some(fixed),
            } => write!(
                f,
                "frame system `{system}` writes `{component}`, which fixed-rate system `{fixed}` \
                 touches: frames are not lockstep inputs, so the fixed ticks would depend on them; \
                 write render-only state in the frame schedule, or move `{system}` into a fixed track"
            ),
            Self::FrameWritesFixedState {
                system,
                component,
                fixed: None,
            } => write!(
                f,
                "frame system `{system}` writes `{component}`, which the state hash covers: frames \
                 are not lockstep inputs, so the hash would depend on them; register `{component}` \
                 unhashed, or move `{system}` into a fixed track"
            ),
            Self::UnknownSystem { id, systems } => write!(
                f,
                "system id {id} is not registered (the world has {systems} systems); use the id \
                 the world's builder returned"
            ),
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Resource(err) => Some(err),
            Self::Schedule(err) => Some(err),
            Self::Prepare(err) => Some(err),
            _ => None,
        }
    }
}
