//! The change tick: the number structural changes stamp tracked values with, which the tick
//! layer advances (one per system run and one per command application, in schedule order),
//! and the exclusive doors to the rows' ticks.

use laige_registry::ComponentId;

use crate::column::{ColumnTicks, ComponentTicks};
use crate::{Entity, Storage};

/// The tick a new storage starts at: above every system's "never ran" tick (0), so a
/// system's first run sees everything spawned before it as added.
pub(super) const FIRST_TICK: u64 = 1;

impl Storage {
    /// The current change tick: what spawns, inserts and `World::get_mut` stamp tracked
    /// values with.
    #[inline]
    pub fn change_tick(&self) -> u64 {
        self.change_tick
    }

    /// Moves the change tick on by one and returns the new tick. Only the tick layer calls
    /// it (per system run and per command application), so ticks follow the schedule,
    /// never thread timing.
    #[inline]
    pub fn advance_change_tick(&mut self) -> u64 {
        self.change_tick += 1;
        self.change_tick
    }

    /// Sets the change tick (a rollback restoring a saved world). Ticks must not go back
    /// below rows stamped since, or filters would miss them; restoring rows and tick
    /// together keeps that.
    pub fn set_change_tick(&mut self, tick: u64) {
        self.change_tick = tick;
    }

    /// The change ticks of `entity`'s `component`, when it is alive, has it and the
    /// component is tracked. Takes `&mut self`, so no system writes ticks meanwhile.
    pub fn component_ticks(
        &mut self,
        entity: Entity,
        component: ComponentId,
    ) -> Option<ComponentTicks> {
        let location = self.entities.location(entity)?;
        if let Some(set) = self.sparse.get_mut(component) {
            return set.entity_ticks(entity);
        }
        let row = location.row() as usize;
        self.ticks_mut(location.archetype(), component)?.get(row)
    }

    /// Marks `entity`'s `component` changed at the current tick (a write outside any
    /// system: `World::get_mut`). Nothing for an untracked component or a stale entity.
    pub fn mark_changed(&mut self, entity: Entity, component: ComponentId) {
        let Some(location) = self.entities.location(entity) else {
            return;
        };
        let tick = self.change_tick;
        if let Some(set) = self.sparse.get_mut(component) {
            set.set_changed(entity, tick);
            return;
        }
        if let Some(ticks) = self.ticks_mut(location.archetype(), component) {
            ticks.set_changed(location.row() as usize, tick);
        }
    }

    /// The change ticks of `component`'s column in table `table`, exclusively: what a saved
    /// world state reads and restores (with [`Storage::change_tick`]).
    pub(crate) fn ticks_mut(
        &mut self,
        table: u32,
        component: ComponentId,
    ) -> Option<&mut ColumnTicks> {
        let table = self.archetypes.get_mut(table as usize)?;
        let column = table.column_index(component)?;
        table.columns_mut()[column].ticks_mut()
    }

