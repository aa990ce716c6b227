//! `SystemScheduler.*` (contract §8.1) ported to the registry, the scheduler and the runner:
//! order (§2.3), checks and warnings with their events (§2.3, §4), run-time schedule
//! checks (§2.4), determinism and the known-answer order (§6.1, §6.2).
//!
//! There is no World here: a small test world stands in for it. Systems are plain
//! `fn(&mut TestWorld)`, and the host runs each on the world. Test 26
//! (`SchedulingAndTicksAllocateNothing`) is its own binary, laige-runner's `no_alloc.rs`.

use std::sync::Arc;
use std::time::Duration;

use laige_diag::{Diagnostics, ManualClock};
use laige_registry::{
    Budget, ComponentId, ComponentName, RegisterError, Registry, SystemDef, SystemId, system,
};
use laige_runner::SlotProblem::{self, OutOfRange, Repeated, Unfilled};
use laige_runner::{RunError, Runner, check};
use laige_scheduler::{ReadBeforeWrite, Schedule, ScheduleError, SystemRef};
use laige_testkit::{Event, capture, render_with_messages};
use rstest::rstest;

// ---------------------------------------------------------------------------------------
// The test world and the fixture systems
// ---------------------------------------------------------------------------------------

/// Room in the token log, as in the original's fixed 64-entry log.
const LOG_CAPACITY: usize = 64;

/// Stands in for the World: one column per fixture component, a run-order token log, and
/// what the reading systems saw.
#[derive(Debug)]
struct TestWorld {
    /// SchVel.vx of each entity.
    vel: Vec<i64>,
    /// SchPos.x of each entity.
    pos: Vec<i32>,
    /// SchTag of each entity.
    tag: Vec<i32>,
    /// Each system appends its token when it runs.
    log: Vec<u8>,
    /// What `SchReadVel` summed.
    vel_sum: i64,
    /// What `SchReadPos` summed.
    pos_sum: i64,
}

/// SchVel's value before any writer ran.
const STALE_VEL: i64 = 0x9999;

impl TestWorld {
    fn new(entities: usize) -> Self {
        Self {
            vel: vec![STALE_VEL; entities],
            pos: vec![1; entities],
            tag: vec![0; entities],
            log: Vec::with_capacity(LOG_CAPACITY),
            vel_sum: 0,
            pos_sum: 0,
        }
    }

    fn token(&mut self, token: u8) {
        if self.log.len() < LOG_CAPACITY {
            self.log.push(token);
        }
    }
}

type Run = fn(&mut TestWorld);
type Def = SystemDef<Run>;

fn sch_noop(world: &mut TestWorld) {
    world.token(1);
}

fn sch_write_vel(world: &mut TestWorld) {
    for vx in &mut world.vel {
        *vx = 0x1234;
    }
    world.token(2);
}

fn sch_read_vel(world: &mut TestWorld) {
    world.vel_sum = world.vel.iter().sum();
    world.token(3);
}

fn sch_write_tag(world: &mut TestWorld) {
    world.tag.fill(4);
    world.token(4);
}

fn sch_write_tag2(world: &mut TestWorld) {
    world.tag.fill(5);
    world.token(5);
}

fn sch_read_pos(world: &mut TestWorld) {
    world.pos_sum = world.pos.iter().map(|&x| i64::from(x)).sum();
    world.token(6);
}

fn sch_dep_on_noop(world: &mut TestWorld) {
    world.token(7);
}

fn sch_dep_on_two(world: &mut TestWorld) {
    world.token(8);
}

/// A system that does nothing observable, for order-only tests.
fn quiet(_: &mut TestWorld) {}

const fn cid(value: u16) -> ComponentId {
    match ComponentId::new(value) {
        Some(id) => id,
        None => panic!("fixture component ids are in 1..=256"),
    }
}

/// The first component a test registers; SchVel in most tests, SchTag in test 11.
const FIRST: ComponentId = cid(1);
const SECOND: ComponentId = cid(2);

// The fixture definitions, macro-built. Budgets are generous so that timing (on, as by
// default) never reports on these tiny systems; timing has its own suite.

fn sch_noop_def() -> Def {
    system!("SchNoop" => sch_noop, 50)
}

fn sch_write_vel_def(vel: ComponentId) -> Def {
    system!("SchWriteVel" => sch_write_vel, 50).writes(vel)
}

fn sch_read_vel_def(vel: ComponentId) -> Def {
    system!("SchReadVel" => sch_read_vel, 50).reads(vel)
}

