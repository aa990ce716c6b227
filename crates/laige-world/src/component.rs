//! The component registry: dense ids from 1, type-erased layout, drop and hash functions.

use std::alloc::Layout;
use std::any::{TypeId, type_name};
use std::collections::BTreeMap;
use std::ptr;

use laige_registry::{ComponentId, ComponentSet, MAX_COMPONENTS};

use crate::{StateHash, StateHasher};

/// Drops the `T` at `ptr`.
///
/// # Safety
///
/// `ptr` points to a valid, aligned `T` that is not used again.
unsafe fn drop_erased<T>(ptr: *mut u8) {
    // SAFETY: the caller guarantees a valid, aligned, unused-afterwards `T` at `ptr`.
    unsafe { ptr::drop_in_place(ptr.cast::<T>()) }
}

/// Feeds the `T` at `ptr` to the hasher `h` and returns it.
///
/// The hasher goes in and out by value, so its state stays in a register across the
/// indirect call instead of making a round trip through memory per value.
///
/// # Safety
///
/// `ptr` points to a valid, aligned `T` that is not being written concurrently.
unsafe fn hash_erased<T: StateHash>(ptr: *const u8, mut h: StateHasher) -> StateHasher {
    // SAFETY: the caller guarantees a valid `T` at `ptr` with no concurrent writer.
    unsafe { &*ptr.cast::<T>() }.hash_state(&mut h);
    h
}

/// Writes a clone of the `T` at `src` to `dst`.
///
/// # Safety
///
/// `src` points to a valid, aligned `T` with no concurrent writer; `dst` is valid and aligned
/// for writing one `T` and holds no value that needs dropping (it is overwritten).
unsafe fn clone_erased<T: Clone>(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller guarantees a readable `T` at `src` and a writable slot at `dst`.
    unsafe { ptr::write(dst.cast::<T>(), (*src.cast::<T>()).clone()) }
}

/// A type-erased drop function.
pub(crate) type DropFn = unsafe fn(*mut u8);
/// A type-erased clone function: `(src, dst)`.
pub(crate) type CloneFn = unsafe fn(*const u8, *mut u8);
/// A type-erased state-hash function: feeds the value at the pointer, hasher in and out.
pub(crate) type HashFn = unsafe fn(*const u8, StateHasher) -> StateHasher;

/// How a component type is registered. Build one with [`ComponentOptions::new`] and pass it
/// to [`World::register_component_with`](crate::World::register_component_with).
///
/// Hashing and versioning are chosen by the registration method, since they need a bound on
/// the type: `T: StateHash` for
/// [`World::register_hashed_component`](crate::World::register_hashed_component) (or
/// [`World::register_hashed_component_with`](crate::World::register_hashed_component_with)),
/// `T: Clone` for
/// [`World::register_versioned_component`](crate::World::register_versioned_component) (or
/// [`World::register_hashed_versioned_component`](crate::World::register_hashed_versioned_component)).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ComponentOptions {
    versioned: bool,
}

impl ComponentOptions {
    /// The defaults: not versioned.
    pub const fn new() -> Self {
        Self { versioned: false }
    }

    /// Marks the component as versioned. Crate-internal: a versioned component needs a
    /// clone function, which only the `T: Clone` registration methods
    /// ([`World::register_versioned_component`](crate::World::register_versioned_component))
    /// can supply, so the public way to version a component is through them.
    pub(crate) const fn versioned(mut self) -> Self {
        self.versioned = true;
        self
    }

    /// Whether the options mark the component as versioned (set only by the versioned
    /// registration methods).
    pub const fn is_versioned(&self) -> bool {
        self.versioned
    }
}

/// What the world knows about one registered component type.
#[derive(Clone, Copy, Debug)]
pub struct ComponentInfo {
    id: ComponentId,
    type_id: TypeId,
    name: &'static str,
    layout: Layout,
    pub(crate) drop: Option<DropFn>,
    pub(crate) hash: Option<HashFn>,
    pub(crate) clone_fn: Option<CloneFn>,
    versioned: bool,
    resource: bool,
}

impl ComponentInfo {
    /// The component's id.
    pub fn id(&self) -> ComponentId {
        self.id
    }

    /// The Rust type name, as `std::any::type_name` gave it at registration.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// `size_of::<T>()`.
    pub fn size(&self) -> usize {
        self.layout.size()
    }

    /// `align_of::<T>()`.
    pub fn align(&self) -> usize {
        self.layout.align()
    }

