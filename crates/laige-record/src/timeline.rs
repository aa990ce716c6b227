//! The tick timeline: where and when every system ran, plus each track's barrier and its
//! command application, kept for the last few ticks and exported as Chrome Trace Event
//! Format JSON (Perfetto, `chrome://tracing`).
//!
//! Recording writes raw clock readings into buffers sized when the schedule is first seen,
//! so a recorded tick allocates nothing. Readings become nanoseconds only on export.

use std::fmt::Write as _;
use std::io;

use laige_diag::{ClockSpan, TickClock};
use laige_registry::{Registry, SystemId};
use laige_scheduler::Schedule;

/// The raw clock readings around one track: before its first system, after its last one
/// returned (the end of its barrier), and after its commands were applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TrackMarks {
    start: u64,
    ran: u64,
    applied: u64,
}

/// One scheduled system, as the timeline names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    id: SystemId,
    name: &'static str,
}

/// What a [`TimelineEvent`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelineKind {
    /// System `id` ran.
    System {
        /// The system.
        id: SystemId,
        /// Its registration name.
        name: &'static str,
    },
    /// The whole track, from before its first system to the end of its barrier.
    Track,
    /// The track's barrier: from the end of its last-finishing system until the calling
    /// thread learned the track was done (the join cost of a parallel track).
    Barrier,
    /// Settling the track's panics and applying its systems' commands, in schedule order.
    Commands,
}

/// One span of a recorded tick, in nanoseconds since recording started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimelineEvent {
    /// The world's tick number (0 for the first tick the world ran).
    pub tick: u64,
    /// The track index.
    pub track: u32,
    /// What ran.
    pub kind: TimelineKind,
    /// The thread: 0 is the thread that called `run_systems`, executor workers are 1 and up.
    pub thread: u32,
    /// Nanoseconds from the start of recording to the start of the span.
    pub start_ns: u64,
    /// Nanoseconds from the start of recording to its end (never before `start_ns`).
    pub end_ns: u64,
    /// For a system that did not run this tick, why (the skip reason's token, e.g.
    /// `run_condition_false`); its span is then the gate's check alone.
    pub skipped: Option<&'static str>,
}

/// The last ticks' timelines of one world; see `World::record_timeline`.
///
/// The world drives it each tick (the `mark_*`, `begin_tick` and `record_track` methods);
/// a timeline made with [`Timeline::new`] and driven by hand records what it is given.
#[derive(Clone, Debug)]
pub struct Timeline {
    clock: TickClock,
    origin: u64,
    capacity: usize,
    /// The schedule the buffers are laid out for (its stamp), 0 before the first tick.
    schedule: u64,
    rows: Vec<Row>,
    /// Track `t`'s rows are `track_rows[t]..track_rows[t + 1]`.
    track_rows: Vec<usize>,
    /// How many ticks were recorded in all (the ring holds the last `capacity`).
    recorded: u64,
    /// Per ring slot: the world's tick number.
    ticks: Vec<u64>,
    /// Per ring slot and track.
    marks: Vec<TrackMarks>,
    /// Per ring slot and row.
    spans: Vec<ClockSpan>,
    /// Per ring slot and row: why the system was skipped, if it was.
    skips: Vec<Option<&'static str>>,
    /// The marks of the track running now.
    current: TrackMarks,
    /// The counter tracks' names, in the order added (at most [`MAX_COUNTERS`]).
    counter_names: Vec<&'static str>,
    /// Per ring slot, [`MAX_COUNTERS`] values (NaN: not set that tick).
    counters: Vec<f64>,
}

/// The most counter tracks one timeline keeps ([`Timeline::counter_track`]).
pub const MAX_COUNTERS: usize = 8;

/// A counter track of a [`Timeline`]: a value per tick, drawn as a graph above the threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterTrack(usize);

impl Timeline {
    /// An empty timeline keeping the last `capacity` ticks (at least 1), timed on `clock`
    /// from now.
    pub fn new(capacity: usize, clock: TickClock) -> Self {
        let origin = clock.raw();
        Self {
            clock,
            origin,
            capacity: capacity.max(1),
            schedule: 0,
            rows: Vec::new(),
            track_rows: Vec::new(),
            recorded: 0,
            ticks: Vec::new(),
            marks: Vec::new(),
            spans: Vec::new(),
            skips: Vec::new(),
            current: TrackMarks::default(),
            counter_names: Vec::new(),
            counters: Vec::new(),
        }
    }

