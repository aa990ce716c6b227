//! A process-wide capture subscriber with per-thread sinks.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::sync::Once;

use tracing::field::{Field, Visit};
use tracing::{Level, Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// One captured event: level, name (`subsystem/event`), fields sorted by key, and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// `trace` ... `error`.
    pub level: &'static str,
    /// The event's name, e.g. `system/double_writer`.
    pub name: &'static str,
    /// `(key, value)` pairs sorted by key, message excluded.
    pub fields: Vec<(String, String)>,
    /// The event's message.
    pub message: String,
}

impl Event {
    /// The value of field `key`, if present.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

thread_local! {
    static SINK: RefCell<Option<Vec<Event>>> = const { RefCell::new(None) };
}

struct CaptureLayer;

impl<S: Subscriber> Layer<S> for CaptureLayer {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let _ = SINK.try_with(|sink| {
            if let Some(events) = sink.borrow_mut().as_mut() {
                let mut visitor = Fields::default();
                event.record(&mut visitor);
                visitor.fields.sort();
                let meta = event.metadata();
                events.push(Event {
                    level: level_name(*meta.level()),
                    name: meta.name(),
                    fields: visitor.fields,
                    message: visitor.message,
                });
            }
        });
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::TRACE => "trace",
        Level::DEBUG => "debug",
        Level::INFO => "info",
        Level::WARN => "warn",
        Level::ERROR => "error",
    }
}

#[derive(Default)]
struct Fields {
    fields: Vec<(String, String)>,
    message: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let rendered = format!("{value:?}");
        self.push(field, rendered);
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field, value.to_owned());
    }
}

impl Fields {
    fn push(&mut self, field: &Field, value: String) {
        if field.name() == "message" {
            self.message = value;
        } else {
            self.fields.push((field.name().to_owned(), value));
        }
    }
}

fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::registry().with(CaptureLayer);
        // Another global subscriber may exist in exotic harnesses; then nothing is captured
        // and the tests that expect events fail loudly, which is the right outcome.
        let _ = tracing::subscriber::set_global_default(subscriber);
        tracing::callsite::rebuild_interest_cache();
    });
}

/// Runs `f` and returns what it returned with the events it emitted on this thread.
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Vec<Event>) {
    install();
    let outer = SINK.with(|sink| sink.borrow_mut().replace(Vec::new()));
    let out = f();
    let events = SINK.with(|sink| std::mem::replace(&mut *sink.borrow_mut(), outer));
    (out, events.unwrap_or_default())
}

/// Renders events one per line as `level name key=value ...` (fields sorted), for snapshots.
pub fn render(events: &[Event]) -> String {
    let mut out = String::new();
    for event in events {
        let _ = write!(out, "{} {}", event.level, event.name);
        for (key, value) in &event.fields {
            let _ = write!(out, " {key}={value}");
        }
        out.push('\n');
    }
    out
}

/// Like [`render`], with each event's message on the line after it, indented.
pub fn render_with_messages(events: &[Event]) -> String {
    let mut out = String::new();
    for event in events {
        out.push_str(&render(std::slice::from_ref(event)));
        let _ = writeln!(out, "  {}", event.message);
    }
    out
}
