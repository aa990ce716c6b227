//! Resources: singletons stored in the world (time, input, settings), declared and checked
//! like components.
//!
//! A resource type is registered in the component table, so it gets a [`ComponentId`] in the
//! same id space: systems declare it with `.reads::<T>()` / `.writes::<T>()`, the registry
//! records it, and the schedulers find conflicts on it exactly as on a component. It is never
//! stored on an entity: spawning, inserting or querying a resource type is an error, and so is
//! inserting a component type as a resource.

use std::any::type_name;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr;

use laige_registry::{Access, ComponentId};

use crate::column::Column;
use crate::component::{ComponentInfo, Components};
use crate::context::{Queries, SystemMeta};
use crate::{
    ComponentOptions, QueryError, StateHash, StateHasher, Storage, SystemContext, World, WorldError,
};

/// One resource type's value: a column of length 0 (removed) or 1.
#[derive(Debug)]
struct Slot {
    id: ComponentId,
    column: Column,
}

/// The resource values of a storage, in ascending id.
///
/// Each value lives in its own one-row [`Column`], which owns and drops it, and whose data is
/// written through a shared reference only under the storage's access contract (see
/// [`Storage`]).
#[derive(Debug, Default)]
pub(crate) struct Resources {
    slots: Vec<Slot>,
}

