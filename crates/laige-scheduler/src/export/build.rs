//! From schedule, registry and layout to a [`ScheduleGraph`]: the checks that they belong
//! together, the edges each front end already knows, then the conflict edges an executor
//! adds.

use laige_registry::{ComponentSet, Registry, SystemSet};

use super::{
    ExportError, FrontEnd, GraphCause, GraphComponent, GraphEdge, GraphSystem, ScheduleGraph,
};
use crate::cause::id_at;
use crate::declarative::build::{Derived, derive};
use crate::declarative::named;
use crate::flat::{declarative_feature, each_read_before_write, positions, system_ref};
use crate::{Layout, Schedule};

pub(super) fn build<R>(
    schedule: &Schedule,
    registry: &Registry<R>,
    layout: Option<&Layout>,
) -> Result<ScheduleGraph, ExportError> {
    check_fresh(schedule, registry)?;
    let mut graph = match layout {
        None => flat(schedule, registry)?,
        Some(layout) => declared(schedule, registry, layout)?,
    };
    add_conflicts(&mut graph, schedule, registry);
    graph
        .edges
        .sort_by_key(|e| (e.earlier.id, e.later.id, e.cause.rank()));
    Ok(graph)
}

fn check_fresh<R>(schedule: &Schedule, registry: &Registry<R>) -> Result<(), ExportError> {
    if !schedule.is_verified() {
        return Err(ExportError::HandBuilt);
    }
    let foreign = schedule.registry_identity() != Some(registry.identity());
    if foreign || schedule.system_count() != registry.len() {
        return Err(ExportError::Stale {
            scheduled_systems: schedule.system_count(),
            current_systems: registry.len(),
            foreign,
        });
    }
    Ok(())
}

/// Each system's track in `schedule`, by registry position.
fn tracks_of(schedule: &Schedule, systems: usize) -> Vec<usize> {
    let mut track_of = vec![0; systems];
    for (t, track) in schedule.tracks().enumerate() {
        for id in track {
            track_of[id.index()] = t;
        }
    }
    track_of
}

/// The parts every graph has: components and systems, unplaced, no edges yet.
fn skeleton<R>(schedule: &Schedule, registry: &Registry<R>, front_end: FrontEnd) -> ScheduleGraph {
    let step = positions(schedule.order());
    let track_of = tracks_of(schedule, registry.len());
    let systems = registry
        .iter()
        .enumerate()
        .map(|(i, record)| GraphSystem {
            system: system_ref(registry, i),
            budget: record.budget(),
            step: usize::from(step[i]),
            track: track_of[i],
            dag: None,
            phase: None,
            exclusive: record.is_exclusive(),
            reads: record.reads().difference(record.reads_fresh()),
            reads_fresh: *record.reads_fresh(),
            reads_snapshot: *record.reads_snapshot(),
            writes: *record.writes(),
            emits: *record.emits(),
        })
        .collect();
    let components = registry
        .components()
        .iter()
        .map(|c| GraphComponent {
            name: registry.component_name(c),
            versioned: registry.versioned_components().contains(c),
        })
        .collect();
    ScheduleGraph {
        front_end,
        order_hash: schedule.order_hash(),
        tracks: Vec::new(),
        dags: Vec::new(),
        components,
        systems,
        edges: Vec::new(),
    }
}

/// The flat rules' edges: each resolved `depends_on`, and each `read_before_write` pair.
fn flat<R>(schedule: &Schedule, registry: &Registry<R>) -> Result<ScheduleGraph, ExportError> {
    if let Some((i, feature)) = declarative_feature(registry) {
        return Err(ExportError::NeedsLayout {
            system: system_ref(registry, i),
            feature,
        });
    }
    let mut graph = skeleton(schedule, registry, FrontEnd::Flat);
    graph.tracks = vec![""; schedule.tracks().len()];
    for later in 0..registry.len() {
        for earlier in &schedule.after(id_at(later), registry) {
            graph.edges.push(GraphEdge {
                earlier: system_ref(registry, earlier.index()),
                later: system_ref(registry, later),
                cause: GraphCause::After,
            });
        }
    }
    let written = registry
        .iter()
        .fold(ComponentSet::EMPTY, |acc, r| acc.union(r.writes()));
    let step = positions(schedule.order());
    each_read_before_write(registry, &written, &step, |reader, writer, c| {
        graph.edges.push(GraphEdge {
            earlier: system_ref(registry, reader),
            later: system_ref(registry, writer),
            cause: GraphCause::ReadBeforeWrite(registry.component_name(c)),
        });
    });
    Ok(graph)
}

