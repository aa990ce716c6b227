//! One event queue: a buffer per writer, a cursor per reader, and the stamps that decide
//! which events a reader's run sees.
//!
//! A stamp is `(tick, schedule position)` in one `u64`. A writer's run starts a new buffer
//! stamped with its own tick and position; a reader's run sees every buffer stamped after
//! its previous run and before itself, oldest first, and moves its cursor to itself. The
//! scheduler orders every writer against every reader of a queue (they conflict), so a
//! buffer a reader sees is finished, and which buffers it sees is a pure function of the
//! schedule and the tick: the same on the sequential runner and at any worker count.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use laige_registry::SystemId;

use crate::events_report::EventsUnread;

/// The most writers one queue has: a reader holds one guard per writer it reads from.
pub const MAX_EVENT_WRITERS: usize = 16;

/// The buffers a reader may hold at once: every writer's, and the world's.
pub(crate) const MAX_BUFFERS: usize = MAX_EVENT_WRITERS + 1;

/// The position of events the world writes between ticks (`World::write_event`): after
/// every system of the tick before, before every system of the next.
const BETWEEN_TICKS: u16 = u16::MAX;

/// The stamp of a run at `position` of the schedule in tick `tick`.
#[inline]
pub(crate) fn stamp(tick: u64, position: u16) -> u64 {
    (tick << 16) | u64::from(position)
}

/// What one writer emitted in its latest run.
#[derive(Debug)]
pub(crate) struct Buffer<E> {
    /// The run that filled it (0: never ran).
    pub(crate) stamp: u64,
    pub(crate) events: Vec<E>,
    /// Events emitted past the capacity in that run, not stored.
    pub(crate) overflowed: u32,
    /// What the run found unread in the buffer it replaced.
    pub(crate) unread: Option<Unread>,
    /// Events `par_each` batches emitted, with their batch index and an emission counter,
    /// until they are merged in batch order. Sized on first use.
    pub(crate) batches: Mutex<Vec<(u32, u32, E)>>,
}

/// Events a writer's run found unread when it replaced its buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unread {
    pub(crate) first_reader: Option<SystemId>,
    pub(crate) count: u32,
    /// How many readers missed them (1 for a queue with no reader).
    pub(crate) readers: u32,
}

impl Unread {
    pub(crate) fn report(&self, event: &'static str, writer: Option<SystemId>) -> EventsUnread {
        EventsUnread {
            event,
            writer,
            writer_name: "",
            reader: self.first_reader,
            reader_name: "",
            count: self.count,
        }
    }
}

#[derive(Debug)]
pub(crate) struct WriterSlot<E> {
    pub(crate) system: SystemId,
    /// Its step in the schedule being run.
    pub(crate) position: u16,
    pub(crate) buffer: RwLock<Buffer<E>>,
}

#[derive(Debug)]
pub(crate) struct ReaderSlot {
    pub(crate) system: SystemId,
    pub(crate) position: u16,
    /// The stamp of its latest run: it has seen every buffer stamped before.
    cursor: AtomicU64,
}

/// The queue of events `E`, stored as a resource of the world under its own id, which is
/// the id systems declare access to. Its type is private to this crate, so no system can
/// reach it but through [`EventWriter`](super::EventWriter) and
/// [`EventReader`](super::EventReader).
#[derive(Debug)]
pub(crate) struct Events<E> {
    pub(crate) capacity: usize,
    /// The tick being run, set before each tick.
    pub(crate) tick: u64,
    pub(crate) writers: Vec<WriterSlot<E>>,
    pub(crate) readers: Vec<ReaderSlot>,
    /// What the world wrote between ticks ([`Events::inject`]); sized on first use.
    pub(crate) injected: RwLock<Buffer<E>>,
}

fn empty_buffer<E>(capacity: usize) -> Buffer<E> {
    Buffer {
        stamp: 0,
        events: Vec::with_capacity(capacity),
        overflowed: 0,
        unread: None,
        batches: Mutex::new(Vec::new()),
    }
}