impl Resources {
    /// How many resource values are held.
    pub(crate) fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.column.len() == 1).count()
    }

    fn position(&self, id: ComponentId) -> Result<usize, usize> {
        self.slots.binary_search_by_key(&id, |s| s.id)
    }

    /// A pointer to resource `id`'s value, if it holds one.
    #[inline]
    pub(crate) fn ptr(&self, id: ComponentId) -> Option<*mut u8> {
        let slot = &self.slots[self.position(id).ok()?];
        (slot.column.len() == 1).then(|| slot.column.ptr_at(0))
    }

    /// Stores the value at `src` as resource `info.id()`, dropping the value it replaces.
    ///
    /// # Safety
    ///
    /// `src` points to a valid, aligned value of `info`'s type, which the caller gives up, and
    /// is writable (a replaced old value is dropped in place there).
    pub(crate) unsafe fn put(&mut self, info: &ComponentInfo, src: *mut u8) {
        let at = match self.position(info.id()) {
            Ok(at) => at,
            Err(at) => {
                let mut column = Column::new(info);
                column.reserve_total(1);
                self.slots.insert(
                    at,
                    Slot {
                        id: info.id(),
                        column,
                    },
                );
                at
            }
        };
        let column = &mut self.slots[at].column;
        if column.len() == 1 {
            // SAFETY: row 0 holds the old value; `src` is a valid value of the column's type
            // outside the column, given up by the caller.
            unsafe { column.replace(0, src) }
        } else {
            // SAFETY: the column is empty with room for one; `src` is a valid value of its
            // type, given up by the caller.
            unsafe { column.push(src) }
        }
    }

    /// Moves resource `id`'s value to `out`; returns whether there was one.
    ///
    /// # Safety
    ///
    /// `out` is valid for writing one value of `id`'s type.
    pub(crate) unsafe fn take(&mut self, id: ComponentId, out: *mut u8) -> bool {
        let Ok(at) = self.position(id) else {
            return false;
        };
        let column = &mut self.slots[at].column;
        if column.len() == 0 {
            return false;
        }
        // SAFETY: row 0 is in bounds; its value is left just past the end and moved out at
        // once, which claims it.
        unsafe {
            column.swap_remove_to_end(0);
            ptr::copy_nonoverlapping(column.ptr_at(column.len()), out, column.item().size());
        }
        true
    }

    /// Feeds every held value of a hashed resource to `h`, in ascending id: the id (u16),
    /// then the bytes of its [`StateHash`].
    pub(crate) fn hash(&self, components: &Components, h: &mut StateHasher) {
        for slot in &self.slots {
            if slot.column.len() == 0 {
                continue;
            }
            if let Some(hash) = components.get(slot.id).hash {
                h.write_u16(slot.id.get());
                // SAFETY: row 0 holds a valid value of the type `hash` was registered for; the
                // caller has no concurrent writer (a world-level `&self`, or a context that
                // declared a read of every hashed component and resource).
                *h = unsafe { hash(slot.column.ptr_at(0), *h) };
            }
        }
    }
}

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
        let id = self
            .resource_id::<T>(|world| world.register_erased::<T>(ComponentOptions::new(), None))?;
        self.put_resource(id, value);
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
        let id = self.resource_id::<T>(|world| {
            world.register_erased::<T>(ComponentOptions::new(), Some(Components::hash_fn::<T>()))
        })?;
        self.storage.components.set_hash::<T>(id);
        self.put_resource(id, value);
        Ok(id)
    }

    /// The id of resource type `T`, registering it with `register` the first time.
    fn resource_id<T: 'static>(
        &mut self,
        register: impl FnOnce(&mut World) -> Result<ComponentId, WorldError>,
    ) -> Result<ComponentId, WorldError> {
        match self.storage.components.id_of::<T>() {
            Some(id) if self.storage.components.is_resource(id) => Ok(id),
            Some(_) => Err(self.storage.report(WorldError::ComponentAsResource {
                component: type_name::<T>(),
            })),
            None => {
                let id = register(self)?;
                self.storage.components.mark_resource(id);
                Ok(id)
            }
        }
    }

    fn put_resource<T: 'static>(&mut self, id: ComponentId, value: T) {
        let info = *self.storage.components.get(id);
        let mut value = ManuallyDrop::new(value);
        // SAFETY: `id` is `T`'s id, so `value` is a valid, aligned, writable value of its
        // type, given up: `ManuallyDrop` keeps it from being dropped here, whether it was moved
        // into the slot or holds the replaced old value, which `put` dropped in place.
        unsafe { self.storage.resources.put(&info, (&raw mut *value).cast()) }
    }

    /// The id of the resource type `T`, `None` if it was never inserted, or a reported error
    /// for a component type.
    fn find_resource<T: 'static>(&self) -> Result<Option<ComponentId>, WorldError> {
        match self.storage.components.id_of::<T>() {
            Some(id) if !self.storage.components.is_resource(id) => {
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

    fn resource_ptr<T: 'static>(&self) -> Result<*mut u8, WorldError> {
        let id = self.require_resource::<T>()?;
        self.storage.resources.ptr(id).ok_or_else(|| {
            self.storage.report(WorldError::NoResource {
                component: type_name::<T>(),
            })
        })
    }

    /// The resource `T`, for setup code; systems use
    /// [`SystemContext::resource`].
    ///
    /// # Errors
    ///
    /// [`WorldError::NoResource`] when the world holds none (never inserted, or removed);
    /// [`WorldError::ComponentAsResource`] for a component type.
    pub fn resource<T: 'static>(&self) -> Result<&T, WorldError> {
        let ptr = self.resource_ptr::<T>()?;
        // SAFETY: the held value of `T`'s id is a valid `T`; `&self` excludes writers.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// The resource `T`, mutably, for setup code; systems use
    /// [`SystemContext::resource_mut`].
    ///
    /// # Errors
    ///
    /// As for [`World::resource`].
    pub fn resource_mut<T: 'static>(&mut self) -> Result<&mut T, WorldError> {
        let ptr = self.resource_ptr::<T>()?;
        // SAFETY: the held value of `T`'s id is a valid `T`; `&mut self` excludes every other
        // access.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// Whether the world holds a resource `T`. A pure query: no event.
    pub fn has_resource<T: 'static>(&self) -> bool {
        self.storage
            .components
            .id_of::<T>()
            .filter(|&id| self.storage.components.is_resource(id))
            .and_then(|id| self.storage.resources.ptr(id))
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
        let Some(id) = self.find_resource::<T>()? else {
            return Ok(None);
        };
        let mut out = MaybeUninit::<T>::uninit();
        // SAFETY: `out` is valid for one `T`, the type of `id`.
        let had = unsafe { self.storage.resources.take(id, out.as_mut_ptr().cast()) };
        // SAFETY: `take` moved the value into `out` when it returned true.
        Ok(had.then(|| unsafe { out.assume_init() }))
    }
}