fn sch_write_tag_def(tag: ComponentId) -> Def {
    system!("SchWriteTag" => sch_write_tag, 50).writes(tag)
}

fn sch_write_tag2_def(tag: ComponentId) -> Def {
    system!("SchWriteTag2" => sch_write_tag2, 50).writes(tag)
}

fn sch_read_pos_def(pos: ComponentId) -> Def {
    system!("SchReadPos" => sch_read_pos, 50).reads(pos)
}

fn sch_dep_on_noop_def() -> Def {
    system!("SchDepOnNoop" => sch_dep_on_noop, 50, SchNoop)
}

fn sch_dep_on_two_def() -> Def {
    system!("SchDepOnTwo" => sch_dep_on_two, 50, SchNoop, SchWriteVel)
}

/// A manual definition with no observable effect.
fn plain(name: &'static str, deps: &'static str) -> Def {
    SystemDef::new(name, quiet as Run)
        .budget(Budget::from_millis(50))
        .depends_on(deps)
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// A registry with components 1..=`components` registered.
fn registry(components: u16) -> Registry<Run> {
    let mut registry = Registry::new();
    for c in 1..=components {
        registry.register_component(cid(c));
    }
    registry
}

/// Like [`registry`], reporting through a 60 s rate window on a manual clock (§4).
fn limited_registry(components: u16) -> (Registry<Run>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    let mut registry = Registry::with_diagnostics(Diagnostics::with_clock(
        Duration::from_secs(60),
        clock.clone(),
    ));
    for c in 1..=components {
        registry.register_component(cid(c));
    }
    (registry, clock)
}

fn register_all(registry: &mut Registry<Run>, defs: impl IntoIterator<Item = Def>) {
    for def in defs {
        registry
            .register(def)
            .expect("fixture definitions are valid");
    }
}

fn plan(registry: &Registry<Run>) -> Result<Schedule, ScheduleError> {
    laige_scheduler::schedule(registry)
}

fn order(schedule: &Schedule) -> Vec<u32> {
    schedule.order().iter().map(|id| id.get()).collect()
}

fn sid(value: u32) -> SystemId {
    SystemId::new(value).expect("fixture system ids are non-zero")
}

/// The system named `name` in `registry`, as reports name it.
fn sref(registry: &Registry<Run>, name: &'static str) -> SystemRef {
    SystemRef {
        id: registry.find(name).expect("registered"),
        name,
    }
}

/// Runs `schedule` once on `world` with a default runner (timing on); returns the result
/// and the ids the host was asked to run, in order.
fn tick(
    schedule: &Schedule,
    registry: &Registry<Run>,
    world: &mut TestWorld,
) -> (Result<(), RunError>, Vec<u32>) {
    let mut ran = Vec::new();
    let mut host = |id: SystemId, run: &Run| {
        ran.push(id.get());
        run(world);
    };
    let result = Runner::new().run(schedule, registry, &mut host);
    (result, ran)
}

fn fields(event: &Event) -> Vec<(&str, &str)> {
    event
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// Asserts `events` is exactly one Warn `system/<event>` with exactly the `expected` fields.
#[track_caller]
fn assert_one_event(events: &[Event], event: &str, expected: &[(&str, &str)]) {
    assert_eq!(
        events.len(),
        1,
        "expected one event, got:\n{}",
        render_with_messages(events)
    );
    assert_eq!(events[0].level, "warn");
    assert_eq!(events[0].name, format!("system/{event}"));
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(fields(&events[0]), expected);
}

#[track_caller]
fn assert_no_events(events: &[Event]) {
    assert!(
        events.is_empty(),
        "expected no events, got:\n{}",
        render_with_messages(events)
    );
}

/// Snapshots the events (with messages) as `scheduler__<name>.snap`.
fn snapshot(name: &str, events: &[Event]) {
    insta::assert_snapshot!(name, render_with_messages(events));
}

// ---------------------------------------------------------------------------------------
// 1-8: the macro and the order
// ---------------------------------------------------------------------------------------

/// 1 `MacroCarriesDependsOnSpec` (plus the macro's budgets: 1 → raw 65536, 2 → 131072).
#[test]
fn macro_carries_depends_on_spec() {
    let none: Def = system!("SchNoop" => sch_noop, 1);
    let one: Def = system!("SchDepOnNoop" => sch_dep_on_noop, 2, SchNoop);
    let two: Def = system!("SchDepOnTwo" => sch_dep_on_two, 1, SchNoop, SchWriteVel);
    assert_eq!(none.depends_on, "");
    assert_eq!(one.depends_on, "SchNoop");
    assert_eq!(two.depends_on, "SchNoop, SchWriteVel");
    assert_eq!(
        (none.budget.raw(), one.budget.raw(), two.budget.raw()),
        (65536, 131072, 65536)
    );
    assert_eq!(sch_dep_on_two_def().depends_on, "SchNoop, SchWriteVel");
    assert_eq!(sch_dep_on_noop_def().depends_on, "SchNoop");
    // The bare form: the function's own name, the same spec rules.
    let bare: Def = system!(sch_dep_on_noop, 1, SchNoop);
    assert_eq!((bare.name, bare.depends_on), ("sch_dep_on_noop", "SchNoop"));
}

/// 2-6 and 20: the order is a pure function of registration order and specs (§2.3).
#[rstest]
// 2 RegistrationOrderIsTheExecutionOrder
#[case::registration_order(&[("OrderA", ""), ("OrderB", ""), ("OrderC", "")], &[1, 2, 3])]
// 3 BackwardDependencyKeepsRegistrationOrder
#[case::backward_dependency(&[("OrderA", ""), ("OrderB", "OrderA")], &[1, 2])]
// 4 ForwardDependencyReorders
#[case::forward_dependency(
    &[("ReorderA", "ReorderC"), ("ReorderB", ""), ("ReorderC", "")], &[2, 3, 1]
)]
// 5 DependencyChainReorders
#[case::chain(&[("ChainZ", "ChainY"), ("ChainY", "ChainX"), ("ChainX", "")], &[3, 2, 1])]
// 6 DiamondDependencyOrdersDependeeLast: the reversed list does not reorder B and C.
#[case::diamond(
    &[("DiamondD", "DiamondC, DiamondB"), ("DiamondB", ""), ("DiamondC", "")], &[2, 3, 1]
)]
// 20 DepSpecWhitespaceTrimmed
#[case::whitespace_trimmed(
    &[("TrimA", ""), ("TrimB", ""), ("TrimC", " TrimA ,  TrimB ")], &[1, 2, 3]
)]
fn order_follows_registration_and_dependencies(
    #[case] systems: &[(&'static str, &'static str)],
    #[case] expected: &[u32],
) {
    let mut registry = registry(0);
    register_all(
        &mut registry,
        systems.iter().map(|&(name, deps)| plain(name, deps)),
    );
    let (schedule, events) = capture(|| plan(&registry));
    let schedule = schedule.unwrap();
    assert_no_events(&events);
    assert_eq!(schedule.system_count(), systems.len());
    assert_eq!(order(&schedule), expected);
    assert_eq!(schedule.warning_count(), 0);

    let mut world = TestWorld::new(1);
    let (result, ran) = tick(&schedule, &registry, &mut world);
    result.unwrap();
    assert_eq!(ran, expected);
}

