//! Save files (feature `serde`): the header, the framing of sections, the per-type serde
//! functions and the error every failed write or read reports
//! (docs/decisions/0019-save-files.md).
//!
//! A file is a header and named sections in a fixed order. The binary form is the 8 bytes
//! `LAIGESAV`, the format version as a little-endian `u16`, then each section as one postcard
//! message; the text form is one JSON object with the keys `magic`, `version` and one per
//! section. Column values go through the type's own serde impls, by the functions
//! [`ComponentOptions::serde`](crate::ComponentOptions::serde) stored: postcard bytes in the
//! binary form, one JSON value per row in the text form.

use std::{fmt, ptr};

use postcard::de_flavors::Slice;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The first 8 bytes of a binary save file (and the `magic` of a JSON one).
pub const SAVE_FILE_MAGIC: &[u8; 8] = b"LAIGESAV";

/// The format version this build writes, and the newest it reads.
pub const SAVE_FILE_VERSION: u16 = 1;

/// Why a save file could not be written or read. A failed read changes nothing: the whole
/// file is checked before anything is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SaveFileError {
    /// The input does not start with `LAIGESAV`: it is no laige save file. Event
    /// `ecs/save_file_magic`.
    BadMagic,
    /// The file was written by a newer format version than this build reads. Event
    /// `ecs/save_file_version`.
    UnsupportedVersion {
        /// The file's version.
        found: u16,
        /// The newest version this build reads.
        supported: u16,
    },
    /// The input ends inside section `section`, which starts at byte `offset` (0 in a JSON
    /// text). Event `ecs/save_file_truncated`.
    Truncated {
        /// The section.
        section: &'static str,
        /// Where it starts.
        offset: usize,
    },
    /// Section `section` (starting at byte `offset`, 0 in a JSON text) does not parse.
    /// Event `ecs/save_file_malformed`.
    Malformed {
        /// The section.
        section: &'static str,
        /// Where it starts.
        offset: usize,
        /// What the format crate said.
        detail: Box<str>,
    },
    /// Bytes follow the last section (at byte `offset`), or a JSON text has a key no
    /// section reads. Event `ecs/save_file_trailing`.
    Trailing {
        /// Where they start (0 in a JSON text).
        offset: usize,
        /// The extra key of a JSON text (`""` in a binary file).
        key: Box<str>,
    },
    /// The file was written from a world with other component and resource types: at id
    /// `id` (the first that differs) it has `file`, the world `world` (`""` for none).
    /// Event `ecs/save_file_types_differ`.
    TypesDiffer {
        /// The id.
        id: u16,
        /// The file's type there.
        file: Box<str>,
        /// The world's.
        world: &'static str,
    },
    /// A type of the same name has another `property` in the file (`size`, `alignment`,
    /// `storage`, `tracked`, `versioned`). Event `ecs/save_file_type_differs`.
    TypeDiffers {
        /// The type.
        component: &'static str,
        /// What differs.
        property: &'static str,
        /// The file's value.
        file: Box<str>,
        /// The world's.
        world: Box<str>,
    },
    /// The file was written from a world with other systems: at id `id` it has `file`, the
    /// world `world` (`""` for none). Event `ecs/save_file_systems_differ`.
    SystemsDiffer {
        /// The system id.
        id: u32,
        /// The file's system there.
        file: Box<str>,
        /// The world's.
        world: &'static str,
    },
    /// A registered type has no serde registration, so a file cannot hold it. Event
    /// `ecs/save_file_not_serde`.
    NotSerde {
        /// The type's name (a named resource's display name, an event queue's
        /// `…Events<E>`).
        component: &'static str,
        /// Whether it is a resource type.
        resource: bool,
    },
    /// A system keeps `Local` values, which have no file form. Event
    /// `ecs/save_file_local`.
    LocalHasNoFileForm {
        /// The system.
        system: &'static str,
        /// The `Local`'s type.
        local: &'static str,
    },
    /// A value of `component` in section `section` could not be written or read. Event
    /// `ecs/save_file_value`.
    Value {
        /// The type.
        component: &'static str,
        /// The section.
        section: &'static str,
        /// What its serde impl or the format crate said.
        detail: Box<str>,
    },
    /// Section `section` parses but contradicts itself or another section (an entity
    /// whose slot points elsewhere, a column of the wrong length). Event
    /// `ecs/save_file_inconsistent`.
    Inconsistent {
        /// The section.
        section: &'static str,
        /// What is wrong.
        detail: Box<str>,
    },
    /// The state was saved from another world than the one writing it: at `kind` id `id`
    /// (`"component"` or `"system"`) the state has `state`, the world `world`. Event
    /// `ecs/save_file_other_world`.
    OtherWorld {
        /// What the id numbers.
        kind: &'static str,
        /// The id.
        id: u32,
        /// The state's type or system there.
        state: &'static str,
        /// The world's.
        world: &'static str,
    },
    /// The state holds no world yet. Event `ecs/save_file_empty`.
    Empty,
}

