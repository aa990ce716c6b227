//! The component registry: dense ids from 1, type-erased layout, drop and hash functions.

use std::alloc::Layout;
use std::any::{TypeId, type_name};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::ptr;

use laige_registry::{ComponentId, ComponentSet, MAX_COMPONENTS};

use crate::{StateHash, StateHasher};

/// A type that can be stored as a component: any `Send + Sync + 'static` type that says so,
/// with `#[derive(Component)]` (re-exported by `laige-world` and `laige-sim`) or one line
/// (`impl Component for Pos {}`).
///
/// The mark is what lets tuples nest in a [`Bundle`](crate::Bundle): a component is a bundle of one, and a
/// tuple of bundles is a bundle, so `((Pos, Vel), Health)` is three components. Without it a
/// tuple could be taken for a single component of tuple type. Resources need no mark.
///
/// ```
/// use laige_world::{Component, World};
///
/// struct Pos(f32);
/// impl Component for Pos {}
///
/// let mut world = World::default();
/// world.register_component::<Pos>()?;
/// world.spawn(Pos(1.0))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Component: Send + Sync + 'static {
    /// The options `World::register_component::<Self>()` registers the type with. The
    /// default is [`ComponentOptions::new`] (presence only, not versioned);
    /// `#[derive(Component)]` with `#[component(hashed, versioned)]` returns those options
    /// instead, so they live with the type. `World::register_component_with` ignores it.
    fn component_options() -> ComponentOptions<Self>
    where
        Self: Sized,
    {
        ComponentOptions::new()
    }
}

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

/// Clones the `T` at `src` into the live `T` at `dst` with `Clone::clone_from`, which reuses
/// `dst`'s allocations (a warm save or restore of a `Vec` allocates nothing).
///
/// # Safety
///
/// `src` and `dst` point to valid, aligned, distinct `T`s; no one else accesses them meanwhile.
unsafe fn clone_from_erased<T: Clone>(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller guarantees two valid, distinct, unaliased `T`s.
    unsafe { (*dst.cast::<T>()).clone_from(&*src.cast::<T>()) }
}

/// A type-erased `clone_from`: `(src, dst)`, both live values.
pub type CloneFromFn = unsafe fn(*const u8, *mut u8);

/// How a saved component's values are copied into a world state and back
/// (`Storage::save_state`): as bytes, or through its `Clone` impl.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SaveFn {
    /// A `Copy` type: whole columns are copied as bytes.
    Bytes,
    /// A `Clone` type: values are cloned into the state, and back with `clone_from`.
    Clone {
        clone: CloneFn,
        clone_from: CloneFromFn,
    },
}

impl SaveFn {
    fn cloned<T: Clone>() -> Self {
        Self::Clone {
            clone: clone_erased::<T>,
            clone_from: clone_from_erased::<T>,
        }
    }
}

/// A type-erased drop function.
pub type DropFn = unsafe fn(*mut u8);
/// A type-erased clone function: `(src, dst)`.
pub type CloneFn = unsafe fn(*const u8, *mut u8);
/// A type-erased state-hash function: feeds the value at the pointer, hasher in and out.
pub type HashFn = unsafe fn(*const u8, StateHasher) -> StateHasher;

/// How a component type is registered: whether its value enters the state hash, and whether
/// it is versioned (keeps a frozen copy of its values for snapshot readers). Each option
/// needs a bound on the type, checked where the option is chosen: `T: StateHash` for
/// [`ComponentOptions::hashed`], `T: Clone` for [`ComponentOptions::versioned`]. Pass it to
/// `World::register_component_with`; `World::register_component` takes the defaults.
///
/// ```
/// use laige_storage::{Component, ComponentOptions, StateHash, StateHasher};
///
/// #[derive(Clone)]
/// struct Health(u32);
/// impl Component for Health {}
/// impl StateHash for Health {
///     fn hash_state(&self, h: &mut StateHasher) {
///         self.0.hash_state(h);
///     }
/// }
///
/// let options = ComponentOptions::<Health>::new().hashed().versioned();
/// assert!(options.is_hashed() && options.is_versioned());
/// ```
pub struct ComponentOptions<T> {
    hash: Option<HashFn>,
    clone_fn: Option<CloneFn>,
    tracked: bool,
    save: Option<SaveFn>,
    #[cfg(feature = "serde")]
    serde: Option<&'static crate::file::SerdeFns>,
    sparse: bool,
    component: PhantomData<fn() -> T>,
}

