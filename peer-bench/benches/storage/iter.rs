//! `simple_iter` (10,000 bodies, `pos += vel`) and `frag_iter` (26 marker types A..Z with
//! `Data`, 20 entities each, `data *= 2`). Worlds are built once; one pass is timed.

use std::hint::black_box;

use bevy_ecs::component::Component as BevyComponent;
use criterion::Criterion;
use laige_sim::prelude::*;
use shipyard::{IntoIter, View, ViewMut};

use crate::insert::N;
use crate::types::*;

fn laige_simple_iter(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&Velocity, &mut Position)>(|_, (v, p)| add(p, v))
        .unwrap();
}

pub fn simple(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");
    {
        let mut world = hecs::World::new();
        world.spawn_batch((0..N).map(|_| body()));
        group.bench_function("hecs-for_each", |b| {
            b.iter(|| {
                world
                    .query_mut::<(&Velocity, &mut Position)>()
                    .into_iter()
                    .for_each(|(v, p)| add(p, v))
            })
        });
    }
    {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N).map(|_| body()));
        let mut query = world.query::<(&Velocity, &mut Position)>();
        group.bench_function("bevy_ecs-for_each", |b| {
            b.iter(|| {
                query
                    .iter_mut(&mut world)
                    .for_each(|(v, mut p)| add(&mut p, v))
            })
        });
    }
    {
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..N).map(|_| body()));
        group.bench_function("shipyard-for_each", |b| {
            b.iter(|| {
                world.run(|vs: View<Velocity>, mut ps: ViewMut<Position>| {
                    (&vs, &mut ps).iter().for_each(|(v, p)| add(p, v))
                })
            })
        });
    }
    {
        let mut world = laige_world();
        for _ in 0..N {
            world.spawn(body()).unwrap();
        }
        group.bench_function("laige-world-each", |b| {
            b.iter(|| {
                world
                    .each::<(&Velocity, &mut Position)>(|_, (v, p)| add(p, v))
                    .unwrap()
            })
        });
        let (mut world, schedule) = scheduled(world, |w| {
            w.system("simple_iter", laige_simple_iter)
                .budget_ms(1.0)
                .reads::<Velocity>()
                .writes::<Position>()
                .register()
                .unwrap();
        });
        group.bench_function("laige-system-each", |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}

#[derive(Clone, Copy, Debug, BevyComponent)]
pub struct Data(pub f32);
peer_components!(Data);

macro_rules! markers {
    ($($m:ident),*) => {
        $(
            #[derive(Clone, Copy, Debug, BevyComponent)]
            pub struct $m(pub f32);
            peer_components!($m);
        )*
        fn frag_hecs() -> hecs::World {
            let mut w = hecs::World::new();
            $(w.spawn_batch((0..20).map(|_| ($m(0.0), Data(1.0))));)*
            w
        }
        fn frag_bevy() -> bevy_ecs::world::World {
            let mut w = bevy_ecs::world::World::new();
            $(w.spawn_batch((0..20).map(|_| ($m(0.0), Data(1.0))));)*
            w
        }
        fn frag_shipyard() -> shipyard::World {
            let mut w = shipyard::World::new();
            $(w.bulk_add_entity((0..20).map(|_| ($m(0.0), Data(1.0))));)*
            w
        }
        fn frag_laige() -> World {
            let mut w = World::new(WorldOptions { timing: false, ..WorldOptions::default() });
            w.register_component::<Data>().unwrap();
            $(w.register_component::<$m>().unwrap();)*
            $(for _ in 0..20 { w.spawn(($m(0.0), Data(1.0))).unwrap(); })*
            w
        }
    };
}
markers!(
    Ma, Mb, Mc, Md, Me, Mf, Mg, Mh, Mi, Mj, Mk, Ml, Mm, Mn, Mo, Mp, Mq, Mr, Ms, Mt, Mu, Mv, Mw, Mx,
    My, Mz
);

fn laige_frag_iter(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Data>(|_, d| d.0 *= 2.0).unwrap();
}

pub fn frag(c: &mut Criterion) {
    let mut group = c.benchmark_group("frag_iter");
    {
        let mut world = frag_hecs();
        group.bench_function("hecs-for_each", |b| {
            b.iter(|| {
                world
                    .query_mut::<&mut Data>()
                    .into_iter()
                    .for_each(|d| d.0 *= 2.0)
            })
        });
    }
    {
        let mut world = frag_bevy();
        let mut query = world.query::<&mut Data>();
        group.bench_function("bevy_ecs-for_each", |b| {
            b.iter(|| query.iter_mut(&mut world).for_each(|mut d| d.0 *= 2.0))
        });
    }
    {
        let world = frag_shipyard();
        group.bench_function("shipyard-for_each", |b| {
            b.iter(|| world.run(|mut ds: ViewMut<Data>| (&mut ds).iter().for_each(|d| d.0 *= 2.0)))
        });
    }
    {
        let mut world = frag_laige();
        assert_eq!(world.len(), 26 * 20);
        group.bench_function("laige-world-each", |b| {
            b.iter(|| world.each::<&mut Data>(|_, d| d.0 *= 2.0).unwrap())
        });
        let (mut world, schedule) = scheduled(world, |w| {
            w.system("frag_iter", laige_frag_iter)
                .budget_ms(1.0)
                .writes::<Data>()
                .register()
                .unwrap();
        });
        group.bench_function("laige-system-each", |b| {
            b.iter(|| world.run_systems(black_box(&schedule)).unwrap())
        });
    }
    group.finish();
}
