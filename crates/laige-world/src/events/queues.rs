//! The world's side of event queues: registering one, attaching systems to it, the hooks a
//! tick calls before and after its systems, and the builder's declarations.

use std::any::type_name;

use laige_registry::{ComponentId, SystemId};

use super::queue::{Events, MAX_EVENT_WRITERS};
use crate::events_report::{EventOverflow, EventsReport};
use crate::{Queries, WorldError};

/// Why [`World::register_events`](crate::World::register_events) refused a queue.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum EventsError {
    /// A capacity of 0: no writer could emit anything.
    ZeroCapacity {
        /// The event type's name.
        event: &'static str,
    },
    /// The queue of this type is registered already.
    AlreadyRegistered {
        /// The event type's name.
        event: &'static str,
        /// Its capacity.
        capacity: usize,
    },
    /// [`World::write_event`](crate::World::write_event) of a type whose queue was never
    /// registered.
    NotRegistered {
        /// The event type's name.
        event: &'static str,
    },
    /// [`World::write_event`](crate::World::write_event) past the capacity: the world wrote
    /// as many events since the last tick as one writer may per run.
    Full {
        /// The event type's name.
        event: &'static str,
        /// The queue's capacity.
        capacity: usize,
    },
    /// The world could not register the queue's id.
    World(WorldError),
}

laige_diag::diagnostics! {
    EventsError in Ecs;
    ZeroCapacity { %event } => warn events_zero_capacity { event }
        "the event queue `{event}` was registered with capacity 0, so no writer could emit \
         anything: give the most events one writer emits per run, e.g. \
         `world.register_events::<{event}>(1024)`";
    AlreadyRegistered { %event, capacity } => warn events_registered { event, capacity }
        "the event queue `{event}` is registered already (capacity {capacity}): register each \
         event type once, with the capacity its busiest writer needs";
    NotRegistered { %event } => warn events_not_registered { event }
        "no event queue of `{event}` is registered, so the world cannot write one: call \
         `world.register_events::<{event}>(capacity)` first";
    Full { %event, capacity } => warn events_full { event, capacity }
        "the world wrote {capacity} `{event}` event(s) since the last tick, the queue's \
         capacity, so this one was not stored: run a tick between batches, or register the \
         queue with a larger capacity";
    World(err) => err;
}

impl std::error::Error for EventsError {}

/// What a reactive system asks of one queue it reads before it runs: whether its run would
/// see any event.
pub(crate) type ReactiveCheck = fn(&Queries<'_>, SystemId) -> bool;

/// One registered queue, type-erased: its id, and the functions made for its event type,
/// which reach it through the whole world's view (setup code, between ticks).
#[derive(Clone, Copy, Debug)]
pub(crate) struct QueueEntry {
    pub(crate) id: ComponentId,
    pub(crate) event: &'static str,
    pub(crate) writers: usize,
    pub(crate) add_writer: fn(&mut Queries<'_>, SystemId),
    pub(crate) add_reader: fn(&mut Queries<'_>, SystemId),
    pub(crate) begin_tick: fn(&mut Queries<'_>, u64, Option<&[u16]>),
    pub(crate) end_tick: fn(&mut Queries<'_>, u64, &'static str, &mut EventsReport),
    pub(crate) pending: ReactiveCheck,
}

impl QueueEntry {
    /// The entry of the queue of events `E`, stored under `id`.
    pub(crate) fn of<E: Send + Sync + 'static>(id: ComponentId) -> Self {
        Self {
            id,
            event: type_name::<E>(),
            writers: 0,
            add_writer: add_writer::<E>,
            add_reader: add_reader::<E>,
            begin_tick: begin_tick::<E>,
            end_tick: end_tick::<E>,
            pending: pending::<E>,
        }
    }
}

/// The world's registered event queues, in registration order.
#[derive(Debug, Default)]
pub(crate) struct EventQueues {
    pub(crate) queues: Vec<QueueEntry>,
    /// The schedule the queues' positions were set for.
    pub(crate) placed_for: Option<u64>,
}

impl EventQueues {
    pub(crate) fn entry(&self, id: ComponentId) -> Option<&QueueEntry> {
        self.queues.iter().find(|it| it.id == id)
    }
}

fn add_writer<E: Send + Sync + 'static>(world: &mut Queries<'_>, system: SystemId) {
    if let Ok(queue) = world.resource_mut::<Events<E>>() {
        queue.add_writer(system);
    }
}

fn add_reader<E: Send + Sync + 'static>(world: &mut Queries<'_>, system: SystemId) {
    if let Ok(queue) = world.resource_mut::<Events<E>>() {
        queue.add_reader(system);
    }
}

fn begin_tick<E: Send + Sync + 'static>(world: &mut Queries<'_>, tick: u64, place: Option<&[u16]>) {
    if let Ok(queue) = world.resource_mut::<Events<E>>() {
        queue.tick = tick;
        if let Some(position) = place {
            queue.place(position);
        }
    }
}

/// Records what the writers that ran in tick `tick` overflowed and found unread, in their
/// schedule order.
fn end_tick<E: Send + Sync + 'static>(
    world: &mut Queries<'_>,
    tick: u64,
    event: &'static str,
    report: &mut EventsReport,
) {
    let Ok(queue) = world.resource_mut::<Events<E>>() else {
        return;
    };
    let capacity = queue.capacity;
    let mut order = [0usize; MAX_EVENT_WRITERS];
    let writers = queue.writers.len().min(MAX_EVENT_WRITERS);
    for (i, slot) in order.iter_mut().enumerate().take(writers) {
        *slot = i;
    }
    order[..writers].sort_unstable_by_key(|&i| queue.writers[i].position);
    for &i in &order[..writers] {
        let writer = &mut queue.writers[i];
        let system = writer.system;
        let buffer = writer
            .buffer
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if buffer.stamp >> 16 != tick {
            continue;
        }
        if buffer.overflowed > 0 {
            report.record_overflow(EventOverflow {
                event,
                system,
                name: "",
                capacity,
                dropped: buffer.overflowed,
            });
        }
        if let Some(unread) = buffer.unread.take() {
            for _ in 0..unread.readers {
                report.record_unread(unread.report(event, Some(system)));
            }
        }
    }
    // What the world wrote between ticks and no reader saw, found when it wrote again.
    let injected = queue
        .injected
        .get_mut()
        .unwrap_or_else(|it| it.into_inner());
    if let Some(unread) = injected.unread.take() {
        for _ in 0..unread.readers {
            report.record_unread(unread.report(event, None));
        }
    }
}

fn pending<E: Send + Sync + 'static>(view: &Queries<'_>, system: SystemId) -> bool {
    let Ok(queue) = view.resource::<Events<E>>() else {
        return false;
    };
    queue
        .reader_slot(system)
        .is_some_and(|slot| queue.pending(slot))
}
