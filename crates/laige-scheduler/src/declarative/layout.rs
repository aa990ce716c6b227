//! Tracks, DAGs and phases: the structure systems are placed into.
//!
//! A layout has a track or two, a few DAGs and a handful of phases each, so its lists are
//! `SmallVec`s: built at setup, they stay inline unless a layout is unusually large.

use smallvec::SmallVec;

/// The phases of one DAG, inline up to four.
pub type Phases = SmallVec<[&'static str; 4]>;

/// One DAG: an independent dependency graph with its own ordered phases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DagDecl {
    /// The track the DAG belongs to.
    pub track: &'static str,
    /// The DAG's name, unique in the layout.
    pub name: &'static str,
    /// The phases, in execution order.
    pub phases: Phases,
    /// The phase of systems that name none.
    pub default_phase: &'static str,
}

/// The Track → DAG → Phase hierarchy of a declarative schedule.
///
/// Tracks run in strict order, each a barrier; they are created in order of first mention.
/// The DAGs inside a track are independent graphs and may run concurrently. Each DAG has
/// its own ordered phases and a default phase. Systems that name no DAG go to the first.
///
/// ```
/// use laige_scheduler::Layout;
/// let layout = Layout::new()
///     .dag("Main", "Game", &["Input", "Simulation", "Output"], "Simulation")
///     .dag("Main", "Audio", &["Mix"], "Mix")
///     .dag("Late", "Net", &["Send"], "Send");
/// assert_eq!(layout.tracks(), ["Main", "Late"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    tracks: SmallVec<[&'static str; 2]>,
    dags: SmallVec<[DagDecl; 2]>,
}

impl Layout {
    /// An empty layout.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a DAG to `track` (creating the track after the existing ones if it is new).
    /// The layout is validated when a schedule is built from it.
    pub fn dag(
        mut self,
        track: &'static str,
        name: &'static str,
        phases: &[&'static str],
        default_phase: &'static str,
    ) -> Self {
        if !self.tracks.contains(&track) {
            self.tracks.push(track);
        }
        self.dags.push(DagDecl {
            track,
            name,
            phases: Phases::from_slice(phases),
            default_phase,
        });
        self
    }

    /// The tracks, in execution order.
    pub fn tracks(&self) -> &[&'static str] {
        &self.tracks
    }

    /// The DAGs, in declaration order.
    pub fn dags(&self) -> &[DagDecl] {
        &self.dags
    }

    pub(crate) fn track_of(&self, dag: usize) -> usize {
        let track = self.dags[dag].track;
        self.tracks
            .iter()
            .position(|&t| t == track)
            .expect("every DAG's track is listed")
    }
}
