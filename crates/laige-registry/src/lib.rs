//! The laige system registry: who the systems are, what they touch, what they wait for.
//!
//! A system is a plain function registered with a unique name, a time [`Budget`], a
//! `depends_on` spec naming the systems it runs after, and its declared component
//! [`Access`]. [`Registry::register`] validates a [`SystemDef`] in the contract's order and
//! stores it under a dense [`SystemId`] (1, 2, ... in registration order).
//!
//! It owns the access sets, and so the one conflict rule every scheduler, plan and world
//! asks: [`SystemRecord::conflict_with`] (declared access, refined by table footprints when
//! the caller describes the live tables, [`LiveTables`]) and [`Registry::conflicts`].
//!
//! What it does **not** do: it never resolves `depends_on` names (forward references are
//! legal; the scheduler resolves them), never orders or runs systems, and knows nothing of
//! the World. It sees components only as [`ComponentId`]s that a front end registered.
//! Registration never allocates: room for [`MAX_SYSTEMS`] systems is reserved up front.
//!
//! # Example
//!
//! ```
//! use laige_registry::{ComponentId, Registry, SystemDef, system};
//!
//! type Run = fn(&mut u32);
//! fn movement(ticks: &mut u32) { *ticks += 1 }
//! fn clamp(_: &mut u32) {}
//!
//! let pos = ComponentId::new(1).unwrap();
//! let mut registry = Registry::<Run>::new();
//! registry.register_component(pos);
//!
//! let clamp_id = registry.register(system!(clamp, 1, movement).writes(pos)).unwrap();
//! let movement_id = registry.register(SystemDef::new("movement", movement as Run)
//!     .budget_ms(0.5)
//!     .reads(pos)).unwrap();
//!
//! assert_eq!((clamp_id.get(), movement_id.get()), (1, 2));
//! assert_eq!(registry.depends_on(clamp_id), ["movement"]);
//!
//! // A second system with the same name is refused, and nothing changes.
//! let err = registry.register(system!(clamp, 1)).unwrap_err();
//! assert_eq!(err.event(), "duplicate");
//! assert_eq!(registry.len(), 2);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod accessors;
mod budget;
mod component_set;
mod conflict;
mod def;
mod error;
mod fnv;
mod id;
mod macros;
mod names;
mod registry;
mod shared_names;
mod suggest;

pub use accessors::Accessors;
pub use budget::Budget;
pub use component_set::{ComponentSet, DenseId, IdSet, Iter as IdSetIter, SystemSet};
pub use conflict::{Conflicts, LiveTables};
pub use def::{Access, Io, IoList, MAX_IO, Placement, SystemDef};
pub use error::{RegisterError, UnknownSystem};
pub use fnv::{FNV_OFFSET, FNV_PRIME, Fnv1a64, fnv1a64};
pub use id::{ComponentId, MAX_COMPONENTS, MAX_SYSTEMS, SystemId};
pub use laige_depspec::MAX_DEPENDENCIES;
pub use registry::{Registry, SystemRecord};
pub use shared_names::{ComponentName, Names};
pub use suggest::closest as closest_name;
