//! Hostile names through every failure that echoes a name (issue 10): a 1 MiB name, NUL and
//! other control bytes, bidi overrides, and text that merely looks like escapes. Every event
//! field and every message must come out escaped (no control character left, a backslash
//! doubled) and bounded: `missing_dep` at most 63 bytes and `cycle` at most 255 (contract
//! §2.3), any other name field at most 255, and no message longer than a few names' worth.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use laige_sim::diag::{Diagnostic, EventKey};
use laige_sim::executor::{ExecError, PanicMessage};
use laige_sim::prelude::*;
use laige_sim::registry::{ComponentName, RegisterError};
use laige_sim::registry::{Registry, SystemDef};
use laige_sim::runner::{RunError, SlotProblem};
use laige_sim::scheduler::{ReadBeforeWrite, ScheduleError, SystemRef};
use laige_sim::world::{
    CommandKind, CommandSkipReason, QueryError, SkippedCommand, TickError, WorldError,
};
use laige_testkit::{Event, capture};

const MIB: usize = 1 << 20;

/// The longest message any failure may have once its names are bounded: a handful of names
/// at 255 bytes each, plus the fixed text.
const MESSAGE_LIMIT: usize = 4096;

/// A hostile name, and how a reader must see it when it is short enough to be shown whole.
struct Hostile {
    raw: &'static str,
    shown: Option<&'static str>,
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

fn hostile_names() -> Vec<Hostile> {
    vec![
        Hostile {
            raw: leak("x".repeat(MIB)),
            shown: None,
        },
        Hostile {
            raw: leak(format!("{}\0{}", "é".repeat(MIB / 4), "ß".repeat(MIB / 4))),
            shown: None,
        },
        Hostile {
            raw: "Nul\0Name",
            shown: Some(r"Nul\0Name"),
        },
        Hostile {
            raw: "\u{1b}[31mRed\u{7}\r\nInjected\t\u{7f}\u{85}",
            shown: Some(r"\u{1b}[31mRed\u{7}\r\nInjected\t\u{7f}\u{85}"),
        },
        Hostile {
            raw: r"Looks\xffLike\0Escapes\u{0}",
            shown: Some(r"Looks\\xffLike\\0Escapes\\u{0}"),
        },
        Hostile {
            raw: "Evil\u{202e}Reversed",
            shown: Some(r"Evil\u{202e}Reversed"),
        },
    ]
}

/// The contract's limit on a field's text, in bytes; 255 for every name it does not bound.
fn field_limit(key: &str) -> usize {
    match key {
        "missing_dep" => 63,
        _ => 255,
    }
}

/// A failure, and whether its message and a field of its event echo the hostile name.
struct Case {
    failure: Box<dyn Diagnostic>,
    in_message: bool,
    in_field: bool,
}

fn case(failure: impl Diagnostic + 'static, in_message: bool, in_field: bool) -> Case {
    Case {
        failure: Box::new(failure),
        in_message,
        in_field,
    }
}

/// Both the message and a field show the name.
fn echo(failure: impl Diagnostic + 'static) -> Case {
    case(failure, true, true)
}

/// The message shows the name; no field carries it (the contract gives the event only ids
/// and numbers, or, for a panic, the executor's own 112-byte copy of the message).
fn message_only(failure: impl Diagnostic + 'static) -> Case {
    case(failure, true, false)
}

/// Neither carries any text.
fn silent(failure: impl Diagnostic + 'static) -> Case {
    case(failure, false, false)
}

fn noop(_: &mut SystemContext<'_>) {}

/// Every failure variant, with `name` wherever it carries text; the cycles come from a real
/// World and a real registry because a `Cycle` is only built by the scheduler.
fn cases(name: &'static str) -> Vec<Case> {
    let id = SystemId::new(1).unwrap();
    let system = SystemRef { id, name };
    let other = SystemRef {
        id: SystemId::new(2).unwrap(),
        name,
    };
    let component = ComponentName {
        id: ComponentId::new(1).unwrap(),
        name,
    };
    let mut world = World::default();
    let entity = world.spawn(()).unwrap();
    let spec = leak(format!("{name}, {name}"));
    let parse_error = laige_sim::depspec::DepSpec::parse(spec).unwrap_err();
    vec![
        message_only(RegisterError::NameInvalid {
            name,
            budget_raw: 1,
        }),
        echo(RegisterError::RunInvalid { name }),
        echo(RegisterError::BudgetInvalid {
            name,
            budget_raw: 0,
            not_a_number: false,
        }),
        echo(RegisterError::BudgetInvalid {
            name,
            budget_raw: 0,
            not_a_number: true,
        }),
        echo(RegisterError::DepSpecInvalid {
            name,
            method: "after",
            spec,
            error: parse_error,
        }),
        echo(RegisterError::Duplicate { name, existing: id }),
        echo(RegisterError::IoUnregistered {
            name,
            position: 0,
            component: None,
            access: Access::Read,
        }),
        message_only(RegisterError::IoUnregistered {
            name,
            position: 0,
            component: Some(name),
            access: Access::Write,
        }),
        echo(RegisterError::IoDuplicate {
            name,
            component: component.id,
        }),
        echo(RegisterError::IoTooMany { name }),
        echo(RegisterError::BudgetExhausted { name, systems: 256 }),
        echo(RegisterError::ParamKind {
            name,
            param: name,
            component: name,
            expected: "a resource",
        }),
        echo(RegisterError::Untracked {
            name,
            param: name,
            component: name,
            filter: "Changed",
        }),
        echo(RegisterError::ParamConflict {
            name,
            component: name,
            first: name,
            first_access: Access::Write,
            second: name,
            second_access: Access::Read,
            within_one: false,
        }),
        echo(RegisterError::AccessContradicts {
            name,
            component: name,
            declared: Access::Read,
            param: name,
            needs: Access::Write,
        }),
        echo(RegisterError::ConditionWrites {
            name,
            param: name,
            component: name,
            holds_part: false,
        }),
        echo(RegisterError::ResourceNameUnknown {
            name,
            resource: name,
            given: name,
            suggestion: Some(name),
        }),
        echo(RegisterError::EventsUnregistered {
            name,
            event: name,
            access: Access::Emit,
        }),
        echo(RegisterError::EventsTooManyWriters {
            name,
            event: name,
            limit: 16,
        }),
        echo(RegisterError::ReactiveWithoutEvents { name }),
        echo(EventsError::ZeroCapacity { event: name }),
        echo(EventsError::NotRegistered { event: name }),
        echo(EventsError::Full {
            event: name,
            capacity: 8,
        }),
        echo(EventsError::AlreadyRegistered {
            event: name,
            capacity: 8,
        }),
        echo(TickError::EventsOverflowed {
            system: id,
            name,
            event: name,
            capacity: 8,
            dropped: 3,
        }),
        echo(ScheduleError::NeedsLayout {
            system,
            feature: name,
        }),
        echo(ScheduleError::ResourceMissing {
            system,
            resource: name,
        }),
        echo(ScheduleError::DepMissing {
            system,
            missing_dep: name,
            position: 0,
            suggestion: Some(name),
        }),
        echo(flat_cycle(name)),
        echo(ScheduleError::DoubleWriter {
            component,
            first_writer: system,
            second_writer: other,
        }),
        echo(ReadBeforeWrite {
            reader: system,
            writer: other,
            component,
        }),
        echo(ScheduleError::LayoutInvalid {
            problem: "has no tracks",
            name,
        }),
        echo(ScheduleError::UnknownDag {
            system,
            dag: name,
            suggestion: Some(name),
        }),
        echo(ScheduleError::UnknownPhase {
            system,
            dag: name,
            phase: name,
            suggestion: Some(name),
        }),
        echo(ScheduleError::UnknownSystem {
            system,
            declaration: "after",
            missing: name,
            position: 0,
            suggestion: Some(name),
        }),
        echo(ScheduleError::CrossDagEdge {
            system,
            declaration: "after",
            other,
            system_dag: name,
            other_dag: name,
        }),
        echo(ScheduleError::PhaseInversion {
            system,
            declaration: "before",
            other,
            early_phase: name,
            late_phase: name,
        }),
        echo(ScheduleError::SnapshotUnversioned { system, component }),
        echo(declared_cycle(name)),
        echo(ScheduleError::UnorderedWriters {
            component,
            first: system,
            second: other,
            phase: name,
        }),
        echo(ScheduleError::AmbiguousRead {
            component,
            reader: system,
            writer: other,
            phase: name,
        }),
        echo(ScheduleError::DagConflict {
            component,
            first: system,
            first_dag: name,
            second: other,
            second_dag: name,
        }),
        silent(RunError::ScheduleStale {
            scheduled_systems: 1,
            current_systems: 2,
            foreign: false,
        }),
        silent(RunError::ScheduleInvalid {
            slot: 0,
            id: 3,
            problem: SlotProblem::OutOfRange { systems: 2 },
        }),
        message_only(ExecError::SystemPanicked {
            system: id,
            message: PanicMessage::new(name),
        }),
        silent(ExecError::TrackOutOfRange {
            track: 1,
            tracks: 1,
        }),
        silent(ExecError::RunsTooShort {
            needed: 2,
            given: 1,
        }),
        echo(TickError::Panicked {
            system: id,
            name,
            message: name.into(),
        }),
        echo(TickError::SystemFailed {
            system: id,
            name,
            message: name.into(),
        }),
        echo(TickError::CommandsSkipped {
            system: id,
            name,
            skipped: 2,
            first: SkippedCommand {
                index: 1,
                command: CommandKind::Insert(name),
                reason: CommandSkipReason::Refused(WorldError::UnregisteredComponent {
                    component: name,
                }),
            },
        }),
        silent(WorldError::StaleEntity {
            entity,
            op: "despawn",
        }),
        echo(WorldError::StaleEntity { entity, op: name }),
        echo(WorldError::UnregisteredComponent { component: name }),
        echo(WorldError::MissingComponent {
            entity,
            component: name,
        }),
        message_only(WorldError::ComponentDuplicate {
            component: name,
            id: component.id,
            size: 4,
            alignment: 4,
        }),
        echo(WorldError::ComponentLimit { component: name }),
        echo(WorldError::BundleDuplicate { component: name }),
        echo(WorldError::BundleTooLarge { component: name }),
        silent(WorldError::EntityLimit { max_entities: 1 }),
        silent(WorldError::UnknownSystem { id: 9, systems: 1 }),
        silent(WorldError::InvalidPending { index: 0 }),
        silent(WorldError::ForeignCommandBuffer),
        echo(WorldError::ResourceAsComponent { component: name }),
        echo(WorldError::ComponentAsResource { component: name }),
        echo(WorldError::NoResource { component: name }),
        echo(WorldError::NotVersioned { component: name }),
        echo(WorldError::SparseVersioned { component: name }),
        echo(QueryError::Undeclared {
            system: name,
            system_id: id,
            component: name,
            access: Access::Write,
            declared: Some(Access::Read),
        }),
        echo(QueryError::Aliased {
            system: Some(name),
            component: name,
        }),
        echo(QueryError::NoResource {
            system: name,
            system_id: id,
            component: name,
            is_component: false,
        }),
        echo(QueryError::NotVersioned {
            system: Some(name),
            component: name,
        }),
        echo(QueryError::Unmatched {
            system: name,
            system_id: id,
            component: name,
        }),
        echo(QueryError::ResourceInQuery {
            system: Some(name),
            component: name,
        }),
        echo(QueryError::Untracked {
            system: Some(name),
            component: name,
            filter: "Added",
        }),
        echo(QueryError::NotSingle {
            system: Some(name),
            query: name,
            matched: 2,
        }),
        echo(QueryError::SparseChunk {
            system: Some(name),
            query: name,
        }),
    ]
}

/// The flat scheduler's cycle between `name` and `name` + "2".
fn flat_cycle(name: &'static str) -> ScheduleError {
    let second = leak(format!("{name}2"));
    let mut world = World::default();
    for (system, after) in [(name, second), (second, name)] {
        let registered = world
            .system(system, noop)
            .budget_ms(1.0)
            .after(after)
            .register();
        assert!(registered.is_ok(), "registration failed");
    }
    match world.schedule() {
        Err(err @ ScheduleError::DependencyCycle(_)) => err,
        other => panic!("expected a cycle, got {other:?}"),
    }
}

/// The declarative scheduler's cycle between `name` and `name` + "2" through a fresh read
/// of a component named `name` and an `after`, so the cycle's message names a component.
fn declared_cycle(name: &'static str) -> ScheduleError {
    fn run(_: &mut ()) {}
    let second = leak(format!("{name}2"));
    let component = ComponentId::new(1).unwrap();
    let mut registry = Registry::<fn(&mut ())>::new();
    registry.register_component_info(component, name, false);
    let def = |system| SystemDef::new(system, run as fn(&mut ())).budget_ms(1.0);
    let registered = [
        registry.register(def(name).writes(component).after(second)),
        registry.register(def(second).reads_fresh(component)),
    ];
    assert!(registered.iter().all(Result::is_ok), "registration failed");
    let layout = Layout::new().dag("Main", "Game", &["Update"], "Update");
    match laige_sim::scheduler::schedule_declared(&registry, &layout) {
        Err(err @ ScheduleError::DependencyCycle(_)) => err,
        other => panic!("expected a cycle, got {other:?}"),
    }
}

/// Every key the failure types can report, from their tables.
fn every_event() -> BTreeSet<String> {
    let tables: [&[EventKey]; 9] = [
        RegisterError::EVENTS,
        EventsError::EVENTS,
        ScheduleError::EVENTS,
        ReadBeforeWrite::EVENTS,
        RunError::EVENTS,
        ExecError::EVENTS,
        TickError::EVENTS,
        WorldError::EVENTS,
        QueryError::EVENTS,
    ];
    tables
        .iter()
        .flat_map(|it| it.iter())
        .map(ToString::to_string)
        .collect()
}

/// Checks one text (a field or a message): no control character, within `limit`, the raw
/// name absent unless it is harmless, and its escaped form present when expected.
fn check_text(what: &str, text: &str, limit: usize, name: &Hostile, expect_shown: bool) {
    assert!(
        !text.chars().any(char::is_control),
        "{what}: a control character came through"
    );
    assert!(
        !text.contains('\u{202e}'),
        "{what}: a bidi override came through"
    );
    assert!(text.len() <= limit, "{what}: {} bytes", text.len());
    match name.shown {
        Some(shown) => {
            assert!(!text.contains(name.raw), "{what}: the raw name: {text}");
            if expect_shown {
                assert!(text.contains(shown), "{what}: `{shown}` missing in {text}");
            }
        }
        None if expect_shown => assert!(text.contains("..."), "{what}: no cut marked"),
        None => {}
    }
}

fn check_event(case: &Case, event: &Event, name: &Hostile) {
    let what = event.name;
    let key = case.failure.key();
    assert_eq!(event.name, key.to_string());
    let message = case.failure.to_string();
    check_text(what, &message, MESSAGE_LIMIT, name, case.in_message);
    // A panic's event has a contract field named `message` (the panic text), which takes
    // the message's place in the record; every other event carries the Display text.
    if key.event != "system_panicked" {
        assert_eq!(event.message, message, "{what}");
    }
    check_text(what, &event.message, MESSAGE_LIMIT, name, false);
    for (field, value) in &event.fields {
        let what = format!("{what} field {field}");
        check_text(&what, value, field_limit(field), name, false);
    }
    if case.in_field {
        let shows = |value: &str| match name.shown {
            Some(shown) => value.contains(shown),
            None => value.ends_with("..."),
        };
        assert!(
            event.fields.iter().any(|(_, value)| shows(value)),
            "{what}: no field shows the name: {:?}",
            event.fields
        );
    }
}

#[test]
fn every_failure_escapes_and_bounds_hostile_names() {
    for name in hostile_names() {
        let cases = cases(name.raw);
        let mut seen = BTreeSet::new();
        for case in &cases {
            let ((), events) = capture(|| case.failure.emit());
            let [event] = events.as_slice() else {
                panic!("one event per failure, got {events:?}");
            };
            check_event(case, event, &name);
            seen.insert(case.failure.key().to_string());
        }
        assert_eq!(seen, every_event(), "every event is exercised");
    }
}

fn burn(_: &mut SystemContext<'_>) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1) {
        std::hint::spin_loop();
    }
}

/// Budget events name the system too; a 1 ms run breaks a budget of one Q16.16 step
/// (about 15 ns) and its triple, whatever the machine.
#[test]
fn budget_events_escape_and_bound_hostile_names() {
    for name in hostile_names() {
        let mut world = World::default();
        world
            .system(name.raw, burn)
            .budget(Budget::from_raw(1))
            .register()
            .unwrap();
        let schedule = world.schedule().unwrap();
        let (res, events) = capture(|| world.run_systems(&schedule));
        res.unwrap();
        let names: Vec<_> = events.iter().map(|it| it.name).collect();
        assert_eq!(names, ["system/budget_overrun", "system/budget_critical"]);
        for event in &events {
            check_text(event.name, &event.message, MESSAGE_LIMIT, &name, true);
            let system = event.field("system").unwrap();
            check_text("system field", system, field_limit("system"), &name, true);
        }
    }
}

/// Text that fits is shown whole, only escaped; the contract's 63-byte `missing_dep` keeps
/// a 63-byte name and cuts a 64-byte one, and a 255-byte cycle field stays whole.
#[test]
fn names_within_the_limits_are_not_cut() {
    let exact = leak("m".repeat(63));
    let missing = |missing_dep| ScheduleError::DepMissing {
        system: SystemRef {
            id: SystemId::new(1).unwrap(),
            name: "Hunter",
        },
        missing_dep,
        position: 0,
        suggestion: None,
    };
    let field = |err: ScheduleError| {
        let ((), events) = capture(|| err.emit());
        events[0].field("missing_dep").unwrap().to_owned()
    };
    assert_eq!(field(missing(exact)), exact);
    let over = leak("m".repeat(64));
    let cut = field(missing(over));
    assert_eq!(cut, format!("{}...", "m".repeat(60)));

    // Two 126-byte names joined by a comma: 253 bytes, under the cycle's 255.
    let long = leak("c".repeat(126));
    let err = flat_cycle(long);
    let ((), events) = capture(|| err.emit());
    assert_eq!(
        events[0].field("cycle"),
        Some(format!("{long},{long}2").as_str())
    );
}

fn panics_with_its_name(ctx: &mut SystemContext<'_>) {
    let name = ctx.name();
    panic!("{name}");
}

/// A panicking system whose name and panic message are hostile: the tick's error and the
/// `system_panicked` event show both escaped and bounded.
#[test]
fn a_hostile_panic_is_reported_escaped_and_bounded() {
    for name in hostile_names() {
        let mut world = World::default();
        world
            .system(name.raw, panics_with_its_name)
            .budget_ms(1.0)
            .register()
            .unwrap();
        let schedule = world.schedule().unwrap();
        let (res, events) = capture(|| world.run_systems(&schedule));
        let err = res.unwrap_err();
        assert!(matches!(err, TickError::Panicked { .. }), "{err:?}");
        check_text("tick error", &err.to_string(), MESSAGE_LIMIT, &name, true);
        let panicked: Vec<_> = events
            .iter()
            .filter(|it| it.name == "system/system_panicked")
            .collect();
        assert_eq!(panicked.len(), 1, "{events:?}");
        for (field, value) in &panicked[0].fields {
            check_text(field, value, field_limit(field), &name, false);
        }
        let system = panicked[0].field("system").unwrap();
        check_text("system field", system, field_limit("system"), &name, true);
    }
}
