//! The flat laige rules (contract §2.3) as a policy over the one graph: `depends_on` edges,
//! then `needs_layout` where the rules cannot honour a declaration, `double_writer` an
//! error and `read_before_write` a warning.
//!
//! Everything here lives in fixed arrays on the stack: the flat path never allocates.

use laige_registry::{
    ComponentId, ComponentSet, MAX_COMPONENTS, MAX_SYSTEMS, Registry, SystemId, SystemSet,
};

use crate::cause::{Cause, id_at};
use crate::graph::{DependsOn, Graph};
use crate::schedule::StrongEdges;
use crate::{ReadBeforeWrite, Schedule, ScheduleError, SystemRef};

/// Checks in order, first failure wins: `needs_layout`, `dep_missing`, `dependency_cycle`,
/// `double_writer`; then the `read_before_write` warnings.
pub(crate) fn schedule<R>(registry: &Registry<R>) -> Result<Schedule, ScheduleError> {
    let n = registry.len();
    let mut schedule = Schedule::new(n, registry.identity(), StrongEdges::DependsOn);
    if n == 0 {
        schedule.end_track();
        return Ok(schedule);
    }
    needs_no_layout(registry)?;
    let mut graph = Graph::new(DependsOn(registry));
    resolve(registry, &mut graph)?;
    let all = SystemSet::first(n);
    let placed = graph.kahn(&all, |i| schedule.push(id_at(i)));
    if placed.len() < n {
        let unplaced = all.difference(&placed);
        return Err(ScheduleError::DependencyCycle(
            graph.cycle(registry, &unplaced),
        ));
    }
    let written = single_writers(registry)?;
    schedule.end_track();
    reads_before_writes(registry, &written, &mut schedule);
    Ok(schedule)
}

/// The flat rules cannot honour declarative features; refusing them beats ignoring them.
fn needs_no_layout<R>(registry: &Registry<R>) -> Result<(), ScheduleError> {
    match declarative_feature(registry) {
        Some((i, feature)) => Err(ScheduleError::NeedsLayout {
            system: system_ref(registry, i),
            feature,
        }),
        None => Ok(()),
    }
}

/// The first system (by position) using a feature only a layout gives meaning to, and
/// that feature's name.
pub(crate) fn declarative_feature<R>(registry: &Registry<R>) -> Option<(usize, &'static str)> {
    registry.iter().enumerate().find_map(|(i, record)| {
        let placement = record.placement();
        let feature = if !registry.before(record.id()).is_empty() {
            "before"
        } else if !registry.after_weak(record.id()).is_empty() {
            "after_weak"
        } else if !placement.dag.is_empty() {
            "in_dag"
        } else if !placement.phase.is_empty() {
            "in_phase"
        } else if record.is_exclusive() {
            "exclusive_phase"
        } else {
            return None;
        };
        Some((i, feature))
    })
}

/// Adds every `depends_on` edge, in (system id, spec position) order; the first unknown
/// name fails.
fn resolve<R>(
    registry: &Registry<R>,
    graph: &mut Graph<DependsOn<'_, R>>,
) -> Result<(), ScheduleError> {
    for (i, record) in registry.iter().enumerate() {
        for (position, &dep) in registry.depends_on(record.id()).iter().enumerate() {
            let Some(target) = registry.find(dep) else {
                return Err(ScheduleError::DepMissing {
                    system: system_ref(registry, i),
                    missing_dep: dep,
                    position,
                    suggestion: registry.closest_name(dep),
                });
            };
            graph.add(target.index(), i, Cause::After);
        }
    }
    Ok(())
}

/// A system as reports name it.
pub(crate) fn system_ref<R>(registry: &Registry<R>, index: usize) -> SystemRef {
    let record = &registry.records()[index];
    SystemRef {
        id: record.id(),
        name: record.name(),
    }
}

