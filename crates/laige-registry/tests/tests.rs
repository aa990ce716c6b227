//! `SystemRegistry.*` (contract §8.2) ported to [`Registry`]: ids, definitions, declared
//! access, the normative validation order of §2.1 with its events (§4 rate limiting), the
//! `system!` macro, name lookup and the FNV-1a known answers.
//!
//! Not here: 23 `RegistrationPerformsNoHeapAllocation` (its own binary, `no_alloc.rs`), and
//! the World-level halves of 7, 21 and 22, which live with the World.

use std::sync::Arc;
use std::time::Duration;

use laige_depspec::{ErrorKind, ParseError, Span};
use laige_diag::{Diagnostics, ManualClock};
use laige_registry::{
    Access, Budget, ComponentId, Fnv1a64, Io, MAX_COMPONENTS, MAX_SYSTEMS, RegisterError, Registry,
    SystemDef, SystemId, UnknownSystem, fnv1a64, system,
};
use laige_testkit::{Event, capture, render_with_messages};
use rstest::rstest;

// ---------------------------------------------------------------------------------------
// Fixture
// ---------------------------------------------------------------------------------------

/// A stand-in for the World the fixture systems run on.
#[derive(Debug, Default)]
struct Probe {
    /// vx of every SysTestVel carrier.
    vel: Vec<i64>,
    /// Every SysTestPos carrier.
    pos: Vec<(i32, i32)>,
    /// Every SysTestHealth carrier.
    health: Vec<(i32, i32)>,
    /// What `SysReadHealth` counted.
    health_count: usize,
}

type Run = fn(&mut Probe);
type Def = SystemDef<Run>;

/// `SysMoveVel` (1 ms): writes vx = 0x1234 on every Vel carrier.
fn sys_move_vel(world: &mut Probe) {
    for vx in &mut world.vel {
        *vx = 0x1234;
    }
}

/// `SysReadHealth` (2 ms): counts the Health carriers.
fn sys_read_health(world: &mut Probe) {
    world.health_count = world.health.len();
}

fn noop(_: &mut Probe) {}

fn other_noop(world: &mut Probe) {
    world.health_count += 1;
}

const fn cid(value: u16) -> ComponentId {
    match ComponentId::new(value) {
        Some(id) => id,
        None => panic!("fixture component ids are in 1..=256"),
    }
}

fn sid(value: u32) -> SystemId {
    SystemId::new(value).expect("fixture system ids are non-zero")
}

/// SysTestVel, SysTestPos, SysTestHealth, registered in that order.
const VEL: ComponentId = cid(1);
const POS: ComponentId = cid(2);
const HEALTH: ComponentId = cid(3);
/// A component id nobody registered.
const UNREGISTERED: ComponentId = cid(9);

/// A registry with the three fixture components registered.
fn registry() -> Registry<Run> {
    let mut registry = Registry::new();
    for c in [VEL, POS, HEALTH] {
        registry.register_component(c);
    }
    registry
}

/// A registry with a 60 s rate window on a clock that only moves when told to (§4).
fn limited_registry() -> (Registry<Run>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    let diag = Diagnostics::with_clock(Duration::from_secs(60), clock.clone());
    let mut registry = Registry::with_diagnostics(diag);
    for c in [VEL, POS, HEALTH] {
        registry.register_component(c);
    }
    (registry, clock)
}

/// A valid definition: no-op run, 1 ms, no dependencies, no I/O.
fn def(name: &'static str) -> Def {
    SystemDef::new(name, noop as Run).budget(Budget::from_millis(1))
}

