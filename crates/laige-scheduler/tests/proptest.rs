//! Property tests of `schedule` against reference models written straight from contract
//! §2.3: the stable Kahn order, the cycle walk, `double_writer` and `read_before_write`.
//!
//! Registries are random: up to 64 systems, `depends_on` edges drawn over a random
//! topological order (so forward references to later ids occur), and random declared
//! access over a few components.

use std::sync::OnceLock;

use laige_registry::{Budget, ComponentId, Registry, SystemDef};
use laige_scheduler::{Schedule, ScheduleError, SystemRef};
use proptest::prelude::*;
use proptest::sample::Index;

type Run = fn(&mut ());

fn noop(_: &mut ()) {}

/// `S000` ... `S255`, made once.
fn name(i: usize) -> &'static str {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..256)
            .map(|i| &*Box::leak(format!("S{i:03}").into_boxed_str()))
            .collect()
    })[i]
}

/// One random system: its dependencies (0-based positions, distinct, in spec order) and
/// its declared access `(component position, is_write)`, components distinct.
#[derive(Clone, Debug, Default)]
struct Spec {
    deps: Vec<usize>,
    access: Vec<(usize, bool)>,
}

fn registry(specs: &[Spec], components: usize) -> Registry<Run> {
    let mut registry = Registry::new();
    for c in 0..components {
        registry.register_component(ComponentId::from_index(c).unwrap());
    }
    for (i, spec) in specs.iter().enumerate() {
        let deps: Vec<&str> = spec.deps.iter().map(|&d| name(d)).collect();
        let deps: &'static str = Box::leak(deps.join(", ").into_boxed_str());
        let mut def = SystemDef::new(name(i), noop as Run)
            .budget(Budget::from_millis(1))
            .depends_on(deps);
        for &(c, write) in &spec.access {
            let c = ComponentId::from_index(c).unwrap();
            def = if write { def.writes(c) } else { def.reads(c) };
        }
        let id = registry
            .register(def)
            .expect("generated definitions are valid");
        assert_eq!(id.index(), i);
    }
    registry
}

// ---------------------------------------------------------------------------------------
// Reference models (contract §2.3)
// ---------------------------------------------------------------------------------------

/// "Repeat: pick the smallest unplaced id with pending == 0; append it." Returns the order
/// (0-based positions) and which systems were placed.
fn model_order(specs: &[Spec]) -> (Vec<usize>, Vec<bool>) {
    let mut placed = vec![false; specs.len()];
    let mut order = Vec::new();
    while let Some(next) =
        (0..specs.len()).find(|&i| !placed[i] && specs[i].deps.iter().all(|&d| placed[d]))
    {
        placed[next] = true;
        order.push(next);
    }
    (order, placed)
}

/// "Start at the smallest unplaced id; walk, at each step following the system's first
/// dependency (in spec order) that is still unplaced; stop when a system repeats; report
/// the path from the first occurrence of the repeated system to the end."
fn model_cycle(specs: &[Spec], placed: &[bool]) -> Vec<usize> {
    let mut path: Vec<usize> = Vec::new();
    let mut current = (0..specs.len())
        .find(|&i| !placed[i])
        .expect("something is unplaced");
    while !path.contains(&current) {
        path.push(current);
        current = *specs[current]
            .deps
            .iter()
            .find(|&&d| !placed[d])
            .expect("an unplaced dependency");
    }
    let start = path.iter().position(|&i| i == current).unwrap();
    path[start..].to_vec()
}

/// What access checking should give: `Err((component, first_writer, second_writer))` for
/// the lowest component with two writers, else the `(component, reader, writer)` warnings
/// in (component, reader) order. All 0-based.
type AccessOutcome = Result<Vec<(usize, usize, usize)>, (usize, usize, usize)>;

fn model_access(specs: &[Spec], components: usize, order: &[usize]) -> AccessOutcome {
    let writers = |c: usize| -> Vec<usize> {
        (0..specs.len())
            .filter(|&i| specs[i].access.contains(&(c, true)))
            .collect()
    };
    for c in 0..components {
        if let [first, second, ..] = writers(c)[..] {
            return Err((c, first, second));
        }
    }
    let mut index = vec![0; specs.len()];
    for (step, &i) in order.iter().enumerate() {
        index[i] = step;
    }
    let mut warnings = Vec::new();
    for c in 0..components {
        for r in (0..specs.len()).filter(|&r| specs[r].access.contains(&(c, false))) {
            for w in writers(c) {
                if w != r && index[r] < index[w] {
                    warnings.push((c, r, w));
                }
            }
        }
    }
    Ok(warnings)
}

fn positions(schedule: &Schedule) -> Vec<usize> {
    schedule.order().iter().map(|id| id.index()).collect()
}

