//! The one conflict rule ([`SystemRecord::conflict_with`], [`Registry::conflicts`]) against
//! an oracle that never looks at access sets as sets: it builds a small world of entities
//! in archetype tables and resources, lists every piece of data each system would read or
//! write while it runs, and calls two systems conflicting when one writes a piece of data
//! the other reads or writes. A resource may also be an event queue: an emitter writes only
//! its own buffer of it, which every reader (and writer) of the queue reaches.

use std::collections::BTreeSet;

use laige_registry::{
    Accessors, ComponentId, ComponentSet, Conflicts, LiveTables, Registry, SystemDef, SystemId,
    SystemRecord, SystemSet,
};
use proptest::prelude::*;

type Run = fn(&mut ());

fn noop(_: &mut ()) {}

/// Components that live in tables: ids 1..=6.
const COMPONENTS: u16 = 6;
/// Resources: ids 7..=8 (one instance each, in no table).
const RESOURCES: u16 = 2;

fn cid(value: u16) -> ComponentId {
    ComponentId::new(value).unwrap()
}

/// How one system declares one id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    None,
    Read,
    ReadFresh,
    ReadSnapshot,
    Write,
    /// Appends to the event queue (resources only).
    Emit,
}

/// The systems an oracle world holds at most: each has a buffer in every queue.
const ORACLE_SYSTEMS: usize = 8;

#[derive(Clone, Debug)]
struct System {
    /// One entry per id 1..=COMPONENTS + RESOURCES.
    uses: Vec<Use>,
    /// The footprint: components (1..=COMPONENTS) every table it touches holds.
    matching: Vec<u16>,
}

/// A small world: archetype tables (their components) with at least one entity each.
#[derive(Clone, Debug)]
struct World {
    tables: Vec<Vec<u16>>,
    entities_per_table: Vec<usize>,
}

/// One piece of data a system can touch while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// Component `c` of entity `e`, as it is this tick.
    Live { entity: usize, component: u16 },
    /// The frozen previous-tick copy of component `c` of entity `e`.
    Snapshot { entity: usize, component: u16 },
    /// Resource `r`.
    Resource(u16),
    /// The buffer of system `writer` in the event queue `queue` (a resource).
    Buffer { queue: u16, writer: usize },
}

impl Place {
    fn component(self) -> u16 {
        match self {
            Place::Live { component, .. } | Place::Snapshot { component, .. } => component,
            Place::Resource(r) | Place::Buffer { queue: r, .. } => r,
        }
    }
}

/// Every place `system`, the `index`th, reads and writes in `world` while it runs.
fn touches(system: &System, index: usize, world: &World) -> (BTreeSet<Place>, BTreeSet<Place>) {
    let (mut reads, mut writes) = (BTreeSet::new(), BTreeSet::new());
    let mut entity = 0;
    for (table, &count) in world.tables.iter().zip(&world.entities_per_table) {
        let visits = system.matching.iter().all(|m| table.contains(m));
        for _ in 0..count {
            if visits {
                for &c in table {
                    let live = Place::Live {
                        entity,
                        component: c,
                    };
                    match system.uses[usize::from(c) - 1] {
                        Use::Read | Use::ReadFresh => _ = reads.insert(live),
                        Use::ReadSnapshot => {
                            _ = reads.insert(Place::Snapshot {
                                entity,
                                component: c,
                            })
                        }
                        Use::Write => _ = writes.insert(live),
                        Use::None | Use::Emit => {}
                    }
                }
            }
            entity += 1;
        }
    }
    let buffers = |r| (0..ORACLE_SYSTEMS).map(move |writer| Place::Buffer { queue: r, writer });
    for r in COMPONENTS + 1..=COMPONENTS + RESOURCES {
        match system.uses[usize::from(r) - 1] {
            Use::None => {}
            Use::Write => {
                writes.insert(Place::Resource(r));
                writes.extend(buffers(r));
            }
            Use::Read | Use::ReadFresh => {
                reads.insert(Place::Resource(r));
                reads.extend(buffers(r));
            }
            Use::Emit => {
                _ = writes.insert(Place::Buffer {
                    queue: r,
                    writer: index,
                })
            }
            // The World refuses live access to a resource declared only as a snapshot
            // read: whatever such a system reads, it is not the live value.
            Use::ReadSnapshot => {
                _ = reads.insert(Place::Snapshot {
                    entity: usize::MAX,
                    component: r,
                })
            }
        }
    }
    (reads, writes)
}

