//! The world's side of event queues: registering one, attaching systems to it, the hooks a
//! tick calls before and after its systems, and the builder's declarations.

use std::any::type_name;

use laige_registry::{Access, ComponentId, MAX_SYSTEMS, RegisterError, SystemDef, SystemId};
use laige_scheduler::Schedule;

use super::queue::{Events, MAX_EVENT_WRITERS};
use super::report::{EventOverflow, EventsReport};
use crate::{Queries, SystemBuilder, SystemRun, TickError, World, WorldError};

/// Why [`World::register_events`] refused a queue.
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
    World(err) => err;
}

impl std::error::Error for EventsError {}

/// What a reactive system asks of one queue it reads before it runs: whether its run would
/// see any event.
pub(crate) type ReactiveCheck = fn(&Queries<'_>, SystemId) -> bool;

/// One registered queue, type-erased: its id, and the functions made for its event type.
#[derive(Clone, Copy, Debug)]
struct QueueEntry {
    id: ComponentId,
    event: &'static str,
    writers: usize,
    add_writer: fn(&mut World, SystemId),
    add_reader: fn(&mut World, SystemId),
    begin_tick: fn(&mut World, u64, Option<&[u16]>),
    end_tick: fn(&mut World, u64, &'static str, &mut EventsReport),
    pending: ReactiveCheck,
}

/// The world's registered event queues, in registration order.
#[derive(Debug, Default)]
pub(crate) struct EventQueues {
    queues: Vec<QueueEntry>,
    /// The schedule the queues' positions were set for.
    placed_for: Option<u64>,
}

impl EventQueues {
    fn entry(&self, id: ComponentId) -> Option<&QueueEntry> {
        self.queues.iter().find(|it| it.id == id)
    }
}

fn add_writer<E: Send + Sync + 'static>(world: &mut World, system: SystemId) {
    if let Ok(queue) = world.resource_mut::<Events<E>>() {
        queue.add_writer(system);
    }
}

fn add_reader<E: Send + Sync + 'static>(world: &mut World, system: SystemId) {
    if let Ok(queue) = world.resource_mut::<Events<E>>() {
        queue.add_reader(system);
    }
}

fn begin_tick<E: Send + Sync + 'static>(world: &mut World, tick: u64, place: Option<&[u16]>) {
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
    world: &mut World,
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
                report.record_unread(unread.report(event, system));
            }
        }
    }
}

/// `Hit` for `game::Hit`; a generic type keeps its full name.
fn short_name(full: &'static str) -> &'static str {
    if full.contains('<') {
        return full;
    }
    full.rsplit("::").next().unwrap_or(full)
}

fn pending<E: Send + Sync + 'static>(view: &Queries<'_>, system: SystemId) -> bool {
    let Ok(queue) = view.resource::<Events<E>>() else {
        return false;
    };
    queue.reader_slot(system).is_some_and(|slot| queue.pending(slot))
}

