//! laige-sim: a deterministic ECS system framework for game and simulation engines.
//!
//! Systems are plain functions registered with a name, a time budget, the systems they run
//! after, and the components they read and write. laige-sim turns that registry into an
//! execution order, proves it safe once (unknown names, cycles and conflicting writers are
//! errors that name the systems and the fix), and then runs it every tick, one system at a
//! time or on a worker pool, with bit-identical results either way.
//!
//! This crate is the facade an engine depends on: the other `laige-*` crates re-exported
//! under short paths, a [`prelude`], and [`demo`], the particle simulation behind the
//! `demo` example and the end-to-end tests. It adds no behaviour of its own.
//!
//! # Example
//!
//! ```
//! use laige_sim::prelude::*;
//!
//! struct Pos(f32);
//! struct Vel(f32);
//!
//! fn movement(ctx: &mut SystemContext<'_>) {
//!     ctx.each::<(&mut Pos, &Vel)>(|_, (pos, vel)| pos.0 += vel.0).unwrap();
//! }
//! fn clamp(ctx: &mut SystemContext<'_>) {
//!     ctx.each::<&mut Pos>(|_, pos| pos.0 = pos.0.min(10.0)).unwrap();
//! }
//!
//! // Register components, then systems.
//! let mut world = World::new(WorldOptions::default());
//! world.register_component::<Pos>().unwrap();
//! world.register_component::<Vel>().unwrap();
//! world.spawn((Pos(0.0), Vel(4.0))).unwrap();
//! world.system("Movement", movement).budget_ms(1.0).writes::<Pos>().reads::<Vel>().register().unwrap();
//!
//! // Two writers of one component are refused when scheduling, with the fix.
//! world.system("Clamp", clamp).budget_ms(0.5).writes::<Pos>().register().unwrap();
//! let err = world.schedule().unwrap_err();
//! assert!(err.to_string().contains("both declare a write"));
//! ```
//!
//! The loop itself is: schedule once, then `world.run_systems(&schedule)` every tick; see
//! the README and `examples/demo.rs`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod demo;

pub use laige_depspec as depspec;
pub use laige_diag as diag;
pub use laige_executor as executor;
pub use laige_registry as registry;
pub use laige_runner as runner;
pub use laige_scheduler as scheduler;
pub use laige_world as world;

pub use laige_registry::system;

/// The names a simulation uses every day.
pub mod prelude {
    pub use laige_diag::Diagnostics;
    pub use laige_executor::{ChosenMode, ExecutorOptions, Mode};
    pub use laige_registry::{Access, Budget, ComponentId, SystemDef, SystemId};
    pub use laige_runner::TimingStats;
    pub use laige_scheduler::{Layout, Schedule};
    pub use laige_world::{
        ComponentOptions, Entity, Prng, StateHash, StateHasher, SystemContext, SystemFn, TickError,
        With, Without, World, WorldError, WorldOptions,
    };
}