laige_diag::diagnostics! {
    SaveFileError in Ecs;
    BadMagic => warn save_file_magic {}
        "the input is no laige save file (it does not start with `LAIGESAV`): pass bytes \
         written by `WorldState::to_binary`, or text by `to_json`";
    UnsupportedVersion { found, supported }
        => warn save_file_version { found = u64::from(*found), supported = u64::from(*supported) }
        "the save file has format version {found}, but this build reads versions up to \
         {supported}: load it with the build that wrote it (or a newer one)";
    Truncated { section, offset } => warn save_file_truncated { section = *section, offset = *offset as u64 }
        "the save file ends inside section `{section}` (which starts at byte {offset}): the \
         file is cut short; write it again";
    Malformed { section, offset, %detail }
        => warn save_file_malformed { section = *section, offset = *offset as u64, detail = &**detail }
        "section `{section}` of the save file (at byte {offset}) does not parse: {detail}; \
         the file is damaged or was not written by laige";
    Trailing { offset, %key } => warn save_file_trailing { offset = *offset as u64, key = &**key }
        |f| if key.to_string().is_empty() {
            write!(f, "the save file goes on after its last section (at byte {offset}): the \
                       file is damaged or two files were joined")
        } else {
            write!(f, "the save file has a key `{key}` that no section reads: the file is \
                       damaged or was not written by laige")
        };
    TypesDiffer { id, %file, %world }
        => warn save_file_types_differ { component_id = u64::from(*id), file = &**file, world = *world }
        |f| write!(
            f,
            "the save file was written from a world with other types: component id {id} is {} \
             in the file but {} in this world; register the same component and resource \
             types in the same order before loading",
            described(file),
            described(world)
        );
    TypeDiffers { %component, property, %file, %world }
        => warn save_file_type_differs { component, property = *property, file = &**file, world = &**world }
        "type `{component}` has {property} {file} in the save file but {world} in this world: \
         register it the same way as the build that wrote the file (or convert the file)";
    SystemsDiffer { id, %file, %world }
        => warn save_file_systems_differ { system_id = u64::from(*id), file = &**file, world = *world }
        |f| write!(
            f,
            "the save file was written from a world with other systems: system id {id} is {} \
             in the file but {} in this world; register the same systems in the same order \
             before loading",
            described(file),
            described(world)
        );
    NotSerde { %component, resource: false } => warn save_file_not_serde { component }
        "component `{component}` has no serde registration, so a save file cannot hold it: \
         register it with `ComponentOptions::serde()` (it needs `Clone + Serialize + \
         DeserializeOwned`)";
    NotSerde { %component } => warn save_file_not_serde { component }
        |f| not_serde_resource(f, &component.to_string());
    LocalHasNoFileForm { %system, %local } => warn save_file_local { system, local }
        "system `{system}` keeps a `Local<{local}>`, and `Local` values have no file form: \
         keep that state in a resource registered with `world.serde_resource` instead";
    Value { %component, section, %detail }
        => warn save_file_value { component, section = *section, detail = &**detail }
        "a value of `{component}` in section `{section}` could not be written or read: \
         {detail}; check its serde impls (JSON maps need string keys), and that the \
         file was written with this version of the type";
    Inconsistent { section, %detail }
        => warn save_file_inconsistent { section = *section, detail = &**detail }
        "section `{section}` of the save file contradicts the rest of it: {detail}; the file \
         is damaged or was edited by hand";
    OtherWorld { kind, id, %state, %world }
        => warn save_file_other_world { kind = *kind, id = u64::from(*id), state, world }
        |f| write!(
            f,
            "the state was saved from another world: {kind} id {id} is {} in the state but \
             {} in this one; write a state with the world it was saved from",
            described(state),
            described(world)
        );
    Empty => warn save_file_empty {}
        "the state holds no world yet: save into it (`world.save_state(&mut state)`) before \
         writing it to a file";
}

