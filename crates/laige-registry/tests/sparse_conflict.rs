//! The conflict rule over sparse components (docs/decisions/0018-sparse-components.md): a
//! sparse component is in no table, so a write of it conflicts with any access to it
//! whatever the footprints, and a sparse component in a footprint narrows no table.

use laige_registry::{ComponentId, ComponentSet, LiveTables, Registry, SystemDef, SystemRecord};

type Run = fn(&mut ());

fn noop(_: &mut ()) {}

fn c(value: u16) -> ComponentId {
    ComponentId::new(value).unwrap()
}

fn set(ids: &[u16]) -> ComponentSet {
    ids.iter().map(|&v| c(v)).collect()
}

fn record(registry: &Registry<Run>, index: usize) -> &SystemRecord {
    &registry.records()[index]
}

/// Components 1..=4 live in tables, 5 is sparse.
fn registry(defs: [SystemDef<Run>; 2]) -> Registry<Run> {
    let mut registry: Registry<Run> = Registry::new();
    for v in 1..=5 {
        registry.register_component(c(v));
    }
    for def in defs {
        registry.register(def).unwrap();
    }
    registry
}

fn def(name: &'static str) -> SystemDef<Run> {
    SystemDef::new(name, noop as Run).budget_ms(1.0)
}

#[test]
fn a_sparse_write_conflicts_across_disjoint_footprints() {
    // Disjoint table footprints keep two writers of a table component apart, but not two
    // writers of a sparse one: its values are in no table.
    let registry = registry([
        def("a").writes(c(5)).writes(c(1)).matching(c(1)),
        def("b").reads(c(5)).writes(c(2)).matching(c(2)),
    ]);
    let tables = [set(&[1]), set(&[2]), set(&[1, 3]), set(&[2, 3])];
    let (resources, sparse) = (ComponentSet::EMPTY, set(&[5]));
    let live = LiveTables::new(&tables, &resources).with_sparse(&sparse);
    let (a, b) = (record(&registry, 0), record(&registry, 1));
    assert_eq!(a.conflict_with(b, Some(&live)), Some(c(5)));
    // Told nothing of sparse components, the rule would find no table holding 5.
    let blind = LiveTables::new(&tables, &resources);
    assert_eq!(a.conflict_with(b, Some(&blind)), None);
}

#[test]
fn a_sparse_footprint_narrows_no_table() {
    // Both write 3; `a` matches only the sparse 5, `b` matches 2. A table {2, 3} holds
    // entities `a` may visit (any of them may have a 5), so they conflict on 3.
    let registry = registry([
        def("a").writes(c(3)).reads(c(5)).matching(c(5)),
        def("b").writes(c(3)).matching(c(2)),
    ]);
    let tables = [set(&[2, 3])];
    let (resources, sparse) = (ComponentSet::EMPTY, set(&[5]));
    let live = LiveTables::new(&tables, &resources).with_sparse(&sparse);
    let (a, b) = (record(&registry, 0), record(&registry, 1));
    assert_eq!(a.conflict_with(b, Some(&live)), Some(c(3)));
    let conflicts = registry.conflicts(Some(&live));
    assert!(conflicts.contains(a.id(), b.id()));
    // Two sparse readers never conflict.
    let readers = self::registry([def("r1").reads(c(5)), def("r2").reads(c(5))]);
    let (r1, r2) = (record(&readers, 0), record(&readers, 1));
    assert_eq!(r1.conflict_with(r2, Some(&live)), None);
}
