//! Event queues as declared access: [`EventWriter`] and [`EventReader`] parameters (and
//! their builder declarations, `.emits::<E>()` and `.reads_events::<E>()`), over queues a
//! world registers with a capacity ([`World::register_events`](crate::World::register_events)).
//!
//! A queue is an id in the registry's component space, so its access is inside the
//! scheduler's proof: an emitter conflicts with the queue's readers (they are ordered), two
//! emitters do not (each appends to a buffer of its own). What a reader's run sees:
//!
//! - the events of every writer ordered before it, emitted this tick, and
//! - the events of every writer ordered after it, emitted last tick,
//!
//! oldest first (by tick, then the writers' schedule positions, then emission order), each
//! event exactly once. So delivery does not depend on which side of a writer a reader sits,
//! only when it sees the events, and the order is a pure function of the schedule.
//!
//! ```
//! use laige_world::{EventReader, EventWriter, World, WorldOptions};
//!
//! #[derive(Debug, PartialEq)]
//! struct Hit(u32);
//!
//! let mut world = World::new(WorldOptions::default());
//! world.register_events::<Hit>(64)?;
//! world
//!     .system("Collide", |mut hits: EventWriter<'_, Hit>| hits.write(Hit(7)))
//!     .register()?;
//! world
//!     .system("Damage", |hits: EventReader<'_, Hit>| {
//!         assert_eq!(hits.read().collect::<Vec<_>>(), [&Hit(7)]);
//!     })
//!     .after("Collide")
//!     .register()?;
//! let schedule = world.schedule()?;
//! world.run_systems(&schedule)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod queue;
mod queues;

use std::any::type_name;
use std::fmt;
use std::iter::FusedIterator;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

use laige_query::Claim;
use laige_registry::{Access, SystemId};

use crate::system::{ParamFetch, ParamInit, SystemParam};
use crate::{Batch, Queries, QueryError};

pub(crate) use queue::Events as EventQueue;
pub use queue::MAX_EVENT_WRITERS;
use queue::{Buffer, Events, MAX_BUFFERS};
pub use queues::EventsError;
pub(crate) use queues::{EventQueues, QueueEntry, ReactiveCheck};

/// A system parameter that emits events `E`: `mut hits: EventWriter<'_, Hit>`, then
/// `hits.write(Hit { .. })`.
///
/// It declares [`Access::Emit`] of `E`'s queue, which must be registered
/// ([`World::register_events`](crate::World::register_events)). Each writer has a buffer of
/// the queue's capacity; a run that emits past it loses the extra events, which the tick
/// reports ([`EventOverflow`](crate::EventOverflow)). A writer's run replaces what its previous run emitted, so
/// readers see each run's events once.
pub struct EventWriter<'a, E> {
    buffer: RwLockWriteGuard<'a, Buffer<E>>,
    capacity: usize,
}

impl<E> EventWriter<'_, E> {
    /// Emits `event`. Past the queue's capacity it is not stored, and the tick reports the
    /// overflow ([`TickError::EventsOverflowed`](crate::TickError::EventsOverflowed)).
    #[inline]
    pub fn write(&mut self, event: E) {
        if self.buffer.events.len() < self.capacity {
            self.buffer.events.push(event);
        } else {
            self.buffer.overflowed = self.buffer.overflowed.saturating_add(1);
        }
    }

    /// [`EventWriter::write`], by bevy's older name.
    #[inline]
    pub fn send(&mut self, event: E) {
        self.write(event);
    }

    /// Emits every event of `events`, in order.
    pub fn write_batch(&mut self, events: impl IntoIterator<Item = E>) {
        for event in events {
            self.write(event);
        }
    }

    /// How many events this run emitted so far (those stored).
    pub fn len(&self) -> usize {
        self.buffer.events.len()
    }

    /// Whether this run emitted nothing yet.
    pub fn is_empty(&self) -> bool {
        self.buffer.events.is_empty()
    }

    /// How many more events this run may emit before the capacity.
    pub fn remaining(&self) -> usize {
        self.capacity - self.buffer.events.len()
    }

    /// A sink that the batches of a `par_each` loop emit into at once:
    /// `let sink = hits.par_sink(); q.par_each(|batch, item| sink.write(batch, ..))?;`.
    /// When it is dropped its events join this run's, after those written before it, in
    /// batch index order and, within a batch, in emission order: the same order on every
    /// thread count. The capacity applies to the merged events, in that order.
    pub fn par_sink(&mut self) -> ParEventSink<'_, E> {
        let capacity = self.capacity;
        let batches = self
            .buffer
            .batches
            .get_mut()
            .unwrap_or_else(|it| it.into_inner());
        // Sized once, on first use; only a run past the capacity grows it further.
        batches.reserve(capacity.saturating_sub(batches.len()));
        ParEventSink {
            buffer: &mut self.buffer,
            capacity,
            counter: AtomicU32::new(0),
        }
    }
}

