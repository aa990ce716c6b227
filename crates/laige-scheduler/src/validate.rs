//! Access checks over a computed order: `double_writer` and `read_before_write`.

use laige_registry::{ComponentId, ComponentSet, MAX_COMPONENTS, MAX_SYSTEMS, Registry, SystemSet};

use crate::sort::id_at;

use crate::sort::system_ref;
use crate::{ReadBeforeWrite, Schedule, ScheduleError};

const NONE: u16 = u16::MAX;

/// The single writer of each component, by 0-based component position.
pub(crate) struct Writers {
    of: [u16; MAX_COMPONENTS],
}

/// Finds the lowest component id with two writers; its first and second writer are the
/// two lowest system ids that write it. Order and dependencies are deliberately ignored.
pub(crate) fn single_writers<R>(registry: &Registry<R>) -> Result<Writers, ScheduleError> {
    let mut first = [NONE; MAX_COMPONENTS];
    let mut second = [NONE; MAX_COMPONENTS];
    for (i, record) in registry.iter().enumerate() {
        for c in record.writes() {
            let slot = if first[c.index()] == NONE {
                &mut first
            } else {
                &mut second
            };
            if slot[c.index()] == NONE {
                slot[c.index()] = i as u16;
            }
        }
    }
    if let Some(c) = second.iter().position(|&w| w != NONE) {
        return Err(ScheduleError::DoubleWriter {
            component: registry.component_name(
                ComponentId::from_index(c).expect("position is below MAX_COMPONENTS"),
            ),
            first_writer: system_ref(registry, usize::from(first[c])),
            second_writer: system_ref(registry, usize::from(second[c])),
        });
    }
    Ok(Writers { of: first })
}

/// Records (and reports) every reader placed before the writer of a component it reads,
/// in (component id, reader id) order.
pub(crate) fn reads_before_writes<R>(
    registry: &Registry<R>,
    writers: &Writers,
    schedule: &mut Schedule,
) {
    let mut position = [0u16; MAX_SYSTEMS];
    for (step, id) in schedule.order().iter().enumerate() {
        position[id.index()] = step as u16;
    }
    let mut readers_of = [SystemSet::EMPTY; MAX_COMPONENTS];
    let mut read_anywhere = ComponentSet::EMPTY;
    for (i, record) in registry.iter().enumerate() {
        for c in record.reads() {
            readers_of[c.index()].insert(id_at(i));
            read_anywhere.insert(c);
        }
    }
    registry.diagnostics().batch(|batch| {
        for c in &read_anywhere {
            let writer = writers.of[c.index()];
            if writer == NONE {
                continue;
            }
            for reader in &readers_of[c.index()] {
                let reader = reader.index();
                if position[reader] < position[usize::from(writer)] {
                    let warning = ReadBeforeWrite {
                        reader: system_ref(registry, reader),
                        writer: system_ref(registry, usize::from(writer)),
                        component: registry.component_name(c),
                    };
                    batch.report(ReadBeforeWrite::KEY, || warning.emit());
                    schedule.warn(warning);
                }
            }
        }
    });
}
