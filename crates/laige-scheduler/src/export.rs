//! Schedule graph export: a schedule, its registry and (for the declarative front end) its
//! layout as a graph of systems and caused edges, written as DOT, Mermaid or JSON.
//!
//! No edge is derived here a second time. The declarative edges are the ones
//! [`explain_declared`](crate::explain_declared) lists, from the same derivation; the flat
//! ones are the schedule's resolved `depends_on` edges and the `read_before_write` rule's
//! pairs; the order edges an executor adds for an access conflict use the same conflict
//! test as the declarative front end. Building a graph allocates; it runs at setup or debug
//! time, never on a tick.

mod build;
mod dot;
mod drawing;
mod error;
mod json;
mod mermaid;

pub use error::ExportError;

use laige_registry::{Budget, ComponentName, ComponentSet, Registry};

use crate::{DagDecl, EdgeCause, Layout, Schedule, SystemRef};

/// Why one system waits for another in a [`ScheduleGraph`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[non_exhaustive]
pub enum GraphCause {
    /// `later.after("earlier")`, or the flat front end's `depends_on`.
    After,
    /// `earlier.before("later")`.
    Before,
    /// `later.after_weak("earlier")`: binds only where their data overlap.
    AfterWeak,
    /// One of the two runs alone in its phase.
    Exclusive,
    /// `later` has `reads_fresh` of a component `earlier` writes in the same phase.
    Fresh(ComponentName),
    /// The two conflict on a component across phases; the earlier phase goes first.
    PhaseOrder(ComponentName),
    /// No drawn edge orders the two, but their declared access conflicts on the component,
    /// so an executor adds this edge in the schedule's direction.
    Conflict(ComponentName),
    /// The flat rules' `read_before_write` warning: `earlier` reads a component that
    /// `later` writes, so it sees last tick's value.
    ReadBeforeWrite(ComponentName),
}

impl GraphCause {
    /// The cause's token in the JSON form (`after`, `fresh`, `read_before_write`, ...).
    pub const fn token(self) -> &'static str {
        match self {
            GraphCause::After => "after",
            GraphCause::Before => "before",
            GraphCause::AfterWeak => "after_weak",
            GraphCause::Exclusive => "exclusive",
            GraphCause::Fresh(_) => "fresh",
            GraphCause::PhaseOrder(_) => "phase_order",
            GraphCause::Conflict(_) => "conflict",
            GraphCause::ReadBeforeWrite(_) => "read_before_write",
        }
    }

    /// The component behind the edge, for the causes that have one.
    pub const fn component(self) -> Option<ComponentName> {
        match self {
            GraphCause::Fresh(c)
            | GraphCause::PhaseOrder(c)
            | GraphCause::Conflict(c)
            | GraphCause::ReadBeforeWrite(c) => Some(c),
            GraphCause::After | GraphCause::Before | GraphCause::AfterWeak => None,
            GraphCause::Exclusive => None,
        }
    }

    /// Whether an executor keeps the edge whatever the data ([`EdgeCause::is_strong`]);
    /// the others order only data that overlap.
    pub const fn is_strong(self) -> bool {
        matches!(
            self,
            GraphCause::After | GraphCause::Before | GraphCause::Exclusive
        )
    }

    /// Sort key: edges of one pair list their causes in this order, and so does a legend.
    pub(crate) const fn rank(self) -> u8 {
        match self {
            GraphCause::After => 0,
            GraphCause::Before => 1,
            GraphCause::AfterWeak => 2,
            GraphCause::Exclusive => 3,
            GraphCause::Fresh(_) => 4,
            GraphCause::PhaseOrder(_) => 5,
            GraphCause::Conflict(_) => 6,
            GraphCause::ReadBeforeWrite(_) => 7,
        }
    }
}

impl From<EdgeCause> for GraphCause {
    fn from(cause: EdgeCause) -> Self {
        match cause {
            EdgeCause::After => GraphCause::After,
            EdgeCause::Before => GraphCause::Before,
            EdgeCause::AfterWeak => GraphCause::AfterWeak,
            EdgeCause::Exclusive => GraphCause::Exclusive,
            EdgeCause::Fresh(c) => GraphCause::Fresh(c),
            EdgeCause::PhaseOrder(c) => GraphCause::PhaseOrder(c),
        }
    }
}

/// One edge of a [`ScheduleGraph`]: `later` waits for `earlier` because of `cause`. A pair
/// may have two edges with different causes (an `after` that is also a read before write).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GraphEdge {
    /// The system that goes first.
    pub earlier: SystemRef,
    /// The system that waits.
    pub later: SystemRef,
    /// Why.
    pub cause: GraphCause,
}

/// One system of a [`ScheduleGraph`], with where it sits and what it declares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GraphSystem {
    /// Id and name.
    pub system: SystemRef,
    /// Its time budget.
    pub budget: Budget,
    /// Its 0-based position in the schedule's order.
    pub step: usize,
    /// Its track, an index into [`ScheduleGraph::tracks`].
    pub track: usize,
    /// Its DAG, an index into [`ScheduleGraph::dags`] (declarative only).
    pub dag: Option<usize>,
    /// Its phase, an index into its DAG's phases (declarative only).
    pub phase: Option<usize>,
    /// Whether it runs alone in its phase.
    pub exclusive: bool,
    /// Plain reads (without the fresh ones).
    pub reads: ComponentSet,
    /// `reads_fresh`.
    pub reads_fresh: ComponentSet,
    /// `reads_snapshot`.
    pub reads_snapshot: ComponentSet,
    /// Writes.
    pub writes: ComponentSet,
    /// The event queues it emits into.
    pub emits: ComponentSet,
}