    /// The counter track named `name`, added the first time it is asked for (setup-time:
    /// the first call sizes the ring's counters); `None` when [`MAX_COUNTERS`] other names
    /// are taken. A layer above the World (a runtime) records its per-tick values here, and
    /// the Chrome trace draws each as a counter (`"ph":"C"`).
    pub fn counter_track(&mut self, name: &'static str) -> Option<CounterTrack> {
        if let Some(k) = self.counter_names.iter().position(|&it| it == name) {
            return Some(CounterTrack(k));
        }
        if self.counter_names.len() == MAX_COUNTERS {
            return None;
        }
        if self.counters.is_empty() {
            self.counters = vec![f64::NAN; self.capacity * MAX_COUNTERS];
        }
        self.counter_names.push(name);
        Some(CounterTrack(self.counter_names.len() - 1))
    }

    /// Sets `track`'s value for the tick recorded last; allocates nothing.
    pub fn set_counter(&mut self, track: CounterTrack, value: f64) {
        if self.recorded == 0 {
            return;
        }
        let slot = self.slot(self.recorded - 1);
        if let Some(cell) = self.counters.get_mut(slot * MAX_COUNTERS + track.0) {
            *cell = value;
        }
    }

    /// The counter values of the ticks held, oldest first: (tick, start of its first track
    /// in nanoseconds since recording started, track name, value), for the values set.
    pub fn counter_values(&self) -> impl Iterator<Item = (u64, u64, &'static str, f64)> + '_ {
        let first = self.recorded - self.len() as u64;
        let tracks = self.track_rows.len().saturating_sub(1);
        (first..self.recorded).flat_map(move |index| {
            let slot = self.slot(index);
            let start = if tracks == 0 {
                0
            } else {
                self.ns(self.marks[slot * tracks].start)
            };
            let tick = self.ticks.get(slot).copied().unwrap_or(0);
            self.counter_names
                .iter()
                .enumerate()
                .filter_map(move |(k, &name)| {
                    let value = *self.counters.get(slot * MAX_COUNTERS + k)?;
                    (!value.is_nan()).then_some((tick, start, name, value))
                })
        })
    }

    /// Marks the start of a track: before its first system.
    #[inline]
    pub fn mark_start(&mut self) {
        self.current.start = self.clock.raw();
    }

    /// Marks the end of a track's run: its last system returned and the caller knows.
    #[inline]
    pub fn mark_ran(&mut self) {
        self.current.ran = self.clock.raw();
    }

    /// Lays the rows out for `schedule` now, if they are not yet, so its first tick
    /// allocates nothing.
    pub fn prepare<R>(&mut self, schedule: &Schedule, registry: &Registry<R>) {
        if self.schedule != schedule.stamp() {
            self.lay_out(schedule, registry);
        }
    }

    /// Lays the buffers out for `schedule` when it is not the one they were laid out for
    /// and orders other systems or tracks, which drops the ticks recorded so far
    /// (setup-time work: a new schedule). Then claims the ring slot of tick `tick`.
    pub fn begin_tick<R>(&mut self, schedule: &Schedule, registry: &Registry<R>, tick: u64) {
        self.prepare(schedule, registry);
        let slot = self.slot(self.recorded);
        self.ticks[slot] = tick;
        if let Some(values) = self
            .counters
            .get_mut(slot * MAX_COUNTERS..(slot + 1) * MAX_COUNTERS)
        {
            values.fill(f64::NAN);
        }
        self.recorded += 1;
    }

    fn lay_out<R>(&mut self, schedule: &Schedule, registry: &Registry<R>) {
        self.schedule = schedule.stamp();
        let mut rows = Vec::new();
        let mut track_rows = Vec::new();
        for track in schedule.tracks() {
            track_rows.push(rows.len());
            for &id in track {
                let name = registry.get(id).map_or("?", |it| it.name());
                rows.push(Row { id, name });
            }
        }
        track_rows.push(rows.len());
        if (&rows, &track_rows) == (&self.rows, &self.track_rows) && !self.ticks.is_empty() {
            return;
        }
        let tracks = track_rows.len() - 1;
        self.rows = rows;
        self.track_rows = track_rows;
        self.recorded = 0;
        self.counters.fill(f64::NAN);
        self.ticks = vec![0; self.capacity];
        self.marks = vec![TrackMarks::default(); self.capacity * tracks];
        self.spans = vec![ClockSpan::default(); self.capacity * self.rows.len()];
        self.skips = vec![None; self.capacity * self.rows.len()];
    }

    fn slot(&self, tick_index: u64) -> usize {
        (tick_index % self.capacity as u64) as usize
    }

    /// Records track `t` of the current tick, its commands just applied: its marks, and
    /// each system's span from `span_of` (the runner's or the executor's last span of it).
    pub fn record_track(&mut self, t: usize, span_of: impl Fn(SystemId) -> ClockSpan) {
        self.current.applied = self.clock.raw();
        let (Some(&first), Some(&last)) = (self.track_rows.get(t), self.track_rows.get(t + 1))
        else {
            return;
        };
        let slot = self.slot(self.recorded.wrapping_sub(1));
        let tracks = self.track_rows.len() - 1;
        self.marks[slot * tracks + t] = self.current;
        let base = slot * self.rows.len();
        for (row, span) in self.rows[first..last]
            .iter()
            .zip(&mut self.spans[base + first..base + last])
        {
            *span = span_of(row.id);
        }
        for skip in &mut self.skips[base + first..base + last] {
            *skip = None;
        }
    }

    /// Records why systems of track `t` of the current tick were skipped (`skip_of` gives a
    /// skip reason's token, `None` for a system that ran); call it after
    /// [`Timeline::record_track`], only for a track with skips.
    pub fn record_skips(&mut self, t: usize, skip_of: impl Fn(SystemId) -> Option<&'static str>) {
        let (Some(&first), Some(&last)) = (self.track_rows.get(t), self.track_rows.get(t + 1))
        else {
            return;
        };
        let base = self.slot(self.recorded.wrapping_sub(1)) * self.rows.len();
        for (row, skip) in self.rows[first..last]
            .iter()
            .zip(&mut self.skips[base + first..base + last])
        {
            *skip = skip_of(row.id);
        }
    }

    /// How many ticks the timeline holds now (at most its capacity).
    pub fn len(&self) -> usize {
        (self.recorded.min(self.capacity as u64)) as usize
    }

    /// Whether no tick was recorded yet (since recording started or the schedule changed).
    pub fn is_empty(&self) -> bool {
        self.recorded == 0
    }

    /// How many ticks it keeps: the last ones.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Every span of the ticks held, oldest tick first; within a tick, track by track: the
    /// track, its systems in schedule order, its barrier, its commands.
    pub fn events(&self) -> impl Iterator<Item = TimelineEvent> + '_ {
        let tracks = self.track_rows.len().saturating_sub(1);
        let first = self.recorded - self.len() as u64;
        (first..self.recorded).flat_map(move |index| {
            let slot = self.slot(index);
            (0..tracks).flat_map(move |t| self.track_events(slot, t))
        })
    }