/// A `&'static str` made at run time (test names must outlive the registry).
fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// 17 distinct names `Dep000, ..., Dep016`, joined by ", ".
fn seventeen_deps() -> &'static str {
    leak(
        (0..17)
            .map(|i| format!("Dep{i:03}"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// What a record looks like from outside, for "nothing changed" comparisons.
type RecordView = (
    u32,
    &'static str,
    i32,
    &'static str,
    Vec<&'static str>,
    Vec<u16>,
    Vec<u16>,
    usize,
);

fn view(registry: &Registry<Run>) -> Vec<RecordView> {
    registry
        .iter()
        .map(|r| {
            (
                r.id().get(),
                r.name(),
                r.budget().raw(),
                r.depends_on_spec(),
                registry.depends_on(r.id()).to_vec(),
                r.reads().iter().map(ComponentId::get).collect(),
                r.writes().iter().map(ComponentId::get).collect(),
                *registry.run(r.id()).unwrap() as usize,
            )
        })
        .collect()
}

/// The event's field keys and values, sorted by key.
fn fields(event: &Event) -> Vec<(&str, &str)> {
    event
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// `expected` sorted by key, for comparing with [`fields`].
fn sorted<'a>(expected: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut expected = expected.to_vec();
    expected.sort();
    expected
}

/// Asserts `events` is exactly one Warn `system/<event>` carrying exactly `expected` fields.
#[track_caller]
fn assert_one_event(events: &[Event], event: &str, expected: &[(&str, &str)]) {
    assert_eq!(
        events.len(),
        1,
        "expected exactly one event, got:\n{}",
        render_with_messages(events)
    );
    assert_eq!(events[0].level, "warn");
    assert_eq!(events[0].name, format!("system/{event}"));
    assert_eq!(fields(&events[0]), sorted(expected));
}

/// Asserts `events` is exactly one `system/rate_limited` summary for `event`.
#[track_caller]
fn assert_summary(events: &[Event], event: &str, suppressed: u64) {
    let suppressed = suppressed.to_string();
    assert_one_event(
        events,
        "rate_limited",
        &[("event", event), ("suppressed", &suppressed)],
    );
}

// ---------------------------------------------------------------------------------------
// 1-6: ids, the macro, stored definitions, declared I/O
// ---------------------------------------------------------------------------------------

/// 1 `IdTypeBasics`. `kInvalidSystemId` (0) is unrepresentable: `SystemId::new(0)` is `None`,
/// and `Option<SystemId>` costs nothing.
#[test]
fn id_type_basics() {
    assert_eq!(SystemId::new(0), None);
    assert_eq!(size_of::<Option<SystemId>>(), size_of::<u32>());
    let (one, two) = (sid(1), sid(2));
    assert_eq!(one, sid(1));
    assert_ne!(one, two);
    assert_eq!((one.get(), two.get()), (1, 2));
    assert_eq!((one.index(), two.index()), (0, 1));
    assert!(one < two);

    // Component ids: 0 is never assigned (kInvalidComponentTypeId), at most 256 types.
    assert_eq!(ComponentId::new(0), None);
    assert_eq!(MAX_COMPONENTS, 256);
    assert_eq!(ComponentId::new(256).map(ComponentId::get), Some(256));
    assert_eq!(ComponentId::new(257), None);
    assert_eq!(VEL.index(), 0);
    assert_eq!(ComponentId::from_index(255), ComponentId::new(256));
    assert_eq!(ComponentId::from_index(256), None);
}

/// 2 `MacroBuildsDefAndFunction`: name = the stringized name, run = the function,
/// budget = whole milliseconds exactly (1 → raw 65536, 2 → raw 131072).
#[test]
fn macro_builds_def_and_function() {
    let move_vel: Def = system!("SysMoveVel" => sys_move_vel, 1);
    let read_health: Def = system!("SysReadHealth" => sys_read_health, 2);
    assert_eq!(
        (move_vel.name, read_health.name),
        ("SysMoveVel", "SysReadHealth")
    );
    assert!(std::ptr::fn_addr_eq(
        move_vel.run.unwrap(),
        sys_move_vel as Run
    ));
    assert!(std::ptr::fn_addr_eq(
        read_health.run.unwrap(),
        sys_read_health as Run
    ));
    assert_eq!(move_vel.budget, Budget::from_millis(1));
    assert_eq!(
        (move_vel.budget.raw(), read_health.budget.raw()),
        (65536, 131072)
    );
    assert_eq!((move_vel.depends_on, read_health.depends_on), ("", ""));
    assert!(move_vel.io.as_slice().is_empty());

    // The bare form stringizes the function's own name.
    let bare: Def = system!(sys_move_vel, 1);
    assert_eq!(bare.name, "sys_move_vel");
    assert!(std::ptr::fn_addr_eq(bare.run.unwrap(), sys_move_vel as Run));

    // A fractional literal budget: 0.5 ms is raw 1 << 15.
    let half: Def = system!("Half" => noop, 0.5);
    assert_eq!(half.budget.raw(), 1 << 15);

    // The run really is the function.
    let mut world = Probe {
        vel: vec![7, 8],
        ..Probe::default()
    };
    (move_vel.run.unwrap())(&mut world);
    assert_eq!(world.vel, [0x1234, 0x1234]);
}

/// 3 `IdsAssignedInRegistrationOrder`.
#[test]
fn ids_assigned_in_registration_order() {
    let mut registry = registry();
    let a = registry
        .register(system!("SysMoveVel" => sys_move_vel, 1))
        .unwrap();
    let b = registry
        .register(system!("SysReadHealth" => sys_read_health, 2))
        .unwrap();
    assert_eq!((a.get(), b.get()), (1, 2));
    assert_eq!(registry.len(), 2);
    assert!(!registry.is_empty());
    assert_eq!(registry.get(a).unwrap().name(), "SysMoveVel");
    assert_eq!(registry.get(b).unwrap().name(), "SysReadHealth");
    let ids: Vec<u32> = registry.iter().map(|r| r.id().get()).collect();
    assert_eq!(ids, [1, 2]);
}

/// 4 `DefStoredByValue`: the definition is copied; changing the caller's copy afterwards
/// changes nothing in the registry.
#[test]
fn def_stored_by_value() {
    let mut registry = registry();
    let id = {
        let mut on_stack: Def = SystemDef::new("StackDef", noop as Run)
            .budget(Budget::from_raw(1 << 15))
            .depends_on("Later")
            .writes(VEL);
        let id = registry.register(on_stack).unwrap();
        on_stack.name = "Changed";
        on_stack.budget = Budget::from_raw(7);
        on_stack.run = Some(other_noop);
        assert_eq!(on_stack.name, "Changed");
        id
    };
    let record = registry.get(id).unwrap();
    assert_eq!(record.id(), id);
    assert_eq!(record.name(), "StackDef");
    assert_eq!(record.budget().raw(), 1 << 15);
    assert_eq!(record.depends_on_spec(), "Later");
    assert_eq!(registry.depends_on(id), ["Later"]);
    assert_eq!(record.dependency_count(), 1);
    assert!(std::ptr::fn_addr_eq(
        *registry.run(id).unwrap(),
        noop as Run
    ));
    assert!(record.declares_write(VEL));
}

/// A definition kept in a table registers by reference, into as many registries as asked,
/// and each gets the same record; a failed registration by reference changes nothing.
#[test]
fn def_registered_by_reference() {
    let table: [Def; 2] = [
        SystemDef::new("First", noop as Run)
            .budget_ms(1.0)
            .writes(VEL),
        SystemDef::new("Second", other_noop as Run)
            .budget_ms(2.0)
            .depends_on("First"),
    ];
    let (mut a, mut b) = (registry(), registry());
    for def in &table {
        a.register(def).unwrap();
        b.register(def).unwrap();
    }
    assert_eq!(view(&a), view(&b));
    assert_eq!(a.depends_on(a.find("Second").unwrap()), ["First"]);
    assert_eq!(
        a.register(table.first().unwrap()).unwrap_err().event(),
        "duplicate",
        "the same definition twice is a duplicate"
    );
    assert_eq!(
        view(&a),
        view(&b),
        "the refused registration changed nothing"
    );
}

/// 5 `IoDeclaredAndQueryable`: Write Vel + Read Pos; Health undeclared.
#[test]
fn io_declared_and_queryable() {
    let mut registry = registry();
    let id = registry
        .register(
            system!("SysMoveVel" => sys_move_vel, 1)
                .writes(VEL)
                .reads(POS),
        )
        .unwrap();
    let record = registry.get(id).unwrap();
    assert!(record.declares_write(VEL));
    assert!(record.declares_read(POS));
    assert!(!record.declares_read(VEL));
    assert!(!record.declares_write(POS));
    assert!(!record.declares_read(HEALTH));
    assert!(!record.declares_write(HEALTH));
    assert_eq!(record.writes().iter().collect::<Vec<_>>(), [VEL]);
    assert_eq!(record.reads().iter().collect::<Vec<_>>(), [POS]);
    assert_eq!(record.touches().iter().collect::<Vec<_>>(), [VEL, POS]);
}

/// 6 `ZeroIoPackLegal`.
#[test]
fn zero_io_pack_legal() {
    let mut registry = registry();
    let id = registry.register(def("NoIo")).unwrap();
    let record = registry.get(id).unwrap();
    assert!(record.reads().is_empty());
    assert!(record.writes().is_empty());
    assert!(record.touches().is_empty());
    for c in [VEL, POS, HEALTH] {
        assert!(!record.declares_read(c) && !record.declares_write(c));
    }
}

/// 7 `ContextDelegatesEach`, registry half: the stored run is the registered function, so
/// calling it through the record does exactly what the system does. The World-level
/// version (a hand-built context delegating `each`) lives with the World.
#[test]
fn stored_run_is_the_system() {
    let mut registry = registry();
    let mover = registry
        .register(system!("SysMoveVel" => sys_move_vel, 1).writes(VEL))
        .unwrap();
    let reader = registry
        .register(system!("SysReadHealth" => sys_read_health, 2).reads(HEALTH))
        .unwrap();
    let mut world = Probe {
        vel: vec![5],
        pos: vec![(1, 2)],
        health: vec![(10, 10)],
        health_count: 0,
    };
    (registry.run(mover).unwrap())(&mut world);
    (registry.run(reader).unwrap())(&mut world);
    assert_eq!(world.vel, [0x1234]);
    assert_eq!(world.pos, [(1, 2)]);
    assert_eq!(world.health, [(10, 10)]);
    assert_eq!(world.health_count, 1);
}

// ---------------------------------------------------------------------------------------
// 8-17: the validation table (§2.1), one check at a time, then two at once
// ---------------------------------------------------------------------------------------

/// What the failing definition is registered into.
#[derive(Clone, Copy, Debug)]
enum Setup {
    /// The fixture components plus one system, `Existing` (id 1, writes Vel).
    Base,
    /// `Base` filled up to [`MAX_SYSTEMS`] systems.
    Full,
}

fn set_up(setup: Setup) -> Registry<Run> {
    let mut registry = registry();
    registry.register(def("Existing").writes(VEL)).unwrap();
    if let Setup::Full = setup {
        for i in registry.len()..MAX_SYSTEMS {
            registry
                .register(def(leak(format!("Filler{i:03}"))))
                .unwrap();
        }
        assert_eq!(registry.len(), MAX_SYSTEMS);
    }
    registry
}

fn no_run(name: &'static str) -> Def {
    Def {
        run: None,
        ..def(name)
    }
}

fn spec_error(kind: ErrorKind, start: usize, end: usize, position: usize) -> ParseError {
    ParseError {
        kind,
        span: Span { start, end },
        position,
    }
}

/// Every row of §2.1 failing alone, then two or more failing at once: the earliest row
/// in the normative order wins (name_invalid < run_invalid < budget_invalid <
/// dep_spec_invalid < duplicate < io_unregistered < io_duplicate < budget_exhausted).
/// Each failure returns its error, changes nothing, and emits exactly one event with the
/// contract's name and field keys.
#[rstest]
// -- one failing check ------------------------------------------------------------------
// 9 EmptyNameRejected (8 NullNameRejected: a null name is unrepresentable in a `&str`).
#[case::name_empty(
    "name_empty", Setup::Base, def(""),
    RegisterError::NameInvalid { name: "", budget_raw: 65536 },
    "name_invalid", &[("budget_raw", "65536")],
)]
// Port rule: a name no depends_on spec could name (comma, edge whitespace) is invalid too.
#[case::name_with_comma(
    "name_with_comma", Setup::Base, def("Bad,Name"),
    RegisterError::NameInvalid { name: "Bad,Name", budget_raw: 65536 },
    "name_invalid", &[("budget_raw", "65536")],
)]
#[case::name_padded(
    "name_padded", Setup::Base, def(" Padded"),
    RegisterError::NameInvalid { name: " Padded", budget_raw: 65536 },
    "name_invalid", &[("budget_raw", "65536")],
)]
// 10 NullRunRejected.
#[case::run_missing(
    "run_missing", Setup::Base, no_run("NoRun"),
    RegisterError::RunInvalid { name: "NoRun" },
    "run_invalid", &[("name", "NoRun")],
)]
// 11 ZeroBudgetRejected.
#[case::budget_zero(
    "budget_zero", Setup::Base, def("NoBudget").budget(Budget::from_raw(0)),
    RegisterError::BudgetInvalid { name: "NoBudget", budget_raw: 0, not_a_number: false },
    "budget_invalid", &[("budget_raw", "0"), ("name", "NoBudget")],
)]
// 12 NegativeBudgetRejected: fromInt32(-1).
#[case::budget_negative(
    "budget_negative", Setup::Base, def("Negative").budget(Budget::from_millis(-1)),
    RegisterError::BudgetInvalid { name: "Negative", budget_raw: -65536, not_a_number: false },
    "budget_invalid", &[("budget_raw", "-65536"), ("name", "Negative")],
)]
#[case::dep_spec_empty_token(
    "dep_spec_empty_token", Setup::Base, def("BadSpec").depends_on("TrimA, , TrimB"),
    RegisterError::DepSpecInvalid {
        name: "BadSpec", method: "after", spec: "TrimA, , TrimB", error: spec_error(ErrorKind::EmptyToken, 6, 6, 1),
    },
    "dep_spec_invalid", &[("error", "empty_token"), ("name", "BadSpec")],
)]
#[case::dep_spec_duplicate_token(
    "dep_spec_duplicate_token", Setup::Base, def("BadSpec").depends_on("TrimA, TrimA"),
    RegisterError::DepSpecInvalid {
        name: "BadSpec", method: "after", spec: "TrimA, TrimA", error: spec_error(ErrorKind::DuplicateToken, 7, 12, 1),
    },
    "dep_spec_invalid", &[("error", "duplicate_token"), ("name", "BadSpec")],
)]
#[case::dep_spec_too_many(
    "dep_spec_too_many", Setup::Base, def("BadSpec").depends_on(seventeen_deps()),
    RegisterError::DepSpecInvalid {
        name: "BadSpec", method: "after", spec: seventeen_deps(), error: spec_error(ErrorKind::TooMany, 128, 134, 16),
    },
    "dep_spec_invalid", &[("error", "too_many"), ("name", "BadSpec")],
)]
// 14 DuplicateNameIsAnError: other function, 2 ms.
#[case::duplicate(
    "duplicate", Setup::Base,
    SystemDef::new("Existing", other_noop as Run).budget(Budget::from_millis(2)),
    RegisterError::Duplicate { name: "Existing", existing: sid(1) },
    "duplicate", &[("existing_system_id", "1"), ("name", "Existing")],
)]
// 15 IoUnregisteredComponentIsAnError (the contract logs the name only, §9.13).
#[case::io_unregistered(
    "io_unregistered", Setup::Base, def("Unreg").reads(UNREGISTERED),
    RegisterError::IoUnregistered { name: "Unreg", position: 0, component: None, access: Access::Read },
    "io_unregistered", &[("name", "Unreg")],
)]
// A type the front end could not resolve to an id at all.
#[case::io_unresolved(
    "io_unresolved", Setup::Base, def("Unreg").io(Io { component: None, access: Access::Write, type_name: None }),
    RegisterError::IoUnregistered { name: "Unreg", position: 0, component: None, access: Access::Write },
    "io_unregistered", &[("name", "Unreg")],
)]
#[case::io_unregistered_second(
    "io_unregistered_second", Setup::Base, def("Unreg").writes(POS).writes(UNREGISTERED),
    RegisterError::IoUnregistered { name: "Unreg", position: 1, component: None, access: Access::Write },
    "io_unregistered", &[("name", "Unreg")],
)]
// 16 IoDuplicateComponentIsAnError: R+W, R+R, W+R, W+W.
#[case::io_duplicate_read_write(
    "io_duplicate_read_write", Setup::Base, def("Twice").reads(VEL).writes(VEL),
    RegisterError::IoDuplicate { name: "Twice", component: VEL },
    "io_duplicate", &[("component_id", "1"), ("name", "Twice")],
)]
#[case::io_duplicate_read_read(
    "io_duplicate_read_read", Setup::Base, def("Twice").reads(POS).reads(POS),
    RegisterError::IoDuplicate { name: "Twice", component: POS },
    "io_duplicate", &[("component_id", "2"), ("name", "Twice")],
)]
#[case::io_duplicate_write_read(
    "io_duplicate_write_read", Setup::Base, def("Twice").writes(HEALTH).reads(HEALTH),
    RegisterError::IoDuplicate { name: "Twice", component: HEALTH },
    "io_duplicate", &[("component_id", "3"), ("name", "Twice")],
)]
#[case::io_duplicate_write_write(
    "io_duplicate_write_write", Setup::Base, def("Twice").writes(VEL).reads(POS).writes(VEL),
    RegisterError::IoDuplicate { name: "Twice", component: VEL },
    "io_duplicate", &[("component_id", "1"), ("name", "Twice")],
)]
// 17 EngineBudgetHonored: the 257th registration.
#[case::budget_exhausted(
    "budget_exhausted", Setup::Full, def("Overflow"),
    RegisterError::BudgetExhausted { name: "Overflow", systems: 256 },
    "budget_exhausted", &[("name", "Overflow"), ("systems", "256")],
)]
// -- two (or more) failing checks: the earlier row wins ---------------------------------
#[case::name_before_run(
    "name_before_run", Setup::Base, no_run(""),
    RegisterError::NameInvalid { name: "", budget_raw: 65536 },
    "name_invalid", &[("budget_raw", "65536")],
)]
#[case::run_before_budget(
    "run_before_budget", Setup::Base, no_run("NoRun").budget(Budget::from_raw(0)),
    RegisterError::RunInvalid { name: "NoRun" },
    "run_invalid", &[("name", "NoRun")],
)]
#[case::budget_before_dep_spec(
    "budget_before_dep_spec", Setup::Base, def("NoBudget").budget(Budget::from_raw(0)).depends_on("A,"),
    RegisterError::BudgetInvalid { name: "NoBudget", budget_raw: 0, not_a_number: false },
    "budget_invalid", &[("budget_raw", "0"), ("name", "NoBudget")],
)]
#[case::dep_spec_before_duplicate(
    "dep_spec_before_duplicate", Setup::Base, def("Existing").depends_on("A,"),
    RegisterError::DepSpecInvalid {
        name: "Existing", method: "after", spec: "A,", error: spec_error(ErrorKind::EmptyToken, 2, 2, 1),
    },
    "dep_spec_invalid", &[("error", "empty_token"), ("name", "Existing")],
)]
#[case::duplicate_before_io_unregistered(
    "duplicate_before_io_unregistered", Setup::Base, def("Existing").reads(UNREGISTERED),
    RegisterError::Duplicate { name: "Existing", existing: sid(1) },
    "duplicate", &[("existing_system_id", "1"), ("name", "Existing")],
)]
#[case::io_unregistered_before_io_duplicate(
    "io_unregistered_before_io_duplicate", Setup::Base,
    def("Both").reads(UNREGISTERED).reads(VEL).writes(VEL),
    RegisterError::IoUnregistered { name: "Both", position: 0, component: None, access: Access::Read },
    "io_unregistered", &[("name", "Both")],
)]
// "Io entries are resolved left to right; resolution stops at the first failure" (§2.1):
// a duplicate met before the unregistered entry is what is reported.
#[case::io_left_to_right(
    "io_left_to_right", Setup::Base, def("Both").reads(VEL).writes(VEL).reads(UNREGISTERED),
    RegisterError::IoDuplicate { name: "Both", component: VEL },
    "io_duplicate", &[("component_id", "1"), ("name", "Both")],
)]
#[case::io_duplicate_before_budget_exhausted(
    "io_duplicate_before_budget_exhausted", Setup::Full, def("Overflow").reads(VEL).writes(VEL),
    RegisterError::IoDuplicate { name: "Overflow", component: VEL },
    "io_duplicate", &[("component_id", "1"), ("name", "Overflow")],
)]
#[case::io_unregistered_before_budget_exhausted(
    "io_unregistered_before_budget_exhausted", Setup::Full, def("Overflow").reads(UNREGISTERED),
    RegisterError::IoUnregistered { name: "Overflow", position: 0, component: None, access: Access::Read },
    "io_unregistered", &[("name", "Overflow")],
)]
#[case::duplicate_before_budget_exhausted(
    "duplicate_before_budget_exhausted", Setup::Full, def("Existing"),
    RegisterError::Duplicate { name: "Existing", existing: sid(1) },
    "duplicate", &[("existing_system_id", "1"), ("name", "Existing")],
)]
#[case::everything_wrong(
    "everything_wrong", Setup::Full,
    no_run("").budget(Budget::from_raw(0)).depends_on(",").reads(VEL).writes(VEL),
    RegisterError::NameInvalid { name: "", budget_raw: 0 },
    "name_invalid", &[("budget_raw", "0")],
)]
fn registration_check_order(
    #[case] label: &str,
    #[case] setup: Setup,
    #[case] def: Def,
    #[case] expected: RegisterError,
    #[case] event: &str,
    #[case] expected_fields: &[(&str, &str)],
) {
    let mut registry = set_up(setup);
    let before = view(&registry);
    let len = registry.len();

    let (result, events) = capture(|| registry.register(def));
    let err = result.expect_err("the definition breaks a rule");

    assert_eq!(err, expected);
    assert_eq!(err.event(), event);
    let code = if event == "budget_exhausted" {
        "budget_exhausted"
    } else {
        "invalid_argument"
    };
    assert_eq!(err.code(), code);
    assert_one_event(&events, event, expected_fields);
    assert_eq!(events[0].message, err.to_string());

    // Nothing changed: same count, same records, and the next id is still free.
    assert_eq!(registry.len(), len);
    assert_eq!(view(&registry), before);
    assert_eq!(registry.runs().len(), len);
    if !def.name.is_empty() && def.name != "Existing" {
        assert_eq!(registry.find(def.name), None);
    }
    if len < MAX_SYSTEMS {
        let next = registry.register(system!("Afterwards" => noop, 1)).unwrap();
        assert_eq!(next.get() as usize, len + 1);
    }

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_suffix(label);
    settings.bind(|| {
        insta::assert_snapshot!(render_with_messages(&events));
    });
}