    /// The layout of one value.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Whether its value takes part in the state hash (else only its presence does).
    pub fn is_hashed(&self) -> bool {
        self.hash.is_some()
    }

    /// Whether it is versioned: it keeps a frozen copy of its values as of the last
    /// [`World::end_tick`](crate::World::end_tick), for snapshot reads.
    pub fn is_versioned(&self) -> bool {
        self.versioned
    }

    /// Whether the type is a resource (a singleton stored in the world, see
    /// [`World::insert_resource`](crate::World::insert_resource)) rather than a component
    /// stored on entities. Both share one id space.
    pub fn is_resource(&self) -> bool {
        self.resource
    }

    /// The Rust `TypeId`.
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }
}

/// Why a component type could not be registered.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RegisterComponentError {
    Duplicate(ComponentInfo),
    Full,
}

/// The registered component types, dense by id. Resource types share the table (and the id
/// space), marked by [`ComponentInfo::is_resource`].
///
/// The `TypeId` index is a `BTreeMap` used only for lookups, never iterated, so type
/// identity (which varies between builds) never reaches an order or an id.
#[derive(Debug, Default)]
pub struct Components {
    infos: Vec<ComponentInfo>,
    by_type: BTreeMap<TypeId, ComponentId>,
    resources: ComponentSet,
}

impl Components {
    /// Registers `T`, hashed when `hash` is given.
    pub(crate) fn register<T: Send + Sync + 'static>(
        &mut self,
        options: ComponentOptions,
        hash: Option<HashFn>,
    ) -> Result<ComponentId, RegisterComponentError> {
        let type_id = TypeId::of::<T>();
        if let Some(&id) = self.by_type.get(&type_id) {
            return Err(RegisterComponentError::Duplicate(self.infos[id.index()]));
        }
        let id = ComponentId::from_index(self.infos.len()).ok_or(RegisterComponentError::Full)?;
        let drop = std::mem::needs_drop::<T>().then_some(drop_erased::<T> as DropFn);
        self.infos.push(ComponentInfo {
            id,
            type_id,
            name: type_name::<T>(),
            layout: Layout::new::<T>(),
            drop,
            hash,
            clone_fn: None,
            versioned: options.versioned,
            resource: false,
        });
        self.by_type.insert(type_id, id);
        Ok(id)
    }

    /// Gives the versioned component `id` (of type `T`) its clone function.
    pub(crate) fn set_clone<T: Clone + 'static>(&mut self, id: ComponentId) {
        let info = &mut self.infos[id.index()];
        debug_assert!(info.versioned && info.type_id == TypeId::of::<T>());
        info.clone_fn = Some(clone_erased::<T> as CloneFn);
    }

    /// Makes the registered type `id` a resource.
    pub(crate) fn mark_resource(&mut self, id: ComponentId) {
        self.infos[id.index()].resource = true;
        self.resources.insert(id);
    }

    /// Makes the values of `id` (of type `T`) take part in the state hash.
    pub(crate) fn set_hash<T: StateHash + 'static>(&mut self, id: ComponentId) {
        let info = &mut self.infos[id.index()];
        debug_assert!(info.type_id == TypeId::of::<T>());
        info.hash = Some(Self::hash_fn::<T>());
    }

    /// The ids of the resource types.
    #[inline]
    pub(crate) fn resources(&self) -> &ComponentSet {
        &self.resources
    }

    /// Whether `id` is a resource type.
    #[inline]
    pub(crate) fn is_resource(&self, id: ComponentId) -> bool {
        self.resources.contains(id)
    }

    /// The hash function of `T`.
    pub(crate) fn hash_fn<T: StateHash + 'static>() -> HashFn {
        hash_erased::<T>
    }

    /// The id of `T`, if registered.
    #[inline]
    pub fn id_of<T: 'static>(&self) -> Option<ComponentId> {
        self.by_type.get(&TypeId::of::<T>()).copied()
    }

    /// The info of component `id`.
    #[inline]
    pub fn info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.infos.get(id.index())
    }

    /// How many component types are registered.
    pub fn len(&self) -> usize {
        self.infos.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.infos.is_empty()
    }

    /// All registered components in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ComponentInfo> + '_ {
        self.infos.iter()
    }

    /// The info of a registered id; ids in this crate's tables always are.
    #[inline]
    pub(crate) fn get(&self, id: ComponentId) -> &ComponentInfo {
        &self.infos[id.index()]
    }
}

/// The most component types a world registers.
pub const MAX_COMPONENT_TYPES: usize = MAX_COMPONENTS;
