//! Registering component types.

use laige_registry::ComponentId;

use crate::component::{ComponentInfo, Components, HashFn, RegisterComponentError};
use crate::{Component, ComponentOptions, StateHash, World, WorldError};

impl World {
    /// Registers `T` as a component whose presence, but not value, enters the state hash.
    /// Ids are dense from 1 in registration order; at most 256 types.
    ///
    /// # Errors
    ///
    /// [`WorldError::ComponentDuplicate`] (event `ecs/component_duplicate` with
    /// `component_id`, `size`, `alignment`) or [`WorldError::ComponentLimit`].
    pub fn register_component<T: Component>(&mut self) -> Result<ComponentId, WorldError> {
        self.register_component_with::<T>(ComponentOptions::new())
    }

    /// Registers `T` as a component whose value enters the state hash through its
    /// [`StateHash`] impl.
    ///
    /// # Errors
    ///
    /// As for [`World::register_component`].
    pub fn register_hashed_component<T: Component + StateHash>(
        &mut self,
    ) -> Result<ComponentId, WorldError> {
        self.register_hashed_component_with::<T>(ComponentOptions::new())
    }

    /// [`World::register_component`] with options.
    ///
    /// # Errors
    ///
    /// As for [`World::register_component`].
    pub fn register_component_with<T: Component>(
        &mut self,
        options: ComponentOptions,
    ) -> Result<ComponentId, WorldError> {
        self.register_erased::<T>(options, None)
    }

    /// [`World::register_hashed_component`] with options.
    ///
    /// # Errors
    ///
    /// As for [`World::register_component`].
    pub fn register_hashed_component_with<T: Component + StateHash>(
        &mut self,
        options: ComponentOptions,
    ) -> Result<ComponentId, WorldError> {
        self.register_erased::<T>(options, Some(Components::hash_fn::<T>()))
    }

    /// Registers any `'static` type in the component id space: components through the
    /// methods above, resources (which need not implement [`Component`]) on first insert.
    pub(crate) fn register_erased<T: Send + Sync + 'static>(
        &mut self,
        options: ComponentOptions,
        hash: Option<HashFn>,
    ) -> Result<ComponentId, WorldError> {
        match self.storage.components.register::<T>(options, hash) {
            Ok(id) => {
                self.registry.register_component_info(
                    id,
                    short_name(std::any::type_name::<T>()),
                    options.is_versioned(),
                );
                Ok(id)
            }
            Err(RegisterComponentError::Duplicate(info)) => {
                Err(self.storage.report(WorldError::ComponentDuplicate {
                    component: info.name(),
                    id: info.id(),
                    size: info.size(),
                    alignment: info.align(),
                }))
            }
            Err(RegisterComponentError::Full) => {
                Err(self.storage.report(WorldError::ComponentLimit {
                    component: std::any::type_name::<T>(),
                }))
            }
        }
    }

    /// What the world knows about component `id`.
    pub fn component_info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.storage.components.info(id)
    }
}

/// A type name without its module path (`Pos` for `game::physics::Pos`), for messages;
/// generic types keep their full name.
fn short_name(full: &'static str) -> &'static str {
    if full.contains('<') {
        return full;
    }
    full.rsplit("::").next().unwrap_or(full)
}
