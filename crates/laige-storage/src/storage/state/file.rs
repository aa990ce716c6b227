//! A [`StorageState`] written to a save file and read back (feature `serde`).
//!
//! The storage's sections, in file order: `types` (every registered type's name, storage,
//! layout and flags, matched against the reading world's registry), `entities` (the slot
//! table, the free list, the live count and the storage's change tick), `tables` (per table
//! its component ids, entities and columns, with change ticks), `resources`, `snapshots` and
//! `sparse`. Reading checks every invariant a restore relies on (each entity's slot points at
//! its row, lengths agree, ids are of the right kind) before it hands out a state, so a
//! damaged file is an error and never a broken world.

use std::collections::BTreeSet;

use laige_registry::{ComponentId, ComponentSet};
use postcard::de_flavors::Slice;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{SavedType, SparseState, StorageState, TableState};
use crate::column::{Column, ComponentTicks};
use crate::component::{ComponentInfo, Components};
use crate::entity::Slot;
use crate::file::{self, ReadError, SaveFileError, SaveReader, SaveWriter, SerdeFns};
use crate::{Entity, Storage};

/// Where a type's values live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum StorageKind {
    Table,
    Sparse,
    Resource,
}

impl StorageKind {
    fn of(info: &ComponentInfo) -> Self {
        if info.is_resource() {
            Self::Resource
        } else if info.is_sparse() {
            Self::Sparse
        } else {
            Self::Table
        }
    }
}

/// One registered type, as a file names it.
#[derive(Debug, Serialize, Deserialize)]
struct TypeDoc {
    name: String,
    storage: StorageKind,
    size: u64,
    align: u64,
    tracked: bool,
    versioned: bool,
}

/// One entity slot: its generation, and its table and row (`None` when free).
#[derive(Debug, Serialize, Deserialize)]
struct SlotDoc {
    generation: u32,
    table: Option<u32>,
    row: u32,
}

#[derive(Debug, Serialize, Deserialize)]
struct EntitiesDoc {
    live: u32,
    change_tick: u64,
    slots: Vec<SlotDoc>,
    free: Vec<u32>,
}

/// An entity handle: `(index, generation)`.
type EntityDoc = (u32, u32);

#[derive(Debug, Serialize, Deserialize)]
struct TicksDoc {
    added: Vec<u64>,
    changed: Vec<u64>,
    /// The ticks of the row last swap-removed (`added`, `changed`).
    removed: (u64, u64),
}

/// A column in the JSON form: one value per row, then its change ticks when tracked.
#[derive(Debug, Serialize, Deserialize)]
struct ColumnDoc {
    values: Vec<Value>,
    ticks: Option<TicksDoc>,
}

