//! Archetype tables: first-seen ids, row moves, swap-remove, alignment, drops.

use laige_world::{ArchetypeId, CommandBuffer, Entity, World, WorldOptions};

use crate::support::{Counted, Counter, Health, Named, Pos, Tag, Vel, Wide, pos, vel, world};

fn archetype(world: &World, e: Entity) -> u32 {
    world.storage().archetype_of(e).unwrap().get()
}

#[test]
fn archetype_ids_are_dense_in_first_seen_order() {
    let mut world = world();
    let bare = world.spawn(()).unwrap();
    let a = world.spawn((pos(1.0), vel(1.0))).unwrap();
    let b = world.spawn((Tag,)).unwrap();
    // Same set in another order: same archetype.
    let c = world.spawn((vel(2.0), pos(2.0))).unwrap();
    let d = world.spawn((pos(3.0),)).unwrap();
    assert_eq!(
        [bare, a, b, c, d].map(|e| archetype(&world, e)),
        [0, 1, 2, 1, 3]
    );
    world.insert(a, Tag).unwrap();
    assert_eq!(archetype(&world, a), 4, "{{Pos, Vel, Tag}} is new");
    world.remove::<Tag>(a).unwrap();
    assert_eq!(archetype(&world, a), 1);
    world.remove::<Tag>(b).unwrap();
    assert_eq!(archetype(&world, b), 0, "without components: archetype 0");
    assert_eq!(world.storage().archetype_of(bare), Some(ArchetypeId::EMPTY));
    let ids: Vec<u32> = world.archetypes().iter().map(|t| t.id().get()).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4]);
    let components: Vec<u16> = world.archetypes()[4]
        .components()
        .iter()
        .map(|c| c.get())
        .collect();
    assert_eq!(components, [1, 2, 4], "ascending component ids");
}

#[test]
fn moves_on_insert_and_remove_keep_every_value() {
    let mut world = world();
    let n = 200;
    let es: Vec<Entity> = (0..n)
        .map(|i| {
            world
                .spawn((
                    pos(i as f32),
                    vel(-(i as f32)),
                    Health(i),
                    Wide(u64::from(i as u32) << 32),
                ))
                .unwrap()
        })
        .collect();
    for (i, &e) in es.iter().enumerate() {
        match i % 4 {
            0 => world.insert(e, Tag).unwrap(),
            1 => assert_eq!(world.remove::<Vel>(e).unwrap(), Some(vel(-(i as f32)))),
            2 => assert_eq!(world.remove::<Health>(e).unwrap(), Some(Health(i as i32))),
            _ => {}
        }
    }
    for (i, &e) in es.iter().enumerate() {
        let i32_ = i as i32;
        assert_eq!(world.get::<Pos>(e).unwrap(), &pos(i as f32));
        assert_eq!(world.get::<Wide>(e).unwrap().0, u64::from(i as u32) << 32);
        assert_eq!(
            world.get::<Vel>(e).ok(),
            (i % 4 != 1).then_some(&vel(-(i as f32)))
        );
        assert_eq!(
            world.get::<Health>(e).ok(),
            (i % 4 != 2).then_some(&Health(i32_))
        );
        assert_eq!(world.has::<Tag>(e).unwrap(), i % 4 == 0);
        assert_eq!(
            world.get::<Wide>(e).unwrap() as *const Wide as usize % 64,
            0,
            "column aligned for Wide"
        );
    }
    assert_eq!(
        world.remove::<Tag>(es[1]).unwrap(),
        None,
        "removing an absent component is a no-op"
    );
}

