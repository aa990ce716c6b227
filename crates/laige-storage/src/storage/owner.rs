//! The storage as its owner holds it, between runs: the one place typed values are read
//! through a shared borrow.
//!
//! A shared `&Storage` promises nothing about values: a running system writes through one
//! (its view, opened by the `unsafe` `Queries::new`), so every typed read through `&Storage`
//! would race it. A view hands its system a `&Storage`, never a `&StorageOwner`, and views
//! are opened only from `&mut Storage` (which borrows the owner whole) or by `Queries::new`,
//! whose caller promises that nothing else touches what the view writes while it lives. So
//! a `&StorageOwner` is a storage no writing view is open on, and reading a value through
//! it is safe.

use std::any::type_name;
use std::ops::{Deref, DerefMut};

use laige_registry::ComponentId;

use crate::{Entity, StateHasher, Storage, WorldError};

/// The storage as its owner (the World) holds it: [`Storage`] itself through `Deref`, plus
/// the typed reads of single values and resources that only a storage with no writing view
/// open can offer safely.
#[derive(Debug)]
pub struct StorageOwner(Storage);

impl StorageOwner {
    /// Takes ownership of `storage`.
    pub fn new(storage: Storage) -> Self {
        Self(storage)
    }

    /// `entity`'s `T`; `op` names the caller's operation in a stale-entity error.
    ///
    /// # Errors
    ///
    /// [`WorldError::StaleEntity`], [`WorldError::UnregisteredComponent`],
    /// [`WorldError::ResourceAsComponent`] or [`WorldError::MissingComponent`].
    pub fn get<T: 'static>(&self, entity: Entity, op: &'static str) -> Result<&T, WorldError> {
        let ptr = self.value_ptr_of::<T>(entity, op)?;
        // SAFETY: the live entity's value of `T` (the id is `T`'s, looked up by type), valid
        // while `&self` lives; no writing view is open on an owner borrowed shared (module
        // docs).
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// `entity`'s `T`, mutably.
    ///
    /// # Errors
    ///
    /// As for [`StorageOwner::get`].
    ///
    /// A tracked `T` is marked changed at the current change tick.
    pub fn get_mut<T: 'static>(
        &mut self,
        entity: Entity,
        op: &'static str,
    ) -> Result<&mut T, WorldError> {
        // Marked before the pointer is taken (a stale entity or a missing `T` marks nothing),
        // so no later `&mut` of the storage follows it.
        if let Some(component) = self.0.components().id_of::<T>() {
            self.0.mark_changed(entity, component);
        }
        let ptr = self.value_ptr_of::<T>(entity, op)?;
        // SAFETY: as for `get`; `&mut self` excludes every other access.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// The resource `T`'s value; `id` is `T`'s resource id.
    ///
    /// # Errors
    ///
    /// [`WorldError::NoResource`] when the storage holds no value of `T` (or `id` is not
    /// `T`'s).
    pub fn resource<T: 'static>(&self, id: ComponentId) -> Result<&T, WorldError> {
        let ptr = self.typed_resource_ptr::<T>(id)?;
        // SAFETY: the held value of a resource id whose registered type is `T` (checked by
        // `TypeId` in `is_resource_of`); no writing view is open on an owner borrowed shared.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// The resource `T`'s value, mutably.
    ///
    /// # Errors
    ///
    /// As for [`StorageOwner::resource`].
    pub fn resource_mut<T: 'static>(&mut self, id: ComponentId) -> Result<&mut T, WorldError> {
        let ptr = self.typed_resource_ptr::<T>(id)?;
        // SAFETY: as for `resource`; `&mut self` excludes every other access.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// Feeds the hashed components and resources into `h` ([`Storage::hash_components`]).
    pub fn hash_components(&self, h: &mut StateHasher) {
        // SAFETY: no writing view is open on an owner borrowed shared (module docs), which is
        // `hash_components`' contract.
        unsafe { self.0.hash_components(h) }
    }

    fn value_ptr_of<T: 'static>(
        &self,
        entity: Entity,
        op: &'static str,
    ) -> Result<*mut u8, WorldError> {
        let location = self.0.locate(entity, op)?;
        let component = self.0.require::<T>()?;
        self.0
            .component_ptr(entity, location, component)
            .ok_or_else(|| {
                self.0.report(WorldError::MissingComponent {
                    entity,
                    component: type_name::<T>(),
                })
            })
    }

    fn typed_resource_ptr<T: 'static>(&self, id: ComponentId) -> Result<*mut u8, WorldError> {
        // A resource of type `T`: its plain id, or a named resource's (`Grid "terrain"`).
        let own = self.0.is_resource_of::<T>(id);
        own.then(|| self.0.resources().ptr(id))
            .flatten()
            .ok_or_else(|| {
                self.0.report(WorldError::NoResource {
                    component: type_name::<T>(),
                })
            })
    }
}

impl Deref for StorageOwner {
    type Target = Storage;

    fn deref(&self) -> &Storage {
        &self.0
    }
}

impl DerefMut for StorageOwner {
    fn deref_mut(&mut self) -> &mut Storage {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use laige_diag::Diagnostics;

    use super::StorageOwner;
    use crate::component::ComponentOptions;
    use crate::{Component, Storage, WorldError};

    #[derive(Debug, PartialEq)]
    struct Pos(f32);
    impl Component for Pos {}

    #[derive(Debug, PartialEq)]
    struct Gravity(f32);

    fn owner() -> StorageOwner {
        let diag = Diagnostics::new(Duration::from_secs(1));
        StorageOwner::new(Storage::new(16, 16, diag))
    }

    #[test]
    fn typed_reads_see_what_typed_writes_left() {
        let mut owner = owner();
        owner
            .register_component(ComponentOptions::<Pos>::new())
            .unwrap();
        let e = owner.spawn((Pos(1.0),)).unwrap();
        owner.get_mut::<Pos>(e, "get_mut").unwrap().0 = 2.5;
        assert_eq!(owner.get::<Pos>(e, "get").unwrap(), &Pos(2.5));
        assert_eq!(owner.remove::<Pos>(e).unwrap(), Some(Pos(2.5)));
        let missing = owner.get::<Pos>(e, "get").unwrap_err();
        assert!(
            matches!(missing, WorldError::MissingComponent { .. }),
            "{missing}"
        );
    }

    #[test]
    fn a_resource_read_checks_the_id_is_the_types_own() {
        let mut owner = owner();
        let gravity = owner.register_resource::<Gravity>().unwrap();
        let pos = owner
            .register_component(ComponentOptions::<Pos>::new())
            .unwrap();
        assert!(
            owner.resource::<Gravity>(gravity).is_err(),
            "nothing held yet"
        );
        owner.put_resource(Gravity(9.8)).unwrap();
        owner.resource_mut::<Gravity>(gravity).unwrap().0 = 1.6;
        assert_eq!(owner.resource::<Gravity>(gravity).unwrap(), &Gravity(1.6));
        // Another type's id never reads as `Gravity`.
        let err = owner.resource::<Gravity>(pos).unwrap_err();
        assert!(err.to_string().contains("Gravity"), "{err}");
    }
}