#[derive(Debug, Serialize, Deserialize)]
struct TableDoc {
    components: Vec<u16>,
    entities: Vec<EntityDoc>,
    columns: Vec<ColumnDoc>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ResourceDoc {
    component: u16,
    /// `None` when the world held no value.
    value: Option<Value>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SnapshotDoc {
    component: u16,
    entities: Vec<EntityDoc>,
    values: Vec<Value>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SparseDoc {
    component: u16,
    entities: Vec<EntityDoc>,
    index: Vec<u32>,
    column: ColumnDoc,
}

/// The error of writing the binary form's framing (counts, ids, entities, ticks): postcard
/// writes them to a buffer that grows, so it does not fail; named should it ever.
fn framing(section: &'static str) -> impl Fn(postcard::Error) -> SaveFileError + Copy {
    move |err| SaveFileError::Value {
        component: "(the file's framing)",
        section,
        detail: err.to_string().into(),
    }
}

fn inconsistent(section: &'static str, detail: String) -> SaveFileError {
    SaveFileError::Inconsistent {
        section,
        detail: detail.into(),
    }
}

fn entity_doc(entity: Entity) -> EntityDoc {
    (entity.index(), entity.generation())
}

/// The serde functions of every registered type, by id, or the first type without them.
fn serde_fns(components: &Components) -> Result<Vec<&'static SerdeFns>, SaveFileError> {
    components
        .iter()
        .map(|info| {
            components
                .serde_fns(info.id())
                .ok_or(SaveFileError::NotSerde {
                    component: info.name(),
                    resource: info.is_resource(),
                })
        })
        .collect()
}

/// A column's change ticks as written, when it is tracked.
fn ticks_doc(column: &Column) -> Option<TicksDoc> {
    column.ticks().map(|ticks| {
        // SAFETY: in bounds; a state's ticks are written only under `&mut StorageState`.
        let rows = || (0..ticks.len()).map(|row| unsafe { ticks.row(row) });
        TicksDoc {
            added: rows().map(|it| it.added).collect(),
            changed: rows().map(|it| it.changed).collect(),
            removed: (ticks.removed().added, ticks.removed().changed),
        }
    })
}

/// Where a column's values are written: straight into a binary file, or as JSON values.
enum Sink<'a> {
    Binary(&'a mut Vec<u8>),
    Json(Vec<Value>),
}

/// Writes `column`'s values (of `info`'s type, with `fns`) to `sink`.
///
/// # Safety
///
/// `column` stores `info`'s type and nothing writes it meanwhile.
unsafe fn encode(
    column: &Column,
    info: &ComponentInfo,
    fns: &SerdeFns,
    sink: &mut Sink<'_>,
    section: &'static str,
) -> Result<(), SaveFileError> {
    let failed = |detail: String| SaveFileError::Value {
        component: info.name(),
        section,
        detail: detail.into(),
    };
    let ptr = column.data().as_ptr().cast_const();
    match sink {
        // SAFETY: `len` valid values of the type `fns` is for (the caller's promise).
        Sink::Binary(out) => unsafe { (fns.write_binary)(ptr, column.len(), out) }
            .map_err(|err| failed(err.to_string())),
        // SAFETY: as above.
        Sink::Json(values) => unsafe { (fns.write_json)(ptr, column.len(), values) }
            .map_err(|err| failed(err.to_string())),
    }
}

/// The JSON values of `column` (see [`encode`]).
///
/// # Safety
///
/// As for [`encode`].
unsafe fn json_values(
    column: &Column,
    info: &ComponentInfo,
    fns: &SerdeFns,
    section: &'static str,
) -> Result<Vec<Value>, SaveFileError> {
    let mut sink = Sink::Json(Vec::with_capacity(column.len()));
    // SAFETY: forwarded from the caller.
    unsafe { encode(column, info, fns, &mut sink, section) }?;
    match sink {
        Sink::Json(values) => Ok(values),
        Sink::Binary(_) => Ok(Vec::new()),
    }
}

/// Where a column's values are read from: the binary file's stream, or JSON values.
enum Source<'s, 'de> {
    Binary(&'s mut postcard::Deserializer<'de, Slice<'de>>),
    Json(&'s [Value]),
}

/// Reads `rows` values of `info`'s type from `source` (and their ticks, for a tracked table
/// column) into a new column. A JSON list of another length is an error.
fn decode(
    source: Source<'_, '_>,
    ticks: Option<&TicksDoc>,
    info: &ComponentInfo,
    fns: &SerdeFns,
    rows: usize,
    with_ticks: bool,
    section: &'static str,
) -> Result<Column, ReadError> {
    let failed = |row: usize, detail: String| SaveFileError::Value {
        component: info.name(),
        section,
        detail: format!("row {row}: {detail}").into(),
    };
    let mut column = if with_ticks {
        Column::for_table(info)
    } else {
        Column::new(info)
    };
    let tracked = with_ticks && info.is_tracked();
    match (ticks, tracked) {
        (Some(ticks), true) if ticks.added.len() == rows && ticks.changed.len() == rows => {}
        (None, false) => {}
        _ => {
            return Err(inconsistent(
                section,
                format!(
                    "the column of `{}` has change ticks that do not match its {rows} rows and \
                     its registration (tracked: {tracked})",
                    info.name()
                ),
            )
            .into());
        }
    }
    let ticks_at = |row: usize| match ticks {
        Some(ticks) => ComponentTicks {
            added: ticks.added[row],
            changed: ticks.changed[row],
        },
        None => ComponentTicks::new(0),
    };
    if let Source::Json(values) = &source
        && values.len() != rows
    {
        return Err(inconsistent(
            section,
            format!(
                "the column of `{}` has {} values for {rows} rows",
                info.name(),
                values.len()
            ),
        )
        .into());
    }
    // Room for the rows the file claims, up to what its bytes can hold: a value takes at
    // least one byte (or is zero-sized, and then its column allocates nothing).
    let claimed = match &source {
        Source::Binary(_) => rows.min(1 << 16),
        Source::Json(values) => values.len(),
    };
    column.reserve_total(claimed);
    let mut source = source;
    for row in 0..rows {
        column.reserve_total(column.len() + 1);
        let dst = column.ptr_at(column.len());
        // The column stores `info`'s type, the one `fns` is for, and has room at its end;
        // the value written there becomes its last row at once.
        match &mut source {
            Source::Binary(de) => {
                // SAFETY: see above.
                match unsafe { (fns.read_binary)(de, dst) } {
                    Ok(()) => {}
                    // The end of the input is the file's, not the value's: a cut file.
                    Err(postcard::Error::DeserializeUnexpectedEnd) => {
                        return Err(postcard::Error::DeserializeUnexpectedEnd.into());
                    }
                    Err(err) => return Err(failed(row, err.to_string()).into()),
                }
            }
            Source::Json(values) => {
                // SAFETY: see above; `row < rows == values.len()` (checked above).
                unsafe { (fns.read_json)(&values[row], dst) }
                    .map_err(|err| failed(row, err.to_string()))?;
            }
        }
        // SAFETY: a valid value was just written at row `len`, inside the capacity.
        unsafe { column.push_written(ticks_at(row)) };
    }
    if let (Some(live), Some(doc)) = (column.ticks_mut(), ticks) {
        live.set_removed(ComponentTicks {
            added: doc.removed.0,
            changed: doc.removed.1,
        });
    }
    Ok(column)
}

/// Writes `entities` as a postcard list of `(index, generation)`.
fn write_entities(entities: &[Entity], out: &mut Vec<u8>) -> postcard::Result<()> {
    file::append(&entities.len(), out)?;
    // An index and a generation: two varints, at most 10 bytes, mostly 2 to 4.
    file::write_all(entities, 4, out, |it, ser| entity_doc(*it).serialize(ser))
}

impl StorageState {
    /// Writes the state's sections to `out`, through the serde functions `storage`'s
    /// registry holds (the state must have been saved from a storage with that registry).
    ///
    /// # Errors
    ///
    /// [`SaveFileError::Empty`], [`SaveFileError::OtherWorld`], [`SaveFileError::NotSerde`]
    /// naming the first type (by id) without serde registration, or
    /// [`SaveFileError::Value`] when a value's `Serialize` fails.
    pub fn write_file(
        &self,
        storage: &Storage,
        out: &mut SaveWriter<'_>,
    ) -> Result<(), SaveFileError> {
        let components = storage.components();
        if !self.saved {
            return Err(SaveFileError::Empty);
        }
        if let Err(super::StorageStateError::ComponentsDiffer { id, state, world }) =
            storage.check_state(self)
        {
            return Err(SaveFileError::OtherWorld {
                kind: "component",
                id: u32::from(id),
                state,
                world,
            });
        }
        let fns = serde_fns(components)?;
        let types: Vec<TypeDoc> = components
            .iter()
            .map(|info| TypeDoc {
                name: info.name().to_owned(),
                storage: StorageKind::of(info),
                size: info.size() as u64,
                align: info.align() as u64,
                tracked: info.is_tracked(),
                versioned: info.is_versioned(),
            })
            .collect();
        out.section("types", &types)?;
        match out.binary_out() {
            // By hand, in the layout of `EntitiesDoc` (which the reader reads): the slot
            // table is as long as the world has ever had entities.
            Some(bytes) => {
                let framing = framing("entities");
                file::append(&(self.live, self.change_tick, self.slots.len()), bytes)
                    .map_err(framing)?;
                file::write_all(&self.slots, 6, bytes, |slot, ser| {
                    let (generation, table, row) = slot.parts();
                    (generation, table, row).serialize(ser)
                })
                .map_err(framing)?;
                file::append(&self.free, bytes).map_err(framing)?;
            }
            None => {
                let entities = EntitiesDoc {
                    live: self.live,
                    change_tick: self.change_tick,
                    slots: self
                        .slots
                        .iter()
                        .map(|slot| {
                            let (generation, table, row) = slot.parts();
                            SlotDoc {
                                generation,
                                table,
                                row,
                            }
                        })
                        .collect(),
                    free: self.free.clone(),
                };
                out.section("entities", &entities)?;
            }
        }
        match out.binary_out() {
            Some(bytes) => self.write_binary(components, &fns, bytes),
            None => self.write_json(components, &fns, out),
        }
    }

    /// The value sections of the binary form, by hand (see the module's docs).
    fn write_binary(
        &self,
        components: &Components,
        fns: &[&'static SerdeFns],
        out: &mut Vec<u8>,
    ) -> Result<(), SaveFileError> {
        let framing = framing("tables");
        // The column of `id`: the state's own, of `id`'s type (same registry, checked by the
        // caller), which nothing writes while `&self` is borrowed.
        let values = |id: ComponentId, column: &Column, out: &mut Vec<u8>, section| {
            let info = components.get(id);
            // SAFETY: see above.
            unsafe {
                encode(
                    column,
                    info,
                    fns[id.index()],
                    &mut Sink::Binary(out),
                    section,
                )
            }
        };
        let section = "tables";
        file::append(&self.tables.len(), out).map_err(framing)?;
        for table in &self.tables {
            let ids: Vec<u16> = table.signature.iter().map(ComponentId::get).collect();
            file::append(&ids, out).map_err(framing)?;
            write_entities(&table.entities, out).map_err(framing)?;
            for (id, column) in table.signature.iter().zip(&table.columns) {
                file::append(&ticks_doc(column), out).map_err(framing)?;
                values(id, column, out, section)?;
            }
        }
        let section = "resources";
        file::append(&self.resources.len(), out).map_err(framing)?;
        for (id, column) in &self.resources {
            file::append(&(id.get(), column.len() > 0), out).map_err(framing)?;
            values(*id, column, out, section)?;
        }
        let section = "snapshots";
        file::append(&self.snapshots.len(), out).map_err(framing)?;
        for (id, entities, column) in &self.snapshots {
            file::append(&id.get(), out).map_err(framing)?;
            write_entities(entities, out).map_err(framing)?;
            values(*id, column, out, section)?;
        }
        let section = "sparse";
        file::append(&self.sparse.len(), out).map_err(framing)?;
        for set in &self.sparse {
            file::append(&set.id.get(), out).map_err(framing)?;
            write_entities(&set.entities, out).map_err(framing)?;
            file::append(&set.index, out).map_err(framing)?;
            file::append(&ticks_doc(&set.values), out).map_err(framing)?;
            values(set.id, &set.values, out, section)?;
        }
        Ok(())
    }

    /// The value sections of the JSON form, as documents.
    fn write_json(
        &self,
        components: &Components,
        fns: &[&'static SerdeFns],
        out: &mut SaveWriter<'_>,
    ) -> Result<(), SaveFileError> {
        // As in `write_binary`: the state's own columns, of their ids' types.
        let values = |id: ComponentId, column: &Column, section| {
            // SAFETY: see above.
            unsafe { json_values(column, components.get(id), fns[id.index()], section) }
        };
        let entity_docs = |entities: &[Entity]| entities.iter().copied().map(entity_doc).collect();
        let tables = self
            .tables
            .iter()
            .map(|table| {
                let columns = table.signature.iter().zip(&table.columns);
                Ok(TableDoc {
                    components: table.signature.iter().map(ComponentId::get).collect(),
                    entities: entity_docs(&table.entities),
                    columns: columns
                        .map(|(id, column)| {
                            Ok(ColumnDoc {
                                values: values(id, column, "tables")?,
                                ticks: ticks_doc(column),
                            })
                        })
                        .collect::<Result<_, SaveFileError>>()?,
                })
            })
            .collect::<Result<Vec<_>, SaveFileError>>()?;
        out.section("tables", &tables)?;
        let resources = self
            .resources
            .iter()
            .map(|(id, column)| {
                Ok(ResourceDoc {
                    component: id.get(),
                    value: values(*id, column, "resources")?.pop(),
                })
            })
            .collect::<Result<Vec<_>, SaveFileError>>()?;
        out.section("resources", &resources)?;
        let snapshots = self
            .snapshots
            .iter()
            .map(|(id, entities, column)| {
                Ok(SnapshotDoc {
                    component: id.get(),
                    entities: entity_docs(entities),
                    values: values(*id, column, "snapshots")?,
                })
            })
            .collect::<Result<Vec<_>, SaveFileError>>()?;
        out.section("snapshots", &snapshots)?;
        let sparse = self
            .sparse
            .iter()
            .map(|set| {
                Ok(SparseDoc {
                    component: set.id.get(),
                    entities: entity_docs(&set.entities),
                    index: set.index.clone(),
                    column: ColumnDoc {
                        values: values(set.id, &set.values, "sparse")?,
                        ticks: ticks_doc(&set.values),
                    },
                })
            })
            .collect::<Result<Vec<_>, SaveFileError>>()?;
        out.section("sparse", &sparse)
    }

    /// Reads the storage's sections from `input` into a new state for `storage`'s registry,
    /// checking everything a restore relies on. `storage` is only read; the state can then
    /// be restored into it (or any storage of the same registry).
    ///
    /// # Errors
    ///
    /// Every [`SaveFileError`] of reading: the sections' parse errors, a registry that
    /// differs ([`SaveFileError::TypesDiffer`], [`SaveFileError::TypeDiffers`]), a type
    /// without serde registration, a value that does not deserialize, and an inconsistent
    /// file ([`SaveFileError::Inconsistent`]).
    pub fn read_file(storage: &Storage, input: &mut SaveReader<'_>) -> Result<Self, SaveFileError> {
        let components = storage.components();
        let types: Vec<TypeDoc> = input.section("types")?;
        match_types(&types, components)?;
        let fns = serde_fns(components)?;
        let entities: EntitiesDoc = input.section("entities")?;
        let mut state = Self {
            types: components
                .iter()
                .map(|info| SavedType {
                    type_id: info.type_id(),
                    name: info.name(),
                })
                .collect(),
            saved: true,
            ..Self::default()
        };
        state.read_entities(&entities, storage.entities().max())?;
        if input.is_binary() {
            state.read_binary(input, components, &fns)?;
        } else {
            state.read_json(input, components, &fns)?;
        }
        Ok(state)
    }

    /// The value sections of the binary form (see the module's docs).
    fn read_binary(
        &mut self,
        input: &mut SaveReader<'_>,
        components: &Components,
        fns: &[&'static SerdeFns],
    ) -> Result<(), SaveFileError> {
        input.binary_section("tables", |de| {
            let mut seen = BTreeSet::new();
            for at in 0..usize::deserialize(&mut *de)? {
                let ids = Vec::<u16>::deserialize(&mut *de)?;
                let entities = Vec::<EntityDoc>::deserialize(&mut *de)?;
                self.read_table(
                    at,
                    &ids,
                    &entities,
                    &mut seen,
                    components,
                    fns,
                    |info, fns, rows| {
                        let ticks = Option::<TicksDoc>::deserialize(&mut *de)?;
                        let source = Source::Binary(&mut *de);
                        decode(source, ticks.as_ref(), info, fns, rows, true, "tables")
                    },
                )?;
            }
            Ok(())
        })?;
        self.check_rows()?;
        input.binary_section("resources", |de| {
            let mut last = 0;
            for _ in 0..usize::deserialize(&mut *de)? {
                let (id, held) = <(u16, bool)>::deserialize(&mut *de)?;
                self.read_resource(&mut last, id, components, |info| {
                    let (source, rows) = (Source::Binary(&mut *de), usize::from(held));
                    let fns = fns[info.id().index()];
                    decode(source, None, info, fns, rows, false, "resources")
                })?;
            }
            Ok(())
        })?;
        input.binary_section("snapshots", |de| {
            let mut last = 0;
            for _ in 0..usize::deserialize(&mut *de)? {
                let id = u16::deserialize(&mut *de)?;
                let entities = Vec::<EntityDoc>::deserialize(&mut *de)?;
                self.read_snapshot(&mut last, id, &entities, components, |info, rows| {
                    let (source, fns) = (Source::Binary(&mut *de), fns[info.id().index()]);
                    decode(source, None, info, fns, rows, false, "snapshots")
                })?;
            }
            Ok(())
        })?;
        input.binary_section("sparse", |de| {
            let mut last = 0;
            for _ in 0..usize::deserialize(&mut *de)? {
                let id = u16::deserialize(&mut *de)?;
                let entities = Vec::<EntityDoc>::deserialize(&mut *de)?;
                let index = Vec::<u32>::deserialize(&mut *de)?;
                self.read_sparse_set(&mut last, id, &entities, index, components, |info, rows| {
                    let ticks = Option::<TicksDoc>::deserialize(&mut *de)?;
                    let (source, fns) = (Source::Binary(&mut *de), fns[info.id().index()]);
                    decode(source, ticks.as_ref(), info, fns, rows, true, "sparse")
                })?;
            }
            Ok(())
        })
    }

    /// The value sections of the JSON form, as documents.
    fn read_json(
        &mut self,
        input: &mut SaveReader<'_>,
        components: &Components,
        fns: &[&'static SerdeFns],
    ) -> Result<(), SaveFileError> {
        let tables: Vec<TableDoc> = input.section("tables")?;
        let mut seen = BTreeSet::new();
        for (at, doc) in tables.iter().enumerate() {
            if doc.columns.len() != doc.components.len() {
                return Err(inconsistent(
                    "tables",
                    format!(
                        "table {at} has {} columns for {} components",
                        doc.columns.len(),
                        doc.components.len()
                    ),
                ));
            }
            let mut columns = doc.columns.iter();
            let (ids, entities) = (&doc.components, &doc.entities);
            self.read_table(
                at,
                ids,
                entities,
                &mut seen,
                components,
                fns,
                |info, fns, rows| {
                    // As many columns as ids, checked above.
                    let column = columns.next().ok_or(SaveFileError::Empty)?;
                    let source = Source::Json(&column.values);
                    decode(
                        source,
                        column.ticks.as_ref(),
                        info,
                        fns,
                        rows,
                        true,
                        "tables",
                    )
                },
            )
            .map_err(json_error("tables"))?;
        }
        self.check_rows()?;
        let resources: Vec<ResourceDoc> = input.section("resources")?;
        let mut last = 0;
        for doc in &resources {
            self.read_resource(&mut last, doc.component, components, |info| {
                let values = doc.value.as_slice();
                let (source, fns) = (Source::Json(values), fns[info.id().index()]);
                decode(source, None, info, fns, values.len(), false, "resources")
            })
            .map_err(json_error("resources"))?;
        }
        let snapshots: Vec<SnapshotDoc> = input.section("snapshots")?;
        let mut last = 0;
        for doc in &snapshots {
            self.read_snapshot(
                &mut last,
                doc.component,
                &doc.entities,
                components,
                |info, rows| {
                    let (source, fns) = (Source::Json(&doc.values), fns[info.id().index()]);
                    decode(source, None, info, fns, rows, false, "snapshots")
                },
            )
            .map_err(json_error("snapshots"))?;
        }
        let sparse: Vec<SparseDoc> = input.section("sparse")?;
        let mut last = 0;
        for doc in sparse {
            let (column, entities) = (&doc.column, &doc.entities);
            self.read_sparse_set(
                &mut last,
                doc.component,
                entities,
                doc.index,
                components,
                |info, rows| {
                    let (source, fns) = (Source::Json(&column.values), fns[info.id().index()]);
                    decode(
                        source,
                        column.ticks.as_ref(),
                        info,
                        fns,
                        rows,
                        true,
                        "sparse",
                    )
                },
            )
            .map_err(json_error("sparse"))?;
        }
        Ok(())
    }

    fn read_entities(&mut self, doc: &EntitiesDoc, max: u32) -> Result<(), SaveFileError> {
        const SECTION: &str = "entities";
        if doc.slots.len() >= u32::MAX as usize {
            return Err(inconsistent(SECTION, "more than 2^32 - 1 slots".into()));
        }
        self.slots.reserve(doc.slots.len());
        for (index, slot) in doc.slots.iter().enumerate() {
            let parts = Slot::from_parts(slot.generation, slot.table, slot.row);
            let slot = parts.ok_or_else(|| {
                inconsistent(
                    SECTION,
                    format!("slot {index} has generation 0 or table 2^32 - 1"),
                )
            })?;
            self.slots.push(slot);
        }
        let mut free = vec![false; doc.slots.len()];
        for &index in &doc.free {
            match self.slots.get(index as usize).map(|slot| slot.parts().1) {
                Some(None) if !free[index as usize] => free[index as usize] = true,
                Some(None) => {
                    return Err(inconsistent(
                        SECTION,
                        format!("slot {index} is freed twice"),
                    ));
                }
                Some(Some(_)) => {
                    return Err(inconsistent(
                        SECTION,
                        format!("slot {index} is on the free list but live"),
                    ));
                }
                None => {
                    return Err(inconsistent(
                        SECTION,
                        format!("the free list names slot {index}, past the slot table"),
                    ));
                }
            }
        }
        self.free.clone_from(&doc.free);
        let live = self
            .slots
            .iter()
            .filter(|slot| slot.parts().1.is_some())
            .count();
        if live != doc.live as usize || doc.live > max {
            return Err(inconsistent(
                SECTION,
                format!(
                    "the live count {} is not the {live} live slots, or passes the world's \
                     limit {max}",
                    doc.live
                ),
            ));
        }
        self.live = doc.live;
        self.change_tick = doc.change_tick;
        Ok(())
    }

    /// Table `at` of the file, its columns read by `column` in component order.
    #[allow(clippy::too_many_arguments)]
    fn read_table(
        &mut self,
        at: usize,
        ids: &[u16],
        entities: &[EntityDoc],
        seen: &mut BTreeSet<[u64; 4]>,
        components: &Components,
        fns: &[&'static SerdeFns],
        mut column: impl FnMut(&ComponentInfo, &'static SerdeFns, usize) -> Result<Column, ReadError>,
    ) -> Result<(), ReadError> {
        const SECTION: &str = "tables";
        if at != self.tables.len() {
            return Err(inconsistent(SECTION, "tables out of order".into()).into());
        }
        let signature = component_set(ids, components, SECTION, |info| {
            StorageKind::of(info) == StorageKind::Table
        })?;
        if (at == 0) != signature.is_empty() {
            return Err(inconsistent(
                SECTION,
                format!("table {at}: only table 0 holds no components, and it must"),
            )
            .into());
        }
        if !seen.insert(signature.to_words()) {
            return Err(inconsistent(
                SECTION,
                format!("table {at} has the components of an earlier table"),
            )
            .into());
        }
        let entities = handles(entities, SECTION)?;
        let rows = entities.len();
        let columns = signature
            .iter()
            .map(|id| column(components.get(id), fns[id.index()], rows))
            .collect::<Result<_, _>>()?;
        self.tables.push(TableState {
            signature,
            entities,
            columns,
        });
        Ok(())
    }

    /// Checks that every table row's entity is live in the slot table and located at that
    /// row, and that the tables hold as many rows as entities are live: then slots and rows
    /// match one to one.
    fn check_rows(&self) -> Result<(), SaveFileError> {
        if self.tables.is_empty() {
            return Err(inconsistent("tables", "there is no table 0".into()));
        }
        let mut rows = 0usize;
        for (table, saved) in self.tables.iter().enumerate() {
            for (row, entity) in saved.entities.iter().enumerate() {
                let slot = self.slots.get(entity.index() as usize).map(|it| it.parts());
                if slot != Some((entity.generation(), Some(table as u32), row as u32)) {
                    return Err(inconsistent(
                        "tables",
                        format!(
                            "entity {entity} at table {table} row {row} is not live there in \
                             the slot table"
                        ),
                    ));
                }
            }
            rows += saved.entities.len();
        }
        if rows != self.live as usize {
            return Err(inconsistent(
                "tables",
                format!(
                    "the tables hold {rows} rows for {} live entities",
                    self.live
                ),
            ));
        }
        Ok(())
    }

    /// A resource of the file, of id `raw`, its value read by `value`.
    fn read_resource(
        &mut self,
        last: &mut u16,
        raw: u16,
        components: &Components,
        value: impl FnOnce(&ComponentInfo) -> Result<Column, ReadError>,
    ) -> Result<(), ReadError> {
        const SECTION: &str = "resources";
        let id = component_id(raw, components, SECTION, ComponentInfo::is_resource)?;
        ascending(last, raw, SECTION)?;
        let column = value(components.get(id))?;
        if column.len() > 1 {
            return Err(
                inconsistent(SECTION, format!("resource id {raw} has several values")).into(),
            );
        }
        self.resources.push((id, column));
        Ok(())
    }

    /// A snapshot of the file, of id `raw`, its values read by `values`.
    fn read_snapshot(
        &mut self,
        last: &mut u16,
        raw: u16,
        entities: &[EntityDoc],
        components: &Components,
        values: impl FnOnce(&ComponentInfo, usize) -> Result<Column, ReadError>,
    ) -> Result<(), ReadError> {
        const SECTION: &str = "snapshots";
        let id = component_id(raw, components, SECTION, |info| {
            info.is_versioned() && StorageKind::of(info) == StorageKind::Table
        })?;
        ascending(last, raw, SECTION)?;
        let info = components.get(id);
        let entities = handles(entities, SECTION)?;
        // Snapshot reads search by index.
        if entities.windows(2).any(|it| it[0].index() >= it[1].index()) {
            return Err(inconsistent(
                SECTION,
                format!(
                    "the snapshot of `{}` is not in ascending entity index",
                    info.name()
                ),
            )
            .into());
        }
        let values = values(info, entities.len())?;
        self.snapshots.push((id, entities, values));
        Ok(())
    }

    /// A sparse set of the file, of id `raw`, its values read by `values`. Its entities must
    /// be live (the slot table is read first), and its index must find each of them and
    /// nothing else.
    fn read_sparse_set(
        &mut self,
        last: &mut u16,
        raw: u16,
        entities: &[EntityDoc],
        index: Vec<u32>,
        components: &Components,
        values: impl FnOnce(&ComponentInfo, usize) -> Result<Column, ReadError>,
    ) -> Result<(), ReadError> {
        const SECTION: &str = "sparse";
        const ABSENT: u32 = u32::MAX;
        let id = component_id(raw, components, SECTION, ComponentInfo::is_sparse)?;
        ascending(last, raw, SECTION)?;
        let info = components.get(id);
        let entities = handles(entities, SECTION)?;
        let bad = |detail: String| inconsistent(SECTION, format!("`{}`: {detail}", info.name()));
        if index.len() > self.slots.len() {
            return Err(bad("the index is longer than the slot table".into()).into());
        }
        for (at, entity) in entities.iter().enumerate() {
            let slot = self.slots.get(entity.index() as usize).map(|it| it.parts());
            if !matches!(slot, Some((generation, Some(_), _)) if generation == entity.generation())
            {
                return Err(bad(format!("entity {entity} is not live")).into());
            }
            if index.get(entity.index() as usize) != Some(&(at as u32)) {
                return Err(bad(format!("the index does not find entity {entity}")).into());
            }
        }
        // Every entry is absent or found above: no stale entry can shadow a later insert.
        let found = index.iter().filter(|&&at| at != ABSENT).count();
        if found != entities.len() {
            return Err(bad("the index has entries no entity owns".into()).into());
        }
        let values = values(info, entities.len())?;
        self.sparse.push(SparseState {
            id,
            entities,
            index,
            values,
        });
        Ok(())
    }
}

/// Maps a JSON section's [`ReadError`] (never a postcard one) to its file error.
fn json_error(section: &'static str) -> impl Fn(ReadError) -> SaveFileError {
    move |err| match err {
        ReadError::File(err) => err,
        ReadError::Postcard(err) => SaveFileError::Malformed {
            section,
            offset: 0,
            detail: err.to_string().into(),
        },
    }
}

/// The handles of a section, or the first with generation 0.
fn handles(docs: &[EntityDoc], section: &'static str) -> Result<Vec<Entity>, SaveFileError> {
    docs.iter()
        .map(|&(index, generation)| {
            Entity::from_parts(index, generation)
                .ok_or_else(|| inconsistent(section, format!("entity {index} has generation 0")))
        })
        .collect()
}

/// Component id `raw`, which must name a registered type that `fits`.
fn component_id(
    raw: u16,
    components: &Components,
    section: &'static str,
    fits: impl Fn(&ComponentInfo) -> bool,
) -> Result<ComponentId, SaveFileError> {
    ComponentId::new(raw)
        .and_then(|id| components.info(id))
        .filter(|info| fits(info))
        .map(ComponentInfo::id)
        .ok_or_else(|| {
            inconsistent(
                section,
                format!("component id {raw} is unknown here or of another kind"),
            )
        })
}

/// The set of `ids`, which must be strictly ascending (a table's column order) and fit.
fn component_set(
    ids: &[u16],
    components: &Components,
    section: &'static str,
    fits: impl Fn(&ComponentInfo) -> bool + Copy,
) -> Result<ComponentSet, SaveFileError> {
    let mut set = ComponentSet::EMPTY;
    let mut last = 0;
    for &raw in ids {
        ascending(&mut last, raw, section)?;
        set.insert(component_id(raw, components, section, fits)?);
    }
    Ok(set)
}

/// Checks that `next` comes after `last` and makes it the last.
fn ascending(last: &mut u16, next: u16, section: &'static str) -> Result<(), SaveFileError> {
    if next <= *last {
        return Err(inconsistent(
            section,
            format!("component id {next} is out of ascending order"),
        ));
    }
    *last = next;
    Ok(())
}

/// Checks the file's types against the registry: the same names at the same ids, then the
/// same storage, layout and flags.
fn match_types(types: &[TypeDoc], components: &Components) -> Result<(), SaveFileError> {
    for index in 0..types.len().max(components.len()) {
        let file = types.get(index);
        let live = components.iter().nth(index);
        let (Some(file), Some(live)) = (file, live) else {
            return Err(SaveFileError::TypesDiffer {
                // At most MAX_COMPONENTS ids in a registry; a longer file saturates.
                id: u16::try_from(index + 1).unwrap_or(u16::MAX),
                file: file.map_or("", |it| it.name.as_str()).into(),
                world: live.map_or("", ComponentInfo::name),
            });
        };
        if file.name != live.name() {
            return Err(SaveFileError::TypesDiffer {
                id: live.id().get(),
                file: file.name.as_str().into(),
                world: live.name(),
            });
        }
        let differs = |property, file: String, world: String| {
            Err(SaveFileError::TypeDiffers {
                component: live.name(),
                property,
                file: file.into(),
                world: world.into(),
            })
        };
        let storage = StorageKind::of(live);
        if file.storage != storage {
            return differs(
                "storage",
                format!("{:?}", file.storage),
                format!("{storage:?}"),
            );
        }
        if file.size != live.size() as u64 {
            return differs("size", file.size.to_string(), live.size().to_string());
        }
        if file.align != live.align() as u64 {
            return differs(
                "alignment",
                file.align.to_string(),
                live.align().to_string(),
            );
        }
        if file.tracked != live.is_tracked() {
            let tracked = live.is_tracked();
            return differs("tracked", file.tracked.to_string(), tracked.to_string());
        }
        if file.versioned != live.is_versioned() {
            let versioned = live.is_versioned();
            return differs(
                "versioned",
                file.versioned.to_string(),
                versioned.to_string(),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use crate::file::{SaveReader, SaveWriter};
    use crate::{Component, ComponentOptions, Storage, StorageState};

    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    struct Pos(u64);
    impl Component for Pos {}
    /// Heap-owning.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Name(String);
    impl Component for Name {}
    /// Zero-sized.
    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    struct Flag;
    impl Component for Flag {}

    fn storage() -> Storage {
        let mut s = Storage::new(0, u32::MAX, laige_diag::Diagnostics::default());
        let pos = ComponentOptions::<Pos>::new()
            .saved_copy()
            .serde()
            .tracked();
        s.register_component(pos).unwrap();
        s.register_component(ComponentOptions::<Name>::new().serde().versioned())
            .unwrap();
        s.register_component(ComponentOptions::<Flag>::new().serde().sparse())
            .unwrap();
        s.register_resource::<Vec<u16>>().unwrap();
        s.serde_resource::<Vec<u16>>();
        s
    }

    /// The values the storage holds, by entity, for comparing two storages.
    fn contents(s: &Storage) -> Vec<(crate::Entity, u64, Option<String>, bool)> {
        let (pos, name) = (
            s.component_id::<Pos>().unwrap(),
            s.component_id::<Name>().unwrap(),
        );
        let flag = s.component_id::<Flag>().unwrap();
        s.entities()
            .iter_live()
            .map(|(e, loc)| {
                // SAFETY: a live entity's `Pos` and `Name`; `&s` excludes writers.
                let p = unsafe { *s.value_ptr(loc, pos).unwrap().cast::<Pos>() };
                let n = s.value_ptr(loc, name).map(|ptr| {
                    // SAFETY: as above.
                    unsafe { &*ptr.cast::<Name>() }.0.clone()
                });
                let flagged = s.sparse_sets().get(flag).is_some_and(|set| set.contains(e));
                (e, p.0, n, flagged)
            })
            .collect()
    }

    #[test]
    fn a_state_round_trips_through_both_forms_values_owned_and_zero_sized() {
        let mut s = storage();
        let ids = s
            .spawn_batch((0..5).map(|i| (Pos(i), Name(format!("n{i}")))))
            .unwrap()
            .to_vec();
        s.spawn_batch([(Pos(9),)]).unwrap();
        let location = s.entities().location(ids[1]).unwrap();
        assert!(s.despawn_at(ids[1], location));
        s.insert(ids[2], Flag).unwrap();
        s.put_resource(vec![7u16, 8]).unwrap();
        s.refresh_snapshots();
        let mut state = StorageState::default();
        s.save_state(&mut state).unwrap();
        let before = contents(&s);

        let mut bytes = Vec::new();
        state
            .write_file(&s, &mut SaveWriter::binary(&mut bytes))
            .unwrap();
        let mut json = SaveWriter::json();
        state.write_file(&s, &mut json).unwrap();
        let json = json.into_json();
        for mut input in [
            SaveReader::binary(&bytes).unwrap(),
            SaveReader::json(&json).unwrap(),
        ] {
            let loaded = StorageState::read_file(&s, &mut input).unwrap();
            input.finish().unwrap();
            let mut fresh = storage();
            fresh.restore_state(&loaded).unwrap();
            assert_eq!(contents(&fresh), before);
            assert_eq!(fresh.take_resource::<Vec<u16>>(), Some(vec![7, 8]));
        }
        for cut in 0..bytes.len() {
            let read = SaveReader::binary(&bytes[..cut])
                .and_then(|mut input| StorageState::read_file(&s, &mut input));
            assert!(read.is_err(), "a file cut at byte {cut} is refused");
        }
    }
}
