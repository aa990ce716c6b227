//! The declarative front end: one case per derivation rule and per build error, with the
//! error's text and event snapshotted, and the fix it names shown to work.

use laige_registry::{ComponentId, Registry, SystemDef, SystemId};
use laige_scheduler::{Layout, Schedule, ScheduleError, schedule_declared};
use rstest::rstest;

type Run = fn(&mut ());
fn noop(_: &mut ()) {}

const POS: u16 = 1;
const VEL: u16 = 2;
const HP: u16 = 3;

fn c(id: u16) -> ComponentId {
    ComponentId::new(id).unwrap()
}

fn sys(name: &'static str) -> SystemDef<Run> {
    SystemDef::new(name, noop as Run).budget_ms(1.0)
}

fn registry(defs: Vec<SystemDef<Run>>) -> Registry<Run> {
    let mut registry = Registry::new();
    registry.register_component_info(c(POS), "Position", true);
    registry.register_component_info(c(VEL), "Velocity", false);
    registry.register_component_info(c(HP), "Health", false);
    for def in defs {
        registry.register(def).unwrap();
    }
    registry
}

fn game() -> Layout {
    Layout::new()
        .dag(
            "Main",
            "Game",
            &["Input", "Simulation", "Output"],
            "Simulation",
        )
        .dag("Main", "Audio", &["Mix"], "Mix")
        .dag("Late", "Net", &["Send"], "Send")
}

fn names(registry: &Registry<Run>, ids: &[SystemId]) -> Vec<&'static str> {
    ids.iter()
        .map(|&id| registry.get(id).unwrap().name())
        .collect()
}

fn build(defs: Vec<SystemDef<Run>>) -> (Registry<Run>, Result<Schedule, ScheduleError>) {
    let registry = registry(defs);
    let res = schedule_declared(&registry, &game());
    (registry, res)
}

/// Every edge that shaped the order of `registry` in the [`game`] layout, as
/// `earlier -> later`, grouped by the later system (from `explain_declared`).
fn edges(registry: &Registry<Run>) -> Vec<String> {
    let mut edges = laige_scheduler::explain_declared(registry, &game()).unwrap();
    edges.sort_by_key(|e| (e.later.id, e.earlier.id));
    edges
        .iter()
        .map(|e| format!("{} -> {}", e.earlier.name, e.later.name))
        .collect()
}

#[rstest]
#[case::unordered_writers(
    vec![sys("Movement").writes(c(POS)), sys("Clamp").writes(c(POS))],
    "unordered_writers",
)]
#[case::ambiguous_read(
    vec![sys("Movement").writes(c(POS)), sys("Render").reads(c(POS))],
    "ambiguous_read",
)]
#[case::snapshot_unversioned(
    vec![sys("Movement").writes(c(VEL)), sys("Render").reads_snapshot(c(VEL))],
    "snapshot_unversioned",
)]
#[case::unknown_name(vec![sys("Clamp").after("Movment"), sys("Movement")], "dep_missing")]
#[case::cross_dag_edge(
    vec![sys("Movement"), sys("Mixer").in_dag("Audio").after("Movement")],
    "cross_dag_edge",
)]
#[case::cycle(
    vec![sys("A").after("B").before("C"), sys("B").after("C"), sys("C")],
    "dependency_cycle",
)]
#[case::fresh_cycle(
    vec![sys("F").writes(c(POS)).reads_fresh(c(VEL)), sys("G").writes(c(VEL)).after("F")],
    "dependency_cycle",
)]
#[case::phase_inversion(
    vec![sys("Input").in_phase("Input").after("Sim"), sys("Sim")],
    "phase_inversion",
)]
#[case::unknown_phase(vec![sys("A").in_phase("Simulaton")], "unknown_phase")]
#[case::unknown_dag(vec![sys("A").in_dag("Gmae")], "unknown_dag")]
#[case::dag_conflict(
    vec![sys("Movement").writes(c(HP)), sys("Mixer").in_dag("Audio").reads(c(HP))],
    "dag_conflict",
)]
fn each_rule_is_an_error_with_its_fix(#[case] defs: Vec<SystemDef<Run>>, #[case] event: &str) {
    let ((registry, res), events) = laige_testkit::capture(|| build(defs));
    let err = res.expect_err("the declarations are unsafe or wrong");
    assert_eq!(err.event(), event);
    assert_eq!(events.len(), 1, "one event per failure: {events:?}");
    assert_eq!(events[0].name, format!("system/{event}"));
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_suffix(event.to_owned() + "-" + registry.records()[0].name());
    settings.bind(|| {
        insta::assert_snapshot!(format!("{err}\n\n{}", laige_testkit::render(&events)));
    });
}