/// The components (or resources) on which `a` and `b` meet: a place one writes and the
/// other reads or writes.
fn oracle(a: (&System, usize), b: (&System, usize), world: &World) -> BTreeSet<u16> {
    let (ra, wa) = touches(a.0, a.1, world);
    let (rb, wb) = touches(b.0, b.1, world);
    let mut met = BTreeSet::new();
    for place in &wa {
        if rb.contains(place) || wb.contains(place) {
            met.insert(place.component());
        }
    }
    for place in &wb {
        if ra.contains(place) {
            met.insert(place.component());
        }
    }
    met
}

/// A world where any declared data may be anywhere: one table of every component.
fn anywhere() -> World {
    World {
        tables: vec![(1..=COMPONENTS).collect()],
        entities_per_table: vec![1],
    }
}

fn registry(systems: &[System]) -> Registry<Run> {
    let mut registry = Registry::new();
    for c in 1..=COMPONENTS + RESOURCES {
        registry.register_component(cid(c));
    }
    for (i, system) in systems.iter().enumerate() {
        let name = &*Box::leak(format!("S{i}").into_boxed_str());
        let mut def = SystemDef::new(name, noop as Run).budget_ms(1.0);
        for (k, &u) in system.uses.iter().enumerate() {
            let c = cid(k as u16 + 1);
            def = match u {
                Use::None => def,
                Use::Read => def.reads(c),
                Use::ReadFresh => def.reads_fresh(c),
                Use::ReadSnapshot => def.reads_snapshot(c),
                Use::Write => def.writes(c),
                Use::Emit => def.emits(c),
            };
        }
        for &m in &system.matching {
            def = def.matching(cid(m));
        }
        registry.register(def).expect("generated systems are valid");
    }
    registry
}

fn signatures(world: &World) -> Vec<ComponentSet> {
    world
        .tables
        .iter()
        .map(|t| t.iter().map(|&c| cid(c)).collect())
        .collect()
}

fn resources() -> ComponentSet {
    (COMPONENTS + 1..=COMPONENTS + RESOURCES).map(cid).collect()
}

/// Any ids, components and resources (event queues among them).
fn id_subset() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::btree_set(
        1..=COMPONENTS + RESOURCES,
        0..=usize::from(COMPONENTS + RESOURCES),
    )
    .prop_map(|s| s.into_iter().collect())
}

fn component_subset() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::btree_set(1..=COMPONENTS, 0..=COMPONENTS as usize)
        .prop_map(|s| s.into_iter().collect())
}

fn system() -> impl Strategy<Value = System> {
    let component_uses = prop::collection::vec(
        prop_oneof![
            4 => Just(Use::None),
            2 => Just(Use::Read),
            1 => Just(Use::ReadFresh),
            1 => Just(Use::ReadSnapshot),
            2 => Just(Use::Write),
        ],
        usize::from(COMPONENTS),
    );
    // A resource may be an event queue, which systems also emit into.
    let resource_uses = prop::collection::vec(
        prop_oneof![
            4 => Just(Use::None),
            2 => Just(Use::Read),
            1 => Just(Use::ReadFresh),
            1 => Just(Use::ReadSnapshot),
            2 => Just(Use::Write),
            3 => Just(Use::Emit),
        ],
        usize::from(RESOURCES),
    );
    let uses = (component_uses, resource_uses).prop_map(|(mut c, r)| {
        c.extend(r);
        c
    });
    // Mostly no footprint, sometimes one or two components.
    let matching = prop_oneof![
        2 => Just(Vec::new()),
        1 => prop::collection::btree_set(1..=COMPONENTS, 1..=2).prop_map(|s| s.into_iter().collect()),
    ];
    (uses, matching).prop_map(|(uses, matching)| System { uses, matching })
}

