//! The checksum record's file form: compact, self-describing, and checked on reading.
//!
//! Every number is big-endian:
//!
//! | field | size | meaning |
//! |---|---|---|
//! | magic | 8 bytes | `LAIGECHK` |
//! | version | u16 | [`CHECKSUM_VERSION`] (2) |
//! | systems | u16 | systems in schedule order |
//! | per system: name | u32 length + UTF-8 | its registration name |
//! | per system: writes | u16 | components it writes |
//! | per write: name | u32 length + UTF-8 | the component's name, ascending id |
//! | ticks | u64 | rows that follow |
//! | per tick | (2 + systems + slots) × u64 | tick number, state hash, one skip code per system ([`skip_code`](super::skip_code), 0: ran), one checksum per (system, write) |
//! | trailer | u64 | FNV-1a 64 of every byte before it |
//!
//! Rows are in ascending tick order. Reading checks the magic, the version, every length
//! against the bytes left (so a corrupt count cannot make it allocate more than the file
//! holds), the names' UTF-8, the tick order and the trailer, and reports the first problem.

use std::fmt;

use laige_registry::Fnv1a64;

use super::{ChecksumRecord, RecordedSystem};

/// The first 8 bytes of a checksum record file.
pub const CHECKSUM_MAGIC: [u8; 8] = *b"LAIGECHK";

/// The file format version this build writes and reads.
pub const CHECKSUM_VERSION: u16 = 2;

/// Why bytes are not a checksum record ([`ChecksumRecord::from_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// The bytes do not start with [`CHECKSUM_MAGIC`].
    NotARecord,
    /// The record was written in a format version this build cannot read.
    UnsupportedVersion {
        /// The version the file says.
        found: u16,
    },
    /// The bytes end before the record does.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where it starts.
        offset: usize,
        /// How many bytes the file has.
        len: usize,
    },
    /// A name is not UTF-8.
    InvalidName {
        /// Where the name starts.
        offset: usize,
    },
    /// Tick numbers do not ascend.
    TicksOutOfOrder {
        /// The row, from 0.
        row: u64,
        /// Its tick number.
        tick: u64,
        /// The previous row's.
        previous: u64,
    },
    /// More bytes follow the record.
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The trailer does not match the bytes: something changed them.
    Corrupt {
        /// The trailer's hash.
        stored: u64,
        /// The hash of the bytes.
        computed: u64,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RecordError::NotARecord => write!(
                f,
                "not a laige checksum record: it does not start with `LAIGECHK`; pass a file \
                 written by `ChecksumRecord::to_bytes` (the demo's `--checksums`)"
            ),
            RecordError::UnsupportedVersion { found } => write!(
                f,
                "checksum record version {found} is not supported (this build reads version \
                 {CHECKSUM_VERSION}); record both runs with the same laige version"
            ),
            RecordError::Truncated { what, offset, len } => write!(
                f,
                "checksum record is cut short: {what} at byte {offset} runs past its end at \
                 byte {len}; copy the whole file again"
            ),
            RecordError::InvalidName { offset } => write!(
                f,
                "checksum record is corrupt: the name at byte {offset} is not UTF-8; copy the \
                 file again"
            ),
            RecordError::TicksOutOfOrder {
                row,
                tick,
                previous,
            } => write!(
                f,
                "checksum record is corrupt: row {row} holds tick {tick} after tick {previous}, \
                 and ticks must ascend; copy the file again"
            ),
            RecordError::TrailingBytes { extra } => write!(
                f,
                "checksum record has {extra} bytes after its end; pass exactly one record per \
                 file"
            ),
            RecordError::Corrupt { stored, computed } => write!(
                f,
                "checksum record is corrupt: its trailer says {stored:#018x} but its bytes hash \
                 to {computed:#018x}; copy the file again"
            ),
        }
    }
}

impl std::error::Error for RecordError {}

