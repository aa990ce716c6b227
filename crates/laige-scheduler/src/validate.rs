//! Access checks over a computed order: `double_writer` and `read_before_write`.

use laige_registry::{
    ComponentId, ComponentSet, MAX_COMPONENTS, MAX_SYSTEMS, Registry, SystemId, SystemSet,
};

use crate::sort::{id_at, system_ref};
use crate::{ReadBeforeWrite, Schedule, ScheduleError};

/// Finds the lowest component id with two writers; its first and second writer are the
/// two lowest system ids that write it. Order and dependencies are deliberately ignored.
/// Returns the components that have a writer.
///
/// Whole sets at a time (a component written again is in `written` already): walking each
/// system's writes one by one cost more than the rest of the check.
pub(crate) fn single_writers<R>(registry: &Registry<R>) -> Result<ComponentSet, ScheduleError> {
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
pub(crate) fn reads_before_writes<R>(
    registry: &Registry<R>,
    written: &ComponentSet,
    schedule: &mut Schedule,
) {
    let position = positions(schedule.order());
    registry.diagnostics().batch(|batch| {
        each_read_before_write(registry, written, &position, |reader, writer, c| {
            let warning = ReadBeforeWrite {
                reader: system_ref(registry, reader),
                writer: system_ref(registry, writer),
                component: registry.component_name(c),
            };
            batch.report(ReadBeforeWrite::KEY, || warning.emit());
            schedule.warn(warning);
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
/// reader placed before the writer of a component it reads, in (component id, reader id)
/// order: the `read_before_write` rule, shared by scheduling and the graph export.
/// `written` holds the components with a (single) writer; `position` is [`positions`].
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
    let mut contested = ComponentSet::EMPTY;
    for (i, record) in registry.iter().enumerate() {
        record
            .writes()
            .iter()
            .for_each(|c| writer[c.index()] = i as u16);
        let reads = record.reads().intersection(written);
        reads
            .iter()
            .for_each(|c| _ = readers_of[c.index()].insert(id_at(i)));
        contested = contested.union(&reads);
    }
    contested.iter().for_each(|c| {
        let writer = usize::from(writer[c.index()]);
        readers_of[c.index()].iter().for_each(|reader| {
            let reader = reader.index();
            if position[reader] < position[writer] {
                found(reader, writer, c);
            }
        });
    });
}