    /// The events of track `t` in ring slot `slot`.
    fn track_events(&self, slot: usize, t: usize) -> impl Iterator<Item = TimelineEvent> + '_ {
        let tracks = self.track_rows.len() - 1;
        let marks = self.marks[slot * tracks + t];
        let tick = self.ticks[slot];
        let rows = self.track_rows[t]..self.track_rows[t + 1];
        let spans = &self.spans[slot * self.rows.len()..][rows.clone()];
        let skips = &self.skips[slot * self.rows.len()..][rows.clone()];
        let event = move |kind, thread, start, end| TimelineEvent {
            tick,
            track: t as u32,
            kind,
            thread,
            start_ns: self.ns(start),
            end_ns: self.ns(end).max(self.ns(start)),
            skipped: None,
        };
        let last_end = spans.iter().map(|it| it.end).max().unwrap_or(marks.start);
        let systems =
            self.rows[rows]
                .iter()
                .zip(spans)
                .zip(skips)
                .map(move |((row, span), &skipped)| {
                    let kind = TimelineKind::System {
                        id: row.id,
                        name: row.name,
                    };
                    TimelineEvent {
                        skipped,
                        ..event(kind, span.thread, span.start, span.end)
                    }
                });
        std::iter::once(event(TimelineKind::Track, 0, marks.start, marks.ran))
            .chain(systems)
            .chain([
                event(TimelineKind::Barrier, 0, last_end.min(marks.ran), marks.ran),
                event(TimelineKind::Commands, 0, marks.ran, marks.applied),
            ])
    }

    /// Nanoseconds from the start of recording to raw reading `raw`.
    fn ns(&self, raw: u64) -> u64 {
        self.clock.delta_as_nanos(self.origin, raw)
    }

    /// Writes the ticks held as Chrome Trace Event Format JSON: one complete (`"X"`) event
    /// per span, `ts` and `dur` in microseconds with nanosecond decimals, one row (`tid`)
    /// per thread with a `thread_name`, and `args` carrying the tick, the track and a
    /// system's id. Open it in <https://ui.perfetto.dev> or `chrome://tracing`.
    ///
    /// # Errors
    ///
    /// Whatever `out` returns.
    pub fn write_chrome_trace(&self, out: &mut impl io::Write) -> io::Result<()> {
        out.write_all(self.to_chrome_trace().as_bytes())
    }

    /// [`Timeline::write_chrome_trace`] into a string.
    pub fn to_chrome_trace(&self) -> String {
        let mut json = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        json.push_str(
            "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"laige\"}}",
        );
        let threads = self.events().map(|it| it.thread).max().unwrap_or(0);
        for thread in 0..=threads {
            let name = match thread {
                0 => "caller".to_owned(),
                n => format!("laige-exec-{n}"),
            };
            let _ = write!(
                json,
                ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{thread},\"name\":\"thread_name\",\"args\":{{\"name\":\"{name}\"}}}}\
                 ,\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{thread},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{thread}}}}}"
            );
        }
        for event in self.events() {
            json.push_str(",\n");
            write_event(&mut json, &event);
        }
        for (tick, start, name, value) in self.counter_values() {
            json.push_str(",\n{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":");
            write_json_string(&mut json, name);
            json.push_str(",\"ts\":");
            write_micros(&mut json, start);
            let value = if value.is_finite() { value } else { 0.0 };
            let _ = write!(json, ",\"args\":{{\"value\":{value},\"tick\":{tick}}}}}");
        }
        json.push_str("\n]}\n");
        json
    }
}