impl std::error::Error for SaveFileError {}

/// `name` in backticks, or "none" for `""`.
fn described(name: impl fmt::Display) -> String {
    let name = name.to_string();
    if name.is_empty() {
        "none".to_owned()
    } else {
        format!("`{name}`")
    }
}

/// The message of a resource without serde registration: an event queue, a named or a
/// plain resource (told apart by the registered name, as `StateError` does).
fn not_serde_resource(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    const QUEUE: &str = "laige_world::events::queue::Events<";
    if let Some(event) = name.strip_prefix(QUEUE).and_then(|it| it.strip_suffix('>')) {
        return write!(
            f,
            "the event queue of `{event}` has no file form: a save file holds no events in \
             flight; write the file from a world without event queues, or keep the events in \
             a resource registered with `world.serde_resource`"
        );
    }
    match name.split_once(" \"") {
        Some((ty, rest)) if rest.ends_with('"') => {
            let label = &rest[..rest.len() - 1];
            write!(
                f,
                "resource `{ty}` named \"{label}\" has no serde registration, so a save file \
                 cannot hold it: call `world.serde_named_resource::<{ty}>(\"{label}\")` (it \
                 needs `Clone + Serialize + DeserializeOwned`) during setup"
            )
        }
        _ => write!(
            f,
            "resource `{name}` has no serde registration, so a save file cannot hold it: call \
             `world.serde_resource::<{name}>()` (it needs `Clone + Serialize + \
             DeserializeOwned`) during setup"
        ),
    }
}

/// One postcard output that appends to a `Vec` it owns for the while: the `Vec` taken out
/// of the caller's place and put back, so its length stays in a register across the writes
/// (through a `&mut Vec` in a struct, every byte stored might alias it).
pub(crate) struct Append(Vec<u8>);

impl postcard::ser_flavors::Flavor for Append {
    type Output = Vec<u8>;

    // Inlined into each value's `serialize`, where the length is a constant.
    #[inline(always)]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        /// `data` as `N` bytes: a constant-size copy.
        #[inline(always)]
        fn fixed<const N: usize>(data: &[u8]) -> [u8; N] {
            <[u8; N]>::try_from(data).unwrap_or([0; N])
        }
        // Most writes are a varint or an `f32`: copies of a known size beat a `memmove` call
        // per value, which would cost more than the value.
        match data.len() {
            1 => self.0.push(data[0]),
            2 => self.0.extend_from_slice(&fixed::<2>(data)),
            3 => self.0.extend_from_slice(&fixed::<3>(data)),
            4 => self.0.extend_from_slice(&fixed::<4>(data)),
            5 => self.0.extend_from_slice(&fixed::<5>(data)),
            8 => self.0.extend_from_slice(&fixed::<8>(data)),
            _ => self.0.extend_from_slice(data),
        }
        Ok(())
    }

    #[inline(always)]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.push(data);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Vec<u8>> {
        Ok(self.0)
    }
}

