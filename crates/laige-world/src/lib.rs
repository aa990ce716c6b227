//! laige-world: the tick layer over deterministic archetype storage (`laige-storage`, whose
//! types it re-exports), and the only view of it a system gets.
//!
//! A [`World`] stores entities ([`Entity`]: 32-bit index, 32-bit generation) and their
//! components (any `'static + Send + Sync` type marked [`Component`], registered at setup
//! to a dense [`ComponentId`]) in archetype tables of struct-of-arrays columns. Its direct methods
//! (`spawn`, `insert`, `remove`, `get`, `each`, ...) serve setup code. A running system sees
//! the world only through its [`SystemContext`]: typed queries checked once per call against
//! the system's declared access, its own [`CommandBuffer`] for structural changes (applied
//! later, in schedule order, by [`World::apply_commands`]), and its own [`Prng`] substream.
//! [`World::state_hash`] is a pure, layout-independent hash of the live state.
//! Opt-in recorders watch the ticks without changing them: a [`Timeline`] of where and when
//! each system ran (Chrome trace JSON for Perfetto), a [`ChecksumRecord`] of per-tick
//! checksums that finds the first tick and system where two lockstep runs differ, and, with
//! the `tracing-spans` feature, a `tracing` span per system run.
//!
//! What it deliberately does **not** do: it never orders systems (the scheduler does), never
//! decides what may run in parallel, and never times systems (the runner does). It trusts
//! the declared access that the scheduler proved disjoint: that proof is the safety contract
//! of [`Queries::new`] (the checked view every context is built on), which is what lets
//! contexts of independent systems share one [`Storage`]. [`host`] has the integration points for runners and executors.
//!
//! Iteration order, archetype ids, entity handles and the state hash are pure functions of
//! the operation history: no hash map, address or clock reaches them.
//!
//! # Example
//!
//! ```
//! use laige_world::{Component, StateHash, SystemContext, World, WorldOptions};
//!
//! #[derive(Component, StateHash, Debug, PartialEq)]
//! #[component(hashed)]
//! struct Pos(f32);
//! #[derive(Component)]
//! struct Vel(f32);
//!
//! fn movement(ctx: &mut SystemContext<'_>) {
//!     ctx.each::<(&mut Pos, &Vel)>(|(pos, vel)| pos.0 += vel.0).unwrap();
//! }
//!
//! let mut world = World::new(WorldOptions { seed: 7, ..WorldOptions::default() });
//! world.register_component::<Pos>().unwrap(); // hashed, as its attribute says
//! world.register_component::<Vel>().unwrap();
//! let e = world.spawn((Pos(1.0), Vel(0.5))).unwrap();
//! world.spawn((Pos(9.0),)).unwrap();
//!
//! let id = world
//!     .system("Movement", movement)
//!     .budget_ms(1.0)
//!     .writes::<Pos>()
//!     .reads::<Vel>()
//!     .register()
//!     .unwrap();
//! movement(&mut world.context(id).unwrap());
//! assert_eq!(world.get::<Pos>(e).unwrap(), &Pos(1.5));
//!
//! // Setup-time queries on the world are unchecked.
//! let mut sum = 0.0;
//! world.each::<&Pos>(|pos| sum += pos.0).unwrap();
//! assert_eq!(sum, 10.5);
//! ```
#![deny(missing_docs)]
// The tick layer holds no unsafe code but the executor's host (`parallel_host.rs`): `forbid`
// cannot be lifted for one module, so `deny` with one `allow` there.
#![deny(unsafe_code)]

mod command;
mod condition;
mod context;
mod events;
mod events_report;
mod events_setup;
mod frame;
mod gate;
pub mod host;
mod observe;
mod observers;
mod options;
mod par;
#[allow(unsafe_code)]
mod parallel_host;
mod prng;
mod resources;
mod run;
mod runtime;
mod snapshots;
mod state;
mod system;
mod tick_error;
mod tick_report;
mod world;

pub use command::{
    ApplyStats, CommandBuffer, CommandTarget, Commands, PendingBatch, PendingEntity,
};
pub use condition::{
    And, AndMarker, Condition, Not, NotEmpty, NotEmptyMarker, NotMarker, Or, OrMarker, Pending,
    every_n_ticks, not, not_empty, on_event, resource_equals, resource_matches,
};
pub use context::{SystemContext, SystemFn, SystemRun};
pub use events::{
    EventIter, EventParamState, EventReader, EventWriter, EventsError, EventsWaiting,
    MAX_EVENT_WRITERS, ParEventSink,
};
pub use events_report::{EventOverflow, EventsReport, EventsUnread};
pub use gate::FailurePolicy;
pub use host::SystemHost;
/// `#[derive(Component)]` (with `#[component(hashed, versioned)]`) and `#[derive(StateHash)]`;
/// the hashing order is in laige-derive's docs and docs/api/world.md.
#[cfg(feature = "derive")]
pub use laige_derive::{Component, StateHash};
pub use laige_query::Claim;
pub use laige_query::{
    Added, Changed, Filtered, Fresh, Mut, Prepared, Queries, QueryData, QueryIter,
    ReadOnlyQueryData, Ref, RunTicks, Snapshot, SystemMeta, With, Without,
};
pub use laige_record::{
    CHECKSUM_MAGIC, CHECKSUM_VERSION, ChecksumRecord, CompareError, CounterTrack, Culprit, Desync,
    RecordError, RecordedSystem, SKIP_TOKENS, TickChecksums, Timeline, TimelineEvent, TimelineKind,
    skip_code, skip_token,
};
pub use laige_registry::{Access, Budget, ComponentId, ComponentSet, RegisterError, SystemId};
#[cfg(feature = "serde")]
pub use laige_storage::SaveFileError;
pub use laige_storage::{
    Archetype, ArchetypeId, Bundle, Component, ComponentInfo, ComponentOptions, ComponentTicks,
    Components, Entity, Join, MAX_BUNDLE, MAX_BUNDLE_TUPLE, MAX_COMPONENT_TYPES, QueryError,
    SnapshotView, SparseSet, SparseSets, StateHash, StateHasher, Storage, StorageState,
    StorageStateError, WorldError,
};
pub use observers::MAX_RECORDED_TICKS;
pub use options::WorldOptions;
pub use par::{Batch, PAR_BATCH_ROWS};
pub use prng::Prng;
pub use state::{StateError, StateRing, WorldState};
pub use system::{
    BoxError, IntoSystem, Local, NamedRes, NamedResMut, NamedState, ParamFetch, ParamInit, Query,
    QueryFilter, Res, ResMut, ResourceName, Rng, SystemOutput, SystemParam, SystemWorld,
    WithContext,
};
pub use tick_error::TickError;
pub use tick_report::{
    CommandKind, CommandSkipReason, SkipReason, SkippedCommand, SystemOutcome, SystemReport,
    TickReport,
};
pub use world::{SystemBuilder, SystemHandle, SystemNames, SystemState, ViewSource, World};