/// One complete event.
fn write_event(json: &mut String, event: &TimelineEvent) {
    let (category, id) = match event.kind {
        TimelineKind::System { id, .. } => ("system", Some(id)),
        TimelineKind::Track => ("track", None),
        TimelineKind::Barrier => ("barrier", None),
        TimelineKind::Commands => ("commands", None),
    };
    json.push_str("{\"ph\":\"X\",\"pid\":1,\"tid\":");
    let _ = write!(json, "{},\"cat\":\"{category}\",\"name\":", event.thread);
    match event.kind {
        TimelineKind::System { name, .. } => write_json_string(json, name),
        _ => {
            let _ = write!(json, "\"{category} {}\"", event.track);
        }
    }
    json.push_str(",\"ts\":");
    write_micros(json, event.start_ns);
    json.push_str(",\"dur\":");
    write_micros(json, event.end_ns - event.start_ns);
    let _ = write!(
        json,
        ",\"args\":{{\"tick\":{},\"track\":{}",
        event.tick, event.track
    );
    if let Some(id) = id {
        let _ = write!(json, ",\"id\":{}", id.get());
    }
    if let Some(reason) = event.skipped {
        json.push_str(",\"skipped\":");
        write_json_string(json, reason);
    }
    json.push_str("}}");
}

/// `nanos` as microseconds with three decimals: exact, and the same on every machine.
fn write_micros(json: &mut String, nanos: u64) {
    let _ = write!(json, "{}.{:03}", nanos / 1000, nanos % 1000);
}

/// `text` as a JSON string literal.
fn write_json_string(json: &mut String, text: &str) {
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(json, "\\u{:04x}", u32::from(c));
            }
            c => json.push(c),
        }
    }
    json.push('"');
}

#[cfg(test)]
mod tests {
    use super::{write_json_string, write_micros};

    #[test]
    fn micros_keep_every_nanosecond() {
        let mut out = String::new();
        for nanos in [0, 7, 1_000, 1_234_567] {
            write_micros(&mut out, nanos);
            out.push(' ');
        }
        assert_eq!(out, "0.000 0.007 1.000 1234.567 ");
    }

    #[test]
    fn strings_are_escaped() {
        let mut out = String::new();
        write_json_string(&mut out, "a\"b\\c\nd");
        assert_eq!(out, r#""a\"b\\c\u000ad""#);
    }
}