/// 8/9/10 in the contract's own words: each rejection leaves an empty registry at count 0.
#[test]
fn rejected_first_registration_leaves_count_zero() {
    for bad in [
        def(""),
        no_run("NoRun"),
        def("Z").budget(Budget::from_raw(0)),
    ] {
        let mut registry = registry();
        let (result, events) = capture(|| registry.register(bad));
        assert!(result.is_err());
        assert_eq!(events.len(), 1);
        assert_eq!(registry.len(), 0);
        assert!(registry.is_empty());
        assert_eq!(registry.records().len(), 0);
    }
}

/// 13 `FractionalBudgetAccepted`: raw 1 << 15 (0.5 ms) is legal and stored exactly.
#[test]
fn fractional_budget_accepted() {
    let mut registry = registry();
    let (id, events) = capture(|| registry.register(def("Half").budget(Budget::from_raw(1 << 15))));
    let id = id.unwrap();
    assert!(events.is_empty(), "success logs nothing");
    let budget = registry.get(id).unwrap().budget();
    assert_eq!(budget.raw(), 32768);
    assert_eq!(budget.as_millis_f64(), 0.5);
    // The smallest positive raw value is a legal budget too.
    assert!(
        registry
            .register(def("Tiny").budget(Budget::from_raw(1)))
            .is_ok()
    );
}

