//! W1 `schedule` (ecs_bench_suite "schedule", defined in shared/bench/workloads.md) on peer ECS
//! crates and on plain `Vec`s, measured on this machine.
//!
//! Components `A`..`E`, each `X(f32)`; 10,000 entities each of `(A,B)`, `(A,B,C)`, `(A,B,C,D)`
//! and `(A,B,C,E)`. Three systems swap the values of their two components: `ab` on `(A,B)`,
//! `cd` on `(C,D)`, `ce` on `(C,E)`: 60,000 swaps in all. Timed: one tick (one run of the
//! schedule). Before timing, every variant starts `A`..`E` at 1..5 and checks the per-component
//! sums after 1, 2 and 3 ticks.
//!
//! hecs and bevy_ecs are each measured twice: iterating a query with a `for` loop (the common
//! idiom) and with `Iterator::for_each`, which both crates implement through an
//! internal `fold` that runs a tight loop per archetype. legion's `for_each_mut` is that path
//! already.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::mem::swap;

const N: usize = 10_000;

/// One component type per letter; the same types serve every crate (hecs and legion take any
/// `Send + Sync + 'static` type, bevy_ecs needs its derive).
macro_rules! components {
    ($($t:ident),*) => {$(
        #[derive(bevy_ecs::component::Component)]
        struct $t(f32);
        impl Value for $t {
            fn get(&self) -> f32 { self.0 }
            fn v(&mut self) -> &mut f32 { &mut self.0 }
        }
    )*};
}

/// The `f32` inside a component, so that generic code can read it and swap any two.
trait Value: Send + Sync + 'static {
    fn get(&self) -> f32;
    fn v(&mut self) -> &mut f32;
}

components!(A, B, C, D, E);

/// What one variant must provide: a fresh world, one tick, and the sums of `A`..`E`.
trait W1 {
    fn new() -> Self;
    fn tick(&mut self);
    fn sums(&mut self) -> [f32; 5];
}

/// The sums of `A`..`E` after `ticks` ticks, from starting values 1..5.
fn expected(ticks: u32) -> [f32; 5] {
    let n = N as f32;
    if ticks % 2 == 1 {
        // A,B swapped everywhere; C,D swapped in ABCD; C,E swapped in ABCE.
        [8.0 * n, 4.0 * n, (3.0 + 4.0 + 5.0) * n, 3.0 * n, 3.0 * n]
    } else {
        [4.0 * n, 8.0 * n, 9.0 * n, 4.0 * n, 5.0 * n]
    }
}

/// Build a world, check it over three ticks, then time one tick.
fn bench<T: W1>(g: &mut BenchmarkGroup<'_, WallTime>, name: &str) {
    let mut w = T::new();
    assert_eq!(w.sums(), expected(0), "{name}: initial sums");
    for t in 1..=3 {
        w.tick();
        assert_eq!(w.sums(), expected(t), "{name}: sums after {t} ticks");
    }
    g.bench_function(name, |b| b.iter(|| black_box(&mut w).tick()));
}

/// The floor: one `Vec<f32>` per column per table, the same 60,000 swaps as plain loops.
mod plain {
    use super::*;

    fn swap_cols(x: &mut [f32], y: &mut [f32]) {
        for (x, y) in x.iter_mut().zip(y) {
            swap(x, y);
        }
    }

    /// The four tables (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); a missing column is empty.
    pub struct Tables([[Vec<f32>; 5]; 4]);

    impl W1 for Tables {
        fn new() -> Self {
            let has = [
                [1, 1, 0, 0, 0],
                [1, 1, 1, 0, 0],
                [1, 1, 1, 1, 0],
                [1, 1, 1, 0, 1],
            ];
            Tables(has.map(|h| std::array::from_fn(|i| vec![(i + 1) as f32; N * h[i]])))
        }
        fn tick(&mut self) {
            for [a, b, ..] in &mut self.0 {
                swap_cols(a, b);
            }
            let [.., c, d, _] = &mut self.0[2];
            swap_cols(c, d);
            let [.., c, _, e] = &mut self.0[3];
            swap_cols(c, e);
        }
        fn sums(&mut self) -> [f32; 5] {
            std::array::from_fn(|i| self.0.iter().map(|t| t[i].iter().sum::<f32>()).sum())
        }
    }
}