/// 20, the parsed names: trimmed, in spec order.
#[test]
fn dep_spec_whitespace_trimmed() {
    let mut registry = registry(0);
    register_all(&mut registry, [plain("TrimA", ""), plain("TrimB", "")]);
    let id = registry
        .register(plain("TrimC", " TrimA ,  TrimB "))
        .unwrap();
    assert_eq!(registry.depends_on(id), ["TrimA", "TrimB"]);
}

/// 7 `MacroForwardDependencyReorders`.
#[test]
fn macro_forward_dependency_reorders() {
    let mut registry = registry(0);
    register_all(&mut registry, [sch_dep_on_noop_def(), sch_noop_def()]);
    let schedule = plan(&registry).unwrap();
    assert_eq!(order(&schedule), [2, 1]);
    let mut world = TestWorld::new(1);
    tick(&schedule, &registry, &mut world).0.unwrap();
    assert_eq!(world.log, [1, 7]);
}

/// 8 `RunExecutesInTheScheduledOrder`.
#[test]
fn run_executes_in_the_scheduled_order() {
    let mut registry = registry(1);
    register_all(
        &mut registry,
        [
            sch_noop_def(),
            sch_write_vel_def(FIRST),
            sch_read_vel_def(FIRST),
        ],
    );
    let schedule = plan(&registry).unwrap();
    assert_eq!(order(&schedule), [1, 2, 3]);
    let mut world = TestWorld::new(1);
    let (result, ran) = tick(&schedule, &registry, &mut world);
    result.unwrap();
    assert_eq!(ran, [1, 2, 3]);
    assert_eq!(world.log, [1, 2, 3]);
    assert_eq!(world.vel_sum, 0x1234);
}

