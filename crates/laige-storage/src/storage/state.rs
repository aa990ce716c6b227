//! Saving the whole storage into a [`StorageState`] and restoring it, bit for bit: every
//! table's rows in table order, the entity allocator, resources and snapshots.
//!
//! A state is a set of owned columns of the same types as the storage's, so saving again
//! into a state that held a storage of the same shape reuses every buffer: `Copy` columns
//! are one `memcpy` each, `Clone` columns go value by value through `clone_from`.

use std::any::TypeId;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::ptr;

use laige_registry::{ComponentId, ComponentSet};

use crate::column::Column;
use crate::component::{ComponentInfo, Components, SaveFn};
use crate::entity::Slot;
use crate::{Entity, Storage};

#[cfg(feature = "serde")]
mod file;

/// Why a storage could not be saved into a state, or a state restored into a storage.
///
/// The tick layer wraps it in its own error (`laige_world::StateError`), which carries the
/// event; this one only names what differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StorageStateError {
    /// A registered component or resource type was not registered as saved, so a save
    /// would lose it.
    NotSaved {
        /// The type's name.
        component: &'static str,
        /// Whether it is a resource type.
        resource: bool,
    },
    /// The state was saved from a storage whose component id `id` is another type (or
    /// none): the two registries differ. `""` stands for "no type at this id".
    ComponentsDiffer {
        /// The first id at which they differ.
        id: u16,
        /// The type the state holds there.
        state: &'static str,
        /// The type the storage has there.
        world: &'static str,
    },
    /// The state holds nothing yet: save into it first.
    Empty,
}

impl fmt::Display for StorageStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NotSaved {
                component,
                resource: false,
            } => write!(
                f,
                "component `{component}` is not saved, so a save would lose it: register it \
                 with `ComponentOptions::saved()` (`T: Clone`) or `saved_copy()` (`T: Copy`), \
                 or `#[component(saved)]`"
            ),
            Self::NotSaved {
                component,
                resource: true,
            } => write!(
                f,
                "resource `{component}` is not saved, so a save would lose it: call \
                 `world.save_resource::<{component}>()` (it needs `Clone`) during setup"
            ),
            Self::ComponentsDiffer { id, state, world } => {
                let name = |it: &str| match it {
                    "" => "no type".to_owned(),
                    it => format!("`{it}`"),
                };
                write!(
                    f,
                    "the state was saved from another registry: component id {id} is {} in \
                     the state but {} in this world; register the same component types in \
                     the same order before restoring",
                    name(state),
                    name(world)
                )
            }
            Self::Empty => f.write_str(
                "the state holds no world yet: save into it (`world.save_state(&mut state)`) \
                 before restoring it",
            ),
        }
    }
}

impl std::error::Error for StorageStateError {}

/// What a state knows of one registered type: enough to tell the registry it came from.
#[derive(Clone, Copy, Debug)]
struct SavedType {
    type_id: TypeId,
    name: &'static str,
}

/// One table's saved rows: its component set, its entities in row order and a copy of each
/// column, in the table's column order.
#[derive(Debug)]
struct TableState {
    signature: ComponentSet,
    entities: Vec<Entity>,
    columns: Vec<Column>,
}

/// A saved copy of a whole [`Storage`]; see [`Storage::save_state`].
///
/// Its buffers are kept between saves: once it has held a storage of a given shape (the
/// same registry and tables, no more rows than before), saving again allocates nothing,
/// and nor does restoring it.
#[derive(Debug, Default)]
pub struct StorageState {
    types: Vec<SavedType>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: u32,
    /// The storage's change tick (what its next write outside a system is stamped with).
    change_tick: u64,
    tables: Vec<TableState>,
    resources: Vec<(ComponentId, Column)>,
    snapshots: Vec<(ComponentId, Vec<Entity>, Column)>,
    /// Per sparse component, ascending: its set's entities, index and values, verbatim.
    sparse: Vec<SparseState>,
    saved: bool,
}

