//! Property test: random spawn / insert / remove / despawn sequences keep every entity's
//! components intact, compared with a plain `BTreeMap` model, and the state hash equals one
//! computed from the model by the documented rules.

use std::collections::BTreeMap;

use laige_world::{CommandBuffer, Entity, Without};
use proptest::prelude::*;

use crate::support::{Health, Pos, Tag, Wide, world};

#[derive(Clone, Debug)]
enum Op {
    Spawn {
        health: Option<i32>,
        wide: Option<u64>,
        tag: bool,
    },
    Despawn(usize),
    InsertHealth(usize, i32),
    RemoveHealth(usize),
    InsertWide(usize, u64),
    RemoveWide(usize),
    ToggleTag(usize),
    /// The same insert, recorded as a command and applied at once.
    CommandHealth(usize, i32),
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Row {
    pos: f32,
    health: Option<i32>,
    wide: Option<u64>,
    tag: bool,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (proptest::option::of(any::<i32>()), proptest::option::of(any::<u64>()), any::<bool>())
            .prop_map(|(health, wide, tag)| Op::Spawn { health, wide, tag }),
        1 => any::<usize>().prop_map(Op::Despawn),
        2 => (any::<usize>(), any::<i32>()).prop_map(|(i, v)| Op::InsertHealth(i, v)),
        1 => any::<usize>().prop_map(Op::RemoveHealth),
        2 => (any::<usize>(), any::<u64>()).prop_map(|(i, v)| Op::InsertWide(i, v)),
        1 => any::<usize>().prop_map(Op::RemoveWide),
        2 => any::<usize>().prop_map(Op::ToggleTag),
        1 => (any::<usize>(), any::<i32>()).prop_map(|(i, v)| Op::CommandHealth(i, v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn storage_matches_a_btreemap_model(ops in proptest::collection::vec(op(), 1..200)) {
        let mut world = world();
        let mut model: BTreeMap<Entity, Row> = BTreeMap::new();
        let mut dead: Vec<Entity> = Vec::new();
        let mut buffer = CommandBuffer::new();
        let mut next = 0.0f32;
        let pick = |model: &BTreeMap<Entity, Row>, i: usize| model.keys().nth(i % model.len().max(1)).copied();
        for op in ops {
            match op {
                Op::Spawn { health, wide, tag } => {
                    next += 1.0;
                    let p = Pos { x: next, y: 0.0 };
                    let e = world.spawn((p,)).unwrap();
                    if let Some(h) = health { world.insert(e, Health(h)).unwrap(); }
                    if let Some(w) = wide { world.insert(e, Wide(w)).unwrap(); }
                    if tag { world.insert(e, Tag).unwrap(); }
                    model.insert(e, Row { pos: next, health, wide, tag });
                }
                Op::Despawn(i) => if let Some(e) = pick(&model, i) {
                    world.despawn(e).unwrap();
                    model.remove(&e);
                    dead.push(e);
                },
                Op::InsertHealth(i, v) => if let Some(e) = pick(&model, i) {
                    world.insert(e, Health(v)).unwrap();
                    model.get_mut(&e).unwrap().health = Some(v);
                },
                Op::RemoveHealth(i) => if let Some(e) = pick(&model, i) {
                    let old = world.remove::<Health>(e).unwrap().map(|h| h.0);
                    prop_assert_eq!(old, model.get_mut(&e).unwrap().health.take());
                },
                Op::InsertWide(i, v) => if let Some(e) = pick(&model, i) {
                    world.insert(e, Wide(v)).unwrap();
                    model.get_mut(&e).unwrap().wide = Some(v);
                },
                Op::RemoveWide(i) => if let Some(e) = pick(&model, i) {
                    let old = world.remove::<Wide>(e).unwrap().map(|w| w.0);
                    prop_assert_eq!(old, model.get_mut(&e).unwrap().wide.take());
                },
                Op::ToggleTag(i) => if let Some(e) = pick(&model, i) {
                    let row = model.get_mut(&e).unwrap();
                    if row.tag { world.remove::<Tag>(e).unwrap(); } else { world.insert(e, Tag).unwrap(); }
                    row.tag = !row.tag;
                },
                Op::CommandHealth(i, v) => if let Some(e) = pick(&model, i) {
                    world.commands(&mut buffer).insert(e, Health(v));
                    world.apply(&mut buffer).unwrap();
                    model.get_mut(&e).unwrap().health = Some(v);
                },
            }
        }
        prop_assert_eq!(world.len(), model.len());
        for (&e, row) in &model {
            prop_assert_eq!(world.get::<Pos>(e).unwrap().x, row.pos);
            prop_assert_eq!(world.get::<Health>(e).ok().map(|h| h.0), row.health);
            prop_assert_eq!(world.get::<Wide>(e).ok().map(|w| w.0), row.wide);
            prop_assert_eq!(world.has::<Tag>(e).unwrap(), row.tag);
        }
        for e in dead {
            prop_assert_eq!(world.is_alive(e), model.contains_key(&e));
        }
        // Iteration visits every live entity exactly once.
        let mut seen = Vec::new();
        world.each::<Entity>(|e, _| seen.push(e)).unwrap();
        seen.sort();
        prop_assert_eq!(seen, model.keys().copied().collect::<Vec<_>>());
        // Queries read each entity's own values, whichever element drives them (the
        // component with the fewest tables), through tables made in any order.
        let mut read = Vec::new();
        world
            .each::<(&Pos, Option<&Health>, &Wide)>(|e, (p, h, w)| {
                read.push((e, p.x, h.map(|h| h.0), w.0));
            })
            .unwrap();
        world
            .each_chunk::<(&Health, &Pos, Without<Wide>)>(|es, (hs, ps, ())| {
                for ((&e, h), p) in es.iter().zip(hs).zip(ps) {
                    read.push((e, p.x, Some(h.0), u64::MAX));
                }
            })
            .unwrap();
        read.sort_by_key(|&(e, ..)| e);
        let expected: Vec<_> = model
            .iter()
            .filter(|(_, row)| row.wide.is_some() || row.health.is_some())
            .map(|(&e, row)| (e, row.pos, row.health, row.wide.unwrap_or(u64::MAX)))
            .collect();
        prop_assert_eq!(read, expected);
        // The state hash follows its documented rules whatever the history.
        prop_assert_eq!(world.component_state_hash(), reference_hash(&model));
    }
}

/// The component state hash of the model, from the rules documented on
/// `World::state_hash` (Pos and Health hashed, Wide and Tag by presence only).
fn reference_hash(model: &BTreeMap<Entity, Row>) -> u64 {
    let ids = |row: &Row| {
        let mut ids = vec![1u16]; // Pos
        ids.extend(row.health.map(|_| 3)); // Health
        ids.extend(row.tag.then_some(4)); // Tag
        ids.extend(row.wide.map(|_| 5)); // Wide
        ids
    };
    let mut sets: Vec<Vec<u16>> = model.values().map(ids).collect();
    sets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    sets.dedup();
    assert!(sets.len() < 256, "one-byte symbols");
    let mut bytes = Vec::new();
    bytes.extend((model.len() as u32).to_be_bytes());
    bytes.extend((sets.len() as u32).to_be_bytes());
    for set in &sets {
        bytes.extend((set.len() as u16).to_be_bytes());
        set.iter().for_each(|id| bytes.extend(id.to_be_bytes()));
    }
    let mut previous: Option<Entity> = None;
    for (&e, row) in model {
        let continues = previous
            .is_some_and(|p| p.index() + 1 == e.index() && p.generation() == e.generation());
        if !continues {
            bytes.push(sets.len() as u8);
            bytes.extend(e.index().to_be_bytes());
            bytes.extend(e.generation().to_be_bytes());
        }
        previous = Some(e);
        let rank = sets.iter().position(|s| *s == ids(row)).unwrap();
        bytes.push(rank as u8);
        bytes.extend(row.pos.to_bits().to_be_bytes());
        bytes.extend(0.0f32.to_bits().to_be_bytes());
        if let Some(h) = row.health {
            bytes.extend(h.to_be_bytes());
        }
    }
    let mut h = laige_world::StateHasher::new();
    h.write_bytes(&bytes);
    h.finish()
}
