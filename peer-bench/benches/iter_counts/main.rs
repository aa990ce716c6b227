//! `simple_iter` and `frag_iter` on laige-sim once per variant, for callgrind instruction
//! counts (issue 21: structural changes must not slow iteration down):
//!
//! ```sh
//! valgrind --tool=callgrind --toggle-collect='*measured*' target/release/deps/iter_counts-* <variant>
//! ```
//!
//! Variants: `simple_iter-world`, `simple_iter-system`, `frag_iter-world`, `frag_iter-system`.
//! Each builds its world, runs one pass to warm up, then ten passes inside `measured`.

#[path = "../storage/types.rs"]
#[allow(dead_code, unused_imports)]
mod types;

use std::hint::black_box;

use laige_sim::prelude::*;
use types::*;

const N: usize = 10_000;
const PASSES: usize = 10;

#[derive(Clone, Copy, Debug)]
struct Data(f32);
impl Component for Data {}

macro_rules! markers {
    ($($m:ident),*) => {
        $(
            #[derive(Clone, Copy, Debug)]
            struct $m(#[allow(dead_code)] f32);
            impl Component for $m {}
        )*
        fn frag_world() -> World {
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

fn simple_world() -> World {
    let mut world = laige_world();
    for _ in 0..N {
        world.spawn(body()).unwrap();
    }
    world
}

fn simple_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&Velocity, &mut Position)>(|(v, p)| add(p, v))
        .unwrap();
}

fn frag_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<&mut Data>(|d| d.0 *= 2.0).unwrap();
}

#[inline(never)]
fn measured(f: impl FnOnce()) {
    f()
}

fn passes(mut pass: impl FnMut()) {
    pass();
    measured(|| {
        for _ in 0..PASSES {
            pass();
        }
    });
}

fn in_system(world: World, f: fn(&mut SystemContext<'_>)) {
    let (mut world, schedule) = scheduled(world, |w| {
        w.system("iter", f).budget_ms(10.0).register().unwrap();
    });
    passes(|| world.run_systems(black_box(&schedule)).unwrap());
}

fn main() {
    match std::env::args().nth(1).unwrap_or_default().as_str() {
        "simple_iter-world" => {
            let mut world = simple_world();
            passes(|| {
                world
                    .each::<(&Velocity, &mut Position)>(|(v, p)| add(p, v))
                    .unwrap()
            });
        }
        "simple_iter-system" => in_system(simple_world(), simple_system),
        "frag_iter-world" => {
            let mut world = frag_world();
            passes(|| world.each::<&mut Data>(|d| d.0 *= 2.0).unwrap());
        }
        "frag_iter-system" => in_system(frag_world(), frag_system),
        other => panic!("unknown variant `{other}`"),
    }
}
