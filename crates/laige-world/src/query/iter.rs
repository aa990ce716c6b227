//! The iteration loops shared by the world (unchecked) and system contexts (checked).

use super::{Matcher, Query, QueryDesc};
use crate::archetype::Archetype;
use crate::context::SystemMeta;
use crate::{Entity, QueryError, Storage};

/// Resolves and checks `Q`; reports a refusal.
#[inline(always)]
fn prepare<Q: Query>(
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

/// Calls `visit` with every non-empty archetype `desc` matches, in ascending id.
///
/// When the query requires a component, only the tables that have the required component
/// with the fewest tables are looked at; when that component is all it asks for, they all
/// match without a signature test.
#[inline(always)]
fn for_each_table<'s>(storage: &'s Storage, desc: &Matcher, mut visit: impl FnMut(&'s Archetype)) {
    let tables = storage.archetypes();
    let table_of = |id: u32| {
        debug_assert!((id as usize) < tables.len());
        // SAFETY: the per-component lists hold only ids of created archetypes, and archetypes
        // are never removed.
        unsafe { tables.get_unchecked(id as usize) }
    };
    match desc.driver(storage) {
        // Two loops rather than one that tests `exact` per table.
        Some((ids, true)) => {
            for &id in ids {
                let table = table_of(id);
                if !table.is_empty() {
                    visit(table);
                }
            }
        }
        Some((ids, false)) => {
            for &id in ids {
                let table = table_of(id);
                if !table.is_empty() && desc.matches(table) {
                    visit(table);
                }
            }
        }
        None => {
            for table in tables {
                if !table.is_empty() && desc.matches(table) {
                    visit(table);
                }
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
// Rows by index (not `iter().enumerate()`), so the row is the loop's only induction
// variable: about 10% fewer instructions per table.
#[allow(clippy::needless_range_loop)]
pub(crate) unsafe fn each_in<'s, Q: Query>(
    storage: &'s Storage,
    declared: Option<&SystemMeta>,
    mut f: impl FnMut(Entity, Q::Item<'s>),
) -> Result<(), QueryError> {
    let (state, desc) = prepare::<Q>(storage, declared)?;
    for_each_table(storage, &desc, |table| {
        // SAFETY: `for_each_table` visits only tables the query's matcher accepts.
        let fetch = unsafe { Q::fetch_matched(&state, table) };
        let entities = table.entities();
        for row in 0..entities.len() {
            // SAFETY: `row` is in bounds of a matched table; access is the caller's promise;
            // each row is yielded once per call, and `Q` has no aliasing elements (`prepare`).
            f(entities[row], unsafe { Q::item(&fetch, row) });
        }
    });
    Ok(())
}

/// Calls `f` once per non-empty matched archetype with its entities and whole columns.
///
/// # Safety
///
/// As for [`each_in`].
pub(crate) unsafe fn each_chunk_in<'s, Q: Query>(
    storage: &'s Storage,
    declared: Option<&SystemMeta>,
    mut f: impl FnMut(&'s [Entity], Q::Chunk<'s>),
) -> Result<(), QueryError> {
    let (state, desc) = prepare::<Q>(storage, declared)?;
    for_each_table(storage, &desc, |table| {
        // SAFETY: `for_each_table` visits only tables the query's matcher accepts.
        let fetch = unsafe { Q::fetch_matched(&state, table) };
        // SAFETY: the whole table is matched; access is the caller's promise; each table is
        // yielded once per call.
        f(table.entities(), unsafe { Q::chunk(&fetch, table.len()) });
    });
    Ok(())
}