/// One sparse set's saved arrays (dense order included: later removals depend on it).
#[derive(Debug)]
struct SparseState {
    id: ComponentId,
    entities: Vec<Entity>,
    index: Vec<u32>,
    values: Column,
}

impl StorageState {
    /// Whether the state holds a saved storage.
    pub fn is_saved(&self) -> bool {
        self.saved
    }

    /// The live entity count of the saved storage.
    pub fn entity_count(&self) -> u32 {
        self.live
    }

    /// The bytes of component, resource and snapshot values the state holds (a `Clone`
    /// value counts its own size, not what it owns on the heap).
    pub fn value_bytes(&self) -> usize {
        let column = |it: &Column| it.len() * it.item().size();
        let tables: usize = self
            .tables
            .iter()
            .flat_map(|t| &t.columns)
            .map(column)
            .sum();
        let resources: usize = self.resources.iter().map(|(_, c)| column(c)).sum();
        let snapshots: usize = self.snapshots.iter().map(|(_, _, c)| column(c)).sum();
        let sparse: usize = self.sparse.iter().map(|it| column(&it.values)).sum();
        tables + resources + snapshots + sparse
    }

    /// The bytes a save copies: [`StorageState::value_bytes`] plus the tables' entity
    /// columns, the entity slot table and the free list.
    pub fn copied_bytes(&self) -> usize {
        let entities: usize = self.tables.iter().map(|t| t.entities.len()).sum();
        let snapshot_entities: usize = self.snapshots.iter().map(|(_, e, _)| e.len()).sum();
        let sparse_entities: usize = self.sparse.iter().map(|it| it.entities.len()).sum();
        let sparse_index: usize = self.sparse.iter().map(|it| it.index.len()).sum();
        self.value_bytes()
            + (entities + snapshot_entities + sparse_entities) * size_of::<Entity>()
            + sparse_index * size_of::<u32>()
            + self.slots.len() * size_of::<Slot>()
            + self.free.len() * size_of::<u32>()
    }

    /// The names of the saved component and resource types, by id: what a state's file
    /// form carries to match another build's registry.
    pub fn type_names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.types.iter().map(|it| it.name)
    }

    /// Whether the state's registry is `components`' (same types at the same ids).
    fn same_types(&self, components: &Components) -> bool {
        self.types.len() == components.len()
            && self
                .types
                .iter()
                .zip(components.iter())
                .all(|(a, b)| a.type_id == b.type_id())
    }
}

/// Makes `dst` hold copies of `src`'s values, reusing `dst`'s buffer and, for a `Clone`
/// type, its values (through `clone_from`). A panicking `clone` leaves `dst` valid (with
/// some of the values).
///
/// # Safety
///
/// Both columns store the type `save` was registered for; nothing writes `src` meanwhile.
unsafe fn copy_column(src: &Column, dst: &mut Column, save: SaveFn) {
    debug_assert_eq!(src.item(), dst.item());
    // SAFETY: forwarded from the caller.
    unsafe { copy_values(src, dst, save) };
    // A tracked column's change ticks are part of the state (docs/api/changes.md).
    if let (Some(ticks), Some(saved)) = (dst.ticks_mut(), src.ticks()) {
        ticks.copy_from(saved);
    }
}

