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
        if options.is_tracked() {
            self.components.mark_tracked(id);
        }
        self.components.set_save_fn(id, options.save_fn());
        #[cfg(feature = "serde")]
        self.components.set_serde_fns(id, options.serde_fns());
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

    /// Registers a resource of type `T` keyed by the name `label` too, shown in messages as
    /// `display`: a second `Grid` named `"units"` beside one named `"terrain"` gets its own
    /// id, declared, ordered and hashed apart.
    ///
    /// # Errors
    ///
    /// [`RegisterComponentError::Duplicate`] when a `T` named `label` is registered already;
    /// [`RegisterComponentError::Full`].
    pub fn register_named_resource<T: Send + Sync + 'static>(
        &mut self,
        label: &'static str,
        display: &'static str,
    ) -> Result<ComponentId, RegisterComponentError> {
        self.components.register_named::<T>(label, display)
    }

    /// Stores `value` as the resource of id `id`, whose type must be `T` (a plain or a
    /// named resource), dropping the value it replaces. Gives `value` back otherwise.
    pub fn put_resource_at<T: 'static>(&mut self, id: ComponentId, value: T) -> Result<(), T> {
        if !self.is_resource_of::<T>(id) {
            return Err(value);
        }
        let info = *self.components.get(id);
        let mut value = ManuallyDrop::new(value);
        // SAFETY: `info` is of type `T` (checked by `TypeId` above), so `value` is a valid,
        // aligned, writable value of its type, given up, as in `put_resource`.
        unsafe { self.resources.put(&info, (&raw mut *value).cast()) };
        Ok(())
    }

    /// Removes the resource of id `id`, of type `T`, and returns it; `None` when it is not
    /// held or is not a `T` resource.
    pub fn take_resource_at<T: 'static>(&mut self, id: ComponentId) -> Option<T> {
        if !self.is_resource_of::<T>(id) {
            return None;
        }
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: `out` is valid for writing one `T`, the type of `id` (checked above).
        let had = unsafe { self.resources.take(id, out.as_mut_ptr().cast()) };
        // SAFETY: `take` moved the value into `out` when it returned true.
        had.then(|| unsafe { out.assume_init() })
    }

    /// Makes the resource of id `id`, of type `T`, enter the state hash; `false` (nothing
    /// done) when `id` is not a `T` resource.
    pub fn hash_resource_at<T: StateHash + 'static>(&mut self, id: ComponentId) -> bool {
        if !self.is_resource_of::<T>(id) {
            return false;
        }
        self.components.set_hash::<T>(id);
        true
    }

    /// Whether `id` is a registered resource whose type is `T`.
    pub fn is_resource_of<T: 'static>(&self, id: ComponentId) -> bool {
        self.components
            .info(id)
            .is_some_and(|info| info.is_resource() && info.type_id() == TypeId::of::<T>())
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

    /// Makes the resource of type `T` named `name` part of a saved state, cloned. Returns
    /// `false` (and does nothing) when no such named resource is registered.
    pub fn save_named_resource<T: Clone + 'static>(&mut self, name: &str) -> bool {
        match self.components.named_id::<T>(name) {
            Some(id) => {
                self.components.set_saved::<T>(id);
                true
            }
            None => false,
        }
    }

    /// Makes the resource type `T` saved by `World::save_state` (cloned into the state and
    /// back with `clone_from`). Returns `false` (and does nothing) when `T` is not a
    /// registered resource type.
    pub fn save_resource<T: Clone + 'static>(&mut self) -> bool {
        match self.resource_id::<T>() {
            Some(id) => {
                self.components.set_saved::<T>(id);
                true
            }
            None => false,
        }
    }

    /// Makes the resource type `T` written to save files and read back through its serde
    /// impls, and saved (cloned). Returns `false` (and does nothing) when `T` is not a
    /// registered resource type. Feature `serde`.
    #[cfg(feature = "serde")]
    pub fn serde_resource<T>(&mut self) -> bool
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        match self.resource_id::<T>() {
            Some(id) => {
                self.components.set_serde::<T>(id);
                true
            }
            None => false,
        }
    }

    /// [`Storage::serde_resource`] for the resource of type `T` named `name`.
    #[cfg(feature = "serde")]
    pub fn serde_named_resource<T>(&mut self, name: &str) -> bool
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        match self.components.named_id::<T>(name) {
            Some(id) => {
                self.components.set_serde::<T>(id);
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
    // Inlined: the sparse path is a few loads and stores, which a call would double.
    #[inline]
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
    // Inlined, as `insert` is.
    #[inline]
    pub fn remove<T: Send + Sync + 'static>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<T>, WorldError> {
        let location = self.locate(entity, "remove")?;
        let component = self.require_mut::<T>()?;
        // SAFETY: the entity is live (located above); `component` is `T`'s id (looked up by
        // type).
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