/// hecs: no scheduler, so three query loops in sequence.
mod with_hecs {
    use super::*;

    /// `FOR_EACH`: iterate with `for_each` instead of a `for` loop.
    pub struct W<const FOR_EACH: bool>(hecs::World);

    fn swap_all<X: Value, Y: Value, const FOR_EACH: bool>(w: &mut hecs::World) {
        let q = w.query_mut::<(&mut X, &mut Y)>();
        if FOR_EACH {
            q.into_iter().for_each(|(x, y)| swap(x.v(), y.v()));
        } else {
            for (x, y) in q {
                swap(x.v(), y.v());
            }
        }
    }

    fn sum<X: Value>(w: &mut hecs::World) -> f32 {
        w.query_mut::<&X>().into_iter().map(|x| x.get()).sum()
    }

    impl<const FOR_EACH: bool> W1 for W<FOR_EACH> {
        fn new() -> Self {
            let mut w = hecs::World::new();
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0))));
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0), C(3.0))));
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0), C(3.0), D(4.0))));
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0), C(3.0), E(5.0))));
            W(w)
        }
        fn tick(&mut self) {
            swap_all::<A, B, FOR_EACH>(&mut self.0);
            swap_all::<C, D, FOR_EACH>(&mut self.0);
            swap_all::<C, E, FOR_EACH>(&mut self.0);
        }
        fn sums(&mut self) -> [f32; 5] {
            let w = &mut self.0;
            [
                sum::<A>(w),
                sum::<B>(w),
                sum::<C>(w),
                sum::<D>(w),
                sum::<E>(w),
            ]
        }
    }
}

/// legion 0.4: the three systems built with `SystemBuilder`, run either by the default
/// (rayon) `Schedule`, or one after the other as legion's executor does without `parallel`.
mod with_legion {
    use super::*;
    use legion::systems::ParallelRunnable;
    use legion::{IntoQuery, Read, Resources, Schedule, SystemBuilder, World, Write};

    fn world() -> World {
        let mut w = World::default();
        w.extend((0..N).map(|_| (A(1.0), B(2.0))));
        w.extend((0..N).map(|_| (A(1.0), B(2.0), C(3.0))));
        w.extend((0..N).map(|_| (A(1.0), B(2.0), C(3.0), D(4.0))));
        w.extend((0..N).map(|_| (A(1.0), B(2.0), C(3.0), E(5.0))));
        w
    }

    /// A system swapping `X` and `Y` in every entity that has both.
    fn swapper<X: Value, Y: Value>(name: &'static str) -> impl ParallelRunnable {
        SystemBuilder::new(name)
            .with_query(<(Write<X>, Write<Y>)>::query())
            .build(|_, world, _, q| q.for_each_mut(world, |(x, y)| swap(x.v(), y.v())))
    }

    fn sum<X: Value>(w: &World) -> f32 {
        <Read<X>>::query().iter(w).map(|x| x.get()).sum()
    }

    fn sums(w: &World) -> [f32; 5] {
        [
            sum::<A>(w),
            sum::<B>(w),
            sum::<C>(w),
            sum::<D>(w),
            sum::<E>(w),
        ]
    }

    /// `Schedule::execute`: legion's default executor, parallel on rayon's global pool.
    pub struct Par(World, Resources, Schedule);