/// The values part of [`copy_column`].
///
/// # Safety
///
/// As for [`copy_column`].
unsafe fn copy_values(src: &Column, dst: &mut Column, save: SaveFn) {
    let rows = src.len();
    match save {
        SaveFn::Bytes => {
            // A `Copy` type has no drop glue: its old values need none.
            dst.forget_all();
            dst.reserve_total(rows);
            // SAFETY: `dst` has room for `rows` values, `src` holds `rows` valid ones of the
            // same `Copy` type, and the two columns are different allocations.
            unsafe {
                ptr::copy_nonoverlapping(
                    src.data().as_ptr(),
                    dst.ptr_at(0),
                    rows * src.item().size(),
                );
                dst.set_len(rows);
            }
        }
        SaveFn::Clone { clone, clone_from } => {
            let common = rows.min(dst.len());
            for row in 0..common {
                // SAFETY: both rows hold valid values of the type `clone_from` is for, in
                // two different columns.
                unsafe { clone_from(src.ptr_at(row), dst.ptr_at(row)) };
            }
            while dst.len() > rows {
                let last = dst.len() - 1;
                // SAFETY: `last < len`; the value left past the end is dropped at once.
                unsafe {
                    dst.swap_remove_to_end(last);
                    dst.drop_past_end();
                }
            }
            dst.reserve_total(rows);
            for row in common..rows {
                // SAFETY: `src`'s row holds a valid value, outside `dst`; `clone` is its
                // type's; `dst` has room (reserved above).
                unsafe { dst.push_clone(src.ptr_at(row), clone) };
            }
        }
    }
}

/// How `info`'s values are copied: its registration says; `None` for a type not saved.
fn save_fn(info: &ComponentInfo) -> Option<SaveFn> {
    info.save
}

impl Storage {
    /// The first registered type that is not saved, as the error a save reports.
    fn first_unsaved(&self) -> Option<StorageStateError> {
        self.components.iter().find_map(|info| {
            if info.save.is_none() {
                Some(StorageStateError::NotSaved {
                    component: info.name(),
                    resource: info.is_resource(),
                })
            } else {
                None
            }
        })
    }

    /// Saves everything that decides the storage's future into `state`: the entity
    /// allocator (generations and free list), every table's entities and values in row
    /// order, the resources and the snapshots of versioned components. Reuses the state's
    /// buffers: once it held a storage of this shape, it allocates nothing.
    ///
    /// Takes `&mut self` although it only reads: a running system's view hands out a shared
    /// `&Storage` while other systems write columns, so reading every value needs the proof
    /// that no view is open.
    ///
    /// # Errors
    ///
    /// [`StorageStateError::NotSaved`] naming the first registered type (by id) that was
    /// not registered as saved; `state` is left as it was.
    pub fn save_state(&mut self, state: &mut StorageState) -> Result<(), StorageStateError> {
        if let Some(err) = self.first_unsaved() {
            return Err(err);
        }
        if !state.same_types(&self.components) {
            // Another registry: none of the state's columns can be reused.
            state.types.clear();
            state
                .types
                .extend(self.components.iter().map(|info| SavedType {
                    type_id: info.type_id(),
                    name: info.name(),
                }));
            state.tables.clear();
            state.resources.clear();
            state.snapshots.clear();
            state.sparse.clear();
        }
        state.live = self.entities.save_into(&mut state.slots, &mut state.free);
        state.change_tick = self.change_tick;

        state.tables.truncate(self.archetypes.len());
        for (index, table) in self.archetypes.iter().enumerate() {
            if state
                .tables
                .get(index)
                .is_none_or(|it| it.signature != *table.signature())
            {
                let fresh = TableState {
                    signature: *table.signature(),
                    entities: Vec::new(),
                    columns: table
                        .components()
                        .iter()
                        .map(|&c| Column::for_table(self.components.get(c)))
                        .collect(),
                };
                match state.tables.get_mut(index) {
                    Some(slot) => *slot = fresh,
                    None => state.tables.push(fresh),
                }
            }
            let saved = &mut state.tables[index];
            saved.entities.clear();
            saved.entities.extend_from_slice(table.entities());
            for ((src, dst), &component) in table
                .columns()
                .iter()
                .zip(&mut saved.columns)
                .zip(table.components())
            {
                let save = save_fn(self.components.get(component)).expect("checked above");
                // SAFETY: the state's column was made for this component's type (same
                // registry, same signature); `&mut self` excludes every view, so every writer.
                unsafe { copy_column(src, dst, save) };
            }
        }

        let mut at = 0;
        for (id, src) in self.resources.columns() {
            let info = self.components.get(id);
            if state
                .resources
                .get(at)
                .is_none_or(|(saved, _)| *saved != id)
            {
                state.resources.insert(at, (id, Column::new(info)));
            }
            let save = save_fn(info).expect("checked above");
            // SAFETY: the state's column was made for `id`'s type; `&mut self` excludes
            // writers.
            unsafe { copy_column(src, &mut state.resources[at].1, save) };
            at += 1;
        }
        state.resources.truncate(at);

        let mut at = 0;
        for (id, entities, src) in self.snapshots.stores() {
            let info = self.components.get(id);
            if state
                .snapshots
                .get(at)
                .is_none_or(|(saved, ..)| *saved != id)
            {
                state
                    .snapshots
                    .insert(at, (id, Vec::new(), Column::new(info)));
            }
            let (_, saved_entities, dst) = &mut state.snapshots[at];
            saved_entities.clear();
            saved_entities.extend_from_slice(entities);
            let save = save_fn(info).expect("checked above");
            // SAFETY: the state's column was made for `id`'s type; snapshots change only
            // under `&mut Storage`.
            unsafe { copy_column(src, dst, save) };
            at += 1;
        }
        state.snapshots.truncate(at);

        // Sparse sets are made at registration, so the same registry has the same ones.
        let mut at = 0;
        for (id, set) in self.sparse.iter() {
            let info = self.components.get(id);
            if state.sparse.get(at).is_none_or(|saved| saved.id != id) {
                let fresh = SparseState {
                    id,
                    entities: Vec::new(),
                    index: Vec::new(),
                    values: Column::for_table(info),
                };
                state.sparse.insert(at, fresh);
            }
            let saved = &mut state.sparse[at];
            let (values, entities, index) = set.parts();
            saved.entities.clear();
            saved.entities.extend_from_slice(entities);
            saved.index.clear();
            saved.index.extend_from_slice(index);
            let save = save_fn(info).expect("checked above");
            // SAFETY: the state's column was made for `id`'s type; `&mut self` excludes
            // every writer.
            unsafe { copy_column(values, &mut saved.values, save) };
            at += 1;
        }
        state.sparse.truncate(at);
        state.saved = true;
        Ok(())
    }