#[test]
fn the_suggested_after_fixes_unordered_writers() {
    let (registry, res) = build(vec![
        sys("Movement").writes(c(POS)),
        sys("Clamp").writes(c(POS)).after("Movement"),
    ]);
    let schedule = res.unwrap();
    assert_eq!(names(&registry, schedule.order()), ["Movement", "Clamp"]);
    assert_eq!(edges(&registry), ["Movement -> Clamp"]);
}

#[rstest]
#[case::fresh(sys("Render").reads_fresh(c(POS)), vec!["Movement -> Render"])]
#[case::snapshot(sys("Render").reads_snapshot(c(POS)), vec![])]
#[case::after(sys("Render").reads(c(POS)).after("Movement"), vec!["Movement -> Render"])]
fn the_suggested_reads_fix_ambiguous_reads(
    #[case] reader: SystemDef<Run>,
    #[case] want: Vec<&str>,
) {
    // The reader is registered first, so only a derived or declared edge puts it second.
    let (registry, res) = build(vec![reader, sys("Movement").writes(c(POS))]);
    let schedule = res.unwrap();
    assert_eq!(edges(&registry), want);
    let expected_order: &[&str] = if want.is_empty() {
        &["Render", "Movement"]
    } else {
        &["Movement", "Render"]
    };
    assert_eq!(names(&registry, schedule.order()), expected_order);
}

#[test]
fn before_is_the_mirror_of_after() {
    let (registry, res) = build(vec![
        sys("Clamp").writes(c(POS)),
        sys("Movement").writes(c(POS)).before("Clamp"),
    ]);
    let schedule = res.unwrap();
    assert_eq!(names(&registry, schedule.order()), ["Movement", "Clamp"]);
}

#[test]
fn across_phases_only_conflicts_wait() {
    let (registry, res) = build(vec![
        sys("Straggler").in_phase("Input").writes(c(HP)),
        sys("Read").in_phase("Input").writes(c(VEL)),
        sys("Integrate").reads(c(VEL)).writes(c(POS)),
        sys("Present").in_phase("Output").reads(c(POS)),
    ]);
    res.unwrap();
    // Integrate waits for Read (Velocity) but not for the unrelated Straggler; Present
    // waits for Integrate (Position) and for nothing in Input.
    assert_eq!(
        edges(&registry),
        ["Read -> Integrate", "Integrate -> Present"]
    );
}

#[test]
fn exclusive_runs_alone_in_its_phase() {
    let (registry, res) = build(vec![
        sys("A").reads(c(VEL)),
        sys("Save").exclusive_phase(),
        sys("B").reads(c(HP)),
        sys("Other").in_phase("Output"),
    ]);
    res.unwrap();
    assert_eq!(edges(&registry), ["A -> Save", "Save -> B"]);
}

#[test]
fn tracks_run_in_order_and_dags_share_a_track() {
    let (registry, res) = build(vec![
        sys("Send").in_dag("Net").reads(c(POS)),
        sys("Mix").in_dag("Audio").reads(c(POS)),
        sys("Move").writes(c(VEL)),
    ]);
    let schedule = res.unwrap();
    let tracks: Vec<Vec<&str>> = schedule.tracks().map(|t| names(&registry, t)).collect();
    assert_eq!(tracks, [vec!["Mix", "Move"], vec!["Send"]]);
}

