//! The iteration loops shared by the world (unchecked) and system contexts (checked).

use std::ptr::NonNull;
use std::slice;

use laige_registry::ComponentId;

use super::SystemMeta;
use super::{Matcher, Prepared, QueryData, QueryDesc};
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;
use laige_storage::column::TableColumn;

/// Resolves and checks `Q`; reports a refusal.
#[inline(always)]
fn prepare<Q: QueryData>(
    storage: &Storage,
    declared: Option<&SystemMeta>,
) -> Result<(Q::State, Matcher), QueryError> {
    let mut desc = QueryDesc::new(storage, declared);
    match Q::init(&mut desc).and_then(|state| desc.check_footprint().map(|()| state)) {
        Ok(state) => Ok((state, desc.matcher())),
        Err(err) => Err(refuse(storage, err)),
    }
}

/// Reports a refused query; out of line, off the hot path.
#[cold]
#[inline(never)]
fn refuse(storage: &Storage, err: QueryError) -> QueryError {
    storage.report(err)
}

/// A matched, non-empty table, as the loops below get it.
struct Matched<'s> {
    table: &'s Archetype,
    rows: usize,
    /// The driver and the base of its column here, when the table was reached through the
    /// column directory.
    driver: Option<(ComponentId, NonNull<u8>)>,
}

impl Matched<'_> {
    /// The column pointers of `Q` in this table.
    ///
    /// # Safety
    ///
    /// `state` comes from the [`QueryDesc`] whose matcher accepted the table.
    #[inline(always)]
    unsafe fn fetch<Q: QueryData>(&self, state: &Q::State) -> Q::Fetch {
        match self.driver {
            // SAFETY: the table matched (the caller's promise), and the base is the driver's
            // column in it (`for_each_table`).
            Some((driver, column)) => unsafe { Q::fetch_driven(state, self.table, driver, column) },
            None => Q::fetch(state, self.table),
        }
    }

    /// The entity column's base, valid for `rows` entities.
    #[inline(always)]
    fn entities(&self) -> NonNull<Entity> {
        self.table.entities_ptr()
    }
}

/// Calls `visit` with every non-empty table `matcher` accepts, in ascending archetype id.
///
/// A query that requires a component walks that component's column directory, which reaches
/// the column (its rows and base) in one step; only when the driver is not the query's only
/// condition is the table itself tested. A query that requires nothing tests every table.
#[inline(always)]
fn for_each_table<'s>(storage: &'s Storage, matcher: &Matcher, mut visit: impl FnMut(Matched<'s>)) {
    let tables = storage.archetypes();
    if matcher.unmatchable() {
        return;
    }
    let Some(driver) = matcher.driver() else {
        for table in tables {
            if !table.is_empty() && matcher.matches(table) {
                let rows = table.len();
                visit(Matched {
                    table,
                    rows,
                    driver: None,
                });
            }
        }
        return;
    };
    let entries = storage.tables_with(driver);
    let open = |entry: &'s TableColumn| {
        debug_assert!((entry.table() as usize) < tables.len());
        // SAFETY: directory entries name only created archetypes, which are never removed;
        // the entry belongs to `storage`, borrowed shared for `'s`, so no `&mut` to any
        // table's columns exists meanwhile.
        unsafe { (tables.get_unchecked(entry.table() as usize), entry.column()) }
    };
    // Two loops rather than one that tests `exact` per table.
    if matcher.exact() {
        for entry in entries {
            let (table, column) = open(entry);
            let rows = column.len();
            if rows != 0 {
                let driver = Some((driver, column.data()));
                visit(Matched {
                    table,
                    rows,
                    driver,
                });
            }
        }
    } else {
        for entry in entries {
            let (table, column) = open(entry);
            let rows = column.len();
            if rows != 0 && matcher.matches(table) {
                let driver = Some((driver, column.data()));
                visit(Matched {
                    table,
                    rows,
                    driver,
                });
            }
        }
    }
}

