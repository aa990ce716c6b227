//! W4 `build-256` through laige-sim: on a World (its 64 component types as `K<0>`..`K<63>`)
//! and on the bare crates, to a runnable declarative schedule and, for a parallel run, the
//! executor's plan. Included by path next to `laige-scheduler/benches/support/w4.rs`
//! (as the sibling module `w4`) by `benches/game_tick.rs` and by `peer-bench/`.

use laige_registry::{Registry, SystemDef};
use laige_sim::executor::Plan;
use laige_sim::prelude::*;
use laige_sim::world::SystemRun;

use super::w4::{self, component};

/// One of the 64 W4 component types.
pub struct K<const N: usize>;
impl<const N: usize> Component for K<N> {}

type RegisterFn = fn(&mut World) -> Result<ComponentId, WorldError>;

macro_rules! component_types {
    ($($n:literal)*) => {
        /// Registers the 64 W4 component types, `K<0>` to `K<63>`, as ids 1 to 64.
        pub const REGISTER: [RegisterFn; 64] = [$(World::register_component::<K<$n>>),*];
    };
}
component_types!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);

/// The body of every W4 system.
pub fn noop(_: &mut SystemContext<'_>) {}

/// One track, one DAG, one phase.
pub fn layout() -> Layout {
    Layout::new().dag("Main", "W4", &["Update"], "Update")
}

/// W4 through the World: a new world, its 64 component types, the 256 systems, the
/// declarative schedule, and with `plan` the executor's plan.
pub fn world_build(defs: &[SystemDef<SystemFn>], plan: bool) -> (World, Schedule, Option<Plan>) {
    let mut world = World::new(WorldOptions::default());
    for register in REGISTER {
        register(&mut world).unwrap();
    }
    for def in defs {
        world
            .register_system(def.map_run(SystemRun::from_fn))
            .unwrap();
    }
    world.set_layout(layout());
    let schedule = world.schedule().unwrap();
    let plan = plan.then(|| Plan::build_from_access(&schedule, world.registry()));
    (world, schedule, plan)
}

/// W4 through the bare crates: a registry, the declarative schedule, and with `plan` the
/// executor's plan.
pub fn bare_build(
    defs: &[SystemDef<SystemFn>],
    layout: &Layout,
    plan: bool,
) -> (Registry<SystemFn>, Schedule, Option<Plan>) {
    let mut registry = Registry::new();
    for c in 0..w4::COMPONENTS {
        registry.register_component(component(c));
    }
    for def in defs {
        registry.register(def).unwrap();
    }
    let schedule = laige_sim::scheduler::schedule_declared(&registry, layout).unwrap();
    let plan = plan.then(|| Plan::build_from_access(&schedule, &registry));
    (registry, schedule, plan)
}