fn world() -> impl Strategy<Value = World> {
    prop::collection::vec((component_subset(), 1..=2usize), 0..=5).prop_map(|tables| World {
        entities_per_table: tables.iter().map(|t| t.1).collect(),
        tables: tables.into_iter().map(|t| t.0).collect(),
    })
}

fn lowest(met: &BTreeSet<u16>) -> Option<u16> {
    met.iter().next().copied()
}

fn record(registry: &Registry<Run>, i: usize) -> &SystemRecord {
    &registry.records()[i]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// With live tables: two systems conflict exactly when the oracle finds a place one
    /// writes and the other touches, and the rule names the lowest such component.
    #[test]
    fn the_rule_with_live_tables_is_the_entity_level_oracle(
        systems in prop::collection::vec(system(), 2..=5),
        world in world(),
    ) {
        let registry = registry(&systems);
        let tables = signatures(&world);
        let resources = resources();
        let live = LiveTables::new(&tables, &resources);
        let conflicts = registry.conflicts(Some(&live));
        for a in 0..systems.len() {
            for b in 0..systems.len() {
                if a == b {
                    continue;
                }
                let expected = lowest(&oracle((&systems[a], a), (&systems[b], b), &world));
                let got = record(&registry, a).conflict_with(record(&registry, b), Some(&live));
                prop_assert_eq!(got.map(|c| c.get()), expected, "systems {} and {}", a, b);
                let (ia, ib) = (SystemId::new(a as u32 + 1).unwrap(), SystemId::new(b as u32 + 1).unwrap());
                prop_assert_eq!(conflicts.contains(ia, ib), expected.is_some());
            }
        }
    }

    /// Without live tables, declared data may be anywhere: the oracle over one table that
    /// holds every component.
    #[test]
    fn the_declared_rule_is_the_oracle_where_data_may_be_anywhere(
        systems in prop::collection::vec(system(), 2..=5),
    ) {
        let registry = registry(&systems);
        let conflicts = registry.conflicts(None);
        for a in 0..systems.len() {
            for b in 0..systems.len() {
                if a == b {
                    continue;
                }
                let expected = lowest(&oracle((&systems[a], a), (&systems[b], b), &anywhere()));
                let got = record(&registry, a).conflict_with(record(&registry, b), None);
                prop_assert_eq!(got.map(|c| c.get()), expected, "systems {} and {}", a, b);
                let declared = record(&registry, a).declared_conflicts(record(&registry, b));
                prop_assert_eq!(declared.iter().next().map(|c| c.get()), expected);
                let (ia, ib) = (SystemId::new(a as u32 + 1).unwrap(), SystemId::new(b as u32 + 1).unwrap());
                prop_assert_eq!(conflicts.contains(ia, ib), expected.is_some());
            }
        }
    }
}

