//! What DOT and Mermaid share: the cluster nesting (track, DAG, phase), each cause's
//! style and legend text, and the plain-text wording of edges and nodes. Each format only
//! spells these in its own syntax and escapes them its own way.

use laige_registry::{ComponentName, ComponentSet};

use super::{GraphCause, GraphEdge, GraphSystem, ScheduleGraph};

/// How an edge's line is drawn.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Line {
    Solid,
    Dashed,
    Dotted,
    Bold,
}

/// One cause's look and its legend entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Style {
    /// `#rrggbb` (the Okabe-Ito palette, which colour-blind readers tell apart).
    pub(super) color: &'static str,
    pub(super) line: Line,
    pub(super) legend: &'static str,
}

pub(super) const fn style(cause: GraphCause) -> Style {
    let (color, line, legend) = match cause {
        GraphCause::After => ("#000000", Line::Solid, "after (depends_on)"),
        GraphCause::Before => ("#0072B2", Line::Solid, "before"),
        GraphCause::AfterWeak => ("#000000", Line::Dashed, "after_weak"),
        GraphCause::Exclusive => ("#E69F00", Line::Bold, "exclusive phase"),
        GraphCause::Fresh(_) => ("#009E73", Line::Solid, "fresh read"),
        GraphCause::PhaseOrder(_) => ("#CC79A7", Line::Dotted, "cross-phase conflict"),
        GraphCause::Conflict(_) => ("#56B4E9", Line::Dashed, "access conflict (order edge)"),
        GraphCause::ReadBeforeWrite(_) => ("#D55E00", Line::Dashed, "read before write (warning)"),
    };
    Style {
        color,
        line,
        legend,
    }
}

/// Tracks are barriers: drawn between consecutive track clusters.
pub(super) const BARRIER: Style = Style {
    color: "#999999",
    line: Line::Bold,
    legend: "track barrier",
};

/// The causes present in `graph`, one each, in legend order; the barrier comes last when
/// the graph has two non-empty tracks.
pub(super) fn legend(graph: &ScheduleGraph) -> Vec<Style> {
    let mut causes: Vec<GraphCause> = Vec::new();
    for edge in graph.edges() {
        if !causes.iter().any(|c| c.rank() == edge.cause.rank()) {
            causes.push(edge.cause);
        }
    }
    causes.sort_by_key(|c| c.rank());
    let mut styles: Vec<Style> = causes.into_iter().map(style).collect();
    if barriers(graph).next().is_some() {
        styles.push(BARRIER);
    }
    styles
}

/// How a component is named in a label: its name, or `component <id>`.
pub(super) fn component_text(component: ComponentName) -> String {
    if component.name.is_empty() {
        format!("component {}", component.id)
    } else {
        component.name.to_owned()
    }
}

/// An edge's short label: the component it is about, after the cause, or nothing for the
/// causes without one (the style and the legend say those).
pub(super) fn edge_label(edge: &GraphEdge) -> Option<String> {
    let component = component_text(edge.cause.component()?);
    let kind = match edge.cause {
        GraphCause::Fresh(_) => "fresh",
        GraphCause::PhaseOrder(_) => "phase order",
        GraphCause::ReadBeforeWrite(_) => "read before write",
        _ => "conflict",
    };
    Some(format!("{kind}: {component}"))
}

/// An edge as a sentence, for tooltips.
pub(super) fn edge_sentence(edge: &GraphEdge) -> String {
    let legend = style(edge.cause).legend;
    let about = edge
        .cause
        .component()
        .map(|c| format!(" on {}", component_text(c)))
        .unwrap_or_default();
    format!(
        "{} waits for {}: {legend}{about}",
        edge.later.name, edge.earlier.name
    )
}

/// A system's declared access, one line per kind it has, for tooltips.
pub(super) fn access_text(graph: &ScheduleGraph, system: &GraphSystem) -> String {
    let kinds = [
        ("reads", &system.reads),
        ("reads_fresh", &system.reads_fresh),
        ("reads_snapshot", &system.reads_snapshot),
        ("writes", &system.writes),
        ("emits", &system.emits),
    ];
    let mut text = format!("id {}, step {}", system.system.id.get(), system.step + 1);
    for (kind, set) in kinds {
        if !set.is_empty() {
            text.push('\n');
            text.push_str(kind);
            text.push_str(": ");
            text.push_str(&names(graph, set).join(", "));
        }
    }
    text
}

fn names(graph: &ScheduleGraph, set: &ComponentSet) -> Vec<String> {
    set.iter()
        .map(|c| {
            let named = graph.components().iter().find(|it| it.name.id == c);
            named.map_or_else(|| format!("component {c}"), |it| component_text(it.name))
        })
        .collect()
}

/// One step of [`walk`]: a cluster opens (with its id and label), a system is placed, or
/// the innermost open cluster closes.
pub(super) enum Block<'g> {
    Open { id: String, label: String },
    System(&'g GraphSystem),
    Close,
}