    impl W1 for Par {
        fn new() -> Self {
            let schedule = Schedule::builder()
                .add_system(swapper::<A, B>("ab"))
                .add_system(swapper::<C, D>("cd"))
                .add_system(swapper::<C, E>("ce"))
                .build();
            Par(world(), Resources::default(), schedule)
        }
        fn tick(&mut self) {
            self.2.execute(&mut self.0, &mut self.1);
        }
        fn sums(&mut self) -> [f32; 5] {
            sums(&self.0)
        }
    }

    /// Sequential: each system prepared and run in order.
    pub struct Seq(World, Resources, [Box<dyn ParallelRunnable>; 3]);

    impl W1 for Seq {
        fn new() -> Self {
            let systems: [Box<dyn ParallelRunnable>; 3] = [
                Box::new(swapper::<A, B>("ab")),
                Box::new(swapper::<C, D>("cd")),
                Box::new(swapper::<C, E>("ce")),
            ];
            Seq(world(), Resources::default(), systems)
        }
        fn tick(&mut self) {
            for s in &mut self.2 {
                s.prepare(&self.0);
                s.run(&mut self.0, &mut self.1);
            }
        }
        fn sums(&mut self) -> [f32; 5] {
            sums(&self.0)
        }
    }
}

/// bevy_ecs: a `Schedule` of the three systems on the single-threaded executor.
mod with_bevy {
    use super::*;
    use bevy_ecs::component::Mutable;
    use bevy_ecs::prelude::*;
    use bevy_ecs::schedule::SingleThreadedExecutor;

    /// A system swapping `X` and `Y`; `FOR_EACH`: iterate with `for_each`, not a `for` loop.
    fn swapper<X, Y, const FOR_EACH: bool>(mut q: Query<(&mut X, &mut Y)>)
    where
        X: Component<Mutability = Mutable> + Value,
        Y: Component<Mutability = Mutable> + Value,
    {
        if FOR_EACH {
            q.iter_mut().for_each(|(mut x, mut y)| swap(x.v(), y.v()));
        } else {
            for (mut x, mut y) in &mut q {
                swap(x.v(), y.v());
            }
        }
    }

    pub struct W<const FOR_EACH: bool>(World, Schedule);

    fn sum<X: Component + Value>(w: &mut World) -> f32 {
        w.query::<&X>().iter(w).map(|x| x.get()).sum()
    }

    impl<const FOR_EACH: bool> W1 for W<FOR_EACH> {
        fn new() -> Self {
            let mut w = World::new();
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0))));
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0), C(3.0))));
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0), C(3.0), D(4.0))));
            w.spawn_batch((0..N).map(|_| (A(1.0), B(2.0), C(3.0), E(5.0))));
            let mut s = Schedule::default();
            s.set_executor(SingleThreadedExecutor::new());
            s.add_systems((
                swapper::<A, B, FOR_EACH>,
                swapper::<C, D, FOR_EACH>,
                swapper::<C, E, FOR_EACH>,
            ));
            W(w, s)
        }
        fn tick(&mut self) {
            self.1.run(&mut self.0);
        }
        fn sums(&mut self) -> [f32; 5] {
            let w = &mut self.0;
            [
                sum::<A>(w),
                sum::<B>(w),
                sum::<C>(w),
                sum::<D>(w),
                sum::<E>(w),
            ]
        }
    }
}

fn w1(c: &mut Criterion) {
    let mut g = c.benchmark_group("w1-schedule");
    bench::<plain::Tables>(&mut g, "plain-vec");
    bench::<with_hecs::W<false>>(&mut g, "hecs");
    bench::<with_hecs::W<true>>(&mut g, "hecs-for_each");
    bench::<with_legion::Seq>(&mut g, "legion-seq");
    bench::<with_legion::Par>(&mut g, "legion-par");
    bench::<with_bevy::W<false>>(&mut g, "bevy_ecs-single");
    bench::<with_bevy::W<true>>(&mut g, "bevy_ecs-single-for_each");
    g.finish();
}

criterion_group!(benches, w1);
criterion_main!(benches);
