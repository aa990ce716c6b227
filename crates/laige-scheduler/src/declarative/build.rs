//! From registry and layout to a schedule: placement, edges, order, then the checks.

use laige_registry::{Registry, SystemRecord, SystemSet};

use super::Layout;
use super::pairs::Pairs;
use crate::cause::{Cause, id_at};
use crate::flat::system_ref;
use crate::graph::{Edge, Graph};
use crate::schedule::StrongEdges;
use crate::{MAX_TRACKS, Schedule, ScheduleError};

/// The declarative graph: any number of edges, on the heap (this front end builds at
/// setup, where allocating is fine).
pub(crate) type DeclaredGraph = Graph<Vec<Edge>>;

/// Where each system sits, by registry position: indices into the layout's DAGs and into
/// that DAG's phases; and the members of each track, DAG and phase, as sets.
pub(crate) struct Placed {
    pub(crate) dag: Vec<usize>,
    pub(crate) phase: Vec<usize>,
    /// Per DAG, its track.
    dag_track: Vec<usize>,
    /// Per DAG, where its phases start in `phases`.
    phase_base: Vec<usize>,
    tracks: Vec<SystemSet>,
    dags: Vec<SystemSet>,
    phases: Vec<SystemSet>,
}

impl Placed {
    /// The systems of track `track`.
    pub(crate) fn track(&self, track: usize) -> &SystemSet {
        &self.tracks[track]
    }

    /// The systems of the track system `s` is in.
    pub(crate) fn track_members(&self, s: usize) -> &SystemSet {
        &self.tracks[self.dag_track[self.dag[s]]]
    }

    /// The systems of the DAG system `s` is in.
    pub(crate) fn dag_members(&self, s: usize) -> &SystemSet {
        &self.dags[self.dag[s]]
    }

    /// The systems of the phase system `s` is in.
    pub(crate) fn phase_members(&self, s: usize) -> &SystemSet {
        &self.phases[self.phase_base[self.dag[s]] + self.phase[s]]
    }
}

/// The derived graph (with exclusive edges), the per-track orders and the placement.
pub(crate) struct Derived {
    pub(crate) graph: Box<DeclaredGraph>,
    pub(crate) orders: Vec<Vec<usize>>,
    pub(crate) placed: Placed,
}

pub(crate) fn derive<R>(registry: &Registry<R>, layout: &Layout) -> Result<Derived, ScheduleError> {
    derive_with(registry, layout, Pairs::indexed)
}

/// [`derive`], with the pair candidates of each pass from `pairs` (the tests compare the
/// set-algebra candidates with every pair).
pub(crate) fn derive_with<R>(
    registry: &Registry<R>,
    layout: &Layout,
    pairs: for<'r> fn(&'r Registry<R>) -> Pairs<'r>,
) -> Result<Derived, ScheduleError> {
    validate_layout(layout)?;
    let placed = place(registry, layout)?;
    let mut graph = Box::new(DeclaredGraph::new(Vec::new()));
    explicit_edges(registry, layout, &placed, &mut graph)?;
    check_snapshots(registry)?;
    let pairs = pairs(registry);
    derived_edges(registry, &placed, &pairs, &mut graph);

    let mut orders = Vec::with_capacity(layout.tracks().len());
    for track in 0..layout.tracks().len() {
        let members = *placed.track(track);
        let mut order = Vec::with_capacity(members.len());
        let placed_here = graph.kahn(&members, |s| order.push(s));
        if placed_here.len() < members.len() {
            let unplaced = members.difference(&placed_here);
            return Err(ScheduleError::DependencyCycle(
                graph.cycle(registry, &unplaced),
            ));
        }
        orders.push(order);
    }
    let all: Vec<usize> = orders.iter().flatten().copied().collect();
    let reach = graph.reachability(&all);
    check_same_phase(registry, layout, &placed, &pairs, &reach)?;
    check_dag_conflicts(registry, layout, &placed, &pairs)?;
    for order in &orders {
        exclusive_edges(registry, &placed, order, &reach, &mut graph);
    }
    Ok(Derived {
        graph,
        orders,
        placed,
    })
}