    /// Checks that `state` can be restored here: it holds a save of a storage with this
    /// registry (the same types at the same ids). Changes nothing.
    ///
    /// # Errors
    ///
    /// [`StorageStateError::Empty`] or [`StorageStateError::ComponentsDiffer`].
    pub fn check_state(&self, state: &StorageState) -> Result<(), StorageStateError> {
        if !state.saved {
            return Err(StorageStateError::Empty);
        }
        let count = state.types.len().max(self.components.len());
        for index in 0..count {
            let saved = state.types.get(index);
            let live = self.components.iter().nth(index);
            if saved.map(|it| it.type_id) != live.map(ComponentInfo::type_id) {
                return Err(StorageStateError::ComponentsDiffer {
                    // At most MAX_COMPONENTS (256) ids.
                    id: index as u16 + 1,
                    state: saved.map_or("", |it| it.name),
                    world: live.map_or("", ComponentInfo::name),
                });
            }
        }
        Ok(())
    }

    /// Makes this storage the one `state` saved, bit for bit: the same entities (the same
    /// handles, and the same ones handed out next), tables with the same ids and rows in
    /// the same order, resources and snapshots. Tables created since the save are removed
    /// (their ids would otherwise differ from a run that never went back), and tables the
    /// state has but the storage lacks are created in the state's order. Returns whether the
    /// set of tables changed (what the layers above cache per table must then be rebuilt).
    ///
    /// Restoring a state saved from this storage's current shape allocates nothing.
    /// If a component's `clone` panics, the storage is left empty (every handle stale, as
    /// after [`Storage::clear`]) and the panic comes out.
    ///
    /// # Errors
    ///
    /// As for [`Storage::check_state`]; nothing is changed then.
    pub fn restore_state(&mut self, state: &StorageState) -> Result<bool, StorageStateError> {
        self.check_state(state)?;
        match catch_unwind(AssertUnwindSafe(|| self.restore_checked(state))) {
            Ok(changed) => Ok(changed),
            Err(payload) => {
                self.clear_after_failed_restore();
                resume_unwind(payload)
            }
        }
    }

