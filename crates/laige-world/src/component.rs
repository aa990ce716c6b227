//! The component registry: dense ids from 1, type-erased layout, drop and hash functions.

use std::alloc::Layout;
use std::any::{TypeId, type_name};
use std::collections::BTreeMap;
use std::ptr;

use laige_registry::{ComponentId, MAX_COMPONENTS};

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

/// Feeds the `T` at `ptr` to `h`.
///
/// # Safety
///
/// `ptr` points to a valid, aligned `T` that is not being written concurrently.
unsafe fn hash_erased<T: StateHash>(ptr: *const u8, h: &mut StateHasher) {
    // SAFETY: the caller guarantees a valid `T` at `ptr` with no concurrent writer.
    unsafe { &*ptr.cast::<T>() }.hash_state(h)
}

/// A type-erased drop function.
pub(crate) type DropFn = unsafe fn(*mut u8);
/// A type-erased state-hash function.
pub(crate) type HashFn = unsafe fn(*const u8, &mut StateHasher);

/// How a component type is registered. Build one with [`ComponentOptions::new`] and pass it
/// to [`World::register_component_with`](crate::World::register_component_with).
///
/// Hashing is chosen by the registration method, since it needs `T: StateHash`:
/// [`World::register_hashed_component`](crate::World::register_hashed_component) (or
/// [`World::register_hashed_component_with`](crate::World::register_hashed_component_with)).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ComponentOptions {
    versioned: bool,
}

impl ComponentOptions {
    /// The defaults: not versioned.
    pub const fn new() -> Self {
        Self { versioned: false }
    }

    /// Marks the component as versioned: a later release keeps its value at the end of the
    /// previous tick for readers that declare a snapshot read. Today the flag is recorded
    /// (here, and in the registry's versioned set for the scheduler) and changes nothing else.
    pub const fn versioned(mut self) -> Self {
        self.versioned = true;
        self
    }

    /// Whether [`ComponentOptions::versioned`] was set.
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
    versioned: bool,
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

    /// Whether it was registered as versioned.
    pub fn is_versioned(&self) -> bool {
        self.versioned
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

/// The registered component types, dense by id.
///
/// The `TypeId` index is a `BTreeMap` used only for lookups, never iterated, so type
/// identity (which varies between builds) never reaches an order or an id.
#[derive(Debug, Default)]
pub struct Components {
    infos: Vec<ComponentInfo>,
    by_type: BTreeMap<TypeId, ComponentId>,
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
            versioned: options.versioned,
        });
        self.by_type.insert(type_id, id);
        Ok(id)
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
