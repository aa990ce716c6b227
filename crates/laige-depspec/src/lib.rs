//! Allocation-free, `no_std` parser for the `depends_on` spec of a laige system.
//!
//! A laige system names the systems it must run after in a `depends_on` spec:
//! a comma-separated list of system names such as `"Spawner, Movement"`.
//! [`DepSpec::parse`] checks that spec and hands back the names, in spec order,
//! as `&str` slices borrowed from the input.
//!
//! The rules, briefly:
//!
//! - tokens are separated by `,` and trimmed of ASCII space, tab, CR and LF (only those four bytes);
//! - an empty or whitespace-only spec means "no dependencies";
//! - any other empty token is [`ErrorKind::EmptyToken`];
//! - a token equal (byte for byte, case-sensitive) to an earlier one is [`ErrorKind::DuplicateToken`];
//! - a 17th distinct token is [`ErrorKind::TooMany`] (see [`MAX_DEPENDENCIES`]);
//! - errors are reported left to right: the first offending token wins.
//!
//! What this crate deliberately does **not** do:
//!
//! - it knows nothing about systems, registries or worlds;
//! - it never resolves a name to a system, nor checks that the named system exists;
//! - it never allocates (the parsed spec is a fixed array of 16 borrowed slices);
//! - it does not use `std` (nor `alloc`); its one dependency, `arrayvec` without default
//!   features, does not either.
//!
//! # Example
//!
//! ```
//! use laige_depspec::{DepSpec, ErrorKind, MAX_DEPENDENCIES};
//!
//! let deps = DepSpec::parse(" Spawner ,Movement")?;
//! assert_eq!(deps.as_slice(), ["Spawner", "Movement"]);
//! assert!(deps.contains("Movement"));
//! assert_eq!(deps.position("Movement"), Some(1));
//!
//! // Whitespace-only means "no dependencies".
//! assert!(DepSpec::parse(" \t")?.is_empty());
//!
//! // A trailing comma leaves an empty token at byte 8.
//! let err = DepSpec::parse("Spawner,").unwrap_err();
//! assert_eq!(err.kind, ErrorKind::EmptyToken);
//! assert_eq!(err.kind.name(), "empty_token");
//! assert_eq!((err.position, err.span.range()), (1, 8..8));
//! assert_eq!(err.to_string(), "empty token at bytes 8..8 (token 1): remove the extra comma");
//!
//! // The plain message cannot quote the token (the error does not borrow the spec);
//! // `display_with` can.
//! let err = DepSpec::parse("A, B, A").unwrap_err();
//! assert_eq!(err.kind, ErrorKind::DuplicateToken);
//! assert_eq!(
//!     err.display_with("A, B, A").to_string(),
//!     "duplicate dependency `A` at bytes 6..7 (token 2): list each system once",
//! );
//! # assert_eq!(MAX_DEPENDENCIES, 16);
//! # Ok::<(), laige_depspec::ParseError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
mod spec;

pub use error::{ErrorKind, ParseError, Span, WithSpec, WithToken};
pub use spec::{DepSpec, is_token};

/// The most dependencies one system may list in its `depends_on` spec.
///
/// The bound keeps [`DepSpec`] a small, fixed-size value, so parsing never allocates.
/// A system that seems to need more can run after one system that already depends on the rest.
pub const MAX_DEPENDENCIES: usize = 16;
