//! laige-record: what the opt-in recorders keep, and the formats they write.
//!
//! A [`Timeline`] keeps, per tick, where and when each system ran (the runner's or the
//! executor's spans) and each track's marks, in ring buffers sized once, and renders Chrome
//! Trace Event Format JSON for Perfetto. A [`ChecksumRecord`] keeps, per tick, the state hash
//! and a checksum per system of each component it writes, reads and writes its checked binary
//! form, and finds the first tick, system and component where two records differ ([`Desync`]).
//!
//! What it deliberately does **not** know: the World, and when a tick or a track happens. The
//! tick layer (`laige-world`) owns the recorders and calls them with data (a schedule, a
//! registry, spans, the storage after a track); nothing here calls back up.
//!
//! # Example
//!
//! ```
//! use laige_record::{CHECKSUM_MAGIC, ChecksumRecord};
//!
//! // A record read from bytes that are not one is a clear error, never a panic.
//! assert!(ChecksumRecord::from_bytes(b"not a record").is_err());
//! assert_eq!(CHECKSUM_MAGIC.len(), 8);
//! ```
#![deny(missing_docs)]

mod lockstep;
mod timeline;

pub use lockstep::{
    CHECKSUM_MAGIC, CHECKSUM_VERSION, ChecksumRecord, CompareError, Culprit, Desync, RecordError,
    RecordedSystem, SKIP_TOKENS, TickChecksums, skip_code, skip_token,
};
pub use timeline::{CounterTrack, MAX_COUNTERS, Timeline, TimelineEvent, TimelineKind};
