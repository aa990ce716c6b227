//! Bundles: the components an entity is spawned with, placed in its archetype in one move.

use std::any::type_name;
use std::mem::ManuallyDrop;

use arrayvec::ArrayVec;
use laige_registry::{ComponentId, ComponentSet};

use crate::WorldError;
use crate::component::{Component, Components, MAX_BUNDLE};

/// The most elements one tuple lists; nesting and [`Bundle::and`] build larger bundles.
pub const MAX_BUNDLE_TUPLE: usize = 16;

/// The resolved ids of a bundle's components, in the order its values are given up.
#[derive(Clone, Debug)]
pub struct BundleIds {
    ids: ArrayVec<ComponentId, MAX_BUNDLE>,
    set: ComponentSet,
}

impl BundleIds {
    fn new() -> Self {
        Self {
            ids: ArrayVec::new(),
            set: ComponentSet::EMPTY,
        }
    }

    /// The component ids, in the order the bundle gives its values up.
    pub fn ids(&self) -> &[ComponentId] {
        &self.ids
    }

    /// The component set: the archetype the bundle's entity goes to.
    pub fn set(&self) -> &ComponentSet {
        &self.set
    }

    /// Appends `T`'s id: an unregistered, repeated or one-too-many type is refused.
    pub fn push<T: 'static>(&mut self, components: &Components) -> Result<(), WorldError> {
        let component = type_name::<T>();
        let id = components
            .id_of::<T>()
            .ok_or(WorldError::UnregisteredComponent { component })?;
        if !self.set.insert(id) {
            return Err(WorldError::BundleDuplicate { component });
        }
        self.ids
            .try_push(id)
            .map_err(|_| WorldError::BundleTooLarge { component })
    }

    /// The id of the value at position `at`, moving `at` on.
    pub fn next(&self, at: &mut usize) -> Option<ComponentId> {
        let id = self.ids.get(*at).copied();
        *at += 1;
        id
    }
}

/// Components to spawn an entity with: one [`Component`], or a tuple of up to
/// [`MAX_BUNDLE_TUPLE`] bundles (`()`, `(Pos, Vel)`, `((Pos, Vel), Health)`, ...), or bundles
/// joined with [`Bundle::and`]; up to [`MAX_BUNDLE`] distinct registered components in all.
/// Every component goes straight to the entity's final archetype: one move, however the
/// bundle was put together.
///
/// ```
/// use laige_world::{Bundle, Component, World};
///
/// #[derive(Debug, PartialEq)]
/// struct Pos(f32);
/// struct Vel(f32);
/// struct Health(u32);
/// struct Team(u8);
/// impl Component for Pos {}
/// impl Component for Vel {}
/// impl Component for Health {}
/// impl Component for Team {}
///
/// fn body() -> impl Bundle { (Pos(1.0), Vel(0.0)) }
/// fn soldier(team: u8) -> impl Bundle { (body(), Health(100), Team(team)) }
///
/// let mut world = World::default();
/// world.register_component::<Pos>()?;
/// world.register_component::<Vel>()?;
/// world.register_component::<Health>()?;
/// world.register_component::<Team>()?;
/// let e = world.spawn(soldier(2))?;
/// let f = world.spawn(body().and(Team(1)))?;
/// assert_eq!(world.get::<Pos>(e)?, &Pos(1.0));
/// assert_eq!(world.archetypes().iter().filter(|a| !a.is_empty()).count(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Safety
///
/// Implementations must move out exactly the values whose ids `resolve_into` pushed, in the
/// same order, each as a valid value of its type. The impls in this crate do; there is no
/// reason to implement it elsewhere.
pub unsafe trait Bundle: Send + Sync + 'static {
    /// Pushes the component ids to `ids`, rejecting unregistered and repeated types.
    fn resolve_into(components: &Components, ids: &mut BundleIds) -> Result<(), WorldError>;

    /// Gives up each value: calls `put(id, ptr)` once per component, in `resolve_into`'s
    /// order, with a pointer to the value, which `put` must move out (byte copy) and which
    /// is then forgotten. `at` is the position of this bundle's first id in `ids`.
    fn take_from(self, ids: &BundleIds, at: &mut usize, put: &mut dyn FnMut(ComponentId, *mut u8));

    /// [`Bundle::take_from`] into a typed sink: each value goes to
    /// [`ValueSink::put`] with its type, so a copy of a known size can be inlined where a
    /// `dyn` callback would copy a run-time number of bytes.
    fn put_from<S: ValueSink>(self, ids: &BundleIds, at: &mut usize, sink: &mut S)
    where
        Self: Sized;

    /// This bundle and `other`, as one bundle: spawned in one move, into the archetype of
    /// all their components.
    fn and<B: Bundle>(self, other: B) -> Join<Self, B>
    where
        Self: Sized,
    {
        Join(self, other)
    }

    /// Resolves every component id.
    fn resolve(components: &Components) -> Result<BundleIds, WorldError>
    where
        Self: Sized,
    {
        let mut ids = BundleIds::new();
        Self::resolve_into(components, &mut ids)?;
        Ok(ids)
    }

    /// Gives up every value, as [`Bundle::take_from`] from the start.
    fn take(self, ids: &BundleIds, put: &mut dyn FnMut(ComponentId, *mut u8))
    where
        Self: Sized,
    {
        self.take_from(ids, &mut 0, put);
    }
}

