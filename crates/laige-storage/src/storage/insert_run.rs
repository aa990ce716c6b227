//! A run of inserts of one table component, applied table by table (issue 21): the same
//! rows, row order, values, drops and change ticks as inserting one entity at a time.
//!
//! One at a time, each insert that adds the component swap-removes the entity's row from its
//! table (the last row fills the hole) and appends it to the table with the component added.
//! The run does the same in three passes:
//! 1. the entity columns and entity locations are changed exactly as one at a time, command
//!    by command, and each move's source row is recorded (a *step*);
//! 2. per source table, each value column replays that table's steps in one loop (removed
//!    value appended to the target's column, last row into the hole), and the target's
//!    column of the component takes the inserted values in the same order. A table's rows
//!    go only to its one target (its set plus the component), and no target is a source, so
//!    replaying table by table gives the rows of command order;
//! 3. in command order, the values of entities that already had the component replace
//!    theirs, and the values of skipped commands are dropped. Rows of tables that have the
//!    component never move during a run (they are only appended to), so the rows recorded
//!    in pass 1 still hold.
//!
//! Every drop runs in pass 3, in command order as one at a time, when every table is whole
//! again: a panicking drop leaves the storage consistent.

use laige_registry::ComponentId;

use crate::column::ComponentTicks;
use crate::entity::Location;
use crate::{Entity, Storage};

/// Where an insert run's values come from (the command buffer).
pub(crate) trait RunValues {
    /// Item `item`'s value, which the storage takes now (into a column, or in place of a
    /// replaced value): the caller gives it up. Called at most once per item.
    fn take(&mut self, item: usize) -> *mut u8;
    /// Drops item `item`'s value: its target was not live. Called at most once per item.
    fn skip(&mut self, item: usize);
}

/// An insert run's scratch, kept between runs so a steady tick allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct RunScratch {
    /// Per archetype id, rows the run may move in (an upper bound); 0 between runs.
    incoming: Vec<u32>,
    /// The tables with `incoming` rows.
    targets: Vec<u32>,
    /// The moves, in command order (pass 1).
    steps: Vec<Step>,
    /// The items not moved, in command order: replaced values and skipped commands.
    rest: Vec<Rest>,
}

/// One move: item `item`'s entity left row `row` of table `table`.
#[derive(Clone, Copy, Debug)]
struct Step {
    table: u32,
    row: u32,
    item: u32,
}

/// An item that moves nothing: it replaces the value at `row` of `table`, or is skipped
/// ([`SKIPPED`]).
#[derive(Clone, Copy, Debug)]
struct Rest {
    table: u32,
    row: u32,
    item: u32,
}

const SKIPPED: u32 = u32::MAX;

impl Storage {
    /// Sets `component` of each `targets[i]` to item `i`'s value, in order, as
    /// [`Storage::insert_erased`] one at a time would: adds it (moving the row) or replaces
    /// the old value; a `None` target is skipped and its value dropped.
    ///
    /// # Safety
    ///
    /// `component` is a table component of this storage (not sparse, not a resource); each
    /// `Some` target is live; `values.take(i)` gives a valid, aligned, writable value of
    /// `component`'s type, owned by nobody else once given.
    pub(crate) unsafe fn insert_run(
        &mut self,
        component: ComponentId,
        targets: &[Option<Entity>],
        values: &mut impl RunValues,
    ) {
        debug_assert!(self.sparse.get(component).is_none());
        // Taken out, so the passes can borrow tables; a panic in pass 3 drops it, and the
        // next run starts from an empty one.
        let mut scratch = std::mem::take(&mut self.run);
        self.reserve_run(component, targets, &mut scratch);
        let mixed = self.move_entities(component, targets, &mut scratch);
        if mixed {
            // Steps of one table stay in command order: the item breaks the ties.
            scratch.steps.sort_unstable_by_key(|s| (s.table, s.item));
        }
        let tick = self.change_tick;
        for segment in scratch.steps.chunk_by(|a, b| a.table == b.table) {
            let from = segment[0].table;
            let to = self.add_target(from, component);
            let Ok([src, dst]) = self
                .archetypes
                .get_disjoint_mut([from as usize, to as usize])
            else {
                unreachable!("adding a component always changes the archetype");
            };
            // SAFETY: `dst` is `src`'s set plus `component`; the rows are those pass 1 took
            // from `src`'s entity column, in its order; `reserve_run` made room in `dst`.
            unsafe { src.move_rows_to(dst, segment.iter().map(|s| s.row as usize)) };
            let col = dst
                .column_index(component)
                .expect("the target has the added component");
            let column = &mut dst.columns_mut()[col];
            for step in segment {
                // SAFETY: a valid value of the column's type, given up (the caller's
                // promise); room was reserved.
                unsafe { column.push(values.take(step.item as usize), ComponentTicks::new(tick)) };
            }
            debug_assert!(dst.columns().iter().all(|c| c.len() == dst.len()));
        }
        for rest in &scratch.rest {
            if rest.table == SKIPPED {
                values.skip(rest.item as usize);
                continue;
            }
            let table = &mut self.archetypes[rest.table as usize];
            let col = table
                .column_index(component)
                .expect("a replaced value's table has the component");
            // SAFETY: the row holds the entity's value (rows of tables with the component do
            // not move during the run); the new value is valid, given up, and in the buffer,
            // not in the column.
            unsafe {
                table.columns_mut()[col].replace(
                    rest.row as usize,
                    values.take(rest.item as usize),
                    tick,
                )
            };
        }
        scratch.steps.clear();
        scratch.rest.clear();
        self.run = scratch;
    }