pub(crate) fn build<R>(registry: &Registry<R>, layout: &Layout) -> Result<Schedule, ScheduleError> {
    let Derived { graph, orders, .. } = derive(registry, layout)?;
    let mut strong = vec![SystemSet::EMPTY; registry.len()];
    for edge in graph.edges() {
        if matches!(edge.cause, Cause::After | Cause::Before | Cause::Exclusive) {
            strong[usize::from(edge.later)].insert(id_at(edge.earlier.into()));
        }
    }
    let mut schedule = Schedule::new(
        registry.len(),
        registry.identity(),
        StrongEdges::Kept(strong.into_boxed_slice()),
    );
    for order in &orders {
        for &s in order {
            schedule.push(id_at(s));
        }
        schedule.end_track();
    }
    Ok(schedule)
}

fn validate_layout(layout: &Layout) -> Result<(), ScheduleError> {
    let dags = layout.dags();
    if dags.is_empty() {
        return Err(ScheduleError::LayoutInvalid {
            problem: "declares no DAG: add one with `.dag(..)`",
            name: "layout",
        });
    }
    if layout.tracks().len() > MAX_TRACKS {
        return Err(ScheduleError::LayoutInvalid {
            problem: "has too many tracks (at most 16)",
            name: "layout",
        });
    }
    for (i, dag) in dags.iter().enumerate() {
        if dags[..i].iter().any(|it| it.name == dag.name) {
            return Err(ScheduleError::LayoutInvalid {
                problem: "is declared twice: give each DAG a unique name",
                name: dag.name,
            });
        }
        if dag.phases.is_empty() {
            return Err(ScheduleError::LayoutInvalid {
                problem: "has no phases: list at least one",
                name: dag.name,
            });
        }
        if dag
            .phases
            .iter()
            .enumerate()
            .any(|(j, p)| dag.phases[..j].contains(p))
        {
            return Err(ScheduleError::LayoutInvalid {
                problem: "lists a phase twice",
                name: dag.name,
            });
        }
        if !dag.phases.contains(&dag.default_phase) {
            return Err(ScheduleError::LayoutInvalid {
                problem: "has a default phase that is not among its phases",
                name: dag.name,
            });
        }
    }
    Ok(())
}

fn place<R>(registry: &Registry<R>, layout: &Layout) -> Result<Placed, ScheduleError> {
    let dags = layout.dags();
    let mut placed = Placed {
        dag: Vec::with_capacity(registry.len()),
        phase: Vec::with_capacity(registry.len()),
        dag_track: (0..dags.len()).map(|d| layout.track_of(d)).collect(),
        phase_base: Vec::with_capacity(dags.len()),
        tracks: vec![SystemSet::EMPTY; layout.tracks().len()],
        dags: vec![SystemSet::EMPTY; dags.len()],
        phases: Vec::new(),
    };
    for dag in dags {
        placed.phase_base.push(placed.phases.len());
        placed
            .phases
            .extend(dag.phases.iter().map(|_| SystemSet::EMPTY));
    }
    for (s, record) in registry.iter().enumerate() {
        let want = record.placement();
        let dag = if want.dag.is_empty() {
            0
        } else {
            let names = || layout.dags().iter().map(|d| d.name);
            names()
                .position(|n| n == want.dag)
                .ok_or_else(|| ScheduleError::UnknownDag {
                    system: system_ref(registry, s),
                    dag: want.dag,
                    suggestion: laige_registry::closest_name(want.dag, names()),
                })?
        };
        let decl = &layout.dags()[dag];
        let phase_name = if want.phase.is_empty() {
            decl.default_phase
        } else {
            want.phase
        };
        let phase = decl
            .phases
            .iter()
            .position(|&p| p == phase_name)
            .ok_or_else(|| ScheduleError::UnknownPhase {
                system: system_ref(registry, s),
                dag: decl.name,
                phase: phase_name,
                suggestion: laige_registry::closest_name(phase_name, decl.phases.iter().copied()),
            })?;
        placed.dag.push(dag);
        placed.phase.push(phase);
        let id = id_at(s);
        placed.tracks[placed.dag_track[dag]].insert(id);
        placed.dags[dag].insert(id);
        placed.phases[placed.phase_base[dag] + phase].insert(id);
    }
    Ok(placed)
}

