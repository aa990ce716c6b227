//! Resources on the World and in a system's context: the World's setup-time methods (which
//! register a resource type with the registry too) and a context's checked access.

use std::any::type_name;

use laige_registry::ComponentId;

use crate::{StateHash, World, WorldError};

impl World {
    /// Stores `value` as the resource `T`: a singleton in the world, such as the time or the
    /// input state. The first insert registers `T` in the component id space (and with the
    /// registry, under its short name), so systems declare access to it with
    /// `.reads::<T>()` / `.writes::<T>()` and conflict on it like on a component; a later
    /// insert replaces (and drops) the value and returns the same id.
    ///
    /// The value does not enter the state hash; see [`World::insert_hashed_resource`].
    ///
    /// # Errors
    ///
    /// [`WorldError::ComponentAsResource`] when `T` is registered as a component, or
    /// [`WorldError::ComponentLimit`]; `value` is dropped.
    pub fn insert_resource<T: Send + Sync + 'static>(
        &mut self,
        value: T,
    ) -> Result<ComponentId, WorldError> {
        let id = self.resource_id::<T>()?;
        self.put_resource(value);
        Ok(id)
    }

    /// [`World::insert_resource`] for a resource whose value enters
    /// [`World::state_hash`]: after the components, in ascending id, the id and then the
    /// bytes of its [`StateHash`]. Once inserted hashed, `T` stays hashed, whichever insert
    /// replaces it later.
    ///
    /// # Errors
    ///
    /// As for [`World::insert_resource`].
    pub fn insert_hashed_resource<T: StateHash + Send + Sync + 'static>(
        &mut self,
        value: T,
    ) -> Result<ComponentId, WorldError> {
        let id = self.resource_id::<T>()?;
        self.storage.hash_resource::<T>();
        self.put_resource(value);
        Ok(id)
    }

    /// The id of resource type `T`, registering it the first time.
    fn resource_id<T: Send + Sync + 'static>(&mut self) -> Result<ComponentId, WorldError> {
        match self.storage.components().id_of::<T>() {
            Some(id) if self.storage.components().is_resource(id) => Ok(id),
            Some(_) => Err(self.storage.report(WorldError::ComponentAsResource {
                component: type_name::<T>(),
            })),
            None => {
                let registered = self.storage.register_resource::<T>();
                self.registered::<T>(registered, false)
            }
        }
    }

    /// Stores `value` as the resource `T`, whose type `resource_id` registered.
    fn put_resource<T: 'static>(&mut self, value: T) {
        let stored = self.storage.put_resource(value);
        debug_assert!(stored.is_ok(), "`resource_id` registered the type");
    }

    /// The id of the resource type `T`, `None` if it was never inserted, or a reported error
    /// for a component type.
    fn find_resource<T: 'static>(&self) -> Result<Option<ComponentId>, WorldError> {
        match self.storage.components().id_of::<T>() {
            Some(id) if !self.storage.components().is_resource(id) => {
                Err(self.storage.report(WorldError::ComponentAsResource {
                    component: type_name::<T>(),
                }))
            }
            found => Ok(found),
        }
    }

    /// The id of the resource type `T`, or a reported error.
    fn require_resource<T: 'static>(&self) -> Result<ComponentId, WorldError> {
        self.find_resource::<T>()?.ok_or_else(|| {
            self.storage.report(WorldError::NoResource {
                component: type_name::<T>(),
            })
        })
    }

    /// The resource `T`, for setup code; systems use
    /// [`Queries::resource`](crate::Queries::resource).
    ///
    /// # Errors
    ///
    /// [`WorldError::NoResource`] when the world holds none (never inserted, or removed);
    /// [`WorldError::ComponentAsResource`] for a component type.
    pub fn resource<T: 'static>(&self) -> Result<&T, WorldError> {
        let id = self.require_resource::<T>()?;
        self.storage.resource(id)
    }

    /// The resource `T`, mutably, for setup code; systems use
    /// [`Queries::resource_mut`](crate::Queries::resource_mut).
    ///
    /// # Errors
    ///
    /// As for [`World::resource`].
    pub fn resource_mut<T: 'static>(&mut self) -> Result<&mut T, WorldError> {
        let id = self.require_resource::<T>()?;
        self.storage.resource_mut(id)
    }

    /// Whether the world holds a resource `T`. A pure query: no event.
    pub fn has_resource<T: 'static>(&self) -> bool {
        self.storage
            .components()
            .id_of::<T>()
            .filter(|&id| self.storage.components().is_resource(id))
            .and_then(|id| self.storage.resources().ptr(id))
            .is_some()
    }

    /// Removes the resource `T` and returns it; `Ok(None)` when the world holds none. The
    /// type stays registered as a resource (same id), and a later insert stores it again.
    ///
    /// # Errors
    ///
    /// [`WorldError::ComponentAsResource`] for a component type.
    pub fn remove_resource<T: 'static>(&mut self) -> Result<Option<T>, WorldError> {
        // An absent resource is `Ok(None)` here, not a reported error.
        if self.find_resource::<T>()?.is_none() {
            return Ok(None);
        }
        Ok(self.storage.take_resource::<T>())
    }
}
