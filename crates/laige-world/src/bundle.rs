//! Bundles: the tuples of components an entity is spawned with.

use std::any::type_name;
use std::mem::ManuallyDrop;

use arrayvec::ArrayVec;
use laige_registry::{ComponentId, ComponentSet};

use crate::WorldError;
use crate::component::Components;

/// The most components one bundle lists.
pub const MAX_BUNDLE: usize = 8;

/// The resolved ids of a bundle's components, in tuple order.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct BundleIds {
    pub(crate) ids: ArrayVec<ComponentId, MAX_BUNDLE>,
    pub(crate) set: ComponentSet,
}

impl BundleIds {
    fn new() -> Self {
        Self {
            ids: ArrayVec::new(),
            set: ComponentSet::EMPTY,
        }
    }

    /// Appends `T`'s id; the tuple impls push their types in order, at most [`MAX_BUNDLE`].
    fn push<T: 'static>(&mut self, components: &Components) -> Result<(), WorldError> {
        let component = type_name::<T>();
        let id = components
            .id_of::<T>()
            .ok_or(WorldError::UnregisteredComponent { component })?;
        if !self.set.insert(id) {
            return Err(WorldError::BundleDuplicate { component });
        }
        self.ids.push(id);
        Ok(())
    }
}

/// A tuple of up to [`MAX_BUNDLE`] components, each a distinct registered type:
/// `()`, `(Pos,)`, `(Pos, Vel)`, ...
///
/// Implemented for tuples only; a single component is spawned as `(value,)`.
///
/// # Safety
///
/// Implementations must move out exactly the values whose ids `resolve` produced, in the same
/// order, each as a valid value of its type. The tuple impls in this crate do; there is no
/// reason to implement it elsewhere.
pub unsafe trait Bundle: Send + Sync + 'static {
    /// Resolves the component ids, rejecting unregistered and repeated types.
    #[doc(hidden)]
    fn resolve(components: &Components) -> Result<BundleIds, WorldError>;

    /// Gives up each value: calls `put(id, ptr)` once per component, in tuple order, with a
    /// pointer to the value, which `put` must move out (byte copy) and which is then forgotten.
    #[doc(hidden)]
    fn take(self, ids: &BundleIds, put: &mut dyn FnMut(ComponentId, *mut u8));
}

macro_rules! tuple_bundle {
    ($($name:ident $idx:tt),*) => {
        // SAFETY: `resolve` pushes the ids of the tuple's types in order; `take` hands out one
        // pointer per element, in the same order, to a value it then forgets.
        unsafe impl<$($name: Send + Sync + 'static),*> Bundle for ($($name,)*) {
            #[allow(unused_variables, unused_mut)]
            fn resolve(components: &Components) -> Result<BundleIds, WorldError> {
                let mut ids = BundleIds::new();
                $(ids.push::<$name>(components)?;)*
                Ok(ids)
            }

            #[allow(unused_variables, non_snake_case)]
            fn take(self, ids: &BundleIds, put: &mut dyn FnMut(ComponentId, *mut u8)) {
                let ($($name,)*) = self;
                $(
                    let mut $name = ManuallyDrop::new($name);
                    if let Some(&id) = ids.ids.get($idx) {
                        put(id, (&mut *$name as *mut $name).cast::<u8>());
                    }
                )*
            }
        }
    };
}

tuple_bundle!();
tuple_bundle!(A 0);
tuple_bundle!(A 0, B 1);
tuple_bundle!(A 0, B 1, C 2);
tuple_bundle!(A 0, B 1, C 2, D 3);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