    /// Empties everything a restore may have left half-written.
    #[cold]
    fn clear_after_failed_restore(&mut self) {
        self.entities.clear();
        for table in &mut self.archetypes {
            table.clear_uneven();
        }
        for (_, entities, values) in self.snapshots.stores_mut() {
            entities.clear();
            values.clear();
        }
        self.sparse.clear();
    }

    fn restore_checked(&mut self, state: &StorageState) -> bool {
        let changed = self.match_tables(state);
        for (table, saved) in self.archetypes.iter_mut().zip(&state.tables) {
            let (entities, columns) = table.rows_mut();
            entities.clear();
            entities.extend_from_slice(&saved.entities);
            for ((dst, src), &component) in columns
                .iter_mut()
                .zip(&saved.columns)
                .zip(saved.signature.iter().collect::<SmallIds>().as_slice())
            {
                let save = save_fn(self.components.get(component)).expect("saved types");
                // SAFETY: the same registry (checked) and the same signature, so both columns
                // store `component`'s type; the state is borrowed shared.
                unsafe { copy_column(src, dst, save) };
            }
        }
        let components = &self.components;
        for (id, src) in &state.resources {
            let info = components.get(*id);
            let live = self.resources.column_mut(info);
            // SAFETY: both columns store `id`'s type (the same registry, checked).
            unsafe { copy_column(src, live, save_fn(info).expect("saved")) };
        }
        let held = self.resources.columns().map(|(id, _)| id);
        for id in held.collect::<SmallIds>().as_slice() {
            if state
                .resources
                .binary_search_by_key(id, |(s, _)| *s)
                .is_err()
            {
                // A slot made since the save: the state held no value there.
                self.resources.column_mut(components.get(*id)).clear();
            }
        }
        // Matched by id: a world may version a type the state's world did not (or not
        // version one it did), and each store holds only its own type.
        for (id, entities, values) in self.snapshots.stores_mut() {
            match state.snapshots.binary_search_by_key(&id, |(s, ..)| *s) {
                Ok(at) => {
                    let (_, saved_entities, saved_values) = &state.snapshots[at];
                    entities.clear();
                    entities.extend_from_slice(saved_entities);
                    let save = save_fn(components.get(id)).expect("saved");
                    // SAFETY: both columns store `id`'s type (the same registry, checked).
                    unsafe { copy_column(saved_values, values, save) };
                }
                Err(_) => {
                    entities.clear();
                    values.clear();
                }
            }
        }
        for (id, set) in self.sparse.iter_mut() {
            let (values, entities, index) = set.parts_mut();
            match state.sparse.binary_search_by_key(&id, |it| it.id) {
                Ok(at) => {
                    let saved = &state.sparse[at];
                    entities.clear();
                    entities.extend_from_slice(&saved.entities);
                    index.clear();
                    index.extend_from_slice(&saved.index);
                    let save = save_fn(components.get(id)).expect("saved");
                    // SAFETY: both columns store `id`'s type (the same registry, checked).
                    unsafe { copy_column(&saved.values, values, save) };
                }
                // Not reached with the same registry; an empty set is the safe answer.
                Err(_) => {
                    entities.clear();
                    index.clear();
                    values.clear();
                }
            }
        }
        self.entities
            .restore_from(&state.slots, &state.free, state.live);
        self.change_tick = state.change_tick;
        changed
    }

