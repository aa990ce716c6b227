//! Typed structural changes of sparse components: no row, no table, no erased copy.

use laige_registry::ComponentId;

use crate::{Entity, Storage};

impl Storage {
    /// Sets `entity`'s value of `component` to `value` when `component` is sparse (replacing
    /// and dropping an old value); gives `value` back when it is a table component.
    ///
    /// # Safety
    ///
    /// `entity` is live; `component` is `T`'s id.
    #[inline]
    pub unsafe fn insert_sparse<T: 'static>(
        &mut self,
        entity: Entity,
        component: ComponentId,
        value: T,
    ) -> Result<(), T> {
        debug_assert!(self.is_alive(entity));
        debug_assert_eq!(
            self.components.get(component).type_id(),
            std::any::TypeId::of::<T>()
        );
        match self.sparse.get_mut(component) {
            Some(set) => {
                // SAFETY: `T` is the set's type (the caller's promise about `component`); the
                // entity is live, so its slot's entry stays true until its despawn clears it.
                unsafe { set.insert_typed(entity, value, self.change_tick) };
                Ok(())
            }
            None => Err(value),
        }
    }

    /// Removes `entity`'s value of the sparse `component` and returns it (`Some(None)` when
    /// it has none); `None` when `component` is a table component.
    ///
    /// # Safety
    ///
    /// `entity` is live; `component` is `T`'s id.
    #[inline]
    pub unsafe fn remove_sparse<T: 'static>(
        &mut self,
        entity: Entity,
        component: ComponentId,
    ) -> Option<Option<T>> {
        debug_assert_eq!(
            self.components.get(component).type_id(),
            std::any::TypeId::of::<T>()
        );
        debug_assert!(self.is_alive(entity));
        let set = self.sparse.get_mut(component)?;
        // SAFETY: `T` is the set's type (the caller's promise about `component`); the entity
        // is live, as `remove_typed` needs.
        Some(unsafe { set.remove_typed(entity) })
    }
}