/// One registered component: its id and name, and whether it keeps last tick's value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GraphComponent {
    /// Id and name (`""` when it has none).
    pub name: ComponentName,
    /// Whether `reads_snapshot` may read it.
    pub versioned: bool,
}

/// Which front end built the schedule a [`ScheduleGraph`] shows.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FrontEnd {
    /// [`schedule`](crate::schedule): `depends_on`, registration order, one writer.
    Flat,
    /// [`schedule_declared`](crate::schedule_declared): tracks, DAGs, phases, access.
    Declarative,
}

impl FrontEnd {
    /// `flat` or `declarative`.
    pub const fn token(self) -> &'static str {
        match self {
            FrontEnd::Flat => "flat",
            FrontEnd::Declarative => "declarative",
        }
    }
}

/// A schedule as a graph: systems clustered by track, DAG and phase, and every edge that
/// orders two of them with its cause. Written as DOT ([`ScheduleGraph::to_dot`]), Mermaid
/// ([`ScheduleGraph::to_mermaid`]) or versioned JSON ([`ScheduleGraph::to_json`]).
///
/// Everything is listed in ascending id (edges by earlier id, then later id, then cause),
/// so the output is a pure function of the registrations, the layout and the schedule.
///
/// ```
/// use laige_registry::{ComponentId, Registry, SystemDef};
/// use laige_scheduler::{GraphCause, ScheduleGraph, schedule};
///
/// fn noop(_: &mut ()) {}
/// let pos = ComponentId::new(1).unwrap();
/// let mut registry = Registry::new();
/// registry.register_component_info(pos, "Position", false);
/// let sys = |name| SystemDef::new(name, noop as fn(&mut ())).budget_ms(1.0);
/// registry.register(sys("Move").writes(pos)).unwrap();
/// registry.register(sys("Draw").reads(pos)).unwrap();
/// let schedule = schedule(&registry).unwrap();
///
/// let graph = ScheduleGraph::new(&schedule, &registry, None).unwrap();
/// // No declaration orders them; their access does.
/// assert_eq!(graph.edges()[0].cause.token(), "conflict");
/// assert!(graph.to_dot().contains("s1 -> s2"));
/// assert!(graph.to_json().contains("\"version\": 1"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleGraph {
    front_end: FrontEnd,
    order_hash: u64,
    tracks: Vec<&'static str>,
    dags: Vec<DagDecl>,
    components: Vec<GraphComponent>,
    systems: Vec<GraphSystem>,
    edges: Vec<GraphEdge>,
}

impl ScheduleGraph {
    /// The graph of `schedule`, computed from `registry`, in `layout` when it was built by
    /// the declarative front end (`World::layout()` gives it).
    ///
    /// # Errors
    ///
    /// [`ExportError`]: the schedule is hand built, or stale for `registry`; a flat export
    /// of systems that need a layout; a layout that does not build, or builds another
    /// schedule. No event is emitted: this explains, it does not schedule.
    pub fn new<R>(
        schedule: &Schedule,
        registry: &Registry<R>,
        layout: Option<&Layout>,
    ) -> Result<Self, ExportError> {
        build::build(schedule, registry, layout)
    }

    /// Which front end built the schedule.
    pub fn front_end(&self) -> FrontEnd {
        self.front_end
    }

    /// The schedule's [`Schedule::order_hash`].
    pub fn order_hash(&self) -> u64 {
        self.order_hash
    }

    /// The track names in run order (`""` for the flat front end's one track).
    pub fn tracks(&self) -> &[&'static str] {
        &self.tracks
    }

    /// The layout's DAGs in declaration order (none for the flat front end).
    pub fn dags(&self) -> &[DagDecl] {
        &self.dags
    }

    /// The registered components, ascending id.
    pub fn components(&self) -> &[GraphComponent] {
        &self.components
    }

    /// The systems, ascending id.
    pub fn systems(&self) -> &[GraphSystem] {
        &self.systems
    }

    /// The edges, by earlier id, then later id, then cause.
    pub fn edges(&self) -> &[GraphEdge] {
        &self.edges
    }

    /// The graph in Graphviz's DOT language: `dot -Tsvg graph.dot -o graph.svg`.
    pub fn to_dot(&self) -> String {
        dot::write(self)
    }

    /// The graph as a Mermaid flowchart, for a ```` ```mermaid ```` block in Markdown.
    pub fn to_mermaid(&self) -> String {
        mermaid::write(self)
    }

    /// The graph as JSON, schema `laige-schedule-graph` version [`JSON_VERSION`]
    /// (documented in `docs/api/export.md`).
    pub fn to_json(&self) -> String {
        json::write(self)
    }
}

/// The version of the JSON form; it changes when a field changes meaning or goes away.
pub const JSON_VERSION: u32 = 1;