/// Calls `f` for every row matched by `Q`: archetypes in ascending id, rows in table order.
///
/// # Safety
///
/// For `'s`, the caller has the access `Q` needs to every matched column: no one else writes
/// a component `Q` reads, and no one else touches a component `Q` writes. (`Storage` cannot
/// change structurally meanwhile: it is borrowed for `'s`.) With `declared`, `Q` is checked
/// against it first, which is how a context turns its scheduler-proven declaration into this
/// guarantee.
// Rows by pointer steps, not indices: in the frag_iter bench the indexed form of the same
// vectorised loop ran 1.3x slower per table, for the same instruction count.
#[doc(hidden)]
pub unsafe fn each_in<'s, Q: QueryData>(
    storage: &'s Storage,
    declared: Option<&SystemMeta>,
    mut f: impl FnMut(Entity, Q::Item<'s>),
) -> Result<(), QueryError> {
    let (state, matcher) = prepare::<Q>(storage, declared)?;
    for_each_table(storage, &matcher, |table| {
        // SAFETY: `for_each_table` visits only tables the query's matcher accepts.
        let mut fetch = unsafe { table.fetch::<Q>(&state) };
        let mut entities = table.entities();
        for _ in 0..table.rows {
            // SAFETY: the cursors are at one of a matched table's rows (every column and the
            // entity column have `rows` rows, and each turn moves them on by one); access is
            // the caller's promise; each row is yielded once per call, and `Q` has no
            // aliasing elements (`prepare`).
            let (entity, item) = unsafe {
                let entity = *entities.as_ptr();
                entities = entities.add(1);
                (entity, Q::next_item(&mut fetch))
            };
            f(entity, item);
        }
    });
    Ok(())
}

/// Calls `f` once per non-empty matched archetype with its entities and whole columns.
///
/// # Safety
///
/// As for [`each_in`].
#[doc(hidden)]
pub unsafe fn each_chunk_in<'s, Q: QueryData>(
    storage: &'s Storage,
    declared: Option<&SystemMeta>,
    mut f: impl FnMut(&'s [Entity], Q::Chunk<'s>),
) -> Result<(), QueryError> {
    let (state, matcher) = prepare::<Q>(storage, declared)?;
    for_each_table(storage, &matcher, |table| {
        // SAFETY: `for_each_table` visits only tables the query's matcher accepts.
        let fetch = unsafe { table.fetch::<Q>(&state) };
        // SAFETY: the entity column holds `rows` entities, which nothing writes meanwhile
        // (it changes only under `&mut Storage`); the whole table is matched; access is the
        // caller's promise; each table is yielded once per call.
        let (entities, chunk) = unsafe {
            let entities = slice::from_raw_parts(table.entities().as_ptr(), table.rows);
            (entities, Q::chunk(&fetch, table.rows))
        };
        f(entities, chunk);
    });
    Ok(())
}

/// Checks `Q` once, for [`Prepared::get`] lookups.
///
/// # Safety
///
/// As for [`each_in`], for as long as the result lives.
#[doc(hidden)]
pub unsafe fn prepared_in<'s, Q: QueryData>(
    storage: &'s Storage,
    declared: Option<&SystemMeta>,
) -> Result<Prepared<'s, Q>, QueryError> {
    let (state, matcher) = prepare::<Q>(storage, declared)?;
    // SAFETY: forwarded from the caller; `state` and `matcher` come from checking `Q`.
    Ok(unsafe { Prepared::new(storage, state, matcher) })
}

/// The item of `entity` for a checked `Q`, if it is alive and its table matches.
///
/// # Safety
///
/// As for [`each_in`], for the entity's row; `state` and `matcher` come from checking `Q`.
#[doc(hidden)]
pub unsafe fn get_in<'s, Q: QueryData>(
    storage: &'s Storage,
    state: &Q::State,
    matcher: &Matcher,
    entity: Entity,
) -> Option<Q::Item<'s>> {
    let location = storage.entities().location(entity)?;
    let table = &storage.archetypes()[location.archetype() as usize];
    if !matcher.matches(table) {
        return None;
    }
    let mut fetch = Q::fetch(state, table);
    // SAFETY: the entity's row is in bounds of its table, which the query matches; access is
    // the caller's promise; one item is yielded.
    unsafe {
        Q::skip_rows(&mut fetch, location.row() as usize);
        Some(Q::next_item(&mut fetch))
    }
}