/// Finds the lowest component id with two writers; its first and second writer are the
/// two lowest system ids that write it. Order and dependencies are deliberately ignored.
/// Returns the components that have a writer.
///
/// Whole sets at a time (a component written again is in `written` already): walking each
/// system's writes one by one cost more than the rest of the check.
fn single_writers<R>(registry: &Registry<R>) -> Result<ComponentSet, ScheduleError> {
    let mut written = ComponentSet::EMPTY;
    let mut twice = ComponentSet::EMPTY;
    for record in registry.iter() {
        twice = twice.union(&written.intersection(record.writes()));
        written = written.union(record.writes());
    }
    let Some(component) = twice.iter().next() else {
        return Ok(written);
    };
    let mut writers =
        (0..registry.len()).filter(|&i| registry.records()[i].declares_write(component));
    let mut next_writer = || {
        let i = writers
            .next()
            .expect("a component written twice has two writers");
        system_ref(registry, i)
    };
    Err(ScheduleError::DoubleWriter {
        component: registry.component_name(component),
        first_writer: next_writer(),
        second_writer: next_writer(),
    })
}

/// Records (and reports) every reader placed before the writer of a component it reads,
/// in (component id, reader id) order. `written` holds the components with a (single) writer.
fn reads_before_writes<R>(registry: &Registry<R>, written: &ComponentSet, schedule: &mut Schedule) {
    let position = positions(schedule.order());
    registry.diagnostics().batch(|batch| {
        each_read_before_write(registry, written, &position, |reader, writer, c| {
            let warning = ReadBeforeWrite {
                reader: system_ref(registry, reader),
                writer: system_ref(registry, writer),
                component: registry.component_name(c),
            };
            batch.report(ReadBeforeWrite::KEY, || warning.emit());
            let names = registry.share_names([warning.reader.id, warning.writer.id]);
            schedule.warn(&warning, &names);
        });
    });
}

/// Each system's 0-based step in `order`.
pub(crate) fn positions(order: &[SystemId]) -> [u16; MAX_SYSTEMS] {
    let mut position = [0u16; MAX_SYSTEMS];
    for (step, id) in order.iter().enumerate() {
        position[id.index()] = step as u16;
    }
    position
}

/// Calls `found(reader, writer, component)` (0-based positions in the registry) for every
/// reader placed before the writer of a component it reads, or before an emitter of an
/// event queue it reads (it sees those events a tick late), in (component id, reader id,
/// writer id) order: the `read_before_write` rule, shared by scheduling and the graph
/// export. `written` holds the components with a (single) writer; `position` is
/// [`positions`].
pub(crate) fn each_read_before_write<R>(
    registry: &Registry<R>,
    written: &ComponentSet,
    position: &[u16; MAX_SYSTEMS],
    mut found: impl FnMut(usize, usize, ComponentId),
) {
    const NONE: u16 = u16::MAX;
    // Only components both read and written can warn. The sets are walked with `for_each`,
    // not `for`: their internal iteration costs a fraction of stepping with `next`.
    let mut writer = [NONE; MAX_COMPONENTS];
    let mut readers_of = [SystemSet::EMPTY; MAX_COMPONENTS];
    // An event queue has any number of emitters: each is a writer for this rule.
    let mut emitters_of = [SystemSet::EMPTY; MAX_COMPONENTS];
    let mut emitted = ComponentSet::EMPTY;
    for (i, record) in registry.iter().enumerate() {
        record
            .emits()
            .iter()
            .for_each(|c| _ = emitters_of[c.index()].insert(id_at(i)));
        emitted = emitted.union(record.emits());
    }
    let produced = written.union(&emitted);
    let mut contested = ComponentSet::EMPTY;
    for (i, record) in registry.iter().enumerate() {
        record
            .writes()
            .iter()
            .for_each(|c| writer[c.index()] = i as u16);
        let reads = record.reads().intersection(&produced);
        reads
            .iter()
            .for_each(|c| _ = readers_of[c.index()].insert(id_at(i)));
        contested = contested.union(&reads);
    }
    contested.iter().for_each(|c| {
        let single = writer[c.index()];
        readers_of[c.index()].iter().for_each(|reader| {
            let reader = reader.index();
            if single != NONE && position[reader] < position[usize::from(single)] {
                found(reader, usize::from(single), c);
            }
            emitters_of[c.index()].iter().for_each(|emitter| {
                let emitter = emitter.index();
                if emitter != reader && position[reader] < position[emitter] {
                    found(reader, emitter, c);
                }
            });
        });
    });
}
