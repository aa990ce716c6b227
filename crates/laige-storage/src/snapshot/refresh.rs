//! Refreshing the snapshot stores from the live values: on the calling thread, or split
//! into ranges of entity slots that a pool of threads runs at once.
//!
//! Either way a store ends up the same: a clone of every live value of its component, in
//! ascending entity index. The split refresh makes two passes over the ranges. The first
//! counts, per range and store, the values the range holds, so that every range knows
//! where its values go; the second clones them there. The ranges are a function of the slot
//! count alone, and each writes only its own rows of each store, so which thread runs a
//! range, and when, changes nothing.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use laige_registry::ComponentId;

use super::{Snapshots, Store};
use crate::Entity;
use crate::archetype::Archetype;
use crate::component::{CloneFn, DropFn};
use crate::entity::Entities;

/// Entity slots per range of a split refresh: a few thousand values each, so that a range
/// costs far more than handing it to a thread, and a world of ten thousand entities still
/// splits into enough ranges to share out. Under Miri, 64: the tests, which size their worlds
/// by it, then cover several ranges in Miri's time.
pub const SLOTS_PER_RANGE: usize = if cfg!(miri) { 64 } else { 2048 };

/// The split refresh's reusable buffers: they grow with the world, then stay, so a steady
/// refresh allocates nothing.
#[derive(Debug, Default)]
pub(super) struct SplitScratch {
    /// Per range and store, at `range * stores + store`: after the first pass, how many
    /// values the range holds; then the row its next value goes to.
    cursors: Vec<AtomicUsize>,
    /// Per range: whether a batch has taken it in the current pass.
    taken: Vec<AtomicBool>,
    /// Per range and store, as `cursors`: the range's first row.
    firsts: Vec<usize>,
    /// Per store: how many values it holds after the refresh.
    totals: Vec<usize>,
    /// Per store: where the second pass writes.
    outs: Vec<Out>,
}

/// Where the second pass writes one store's clones.
#[derive(Debug, Clone, Copy)]
struct Out {
    component: ComponentId,
    clone_fn: CloneFn,
    drop_fn: Option<DropFn>,
    entities: *mut Entity,
    values: *mut u8,
    value_size: usize,
}

// SAFETY: the pointers are written through only inside `Snapshots::refresh_split`, which
// holds `&mut Snapshots` (so nothing else reaches the stores) and hands every range rows of
// its own; component values are `Send + Sync`.
unsafe impl Send for Out {}
// SAFETY: as for `Send`.
unsafe impl Sync for Out {}

impl Snapshots {
    /// Refreshes every store on the calling thread: drops the old copies, then clones each
    /// live entity's value in ascending entity index. Reuses the buffers: it allocates only
    /// when a component is on more entities than ever before. A panicking clone leaves every
    /// store empty, and its panic comes out.
    pub(crate) fn refresh(&mut self, entities: &Entities, archetypes: &[Archetype]) {
        if self.stores.is_empty() {
            return;
        }
        let stores = EmptyOnUnwind(&mut self.stores);
        for store in stores.0.iter_mut() {
            let count = archetypes
                .iter()
                .filter(|table| table.column_index(store.component).is_some())
                .map(Archetype::len)
                .sum();
            store.entities.clear();
            store.values.clear();
            store.entities.reserve(count);
            store.values.reserve_total(count);
        }
        for (entity, location) in entities.iter_live() {
            let table = &archetypes[location.archetype as usize];
            for store in stores.0.iter_mut() {
                let Some(col) = table.column_index(store.component) else {
                    continue;
                };
                let src = table.columns()[col].ptr_at(location.row as usize);
                // SAFETY: the entity is live, so its row holds a valid value of the column's
                // type, which `store.clone_fn` is for; the caller's borrows exclude writers;
                // the store has room for every entity with the component (reserved above),
                // and its column is separate memory from the table's.
                unsafe { store.values.push_clone(src, store.clone_fn) };
                store.entities.push(entity);
            }
        }
        std::mem::forget(stores);
    }

