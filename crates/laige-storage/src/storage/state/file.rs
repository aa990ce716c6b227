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
use serde::{Deserialize, Serialize};

use super::{SavedType, SparseState, StorageState, TableState};
use crate::column::{Column, ComponentTicks};
use crate::component::{ComponentInfo, Components};
use crate::entity::Slot;
use crate::file::{SaveFileError, SaveReader, SaveWriter, SerdeFns, Values};
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

#[derive(Debug, Serialize, Deserialize)]
struct ColumnDoc {
    values: Values,
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
    value: Option<Values>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SnapshotDoc {
    component: u16,
    entities: Vec<EntityDoc>,
    values: Values,
}

#[derive(Debug, Serialize, Deserialize)]
struct SparseDoc {
    component: u16,
    entities: Vec<EntityDoc>,
    index: Vec<u32>,
    column: ColumnDoc,
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

/// Writes `column`'s values (of `info`'s type, with `fns`).
///
/// # Safety
///
/// `column` stores `info`'s type and nothing writes it meanwhile.
unsafe fn encode(
    column: &Column,
    info: &ComponentInfo,
    fns: &SerdeFns,
    binary: bool,
    section: &'static str,
) -> Result<ColumnDoc, SaveFileError> {
    let failed = |detail: String| SaveFileError::Value {
        component: info.name(),
        section,
        detail: detail.into(),
    };
    let ptr = column.data().as_ptr().cast_const();
    let values = if binary {
        let mut bytes = Vec::new();
        // SAFETY: `len` valid values of the type `fns` is for (the caller's promise).
        unsafe { (fns.write_binary)(ptr, column.len(), &mut bytes) }
            .map_err(|err| failed(err.to_string()))?;
        Values::Bytes(bytes)
    } else {
        let mut values = Vec::with_capacity(column.len());
        // SAFETY: as above.
        unsafe { (fns.write_json)(ptr, column.len(), &mut values) }
            .map_err(|err| failed(err.to_string()))?;
        Values::Json(values)
    };
    let ticks = column.ticks().map(|ticks| {
        // SAFETY: in bounds; nothing writes a state's ticks (the caller's promise).
        let rows = || (0..ticks.len()).map(|row| unsafe { ticks.row(row) });
        TicksDoc {
            added: rows().map(|it| it.added).collect(),
            changed: rows().map(|it| it.changed).collect(),
            removed: (ticks.removed().added, ticks.removed().changed),
        }
    });
    Ok(ColumnDoc { values, ticks })
}

/// Reads `rows` values of `info`'s type (and their ticks, for a tracked table column) into
/// a new column. Values past `rows`, or too few, are an error.
fn decode(
    values: &Values,
    ticks: Option<&TicksDoc>,
    info: &ComponentInfo,
    fns: &SerdeFns,
    rows: usize,
    with_ticks: bool,
    section: &'static str,
) -> Result<Column, SaveFileError> {
    let failed = |detail: String| SaveFileError::Value {
        component: info.name(),
        section,
        detail: detail.into(),
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
            ));
        }
    }
    let ticks_at = |row: usize| match ticks {
        Some(ticks) => ComponentTicks {
            added: ticks.added[row],
            changed: ticks.changed[row],
        },
        None => ComponentTicks::new(0),
    };
    // Grown as values arrive, not to the count the file claims: a value may take no bytes.
    let room = |column: &mut Column| column.reserve_total(column.len() + 1);
    match values {
        Values::Bytes(bytes) => {
            let mut de = postcard::Deserializer::from_bytes(bytes);
            for row in 0..rows {
                room(&mut column);
                let dst = column.ptr_at(column.len());
                // SAFETY: the column stores `info`'s type, the one `fns` is for, and has room
                // at its end; the value written there becomes its last row at once.
                unsafe { (fns.read_binary)(&mut de, dst) }
                    .map_err(|err| failed(format!("row {row}: {err}")))?;
                // SAFETY: a valid value was just written at row `len`, inside the capacity.
                unsafe { column.push_written(ticks_at(row)) };
            }
            let rest = de.finalize().map_err(|err| failed(err.to_string()))?;
            if !rest.is_empty() {
                return Err(failed(format!(
                    "{} bytes follow the column's {rows} values",
                    rest.len()
                )));
            }
        }
        Values::Json(values) => {
            if values.len() != rows {
                return Err(inconsistent(
                    section,
                    format!(
                        "the column of `{}` has {} values for {rows} rows",
                        info.name(),
                        values.len()
                    ),
                ));
            }
            for (row, value) in values.iter().enumerate() {
                room(&mut column);
                let dst = column.ptr_at(column.len());
                // SAFETY: as above.
                unsafe { (fns.read_json)(value, dst) }
                    .map_err(|err| failed(format!("row {row}: {err}")))?;
                // SAFETY: as above.
                unsafe { column.push_written(ticks_at(row)) };
            }
        }
    }
    if let (Some(live), Some(doc)) = (column.ticks_mut(), ticks) {
        live.set_removed(ComponentTicks {
            added: doc.removed.0,
            changed: doc.removed.1,
        });
    }
    Ok(column)
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
        let binary = out.is_binary();
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

        // The column of `id`, written; `column` is the state's own, of `id`'s type (same
        // registry, checked above), which nothing writes while `&self` is borrowed.
        let column = |id: ComponentId, column: &Column, section| {
            let info = components.get(id);
            // SAFETY: see above.
            unsafe { encode(column, info, fns[id.index()], binary, section) }
        };
        let mut tables = Vec::with_capacity(self.tables.len());
        for table in &self.tables {
            let ids: Vec<ComponentId> = table.signature.iter().collect();
            tables.push(TableDoc {
                components: ids.iter().map(|id| id.get()).collect(),
                entities: table.entities.iter().copied().map(entity_doc).collect(),
                columns: ids
                    .iter()
                    .zip(&table.columns)
                    .map(|(&id, values)| column(id, values, "tables"))
                    .collect::<Result<_, _>>()?,
            });
        }
        out.section("tables", &tables)?;
        drop(tables);
        let resources = self
            .resources
            .iter()
            .map(|(id, values)| {
                let value = (values.len() > 0)
                    .then(|| column(*id, values, "resources").map(|it| it.values))
                    .transpose()?;
                Ok(ResourceDoc {
                    component: id.get(),
                    value,
                })
            })
            .collect::<Result<Vec<_>, SaveFileError>>()?;
        out.section("resources", &resources)?;
        let snapshots = self
            .snapshots
            .iter()
            .map(|(id, entities, values)| {
                Ok(SnapshotDoc {
                    component: id.get(),
                    entities: entities.iter().copied().map(entity_doc).collect(),
                    values: column(*id, values, "snapshots")?.values,
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
                    entities: set.entities.iter().copied().map(entity_doc).collect(),
                    index: set.index.clone(),
                    column: column(set.id, &set.values, "sparse")?,
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
        let tables: Vec<TableDoc> = input.section("tables")?;
        let resources: Vec<ResourceDoc> = input.section("resources")?;
        let snapshots: Vec<SnapshotDoc> = input.section("snapshots")?;
        let sparse: Vec<SparseDoc> = input.section("sparse")?;

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
        state.read_tables(&tables, components, &fns)?;
        state.check_rows()?;
        state.read_resources(&resources, components, &fns)?;
        state.read_snapshots(&snapshots, components, &fns)?;
        state.read_sparse(&sparse, components, &fns)?;
        Ok(state)
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

    fn read_tables(
        &mut self,
        docs: &[TableDoc],
        components: &Components,
        fns: &[&'static SerdeFns],
    ) -> Result<(), SaveFileError> {
        const SECTION: &str = "tables";
        let mut signatures = BTreeSet::new();
        for (at, doc) in docs.iter().enumerate() {
            let signature = component_set(&doc.components, components, SECTION, |info| {
                StorageKind::of(info) == StorageKind::Table
            })?;
            if (at == 0) != signature.is_empty() {
                return Err(inconsistent(
                    SECTION,
                    format!("table {at}: only table 0 holds no components, and it must"),
                ));
            }
            if !signatures.insert(signature.to_words()) {
                return Err(inconsistent(
                    SECTION,
                    format!("table {at} has the components of an earlier table"),
                ));
            }
            if doc.columns.len() != signature.len() {
                return Err(inconsistent(
                    SECTION,
                    format!(
                        "table {at} has {} columns for {} components",
                        doc.columns.len(),
                        signature.len()
                    ),
                ));
            }
            let entities = entities(&doc.entities, SECTION)?;
            let rows = entities.len();
            let columns = signature
                .iter()
                .zip(&doc.columns)
                .map(|(id, column)| {
                    let info = components.get(id);
                    let fns = fns[id.index()];
                    decode(
                        &column.values,
                        column.ticks.as_ref(),
                        info,
                        fns,
                        rows,
                        true,
                        SECTION,
                    )
                })
                .collect::<Result<_, _>>()?;
            self.tables.push(TableState {
                signature,
                entities,
                columns,
            });
        }
        if self.tables.is_empty() {
            return Err(inconsistent(SECTION, "there is no table 0".into()));
        }
        Ok(())
    }

    /// Checks that every table row's entity is live in the slot table and located at that
    /// row, and that the tables hold as many rows as entities are live: then slots and rows
    /// match one to one.
    fn check_rows(&self) -> Result<(), SaveFileError> {
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

    fn read_resources(
        &mut self,
        docs: &[ResourceDoc],
        components: &Components,
        fns: &[&'static SerdeFns],
    ) -> Result<(), SaveFileError> {
        const SECTION: &str = "resources";
        let mut last = 0;
        for doc in docs {
            let id = component_id(
                doc.component,
                components,
                SECTION,
                ComponentInfo::is_resource,
            )?;
            ascending(&mut last, doc.component, SECTION)?;
            let info = components.get(id);
            let column = match &doc.value {
                Some(values) => decode(values, None, info, fns[id.index()], 1, false, SECTION)?,
                None => Column::new(info),
            };
            self.resources.push((id, column));
        }
        Ok(())
    }

    fn read_snapshots(
        &mut self,
        docs: &[SnapshotDoc],
        components: &Components,
        fns: &[&'static SerdeFns],
    ) -> Result<(), SaveFileError> {
        const SECTION: &str = "snapshots";
        let mut last = 0;
        for doc in docs {
            let id = component_id(doc.component, components, SECTION, |info| {
                info.is_versioned() && StorageKind::of(info) == StorageKind::Table
            })?;
            ascending(&mut last, doc.component, SECTION)?;
            let entities = entities(&doc.entities, SECTION)?;
            // Snapshot reads search by index.
            if entities.windows(2).any(|it| it[0].index() >= it[1].index()) {
                return Err(inconsistent(
                    SECTION,
                    format!(
                        "the snapshot of `{}` is not in ascending entity index",
                        components.get(id).name()
                    ),
                ));
            }
            let (info, rows) = (components.get(id), entities.len());
            let values = decode(
                &doc.values,
                None,
                info,
                fns[id.index()],
                rows,
                false,
                SECTION,
            )?;
            self.snapshots.push((id, entities, values));
        }
        Ok(())
    }

    fn read_sparse(
        &mut self,
        docs: &[SparseDoc],
        components: &Components,
        fns: &[&'static SerdeFns],
    ) -> Result<(), SaveFileError> {
        const SECTION: &str = "sparse";
        const ABSENT: u32 = u32::MAX;
        let mut last = 0;
        for doc in docs {
            let id = component_id(doc.component, components, SECTION, ComponentInfo::is_sparse)?;
            ascending(&mut last, doc.component, SECTION)?;
            let info = components.get(id);
            let entities = entities(&doc.entities, SECTION)?;
            let bad =
                |detail: String| inconsistent(SECTION, format!("`{}`: {detail}", info.name()));
            if doc.index.len() > self.slots.len() {
                return Err(bad("the index is longer than the slot table".into()));
            }
            for (at, entity) in entities.iter().enumerate() {
                let slot = self.slots.get(entity.index() as usize).map(|it| it.parts());
                if !matches!(slot, Some((generation, Some(_), _)) if generation == entity.generation())
                {
                    return Err(bad(format!("entity {entity} is not live")));
                }
                if doc.index.get(entity.index() as usize) != Some(&(at as u32)) {
                    return Err(bad(format!("the index does not find entity {entity}")));
                }
            }
            // Every entry is absent or found above: no stale entry can shadow a later insert.
            let found = doc.index.iter().filter(|&&at| at != ABSENT).count();
            if found != entities.len() {
                return Err(bad("the index has entries no entity owns".into()));
            }
            let (column, rows) = (&doc.column, entities.len());
            let ticks = column.ticks.as_ref();
            let fns = fns[id.index()];
            let values = decode(&column.values, ticks, info, fns, rows, true, SECTION)?;
            self.sparse.push(SparseState {
                id,
                entities,
                index: doc.index.clone(),
                values,
            });
        }
        Ok(())
    }
}

/// The handles of a section, or the first with generation 0.
fn entities(docs: &[EntityDoc], section: &'static str) -> Result<Vec<Entity>, SaveFileError> {
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