fn explicit_edges<R>(
    registry: &Registry<R>,
    layout: &Layout,
    placed: &Placed,
    graph: &mut DeclaredGraph,
) -> Result<(), ScheduleError> {
    // Strong declarations first, so a pair declared both ways keeps its strong cause.
    let kinds = [
        ("after", Cause::After),
        ("before", Cause::Before),
        ("after_weak", Cause::AfterWeak),
    ];
    for (declaration, cause) in kinds {
        for (s, record) in registry.iter().enumerate() {
            // `after` is `depends_on`; the registry keeps every spec parsed.
            let names = match cause {
                Cause::After => registry.depends_on(record.id()),
                Cause::Before => registry.before(record.id()),
                _ => registry.after_weak(record.id()),
            };
            for (position, &name) in names.iter().enumerate() {
                let Some(other) = registry.find(name) else {
                    return Err(unknown_system(
                        registry,
                        s,
                        cause,
                        declaration,
                        name,
                        position,
                    ));
                };
                let o = other.index();
                if placed.dag[o] != placed.dag[s] {
                    return Err(ScheduleError::CrossDagEdge {
                        system: system_ref(registry, s),
                        declaration,
                        other: system_ref(registry, o),
                        system_dag: layout.dags()[placed.dag[s]].name,
                        other_dag: layout.dags()[placed.dag[o]].name,
                    });
                }
                let (earlier, later) = if cause == Cause::Before {
                    (s, o)
                } else {
                    (o, s)
                };
                if placed.phase[earlier] > placed.phase[later] {
                    let phases = &layout.dags()[placed.dag[s]].phases;
                    return Err(ScheduleError::PhaseInversion {
                        system: system_ref(registry, s),
                        declaration,
                        other: system_ref(registry, o),
                        early_phase: phases[placed.phase[later]],
                        late_phase: phases[placed.phase[earlier]],
                    });
                }
                graph.add(earlier, later, cause);
            }
        }
    }
    Ok(())
}

/// A `depends_on`/`after` name that resolves to no system is `dep_missing`, worded as the
/// flat rules word it (it is the same declaration); `before` and `after_weak` say which
/// declaration names it.
fn unknown_system<R>(
    registry: &Registry<R>,
    s: usize,
    cause: Cause,
    declaration: &'static str,
    name: &'static str,
    position: usize,
) -> ScheduleError {
    let system = system_ref(registry, s);
    let suggestion = registry.closest_name(name);
    if cause == Cause::After {
        ScheduleError::DepMissing {
            system,
            missing_dep: name,
            position,
            suggestion,
        }
    } else {
        ScheduleError::UnknownSystem {
            system,
            declaration,
            missing: name,
            position,
            suggestion,
        }
    }
}

fn check_snapshots<R>(registry: &Registry<R>) -> Result<(), ScheduleError> {
    for (s, record) in registry.iter().enumerate() {
        if let Some(c) = record
            .reads_snapshot()
            .difference(registry.versioned_components())
            .iter()
            .next()
        {
            return Err(ScheduleError::SnapshotUnversioned {
                system: system_ref(registry, s),
                component: registry.component_name(c),
            });
        }
    }
    Ok(())
}