    /// Refreshes every store as [`Snapshots::refresh`] does, with the same result, in
    /// ranges of [`SLOTS_PER_RANGE`] entity slots that `run` may run at once.
    ///
    /// `run(count, f)` must call `f` with each of `0..count` and return once those calls
    /// have (a pool's `run_batches`); a range it skips is refreshed here afterwards, and a
    /// range it repeats is refreshed once. As on one thread, a panicking clone leaves every
    /// store empty (the clones made so far are dropped), and its panic comes out of `run`.
    /// Allocates only when the world outgrows the buffers.
    pub(crate) fn refresh_split<R>(
        &mut self,
        entities: &Entities,
        archetypes: &[Archetype],
        mut run: R,
    ) where
        R: FnMut(u32, &(dyn Fn(u32) + Sync)),
    {
        let ranges = entities.slot_count().div_ceil(SLOTS_PER_RANGE);
        if ranges < 2 || u32::try_from(ranges).is_err() {
            return self.refresh(entities, archetypes);
        }
        let Snapshots { stores, split } = self;
        for store in stores.iter_mut() {
            store.entities.clear();
            store.values.clear();
        }
        if stores.is_empty() {
            return;
        }
        let width = stores.len();
        split.start(ranges, width);

        // Pass 1: count each range's values per store.
        let components = &*stores;
        each_range(
            &split.cursors,
            &mut split.taken,
            &mut run,
            &|range, cursors| {
                // Store by store, counting in a local: ranges run at once on other threads
                // keep their cursors on the same cache lines as this one's.
                for (cursor, store) in cursors.iter().zip(components) {
                    let count = entities
                        .iter_live_in(slots_of(range))
                        .filter(|(_, location)| {
                            let table = &archetypes[location.archetype as usize];
                            table.column_index(store.component).is_some()
                        })
                        .count();
                    cursor.store(count, Ordering::Relaxed);
                }
            },
        );

        // Turn the counts into each range's first row, and make room for the totals.
        split.totals.clear();
        for (s, store) in stores.iter_mut().enumerate() {
            let mut next = 0;
            for range in 0..ranges {
                let cursor = split.cursors[range * width + s].get_mut();
                next += std::mem::replace(cursor, next);
            }
            split.totals.push(next);
            store.entities.reserve(next);
            store.values.reserve_total(next);
        }
        split.firsts.clear();
        split
            .firsts
            .extend(split.cursors.iter_mut().map(|cursor| *cursor.get_mut()));
        split.outs.clear();
        split.outs.extend(stores.iter_mut().map(|store| Out {
            component: store.component,
            clone_fn: store.clone_fn,
            drop_fn: store.values.drop_fn(),
            entities: store.entities.as_mut_ptr(),
            values: store.values.ptr_at(0),
            value_size: store.values.item().size(),
        }));

        // Pass 2: clone each range's values into its rows. A range's cursor passes a row
        // once its value is written (`NextRow`), so on a panic the rows between each range's
        // first row and its cursor are exactly the clones to drop.
        let written = DropWrittenOnUnwind {
            outs: &split.outs,
            cursors: &split.cursors,
            firsts: &split.firsts,
        };
        each_range(
            &split.cursors,
            &mut split.taken,
            &mut run,
            &|range, cursors| {
                for (cursor, out) in cursors.iter().zip(written.outs) {
                    // The row in a local, as in pass 1; stored back when the store's loop
                    // ends, or unwinds.
                    let mut next = NextRow {
                        row: cursor.load(Ordering::Relaxed),
                        cursor,
                    };
                    for (entity, location) in entities.iter_live_in(slots_of(range)) {
                        let table = &archetypes[location.archetype as usize];
                        let Some(col) = table.column_index(out.component) else {
                            continue;
                        };
                        let row = next.row;
                        let src = table.columns()[col].ptr_at(location.row as usize);
                        // SAFETY: pass 1 counted this range's values of the store from the
                        // same entities and tables (both borrowed shared until we return), so
                        // `row` is below the next range's first row, and at most the total the
                        // store has room for: no other range writes it, and this range runs
                        // once (`each_range`). The source row holds a valid value of the type
                        // `clone_fn` is for, which no one writes meanwhile.
                        unsafe {
                            out.entities.add(row).write(entity);
                            (out.clone_fn)(src, out.values.wrapping_add(row * out.value_size));
                        }
                        next.row = row + 1;
                    }
                }
            },
        );
        std::mem::forget(written);

        for (store, &total) in stores.iter_mut().zip(&split.totals) {
            // SAFETY: pass 2 wrote rows `0..total` of both, each once: the ranges' rows tile
            // them (pass 1's counts), every range ran to its end (a panic would not reach
            // here), and `reserve` made room for `total`. Both were empty before.
            unsafe {
                store.entities.set_len(total);
                store.values.set_len(total);
            }
        }
        split.outs.clear();
    }
}

