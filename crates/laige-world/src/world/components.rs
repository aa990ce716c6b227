//! Registering component types.

use laige_registry::ComponentId;

use crate::{Component, ComponentOptions, World, WorldError};
use laige_storage::component::{ComponentInfo, RegisterComponentError};

impl World {
    /// Registers `T` as a component with the type's options, [`Component::component_options`]:
    /// the defaults (its presence, but not its value, enters the state hash, and it is not
    /// versioned) unless the type says otherwise, as `#[component(hashed, versioned)]` on
    /// `#[derive(Component)]` does. Ids are dense from 1 in registration order; at most 256
    /// types.
    ///
    /// # Errors
    ///
    /// [`WorldError::ComponentDuplicate`] (event `ecs/component_duplicate` with
    /// `component_id`, `size`, `alignment`) or [`WorldError::ComponentLimit`].
    pub fn register_component<T: Component>(&mut self) -> Result<ComponentId, WorldError> {
        self.register_component_with(T::component_options())
    }

    /// Registers `T` as a component with `options` (whatever the type's
    /// [`Component::component_options`] say): hashed (its value enters
    /// [`World::state_hash`]) and versioned (it keeps a frozen copy of its values as of the
    /// last [`World::end_tick`], which systems that declared `.reads_snapshot::<T>()` read
    /// while others write `T`):
    ///
    /// ```
    /// # use laige_world::{Component, ComponentOptions, StateHash, World};
    /// #[derive(Component, StateHash, Clone)]
    /// struct Health(u32);
    ///
    /// let mut world = World::default();
    /// world.register_component_with(ComponentOptions::<Health>::new().hashed().versioned())?;
    /// # Ok::<(), laige_world::WorldError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`World::register_component`].
    pub fn register_component_with<T: Component>(
        &mut self,
        options: ComponentOptions<T>,
    ) -> Result<ComponentId, WorldError> {
        let registered = self.storage.register_component(options);
        self.registered::<T>(registered, options.is_versioned())
    }

    /// Records a type the storage registered in the component id space (components through
    /// the methods above, resources, which need not implement [`Component`], on first
    /// insert) with the registry, or reports why it could not be registered.
    pub(crate) fn registered<T: 'static>(
        &mut self,
        registered: Result<ComponentId, RegisterComponentError>,
        versioned: bool,
    ) -> Result<ComponentId, WorldError> {
        match registered {
            Ok(id) => {
                self.registry.register_component_info(
                    id,
                    short_name(std::any::type_name::<T>()),
                    versioned,
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
            Err(RegisterComponentError::SparseVersioned) => {
                Err(self.storage.report(WorldError::SparseVersioned {
                    component: std::any::type_name::<T>(),
                }))
            }
            Err(RegisterComponentError::Full) => {
                Err(self.storage.report(WorldError::ComponentLimit {
                    component: std::any::type_name::<T>(),
                }))
            }
        }
    }

    /// Tells the registry about the resource types a typed system's parameters registered
    /// (every id from `known` on), so their access can be declared before a value exists.
    pub(crate) fn register_new_resource_types(&mut self, known: usize) {
        for index in known..self.storage.components().len() {
            let Some(id) = ComponentId::from_index(index) else {
                break;
            };
            let name = self.storage.components().get(id).name();
            self.registry
                .register_component_info(id, short_name(name), false);
        }
    }

    /// What the world knows about component `id`.
    pub fn component_info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.storage.components().info(id)
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