/// The systems of `registry` for which `pick` holds, as a set.
fn systems_where(registry: &Registry<Run>, pick: impl Fn(&SystemRecord) -> bool) -> SystemSet {
    registry
        .records()
        .iter()
        .filter(|r| pick(r))
        .map(|r| r.id())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The set-algebra form of the rule is the rule: over registries large enough to span
    /// every word of a system set, `Registry::conflicts` (declared, and with live tables)
    /// holds exactly the pairs `conflict_with` names, and each `Accessors` query is the
    /// set of systems a scan of every record finds.
    #[test]
    fn the_set_algebra_is_the_pairwise_rule(
        systems in prop::collection::vec(system(), 1..=200),
        world in world(),
        query in id_subset(),
    ) {
        let registry = registry(&systems);
        let n = systems.len();
        let records = registry.records();
        let pairwise = |live: Option<&LiveTables<'_>>| {
            Conflicts::from_pairs(n, |a, b| {
                records[a.index()].conflict_with(&records[b.index()], live).is_some()
            })
        };
        prop_assert_eq!(registry.conflicts(None), pairwise(None));
        let tables = signatures(&world);
        let resources = resources();
        let live = LiveTables::new(&tables, &resources);
        prop_assert_eq!(registry.conflicts(Some(&live)), pairwise(Some(&live)));

        let accessors = Accessors::of(&registry);
        let query: ComponentSet = query.into_iter().map(cid).collect();
        let meets = |set: &ComponentSet| set.intersects(&query);
        prop_assert_eq!(
            accessors.writers_of(&query),
            systems_where(&registry, |r| meets(r.writes()))
        );
        prop_assert_eq!(
            accessors.readers_of(&query),
            systems_where(&registry, |r| meets(r.reads()))
        );
        prop_assert_eq!(
            accessors.fresh_readers_of(&query),
            systems_where(&registry, |r| meets(r.reads_fresh()))
        );
        prop_assert_eq!(
            accessors.plain_readers_of(&query),
            systems_where(&registry, |r| meets(&r.reads().difference(r.reads_fresh())))
        );
        prop_assert_eq!(
            accessors.emitters_of(&query),
            systems_where(&registry, |r| meets(r.emits()))
        );
        prop_assert_eq!(
            accessors.producers_of(&query),
            systems_where(&registry, |r| meets(&r.produces()))
        );
        prop_assert_eq!(
            accessors.touchers_of(&query),
            systems_where(&registry, |r| meets(&r.reads().union(r.writes())))
        );
        for record in records {
            prop_assert_eq!(
                accessors.conflicting(record),
                systems_where(&registry, |r| !record.declared_conflicts(r).is_empty()),
                "system {}", record.name()
            );
        }
    }
}

/// ADR 0008's W1 case: `cd` and `ce` both write C, but with footprints D and E they meet
/// only if some table holds C, D and E.
#[test]
fn footprints_separate_writers_until_a_table_joins_them() {
    let c = |v| cid(v);
    let mut registry: Registry<Run> = Registry::new();
    for v in 1..=5 {
        registry.register_component(c(v));
    }
    let def = |name, x: u16| {
        SystemDef::new(name, noop as Run)
            .budget_ms(1.0)
            .writes(c(3))
            .writes(c(x))
            .matching(c(x))
    };
    registry.register(def("cd", 4)).unwrap();
    registry.register(def("ce", 5)).unwrap();
    let set = |ids: &[u16]| ids.iter().map(|&v| c(v)).collect::<ComponentSet>();
    let mut tables = vec![
        set(&[1, 2]),
        set(&[1, 2, 3]),
        set(&[1, 2, 3, 4]),
        set(&[1, 2, 3, 5]),
    ];
    let no_resources = ComponentSet::EMPTY;
    let (cd, ce) = (record(&registry, 0), record(&registry, 1));
    assert_eq!(cd.conflict_with(ce, None), Some(c(3)));
    assert_eq!(
        cd.conflict_with(ce, Some(&LiveTables::new(&tables, &no_resources))),
        None
    );
    tables.push(set(&[3, 4, 5]));
    assert_eq!(
        cd.conflict_with(ce, Some(&LiveTables::new(&tables, &no_resources))),
        Some(c(3))
    );
}

/// A relation made by hand is symmetric, and a system it was not made for conflicts with
/// everything (only a hand-built schedule names one).
#[test]
fn conflicts_are_symmetric_and_unknown_systems_conflict_with_all() {
    let id = |v| SystemId::new(v).unwrap();
    let conflicts = Conflicts::from_pairs(3, |a, b| (a.get(), b.get()) == (1, 3));
    assert!(conflicts.contains(id(1), id(3)));
    assert!(conflicts.contains(id(3), id(1)));
    assert!(!conflicts.contains(id(1), id(2)));
    assert!(conflicts.contains(id(2), id(7)));
    assert_eq!(conflicts.len(), 3);
    assert!(Conflicts::none(0).is_empty());
}