fn sref(i: usize) -> (usize, &'static str) {
    (i, name(i))
}

fn of(system: SystemRef) -> (usize, &'static str) {
    (system.id.index(), system.name)
}

/// What (a) checks of an acyclic registry.
fn check_acyclic(specs: &[Spec]) -> Result<(), TestCaseError> {
    let registry = registry(specs, 0);
    let schedule = laige_scheduler::schedule(&registry).expect("acyclic registries schedule");
    let order = positions(&schedule);

    let mut sorted = order.clone();
    sorted.sort_unstable();
    prop_assert_eq!(&sorted, &(0..specs.len()).collect::<Vec<_>>());
    let mut step = vec![0; specs.len()];
    for (s, &i) in order.iter().enumerate() {
        step[i] = s;
    }
    for (i, spec) in specs.iter().enumerate() {
        for &d in &spec.deps {
            prop_assert!(
                step[d] < step[i],
                "{} runs before its dependency {}",
                name(i),
                name(d)
            );
        }
    }
    let (model, placed) = model_order(specs);
    prop_assert!(placed.iter().all(|&p| p));
    prop_assert_eq!(order, model);
    prop_assert_eq!(schedule.system_count(), specs.len());
    prop_assert_eq!(schedule.warning_count(), 0);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------

/// Dependencies on earlier ids only: each system draws up to `max_deps` among the systems
/// registered before it, as registries listing systems after their dependencies do.
fn backward(max_n: usize, max_deps: usize) -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        prop::collection::vec(any::<Index>(), 0..=max_deps),
        1..=max_n,
    )
    .prop_map(|draws| {
        let mut specs = vec![Spec::default(); draws.len()];
        for (i, draws) in draws.iter().enumerate().skip(1) {
            for draw in draws {
                let dep = draw.index(i);
                if !specs[i].deps.contains(&dep) {
                    specs[i].deps.push(dep);
                }
            }
        }
        specs
    })
}

/// Acyclic dependencies over `n` systems: a random topological order `topo` and, for the
/// system at rank r, up to `max_deps` draws among the systems of lower rank. Whether an
/// edge points to a lower or a higher id depends on the shuffle, so both occur.
fn acyclic(max_n: usize, max_deps: usize) -> impl Strategy<Value = Vec<Spec>> {
    (1..=max_n)
        .prop_flat_map(move |n| {
            (
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                prop::collection::vec(prop::collection::vec(any::<Index>(), 0..=max_deps), n),
            )
        })
        .prop_map(|(topo, draws)| {
            let mut specs = vec![Spec::default(); topo.len()];
            for (rank, &system) in topo.iter().enumerate() {
                if rank == 0 {
                    continue;
                }
                for draw in &draws[rank] {
                    let dep = topo[draw.index(rank)];
                    if !specs[system].deps.contains(&dep) {
                        specs[system].deps.push(dep);
                    }
                }
            }
            specs
        })
}

/// Acyclic dependencies plus one cycle of length 1 (a self-dependency) to 6 over distinct
/// systems, each cycle edge inserted at a random place in its system's spec.
fn cyclic() -> impl Strategy<Value = Vec<Spec>> {
    acyclic(64, 4)
        .prop_flat_map(|specs| {
            let n = specs.len();
            (
                Just(specs),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                1..=n.min(6),
                prop::collection::vec(any::<Index>(), 6),
            )
        })
        .prop_map(|(mut specs, members, k, at)| {
            let members = &members[..k];
            for (j, &system) in members.iter().enumerate() {
                let next = members[(j + 1) % k];
                if !specs[system].deps.contains(&next) {
                    let place = at[j].index(specs[system].deps.len() + 1);
                    specs[system].deps.insert(place, next);
                }
            }
            specs
        })
}

