//! What a tick's event queues report: events a writer emitted past its capacity, and events
//! a reader never saw before their writer emitted again.

use std::fmt;

use laige_registry::SystemId;

/// A writer emitted more events in one run than its queue's capacity: the events past it
/// were not stored. Returned as [`TickError::EventsOverflowed`](crate::TickError) and kept in
/// the [`TickReport`](crate::TickReport).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EventOverflow {
    /// The event type's name (the queue).
    pub event: &'static str,
    /// The writer.
    pub system: SystemId,
    /// Its registration name.
    pub name: &'static str,
    /// The queue's capacity: what one writer may emit per run.
    pub capacity: usize,
    /// How many events this run emitted past it (not stored).
    pub dropped: u32,
}

impl fmt::Display for EventOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let event = laige_diag::Text::name(self.event);
        write!(
            f,
            "system `{}` emitted {} `{event}` event(s) past the queue's capacity of {} per \
             writer and run; those were not stored: register the queue with a larger capacity \
             (`world.register_events::<{event}>(n)`), or emit fewer",
            laige_diag::Text::name(self.name),
            self.dropped,
            self.capacity
        )
    }
}

/// Events a writer emitted that a declared reader never saw: the reader did not run (it was
/// skipped, or not scheduled) between the writer's run and the writer's next run, which
/// starts a new buffer. A queue without readers reports every event it is given.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EventsUnread {
    /// The event type's name (the queue).
    pub event: &'static str,
    /// The writer whose events were dropped; `None` for events the world wrote between
    /// ticks (`World::write_event`).
    pub writer: Option<SystemId>,
    /// Its registration name.
    pub writer_name: &'static str,
    /// The first reader (in registration order) that missed them; `None` when the queue
    /// has no reader.
    pub reader: Option<SystemId>,
    /// Its registration name (empty without a reader).
    pub reader_name: &'static str,
    /// How many events the reader missed.
    pub count: u32,
}

impl fmt::Display for EventsUnread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let event = laige_diag::Text::name(self.event);
        let writer = laige_diag::Text::name(self.writer_name);
        let writer = format_args!(
            "{}{writer}{}",
            if self.writer.is_some() {
                "system `"
            } else {
                ""
            },
            if self.writer.is_some() { "`" } else { "" }
        );
        match self.reader {
            Some(_) => write!(
                f,
                "{} `{event}` event(s) of {writer} were dropped before reader `{}` \
                 ran: a reader that is skipped or not scheduled misses what its writers emit \
                 meanwhile; schedule it every tick the writer runs",
                self.count,
                laige_diag::Text::name(self.reader_name)
            ),
            None => write!(
                f,
                "{} `{event}` event(s) of {writer} were dropped: no system reads the \
                 queue (add an `EventReader<{event}>`, or stop emitting)",
                self.count
            ),
        }
    }
}

/// The event queues' part of a [`TickReport`](crate::TickReport): what overflowed and what
/// was dropped unread this tick, the first of each in schedule order of the writers.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct EventsReport {
    overflowed: u64,
    first_overflow: Option<EventOverflow>,
    unread: u64,
    first_unread: Option<EventsUnread>,
}

impl EventsReport {
    /// Events emitted past a capacity this tick (not stored), over every queue.
    pub fn overflowed(&self) -> u64 {
        self.overflowed
    }

    /// The first overflow, by the writers' schedule order over the queues in registration
    /// order.
    pub fn first_overflow(&self) -> Option<&EventOverflow> {
        self.first_overflow.as_ref()
    }

    /// Events dropped unread this tick, counted once per reader that missed them.
    pub fn unread(&self) -> u64 {
        self.unread
    }

    /// The first drop, in the same order as [`EventsReport::first_overflow`].
    pub fn first_unread(&self) -> Option<&EventsUnread> {
        self.first_unread.as_ref()
    }

    /// Whether no event overflowed or was dropped unread.
    pub fn is_clean(&self) -> bool {
        self.overflowed == 0 && self.unread == 0
    }

    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    pub(crate) fn record_overflow(&mut self, overflow: EventOverflow) {
        self.overflowed += u64::from(overflow.dropped);
        self.first_overflow.get_or_insert(overflow);
    }

    /// Fills in the writers' names, which the queues do not know.
    pub(crate) fn name_systems(&mut self, name_of: impl Fn(SystemId) -> &'static str) {
        if let Some(it) = &mut self.first_overflow {
            it.name = name_of(it.system);
        }
        if let Some(it) = &mut self.first_unread {
            it.writer_name = it.writer.map_or("the world", &name_of);
            it.reader_name = it.reader.map_or("", &name_of);
        }
    }

    pub(crate) fn record_unread(&mut self, unread: EventsUnread) {
        self.unread += u64::from(unread.count);
        self.first_unread.get_or_insert(unread);
    }
}