/// 14 `DuplicateNameIsAnError`: count 1 and the first definition intact.
#[test]
fn duplicate_name_is_an_error() {
    let mut registry = registry();
    let first = registry
        .register(SystemDef::new("Dup", noop as Run).budget_ms(1.0))
        .unwrap();
    let err = registry
        .register(SystemDef::new("Dup", other_noop as Run).budget_ms(2.0))
        .unwrap_err();
    assert_eq!(
        err,
        RegisterError::Duplicate {
            name: "Dup",
            existing: first
        }
    );
    assert_eq!(registry.len(), 1);
    let record = registry.get(first).unwrap();
    assert_eq!(record.budget(), Budget::from_millis(1));
    assert!(std::ptr::fn_addr_eq(
        *registry.run(first).unwrap(),
        noop as Run
    ));
    assert_eq!(registry.find("Dup"), Some(first));
}

/// 16 `IoDuplicateComponentIsAnError`, last step: Write Vel + Read Pos is fine.
#[test]
fn distinct_components_are_fine_after_io_duplicates() {
    let mut registry = registry();
    assert!(
        registry
            .register(def("Twice").reads(VEL).writes(VEL))
            .is_err()
    );
    assert!(
        registry
            .register(def("Twice").reads(VEL).reads(VEL))
            .is_err()
    );
    assert_eq!(registry.len(), 0);
    let id = registry
        .register(def("Twice").writes(VEL).reads(POS))
        .unwrap();
    assert_eq!(id.get(), 1);
}