    /// Reserves, once per target table, room for every row the run may move in (an upper
    /// bound: an entity named twice is counted twice), and the scratch lists' room, so the
    /// passes that leave tables uneven allocate nothing and cannot panic.
    fn reserve_run(
        &mut self,
        component: ComponentId,
        targets: &[Option<Entity>],
        scratch: &mut RunScratch,
    ) {
        // The last source table lacking the component, and its target: consecutive
        // entities of one table skip the lookups.
        let mut last = (u32::MAX, 0usize);
        for &entity in targets.iter().flatten() {
            let Some(location) = self.entities.location(entity) else {
                continue;
            };
            let from = location.archetype;
            if from != last.0 {
                if self.archetypes[from as usize]
                    .column_index(component)
                    .is_some()
                {
                    continue;
                }
                let to = self.add_target(from, component) as usize;
                if scratch.incoming.len() <= to {
                    scratch.incoming.resize(to + 1, 0);
                }
                if scratch.incoming[to] == 0 {
                    scratch.targets.push(to as u32);
                }
                last = (from, to);
            }
            scratch.incoming[last.1] += 1;
        }
        for &to in &scratch.targets {
            let rows = std::mem::take(&mut scratch.incoming[to as usize]);
            self.archetypes[to as usize].reserve_rows_amortized(rows as usize);
        }
        scratch.targets.clear();
        scratch.steps.reserve(targets.len());
        scratch.rest.reserve(targets.len());
    }