impl<T: Component> ComponentOptions<T> {
    /// The defaults: the value does not enter the state hash (only the component's presence
    /// does), and the component is not versioned.
    pub const fn new() -> Self {
        Self {
            hash: None,
            clone_fn: None,
            tracked: false,
            save: None,
            #[cfg(feature = "serde")]
            serde: None,
            sparse: false,
            component: PhantomData,
        }
    }

    /// The component is stored in a sparse set keyed by entity instead of in the archetype
    /// tables: adding and removing it moves no row, at the price of a lookup per row where a
    /// query reads it (see `docs/decisions/0018-sparse-components.md`). A sparse component
    /// cannot be versioned: registering both is refused
    /// ([`RegisterComponentError::SparseVersioned`]).
    pub const fn sparse(mut self) -> Self {
        self.sparse = true;
        self
    }

    /// The value enters the state hash (`World::state_hash`) through its [`StateHash`] impl.
    pub fn hashed(mut self) -> Self
    where
        T: StateHash,
    {
        self.hash = Some(hash_erased::<T>);
        self
    }

    /// The component is versioned: besides its live values it keeps a copy of them as of the
    /// last end of tick, made with `T::clone`, which systems that declared
    /// `reads_snapshot` read while others write `T`. Snapshot copies never enter the hash.
    pub fn versioned(mut self) -> Self
    where
        T: Clone,
    {
        self.clone_fn = Some(clone_erased::<T>);
        if self.save.is_none() {
            self.save = Some(SaveFn::cloned::<T>());
        }
        self
    }

    /// The component is saved by `World::save_state` (rollback, save games): its values are
    /// cloned into the state and back with `T::clone_from`, so a warm save reuses the
    /// state's own allocations. A versioned component is saved this way already.
    pub fn saved(mut self) -> Self
    where
        T: Clone,
    {
        self.save = Some(SaveFn::cloned::<T>());
        self
    }

    /// The component is saved by `World::save_state` as bytes: whole columns are copied
    /// with one `memcpy` each, the fastest form. Needs `T: Copy`.
    pub fn saved_copy(mut self) -> Self
    where
        T: Copy,
    {
        self.save = Some(SaveFn::Bytes);
        self
    }

    /// The component is written to save files (`WorldState::to_binary` and `to_json`) and
    /// read back, through its serde impls. A file holds a saved state, so this saves the
    /// component too: by `Clone`, unless [`ComponentOptions::saved_copy`] chose bytes (in
    /// either order). Feature `serde`.
    #[cfg(feature = "serde")]
    pub fn serde(mut self) -> Self
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned,
    {
        self.serde = Some(crate::file::SerdeFns::of::<T>());
        if self.save.is_none() {
            self.save = Some(SaveFn::cloned::<T>());
        }
        self
    }
}

impl<T: Component> ComponentOptions<T> {
    /// The component is tracked: each table row keeps the tick its value was added at and
    /// the tick it last changed at, with summaries per block of rows and per table, so
    /// `Changed<T>` and `Added<T>` filters and `Ref<T>` work (docs/api/changes.md). An
    /// untracked component keeps no ticks and pays nothing for them.
    pub const fn tracked(mut self) -> Self {
        self.tracked = true;
        self
    }
}

impl<T> ComponentOptions<T> {
    /// Whether the component keeps change ticks.
    pub const fn is_tracked(&self) -> bool {
        self.tracked
    }

    /// Whether the value enters the state hash.
    pub const fn is_hashed(&self) -> bool {
        self.hash.is_some()
    }

    /// Whether the component is versioned.
    pub const fn is_versioned(&self) -> bool {
        self.clone_fn.is_some()
    }

    /// Whether `World::save_state` saves the component.
    pub const fn is_saved(&self) -> bool {
        self.save.is_some()
    }

    /// Whether the component is stored in a sparse set ([`ComponentOptions::sparse`]).
    pub const fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// Whether save files hold the component ([`ComponentOptions::serde`]).
    #[cfg(feature = "serde")]
    pub const fn is_serde(&self) -> bool {
        self.serde.is_some()
    }

    /// The serde functions the options chose.
    #[cfg(feature = "serde")]
    pub(crate) const fn serde_fns(&self) -> Option<&'static crate::file::SerdeFns> {
        self.serde
    }

    /// The type-erased hash and clone functions the options chose.
    pub(crate) const fn erased(&self) -> (Option<HashFn>, Option<CloneFn>) {
        (self.hash, self.clone_fn)
    }

    /// How the options save the component, if they do.
    pub(crate) const fn save_fn(&self) -> Option<SaveFn> {
        self.save
    }
}