    /// Restores the ticks of `entity`'s `component` (a rollback), when it is tracked; returns
    /// whether it did.
    pub fn restore_component_ticks(
        &mut self,
        entity: Entity,
        component: ComponentId,
        ticks: ComponentTicks,
    ) -> bool {
        let Some(location) = self.entities.location(entity) else {
            return false;
        };
        if let Some(set) = self.sparse.get_mut(component) {
            return set.set_ticks(entity, ticks);
        }
        match self.ticks_mut(location.archetype(), component) {
            Some(column) => {
                column.set(location.row() as usize, ticks);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Component;
    use crate::component::ComponentOptions;

    struct Pos(#[allow(dead_code)] u32);
    impl Component for Pos {}
    struct Vel(#[allow(dead_code)] u32);
    impl Component for Vel {}

    fn storage() -> (Storage, ComponentId, ComponentId) {
        let mut storage = Storage::new(16, 1 << 20, laige_diag::Diagnostics::default());
        let pos = storage
            .register_component(ComponentOptions::<Pos>::new().tracked())
            .unwrap();
        let vel = storage
            .register_component(ComponentOptions::<Vel>::new())
            .unwrap();
        (storage, pos, vel)
    }

    #[test]
    fn spawns_stamp_the_tick_despawn_moves_keep_it_and_marks_raise_changed() {
        let (mut storage, pos, vel) = storage();
        let a = storage.spawn_batch([(Pos(1),)]).unwrap()[0];
        assert_eq!(storage.advance_change_tick(), 2);
        let b = storage.spawn_batch([(Pos(2),)]).unwrap()[0];
        let c = storage.spawn_batch([(Vel(2),)]).unwrap()[0];
        assert_eq!(
            storage.component_ticks(a, pos),
            Some(ComponentTicks::new(1))
        );
        assert_eq!(
            storage.component_ticks(b, pos),
            Some(ComponentTicks::new(2))
        );
        assert_eq!(storage.component_ticks(c, vel), None, "untracked");
        storage.advance_change_tick();
        // Despawning `a` swaps `b` into its row, with its ticks.
        let location = storage.entities().location(a).unwrap();
        assert!(storage.despawn_at(a, location));
        assert_eq!(
            storage.component_ticks(b, pos),
            Some(ComponentTicks::new(2))
        );
        storage.mark_changed(b, pos);
        let ticks = storage.component_ticks(b, pos).unwrap();
        assert_eq!((ticks.added, ticks.changed), (2, 3));
        assert!(storage.restore_component_ticks(b, pos, ComponentTicks::new(1)));
        assert_eq!(
            storage.component_ticks(b, pos),
            Some(ComponentTicks::new(1))
        );
    }

    /// A spawn writes the values first and stamps the tracked columns' ticks after (once
    /// per batch): through table growth past the size hint, one at a time, and when the
    /// batch's iterator panics, every spawned row has its ticks.
    #[test]
    fn batch_spawns_stamp_every_row_through_growth_and_a_panicking_iterator() {
        let (mut storage, pos, vel) = storage();
        // A lower size hint of 0: the table grows row by row while the ticks wait.
        let spawned = storage
            .spawn_batch((0..300).filter(|_| true).map(|i| (Pos(i), Vel(i))))
            .unwrap()
            .to_vec();
        storage.advance_change_tick();
        let one = storage.spawn((Pos(7), Vel(7))).unwrap();
        storage.advance_change_tick();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let bundles = (0..50).map(|i| {
                assert!(i < 20, "the iterator panics mid-batch");
                (Pos(i), Vel(i))
            });
            let _ = storage.spawn_batch(bundles);
        }));
        assert!(panicked.is_err());
        let table = storage.entities().location(one).unwrap().archetype();
        let rows = storage.archetypes()[table as usize].len();
        assert_eq!(rows, 300 + 1 + 20);
        let column = storage.archetypes()[table as usize].columns().iter();
        let lengths: Vec<Option<usize>> = column.map(|c| c.ticks().map(|t| t.len())).collect();
        assert_eq!(lengths, [Some(rows), None], "Pos tracked, Vel not");
        for &e in &spawned {
            assert_eq!(
                storage.component_ticks(e, pos),
                Some(ComponentTicks::new(1))
            );
            assert_eq!(storage.component_ticks(e, vel), None);
        }
        assert_eq!(
            storage.component_ticks(one, pos),
            Some(ComponentTicks::new(2))
        );
        let last = *storage.archetypes()[table as usize]
            .entities()
            .last()
            .unwrap();
        assert_eq!(
            storage.component_ticks(last, pos),
            Some(ComponentTicks::new(3))
        );
        // The table stays whole: a despawn swaps the last row (and its ticks) in.
        let location = storage.entities().location(spawned[0]).unwrap();
        assert!(storage.despawn_at(spawned[0], location));
        assert_eq!(
            storage.component_ticks(last, pos),
            Some(ComponentTicks::new(3))
        );
    }
}