/// A `matching` component must be registered too; it is checked after the declared
/// accesses and reported one past them.
#[test]
fn matching_components_are_checked_after_the_accesses() {
    let mut registry = registry();
    let unresolved = Def {
        matching_unresolved: true,
        ..def("Unresolved")
    };
    for (def, expected) in [
        (
            def("Table").reads(VEL).matching(UNREGISTERED),
            RegisterError::IoUnregistered {
                name: "Table",
                position: 1,
                component: None,
                access: Access::Read,
            },
        ),
        (
            unresolved,
            RegisterError::IoUnregistered {
                name: "Unresolved",
                position: 0,
                component: None,
                access: Access::Read,
            },
        ),
        (
            def("Table").reads(VEL).writes(VEL).matching(UNREGISTERED),
            RegisterError::IoDuplicate {
                name: "Table",
                component: VEL,
            },
        ),
    ] {
        assert_eq!(registry.register(def), Err(expected));
    }
    assert_eq!(registry.len(), 0);
    let id = registry
        .register(def("Table").reads(VEL).matching(POS))
        .unwrap();
    assert_eq!(
        registry
            .get(id)
            .unwrap()
            .matching()
            .iter()
            .collect::<Vec<_>>(),
        [POS]
    );
}

/// 17 `EngineBudgetHonored`: 256 distinct names register; the 257th is `BudgetExhausted`.
#[test]
fn engine_budget_honored() {
    let mut registry = registry();
    for i in 0..MAX_SYSTEMS {
        let id = registry
            .register(def(leak(format!("Budget{i:03}"))))
            .unwrap();
        assert_eq!(id.index(), i);
    }
    assert_eq!(MAX_SYSTEMS, 256);
    let err = registry.register(def("Budget256")).unwrap_err();
    assert_eq!(
        err,
        RegisterError::BudgetExhausted {
            name: "Budget256",
            systems: 256
        }
    );
    assert_eq!(err.code(), "budget_exhausted");
    assert_eq!(registry.len(), 256);
    assert_eq!(registry.find("Budget256"), None);
    assert_eq!(registry.find("Budget255").map(SystemId::get), Some(256));
}