/// Where the batches of a `par_each` loop emit events ([`EventWriter::par_sink`]).
pub struct ParEventSink<'w, E> {
    buffer: &'w mut Buffer<E>,
    capacity: usize,
    /// Orders a batch's events among themselves: a batch runs on one thread, so its
    /// events draw increasing numbers.
    counter: AtomicU32,
}

impl<E> ParEventSink<'_, E> {
    /// Emits `event` from the batch `batch`.
    pub fn write(&self, batch: &Batch<'_>, event: E) {
        let order = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut batches = self
            .buffer
            .batches
            .lock()
            .unwrap_or_else(|it| it.into_inner());
        batches.push((batch.index(), order, event));
    }
}

impl<E> Drop for ParEventSink<'_, E> {
    fn drop(&mut self) {
        let Buffer {
            events,
            overflowed,
            batches,
            ..
        } = &mut *self.buffer;
        let batches = batches.get_mut().unwrap_or_else(|it| it.into_inner());
        // (batch, order) is unique, so the unstable sort (which allocates nothing) is exact.
        batches.sort_unstable_by_key(|&(batch, order, _)| (batch, order));
        for (_, _, event) in batches.drain(..) {
            if events.len() < self.capacity {
                events.push(event);
            } else {
                *overflowed = overflowed.saturating_add(1);
            }
        }
    }
}

impl<E> fmt::Debug for ParEventSink<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParEventSink")
            .field("event", &type_name::<E>())
            .finish_non_exhaustive()
    }
}

impl<E> fmt::Debug for EventWriter<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventWriter")
            .field("event", &type_name::<E>())
            .field("len", &self.buffer.events.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// A system parameter that reads events `E`: `hits: EventReader<'_, Hit>`, then
/// `for hit in hits.read() { .. }`.
///
/// It declares a fresh read of `E`'s queue, which must be registered. A run is handed the
/// events emitted since the reader's previous run (docs/api/events.md) whether it
/// iterates them or not; [`EventReader::read`] may be called any number of times in it.
pub struct EventReader<'a, E> {
    guards: [Option<RwLockReadGuard<'a, Buffer<E>>>; MAX_BUFFERS],
    count: usize,
    len: usize,
}

impl<'a, E> EventReader<'a, E> {
    fn open(queue: &'a Events<E>, slot: usize) -> Self {
        let mut guards = [const { None }; MAX_BUFFERS];
        let (count, len) = queue.open_reader(slot, &mut guards);
        Self { guards, count, len }
    }

    /// This run's events, oldest first: by the tick they were emitted in, then by their
    /// writers' schedule positions, then in emission order.
    pub fn read(&self) -> EventIter<'_, E> {
        EventIter {
            buffers: &self.guards[..self.count],
            current: [].iter(),
            left: self.len,
        }
    }

    /// How many events this run sees.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether this run sees no event.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<E> fmt::Debug for EventReader<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventReader")
            .field("event", &type_name::<E>())
            .field("len", &self.len)
            .finish()
    }
}

/// The events of one reader's run ([`EventReader::read`]), oldest first.
pub struct EventIter<'r, E> {
    buffers: &'r [Option<RwLockReadGuard<'r, Buffer<E>>>],
    current: std::slice::Iter<'r, E>,
    left: usize,
}

impl<'r, E> Iterator for EventIter<'r, E> {
    type Item = &'r E;

    #[inline]
    fn next(&mut self) -> Option<&'r E> {
        loop {
            if let Some(event) = self.current.next() {
                self.left -= 1;
                return Some(event);
            }
            let (first, rest) = self.buffers.split_first()?;
            self.buffers = rest;
            self.current = first.as_ref().map_or(&[][..], |it| &it.events[..]).iter();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }

    fn fold<B, F: FnMut(B, &'r E) -> B>(self, init: B, mut f: F) -> B {
        // Slice by slice, so a loop over the events is a plain loop over each buffer.
        let mut acc = self.current.fold(init, &mut f);
        for buffer in self.buffers.iter().flatten() {
            acc = buffer.events.iter().fold(acc, &mut f);
        }
        acc
    }
}

impl<E> ExactSizeIterator for EventIter<'_, E> {}
impl<E> FusedIterator for EventIter<'_, E> {}

impl<E> fmt::Debug for EventIter<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventIter")
            .field("left", &self.left)
            .finish()
    }
}

/// What an event parameter keeps between runs: its claim on the queue, and its slot there.
#[derive(Clone, Copy, Debug)]
pub struct EventParamState {
    claim: Claim,
    slot: Option<usize>,
}

/// `E`'s queue through `view`, and `system`'s slot in it (cached in `slot`).
fn queue_of<'a, E: Send + Sync + 'static>(
    view: Queries<'a>,
    system: SystemId,
    slot: &mut Option<usize>,
    find: fn(&Events<E>, SystemId) -> Option<usize>,
) -> Result<(&'a Events<E>, usize), QueryError> {
    let queue = view.into_resource::<Events<E>>()?;
    if let Some(slot) = *slot {
        return Ok((queue, slot));
    }
    // The world attached the system to the queue when it registered it.
    let found = find(queue, system).ok_or(QueryError::NoResource {
        system: "?",
        system_id: system,
        component: type_name::<Events<E>>(),
        is_component: false,
    })?;
    *slot = Some(found);
    Ok((queue, found))
}