/// Runs `write` with a postcard serializer appending to `out`.
pub(crate) fn with_serializer<R>(
    out: &mut Vec<u8>,
    write: impl FnOnce(&mut postcard::Serializer<Append>) -> R,
) -> R {
    let mut ser = postcard::Serializer {
        output: Append(std::mem::take(out)),
    };
    let result = write(&mut ser);
    *out = ser.output.0;
    result
}

/// Appends `value` to `out` as postcard.
pub(crate) fn append<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> postcard::Result<()> {
    with_serializer(out, |ser| value.serialize(ser))
}

/// Why a section written by hand (the binary form's columns) could not be read: the format
/// crate's error, mapped to the section by [`SaveReader::binary_section`], or a file error.
#[derive(Debug)]
pub(crate) enum ReadError {
    Postcard(postcard::Error),
    File(SaveFileError),
}

impl From<postcard::Error> for ReadError {
    fn from(err: postcard::Error) -> Self {
        Self::Postcard(err)
    }
}

impl From<SaveFileError> for ReadError {
    fn from(err: SaveFileError) -> Self {
        Self::File(err)
    }
}

/// The error of a postcard read of section `section`, which starts at byte `offset`.
fn postcard_error(err: &postcard::Error, section: &'static str, offset: usize) -> SaveFileError {
    match err {
        postcard::Error::DeserializeUnexpectedEnd => SaveFileError::Truncated { section, offset },
        err => SaveFileError::Malformed {
            section,
            offset,
            detail: err.to_string().into(),
        },
    }
}

/// A postcard output over a buffer of fixed length, for [`write_all`]: it never grows, so
/// nothing of it escapes and its cursor stays in a register across a column's writes.
pub(crate) struct Cursor<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl postcard::ser_flavors::Flavor for Cursor<'_> {
    type Output = usize;

    #[inline(always)]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        let end = self.at + data.len();
        let Some(dst) = self.buf.get_mut(self.at..end) else {
            return Err(postcard::Error::SerializeBufferFull);
        };
        // A varint's length varies: in each arm it is a constant, so the copy is a store
        // rather than a `memmove` call per value.
        match data.len() {
            1 => dst.copy_from_slice(data),
            2 => dst.copy_from_slice(data),
            3 => dst.copy_from_slice(data),
            4 => dst.copy_from_slice(data),
            5 => dst.copy_from_slice(data),
            8 => dst.copy_from_slice(data),
            _ => dst.copy_from_slice(data),
        }
        self.at = end;
        Ok(())
    }

    #[inline(always)]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        let Some(dst) = self.buf.get_mut(self.at) else {
            return Err(postcard::Error::SerializeBufferFull);
        };
        *dst = data;
        self.at += 1;
        Ok(())
    }

    fn finalize(self) -> postcard::Result<usize> {
        Ok(self.at)
    }
}

/// Appends each of `items` to `out` as postcard, written by `each`, one after another: into
/// zeroed room at `out`'s end sized by `guess` bytes per item, grown and resumed at the
/// first item that did not fit.
pub(crate) fn write_all<T>(
    items: &[T],
    guess: usize,
    out: &mut Vec<u8>,
    each: impl Fn(&T, &mut postcard::Serializer<Cursor<'_>>) -> postcard::Result<()>,
) -> postcard::Result<()> {
    let (mut done, mut slack) = (0, 64usize);
    while done < items.len() {
        let start = out.len();
        let left = items.len() - done;
        let room = left.saturating_mul(guess.max(1)).saturating_add(slack);
        out.resize(start.saturating_add(room), 0);
        let mut ser = postcard::Serializer {
            output: Cursor {
                buf: &mut out[start..],
                at: 0,
            },
        };
        let (mut kept, before) = (0, done);
        for item in &items[done..] {
            match each(item, &mut ser) {
                Ok(()) => {
                    kept = ser.output.at;
                    done += 1;
                }
                Err(postcard::Error::SerializeBufferFull) => break,
                Err(err) => {
                    out.truncate(start);
                    return Err(err);
                }
            }
        }
        out.truncate(start + kept);
        if done == before {
            // Not even one item fitted: a large value (one owning a long `Vec`).
            slack = slack.saturating_mul(4);
        }
    }
    Ok(())
}

/// Writes the `count` values of type `T` at `ptr` to `out` as postcard.
///
/// # Safety
///
/// `ptr` points to `count` valid, aligned `T`s with no writer meanwhile.
unsafe fn write_binary_erased<T: Serialize>(
    ptr: *const u8,
    count: usize,
    out: &mut Vec<u8>,
) -> postcard::Result<()> {
    if count == 0 {
        return Ok(());
    }
    // SAFETY: the caller's promise: `count` valid `T`s, unwritten meanwhile.
    let values = unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), count) };
    // Plain numbers take about their size (a varint one byte more at most, rarely).
    write_all(values, size_of::<T>() + 1, out, |value, ser| {
        value.serialize(ser)
    })
}