    /// Makes the tables' component sets, by id, those of `state`: keeps the longest common
    /// prefix, removes the tables after it, and creates the state's remaining tables in
    /// order. Returns whether anything changed.
    fn match_tables(&mut self, state: &StorageState) -> bool {
        let common = self
            .archetypes
            .iter()
            .zip(&state.tables)
            .take_while(|(live, saved)| *live.signature() == saved.signature)
            .count();
        let changed = common != self.archetypes.len() || common != state.tables.len();
        if common < self.archetypes.len() {
            let keep = |id: u32| (id as usize) < common;
            self.archetypes.truncate(common);
            self.by_signature.retain(|_, id| keep(*id));
            self.canonical.retain(|id| keep(*id));
            for entries in &mut self.with_component {
                entries.retain(|entry| keep(entry.table()));
            }
            for table in &mut self.archetypes {
                table.add_edges.retain(|_, to| keep(*to));
                table.remove_edges.retain(|_, to| keep(*to));
            }
            // The last lookups may name a table just removed.
            self.forget_last_lookups();
        }
        for saved in &state.tables[common..] {
            self.archetype_for(&saved.signature);
        }
        changed
    }
}

/// Component ids collected without allocating: at most a table's columns (or the resource
/// slots, at most every registered type).
struct SmallIds {
    ids: [ComponentId; laige_registry::MAX_COMPONENTS],
    len: usize,
}

impl FromIterator<ComponentId> for SmallIds {
    fn from_iter<I: IntoIterator<Item = ComponentId>>(iter: I) -> Self {
        let mut it = Self {
            ids: [ComponentId::from_index(0).expect("id 1 exists"); laige_registry::MAX_COMPONENTS],
            len: 0,
        };
        for id in iter {
            it.ids[it.len] = id;
            it.len += 1;
        }
        it
    }
}

