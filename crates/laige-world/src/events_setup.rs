//! The world's side of event queues: registering one, attaching systems to it, the hooks a
//! tick calls before and after its systems, and the builder's declarations.

use std::any::type_name;

use laige_registry::{Access, MAX_SYSTEMS, RegisterError, SystemDef, SystemId};
use laige_scheduler::Schedule;

use crate::events::{EventQueue, EventsError, MAX_EVENT_WRITERS, QueueEntry, ReactiveCheck};
use crate::events_report::EventsReport;
use crate::{ComponentId, SystemBuilder, SystemRun, TickError, World};

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
            && let Ok(queue) = self.resource::<EventQueue<E>>()
        {
            let err = EventsError::AlreadyRegistered {
                event,
                capacity: queue.capacity,
            };
            return Err(self.report_events(err));
        }
        let id = self
            .insert_resource(EventQueue::<E>::new(capacity))
            .map_err(EventsError::World)?;
        // Schedules, warnings and graphs name the queue `Events<Hit>`, not by its private
        // type's path. Setup-time: the name is kept once per process.
        let name = crate::world::intern(format!("Events<{}>", short_name(event)).into());
        self.registry.register_component_info(id, name, false);
        self.events.queues.push(QueueEntry::of::<E>(id));
        Ok(id)
    }

    /// Makes `E`'s queue part of a saved world state ([`World::save_state`]): its buffers of
    /// events not yet read and its readers' cursors, cloned (`E: Clone`). Without it, saving
    /// a world that has the queue is an error naming it.
    ///
    /// # Errors
    ///
    /// [`EventsError::NotRegistered`] when no queue of `E` is registered.
    pub fn save_events<E: Clone + Send + Sync + 'static>(&mut self) -> Result<(), EventsError> {
        if self.events_id::<E>().is_none() {
            return Err(self.report_events(EventsError::NotRegistered {
                event: type_name::<E>(),
            }));
        }
        self.storage.save_resource::<EventQueue<E>>();
        Ok(())
    }

    /// Writes `event` into `E`'s queue from outside the tick (input, network, tools): every
    /// reader sees it in its next run, before the events that run's tick emits. Up to the
    /// queue's capacity between two ticks.
    ///
    /// # Errors
    ///
    /// [`EventsError::NotRegistered`] when no queue of `E` is registered,
    /// [`EventsError::Full`] past the capacity (the event is dropped and reported).
    pub fn write_event<E: Send + Sync + 'static>(&mut self, event: E) -> Result<(), EventsError> {
        let queue = match self.events_id::<E>() {
            Some(_) => self.resource_mut::<EventQueue<E>>().ok(),
            None => None,
        };
        let Some(queue) = queue else {
            let err = EventsError::NotRegistered {
                event: type_name::<E>(),
            };
            return Err(self.report_events(err));
        };
        let capacity = match queue.inject(event) {
            Ok(()) => return Ok(()),
            Err(_) => queue.capacity,
        };
        let err = EventsError::Full {
            event: type_name::<E>(),
            capacity,
        };
        Err(self.report_events(err))
    }

    /// The id of `E`'s event queue, if registered: the id systems declare access to, as
    /// schedules, graphs and errors name it (`EventQueue<E>`).
    pub fn events_id<E: Send + Sync + 'static>(&self) -> Option<ComponentId> {
        let id = self.component_id::<EventQueue<E>>()?;
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
                && io
                    .component
                    .is_some_and(|id| self.events.entry(id).is_some())
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
                (entry.add_writer)(&mut self.queries(), id);
                self.events.queues[i].writers += 1;
            }
            if reads.contains(entry.id) {
                (entry.add_reader)(&mut self.queries(), id);
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
            (self.events.queues[i].begin_tick)(&mut self.queries(), tick, place);
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
            (entry.end_tick)(&mut self.queries(), tick, entry.event, &mut report);
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
                    type_name: Some(type_name::<EventQueue<E>>()),
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

/// `Hit` for `game::Hit`; a generic type keeps its full name.
fn short_name(full: &'static str) -> &'static str {
    if full.contains('<') {
        return full;
    }
    full.rsplit("::").next().unwrap_or(full)
}
