//! What a track run can fail with.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use laige_diag::{Escape, Text};
use laige_registry::SystemId;

/// How many bytes of a panic message an [`ExecError`] keeps.
pub const PANIC_MESSAGE_BYTES: usize = 112;

/// A fixed-size copy of a panic message: the payload's text when it was a `&str` or a
/// `String`, truncated at a character boundary to [`PANIC_MESSAGE_BYTES`] bytes.
// Not an `ArrayString`: its `u32` length would make `ExecError` 128 bytes, past clippy's
// `result_large_err` line, where this layout keeps it at 120.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PanicMessage {
    bytes: [u8; PANIC_MESSAGE_BYTES],
    len: u8,
    truncated: bool,
}

impl PanicMessage {
    /// The empty message, for a payload that is not text.
    pub const EMPTY: Self = Self {
        bytes: [0; PANIC_MESSAGE_BYTES],
        len: 0,
        truncated: false,
    };

    /// The text of `text`, truncated.
    pub fn new(text: &str) -> Self {
        let mut end = text.len().min(PANIC_MESSAGE_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut res = Self::EMPTY;
        res.bytes[..end].copy_from_slice(&text.as_bytes()[..end]);
        res.len = end as u8;
        res.truncated = end < text.len();
        res
    }

    /// The message of a caught panic payload; empty unless it is a `&str` or a `String`.
    pub fn from_payload(payload: &(dyn Any + Send)) -> Self {
        if let Some(text) = payload.downcast_ref::<&'static str>() {
            Self::new(text)
        } else if let Some(text) = payload.downcast_ref::<String>() {
            Self::new(text)
        } else {
            Self::EMPTY
        }
    }

    /// The kept text.
    pub fn as_str(&self) -> &str {
        // Only whole characters of a `&str` are ever copied in.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }

    /// Whether the message was longer than what is kept.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    pub(crate) fn bytes(&self) -> &[u8; PANIC_MESSAGE_BYTES] {
        &self.bytes
    }

    pub(crate) fn from_parts(bytes: [u8; PANIC_MESSAGE_BYTES], len: u8, truncated: bool) -> Self {
        Self {
            bytes,
            len,
            truncated,
        }
    }

    pub(crate) fn len(&self) -> u8 {
        self.len
    }
}

/// A panic message is untrusted text: in a message it is escaped and bounded like a name.
impl<'a> Escape for &'a PanicMessage {
    type Escaped = Text<&'a PanicMessage>;
    fn escaped(self) -> Self::Escaped {
        Text::name(self)
    }
}

impl fmt::Debug for PanicMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for PanicMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.truncated {
            f.write_str("...")?;
        }
        Ok(())
    }
}

/// Why [`Executor::run_track`](crate::Executor::run_track) failed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum ExecError {
    /// A system panicked. The rest of the track still ran (its dependents included), and
    /// the pool is ready for the next track. When several systems panicked, this names the
    /// first of them in the track's sequential order, whatever the worker count.
    SystemPanicked {
        /// The system that panicked.
        system: SystemId,
        /// Its panic message, when the payload was text.
        message: PanicMessage,
    },
    /// The plan has no track with this index; nothing ran.
    TrackOutOfRange {
        /// The track asked for.
        track: usize,
        /// How many tracks the plan has.
        tracks: usize,
    },
    /// The run table is shorter than the plan's highest system index; nothing ran.
    RunsTooShort {
        /// The length the plan needs.
        needed: usize,
        /// The length given.
        given: usize,
    },
}

laige_diag::diagnostics! {
    const ExecError in System;
    SystemPanicked { system, %message }
        => error system_panicked { id = system.get(), message = message.as_str() }
        "system {system} panicked: {message}: the rest of its track ran; fix the system or \
         catch the failure inside it";
    TrackOutOfRange { track, tracks } => error track_out_of_range { track, tracks }
        "track {track} does not exist: the plan has {tracks} tracks";
    RunsTooShort { needed, given } => error runs_too_short { needed, given }
        "the run table has {given} entries but the plan needs {needed}: pass the registry's \
         `runs()` for the registry the plan was built from";
}

impl std::error::Error for ExecError {}

/// Drops a caught panic payload; a payload whose destructor panics in turn is leaked
/// instead, so containing a panic never unwinds a second time.
pub fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(again);
    }
}