/// A range's next row of one store, kept in a register while the store's values are
/// cloned and stored in the range's cursor when the loop ends or unwinds, so the cursor
/// always ends past exactly the values written.
struct NextRow<'a> {
    row: usize,
    cursor: &'a AtomicUsize,
}

impl Drop for NextRow<'_> {
    fn drop(&mut self) {
        self.cursor.store(self.row, Ordering::Relaxed);
    }
}

/// Empties the stores if dropped, which happens only when a clone panicked: the copies made
/// so far are dropped with them.
struct EmptyOnUnwind<'a>(&'a mut [Store]);

impl Drop for EmptyOnUnwind<'_> {
    fn drop(&mut self) {
        for store in self.0.iter_mut() {
            store.entities.clear();
            store.values.clear();
        }
    }
}

/// Drops the clones the second pass of a split refresh wrote, if dropped, which happens only
/// when a clone panicked (the stores still count no values, so nothing else drops them).
struct DropWrittenOnUnwind<'a> {
    outs: &'a [Out],
    cursors: &'a [AtomicUsize],
    firsts: &'a [usize],
}

impl Drop for DropWrittenOnUnwind<'_> {
    fn drop(&mut self) {
        let width = self.outs.len();
        for (at, (cursor, &first)) in self.cursors.iter().zip(self.firsts).enumerate() {
            let out = &self.outs[at % width];
            let Some(drop_fn) = out.drop_fn else { continue };
            for row in first..cursor.load(Ordering::Relaxed) {
                // SAFETY: a range's cursor passed `row` only after its clone was written, and
                // every range has returned or unwound (`run` returns only then), so the value
                // is valid and nothing else owns or drops it.
                unsafe { drop_fn(out.values.wrapping_add(row * out.value_size)) };
            }
        }
    }
}

/// The entity slots of range `range`.
fn slots_of(range: usize) -> Range<usize> {
    range * SLOTS_PER_RANGE..(range + 1) * SLOTS_PER_RANGE
}

impl SplitScratch {
    /// Zeroes the counts of `ranges` ranges of `width` stores.
    fn start(&mut self, ranges: usize, width: usize) {
        self.cursors.truncate(0);
        self.cursors
            .resize_with(ranges * width, || AtomicUsize::new(0));
        self.taken.truncate(0);
        self.taken.resize_with(ranges, || AtomicBool::new(false));
    }
}

/// Runs `pass` once for each range, with that range's `cursors`: through `run`, then on this
/// thread for any range `run` skipped. `taken` has one flag per range, all clear, and is
/// left so.
fn each_range<R>(
    cursors: &[AtomicUsize],
    taken: &mut [AtomicBool],
    run: &mut R,
    pass: &(dyn Fn(usize, &[AtomicUsize]) + Sync),
) where
    R: FnMut(u32, &(dyn Fn(u32) + Sync)),
{
    let ranges = taken.len();
    let width = cursors.len() / ranges;
    let flags = &*taken;
    let once = |range: usize| {
        if !flags[range].swap(true, Ordering::Relaxed) {
            pass(range, &cursors[range * width..(range + 1) * width]);
        }
    };
    // `ranges` fits in u32: `refresh_split` checked it.
    run(ranges as u32, &|batch| {
        if (batch as usize) < ranges {
            once(batch as usize);
        }
    });
    (0..ranges).for_each(once);
    for flag in taken {
        *flag.get_mut() = false;
    }
}
