//! laige-storage: the component storage under the tick layer.
//!
//! It holds entities ([`Entity`]: 32-bit index, 32-bit generation) and their components (any
//! `'static + Send + Sync` type, registered to a dense `ComponentId`) in archetype tables of
//! struct-of-arrays columns, resources in the same id space, frozen snapshots of versioned
//! components, and the layout-independent state hash ([`StateHasher`], [`StateHash`]).
//! Typed queries over its tables, and the access checks a running system's view makes, are
//! the layer above (`laige-query`).
//!
//! What it deliberately does **not** know: systems as things that run, declared access,
//! schedules, runners, executors, commands and PRNG streams; change ticks are plain numbers the
//! tick layer hands down ([`Storage::advance_change_tick`]), never counted or read from a clock
//! here. The tick layer above it (`laige-world`) owns those; it creates a [`Storage`], applies structural changes to it between tracks, and hands
//! each running system a view under the access the scheduler proved disjoint. Data flows one
//! way: this crate never calls back up.
//!
//! Iteration order, archetype ids, entity handles and the state hash are pure functions of
//! the operation history: no hash map, address or clock reaches them.
//!
//! # Example
//!
//! ```
//! use laige_storage::{StateHash, StateHasher};
//!
//! struct Pos(f32);
//! impl StateHash for Pos {
//!     fn hash_state(&self, h: &mut StateHasher) { self.0.hash_state(h) }
//! }
//!
//! let hash = |p: &Pos| {
//!     let mut h = StateHasher::new();
//!     p.hash_state(&mut h);
//!     h.finish()
//! };
//! assert_eq!(hash(&Pos(1.0)), hash(&Pos(1.0)));
//! assert_ne!(hash(&Pos(1.0)), hash(&Pos(-1.0)));
//! ```
#![deny(missing_docs)]
// The hidden modules' row containers are reached only by the tick layer, which never asks
// whether they are empty.
#![allow(clippy::len_without_is_empty)]

pub mod archetype;
pub mod bundle;
pub mod column;
pub mod command;
pub mod component;
pub mod entity;
mod error;
#[cfg(feature = "serde")]
pub mod file;
mod hash;
pub mod resource;
pub mod snapshot;
pub mod sparse;
pub mod storage;

pub use archetype::{Archetype, ArchetypeId};
pub use bundle::{Bundle, Join, MAX_BUNDLE_TUPLE, ValueSink};
pub use column::{CHANGE_BLOCK_ROWS, ColumnTicks, ComponentTicks, TickKind};
pub use component::{
    Component, ComponentInfo, ComponentOptions, Components, MAX_BUNDLE, MAX_COMPONENT_TYPES,
};
pub use entity::Entity;
pub use error::{QueryError, WorldError};
#[cfg(feature = "serde")]
pub use file::{SaveFileError, SaveReader, SaveWriter};
pub use hash::{StateHash, StateHasher};
pub use snapshot::SnapshotView;
pub use sparse::{SparseSet, SparseSets};
pub use storage::{Storage, StorageOwner, StorageState, StorageStateError};