// ---------------------------------------------------------------------------------------
// 9-11: declared access
// ---------------------------------------------------------------------------------------

/// 9 `ReaderBeforeWriterWarnsButSchedules`.
#[test]
fn reader_before_writer_warns_but_schedules() {
    let mut registry = registry(1);
    register_all(
        &mut registry,
        [sch_read_vel_def(FIRST), sch_write_vel_def(FIRST)],
    );
    let (schedule, events) = capture(|| plan(&registry));
    let schedule = schedule.expect("a read-before-write only warns");
    assert_eq!(order(&schedule), [1, 2]);
    assert_one_event(
        &events,
        "read_before_write",
        &[
            ("component_id", "1"),
            ("reader", "SchReadVel"),
            ("writer", "SchWriteVel"),
        ],
    );
    let expected = ReadBeforeWrite {
        reader: sref(&registry, "SchReadVel"),
        writer: sref(&registry, "SchWriteVel"),
        component: ComponentName {
            id: FIRST,
            name: "",
        },
    };
    assert_eq!(schedule.warnings().collect::<Vec<_>>(), [expected]);
    assert_eq!(schedule.warning_count(), 1);
    assert_eq!(events[0].message, expected.to_string());
    snapshot("read_before_write", &events);

    let mut world = TestWorld::new(1);
    tick(&schedule, &registry, &mut world).0.unwrap();
    assert_eq!(world.log, [3, 2]);
    assert_eq!(
        world.vel_sum, STALE_VEL,
        "the reader ran first and saw the stale value"
    );
    assert_eq!(world.vel, [0x1234]);
}

/// 10 `WriterBeforeReaderIsClean`: no event from scheduling or running.
#[test]
fn writer_before_reader_is_clean() {
    let mut registry = registry(1);
    register_all(
        &mut registry,
        [sch_write_vel_def(FIRST), sch_read_vel_def(FIRST)],
    );
    let mut world = TestWorld::new(1);
    let (schedule, events) = capture(|| {
        let schedule = plan(&registry).unwrap();
        tick(&schedule, &registry, &mut world).0.unwrap();
        schedule
    });
    assert_no_events(&events);
    assert_eq!(schedule.warning_count(), 0);
    assert_eq!(world.vel_sum, 0x1234);
}

/// A reader of another component never warns, wherever it runs.
#[test]
fn readers_of_other_components_do_not_warn() {
    let mut registry = registry(2);
    register_all(
        &mut registry,
        [
            sch_read_pos_def(SECOND),
            sch_write_vel_def(FIRST),
            sch_read_vel_def(FIRST),
        ],
    );
    let (schedule, events) = capture(|| plan(&registry));
    let schedule = schedule.unwrap();
    assert_no_events(&events);
    assert_eq!(schedule.warning_count(), 0);
    let mut world = TestWorld::new(3);
    tick(&schedule, &registry, &mut world).0.unwrap();
    assert_eq!(world.log, [6, 2, 3]);
    assert_eq!((world.pos_sum, world.vel_sum), (3, 3 * 0x1234));
}

/// 11 `DoubleWriterRejectedWarnsOnceThenRateLimited`.
#[test]
fn double_writer_rejected_warns_once_then_rate_limited() {
    let (mut registry, _clock) = limited_registry(1);
    register_all(
        &mut registry,
        [sch_write_tag_def(FIRST), sch_write_tag2_def(FIRST)],
    );
    let expected = ScheduleError::DoubleWriter {
        component: ComponentName {
            id: FIRST,
            name: "",
        },
        first_writer: sref(&registry, "SchWriteTag"),
        second_writer: sref(&registry, "SchWriteTag2"),
    };
    let ((), mut events) = capture(|| {
        for _ in 0..3 {
            let err = plan(&registry).unwrap_err();
            assert_eq!(err, expected);
            assert_eq!(err.code(), "invalid_argument");
        }
    });
    assert_one_event(
        &events,
        "double_writer",
        &[
            ("component_id", "1"),
            ("first_writer", "SchWriteTag"),
            ("second_writer", "SchWriteTag2"),
        ],
    );
    assert_eq!(events[0].message, expected.to_string());

    let ((), summary) = capture(|| registry.diagnostics().flush());
    assert_one_event(
        &summary,
        "rate_limited",
        &[("event", "double_writer"), ("suppressed", "2")],
    );
    events.extend(summary);
    snapshot("double_writer", &events);
}