// ---------------------------------------------------------------------------------------
// 18-22: queries, determinism of ids, moves
// ---------------------------------------------------------------------------------------

/// 18 `SystemQueryValidatesTheId`: id 0, id 1 of an empty registry and id count + 1 are
/// refused, as pure queries (no event); a registered id resolves.
#[test]
fn system_query_validates_the_id() {
    let mut registry = registry();
    let ((), events) = capture(|| {
        assert_eq!(
            registry.get_raw(0).unwrap_err(),
            UnknownSystem { id: 0, systems: 0 }
        );
        assert_eq!(
            registry.get_raw(1).unwrap_err(),
            UnknownSystem { id: 1, systems: 0 }
        );
        assert_eq!(
            registry.get(sid(1)).unwrap_err(),
            UnknownSystem { id: 1, systems: 0 }
        );
        assert_eq!(
            registry.run(sid(1)).unwrap_err(),
            UnknownSystem { id: 1, systems: 0 }
        );
        assert!(registry.runs().is_empty());
    });
    assert!(events.is_empty());

    let id = registry.register(def("Only")).unwrap();
    let ((), events) = capture(|| {
        assert_eq!(
            registry.get(sid(2)).unwrap_err(),
            UnknownSystem { id: 2, systems: 1 }
        );
        assert_eq!(
            registry.get_raw(0).unwrap_err(),
            UnknownSystem { id: 0, systems: 1 }
        );
        assert_eq!(
            registry.run(sid(2)).unwrap_err(),
            UnknownSystem { id: 2, systems: 1 }
        );
        assert_eq!(registry.get(id).unwrap().name(), "Only");
        assert_eq!(registry.get_raw(1).unwrap().id(), id);
        assert!(std::ptr::fn_addr_eq(
            *registry.run(id).unwrap(),
            noop as Run
        ));
        assert_eq!(registry.runs().len(), 1);
    });
    assert!(events.is_empty());
}