/// The cluster nesting of `graph`, in order: per track, its systems outside any DAG, then
/// per DAG of the track its phases in order; systems ascending id inside each. Clusters
/// without systems are left out. Ids are `t0`, `t0_d1`, `t0_d1_p2` (indices, so any name is
/// safe); labels are plain text for the format to escape.
pub(super) fn walk<'g>(graph: &'g ScheduleGraph, mut visit: impl FnMut(Block<'g>)) {
    let systems = graph.systems();
    for (t, &track) in graph.tracks().iter().enumerate() {
        if !systems.iter().any(|s| s.track == t) {
            continue;
        }
        let label = if track.is_empty() {
            format!("track {}", t + 1)
        } else {
            format!("track {}: {track}", t + 1)
        };
        let id = format!("t{t}");
        visit(Block::Open {
            id: id.clone(),
            label,
        });
        for system in systems.iter().filter(|s| s.track == t && s.dag.is_none()) {
            visit(Block::System(system));
        }
        for (d, dag) in graph.dags().iter().enumerate() {
            let in_dag = || {
                systems
                    .iter()
                    .filter(move |s| s.track == t && s.dag == Some(d))
            };
            if in_dag().next().is_none() {
                continue;
            }
            visit(Block::Open {
                id: format!("{id}_d{d}"),
                label: format!("DAG {}", dag.name),
            });
            for (p, phase) in dag.phases.iter().enumerate() {
                if !in_dag().any(|s| s.phase == Some(p)) {
                    continue;
                }
                visit(Block::Open {
                    id: format!("{id}_d{d}_p{p}"),
                    label: format!("phase {phase}"),
                });
                in_dag()
                    .filter(|s| s.phase == Some(p))
                    .for_each(|s| visit(Block::System(s)));
                visit(Block::Close);
            }
            visit(Block::Close);
        }
        visit(Block::Close);
    }
}

/// For each pair of consecutive non-empty tracks: their indices and a system of each, to
/// anchor the barrier edge between their clusters. The tail is the deepest system of the
/// earlier track and the head the shallowest of the later one (by longest path; ties to
/// the smaller id), so a layout engine puts the later track after the whole earlier one.
pub(super) fn barriers(
    graph: &ScheduleGraph,
) -> impl Iterator<Item = ((usize, &GraphSystem), (usize, &GraphSystem))> + '_ {
    let systems = graph.systems();
    let mut by_step: Vec<usize> = (0..systems.len()).collect();
    by_step.sort_by_key(|&s| systems[s].step);
    let mut depth = vec![0usize; systems.len()];
    for &s in &by_step {
        let id = systems[s].system.id;
        depth[s] = graph
            .edges()
            .iter()
            .filter(|e| e.later.id == id)
            .map(|e| depth[e.earlier.id.index()] + 1)
            .max()
            .unwrap_or(0);
    }
    let in_track = |t: usize| (0..systems.len()).filter(move |&s| systems[s].track == t);
    let ends: Vec<(usize, usize, usize)> = (0..graph.tracks().len())
        .filter_map(|t| {
            // `max_by_key` keeps the last maximum: reversed, that is the smallest id.
            let deepest = in_track(t).rev().max_by_key(|&s| depth[s])?;
            let shallowest = in_track(t).min_by_key(|&s| depth[s])?;
            Some((t, deepest, shallowest))
        })
        .collect();
    (1..ends.len()).map(move |i| {
        let (ta, tail, _) = ends[i - 1];
        let (tb, _, head) = ends[i];
        ((ta, &systems[tail]), (tb, &systems[head]))
    })
}

#[cfg(test)]
mod tests {
    use laige_registry::{ComponentId, ComponentName};

    use super::{BARRIER, GraphCause, style};

    #[test]
    fn each_cause_has_its_own_look() {
        let c = ComponentName {
            id: ComponentId::new(1).unwrap(),
            name: "C",
        };
        let causes = [
            GraphCause::After,
            GraphCause::Before,
            GraphCause::AfterWeak,
            GraphCause::Exclusive,
            GraphCause::Fresh(c),
            GraphCause::PhaseOrder(c),
            GraphCause::Conflict(c),
            GraphCause::ReadBeforeWrite(c),
        ];
        let mut looks: Vec<_> = causes.into_iter().map(style).collect();
        looks.push(BARRIER);
        for (i, a) in looks.iter().enumerate() {
            for b in &looks[i + 1..] {
                assert!((a.color, a.line) != (b.color, b.line), "{a:?} and {b:?}");
                assert_ne!(a.legend, b.legend);
            }
        }
        let ranks: Vec<u8> = causes.iter().map(|c| c.rank()).collect();
        assert_eq!(ranks, (0..8).collect::<Vec<u8>>());
    }
}
