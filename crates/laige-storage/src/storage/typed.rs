//! The typed doors to registration and resources: each takes the Rust type, so the storage
//! pairs values with its own type-erased functions, and no caller passes a function pointer,
//! a `ComponentInfo` or an id that could belong to another type.

use std::any::TypeId;
use std::mem::{ManuallyDrop, MaybeUninit};

use laige_registry::ComponentId;

use crate::component::{ComponentOptions, RegisterComponentError};
use crate::{Bundle, Entity, StateHash, Storage, WorldError};

impl Storage {
    /// Registers `T` in the component id space with `options`; a versioned type also gets
    /// its snapshot store.
    ///
    /// # Errors
    ///
    /// [`RegisterComponentError`] when `T` is registered already, the id space is full, or
    /// the options are both sparse and versioned.
    pub fn register_component<T: Send + Sync + 'static>(
        &mut self,
        options: ComponentOptions<T>,
    ) -> Result<ComponentId, RegisterComponentError> {
        if options.is_sparse() && options.is_versioned() {
            return Err(RegisterComponentError::SparseVersioned);
        }
        let (hash, clone_fn) = options.erased();
        let id = self.components.register::<T>(hash, clone_fn)?;
        if options.is_sparse() {
            self.components.mark_sparse(id);
            self.sparse.add(&self.components, id);
        }
        if options.is_versioned() {
            let info = *self.components.get(id);
            self.snapshots.add(&info);
        }
        Ok(id)
    }

    /// Registers `T` as a resource type: in the component id space, never on an entity.
    ///
    /// # Errors
    ///
    /// As for [`Storage::register_component`].
    pub fn register_resource<T: Send + Sync + 'static>(
        &mut self,
    ) -> Result<ComponentId, RegisterComponentError> {
        let id = self.components.register::<T>(None, None)?;
        self.components.mark_resource(id);
        Ok(id)
    }

    /// Makes the resource type `T`'s value enter the state hash. Returns `false` (and does
    /// nothing) when `T` is not a registered resource type.
    pub fn hash_resource<T: StateHash + 'static>(&mut self) -> bool {
        match self.resource_id::<T>() {
            Some(id) => {
                self.components.set_hash::<T>(id);
                true
            }
            None => false,
        }
    }

    /// Stores `value` as the resource `T`, dropping the value it replaces. Gives `value`
    /// back when `T` is not a registered resource type. (Registration demanded
    /// `T: Send + Sync`, so a type that passes the lookup is both.)
    pub fn put_resource<T: 'static>(&mut self, value: T) -> Result<(), T> {
        let Some(id) = self.resource_id::<T>() else {
            return Err(value);
        };
        let info = *self.components.get(id);
        let mut value = ManuallyDrop::new(value);
        // SAFETY: `info` is `T`'s own (looked up by `TypeId`), so `value` is a valid, aligned,
        // writable value of its type, given up: `ManuallyDrop` keeps it from being dropped
        // here, whether it was moved into the slot or holds the replaced old value, which
        // `put` dropped in place.
        unsafe { self.resources.put(&info, (&raw mut *value).cast()) };
        Ok(())
    }

    /// Removes the resource `T` and returns it; `None` when it is not held (or `T` is not a
    /// registered resource type). The type stays registered.
    pub fn take_resource<T: 'static>(&mut self) -> Option<T> {
        let id = self.resource_id::<T>()?;
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: `out` is valid for writing one `T`, the type of `id` (looked up by `TypeId`).
        let had = unsafe { self.resources.take(id, out.as_mut_ptr().cast()) };
        // SAFETY: `take` moved the value into `out` when it returned true.
        had.then(|| unsafe { out.assume_init() })
    }

    /// The id of `T` when it is a registered resource type.
    fn resource_id<T: 'static>(&self) -> Option<ComponentId> {
        let id = self.components.id_of::<T>()?;
        debug_assert_eq!(self.components.get(id).type_id(), TypeId::of::<T>());
        self.components.is_resource(id).then_some(id)
    }

    /// Spawns an entity with the components of `bundle`, a tuple such as `(Pos, Vel)`;
    /// `()` spawns an entity without components.
    ///
    /// # Errors
    ///
    /// [`WorldError::UnregisteredComponent`], [`WorldError::BundleDuplicate`], or
    /// [`WorldError::EntityLimit`]; the bundle is dropped.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Result<Entity, WorldError> {
        let ids = B::resolve(self.components()).map_err(|err| self.report(err))?;
        // SAFETY: `put_from` hands out one valid value per resolved component, in order, each
        // of the type of its id, and forgets them; the row is written exactly once per
        // component.
        unsafe { self.spawn_with(ids.set(), |row| bundle.put_from(&ids, &mut 0, row)) }
    }

    /// Sets `entity`'s `T` to `value`: replaces (dropping the old value) when it has one,
    /// else moves the entity to the table with `T` added.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`] or [`WorldError::UnregisteredComponent`]; `value` is
    /// dropped.
    pub fn insert<T: Send + Sync + 'static>(
        &mut self,
        entity: Entity,
        value: T,
    ) -> Result<(), WorldError> {
        let location = self.locate(entity, "insert")?;
        let component = self.require_mut::<T>()?;
        // SAFETY: the entity is live (located above); `component` is `T`'s id.
        let Err(value) = (unsafe { self.insert_sparse(entity, component, value) }) else {
            return Ok(());
        };
        let mut value = ManuallyDrop::new(value);
        // SAFETY: the entity is live at `location`; `value` is a valid, aligned, writable `T`
        // (the type of `component`, looked up by type), given up: `ManuallyDrop` keeps it from
        // being dropped here, whether it was moved into the column or holds the replaced old
        // value, which `insert_erased` dropped in place.
        unsafe { self.insert_erased(entity, location, component, (&raw mut *value).cast()) };
        Ok(())
    }

    /// Removes `entity`'s `T` and returns it; `Ok(None)` when it has none.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`] or [`WorldError::UnregisteredComponent`].
    pub fn remove<T: Send + Sync + 'static>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<T>, WorldError> {
        let location = self.locate(entity, "remove")?;
        let component = self.require_mut::<T>()?;
        // SAFETY: `component` is `T`'s id (looked up by type).
        if let Some(removed) = unsafe { self.remove_sparse::<T>(entity, component) } {
            return Ok(removed);
        }
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: the entity is live at `location`; `out` is valid for one `T`, the type of
        // `component`.
        let had = unsafe {
            self.remove_erased(entity, location, component, Some(out.as_mut_ptr().cast()))
        };
        // SAFETY: `remove_erased` moved the value into `out` when it returned true.
        Ok(had.then(|| unsafe { out.assume_init() }))
    }
}