/// §9.8: two writers are rejected even when `depends_on` orders them.
#[test]
fn double_writer_ignores_dependencies() {
    let mut registry = registry(2);
    register_all(
        &mut registry,
        [
            plain("Reads", "").reads(FIRST),
            sch_write_tag_def(SECOND),
            sch_write_tag2_def(SECOND).depends_on("SchWriteTag"),
        ],
    );
    let err = plan(&registry).unwrap_err();
    assert_eq!(
        err,
        ScheduleError::DoubleWriter {
            component: ComponentName {
                id: SECOND,
                name: ""
            },
            first_writer: sref(&registry, "SchWriteTag"),
            second_writer: sref(&registry, "SchWriteTag2"),
        }
    );
}

// ---------------------------------------------------------------------------------------
// 12-15: dependency failures
// ---------------------------------------------------------------------------------------

/// 12 `MissingDependencyRejected`, and the suggestion for a likely typo.
#[rstest]
#[case::missing("dep_missing", &[("GhostHunt", "GhostSystem")], "GhostHunt", "GhostSystem", 0, None)]
#[case::typo(
    "dep_missing_typo",
    &[("GhostSystem", ""), ("GhostHunt", "GhostSystm")], "GhostHunt", "GhostSystm", 0, Some("GhostSystem"),
)]
// The first missing name in ascending (system id, token position) order is reported.
#[case::first_in_id_then_position_order(
    "dep_missing_position",
    &[("Known", ""), ("Hunter", "Known, Nobody"), ("Later", "Absent")], "Hunter", "Nobody", 1, None,
)]
// Exact-length matching: "Ghost" does not name "GhostSystem" (§2.2).
#[case::prefix_is_not_a_match(
    "dep_missing_prefix", &[("GhostSystem", ""), ("GhostHunt", "Ghost")], "GhostHunt", "Ghost", 0, None,
)]
fn missing_dependency_rejected(
    #[case] label: &str,
    #[case] systems: &[(&'static str, &'static str)],
    #[case] system: &'static str,
    #[case] missing: &'static str,
    #[case] position: usize,
    #[case] suggestion: Option<&'static str>,
) {
    let mut registry = registry(0);
    register_all(
        &mut registry,
        systems.iter().map(|&(name, deps)| plain(name, deps)),
    );
    let (result, events) = capture(|| plan(&registry));
    let err = result.unwrap_err();
    assert_eq!(
        err,
        ScheduleError::DepMissing {
            system: sref(&registry, system),
            missing_dep: missing,
            position,
            suggestion,
        }
    );
    assert_eq!(err.code(), "invalid_argument");
    let position = position.to_string();
    assert_one_event(
        &events,
        "dep_missing",
        &[
            ("missing_dep", missing),
            ("position", &position),
            ("system", system),
        ],
    );
    let text = err.to_string();
    assert_eq!(events[0].message, text);
    assert!(text.contains(system) && text.contains(missing), "{text}");
    if let Some(suggestion) = suggestion {
        assert!(text.contains(suggestion), "{text}");
    }
    snapshot(label, &events);
}

/// 13 `DependencyCycleRejected`, 14 `SelfDependencyIsACycle`,
/// 15 `CycleReportedAmongIndependentSystems`, and §9.6: the report starts at the first
/// walked system on the cycle, not at the cycle's smallest id.
#[rstest]
#[case::two("cycle_two", &[("CycA", "CycB"), ("CycB", "CycA")], &[1, 2], "CycA,CycB")]
#[case::self_dependency("cycle_self", &[("CycSelf", "CycSelf")], &[1], "CycSelf")]
#[case::among_independent(
    "cycle_among_independent",
    &[("CycA", ""), ("CycB", "CycC"), ("CycC", "CycB"), ("CycD", "CycA")], &[2, 3], "CycB,CycC",
)]
#[case::walk_start(
    "cycle_walk_start",
    &[("CycW", "CycQ"), ("CycP", "CycQ"), ("CycQ", "CycP")], &[3, 2], "CycQ,CycP",
)]
// The walk follows the first dependency (in spec order) that is still unplaced.
#[case::first_unplaced_dependency(
    "cycle_first_unplaced",
    &[("CycFree", ""), ("CycA", "CycFree, CycC, CycB"), ("CycB", "CycA"), ("CycC", "CycB")],
    &[2, 4, 3], "CycA,CycC,CycB",
)]
fn dependency_cycle_rejected(
    #[case] label: &str,
    #[case] systems: &[(&'static str, &'static str)],
    #[case] cycle_ids: &[u32],
    #[case] cycle_field: &str,
) {
    let mut registry = registry(0);
    register_all(
        &mut registry,
        systems.iter().map(|&(name, deps)| plain(name, deps)),
    );
    let (result, events) = capture(|| plan(&registry));
    let err = result.unwrap_err();
    let ScheduleError::DependencyCycle(cycle) = &err else {
        panic!("expected a dependency cycle, got {err:?}");
    };
    assert_eq!(err.code(), "invalid_argument");
    let ids: Vec<u32> = cycle.systems().map(|s| s.id.get()).collect();
    assert_eq!(ids, cycle_ids);
    assert_eq!(cycle.len(), cycle_ids.len());
    assert_eq!(cycle.names().to_string(), cycle_field);
    assert_one_event(&events, "dependency_cycle", &[("cycle", cycle_field)]);

    // The closing declaration: the last system lists the first.
    let (dependent, dependency) = cycle.closing_edge();
    assert_eq!(dependent.id.get(), *cycle_ids.last().unwrap());
    assert_eq!(dependency.id.get(), cycle_ids[0]);
    assert!(registry.depends_on(dependent.id).contains(&dependency.name));
    let text = err.to_string();
    assert!(
        text.contains(dependent.name) && text.contains(dependency.name),
        "{text}"
    );
    assert_eq!(events[0].message, text);
    snapshot(label, &events);
}