/// Writes the `count` values of type `T` at `ptr` to `out` as JSON values.
///
/// # Safety
///
/// As for [`write_binary_erased`].
unsafe fn write_json_erased<T: Serialize>(
    ptr: *const u8,
    count: usize,
    out: &mut Vec<Value>,
) -> serde_json::Result<()> {
    if count == 0 {
        return Ok(());
    }
    // SAFETY: the caller's promise: `count` valid `T`s, unwritten meanwhile.
    let values = unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), count) };
    for value in values {
        out.push(serde_json::to_value(value)?);
    }
    Ok(())
}

/// Reads one `T` from `de` and writes it to `dst`.
///
/// # Safety
///
/// `dst` is valid and aligned for writing one `T`, and holds no value (it is overwritten).
unsafe fn read_binary_erased<'de, T: DeserializeOwned>(
    de: &mut postcard::Deserializer<'de, Slice<'de>>,
    dst: *mut u8,
) -> postcard::Result<()> {
    let value = T::deserialize(de)?;
    // SAFETY: the caller's promise: room for one `T` at `dst`.
    unsafe { ptr::write(dst.cast::<T>(), value) };
    Ok(())
}

/// Reads one `T` from the JSON `value` and writes it to `dst`.
///
/// # Safety
///
/// As for [`read_binary_erased`].
unsafe fn read_json_erased<T: DeserializeOwned>(
    value: &Value,
    dst: *mut u8,
) -> serde_json::Result<()> {
    let value = T::deserialize(value)?;
    // SAFETY: as in `read_binary_erased`.
    unsafe { ptr::write(dst.cast::<T>(), value) };
    Ok(())
}

/// Reads one `T` of a postcard stream; see [`read_binary_erased`].
type ReadBinaryFn = for<'a, 'de> unsafe fn(
    &'a mut postcard::Deserializer<'de, Slice<'de>>,
    *mut u8,
) -> postcard::Result<()>;

/// How a save file writes and reads one type's values: type-erased serde calls over the two
/// concrete formats, made where `T` is known (`ComponentOptions::serde`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SerdeFns {
    pub(crate) write_binary: unsafe fn(*const u8, usize, &mut Vec<u8>) -> postcard::Result<()>,
    pub(crate) read_binary: ReadBinaryFn,
    pub(crate) write_json: unsafe fn(*const u8, usize, &mut Vec<Value>) -> serde_json::Result<()>,
    pub(crate) read_json: unsafe fn(&Value, *mut u8) -> serde_json::Result<()>,
}

impl SerdeFns {
    /// `T`'s functions, in a static (a registered type's info stays small).
    pub(crate) fn of<T: Serialize + DeserializeOwned>() -> &'static Self {
        const {
            &Self {
                write_binary: write_binary_erased::<T>,
                read_binary: read_binary_erased::<T>,
                write_json: write_json_erased::<T>,
                read_json: read_json_erased::<T>,
            }
        }
    }
}

/// Where a file is being written: the binary form appends to a byte buffer, the text form
/// collects a JSON object.
#[derive(Debug)]
pub struct SaveWriter<'a> {
    out: Out<'a>,
}