// What a saved world state keeps of a queue (`World::save_events`): between ticks a queue is
// its buffers and cursors; `clone_from` reuses the target's buffers, so a warm save or
// restore allocates nothing. A `par_each` batch list is empty between ticks (merged).

impl<E: Clone> Clone for Buffer<E> {
    fn clone(&self) -> Self {
        Self {
            stamp: self.stamp,
            events: self.events.clone(),
            overflowed: self.overflowed,
            unread: self.unread,
            batches: Mutex::new(Vec::new()),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.stamp = source.stamp;
        self.events.clone_from(&source.events);
        self.overflowed = source.overflowed;
        self.unread = source.unread;
        self.batches
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

impl<E: Clone> Clone for WriterSlot<E> {
    fn clone(&self) -> Self {
        Self {
            system: self.system,
            position: self.position,
            buffer: RwLock::new(
                self.buffer
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone(),
            ),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.system = source.system;
        self.position = source.position;
        let from = source.buffer.read().unwrap_or_else(PoisonError::into_inner);
        self.buffer
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clone_from(&from);
    }
}

impl Clone for ReaderSlot {
    fn clone(&self) -> Self {
        Self {
            system: self.system,
            position: self.position,
            cursor: AtomicU64::new(self.cursor.load(Ordering::Acquire)),
        }
    }
}

impl<E: Clone> Clone for Events<E> {
    fn clone(&self) -> Self {
        Self {
            capacity: self.capacity,
            tick: self.tick,
            writers: self.writers.clone(),
            readers: self.readers.clone(),
            injected: RwLock::new(
                self.injected
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone(),
            ),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.capacity = source.capacity;
        self.tick = source.tick;
        self.writers.clone_from(&source.writers);
        self.readers.clone_from(&source.readers);
        let from = source
            .injected
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        self.injected
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clone_from(&from);
    }
}

impl<E> Events<E> {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            tick: 0,
            writers: Vec::new(),
            readers: Vec::new(),
            injected: RwLock::new(empty_buffer(0)),
        }
    }

    /// Writes `event` from outside the tick, for every reader's next run; `Err` gives it
    /// back when the world already wrote the capacity since the last tick.
    pub(crate) fn inject(&mut self, event: E) -> Result<(), E> {
        let now = stamp(self.tick, BETWEEN_TICKS);
        let Events {
            capacity,
            readers,
            injected,
            ..
        } = self;
        let buffer = injected.get_mut().unwrap_or_else(|it| it.into_inner());
        if buffer.stamp != now {
            buffer.unread = unread_in(readers, buffer);
            buffer.events.clear();
            buffer.stamp = now;
        }
        if buffer.events.len() >= *capacity {
            return Err(event);
        }
        // Sized once, on the first write: later ones reuse it.
        buffer.events.reserve(*capacity - buffer.events.len());
        buffer.events.push(event);
        Ok(())
    }

    /// Adds system `system` as a writer, with a buffer of the queue's capacity (setup-time
    /// allocation: a run never grows it).
    pub(crate) fn add_writer(&mut self, system: SystemId) {
        self.writers.push(WriterSlot {
            system,
            position: u16::MAX,
            buffer: RwLock::new(empty_buffer(self.capacity)),
        });
    }

    pub(crate) fn add_reader(&mut self, system: SystemId) {
        self.readers.push(ReaderSlot {
            system,
            position: u16::MAX,
            cursor: AtomicU64::new(0),
        });
    }

    /// The writer slot of `system`, if it writes this queue.
    pub(crate) fn writer_slot(&self, system: SystemId) -> Option<usize> {
        self.writers.iter().position(|it| it.system == system)
    }

    pub(crate) fn reader_slot(&self, system: SystemId) -> Option<usize> {
        self.readers.iter().position(|it| it.system == system)
    }

    /// Opens writer `slot`'s buffer for a run: a new run replaces what the previous one
    /// emitted, after counting what a reader never saw of it.
    pub(crate) fn open_writer(&self, slot: usize) -> RwLockWriteGuard<'_, Buffer<E>> {
        let writer = &self.writers[slot];
        let now = stamp(self.tick, writer.position);
        let mut buffer = lock_write(&writer.buffer);
        if buffer.stamp != now {
            buffer.unread = unread_in(&self.readers, &buffer);
            buffer.events.clear();
            buffer.overflowed = 0;
            buffer.stamp = now;
        }
        buffer
    }

    /// Every buffer a reader looks at: each writer's, then the world's.
    fn buffers(&self) -> impl Iterator<Item = &RwLock<Buffer<E>>> {
        let writers = self.writers.iter().map(|it| &it.buffer);
        writers.chain(std::iter::once(&self.injected))
    }

    /// The window reader `slot`'s run at this tick sees: stamps after `from`, before `now`.
    fn window(&self, slot: usize) -> (u64, u64) {
        let reader = &self.readers[slot];
        let now = stamp(self.tick, reader.position);
        (reader.cursor.load(Ordering::Relaxed), now)
    }

    /// Opens reader `slot`'s run: the buffers it sees, oldest first, in `guards`; moves its
    /// cursor past them. Returns how many guards and events.
    pub(crate) fn open_reader<'a>(
        &'a self,
        slot: usize,
        guards: &mut [Option<RwLockReadGuard<'a, Buffer<E>>>; MAX_BUFFERS],
    ) -> (usize, usize) {
        let (from, now) = self.window(slot);
        self.readers[slot].cursor.store(now, Ordering::Relaxed);
        let (mut count, mut len) = (0, 0);
        for lock in self.buffers() {
            let buffer = lock_read(lock);
            if from < buffer.stamp && buffer.stamp < now && !buffer.events.is_empty() {
                len += buffer.events.len();
                // Fewer writers than guards: registration caps a queue's writers.
                guards[count] = Some(buffer);
                count += 1;
            }
        }
        // Oldest first: by stamp, so by tick, then by the writers' schedule positions.
        guards[..count].sort_unstable_by_key(|it| it.as_ref().map_or(0, |it| it.stamp));
        (count, len)
    }

    /// Whether reader `slot`'s run would see any event now: what a reactive reader asks
    /// before it runs. Leaves the cursor alone.
    pub(crate) fn pending(&self, slot: usize) -> bool {
        let (from, now) = self.window(slot);
        self.buffers().any(|lock| {
            let buffer = lock_read(lock);
            from < buffer.stamp && buffer.stamp < now && !buffer.events.is_empty()
        })
    }

    /// Sets every slot's schedule position: `position` by system index, `u16::MAX` for a
    /// system the schedule leaves out.
    pub(crate) fn place(&mut self, position: &[u16]) {
        let at = |id: SystemId| position.get(id.index()).copied().unwrap_or(u16::MAX);
        for writer in &mut self.writers {
            writer.position = at(writer.system);
        }
        for reader in &mut self.readers {
            reader.position = at(reader.system);
        }
    }
}

/// What the readers missed of `buffer`, which is about to be replaced. Every reader is
/// ordered against the writer, so each cursor is final here.
fn unread_in<E>(readers: &[ReaderSlot], buffer: &Buffer<E>) -> Option<Unread> {
    if buffer.events.is_empty() {
        return None;
    }
    let count = buffer.events.len() as u32;
    if readers.is_empty() {
        return Some(Unread {
            first_reader: None,
            count,
            readers: 1,
        });
    }
    let mut missed = readers
        .iter()
        .filter(|it| it.cursor.load(Ordering::Relaxed) < buffer.stamp);
    let first = missed.next()?;
    Some(Unread {
        first_reader: Some(first.system),
        count,
        readers: 1 + missed.count() as u32,
    })
}

/// A poisoned lock only means a system panicked while holding it; the buffer is still a
/// valid `Vec`, and the panic is reported where it happened.
fn lock_write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn lock_read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}