impl<T: Component> Default for ComponentOptions<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for ComponentOptions<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ComponentOptions<T> {}

impl<T> fmt::Debug for ComponentOptions<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ComponentOptions")
            .field("component", &type_name::<T>())
            .field("hashed", &self.is_hashed())
            .field("versioned", &self.is_versioned())
            .field("tracked", &self.is_tracked())
            .field("saved", &self.is_saved())
            .field("sparse", &self.is_sparse())
            .finish()
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
    pub(crate) save: Option<SaveFn>,
    resource: bool,
    /// A named resource's name (`"terrain"` of `Grid "terrain"`); `None` for every other.
    label: Option<&'static str>,
    /// Whether its table columns keep change ticks (`ComponentOptions::tracked`).
    tracked: bool,
    sparse: bool,
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
    /// `World::end_tick`, for snapshot reads.
    pub fn is_versioned(&self) -> bool {
        self.clone_fn.is_some()
    }

    /// Whether its table columns keep change ticks (`ComponentOptions::tracked`).
    pub fn is_tracked(&self) -> bool {
        self.tracked
    }

    /// Whether `World::save_state` saves its values (registered with
    /// [`ComponentOptions::saved`], [`ComponentOptions::saved_copy`] or
    /// [`ComponentOptions::versioned`], or a resource marked saved).
    pub fn is_saved(&self) -> bool {
        self.save.is_some()
    }

    /// Whether the type is a resource (a singleton stored in the world, see
    /// `World::insert_resource`) rather than a component
    /// stored on entities. Both share one id space.
    pub fn is_resource(&self) -> bool {
        self.resource
    }

    /// A named resource's name (`Some("terrain")` for the `Grid` named `"terrain"`), whose
    /// [`ComponentInfo::name`] is then the display name given at registration
    /// (`Grid "terrain"`).
    pub fn label(&self) -> Option<&'static str> {
        self.label
    }

    /// Whether it is stored in a sparse set keyed by entity, outside the archetype tables
    /// ([`ComponentOptions::sparse`]).
    pub fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// The Rust `TypeId`.
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// The type's drop function; `None` when dropping does nothing. Calling it is `unsafe`
    /// (see [`DropFn`]); an info is made only by registration, so it is the type's own.
    pub fn drop_fn(&self) -> Option<DropFn> {
        self.drop
    }
}

/// Why a component type could not be registered.
#[derive(Clone, Copy, Debug)]
pub enum RegisterComponentError {
    /// The type is registered already; its info.
    Duplicate(ComponentInfo),
    /// [`MAX_COMPONENT_TYPES`] types are registered.
    Full,
    /// The options ask for a sparse and versioned component; sparse components keep no
    /// snapshot.
    SparseVersioned,
}

/// Collects what `TypeId`'s `Hash` impl feeds (a `u64` of its already well mixed bits, in
/// today's std; any other bytes are mixed in too, so lookups stay correct either way).
struct TypeIdBits(u64);

impl Hasher for TypeIdBits {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = self.0.rotate_left(32) ^ value;
    }
}

/// `TypeId` to component id, for the lookup every query does: open addressing with linear
/// probing, at most half full. Used only for lookups, never iterated, so type identity (which
/// varies between builds) never reaches an order or an id.
#[derive(Debug, Default)]
struct TypeIndex {
    /// A power of two long (or empty).
    slots: Vec<Option<(TypeId, ComponentId)>>,
    len: usize,
}

impl TypeIndex {
    /// The first slot to probe for `type_id` in a table of `slots` (a power of two) slots.
    #[inline]
    fn home(type_id: &TypeId, slots: usize) -> usize {
        let mut bits = TypeIdBits(0);
        type_id.hash(&mut bits);
        // Fibonacci hashing: the top bits of the product, as many as the table needs.
        let product = bits.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (product >> (u64::BITS - slots.trailing_zeros())) as usize
    }

    #[inline]
    fn get(&self, type_id: &TypeId) -> Option<ComponentId> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = Self::home(type_id, self.slots.len());
        // At most half full, so an empty slot ends every probe.
        loop {
            match self.slots[at] {
                None => return None,
                Some((key, id)) if key == *type_id => return Some(id),
                Some(_) => at = (at + 1) & mask,
            }
        }
    }

    /// Adds `type_id`, which is not in the index yet.
    fn insert(&mut self, type_id: TypeId, id: ComponentId) {
        if (self.len + 1) * 2 > self.slots.len() {
            let old = std::mem::take(&mut self.slots);
            self.slots = vec![None; (old.len() * 2).max(16)];
            for (key, value) in old.into_iter().flatten() {
                self.place(key, value);
            }
        }
        self.place(type_id, id);
        self.len += 1;
    }

    fn place(&mut self, type_id: TypeId, id: ComponentId) {
        let mask = self.slots.len() - 1;
        let mut at = Self::home(&type_id, self.slots.len());
        while self.slots[at].is_some() {
            at = (at + 1) & mask;
        }
        self.slots[at] = Some((type_id, id));
    }
}

