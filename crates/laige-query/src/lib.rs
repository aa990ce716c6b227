//! laige-query: typed queries over the archetype tables of a `laige-storage` [`Storage`],
//! each checked once per call against what the running system declared.
//!
//! A query is a type ([`QueryData`]): `&T`, `&mut T`, `Option<..>`, [`Fresh<&T>`],
//! [`Snapshot<&T>`], [`Entity`], [`Ref<T>`], the filters [`With<T>`], [`Without<T>`],
//! [`Changed<T>`] and [`Added<T>`], or tuples of these.
//! [`Queries`] is the checked view a running system gets: before a query touches a row, every
//! element's access is checked against the system's [`SystemMeta`] (its declared reads, writes,
//! fresh and snapshot reads, and table footprint), and so are resource and snapshot reads.
//! `ParamInit` collects, at registration, what a typed system's parameters need.
//!
//! How a query checks access is in three files: `queries.rs` (the entry points), `query/iter.rs`
//! (resolve and check once per call, then iterate) and `query.rs` (`QueryDesc`, the per-element
//! rule against `SystemMeta::declared`, and the snapshot and resource checks).
//!
//! What it deliberately does **not** know: schedules, runners, executors and commands; of
//! ticks it knows only the two numbers a system's [`SystemMeta`] carries ([`RunTicks`]).
//! It trusts the caller (the tick layer, `laige-world`) to hand a view only under access the
//! scheduler proved disjoint; that is the safety contract of [`Queries::new`].
//!
//! # Example
//!
//! ```
//! use laige_query::SystemMeta;
//! use laige_world::{Access, Component, World, WorldOptions};
//!
//! struct Pos(f32);
//! impl Component for Pos {}
//!
//! let mut world = World::new(WorldOptions::default());
//! let pos = world.register_component::<Pos>()?;
//! let id = world.system_fn("Movement", |_| {}).writes::<Pos>().register()?;
//! let meta: &SystemMeta = world.context(id)?.meta();
//! assert_eq!(meta.declared(pos), Some(Access::Write));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

#[doc(hidden)]
pub mod declare;
mod par;
mod queries;
#[doc(hidden)]
pub mod query;

// The storage's types, which the query files name through `crate::`.
use laige_storage::{Entity, QueryError, SnapshotView, Storage};

pub use declare::Claim;
pub use par::{BatchTable, BatchTables, PAR_BATCH_ROWS, ParBatches};
pub use queries::{ParamViews, Queries, read_snapshot};
pub use query::{
    Added, Changed, Filtered, Fresh, Mut, Prepared, QueryData, QueryFilter, QueryIter,
    ReadOnlyQueryData, Ref, RunTicks, Snapshot, SystemMeta, With, Without,
};
