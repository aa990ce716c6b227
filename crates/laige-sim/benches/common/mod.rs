//! The W1 `schedule` and `frag_iter` workloads (`../shared/bench/workloads.md`) and their
//! plain-`Vec` floors, shared by the criterion benches (`workloads.rs`) and the interleaved
//! floor probe (`floors.rs`).

use std::hint::black_box;

use laige_sim::prelude::*;

/// A component that is one `f32`, so one system body can swap any pair of them.
pub trait Scalar: Send + Sync + 'static {
    fn value(&mut self) -> &mut f32;
}

macro_rules! scalar {
    ($($t:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $t(pub f32);
        impl Component for $t {}
        impl Scalar for $t {
            fn value(&mut self) -> &mut f32 {
                &mut self.0
            }
        }
    )*};
}
scalar!(A, B, C, D, E, Data);

/// A W1 system: swaps `X` and `Y` on every entity that has both. Its parameter declares
/// the writes of both.
fn swap<X: Scalar, Y: Scalar>(mut pairs: Query<'_, (&mut X, &mut Y)>) -> Result<(), QueryError> {
    pairs.each_chunk(|_, (xs, ys)| {
        for (x, y) in xs.iter_mut().zip(ys) {
            std::mem::swap(x.value(), y.value());
        }
    })
}

/// The same system in the low-level form: a `fn` pointer with a context.
fn swap_fn<X: Scalar, Y: Scalar>(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<(&mut X, &mut Y)>(|_, (xs, ys)| {
        for (x, y) in xs.iter_mut().zip(ys) {
            std::mem::swap(x.value(), y.value());
        }
    })
    .unwrap();
}

/// How a W1 world registers its systems: typed, or as `fn` pointers declaring on the builder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Typed,
    FnPointer,
}

/// Registers the W1 system `name` swapping `X` and `Y`, with both as its footprint (so
/// systems on disjoint tables run at once), after `after_weak` where their tables overlap.
fn register_swap<X: Scalar, Y: Scalar>(
    world: &mut World,
    form: Form,
    name: &'static str,
    after_weak: &'static str,
) {
    let builder = match form {
        Form::Typed => world.system(name, swap::<X, Y>),
        Form::FnPointer => world
            .system_fn(name, swap_fn::<X, Y>)
            .writes::<X>()
            .writes::<Y>(),
    };
    builder
        .matching::<X>()
        .matching::<Y>()
        .after_weak(after_weak)
        .register()
        .unwrap();
}

/// W1: 10,000 entities each of (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); `ab`, `cd`, `ce`
/// swap their pairs. `cd` and `ce` both write C, but no table holds D and E together, so
/// with their footprints declared they run at once; `ce.after_weak("cd")` fixes their
/// order for where they would overlap.
/// Its systems are registered in `form`.
pub fn w1_world(form: Form) -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        capacity: 40_000,
        ..WorldOptions::default()
    });
    for register in [
        World::register_component::<A>,
        World::register_component::<B>,
        World::register_component::<C>,
        World::register_component::<D>,
        World::register_component::<E>,
    ] {
        register(&mut world).unwrap();
    }
    for _ in 0..10_000 {
        world.spawn((A(1.0), B(2.0))).unwrap();
        world.spawn((A(1.0), B(2.0), C(3.0))).unwrap();
        world.spawn((A(1.0), B(2.0), C(3.0), D(4.0))).unwrap();
        world.spawn((A(1.0), B(2.0), C(3.0), E(5.0))).unwrap();
    }
    world.set_layout(Layout::new().dag("Main", "W1", &["Update"], "Update"));
    register_swap::<A, B>(&mut world, form, "ab", "");
    register_swap::<C, D>(&mut world, form, "cd", "");
    register_swap::<C, E>(&mut world, form, "ce", "cd");
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

fn sums(world: &mut World) -> [f64; 5] {
    let mut out = [0.0f64; 5];
    world.each::<&A>(|it| out[0] += f64::from(it.0)).unwrap();
    world.each::<&B>(|it| out[1] += f64::from(it.0)).unwrap();
    world.each::<&C>(|it| out[2] += f64::from(it.0)).unwrap();
    world.each::<&D>(|it| out[3] += f64::from(it.0)).unwrap();
    world.each::<&E>(|it| out[4] += f64::from(it.0)).unwrap();
    out
}

/// The workload's correctness check: the per-component sums after 1, 2 and 3 ticks.
pub fn check_w1(world: &mut World, schedule: &Schedule) {
    let even = [40_000.0, 80_000.0, 90_000.0, 40_000.0, 50_000.0];
    let odd = [80_000.0, 40_000.0, 120_000.0, 30_000.0, 30_000.0];
    for tick in 1..=3 {
        world.run_systems(schedule).unwrap();
        let want = if tick % 2 == 1 { odd } else { even };
        assert_eq!(sums(world), want, "W1 sums after tick {tick}");
    }
}

/// W1's floor: the same 60,000 swaps as plain loops over one `Vec` per column and table.
pub fn w1_plain_tables() -> Vec<Vec<Vec<f32>>> {
    [2, 3, 4, 4]
        .iter()
        .map(|&columns| (0..columns).map(|c| vec![c as f32; 10_000]).collect())
        .collect()
}

/// One tick of W1's floor.
pub fn w1_plain_tick(tables: &mut [Vec<Vec<f32>>]) {
    for (t, table) in black_box(tables).iter_mut().enumerate() {
        if let [a, b, rest @ ..] = &mut table[..] {
            swap_columns(a, b);
            if let ([c, d_or_e], true) = (rest, t >= 2) {
                swap_columns(c, d_or_e);
            }
        }
    }
}

fn swap_columns(a: &mut [f32], b: &mut [f32]) {
    for (a, b) in a.iter_mut().zip(b) {
        std::mem::swap(a, b);
    }
}

macro_rules! markers {
    ($($m:ident),*) => {
        // The workload's markers carry an f32 that no system reads.
        $( #[derive(Clone, Copy)] #[allow(dead_code)] struct $m(f32); impl Component for $m {} )*
        pub fn frag_world() -> World {
            let mut world = World::default();
            world.register_component::<Data>().unwrap();
            $( world.register_component::<$m>().unwrap(); )*
            for _ in 0..20 {
                $( world.spawn(($m(0.0), Data(1.0))).unwrap(); )*
            }
            world
        }
    };
}
markers!(
    Ma, Mb, Mc, Md, Me, Mf, Mg, Mh, Mi, Mj, Mk, Ml, Mm, Mn, Mo, Mp, Mq, Mr, Ms, Mt, Mu, Mv, Mw, Mx,
    My, Mz
);

/// frag_iter through `each`: `data *= 2` on every row.
pub fn frag_each(world: &mut World) {
    world.each::<&mut Data>(|d| d.0 *= 2.0).unwrap();
}

/// frag_iter through `each_chunk`.
pub fn frag_each_chunk(world: &mut World) {
    world
        .each_chunk::<&mut Data>(|_, data| {
            for d in data {
                d.0 *= 2.0;
            }
        })
        .unwrap();
}

/// frag_iter's floor: 26 `Vec`s of 20.
pub fn frag_plain_tables() -> Vec<Vec<Data>> {
    (0..26).map(|_| vec![Data(1.0); 20]).collect()
}

/// One pass of frag_iter's floor.
pub fn frag_plain(tables: &mut [Vec<Data>]) {
    for table in black_box(tables).iter_mut() {
        for d in table {
            d.0 *= 2.0;
        }
    }
}