#[test]
fn despawn_swap_removes_rows() {
    let mut world = world();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn((Health(i),)).unwrap()).collect();
    world.despawn(es[1]).unwrap();
    let table = &world.archetypes()[1];
    assert_eq!(
        table.entities(),
        [es[0], es[4], es[2], es[3]],
        "the last row moved into the hole"
    );
    world.despawn(es[3]).unwrap(); // the last row: nothing moves
    world.despawn(es[0]).unwrap();
    assert_eq!(world.archetypes()[1].entities(), [es[2], es[4]]);
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(
            world.get::<Health>(e).ok().map(|h| h.0),
            [2, 4].contains(&i).then_some(i as i32)
        );
    }
    let mut seen = Vec::new();
    world
        .each::<(Entity, &Health)>(|_, (e, h)| seen.push((e, h.0)))
        .unwrap();
    assert_eq!(seen, [(es[2], 2), (es[4], 4)]);
}

#[test]
fn every_value_is_dropped_exactly_once() {
    let counter = Counter::default();
    let mut world = World::new(WorldOptions::default());
    world.register_component::<Counted>().unwrap();
    world.register_component::<Named>().unwrap();
    world.register_component::<Tag>().unwrap();

    let es: Vec<Entity> = (0..10)
        .map(|i| {
            world
                .spawn((counter.make(i), Named(format!("e{i}"))))
                .unwrap()
        })
        .collect();
    assert_eq!(counter.live(), 10);

    // Moves between archetypes drop nothing.
    world.insert(es[0], Tag).unwrap();
    world.remove::<Tag>(es[0]).unwrap();
    world.remove::<Named>(es[1]).unwrap();
    assert_eq!(counter.dropped(), 0);

    // Despawn drops once.
    world.despawn(es[2]).unwrap();
    assert_eq!(counter.dropped(), 1);

    // Overwrite drops the old value once, keeps the new.
    world.insert(es[3], counter.make(33)).unwrap();
    assert_eq!(counter.dropped(), 2);
    assert_eq!(world.get::<Counted>(es[3]).unwrap().value, 33);
    assert_eq!(world.get::<Counted>(es[3]).unwrap().boxed(), 33);

    // Remove hands the value out; dropping it is the caller's.
    let taken = world.remove::<Counted>(es[4]).unwrap().unwrap();
    assert_eq!((taken.value, counter.dropped()), (4, 2));
    drop(taken);
    assert_eq!(counter.dropped(), 3);

    // Commands: an applied insert replaces (one drop), an unapplied one is dropped with its buffer.
    let mut applied = CommandBuffer::new();
    world.commands(&mut applied).insert(es[5], counter.make(55));
    world.commands(&mut applied).despawn(es[6]);
    world.apply(&mut applied).unwrap();
    assert_eq!(counter.dropped(), 5);
    let mut unapplied = CommandBuffer::new();
    world
        .commands(&mut unapplied)
        .insert(es[7], counter.make(77));
    world
        .commands(&mut unapplied)
        .spawn((counter.make(78), Tag));
    drop(unapplied);
    assert_eq!(counter.dropped(), 7);
    let mut cleared = CommandBuffer::new();
    world.commands(&mut cleared).spawn((counter.make(79),));
    cleared.clear();
    assert_eq!(counter.dropped(), 8);

    // World drop drops the rest; nothing leaks, nothing is dropped twice.
    let live_in_world = counter.live();
    assert_eq!(live_in_world, 7, "entities 0, 1, 3, 5, 7, 8, 9");
    drop(world);
    assert_eq!(counter.live(), 0);
    assert_eq!(counter.created(), counter.dropped());
}

#[test]
fn zero_sized_and_over_aligned_columns_work() {
    let mut world = world();
    let es: Vec<Entity> = (0..100)
        .map(|i| world.spawn((Tag, Wide(i))).unwrap())
        .collect();
    for (i, &e) in es.iter().enumerate().rev().step_by(3) {
        world.despawn(e).unwrap();
        assert!(!world.is_alive(es[i]));
    }
    world
        .each_chunk::<(&Tag, &Wide)>(|entities, (tags, wides)| {
            assert_eq!(tags.len(), entities.len());
            assert_eq!(wides.as_ptr() as usize % 64, 0);
            for (e, w) in entities.iter().zip(wides) {
                assert_eq!(es[w.0 as usize], *e);
            }
        })
        .unwrap();
}
