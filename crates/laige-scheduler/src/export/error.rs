//! Why a schedule cannot be exported as a graph; each message names the fix.

use std::fmt;

use crate::{ScheduleError, SystemRef};

/// Why a schedule cannot be exported as a graph.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum ExportError {
    /// The schedule was built by hand: the scheduler proved none of its edges.
    HandBuilt,
    /// The schedule was computed from another registry, or before a registration.
    Stale {
        /// How many systems the schedule was computed for.
        scheduled_systems: usize,
        /// How many systems the registry has now.
        current_systems: usize,
        /// Whether the schedule comes from a different registry altogether.
        foreign: bool,
    },
    /// A flat export of a system that uses a feature only a layout gives meaning to.
    NeedsLayout {
        /// The first such system.
        system: SystemRef,
        /// The feature: `before`, `after_weak`, `in_dag`, `in_phase` or `exclusive_phase`.
        feature: &'static str,
    },
    /// The layout does not build with this registry.
    Layout(ScheduleError),
    /// The layout builds another schedule than the one given.
    LayoutMismatch {
        /// The first system placed, ordered or bound differently.
        system: SystemRef,
    },
    /// The layout builds as many systems into the same places, but another number of
    /// tracks.
    TrackCount {
        /// Tracks the layout builds.
        layout: usize,
        /// Tracks the schedule has.
        schedule: usize,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::HandBuilt => write!(
                f,
                "a hand-built schedule has no proven edges to draw: export a schedule from `schedule` or `schedule_declared`"
            ),
            ExportError::Stale { foreign: true, .. } => write!(
                f,
                "the schedule was computed from another registry: export it with the registry it came from"
            ),
            ExportError::Stale {
                scheduled_systems,
                current_systems,
                ..
            } => write!(
                f,
                "the schedule was computed for {scheduled_systems} systems but the registry now has {current_systems}: schedule again, then export"
            ),
            ExportError::NeedsLayout { system, feature } => write!(
                f,
                "{system} uses `{feature}`, which only a layout gives meaning to: export with the layout the schedule was built from"
            ),
            ExportError::Layout(err) => write!(f, "the layout does not build: {err}"),
            ExportError::LayoutMismatch { system } => write!(
                f,
                "the layout places or orders {system} differently from the schedule: export with the layout the schedule was built from, or with none for a flat schedule"
            ),
            ExportError::TrackCount { layout, schedule } => write!(
                f,
                "the layout builds {layout} tracks but the schedule has {schedule}: export with the layout the schedule was built from, or with none for a flat schedule"
            ),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::Layout(err) => Some(err),
            _ => None,
        }
    }
}