impl World {
    /// Registers the queue of events `E`, whose every writer may emit up to `capacity`
    /// events per run (each writer's buffer is sized once, here, so a tick never
    /// allocates for it). Register it before the systems that write or read it.
    ///
    /// # Errors
    ///
    /// [`EventsError::ZeroCapacity`], [`EventsError::AlreadyRegistered`], or the world's
    /// error when its component ids are used up; each is reported as its event.
    pub fn register_events<E: Send + Sync + 'static>(
        &mut self,
        capacity: usize,
    ) -> Result<ComponentId, EventsError> {
        let event = type_name::<E>();
        if capacity == 0 {
            return Err(self.report_events(EventsError::ZeroCapacity { event }));
        }
        if self.events_id::<E>().is_some()
            && let Ok(queue) = self.resource::<Events<E>>()
        {
            let err = EventsError::AlreadyRegistered {
                event,
                capacity: queue.capacity,
            };
            return Err(self.report_events(err));
        }
        let id = self
            .insert_resource(Events::<E>::new(capacity))
            .map_err(EventsError::World)?;
        // Schedules, warnings and graphs name the queue `Events<Hit>`, not by its private
        // type's path. Setup-time: the name is kept once per process.
        let name = crate::world::intern(format!("Events<{}>", short_name(event)).into());
        self.registry.register_component_info(id, name, false);
        self.events.queues.push(QueueEntry {
            id,
            event,
            writers: 0,
            add_writer: add_writer::<E>,
            add_reader: add_reader::<E>,
            begin_tick: begin_tick::<E>,
            end_tick: end_tick::<E>,
            pending: pending::<E>,
        });
        Ok(id)
    }

    /// The id of `E`'s event queue, if registered: the id systems declare access to, as
    /// schedules, graphs and errors name it (`Events<E>`).
    pub fn events_id<E: Send + Sync + 'static>(&self) -> Option<ComponentId> {
        let id = self.component_id::<Events<E>>()?;
        self.events.entry(id).map(|it| it.id)
    }

    fn report_events(&self, err: EventsError) -> EventsError {
        self.registry.diagnostics().report(err.key(), || err.emit());
        err
    }

    /// Checks a definition's event access before it is registered: emits only into
    /// registered queues, and no queue past [`MAX_EVENT_WRITERS`] writers.
    pub(crate) fn check_event_access(
        &self,
        def: &SystemDef<SystemRun>,
    ) -> Result<(), RegisterError> {
        for io in def.io.as_slice() {
            let entry = io.component.and_then(|id| self.events.entry(id));
            match (io.access, entry) {
                (Access::Emit, None) => {
                    return Err(RegisterError::EventsUnregistered {
                        name: def.name,
                        event: io.type_name.unwrap_or("?"),
                        access: Access::Emit,
                    });
                }
                (Access::Emit, Some(entry)) if entry.writers >= MAX_EVENT_WRITERS => {
                    return Err(RegisterError::EventsTooManyWriters {
                        name: def.name,
                        event: entry.event,
                        limit: MAX_EVENT_WRITERS,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether `def` reads any registered queue: what a reactive system waits on.
    pub(crate) fn reads_any_queue(&self, def: &SystemDef<SystemRun>) -> bool {
        def.io.as_slice().iter().any(|io| {
            matches!(io.access, Access::Read | Access::ReadFresh)
                && io.component.is_some_and(|id| self.events.entry(id).is_some())
        })
    }

    /// Gives the newly registered system `id` its slots in the queues it emits into and
    /// reads. Setup-time work.
    pub(crate) fn attach_events(&mut self, id: SystemId) {
        let Ok(record) = self.registry.get(id) else {
            return;
        };
        let (emits, reads) = (*record.emits(), *record.reads());
        for i in 0..self.events.queues.len() {
            let entry = self.events.queues[i];
            if emits.contains(entry.id) {
                (entry.add_writer)(self, id);
                self.events.queues[i].writers += 1;
            }
            if reads.contains(entry.id) {
                (entry.add_reader)(self, id);
            }
        }
    }

    /// The checks a reactive system `id` runs before each run: one per queue it reads.
    pub(crate) fn reactive_checks(&self, id: SystemId) -> Vec<ReactiveCheck> {
        let Ok(record) = self.registry.get(id) else {
            return Vec::new();
        };
        let reads = record.reads();
        self.events
            .queues
            .iter()
            .filter(|it| reads.contains(it.id))
            .map(|it| it.pending)
            .collect()
    }

    /// Before a tick's systems: tells every queue the tick, and its systems' positions in
    /// `schedule` when that is not the schedule they were placed for.
    pub(crate) fn begin_events_tick(&mut self, schedule: &Schedule) {
        if self.events.queues.is_empty() {
            return;
        }
        let tick = self.runtime.report.tick();
        let replace = self.events.placed_for != Some(schedule.stamp());
        let mut position = [u16::MAX; MAX_SYSTEMS];
        if replace {
            for (step, id) in schedule.order().iter().enumerate() {
                if let Some(slot) = position.get_mut(id.index()) {
                    *slot = step as u16;
                }
            }
            self.events.placed_for = Some(schedule.stamp());
        }
        let place = replace.then_some(&position[..]);
        for i in 0..self.events.queues.len() {
            (self.events.queues[i].begin_tick)(self, tick, place);
        }
    }

    /// After a tick's systems: records the queues' overflows and unread drops in the tick
    /// report; the first overflow is the tick's error.
    pub(crate) fn end_events_tick(&mut self) -> Option<TickError> {
        if self.events.queues.is_empty() {
            return None;
        }
        let tick = self.runtime.report.tick();
        let mut report = EventsReport::default();
        for i in 0..self.events.queues.len() {
            let entry = self.events.queues[i];
            (entry.end_tick)(self, tick, entry.event, &mut report);
        }
        let registry = &self.registry;
        report.name_systems(|id| registry.get(id).map_or("?", |it| it.name()));
        *self.runtime.report.events_mut() = report;
        let overflow = *report.first_overflow()?;
        let err = TickError::EventsOverflowed {
            system: overflow.system,
            name: overflow.name,
            event: overflow.event,
            capacity: overflow.capacity,
            dropped: overflow.dropped,
        };
        self.registry.diagnostics().report(err.key(), || err.emit());
        Some(err)
    }
}

impl SystemBuilder<'_> {
    /// Declares that the low-level system emits events `E` (take the writer with
    /// [`SystemContext::event_writer`](crate::SystemContext::event_writer)). Typed systems
    /// declare it with an [`EventWriter`](crate::EventWriter) parameter.
    pub fn emits<E: Send + Sync + 'static>(self) -> Self {
        self.event_io::<E>(Access::Emit)
    }

    /// Declares that the low-level system reads events `E`
    /// ([`SystemContext::event_reader`](crate::SystemContext::event_reader)): a fresh read
    /// of the queue, so the declarative rules order it after same-phase writers.
    pub fn reads_events<E: Send + Sync + 'static>(self) -> Self {
        self.event_io::<E>(Access::ReadFresh)
    }

    /// Makes the system reactive: it is skipped, as
    /// [`SkipReason::EventsEmpty`](crate::SkipReason::EventsEmpty), on a tick where no queue
    /// it reads holds an event for it. A skipped reader misses nothing: the events wait for
    /// its next run. It must read at least one queue.
    pub fn reactive(mut self) -> Self {
        self.reactive = true;
        self
    }

    fn event_io<E: Send + Sync + 'static>(mut self, access: Access) -> Self {
        match self.world.events_id::<E>() {
            Some(id) => {
                self.def = self.def.io(laige_registry::Io {
                    component: Some(id),
                    access,
                    type_name: Some(type_name::<Events<E>>()),
                });
            }
            None => {
                let err = RegisterError::EventsUnregistered {
                    name: self.def.name,
                    event: type_name::<E>(),
                    access,
                };
                self.event_error.get_or_insert(err);
            }
        }
        self
    }
}