/// 19 `SystemIdsStableAcrossWorldsWithSameOrder`.
#[test]
fn system_ids_stable_across_registries_with_same_order() {
    let ids = || {
        let mut registry = registry();
        let a = registry
            .register(system!("SysMoveVel" => sys_move_vel, 1))
            .unwrap();
        let b = registry
            .register(system!("SysReadHealth" => sys_read_health, 2))
            .unwrap();
        (a, b)
    };
    let (first, second) = (ids(), ids());
    assert_eq!(first, second);
    assert_eq!((first.0.get(), first.1.get()), (1, 2));
}

/// 20 `RegistrationOrderDeterminesIds`.
#[test]
fn registration_order_determines_ids() {
    let mut forward = registry();
    forward
        .register(system!("SysMoveVel" => sys_move_vel, 1))
        .unwrap();
    forward
        .register(system!("SysReadHealth" => sys_read_health, 2))
        .unwrap();
    let mut swapped = registry();
    swapped
        .register(system!("SysReadHealth" => sys_read_health, 2))
        .unwrap();
    swapped
        .register(system!("SysMoveVel" => sys_move_vel, 1))
        .unwrap();
    assert_eq!(forward.find("SysMoveVel").map(SystemId::get), Some(1));
    assert_eq!(forward.find("SysReadHealth").map(SystemId::get), Some(2));
    assert_eq!(swapped.find("SysReadHealth").map(SystemId::get), Some(1));
    assert_eq!(swapped.find("SysMoveVel").map(SystemId::get), Some(2));
}

/// 21 `MovedWorldCarriesRegistry`, registry half: a moved registry keeps its count, its
/// records and their declared writes, and its identity. A moved-from binding cannot be
/// used in Rust at all; the nearest thing, `std::mem::take`, leaves a new, empty registry.
/// The World-level version lives with the World.
#[test]
fn moved_registry_carries_its_records() {
    let mut registry = registry();
    let id = registry
        .register(system!("SysMoveVel" => sys_move_vel, 1).writes(VEL))
        .unwrap();
    let identity = registry.identity();
    let before = view(&registry);

    let moved = registry;
    assert_eq!(moved.len(), 1);
    assert!(moved.get(id).unwrap().declares_write(cid(1)));
    assert_eq!(moved.identity(), identity);
    assert_eq!(view(&moved), before);

    let mut holder = moved;
    let taken = std::mem::take(&mut holder);
    assert_eq!(view(&taken), before);
    assert_eq!(taken.identity(), identity);
    assert_eq!(holder.len(), 0);
    assert!(holder.get_raw(1).is_err());
    assert_ne!(holder.identity(), identity);
    assert!(holder.components().is_empty());
}

// 22 `ClearLeavesRegistryUntouched` has no registry-level counterpart: the registry holds no
// entities to clear. It lives with the World: `clear_leaves_registry_untouched` in
// crates/laige-world/tests/world/systems.rs.

// ---------------------------------------------------------------------------------------
// 24-25: one event per failure, then rate limited (§4, 60 s window, manual clock)
// ---------------------------------------------------------------------------------------