// ---------------------------------------------------------------------------------------
// 16-19: malformed specs fail at registration
// ---------------------------------------------------------------------------------------

/// 16 `DepSpecEmptyTokenRejected`, 17 `DepSpecTrailingCommaRejected`,
/// 18 `DepSpecDuplicateRejected`, 19 `DepSpecTooManyRejected`.
#[rstest]
#[case::empty_token("TrimA, , TrimB", "empty_token")]
#[case::trailing_comma("TrimA,", "empty_token")]
#[case::duplicate("TrimA, TrimA", "duplicate_token")]
#[case::too_many(
    "Dep000, Dep001, Dep002, Dep003, Dep004, Dep005, Dep006, Dep007, Dep008, \
     Dep009, Dep010, Dep011, Dep012, Dep013, Dep014, Dep015, Dep016",
    "too_many"
)]
fn dep_spec_rejected_at_registration(#[case] spec: &'static str, #[case] error: &str) {
    let mut registry = registry(0);
    let (result, events) = capture(|| registry.register(plain("BadSpec", spec)));
    let err = result.unwrap_err();
    let RegisterError::DepSpecInvalid {
        name,
        method: "after",
        spec: reported,
        error: parse,
    } = err
    else {
        panic!("expected dep_spec_invalid, got {err:?}");
    };
    assert_eq!(
        (name, reported, parse.kind.name()),
        ("BadSpec", spec, error)
    );
    assert_eq!(registry.len(), 0);
    assert_one_event(
        &events,
        "dep_spec_invalid",
        &[("error", error), ("name", "BadSpec")],
    );
    // Nothing was registered: the registry schedules empty.
    assert!(plan(&registry).unwrap().is_empty());
}

/// 19, the other side of the limit: 16 dependencies are fine.
#[test]
fn sixteen_dependencies_are_fine() {
    let mut registry = registry(0);
    let names: Vec<&'static str> = (0..16)
        .map(|i| &*Box::leak(format!("Dep{i:03}").into_boxed_str()))
        .collect();
    let spec: &'static str = Box::leak(names.join(", ").into_boxed_str());
    registry.register(plain("Many", spec)).unwrap();
    register_all(&mut registry, names.iter().map(|&name| plain(name, "")));
    let schedule = plan(&registry).unwrap();
    let expected: Vec<u32> = (2..=17).chain([1]).collect();
    assert_eq!(order(&schedule), expected);
}

// ---------------------------------------------------------------------------------------
// 21-23: what the runner accepts
// ---------------------------------------------------------------------------------------

/// 21 `EmptyWorldSchedulesAndRunsEmpty`. The moved-from half: a moved-from binding cannot
/// be used in Rust; `std::mem::take` leaves a new empty registry, which schedules and runs
/// empty too. A schedule moves with its registry's identity.
#[test]
fn empty_registry_schedules_and_runs_empty() {
    let mut registry = registry(0);
    let mut world = TestWorld::new(1);
    let ((), events) = capture(|| {
        let schedule = plan(&registry).unwrap();
        assert_eq!(schedule.system_count(), 0);
        assert!(schedule.is_empty());
        assert_eq!(order(&schedule), [] as [u32; 0]);
        let (result, ran) = tick(&schedule, &registry, &mut world);
        result.unwrap();
        assert!(ran.is_empty());
    });
    assert_no_events(&events);

    register_all(&mut registry, [sch_noop_def()]);
    let before_move = plan(&registry).unwrap();
    let moved = std::mem::take(&mut registry);
    let ((), events) = capture(|| {
        let schedule = plan(&registry).unwrap();
        assert_eq!(schedule.system_count(), 0);
        assert!(tick(&schedule, &registry, &mut world).1.is_empty());
        // The schedule computed before the move still belongs to the moved registry.
        let (result, ran) = tick(&before_move, &moved, &mut world);
        result.unwrap();
        assert_eq!(ran, [1]);
    });
    assert_no_events(&events);
}