#[test]
fn layout_errors_name_the_dag() {
    let registry = registry(vec![sys("A")]);
    let cases = [
        (Layout::new(), "layout"),
        (Layout::new().dag("T", "G", &["P"], "Q"), "G"),
        (Layout::new().dag("T", "G", &[], "P"), "G"),
        (Layout::new().dag("T", "G", &["P", "P"], "P"), "G"),
        (
            Layout::new()
                .dag("T", "G", &["P"], "P")
                .dag("T", "G", &["P"], "P"),
            "G",
        ),
    ];
    for (layout, name) in cases {
        match schedule_declared(&registry, &layout) {
            Err(ScheduleError::LayoutInvalid { name: got, .. }) => assert_eq!(got, name),
            other => panic!("expected a layout error for {layout:?}, got {other:?}"),
        }
    }
}

#[test]
fn the_order_is_a_pure_function_of_the_declarations() {
    let defs = || {
        vec![
            sys("Render").reads_fresh(c(POS)).in_phase("Output"),
            sys("Movement").writes(c(POS)).reads(c(VEL)),
            sys("Input").in_phase("Input").writes(c(VEL)),
            sys("Clamp").writes(c(POS)).after("Movement"),
        ]
    };
    let (ra, a) = build(defs());
    let (rb, b) = build(defs());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a, b);
    assert_eq!(edges(&ra), edges(&rb));
    assert_eq!(
        names(&ra, a.order()),
        ["Input", "Movement", "Clamp", "Render"]
    );
}

#[test]
fn weak_edges_order_but_bind_executors_only_where_data_overlap() {
    let (registry, res) = build(vec![
        sys("CE").writes(c(POS)).after_weak("CD"),
        sys("CD").writes(c(POS)),
    ]);
    let schedule = res.unwrap();
    // The weak edge settles the writers' order, so there is no `unordered_writers` error ...
    assert_eq!(names(&registry, schedule.order()), ["CD", "CE"]);
    assert_eq!(edges(&registry), ["CD -> CE"]);
    // ... but it is not an edge executors must keep whatever the data.
    let ce = registry.find("CE").unwrap();
    assert!(schedule.after(ce, &registry).is_empty());
    let causes: Vec<_> = laige_scheduler::explain_declared(&registry, &game())
        .unwrap()
        .iter()
        .map(|e| e.cause)
        .collect();
    assert_eq!(causes, [laige_scheduler::EdgeCause::AfterWeak]);
}

#[test]
fn strong_edges_are_kept_for_executors() {
    let (registry, res) = build(vec![sys("A"), sys("B").after("A"), sys("C").before("B")]);
    let schedule = res.unwrap();
    let b = registry.find("B").unwrap();
    let after_b: Vec<_> = schedule
        .after(b, &registry)
        .iter()
        .map(|id| registry.get(id).unwrap().name())
        .collect();
    assert_eq!(after_b, ["A", "C"]);
}

/// A blank spec (only the four trimmed ASCII bytes) lists nothing: the flat rules accept it.
#[rstest]
#[case::before(sys("A").before(" \t"))]
#[case::after_weak(sys("A").after_weak("\r\n "))]
fn the_flat_rules_accept_blank_declarative_specs(#[case] def: SystemDef<Run>) {
    let registry = registry(vec![def, sys("B")]);
    let schedule = laige_scheduler::schedule(&registry).unwrap();
    assert_eq!(names(&registry, schedule.order()), ["A", "B"]);
}

#[rstest]
#[case::before(sys("A").before("B"), "before")]
#[case::after_weak(sys("A").after_weak("B"), "after_weak")]
// A no-break space is a name to a spec (only four ASCII bytes are trimmed), not a blank.
#[case::before_unicode_space(sys("A").before("\u{a0}"), "before")]
#[case::dag(sys("A").in_dag("Game"), "in_dag")]
#[case::phase(sys("A").in_phase("Input"), "in_phase")]
#[case::exclusive(sys("A").exclusive_phase(), "exclusive_phase")]
fn the_flat_rules_refuse_declarative_features(#[case] def: SystemDef<Run>, #[case] feature: &str) {
    let registry = registry(vec![def, sys("B")]);
    let err = laige_scheduler::schedule(&registry).unwrap_err();
    match err {
        ScheduleError::NeedsLayout {
            system,
            feature: got,
        } => {
            assert_eq!((system.name, got), ("A", feature));
        }
        other => panic!("expected needs_layout, got {other}"),
    }
    assert!(err.to_string().contains("set a layout"));
}
