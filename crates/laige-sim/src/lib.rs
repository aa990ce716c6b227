//! laige-sim: a deterministic ECS system framework for game and simulation engines.
//!
//! Systems are functions or closures whose parameters ([`Query`](prelude::Query),
//! [`Res`](prelude::Res), [`Commands`](prelude::Commands), ...) say what they read and
//! write; each is registered with a name, and optionally a time budget and the systems it
//! runs after. laige-sim turns that registry into an execution order, proves it safe once
//! (unknown names, cycles and conflicting writers are errors that name the systems and the
//! fix), and then runs it every tick, one system at a time or on a worker pool, with
//! bit-identical results either way.
//!
//! This crate is the facade an engine depends on: the other `laige-*` crates re-exported
//! under short paths and a [`prelude`]. It adds no behaviour of its own; the particle demo
//! lives beside its example (`examples/demo/`).
//!
//! # Example
//!
//! ```
//! use laige_sim::prelude::*;
//!
//! #[derive(Component)]
//! struct Pos(f32);
//! #[derive(Component)]
//! struct Vel(f32);
//!
//! // The parameters declare the access: a write of `Pos`, a read of `Vel`.
//! fn movement(mut bodies: Query<'_, (&mut Pos, &Vel)>) -> Result<(), QueryError> {
//!     bodies.each(|_, (pos, vel)| pos.0 += vel.0)
//! }
//!
//! // Register components, then systems.
//! let mut world = World::new(WorldOptions::default());
//! world.register_component::<Pos>().unwrap();
//! world.register_component::<Vel>().unwrap();
//! world.spawn((Pos(0.0), Vel(4.0))).unwrap();
//! let movement = world.system("Movement", movement).register().unwrap();
//!
//! // A closure is a system too. Two writers of one component are refused when
//! // scheduling, with the fix.
//! world
//!     .system("Clamp", |mut q: Query<'_, &mut Pos>| q.each(|_, pos| pos.0 = pos.0.min(10.0)))
//!     .after(movement)
//!     .register()
//!     .unwrap();
//! let err = world.schedule().unwrap_err();
//! assert!(err.to_string().contains("both declare a write"));
//! ```
//!
//! The loop itself is: schedule once, then `world.run_systems(&schedule)` every tick; see
//! the README and `examples/demo/main.rs`. The low-level form of a system, a plain
//! `fn(&mut SystemContext)` called through its pointer with access declared on the builder
//! (`world.system_fn(..).writes::<Pos>()`), is in [`world`]'s docs.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use laige_depspec as depspec;
pub use laige_diag as diag;
pub use laige_executor as executor;
pub use laige_registry as registry;
pub use laige_runner as runner;
pub use laige_runtime as runtime;
pub use laige_scheduler as scheduler;
pub use laige_world as world;

pub use laige_registry::system;

/// The names a simulation uses every day.
pub mod prelude {
    pub use laige_diag::Diagnostics;
    pub use laige_executor::{ChosenMode, ExecutorOptions, Mode};
    pub use laige_registry::{Access, Budget, ComponentId, SystemDef, SystemId};
    pub use laige_runner::TimingStats;
    pub use laige_runtime::{FixedTime, Runtime, RuntimeOptions};
    pub use laige_scheduler::{Layout, Schedule};
    pub use laige_world::{
        Batch, BoxError, Bundle, Commands, Component, ComponentOptions, Entity, Fresh, Local, Prng,
        Query, QueryError, Res, ResMut, Rng, Snapshot, StateHash, StateHasher, SystemContext,
        SystemFn, SystemHandle, TickError, With, Without, World, WorldError, WorldOptions,
    };
}