/// 22 `StaleScheduleRejected`, and a schedule from another registry.
#[test]
fn stale_schedule_rejected() {
    let mut registry = registry(1);
    register_all(&mut registry, [sch_noop_def()]);
    let schedule = plan(&registry).unwrap();
    register_all(&mut registry, [sch_write_vel_def(FIRST)]);

    let mut world = TestWorld::new(1);
    let ((result, ran), events) = capture(|| tick(&schedule, &registry, &mut world));
    let err = result.unwrap_err();
    assert_eq!(
        err,
        RunError::ScheduleStale {
            scheduled_systems: 1,
            current_systems: 2,
            foreign: false
        }
    );
    assert!(ran.is_empty() && world.log.is_empty(), "nothing ran");
    assert_one_event(
        &events,
        "schedule_stale",
        &[("current_systems", "2"), ("scheduled_systems", "1")],
    );
    assert_eq!(events[0].message, err.to_string());
    snapshot("schedule_stale", &events);

    let fresh = plan(&registry).unwrap();
    assert_eq!(fresh.system_count(), 2);
    let (result, ran) = tick(&fresh, &registry, &mut world);
    result.unwrap();
    assert_eq!(ran, [1, 2]);
    assert_eq!(world.log, [1, 2]);
}

/// 22, port addition: the staleness check also knows the registry, not only the count.
#[test]
fn schedule_from_another_registry_is_stale() {
    let mut mine = registry(0);
    let mut other = registry(0);
    register_all(&mut mine, [sch_noop_def()]);
    register_all(&mut other, [sch_noop_def()]);
    let theirs = plan(&other).unwrap();
    assert_eq!(theirs, plan(&mine).unwrap(), "same systems, same order");

    let mut world = TestWorld::new(1);
    let ((result, ran), events) = capture(|| tick(&theirs, &mine, &mut world));
    let err = result.unwrap_err();
    assert_eq!(
        err,
        RunError::ScheduleStale {
            scheduled_systems: 1,
            current_systems: 1,
            foreign: true
        }
    );
    assert!(ran.is_empty());
    assert_one_event(
        &events,
        "schedule_stale",
        &[("current_systems", "1"), ("scheduled_systems", "1")],
    );
    assert!(check(&theirs, &mine).is_err());
    assert!(check(&theirs, &other).is_ok());
    snapshot("schedule_foreign", &events);
}

/// 23 `InvalidScheduleRejected`: every slot is checked before anything runs. An entry of
/// 0 cannot be built (`SystemId` has no 0); an unfilled slot is reported as id 0 instead.
/// The error says which of the three is wrong (two systems are registered).
#[rstest]
#[case::repeated("schedule_invalid_repeated", &[1, 1], 1, 1, Repeated { first_slot: 0 })]
#[case::out_of_range("schedule_invalid_out_of_range", &[1, 5], 1, 5, OutOfRange { systems: 2 })]
#[case::out_of_range_first("schedule_invalid_first_slot", &[3, 1], 0, 3, OutOfRange { systems: 2 })]
#[case::unfilled("schedule_invalid_unfilled", &[2], 1, 0, Unfilled { systems: 2 })]
#[case::too_long("schedule_invalid_too_long", &[2, 1, 2], 2, 2, Repeated { first_slot: 0 })]
fn invalid_schedule_rejected(
    #[case] label: &str,
    #[case] entries: &[u32],
    #[case] slot: usize,
    #[case] id: u32,
    #[case] problem: SlotProblem,
) {
    let mut registry = registry(0);
    register_all(&mut registry, [sch_noop_def(), sch_dep_on_noop_def()]);
    let ids: Vec<SystemId> = entries.iter().map(|&v| sid(v)).collect();
    let hand_built = Schedule::hand_built(2, &ids);
    assert!(!hand_built.is_verified());
    let mut world = TestWorld::new(1);
    let ((result, ran), events) = capture(|| tick(&hand_built, &registry, &mut world));
    let err = result.unwrap_err();
    assert_eq!(err, RunError::ScheduleInvalid { slot, id, problem });
    assert!(ran.is_empty() && world.log.is_empty(), "nothing ran");
    let (slot, id) = (slot.to_string(), id.to_string());
    assert_one_event(&events, "schedule_invalid", &[("id", &id), ("slot", &slot)]);
    assert_eq!(events[0].message, err.to_string());
    snapshot(label, &events);
}

