//! Resources on the World and in a system's context: the World's setup-time methods (which
//! register a resource type with the registry too) and a context's checked access.

use std::any::type_name;
use std::borrow::Cow;

use laige_registry::ComponentId;

use crate::world::intern;
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

    /// Makes the resource type `T` saved by [`World::save_state`] (cloned into the state,
    /// and back with `clone_from`), registering it as a resource the first time. Every
    /// registered resource type must be saved for a save to succeed.
    ///
    /// # Errors
    ///
    /// As for [`World::insert_resource`].
    pub fn save_resource<T: Clone + Send + Sync + 'static>(
        &mut self,
    ) -> Result<ComponentId, WorldError> {
        let id = self.resource_id::<T>()?;
        self.storage.save_resource::<T>();
        Ok(id)
    }

    /// Makes the resource type `T` written to save files ([`WorldState::to_binary`],
    /// [`WorldState::to_json`]) and read back through its serde impls, registering it as a
    /// resource the first time. It is saved too (cloned, as [`World::save_resource`] does):
    /// a file holds a saved state. Feature `serde`.
    ///
    /// # Errors
    ///
    /// As for [`World::insert_resource`].
    ///
    /// [`WorldState::to_binary`]: crate::WorldState::to_binary
    /// [`WorldState::to_json`]: crate::WorldState::to_json
    #[cfg(feature = "serde")]
    pub fn serde_resource<T>(&mut self) -> Result<ComponentId, WorldError>
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        let id = self.resource_id::<T>()?;
        self.storage.serde_resource::<T>();
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

    /// Stores `value` as the resource of type `T` named `name`: a resource keyed by its name
    /// as well as its type, so two `Grid`s can both exist
    /// (`world.insert_named_resource("terrain", Grid::new())`). The first insert of a name
    /// registers it with its own id (messages, exports and records show it as
    /// `Grid "terrain"`); systems declare it by name (a [`NamedRes`](crate::NamedRes)
    /// parameter, or `.reads_named::<Grid>("terrain")`), and conflicts and edges are per
    /// name. A later insert replaces (and drops) the value and returns the same id. The
    /// plain `T` resource, if any, is a separate one.
    ///
    /// # Errors
    ///
    /// [`WorldError::ComponentAsResource`] when `T` is registered as a component, or
    /// [`WorldError::ComponentLimit`]; `value` is dropped.
    pub fn insert_named_resource<T: Send + Sync + 'static>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        value: T,
    ) -> Result<ComponentId, WorldError> {
        let id = self.named_resource_id::<T>(name.into())?;
        let stored = self.storage.put_resource_at(id, value);
        debug_assert!(stored.is_ok(), "`named_resource_id` registered it as a `T`");
        Ok(id)
    }

    /// [`World::insert_named_resource`] for a resource whose value enters
    /// [`World::state_hash`], as [`World::insert_hashed_resource`] does.
    ///
    /// # Errors
    ///
    /// As for [`World::insert_named_resource`].
    pub fn insert_hashed_named_resource<T: StateHash + Send + Sync + 'static>(
        &mut self,
        name: impl Into<Cow<'static, str>>,
        value: T,
    ) -> Result<ComponentId, WorldError> {
        let id = self.named_resource_id::<T>(name.into())?;
        self.storage.hash_resource_at::<T>(id);
        let stored = self.storage.put_resource_at(id, value);
        debug_assert!(stored.is_ok(), "`named_resource_id` registered it as a `T`");
        Ok(id)
    }

    /// The id of the `T` named `name`, registering it the first time.
    fn named_resource_id<T: Send + Sync + 'static>(
        &mut self,
        name: Cow<'static, str>,
    ) -> Result<ComponentId, WorldError> {
        let components = self.storage.components();
        if let Some(id) = components.named_id::<T>(&name) {
            return Ok(id);
        }
        if components
            .id_of::<T>()
            .is_some_and(|id| !components.is_resource(id))
        {
            return Err(self.storage.report(WorldError::ComponentAsResource {
                component: type_name::<T>(),
            }));
        }
        let label = intern(name);
        let display = intern(Cow::Owned(format!(
            "{} \"{label}\"",
            short_type_name(type_name::<T>())
        )));
        match self.storage.register_named_resource::<T>(label, display) {
            Ok(id) => {
                self.registry.register_component_info(id, display, false);
                Ok(id)
            }
            Err(_) => Err(self
                .storage
                .report(WorldError::ComponentLimit { component: display })),
        }
    }

    /// The resource of type `T` named `name`, for setup code; systems use
    /// [`NamedRes`](crate::NamedRes) or [`Queries::named_resource`](crate::Queries::named_resource).
    ///
    /// # Errors
    ///
    /// [`WorldError::NoResource`] when no `T` has that name, or it holds no value.
    pub fn named_resource<T: 'static>(&self, name: &str) -> Result<&T, WorldError> {
        let id = self.named_id::<T>(name)?;
        self.storage.resource(id)
    }

    /// The resource of type `T` named `name`, mutably, for setup code.
    ///
    /// # Errors
    ///
    /// As for [`World::named_resource`].
    pub fn named_resource_mut<T: 'static>(&mut self, name: &str) -> Result<&mut T, WorldError> {
        let id = self.named_id::<T>(name)?;
        self.storage.resource_mut(id)
    }

    /// Makes the resource of type `T` named `name` part of a saved world state
    /// ([`World::save_state`]), cloned, as [`World::save_resource`] does for a plain one.
    ///
    /// # Errors
    ///
    /// As for [`World::named_resource`], when no such resource is registered.
    pub fn save_named_resource<T: Clone + 'static>(
        &mut self,
        name: &str,
    ) -> Result<(), WorldError> {
        self.named_id::<T>(name)?;
        self.storage.save_named_resource::<T>(name);
        Ok(())
    }

    /// Makes the resource of type `T` named `name` written to save files and read back, and
    /// saved, as [`World::serde_resource`] does for a plain one. Feature `serde`.
    ///
    /// # Errors
    ///
    /// As for [`World::named_resource`], when no such resource is registered.
    #[cfg(feature = "serde")]
    pub fn serde_named_resource<T>(&mut self, name: &str) -> Result<(), WorldError>
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        self.named_id::<T>(name)?;
        self.storage.serde_named_resource::<T>(name);
        Ok(())
    }

    /// Removes the resource of type `T` named `name` and returns it; `None` when the world
    /// holds none by that name. The name stays registered (same id).
    pub fn remove_named_resource<T: 'static>(&mut self, name: &str) -> Option<T> {
        let id = self.storage.components().named_id::<T>(name)?;
        self.storage.take_resource_at::<T>(id)
    }

    /// The id of the `T` named `name`, or the reported error of an unknown name.
    fn named_id<T: 'static>(&self, name: &str) -> Result<ComponentId, WorldError> {
        self.storage
            .components()
            .named_id::<T>(name)
            .ok_or_else(|| {
                self.storage.report(WorldError::NoResource {
                    component: type_name::<T>(),
                })
            })
    }
}

/// A type name without its module path, as the registry names resources.
fn short_type_name(full: &'static str) -> &'static str {
    if full.contains('<') {
        return full;
    }
    full.rsplit("::").next().unwrap_or(full)
}