    /// Pass 1: moves each entity that lacks `component` to its target's entity column,
    /// exactly as one at a time, recording the steps; lists the others. Returns whether the
    /// moves came from more than one table.
    fn move_entities(
        &mut self,
        component: ComponentId,
        targets: &[Option<Entity>],
        scratch: &mut RunScratch,
    ) -> bool {
        let mut first_table = None;
        let mut mixed = false;
        let mut item = 0;
        while item < targets.len() {
            let target = targets[item];
            let Some((entity, location)) =
                target.and_then(|e| Some((e, self.entities.location(e)?)))
            else {
                debug_assert!(target.is_none(), "the caller passes live targets");
                scratch.rest.push(Rest {
                    table: SKIPPED,
                    row: 0,
                    item: item as u32,
                });
                item += 1;
                continue;
            };
            let from = location.archetype;
            if self.archetypes[from as usize]
                .column_index(component)
                .is_some()
            {
                scratch.rest.push(Rest {
                    table: from,
                    row: location.row,
                    item: item as u32,
                });
                item += 1;
                continue;
            }
            mixed |= *first_table.get_or_insert(from) != from;
            let to = self.add_target(from, component);
            let Ok([src, dst]) = self
                .archetypes
                .get_disjoint_mut([from as usize, to as usize])
            else {
                unreachable!("adding a component always changes the archetype");
            };
            let entities = &mut self.entities;
            // This move and those of the next items in the same table, with the tables
            // borrowed once.
            let mut next = Some((entity, location));
            while let Some((entity, location)) = next {
                // SAFETY: the entity is live at `location`, so its row is in bounds; pass 2
                // replays this swap-remove on the value columns before anything reads the
                // table.
                let moved = unsafe { src.swap_remove_entity(location.row as usize) };
                // SAFETY: `reserve_run` counted this move; pass 2 pushes the row's values.
                let row = unsafe { dst.push_entity_ahead(entity) };
                entities.set_location(entity, Location { archetype: to, row });
                if let Some(moved) = moved {
                    entities.set_location(moved, location);
                }
                scratch.steps.push(Step {
                    table: from,
                    row: location.row,
                    item: item as u32,
                });
                item += 1;
                next = targets
                    .get(item)
                    .copied()
                    .flatten()
                    .and_then(|e| Some((e, entities.location(e)?)))
                    .filter(|(_, l)| l.archetype == from);
            }
        }
        mixed
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use laige_registry::ComponentId;
    use proptest::prelude::*;

    use crate::command::{ApplyStats, CommandBuffer, CommandTarget, Commands, ONE_BY_ONE};
    use crate::component::ComponentOptions;
    use crate::{Component, ComponentTicks, Entity, StateHash, StateHasher, Storage};

    /// Tracked and hashed, 4 bytes.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct P(u32);
    impl Component for P {}
    impl StateHash for P {
        fn hash_state(&self, h: &mut StateHasher) {
            self.0.hash_state(h);
        }
    }
    /// Untracked.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct H(u64);
    impl Component for H {}
    /// Zero-sized.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Tag;
    impl Component for Tag {}
    /// 40 bytes, a size without a constant-size copy; tracked.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Big([u32; 10]);
    impl Component for Big {}
    /// Sparse and tracked: its inserts keep their own path.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct S(u32);
    impl Component for S {}

    thread_local! {
        /// The `Logged` values dropped, in drop order.
        static DROPS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
        /// `Logged` values made minus dropped: a leak or a double drop shows.
        static LIVE: Cell<i64> = const { Cell::new(0) };
    }

    /// Owns heap memory; logs its drops.
    #[derive(Debug)]
    struct Logged(u32, #[allow(dead_code)] Box<u32>);
    impl Logged {
        fn new(value: u32) -> Self {
            LIVE.set(LIVE.get() + 1);
            Self(value, Box::new(value))
        }
    }
    impl Drop for Logged {
        fn drop(&mut self) {
            LIVE.set(LIVE.get() - 1);
            DROPS.with_borrow_mut(|d| d.push(self.0));
        }
    }
    impl Component for Logged {}

    struct Ids {
        p: ComponentId,
        h: ComponentId,
        tag: ComponentId,
        big: ComponentId,
        logged: ComponentId,
        s: ComponentId,
    }

    /// A storage with entities `spawns[i]`'s components (bit 0 P, 1 H, 2 Tag, 3 Big,
    /// 4 Logged, 5 S), `dead` of them despawned, and, with `floors`, every tracked table
    /// column marked changed as a whole (a tick floor). The same arguments give the same
    /// storage.
    fn build(spawns: &[u8], dead: &[usize], floors: bool) -> (Storage, Ids, Vec<Entity>) {
        let mut s = Storage::new(0, 1 << 20, laige_diag::Diagnostics::default());
        let ids = Ids {
            p: s.register_component(ComponentOptions::<P>::new().tracked().hashed())
                .unwrap(),
            h: s.register_component(ComponentOptions::<H>::new()).unwrap(),
            tag: s
                .register_component(ComponentOptions::<Tag>::new())
                .unwrap(),
            big: s
                .register_component(ComponentOptions::<Big>::new().tracked())
                .unwrap(),
            logged: s
                .register_component(ComponentOptions::<Logged>::new())
                .unwrap(),
            s: s.register_component(ComponentOptions::<S>::new().sparse().tracked())
                .unwrap(),
        };
        let mut handles = Vec::new();
        for (i, &mask) in spawns.iter().enumerate() {
            let i = i as u32;
            let e = s.spawn(()).unwrap();
            if mask & 1 != 0 {
                s.insert(e, P(i)).unwrap();
            }
            if mask & 2 != 0 {
                s.insert(e, H(u64::from(i))).unwrap();
            }
            if mask & 4 != 0 {
                s.insert(e, Tag).unwrap();
            }
            if mask & 8 != 0 {
                s.insert(e, Big([i; 10])).unwrap();
            }
            if mask & 16 != 0 {
                s.insert(e, Logged::new(1_000_000 + i)).unwrap();
            }
            if mask & 32 != 0 {
                s.insert(e, S(i)).unwrap();
            }
            handles.push(e);
        }
        for &d in dead {
            if let Some(&e) = handles.get(d % handles.len().max(1))
                && let Some(location) = s.entities().location(e)
            {
                s.despawn_at(e, location);
            }
        }
        s.advance_change_tick();
        if floors {
            for table in s.archetypes() {
                for column in table.columns() {
                    if let Some(ticks) = column.ticks() {
                        // SAFETY: in bounds; the storage is borrowed whole, so nothing else
                        // reads or writes these ticks.
                        unsafe { ticks.mark_changed(0, table.len(), 2) };
                    }
                }
            }
        }
        s.advance_change_tick();
        (s, ids, handles)
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Consecutive inserts of one component (`what`: P, Logged, Big, Tag, S, H), each on
        /// a target index and with a value.
        Inserts(u8, Vec<(usize, u32)>),
        Spawn,
        RemoveP(usize),
        Despawn(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u8..6, proptest::collection::vec((any::<usize>(), any::<u32>()), 1..24))
                .prop_map(|(what, inserts)| Op::Inserts(what, inserts)),
            1 => Just(Op::Spawn),
            1 => any::<usize>().prop_map(Op::RemoveP),
            1 => any::<usize>().prop_map(Op::Despawn),
        ]
    }

    /// Records `ops` on `handles` (and on the placeholders the buffer's spawns return).
    fn record(s: &Storage, buffer: &mut CommandBuffer, handles: &[Entity], ops: &[Op]) {
        let mut cmds = Commands::new(buffer, s);
        let mut targets: Vec<CommandTarget> = handles.iter().map(|&e| e.into()).collect();
        for op in ops {
            if let Op::Spawn = op {
                targets.push(cmds.spawn((H(7),)).into());
                continue;
            }
            if targets.is_empty() {
                continue;
            }
            let at = |i: usize| targets[i % targets.len()];
            match op {
                Op::Inserts(what, inserts) => {
                    for &(i, v) in inserts {
                        match what {
                            0 => cmds.insert(at(i), P(v)),
                            1 => cmds.insert(at(i), Logged::new(v)),
                            2 => cmds.insert(at(i), Big([v; 10])),
                            3 => cmds.insert(at(i), Tag),
                            4 => cmds.insert(at(i), S(v)),
                            _ => cmds.insert(at(i), H(u64::from(v))),
                        }
                    }
                }
                Op::RemoveP(i) => cmds.remove::<P>(at(*i)),
                Op::Despawn(i) => cmds.despawn(at(*i)),
                Op::Spawn => unreachable!(),
            }
        }
    }

    /// Everything an insert run must leave as one by one does: each table's component set
    /// and entities in row order, every live entity's values and change ticks, the state hash.
    #[derive(Debug, PartialEq)]
    struct Seen {
        tables: Vec<(Vec<ComponentId>, Vec<Entity>)>,
        rows: Vec<Row>,
        hash: u64,
    }

    #[derive(Debug, PartialEq)]
    struct Row {
        entity: Entity,
        p: Option<(P, Option<ComponentTicks>)>,
        h: Option<H>,
        tag: bool,
        big: Option<(Big, Option<ComponentTicks>)>,
        logged: Option<u32>,
        s: Option<(S, Option<ComponentTicks>)>,
    }

    fn seen(s: &mut Storage, ids: &Ids) -> Seen {
        let tables = s
            .archetypes()
            .iter()
            .map(|t| (t.components().to_vec(), t.entities().to_vec()))
            .collect::<Vec<_>>();
        let entities: Vec<Entity> = tables.iter().flat_map(|t| t.1.clone()).collect();
        let mut rows = Vec::new();
        for entity in entities {
            let location = s.entities().location(entity).unwrap();
            let ptr = |id| s.component_ptr(entity, location, id);
            // SAFETY: each pointer is to a live value of the id's type; nothing writes.
            let (p, h, tag, big, logged, sv) = unsafe {
                (
                    ptr(ids.p).map(|v| *v.cast::<P>()),
                    ptr(ids.h).map(|v| *v.cast::<H>()),
                    ptr(ids.tag).is_some(),
                    ptr(ids.big).map(|v| *v.cast::<Big>()),
                    ptr(ids.logged).map(|v| (*v.cast::<Logged>()).0),
                    ptr(ids.s).map(|v| *v.cast::<S>()),
                )
            };
            rows.push(Row {
                entity,
                p: p.map(|v| (v, s.component_ticks(entity, ids.p))),
                h,
                tag,
                big: big.map(|v| (v, s.component_ticks(entity, ids.big))),
                logged,
                s: sv.map(|v| (v, s.component_ticks(entity, ids.s))),
            });
        }
        let mut h = StateHasher::new();
        // SAFETY: no context is alive: the storage is borrowed exclusively.
        unsafe { s.hash_components(&mut h) };
        Seen {
            tables,
            rows,
            hash: h.finish(),
        }
    }

    /// What applying one buffer returned, spawned and dropped (in order), and what it left.
    type Applied = (ApplyStats, Vec<Option<Entity>>, Vec<u32>, Seen);

    /// Builds the storage, applies each buffer of `buffers` in turn (one by one when
    /// `one_by_one`), and returns per buffer what applying returned, spawned and dropped,
    /// and what it left.
    fn run(
        spawns: &[u8],
        dead: &[usize],
        floors: bool,
        buffers: &[Vec<Op>],
        one_by_one: bool,
    ) -> Vec<Applied> {
        let (mut s, ids, handles) = build(spawns, dead, floors);
        let mut buffer = CommandBuffer::new();
        let mut out = Vec::new();
        for ops in buffers {
            record(&s, &mut buffer, &handles, ops);
            DROPS.with_borrow_mut(Vec::clear);
            ONE_BY_ONE.set(one_by_one);
            let stats = s.apply_commands(&mut buffer).unwrap();
            ONE_BY_ONE.set(false);
            let drops = DROPS.with_borrow_mut(std::mem::take);
            out.push((
                stats,
                buffer.last_spawned().to_vec(),
                drops,
                seen(&mut s, &ids),
            ));
            s.advance_change_tick();
        }
        drop(s);
        out
    }

    fn check(spawns: &[u8], dead: &[usize], floors: bool, buffers: &[Vec<Op>]) {
        LIVE.set(0);
        let batched = run(spawns, dead, floors, buffers, false);
        let single = run(spawns, dead, floors, buffers, true);
        assert_eq!(LIVE.get(), 0, "every Logged value dropped once");
        for (i, (b, s)) in batched.iter().zip(&single).enumerate() {
            assert_eq!(b.0, s.0, "buffer {i}: the same stats and first skip");
            assert_eq!(b.1, s.1, "buffer {i}: the same spawned entities");
            assert_eq!(b.2, s.2, "buffer {i}: the same drops, in the same order");
            assert_eq!(
                b.3, s.3,
                "buffer {i}: the same tables, rows, values, ticks and hash"
            );
        }
    }

    #[test]
    fn a_run_from_several_tables_moves_rows_as_one_by_one() {
        // Entities 0..6 in {P} and {P, H} alternately; entity 6 has Logged already; 7 dies.
        let spawns = [1, 3, 1, 3, 1, 3, 16, 1];
        let ops = vec![Op::Inserts(
            1,
            vec![
                (0, 10),
                (3, 11),
                (6, 12),
                (7, 13),
                (0, 14),
                (4, 15),
                (1, 16),
                (2, 17),
            ],
        )];
        check(&spawns, &[7], true, std::slice::from_ref(&ops));
        let got = run(&spawns, &[7], true, &[ops], false);
        let (stats, _, drops, seen) = &got[0];
        assert_eq!((stats.applied, stats.skipped), (7, 1));
        // The replaced values go in command order: entity 6's old one, 7's (dead), then
        // entity 0's first.
        assert_eq!(drops, &[1_000_006, 13, 10]);
        // {P}: rows 0, 2, 4, 7 held entities 0, 2, 4 (7 died first, so 4 was last). Taking
        // 0 (4 fills it), 4 (row 0, last) and 2 leaves none; {P, Logged} got 0, 4, 2 in
        // that order.
        let by_set = |set: &[ComponentId]| {
            seen.tables
                .iter()
                .find(|t| t.0 == set)
                .map(|t| t.1.iter().map(|e| e.index()).collect::<Vec<_>>())
                .unwrap()
        };
        let (s, ids, _) = build(&spawns, &[7], true);
        drop(s);
        assert_eq!(by_set(&[ids.p, ids.logged]), [0, 4, 2]);
        assert_eq!(by_set(&[ids.p, ids.h, ids.logged]), [3, 1]);
        assert_eq!(by_set(&[ids.p, ids.h]), [5]);
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 4 } else { 256 },
            ..ProptestConfig::default()
        })]

        #[test]
        fn insert_runs_match_inserting_one_by_one(
            spawns in proptest::collection::vec(0u8..64, 0..40),
            dead in proptest::collection::vec(any::<usize>(), 0..6),
            floors in any::<bool>(),
            buffers in proptest::collection::vec(proptest::collection::vec(op(), 0..10), 1..3),
        ) {
            check(&spawns, &dead, floors, &buffers);
        }
    }
}
