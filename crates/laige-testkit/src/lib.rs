//! Test support for the laige crates; a dev-dependency only, never linked into a product.
//!
//! The tools laige test suites share:
//! - [`capture`]: records the structured events a closure emits, through one process-wide
//!   subscriber that routes each event to the capturing thread. Per-test
//!   `tracing::subscriber::with_default` is known to drop events when tests run in
//!   parallel (callsite interest is cached per process), so this crate never uses it.
//! - [`CountingAlloc`]: a global allocator that counts allocations per thread, for the
//!   zero-allocation tests. Each test binary that uses it declares it as its
//!   `#[global_allocator]`.
//! - [`graphviz`]: renders DOT with the real Graphviz and fails on any complaint.
//!
//! What it does **not** do: judge laige's own output. Tests compare [`render`]ed text,
//! usually with `insta`; [`graphviz`] fails only where Graphviz itself complains.
//!
//! # Example
//!
//! ```
//! let ((), events) = laige_testkit::capture(|| {
//!     tracing::warn!(name: "system/duplicate", target: "laige", name = "Dup", existing_system_id = 1u32, "dup");
//! });
//! assert_eq!(laige_testkit::render(&events), "warn system/duplicate existing_system_id=1 name=Dup\n");
//! ```
#![deny(missing_docs)]

mod alloc;
mod capture;
mod graphviz;

pub use alloc::{CountingAlloc, allocations, allocations_all_threads, count_allocations};
pub use capture::{Event, capture, render, render_with_messages};
pub use graphviz::graphviz;