/// The registered component types, dense by id. Resource types share the table (and the id
/// space), marked by [`ComponentInfo::is_resource`].
///
/// The `TypeId` index is a hash table used only for lookups, never iterated, so type
/// identity (which varies between builds) never reaches an order or an id.
#[derive(Debug, Default)]
pub struct Components {
    infos: Vec<ComponentInfo>,
    by_type: TypeIndex,
    resources: ComponentSet,
    /// The named resources: type, name, id, in registration order (never iterated into an
    /// order or id: lookups compare both keys).
    named: Vec<(TypeId, &'static str, ComponentId)>,
    sparse: ComponentSet,
    /// By id, how save files write and read the type (`ComponentOptions::serde`); beside
    /// the infos, which stay small.
    #[cfg(feature = "serde")]
    serde: Vec<Option<&'static crate::file::SerdeFns>>,
}

impl Components {
    /// Registers `T`, hashed when `hash` is given and versioned when `clone_fn` is.
    pub(crate) fn register<T: Send + Sync + 'static>(
        &mut self,
        hash: Option<HashFn>,
        clone_fn: Option<CloneFn>,
    ) -> Result<ComponentId, RegisterComponentError> {
        let type_id = TypeId::of::<T>();
        if let Some(id) = self.by_type.get(&type_id) {
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
            clone_fn,
            save: None,
            resource: false,
            label: None,
            tracked: false,
            sparse: false,
        });
        #[cfg(feature = "serde")]
        self.serde.push(None);
        self.by_type.insert(type_id, id);
        Ok(id)
    }

    /// Registers a resource of type `T` keyed by `label` as well as its type, shown as
    /// `display` (`Grid "terrain"`): its own id, never found by [`Components::id_of`], so
    /// two resources of one type can exist and be declared apart.
    pub(crate) fn register_named<T: Send + Sync + 'static>(
        &mut self,
        label: &'static str,
        display: &'static str,
    ) -> Result<ComponentId, RegisterComponentError> {
        if let Some(id) = self.named_id::<T>(label) {
            return Err(RegisterComponentError::Duplicate(self.infos[id.index()]));
        }
        let id = ComponentId::from_index(self.infos.len()).ok_or(RegisterComponentError::Full)?;
        let drop = std::mem::needs_drop::<T>().then_some(drop_erased::<T> as DropFn);
        self.infos.push(ComponentInfo {
            id,
            type_id: TypeId::of::<T>(),
            name: display,
            layout: Layout::new::<T>(),
            drop,
            hash: None,
            clone_fn: None,
            resource: true,
            label: Some(label),
            tracked: false,
            save: None,
            sparse: false,
        });
        #[cfg(feature = "serde")]
        self.serde.push(None);
        self.resources.insert(id);
        self.named.push((TypeId::of::<T>(), label, id));
        Ok(id)
    }

    /// The id of the resource of type `T` named `label`, if registered. A linear scan over
    /// the named resources (setup-time and by-name lookups only; typed parameters keep the id).
    pub fn named_id<T: 'static>(&self, label: &str) -> Option<ComponentId> {
        let type_id = TypeId::of::<T>();
        self.named
            .iter()
            .find(|&&(ty, name, _)| ty == type_id && name == label)
            .map(|&(_, _, id)| id)
    }

    /// The names of the named resources of type `T`, in registration order (for "did you
    /// mean" suggestions).
    pub fn names_of<T: 'static>(&self) -> impl Iterator<Item = &'static str> + '_ {
        let type_id = TypeId::of::<T>();
        self.named
            .iter()
            .filter(move |&&(ty, _, _)| ty == type_id)
            .map(|&(_, name, _)| name)
    }

    /// Makes the registered type `id` keep change ticks in its table columns; only before
    /// any table has it (registration).
    pub(crate) fn mark_tracked(&mut self, id: ComponentId) {
        self.infos[id.index()].tracked = true;
    }

    /// Makes the registered type `id` a resource.
    pub(crate) fn mark_resource(&mut self, id: ComponentId) {
        self.infos[id.index()].resource = true;
        self.resources.insert(id);
    }

    /// Stores the registered component `id` in a sparse set.
    pub(crate) fn mark_sparse(&mut self, id: ComponentId) {
        self.infos[id.index()].sparse = true;
        self.sparse.insert(id);
    }

    /// The ids of the sparse components, which no archetype table holds.
    #[inline]
    pub fn sparse(&self) -> &ComponentSet {
        &self.sparse
    }

    /// Whether `id` is a sparse component.
    #[inline]
    pub fn is_sparse(&self, id: ComponentId) -> bool {
        self.sparse.contains(id)
    }

    /// Makes the values of `id` (of type `T`) take part in the state hash.
    pub(crate) fn set_hash<T: StateHash + 'static>(&mut self, id: ComponentId) {
        let info = &mut self.infos[id.index()];
        debug_assert!(info.type_id == TypeId::of::<T>());
        info.hash = Some(Self::hash_fn::<T>());
    }

    /// Makes the values of `id` (of type `T`) saved by cloning.
    pub(crate) fn set_saved<T: Clone + 'static>(&mut self, id: ComponentId) {
        let info = &mut self.infos[id.index()];
        debug_assert!(info.type_id == TypeId::of::<T>());
        info.save = Some(SaveFn::cloned::<T>());
    }

    /// Makes the values of `id` (of type `T`) written to save files, and saved (cloned).
    #[cfg(feature = "serde")]
    pub(crate) fn set_serde<T>(&mut self, id: ComponentId)
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        self.set_saved::<T>(id);
        self.serde[id.index()] = Some(crate::file::SerdeFns::of::<T>());
    }

    /// Sets how save files write component `id` (at registration, from its options).
    #[cfg(feature = "serde")]
    pub(crate) fn set_serde_fns(
        &mut self,
        id: ComponentId,
        fns: Option<&'static crate::file::SerdeFns>,
    ) {
        self.serde[id.index()] = fns;
    }

    /// How save files write and read type `id`, if it is registered with serde.
    #[cfg(feature = "serde")]
    pub(crate) fn serde_fns(&self, id: ComponentId) -> Option<&'static crate::file::SerdeFns> {
        self.serde.get(id.index()).copied().flatten()
    }

    /// Whether save files hold type `id`'s values ([`ComponentOptions::serde`], or a resource
    /// marked with `World::serde_resource`). Feature `serde`.
    #[cfg(feature = "serde")]
    pub fn is_serde(&self, id: ComponentId) -> bool {
        self.serde_fns(id).is_some()
    }

    /// Sets how component `id` is saved (at registration, from its options).
    pub(crate) fn set_save_fn(&mut self, id: ComponentId, save: Option<SaveFn>) {
        self.infos[id.index()].save = save;
    }

    /// The ids of the resource types.
    #[inline]
    pub fn resources(&self) -> &ComponentSet {
        &self.resources
    }

    /// Whether `id` is a resource type.
    #[inline]
    pub fn is_resource(&self, id: ComponentId) -> bool {
        self.resources.contains(id)
    }

    /// The hash function of `T`.
    pub(crate) fn hash_fn<T: StateHash + 'static>() -> HashFn {
        hash_erased::<T>
    }

    /// The id of `T`, if registered.
    #[inline]
    pub fn id_of<T: 'static>(&self) -> Option<ComponentId> {
        self.by_type.get(&TypeId::of::<T>())
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
    pub fn get(&self, id: ComponentId) -> &ComponentInfo {
        &self.infos[id.index()]
    }
}

/// The most component types a world registers.
pub const MAX_COMPONENT_TYPES: usize = MAX_COMPONENTS;

/// The most components one bundle holds, joined parts included: the laige contract's
/// `kMaxArchetypeComponents`.
pub const MAX_BUNDLE: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! types {
        ($($t:ident),*) => {
            $( struct $t; )*
            const IDS: &[fn() -> TypeId] = &[$(TypeId::of::<$t>),*];
        };
    }
    types!(
        T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16, T17, T18, T19
    );

    #[test]
    fn the_type_index_finds_every_type_across_growth() {
        let mut index = TypeIndex::default();
        assert_eq!(index.get(&TypeId::of::<u8>()), None);
        for (i, type_id) in IDS.iter().enumerate() {
            let id = ComponentId::from_index(i).unwrap();
            index.insert(type_id(), id);
            for (j, earlier) in IDS[..=i].iter().enumerate() {
                assert_eq!(index.get(&earlier()), ComponentId::from_index(j));
            }
            assert_eq!(index.get(&TypeId::of::<u8>()), None);
        }
        assert_eq!(index.slots.len(), 64);
    }
}