/// Acyclic dependencies over up to 32 systems, each declaring random access to up to
/// `components` components (each component at most once per system).
fn with_access(components: usize) -> impl Strategy<Value = Vec<Spec>> {
    acyclic(32, 2)
        .prop_flat_map(move |specs| {
            let n = specs.len();
            (
                Just(specs),
                prop::collection::vec(
                    prop::collection::vec((0..components, prop::bool::weighted(0.2)), 0..=3),
                    n,
                ),
            )
        })
        .prop_map(|(mut specs, access)| {
            for (spec, declared) in specs.iter_mut().zip(access) {
                for (c, write) in declared {
                    if !spec.access.iter().any(|&(seen, _)| seen == c) {
                        spec.access.push((c, write));
                    }
                }
            }
            specs
        })
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (a) An acyclic registry schedules; the order is a permutation of all ids, respects
    /// every edge, and is exactly the model's stable Kahn order.
    #[test]
    fn acyclic_registries_follow_the_model(specs in acyclic(64, 6)) {
        check_acyclic(&specs)?;
    }

    /// (a') The same when every dependency was registered earlier (the scheduler then keeps
    /// the registration order without sorting): the model's order is the registration order.
    #[test]
    fn backward_registries_follow_the_model(specs in backward(64, 6)) {
        check_acyclic(&specs)?;
        prop_assert_eq!(model_order(&specs).0, (0..specs.len()).collect::<Vec<_>>());
    }

    /// (b) A registry with a cycle fails with `DependencyCycle`; the report is a real cycle
    /// (each system lists the next, the last lists the first, all distinct) and is exactly
    /// the contract's walk.
    #[test]
    fn cycles_are_reported_as_the_model_walks_them(specs in cyclic()) {
        let registry = registry(&specs, 0);
        let err = laige_scheduler::schedule(&registry).expect_err("a cycle cannot be scheduled");
        let ScheduleError::DependencyCycle(cycle) = err else {
            return Err(TestCaseError::fail(format!("expected a cycle, got {err:?}")));
        };
        let reported: Vec<usize> = cycle.systems().map(|s| s.id.index()).collect();
        prop_assert!(!reported.is_empty());
        prop_assert_eq!(cycle.len(), reported.len());
        for (j, &i) in reported.iter().enumerate() {
            prop_assert!(!reported[..j].contains(&i), "{} repeats", name(i));
            let next = reported[(j + 1) % reported.len()];
            prop_assert!(
                registry.depends_on(cycle.systems().nth(j).unwrap().id).contains(&name(next)),
                "{} does not list {}", name(i), name(next)
            );
        }
        let names: Vec<&str> = reported.iter().map(|&i| name(i)).collect();
        prop_assert_eq!(cycle.names().to_string(), names.join(","));

        let (_, placed) = model_order(&specs);
        prop_assert!(placed.iter().any(|&p| !p));
        prop_assert_eq!(reported, model_cycle(&specs, &placed));
    }

    /// (c) With two writers of a component, the lowest such component and its two lowest
    /// writers are reported; otherwise the `read_before_write` warnings are exactly the
    /// model's, in (component, reader) order.
    #[test]
    fn access_checks_follow_the_model(specs in with_access(6)) {
        let registry = registry(&specs, 6);
        let (order, _) = model_order(&specs);
        match (laige_scheduler::schedule(&registry), model_access(&specs, 6, &order)) {
            (Err(ScheduleError::DoubleWriter { component, first_writer, second_writer }), Err((c, first, second))) => {
                prop_assert_eq!(component.id.index(), c);
                prop_assert_eq!(of(first_writer), sref(first));
                prop_assert_eq!(of(second_writer), sref(second));
            }
            (Ok(schedule), Ok(expected)) => {
                prop_assert_eq!(positions(&schedule), order);
                let got: Vec<(usize, usize, usize)> = schedule
                    .warnings()
                    .map(|w| (w.component.id.index(), w.reader.id.index(), w.writer.id.index()))
                    .collect();
                let kept = expected.len().min(laige_scheduler::MAX_KEPT_WARNINGS);
                prop_assert_eq!(got, expected[..kept].to_vec());
                prop_assert_eq!(schedule.warning_count(), expected.len());
                for w in schedule.warnings() {
                    prop_assert_eq!(w.reader.name, name(w.reader.id.index()));
                    prop_assert_eq!(w.writer.name, name(w.writer.id.index()));
                }
            }
            (got, expected) => {
                return Err(TestCaseError::fail(format!("scheduler {got:?}, model {expected:?}")));
            }
        }
    }
}

/// Past `MAX_KEPT_WARNINGS` the schedule keeps the first warnings and counts the rest:
/// 40 readers registered before the one writer give 40 warnings, in reader order.
#[test]
fn warnings_past_the_kept_limit_are_counted() {
    let readers = 40;
    let mut specs = vec![
        Spec {
            deps: Vec::new(),
            access: vec![(0, false)]
        };
        readers
    ];
    specs.push(Spec {
        deps: Vec::new(),
        access: vec![(0, true)],
    });
    let registry = registry(&specs, 1);
    let schedule = laige_scheduler::schedule(&registry).unwrap();
    assert_eq!(laige_scheduler::MAX_KEPT_WARNINGS, 32);
    assert_eq!(schedule.warning_count(), readers);
    let kept: Vec<usize> = schedule.warnings().map(|w| w.reader.id.index()).collect();
    assert_eq!(kept, (0..32).collect::<Vec<_>>());
    assert!(schedule.warnings().all(|w| w.writer.id.index() == readers));
}