impl SmallIds {
    fn as_slice(&self) -> &[ComponentId] {
        &self.ids[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::{Component, ComponentOptions};

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Pos(u64);
    impl Component for Pos {}
    /// Heap-owning, saved by `Clone`.
    #[derive(Clone, Debug, PartialEq)]
    struct Name(String);
    impl Component for Name {}
    /// Clones panic while `PANIC` is set.
    #[derive(Debug, PartialEq)]
    struct Fragile(Box<u32>);
    impl Component for Fragile {}
    static PANIC: AtomicBool = AtomicBool::new(false);
    impl Clone for Fragile {
        fn clone(&self) -> Self {
            assert!(!PANIC.load(Ordering::Relaxed), "clone refused");
            Self(self.0.clone())
        }
    }

    fn storage() -> Storage {
        let mut s = Storage::new(0, u32::MAX, laige_diag::Diagnostics::default());
        s.register_component(ComponentOptions::<Pos>::new().saved_copy())
            .unwrap();
        s.register_component(ComponentOptions::<Name>::new().saved().versioned())
            .unwrap();
        s.register_component(ComponentOptions::<Fragile>::new().saved())
            .unwrap();
        s.register_resource::<Vec<u8>>().unwrap();
        s.save_resource::<Vec<u8>>();
        s
    }

    fn rows(s: &Storage) -> Vec<(Entity, Option<u64>)> {
        let pos = s.component_id::<Pos>().unwrap();
        s.entities()
            .iter_live()
            .map(|(e, loc)| {
                let value = s.value_ptr(loc, pos).map(|ptr| {
                    // SAFETY: a live entity's `Pos`; `&s` excludes writers.
                    unsafe { *ptr.cast::<Pos>() }.0
                });
                (e, value)
            })
            .collect()
    }

    #[test]
    fn a_restore_brings_back_rows_handles_resources_and_snapshots() {
        let mut s = storage();
        let a = s.spawn_batch([(Pos(1), Name("a".into()))]).unwrap()[0];
        s.spawn_batch([(Pos(2),), (Pos(3),)]).unwrap();
        s.put_resource(vec![1u8, 2]).unwrap();
        s.refresh_snapshots();
        let mut state = StorageState::default();
        s.save_state(&mut state).unwrap();
        let before = rows(&s);

        let location = s.entities().location(a).unwrap();
        assert!(s.despawn_at(a, location));
        s.spawn_batch([(Pos(9), Fragile(Box::new(1)))]).unwrap();
        s.take_resource::<Vec<u8>>();
        s.refresh_snapshots();
        assert!(
            s.restore_state(&state).unwrap(),
            "the Fragile table is gone"
        );

        assert_eq!(rows(&s), before);
        assert!(s.is_alive(a));
        assert_eq!(s.take_resource::<Vec<u8>>(), Some(vec![1, 2]));
        let name = s.component_id::<Name>().unwrap();
        // SAFETY: `Name` is the type registered as `name`.
        let view = unsafe { s.snapshots().view::<Name>(name) }.unwrap();
        assert_eq!(view.get(a), Some(&Name("a".into())));
        // The next spawn reuses the slot the save had free: none, so a new index.
        let next = s.spawn_batch([(Pos(4),)]).unwrap()[0];
        assert_eq!(next.index(), 3);
    }

    #[test]
    fn an_unsaved_type_is_named_and_a_foreign_registry_refused() {
        let mut s = storage();
        struct Plain;
        impl Component for Plain {}
        s.register_component(ComponentOptions::<Plain>::new())
            .unwrap();
        let mut state = StorageState::default();
        assert_eq!(
            s.save_state(&mut state),
            Err(StorageStateError::NotSaved {
                component: std::any::type_name::<Plain>(),
                resource: false
            })
        );
        assert_eq!(s.check_state(&state), Err(StorageStateError::Empty));
        let mut other = storage();
        other.save_state(&mut state).unwrap();
        assert!(matches!(
            s.check_state(&state),
            Err(StorageStateError::ComponentsDiffer { id: 5, .. })
        ));
    }

    #[test]
    fn snapshot_stores_are_matched_by_component_not_by_position() {
        // The same types, but `Name` is versioned only in the saving storage, and `Pos` only
        // in the restoring one: no store's values may land in another type's store.
        let register = |name_versioned: bool| {
            let mut s = Storage::new(0, u32::MAX, laige_diag::Diagnostics::default());
            let pos = ComponentOptions::<Pos>::new().saved_copy();
            let name = ComponentOptions::<Name>::new().saved();
            if name_versioned {
                s.register_component(pos).unwrap();
                s.register_component(name.versioned()).unwrap();
            } else {
                s.register_component(pos.versioned()).unwrap();
                s.register_component(name).unwrap();
            }
            s
        };
        let mut a = register(true);
        let e = a.spawn_batch([(Pos(5), Name("n".into()))]).unwrap()[0];
        a.refresh_snapshots();
        let mut state = StorageState::default();
        a.save_state(&mut state).unwrap();
        let mut b = register(false);
        b.spawn_batch([(Pos(1),)]).unwrap();
        b.refresh_snapshots();
        b.restore_state(&state).unwrap();
        assert!(b.is_alive(e));
        let pos = b.component_id::<Pos>().unwrap();
        // SAFETY: `Pos` is the type registered as `pos`.
        let view = unsafe { b.snapshots().view::<Pos>(pos) }.unwrap();
        assert!(view.is_empty(), "the state held no snapshot of `Pos`");
    }

    #[test]
    fn a_clone_that_panics_mid_restore_leaves_the_storage_empty_and_sound() {
        let mut s = storage();
        s.spawn_batch((0..4).map(|i| (Pos(i), Fragile(Box::new(i as u32)))))
            .unwrap();
        let mut state = StorageState::default();
        s.save_state(&mut state).unwrap();
        s.clear();
        PANIC.store(true, Ordering::Relaxed);
        let res = catch_unwind(AssertUnwindSafe(|| s.restore_state(&state)));
        PANIC.store(false, Ordering::Relaxed);
        assert!(res.is_err());
        assert_eq!(s.len(), 0);
        assert!(s.archetypes().iter().all(|t| t.is_empty()));
        // Still usable, and the state still restores.
        s.restore_state(&state).unwrap();
        assert_eq!(s.len(), 4);
    }
}