/// The declarative derivation's edges, exactly as [`crate::explain_declared`] lists them,
/// once `layout` is shown to build `schedule`: the same track for every system, the same
/// order, the same strong edges, the same number of tracks.
fn declared<R>(
    schedule: &Schedule,
    registry: &Registry<R>,
    layout: &Layout,
) -> Result<ScheduleGraph, ExportError> {
    let Derived {
        graph: derived,
        orders,
        placed,
    } = derive(registry, layout).map_err(ExportError::Layout)?;
    let mismatch = |s| ExportError::LayoutMismatch {
        system: system_ref(registry, s),
    };
    let scheduled_track = tracks_of(schedule, registry.len());
    for (t, order) in orders.iter().enumerate() {
        if let Some(&s) = order.iter().find(|&&s| scheduled_track[s] != t) {
            return Err(mismatch(s));
        }
    }
    let built: Vec<usize> = orders.iter().flatten().copied().collect();
    if let Some((&s, _)) = built
        .iter()
        .zip(schedule.order())
        .find(|&(&s, id)| s != id.index())
    {
        return Err(mismatch(s));
    }
    let mut strong = vec![SystemSet::EMPTY; registry.len()];
    let mut graph = skeleton(schedule, registry, FrontEnd::Declarative);
    for edge in derived.edges() {
        let edge = named(registry, edge);
        if edge.cause.is_strong() {
            strong[edge.later.id.index()].insert(edge.earlier.id);
        }
        graph.edges.push(GraphEdge {
            earlier: edge.earlier,
            later: edge.later,
            cause: edge.cause.into(),
        });
    }
    let kept = schedule.strong_edges(registry);
    if let Some(s) = (0..registry.len()).find(|&s| strong[s] != kept[s]) {
        return Err(mismatch(s));
    }
    if orders.len() != schedule.tracks().len() {
        return Err(ExportError::TrackCount {
            layout: orders.len(),
            schedule: schedule.tracks().len(),
        });
    }
    graph.tracks = layout.tracks().to_vec();
    graph.dags = layout.dags().to_vec();
    for (s, system) in graph.systems.iter_mut().enumerate() {
        system.dag = Some(placed.dag[s]);
        system.phase = Some(placed.phase[s]);
    }
    Ok(graph)
}

/// Adds the order edges an executor derives from access: for each pair in one track,
/// earlier first, whose declared access conflicts and which no binding edge (strong, or
/// itself over conflicting access) already orders, directly or through other systems.
/// Nearer predecessors go first, so an implied conflict is never drawn (as the executor's
/// transitive reduction drops it).
fn add_conflicts<R>(graph: &mut ScheduleGraph, schedule: &Schedule, registry: &Registry<R>) {
    let records = registry.records();
    // The pairs that conflict, as sets: only those are asked for their component.
    let conflicts = registry.conflicts(None);
    let mut binding = vec![SystemSet::EMPTY; records.len()];
    for edge in &graph.edges {
        let (a, b) = (edge.earlier.id, edge.later.id);
        if edge.cause.is_strong() || conflicts.contains(a, b) {
            binding[b.index()].insert(a);
        }
    }
    let mut reach = vec![SystemSet::EMPTY; records.len()];
    for track in schedule.tracks() {
        for (j, &later) in track.iter().enumerate() {
            let mut ordered = SystemSet::EMPTY;
            for p in &binding[later.index()] {
                ordered.insert(p);
                ordered = ordered.union(&reach[p.index()]);
            }
            for &earlier in track[..j].iter().rev() {
                if ordered.contains(earlier) || !conflicts.contains(earlier, later) {
                    continue;
                }
                let (a, b) = (earlier.index(), later.index());
                if let Some(c) = records[a].conflict_with(&records[b], None) {
                    graph.edges.push(GraphEdge {
                        earlier: system_ref(registry, a),
                        later: system_ref(registry, b),
                        cause: GraphCause::Conflict(registry.component_name(c)),
                    });
                    ordered.insert(earlier);
                    ordered = ordered.union(&reach[a]);
                }
            }
            reach[later.index()] = ordered;
        }
    }
}