impl EventParamState {
    /// Declares `access` to `E`'s queue for the parameter being set up.
    fn declare<E: Send + Sync + 'static>(init: &mut ParamInit<'_>, access: Access) -> Self {
        init.event_queue::<Events<E>>(type_name::<E>(), access);
        Self {
            claim: init.take_claim(),
            slot: None,
        }
    }

    /// The queue and the system's slot in it (`find` says which kind), found once.
    fn queue<'a, E: Send + Sync + 'static>(
        &'a mut self,
        fetch: &mut ParamFetch<'a>,
        find: fn(&Events<E>, SystemId) -> Option<usize>,
    ) -> Result<(&'a Events<E>, usize), QueryError> {
        let view = fetch.view(&self.claim)?;
        queue_of(view, fetch.system(), &mut self.slot, find)
    }
}

impl<E: Send + Sync + 'static> SystemParam for EventWriter<'_, E> {
    type State = EventParamState;
    type Item<'a> = EventWriter<'a, E>;

    fn init(init: &mut ParamInit<'_>) -> EventParamState {
        EventParamState::declare::<E>(init, Access::Emit)
    }

    #[inline]
    fn fetch<'a>(
        state: &'a mut EventParamState,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<EventWriter<'a, E>, QueryError> {
        let (queue, slot) = state.queue(fetch, Events::writer_slot)?;
        Ok(EventWriter {
            buffer: queue.open_writer(slot),
            capacity: queue.capacity,
        })
    }
}

impl<E: Send + Sync + 'static> SystemParam for EventReader<'_, E> {
    type State = EventParamState;
    type Item<'a> = EventReader<'a, E>;

    fn init(init: &mut ParamInit<'_>) -> EventParamState {
        EventParamState::declare::<E>(init, Access::ReadFresh)
    }

    #[inline]
    fn fetch<'a>(
        state: &'a mut EventParamState,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<EventReader<'a, E>, QueryError> {
        let (queue, slot) = state.queue(fetch, Events::reader_slot)?;
        Ok(EventReader::open(queue, slot))
    }
}

/// A run-condition parameter: whether the system's own reader of `E` has events waiting,
/// left unread for the system. [`on_event`](crate::on_event) is the condition made of it.
///
/// It declares the same fresh read of `E`'s queue as an [`EventReader`], so the system it
/// guards is `E`'s reader (one per system) and is ordered after `E`'s writers as a reader is.
pub struct EventsWaiting<'a, E> {
    queue: &'a Events<E>,
    slot: usize,
}

impl<E> EventsWaiting<'_, E> {
    /// Whether the system's next reader run would see any event.
    pub fn any(&self) -> bool {
        self.queue.pending(self.slot)
    }
}

impl<E> fmt::Debug for EventsWaiting<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventsWaiting")
            .field("event", &type_name::<E>())
            .finish()
    }
}

impl<E: Send + Sync + 'static> SystemParam for EventsWaiting<'_, E> {
    type State = EventParamState;
    type Item<'a> = EventsWaiting<'a, E>;

    fn init(init: &mut ParamInit<'_>) -> EventParamState {
        EventParamState::declare::<E>(init, Access::ReadFresh)
    }

    #[inline]
    fn fetch<'a>(
        state: &'a mut EventParamState,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<EventsWaiting<'a, E>, QueryError> {
        let (queue, slot) = state.queue(fetch, Events::reader_slot)?;
        Ok(EventsWaiting { queue, slot })
    }
}

impl<'w> crate::SystemContext<'w> {
    /// A writer of events `E` for this run of a low-level system that declared
    /// `.emits::<E>()`. Take it once per run: a second one would wait on the first.
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] when the system did not declare `.emits::<E>()`;
    /// [`QueryError::NoResource`] when `E`'s queue is not registered.
    pub fn event_writer<E: Send + Sync + 'static>(
        &mut self,
    ) -> Result<EventWriter<'_, E>, QueryError> {
        let id = self.id();
        let view = (**self).reborrow();
        let (queue, slot) = queue_of(view, id, &mut None, Events::writer_slot)?;
        Ok(EventWriter {
            buffer: queue.open_writer(slot),
            capacity: queue.capacity,
        })
    }

    /// A reader of events `E` for this run of a low-level system that declared
    /// `.reads_events::<E>()`: the events since its previous run. Take it once per run: the
    /// run's events are handed to the first reader taken.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::event_writer`](crate::SystemContext::event_writer), for a
    /// system that did not declare `.reads_events::<E>()`.
    pub fn event_reader<E: Send + Sync + 'static>(
        &mut self,
    ) -> Result<EventReader<'_, E>, QueryError> {
        let id = self.id();
        let view = (**self).reborrow();
        let (queue, slot) = queue_of(view, id, &mut None, Events::reader_slot)?;
        Ok(EventReader::open(queue, slot))
    }
}