#[derive(Debug)]
enum Out<'a> {
    Binary(&'a mut Vec<u8>),
    Json(serde_json::Map<String, Value>),
}

impl<'a> SaveWriter<'a> {
    /// A binary file appended to `out`; the header is written at once.
    pub fn binary(out: &'a mut Vec<u8>) -> Self {
        out.extend_from_slice(SAVE_FILE_MAGIC);
        out.extend_from_slice(&SAVE_FILE_VERSION.to_le_bytes());
        Self {
            out: Out::Binary(out),
        }
    }

    /// A JSON text; [`SaveWriter::into_json`] gives it.
    pub fn json() -> Self {
        let mut map = serde_json::Map::new();
        let magic = std::str::from_utf8(SAVE_FILE_MAGIC).unwrap_or_default();
        map.insert("magic".into(), Value::from(magic));
        map.insert("version".into(), Value::from(SAVE_FILE_VERSION));
        Self {
            out: Out::Json(map),
        }
    }

    /// Whether this is the binary form.
    pub fn is_binary(&self) -> bool {
        matches!(self.out, Out::Binary(_))
    }

    /// The binary form's buffer, for a section written by hand: a column's values go
    /// straight into the file. `None` for the text form.
    pub(crate) fn binary_out(&mut self) -> Option<&mut Vec<u8>> {
        match &mut self.out {
            Out::Binary(out) => Some(out),
            Out::Json(_) => None,
        }
    }

    /// Writes section `name`.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::Value`] (naming the section) when `value`'s serde impl fails.
    pub fn section<T: Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), SaveFileError> {
        let failed = |detail: String| SaveFileError::Value {
            component: name,
            section: name,
            detail: detail.into(),
        };
        match &mut self.out {
            Out::Binary(out) => append(value, out).map_err(|err| failed(err.to_string())),
            Out::Json(map) => {
                let value = serde_json::to_value(value).map_err(|err| failed(err.to_string()))?;
                map.insert(name.into(), value);
                Ok(())
            }
        }
    }

    /// The JSON text, pretty-printed (keys in sorted order); `""` for the binary form.
    pub fn into_json(self) -> String {
        match self.out {
            Out::Json(map) => serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default(),
            Out::Binary(_) => String::new(),
        }
    }
}

/// Where a file is being read from; see [`SaveWriter`].
#[derive(Debug)]
pub struct SaveReader<'a> {
    input: In<'a>,
}

#[derive(Debug)]
enum In<'a> {
    Binary { bytes: &'a [u8], at: usize },
    Json(serde_json::Map<String, Value>),
}

impl<'a> SaveReader<'a> {
    /// Reads a binary file's header.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::BadMagic`], [`SaveFileError::UnsupportedVersion`] or
    /// [`SaveFileError::Truncated`] (section `header`).
    pub fn binary(bytes: &'a [u8]) -> Result<Self, SaveFileError> {
        let magic = SAVE_FILE_MAGIC.len();
        if bytes.len() < magic {
            return Err(if SAVE_FILE_MAGIC.starts_with(bytes) {
                SaveFileError::Truncated {
                    section: "header",
                    offset: 0,
                }
            } else {
                SaveFileError::BadMagic
            });
        }
        if &bytes[..magic] != SAVE_FILE_MAGIC {
            return Err(SaveFileError::BadMagic);
        }
        let Some(&[lo, hi]) = bytes.get(magic..magic + 2) else {
            return Err(SaveFileError::Truncated {
                section: "header",
                offset: 0,
            });
        };
        check_version(u16::from_le_bytes([lo, hi]))?;
        Ok(Self {
            input: In::Binary {
                bytes,
                at: magic + 2,
            },
        })
    }