/// The checked pointer to resource `T` for the system `meta`, needing `access` (read or
/// write). Reported on failure.
fn checked_ptr<T: 'static>(
    storage: &Storage,
    meta: &SystemMeta,
    access: Access,
) -> Result<*mut u8, QueryError> {
    let missing = |is_component| QueryError::NoResource {
        system: meta.name,
        system_id: meta.id,
        component: type_name::<T>(),
        is_component,
    };
    let Some(id) = storage.components.id_of::<T>() else {
        return Err(storage.report(missing(false)));
    };
    if !storage.components.is_resource(id) {
        return Err(storage.report(missing(true)));
    }
    let declared = meta.declared(id);
    let allowed = match declared {
        Some(Access::Write) => true,
        Some(Access::Read | Access::ReadFresh) => access != Access::Write,
        Some(Access::ReadSnapshot) | None => false,
    };
    if !allowed {
        return Err(storage.report(QueryError::Undeclared {
            system: meta.name,
            system_id: meta.id,
            component: type_name::<T>(),
            access,
            declared,
        }));
    }
    storage
        .resources
        .ptr(id)
        .ok_or_else(|| storage.report(missing(false)))
}

impl SystemContext<'_> {
    /// The resource `T`. Checked on every call: the system must have declared a read
    /// (`.reads::<T>()` or `.reads_fresh::<T>()`) or a write of `T`. The reference borrows
    /// the context, so copy out what a query's closure needs first
    /// (`let dt = ctx.resource::<Time>()?.dt;`).
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] (event `ecs/access_violation`) when not declared;
    /// [`QueryError::NoResource`] (event `ecs/resource_missing`) when the world holds no `T`.
    pub fn resource<T: Send + Sync + 'static>(&self) -> Result<&T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.meta, Access::Read)?;
        // SAFETY: `T`'s id is declared read or write by this system, so by the constructor's
        // contract no other live context writes it; this context hands out `&mut T` only from
        // `resource_mut(&mut self)`, which cannot coexist with this shared borrow.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// The resource `T`, mutably. Checked on every call: the system must have declared
    /// `.writes::<T>()`. The reference borrows the context mutably, so no second reference to
    /// any resource (or a query) can coexist with it; accumulate in a local inside a query
    /// and write it back afterwards.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::resource`].
    pub fn resource_mut<T: Send + Sync + 'static>(&mut self) -> Result<&mut T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.meta, Access::Write)?;
        // SAFETY: `T`'s id is declared write, so by the constructor's contract no other live
        // context reads or writes it; `&mut self` keeps every other reference this context
        // could hand out (to `T` or anything else) from coexisting with this one.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }
}

impl Queries<'_> {
    /// [`SystemContext::resource`] on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::resource`].
    pub fn resource<T: Send + Sync + 'static>(&self) -> Result<&T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.meta, Access::Read)?;
        // SAFETY: as for `SystemContext::resource`: declared, so no other context writes it,
        // and this half hands out `&mut T` only from `resource_mut(&mut self)`.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// [`SystemContext::resource_mut`] on the query half of a split context.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::resource`].
    pub fn resource_mut<T: Send + Sync + 'static>(&mut self) -> Result<&mut T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.meta, Access::Write)?;
        // SAFETY: as for `SystemContext::resource_mut`: declared write, and `&mut self`
        // excludes every other reference from this half (the split context is borrowed by it).
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }
}