/// Where a bundle's values go, one typed call per value: see [`Bundle::put_from`].
pub trait ValueSink {
    /// Takes the value at `value`, of the component `id`.
    ///
    /// # Safety
    ///
    /// `value` points to a valid `T`, the type of `id`, which the caller gives up: the sink
    /// moves it out (byte copy) or drops it, once.
    unsafe fn put<T: 'static>(&mut self, id: ComponentId, value: *mut T);
}

/// Two bundles as one: what [`Bundle::and`] returns.
#[derive(Clone, Copy, Debug)]
pub struct Join<A, B>(A, B);

// SAFETY: both halves resolve and give up their values in order, `A`'s first.
unsafe impl<A: Bundle, B: Bundle> Bundle for Join<A, B> {
    fn resolve_into(components: &Components, ids: &mut BundleIds) -> Result<(), WorldError> {
        A::resolve_into(components, ids)?;
        B::resolve_into(components, ids)
    }

    fn take_from(self, ids: &BundleIds, at: &mut usize, put: &mut dyn FnMut(ComponentId, *mut u8)) {
        self.0.take_from(ids, at, put);
        self.1.take_from(ids, at, put);
    }

    #[inline(always)]
    fn put_from<S: ValueSink>(self, ids: &BundleIds, at: &mut usize, sink: &mut S) {
        self.0.put_from(ids, at, sink);
        self.1.put_from(ids, at, sink);
    }
}

// SAFETY: a component resolves its one id and gives up its one value, which it forgets.
unsafe impl<C: Component> Bundle for C {
    fn resolve_into(components: &Components, ids: &mut BundleIds) -> Result<(), WorldError> {
        ids.push::<C>(components)
    }

    fn take_from(self, ids: &BundleIds, at: &mut usize, put: &mut dyn FnMut(ComponentId, *mut u8)) {
        let mut value = ManuallyDrop::new(self);
        if let Some(id) = ids.next(at) {
            put(id, (&mut *value as *mut C).cast::<u8>());
        }
    }

    #[inline(always)]
    fn put_from<S: ValueSink>(self, ids: &BundleIds, at: &mut usize, sink: &mut S) {
        let mut value = ManuallyDrop::new(self);
        if let Some(id) = ids.next(at) {
            // SAFETY: `id` is `C`'s (resolved by `resolve_into` at this position); the value
            // is valid and given up: `ManuallyDrop` keeps it from being dropped here.
            unsafe { sink.put::<C>(id, &mut *value) };
        }
    }
}

macro_rules! tuple_bundle {
    ($($name:ident),*) => {
        // SAFETY: each element is a bundle that keeps the contract; they resolve and give
        // up their values in the same order, first to last.
        unsafe impl<$($name: Bundle),*> Bundle for ($($name,)*) {
            #[allow(unused_variables)]
            fn resolve_into(
                components: &Components,
                ids: &mut BundleIds,
            ) -> Result<(), WorldError> {
                $($name::resolve_into(components, ids)?;)*
                Ok(())
            }

            #[allow(unused_variables, non_snake_case)]
            fn take_from(
                self,
                ids: &BundleIds,
                at: &mut usize,
                put: &mut dyn FnMut(ComponentId, *mut u8),
            ) {
                let ($($name,)*) = self;
                $($name.take_from(ids, at, put);)*
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn put_from<S: ValueSink>(self, ids: &BundleIds, at: &mut usize, sink: &mut S) {
                let ($($name,)*) = self;
                $($name.put_from(ids, at, sink);)*
            }
        }
    };
}

tuple_bundle!();
tuple_bundle!(A);
tuple_bundle!(A, B);
tuple_bundle!(A, B, C);
tuple_bundle!(A, B, C, D);
tuple_bundle!(A, B, C, D, E);
tuple_bundle!(A, B, C, D, E, F);
tuple_bundle!(A, B, C, D, E, F, G);
tuple_bundle!(A, B, C, D, E, F, G, H);
tuple_bundle!(A, B, C, D, E, F, G, H, I);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J, K);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
tuple_bundle!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);
