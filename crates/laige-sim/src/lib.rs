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
//!     bodies.each(|(pos, vel)| pos.0 += vel.0)
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
//!     .system("Clamp", |mut q: Query<'_, &mut Pos>| q.each(|pos| pos.0 = pos.0.min(10.0)))
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

/// The names a simulation uses, in two groups.
///
/// **First, the ten a newcomer needs**: a [`World`](prelude::World) made from
/// [`WorldOptions`](prelude::WorldOptions), holding [`Entity`](prelude::Entity)s with
/// [`Component`](prelude::Component)s, and systems whose parameters say what they touch:
/// a [`Query`](prelude::Query) over components, a resource read ([`Res`](prelude::Res)) or
/// written ([`ResMut`](prelude::ResMut)), [`Commands`](prelude::Commands) for structural
/// changes; and the two errors that carry the names and the fix:
/// [`WorldError`](prelude::WorldError) (setup) and [`QueryError`](prelude::QueryError) (a
/// system's query).
///
/// **Then the lower-level forms**, for what the first ten do not say: query shapes and
/// filters (`With`, `Without`, `Fresh`, `Snapshot`, and change detection: `Changed`, `Added`,
/// `Ref`), a system's other parameters (`Local`,
/// `Rng`, and the event queues' `EventWriter` and `EventReader`), registration options (`ComponentOptions`, `StateHash`, `StateHasher`, `Bundle`),
/// the context form of a system (`SystemContext`, `SystemFn`, `SystemHandle`, `BoxError`),
/// run conditions and named resources (`Condition`, `not`, `resource_equals`,
/// `resource_matches`, `every_n_ticks`, `not_empty`, `Pending`, `SkipReason`, `NamedRes`, `NamedResMut`,
/// `ResourceName`, `resource_name!`), a tick's outcome (`TickError`), data-parallel batches (`Batch`), the PRNG (`Prng`),
/// rollback (`WorldState`, `StateRing`, `StateError`, and with feature `serde` the save
/// files' `SaveFileError`), and
/// the names of scheduling, execution and timing (`Access`, `Budget`, `ComponentId`,
/// `SystemDef`, `SystemId`, `Layout`, `Schedule`, `ChosenMode`, `ExecutorOptions`, `Mode`,
/// `TimingStats`, `Diagnostics`).
pub mod prelude {
    // The ten a newcomer needs first.
    pub use laige_world::{
        Commands, Component, Entity, Query, QueryError, Res, ResMut, World, WorldError,
        WorldOptions,
    };

    // Query shapes and filters, a system's other parameters, registration options.
    pub use laige_world::{
        Added, Bundle, Changed, ComponentOptions, Fresh, Local, Mut, Ref, Rng, Snapshot, StateHash,
        StateHasher, With, Without,
    };
    // Run conditions and named resources (docs/api/conditions.md).
    pub use laige_world::{
        Condition, NamedRes, NamedResMut, Pending, ResourceName, SkipReason, every_n_ticks, not,
        not_empty, on_event, resource_equals, resource_matches, resource_name,
    };
    // Event queues (docs/api/events.md).
    pub use laige_world::{EventReader, EventWriter, EventsError};
    // The context form of a system, a tick's outcome, batches, the PRNG.
    pub use laige_world::{
        Batch, BoxError, Prng, SystemContext, SystemFn, SystemHandle, TickError,
    };
    // Rollback and save games: a world's whole state, and the ring of the last ticks'.
    pub use laige_world::{StateError, StateRing, WorldState};
    // Save files (feature `serde`): `WorldState::to_binary` / `to_json` and back.
    #[cfg(feature = "serde")]
    pub use laige_world::SaveFileError;
    // Scheduling, execution and timing.
    pub use laige_diag::Diagnostics;
    pub use laige_executor::{ChosenMode, ExecutorOptions, Mode};
    pub use laige_registry::{Access, Budget, ComponentId, SystemDef, SystemId};
    pub use laige_runner::TimingStats;
    pub use laige_runtime::{FixedTime, Runtime, RuntimeOptions};
    pub use laige_scheduler::{Layout, Schedule};
}