/// 24 `DuplicateWarnsOnceWithIdentifyingFields`.
#[test]
fn duplicate_warns_once_with_identifying_fields() {
    let (mut registry, _clock) = limited_registry();
    registry.register(def("DupWarn")).unwrap();
    let ((), events) = capture(|| {
        for _ in 0..3 {
            let err = registry.register(def("DupWarn")).unwrap_err();
            assert_eq!(
                err,
                RegisterError::Duplicate {
                    name: "DupWarn",
                    existing: sid(1)
                }
            );
        }
    });
    assert_one_event(
        &events,
        "duplicate",
        &[("existing_system_id", "1"), ("name", "DupWarn")],
    );
    assert_eq!(registry.len(), 1);

    let ((), events) = capture(|| registry.diagnostics().flush());
    assert_summary(&events, "duplicate", 2);
    // Nothing pending any more: a second shutdown says nothing.
    let ((), events) = capture(|| registry.diagnostics().flush());
    assert!(events.is_empty());
}

/// 25 `BudgetInvalidWarnsOnceWithRawField`; shutdown here is dropping the last handle.
#[test]
fn budget_invalid_warns_once_with_raw_field() {
    let (mut registry, _clock) = limited_registry();
    let ((), events) = capture(|| {
        for _ in 0..3 {
            let err = registry
                .register(def("NoBudget").budget(Budget::from_raw(0)))
                .unwrap_err();
            assert_eq!(
                err,
                RegisterError::BudgetInvalid {
                    name: "NoBudget",
                    budget_raw: 0,
                    not_a_number: false,
                }
            );
        }
    });
    assert_one_event(
        &events,
        "budget_invalid",
        &[("budget_raw", "0"), ("name", "NoBudget")],
    );
    assert_eq!(registry.len(), 0);

    let ((), events) = capture(move || drop(registry));
    assert_summary(&events, "budget_invalid", 2);
}

/// §9.1: the key ignores the fields, so duplicates of different names share one key; once
/// the window has passed, the summary goes out first, then the event (§4).
#[test]
fn rate_limit_key_ignores_fields_and_summary_comes_first() {
    let (mut registry, clock) = limited_registry();
    registry.register(def("DupA")).unwrap();
    registry.register(def("DupB")).unwrap();
    let ((), events) = capture(|| {
        assert!(registry.register(def("DupA")).is_err());
        assert!(registry.register(def("DupB")).is_err());
        // A different key is not suppressed by the first.
        assert!(
            registry
                .register(def("NoBudget").budget(Budget::from_raw(-1)))
                .is_err()
        );
    });
    assert_eq!(events.len(), 2, "{}", render_with_messages(&events));
    assert_eq!(events[0].name, "system/duplicate");
    assert_eq!(events[0].field("name"), Some("DupA"));
    assert_eq!(events[1].name, "system/budget_invalid");

    clock.advance(Duration::from_secs(59));
    let ((), events) = capture(|| assert!(registry.register(def("DupB")).is_err()));
    assert!(events.is_empty(), "still inside the window");

    clock.advance(Duration::from_secs(1));
    let ((), events) = capture(|| assert!(registry.register(def("DupB")).is_err()));
    assert_eq!(events.len(), 2, "{}", render_with_messages(&events));
    assert_summary(&events[..1], "duplicate", 2);
    assert_one_event(
        &events[1..],
        "duplicate",
        &[("existing_system_id", "2"), ("name", "DupB")],
    );
}

// ---------------------------------------------------------------------------------------
// Name lookup, suggestions, FNV-1a
// ---------------------------------------------------------------------------------------

/// §2.2: a name matches only when the lengths match exactly, case-sensitively.
#[test]
fn find_is_exact_and_case_sensitive() {
    let mut registry = registry();
    let a = registry.register(def("A")).unwrap();
    let ab = registry.register(def("AB")).unwrap();
    assert_eq!(registry.find("A"), Some(a));
    assert_eq!(registry.find("AB"), Some(ab));
    assert_eq!(registry.find("ABC"), None);
    assert_eq!(registry.find("a"), None);
    assert_eq!(registry.find(""), None);
    assert_eq!(registry.find("A "), None);
}

/// `closest_name` suggests a registered name for a likely typo, and nothing otherwise.
#[test]
fn closest_name_suggests_likely_typos() {
    let mut registry = registry();
    assert_eq!(
        registry.closest_name("GhostSystm"),
        None,
        "an empty registry suggests nothing"
    );
    for name in ["Physics", "GhostSystem", "Movement"] {
        registry.register(def(name)).unwrap();
    }
    assert_eq!(registry.closest_name("GhostSystm"), Some("GhostSystem"));
    assert_eq!(registry.closest_name("GhostSytsem"), Some("GhostSystem"));
    assert_eq!(registry.closest_name("Movment"), Some("Movement"));
    assert_eq!(registry.closest_name("movement"), Some("Movement"));
    assert_eq!(registry.closest_name("Physics"), Some("Physics"));
    assert_eq!(registry.closest_name("Rendering"), None);
    assert_eq!(registry.closest_name("Zz"), None);
}

/// FNV-1a 64 (§6.1): the published test vectors, and the big-endian u64 convention.
#[test]
fn fnv1a64_known_answers() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);

    let mut by_word = Fnv1a64::new();
    by_word.write_u64(0x0102_0304_0506_0708);
    assert_eq!(by_word.finish(), fnv1a64(&[1, 2, 3, 4, 5, 6, 7, 8]));

    // The scheduler KAT's 40 bytes, fed by hand.
    let mut bytes = Vec::new();
    for id in [2u64, 1, 3, 4, 5] {
        bytes.extend_from_slice(&id.to_be_bytes());
    }
    assert_eq!(fnv1a64(&bytes), 0xaef3_282f_393a_b332);
}