/// Reads big-endian fields off a byte slice, reporting where it ran out.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], RecordError> {
        let truncated = RecordError::Truncated {
            what,
            offset: self.at,
            len: self.bytes.len(),
        };
        let end = self.at.checked_add(n).ok_or(truncated.clone())?;
        let out = self.bytes.get(self.at..end).ok_or(truncated)?;
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], RecordError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, RecordError> {
        self.array(what).map(u16::from_be_bytes)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, RecordError> {
        self.array(what).map(u32::from_be_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, RecordError> {
        self.array(what).map(u64::from_be_bytes)
    }

    fn name(&mut self, what: &'static str) -> Result<String, RecordError> {
        let len = self.u32(what)? as usize;
        let offset = self.at;
        let bytes = self.take(len, what)?;
        let name = std::str::from_utf8(bytes).map_err(|_| RecordError::InvalidName { offset })?;
        Ok(name.to_owned())
    }
}

/// Appends `name` with its u32 length, cut at a character boundary in the (impossible in
/// practice) case that it is longer than `u32::MAX` bytes.
fn write_name(out: &mut Vec<u8>, name: &str) {
    let mut len = name.len().min(u32::MAX as usize);
    while !name.is_char_boundary(len) {
        len -= 1;
    }
    out.extend_from_slice(&(len as u32).to_be_bytes());
    out.extend_from_slice(&name.as_bytes()[..len]);
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::new();
    h.write_bytes(bytes);
    h.finish()
}

impl ChecksumRecord {
    /// The record's file form (the table in this module's docs): what two machines
    /// exchange, or what a run saves to compare a later run with.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.len() * self.width() * 8);
        out.extend_from_slice(&CHECKSUM_MAGIC);
        out.extend_from_slice(&CHECKSUM_VERSION.to_be_bytes());
        // At most `MAX_SYSTEMS` (256) systems, each writing at most 256 components.
        out.extend_from_slice(&(self.systems.len() as u16).to_be_bytes());
        for system in &self.systems {
            write_name(&mut out, &system.name);
            out.extend_from_slice(&(system.writes.len() as u16).to_be_bytes());
            for component in &system.writes {
                write_name(&mut out, component);
            }
        }
        out.extend_from_slice(&(self.len() as u64).to_be_bytes());
        for tick in self.ticks() {
            for word in tick.row {
                out.extend_from_slice(&word.to_be_bytes());
            }
        }
        let trailer = fnv(&out);
        out.extend_from_slice(&trailer.to_be_bytes());
        out
    }

    /// Reads a record from its file form.
    ///
    /// # Errors
    ///
    /// The first problem found, as a [`RecordError`]: not a record, another version, cut
    /// short, a name that is not UTF-8, ticks out of order, bytes after the end, or a
    /// trailer that does not match. Never panics, whatever the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, RecordError> {
        let mut r = Reader { bytes, at: 0 };
        if r.array::<8>("the magic").ok() != Some(CHECKSUM_MAGIC) {
            return Err(RecordError::NotARecord);
        }
        let version = r.u16("the version")?;
        if version != CHECKSUM_VERSION {
            return Err(RecordError::UnsupportedVersion { found: version });
        }
        let count = r.u16("the system count")?;
        let mut systems = Vec::new();
        for _ in 0..count {
            let name = r.name("a system name")?;
            let writes = r.u16("a write count")?;
            let writes = (0..writes)
                .map(|_| r.name("a component name"))
                .collect::<Result<_, _>>()?;
            systems.push(RecordedSystem { name, writes });
        }
        let ticks = r.u64("the tick count")?;
        let width = super::row_width(&systems);
        let row_bytes = width * 8;
        let rows_start = r.at;
        let rows_len = usize::try_from(ticks)
            .ok()
            .and_then(|ticks| ticks.checked_mul(row_bytes))
            .filter(|&len| len <= bytes.len() - rows_start)
            .ok_or(RecordError::Truncated {
                what: "the rows",
                offset: rows_start,
                len: bytes.len(),
            })?;
        let rows: Vec<u64> = r
            .take(rows_len, "the rows")?
            .chunks_exact(8)
            .map(|word| u64::from_be_bytes(word.try_into().unwrap_or_default()))
            .collect();
        let body_end = r.at;
        let stored = r.u64("the trailer")?;
        if r.at < bytes.len() {
            return Err(RecordError::TrailingBytes {
                extra: bytes.len() - r.at,
            });
        }
        let computed = fnv(&bytes[..body_end]);
        if stored != computed {
            return Err(RecordError::Corrupt { stored, computed });
        }
        let mut previous = None;
        for (row, words) in rows.chunks_exact(width).enumerate() {
            let tick = words[0];
            if let Some(previous) = previous.filter(|&it| tick <= it) {
                return Err(RecordError::TicksOutOfOrder {
                    row: row as u64,
                    tick,
                    previous,
                });
            }
            previous = Some(tick);
        }
        Ok(ChecksumRecord::from_rows(systems, rows))
    }
}