/// 23, the other side: a well-formed hand-built order runs as given; a hand-built schedule
/// for the wrong count is stale first (§2.4 row 1 before row 3).
#[test]
fn hand_built_schedules_run_or_go_stale() {
    let mut registry = registry(0);
    register_all(&mut registry, [sch_noop_def(), sch_dep_on_noop_def()]);
    let mut world = TestWorld::new(1);

    let reversed = Schedule::hand_built(2, &[sid(2), sid(1)]);
    let (result, ran) = tick(&reversed, &registry, &mut world);
    result.unwrap();
    assert_eq!(ran, [2, 1]);
    assert_eq!(world.log, [7, 1]);

    let wrong_count = Schedule::hand_built(3, &[sid(1), sid(1)]);
    let (result, ran) = tick(&wrong_count, &registry, &mut world);
    assert_eq!(
        result.unwrap_err(),
        RunError::ScheduleStale {
            scheduled_systems: 3,
            current_systems: 2,
            foreign: false
        }
    );
    assert!(ran.is_empty());
}

// ---------------------------------------------------------------------------------------
// 24-25: determinism
// ---------------------------------------------------------------------------------------

/// 24 `ScheduleIdenticalAcrossTwoWorlds` (§6.2). Kahn with the smallest ready id first
/// gives StableX(2), SchNoop(3), SchWriteVel(4), SchDepOnTwo(1), StableY(5).
#[test]
fn schedule_identical_across_two_registries() {
    let build = || {
        let mut registry = registry(1);
        register_all(
            &mut registry,
            [
                sch_dep_on_two_def(),
                plain("StableX", ""),
                sch_noop_def(),
                sch_write_vel_def(FIRST),
                plain("StableY", "StableX, SchNoop"),
            ],
        );
        let schedule = plan(&registry).unwrap();
        (registry, schedule)
    };
    let (first_registry, first) = build();
    let (_second_registry, second) = build();
    assert_eq!(first.system_count(), 5);
    assert_eq!(second.system_count(), 5);
    assert_eq!(first.order(), second.order());
    assert_eq!(first, second);
    assert_eq!(first.order_hash(), second.order_hash());
    assert_eq!(order(&first), [2, 3, 4, 1, 5]);

    let mut world = TestWorld::new(1);
    tick(&first, &first_registry, &mut world).0.unwrap();
    assert_eq!(world.log, [1, 2, 8]);
}

/// FNV-1a 64 straight from §6.1: offset basis, prime, XOR then multiply per byte.
fn fnv1a64_reference(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// 25 `KnownAnswerScheduleOrder` (§6.1).
#[test]
fn known_answer_schedule_order() {
    fn kat_even(_: &mut TestWorld) {}
    fn kat_odd(world: &mut TestWorld) {
        world.vel_sum += 1;
    }
    let kat = |name, deps, run: Run| {
        SystemDef::new(name, run)
            .budget(Budget::from_millis(1))
            .depends_on(deps)
    };
    let mut registry = registry(0);
    register_all(
        &mut registry,
        [
            kat("KatA", "KatB", kat_odd),
            kat("KatB", "", kat_even),
            kat("KatC", "KatB, KatA", kat_odd),
            kat("KatD", "", kat_even),
            kat("KatE", "KatD, KatC", kat_odd),
        ],
    );
    let schedule = plan(&registry).unwrap();
    assert_eq!(order(&schedule), [2, 1, 3, 4, 5]);

    let bytes: Vec<u8> = schedule
        .order()
        .iter()
        .flat_map(|id| u64::from(id.get()).to_be_bytes())
        .collect();
    assert_eq!(bytes.len(), 40);
    let reference = fnv1a64_reference(&bytes);
    assert_eq!(reference, 0xaef3_282f_393a_b332);
    assert_eq!(schedule.order_hash(), reference);

    let line = format!(
        "scheduler-order systems={} fnv1a={:#018x}",
        schedule.system_count(),
        schedule.order_hash()
    );
    println!("{line}");
    assert_eq!(line, "scheduler-order systems=5 fnv1a=0xaef3282f393ab332");
}