    /// Parses a JSON text and reads its header.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::Malformed`] (section `header`, with serde_json's line and column)
    /// for text that is no JSON object, then as for [`SaveReader::binary`].
    pub fn json(text: &str) -> Result<Self, SaveFileError> {
        let malformed = |detail: String| SaveFileError::Malformed {
            section: "header",
            offset: 0,
            detail: detail.into(),
        };
        let value: Value = serde_json::from_str(text).map_err(|err| {
            if err.is_eof() {
                SaveFileError::Truncated {
                    section: "header",
                    offset: 0,
                }
            } else {
                malformed(err.to_string())
            }
        })?;
        let Value::Object(mut map) = value else {
            return Err(malformed("the text is no JSON object".into()));
        };
        let magic = std::str::from_utf8(SAVE_FILE_MAGIC).unwrap_or_default();
        if map.remove("magic").as_ref().and_then(Value::as_str) != Some(magic) {
            return Err(SaveFileError::BadMagic);
        }
        let version = map.remove("version").as_ref().and_then(Value::as_u64);
        let version = version.and_then(|it| u16::try_from(it).ok());
        check_version(version.ok_or_else(|| malformed("`version` is no u16".into()))?)?;
        Ok(Self {
            input: In::Json(map),
        })
    }

    /// Whether this is the binary form.
    pub fn is_binary(&self) -> bool {
        matches!(self.input, In::Binary { .. })
    }

    /// Reads section `name`, the next one of a binary file.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::Truncated`] or [`SaveFileError::Malformed`] naming the section.
    pub fn section<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<T, SaveFileError> {
        match &mut self.input {
            In::Binary { .. } => self.binary_section(name, |de| Ok(T::deserialize(de)?)),
            In::Json(map) => {
                let Some(value) = map.remove(name) else {
                    return Err(SaveFileError::Truncated {
                        section: name,
                        offset: 0,
                    });
                };
                T::deserialize(value).map_err(|err| SaveFileError::Malformed {
                    section: name,
                    offset: 0,
                    detail: err.to_string().into(),
                })
            }
        }
    }

    /// Reads section `name` of a binary file by hand with `read`, from where the last section
    /// ended (the text form has no such sections: an error there).
    pub(crate) fn binary_section<T>(
        &mut self,
        name: &'static str,
        read: impl FnOnce(&mut postcard::Deserializer<'a, Slice<'a>>) -> Result<T, ReadError>,
    ) -> Result<T, SaveFileError> {
        let In::Binary { bytes, at } = &mut self.input else {
            return Err(SaveFileError::Malformed {
                section: name,
                offset: 0,
                detail: "a JSON text has no binary sections".into(),
            });
        };
        let (bytes, offset) = (*bytes, *at);
        let mut de = postcard::Deserializer::from_bytes(bytes.get(offset..).unwrap_or_default());
        let value = match read(&mut de) {
            Ok(value) => value,
            Err(ReadError::Postcard(err)) => return Err(postcard_error(&err, name, offset)),
            Err(ReadError::File(err)) => return Err(err),
        };
        let rest = de
            .finalize()
            .map_err(|err| postcard_error(&err, name, offset))?;
        *at = bytes.len() - rest.len();
        Ok(value)
    }

    /// Checks that nothing follows the last section.
    ///
    /// # Errors
    ///
    /// [`SaveFileError::Trailing`].
    pub fn finish(self) -> Result<(), SaveFileError> {
        match self.input {
            In::Binary { bytes, at } if at < bytes.len() => Err(SaveFileError::Trailing {
                offset: at,
                key: "".into(),
            }),
            In::Json(map) => match map.keys().next() {
                Some(key) => Err(SaveFileError::Trailing {
                    offset: 0,
                    key: key.as_str().into(),
                }),
                None => Ok(()),
            },
            In::Binary { .. } => Ok(()),
        }
    }
}

fn check_version(found: u16) -> Result<(), SaveFileError> {
    // Version 0 was never written.
    if found == 0 || found > SAVE_FILE_VERSION {
        return Err(SaveFileError::UnsupportedVersion {
            found,
            supported: SAVE_FILE_VERSION,
        });
    }
    Ok(())
}
