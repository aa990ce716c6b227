//! The `tracing-spans` feature (on for this crate's tests, through its dev-dependency on
//! itself): every system run is one `info` span named `system`, target `laige`, with the
//! system's `name` and `id`, entered on the thread that runs it, on the sequential runner
//! and on the executor alike. This is what tracing-tracy and tracing-chrome draw.
//!
//! One test in this binary: it installs a process-wide subscriber, since the executor's
//! workers would not see a thread-local one.

use std::sync::Mutex;

use laige_executor::ExecutorOptions;
use laige_world::{Component, SystemContext, SystemFn, World, WorldOptions};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as the layer saw it: target, name, and its `name` and `id` fields.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    target: String,
    span: &'static str,
    level: tracing::Level,
    system: String,
    id: u64,
}

static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
/// How many spans were entered and exited, by thread name.
static ENTERED: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());

#[derive(Default)]
struct Fields {
    system: String,
    id: u64,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "name" {
            self.system = value.to_owned();
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "id" {
            self.id = value;
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

struct Spans;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let meta = attrs.metadata();
        SEEN.lock().unwrap().push(Seen {
            target: meta.target().to_owned(),
            span: meta.name(),
            level: *meta.level(),
            system: fields.system,
            id: fields.id,
        });
    }

    fn on_enter(&self, _: &Id, _: Context<'_, S>) {
        let thread = std::thread::current().name().unwrap_or("?").to_owned();
        ENTERED.lock().unwrap().push((thread, true));
    }

    fn on_exit(&self, _: &Id, _: Context<'_, S>) {
        let thread = std::thread::current().name().unwrap_or("?").to_owned();
        ENTERED.lock().unwrap().push((thread, false));
    }
}

#[derive(Clone, Copy)]
struct Pos;
impl Component for Pos {}

fn slow(ctx: &mut SystemContext<'_>) {
    // Long enough that a pool's worker usually takes some of the systems.
    std::thread::sleep(std::time::Duration::from_micros(300));
    ctx.each::<&Pos>(|_| {}).unwrap();
}

fn world() -> (World, laige_scheduler::Schedule) {
    let mut world = World::new(WorldOptions::default());
    world.register_component::<Pos>().unwrap();
    world.spawn((Pos,)).unwrap();
    for name in ["A", "B", "C", "D"] {
        world
            .system(name, slow as SystemFn)
            .budget_ms(5.0)
            .reads::<Pos>()
            .register()
            .unwrap();
    }
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

#[test]
fn every_system_run_is_a_span_on_its_thread() {
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Spans)).unwrap();
    let want = |runs: usize| {
        let mut want = Vec::new();
        for _ in 0..runs {
            for (id, name) in ["A", "B", "C", "D"].iter().enumerate() {
                want.push(Seen {
                    target: "laige".to_owned(),
                    span: "system",
                    level: tracing::Level::INFO,
                    system: (*name).to_owned(),
                    id: id as u64 + 1,
                });
            }
        }
        want
    };

    let (mut world, schedule) = world();
    for _ in 0..2 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(
        *SEEN.lock().unwrap(),
        want(2),
        "sequential, in schedule order"
    );
    SEEN.lock().unwrap().clear();

    world.use_executor(ExecutorOptions::parallel(2));
    ENTERED.lock().unwrap().clear();
    for _ in 0..3 {
        world.run_systems(&schedule).unwrap();
    }
    let mut seen = SEEN.lock().unwrap().clone();
    seen.sort_by_key(|it| it.id);
    let mut want = want(3);
    want.sort_by_key(|it| it.id);
    assert_eq!(seen, want, "on the executor, in any order");

    // Each span is entered and then exited on one thread: per thread, they alternate.
    let entered = ENTERED.lock().unwrap().clone();
    assert_eq!(entered.len(), 2 * 12);
    let threads: std::collections::BTreeSet<&str> =
        entered.iter().map(|it| it.0.as_str()).collect();
    for thread in &threads {
        let mine: Vec<bool> = entered
            .iter()
            .filter(|it| it.0 == *thread)
            .map(|it| it.1)
            .collect();
        assert!(
            mine.chunks(2).all(|pair| pair == [true, false]),
            "{thread}: {mine:?}"
        );
    }
    println!("system spans entered on threads {threads:?}");
}