/// Cross-phase conflicts order the earlier phase first; same-phase fresh reads wait for
/// the writers.
fn derived_edges<R>(
    registry: &Registry<R>,
    placed: &Placed,
    pairs: &Pairs<'_>,
    graph: &mut DeclaredGraph,
) {
    let records = registry.records();
    for a in 0..records.len() {
        for b in pairs.derived(registry, placed, a).iter().map(|b| b.index()) {
            if placed.dag[a] != placed.dag[b] {
                continue;
            }
            let (ra, rb) = (&records[a], &records[b]);
            if placed.phase[a] != placed.phase[b] {
                if let Some(c) = ra.conflict_with(rb, None) {
                    let (early, late) = if placed.phase[a] < placed.phase[b] {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    graph.add(early, late, Cause::phase_order(c));
                }
                continue;
            }
            // An event queue's emitters count as its writers: a same-phase reader of the
            // queue waits for them, so it sees their events the same tick.
            if let Some(c) = rb.reads_fresh().first_common(&ra.produces()) {
                graph.add(a, b, Cause::fresh(c));
            }
            if let Some(c) = ra.reads_fresh().first_common(&rb.produces()) {
                graph.add(b, a, Cause::fresh(c));
            }
        }
    }
}

/// In one phase, two writers, or a plain reader and a writer, need a path between them.
///
/// The first unordered pair (`a` < `b`, by `a` then `b`) is reported. Each system `b` asks
/// for the earlier systems its reachability does not already order (in a runnable
/// schedule, none), so the smallest `a` found over all `b` wins.
fn check_same_phase<R>(
    registry: &Registry<R>,
    layout: &Layout,
    placed: &Placed,
    pairs: &Pairs<'_>,
    reach: &[SystemSet],
) -> Result<(), ScheduleError> {
    let mut first: Option<(usize, ScheduleError)> = None;
    for b in 0..registry.len() {
        for a in pairs.same_phase(registry, placed, reach, b).iter() {
            let a = a.index();
            if first.as_ref().is_some_and(|(found, _)| *found <= a) {
                break;
            }
            if let Some(err) = unordered_in_phase(registry, layout, placed, reach, a, b) {
                first = Some((a, err));
                break;
            }
        }
    }
    first.map_or(Ok(()), |(_, err)| Err(err))
}

/// The error of `a` and `b` (`a` < `b`) when they share a phase, no path orders them, and
/// they write one component or one reads plainly what the other writes.
fn unordered_in_phase<R>(
    registry: &Registry<R>,
    layout: &Layout,
    placed: &Placed,
    reach: &[SystemSet],
    a: usize,
    b: usize,
) -> Option<ScheduleError> {
    if placed.dag[a] != placed.dag[b] || placed.phase[a] != placed.phase[b] {
        return None;
    }
    if reach[b].contains(id_at(a)) || reach[a].contains(id_at(b)) {
        return None;
    }
    let records = registry.records();
    let (ra, rb) = (&records[a], &records[b]);
    let phase = layout.dags()[placed.dag[a]].phases[placed.phase[a]];
    if let Some(c) = ra.writes().first_common(rb.writes()) {
        return Some(ScheduleError::UnorderedWriters {
            component: registry.component_name(c),
            first: system_ref(registry, a),
            second: system_ref(registry, b),
            phase,
        });
    }
    for (reader, writer) in [(a, b), (b, a)] {
        let plain = plain_reads(&records[reader]);
        if let Some(c) = plain.first_common(records[writer].writes()) {
            return Some(ScheduleError::AmbiguousRead {
                component: registry.component_name(c),
                reader: system_ref(registry, reader),
                writer: system_ref(registry, writer),
                phase,
            });
        }
    }
    None
}

fn plain_reads(record: &SystemRecord) -> laige_registry::ComponentSet {
    record.reads().difference(record.reads_fresh())
}

/// DAGs of one track run concurrently, so no two of them may conflict.
fn check_dag_conflicts<R>(
    registry: &Registry<R>,
    layout: &Layout,
    placed: &Placed,
    pairs: &Pairs<'_>,
) -> Result<(), ScheduleError> {
    let records = registry.records();
    for a in 0..records.len() {
        for b in pairs
            .dag_conflicts(registry, placed, a)
            .iter()
            .map(|b| b.index())
        {
            let (da, db) = (placed.dag[a], placed.dag[b]);
            if da == db || layout.track_of(da) != layout.track_of(db) {
                continue;
            }
            if let Some(c) = records[a].conflict_with(&records[b], None) {
                return Err(ScheduleError::DagConflict {
                    component: registry.component_name(c),
                    first: system_ref(registry, a),
                    first_dag: layout.dags()[da].name,
                    second: system_ref(registry, b),
                    second_dag: layout.dags()[db].name,
                });
            }
        }
    }
    Ok(())
}

/// An exclusive system gets an edge to or from every unordered system of its phase, in
/// the direction of the computed order (which keeps that order valid).
fn exclusive_edges<R>(
    registry: &Registry<R>,
    placed: &Placed,
    order: &[usize],
    reach: &[SystemSet],
    graph: &mut DeclaredGraph,
) {
    let records = registry.records();
    for (i, &e) in order.iter().enumerate() {
        if !records[e].is_exclusive() {
            continue;
        }
        for (j, &s) in order.iter().enumerate() {
            let same_phase = placed.dag[s] == placed.dag[e] && placed.phase[s] == placed.phase[e];
            if s == e || !same_phase || reach[s].contains(id_at(e)) || reach[e].contains(id_at(s)) {
                continue;
            }
            let (earlier, later) = if j < i { (s, e) } else { (e, s) };
            graph.add(earlier, later, Cause::Exclusive);
        }
    }
}
