//! Named resources as typed parameters: [`NamedRes`] and [`NamedResMut`], keyed by a marker
//! type that carries the name ([`ResourceName`], made with [`resource_name!`](crate::resource_name)).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use laige_query::Claim;
use laige_registry::{Access, ComponentId};

use super::{ParamFetch, ParamInit, SystemParam};
use crate::QueryError;

/// The name of a named resource, carried by a marker type so a parameter's type says which
/// resource it is: `NamedRes<'_, Grid, Terrain>`. Make one with
/// [`resource_name!`](crate::resource_name): `resource_name!(Terrain = "terrain");`.
pub trait ResourceName: Send + Sync + 'static {
    /// The name, as given to [`World::insert_named_resource`](crate::World::insert_named_resource).
    const NAME: &'static str;
}

/// Declares marker types for [`ResourceName`]: `resource_name!(pub Terrain = "terrain");`
/// makes a unit struct `Terrain` naming the resource `"terrain"`, for
/// `NamedRes<'_, Grid, Terrain>`. Several may be declared at once, separated by `;`.
#[macro_export]
macro_rules! resource_name {
    ($($vis:vis $marker:ident = $name:literal);+ $(;)?) => {
        $(
            #[doc = concat!("The resource name `\"", $name, "\"`.")]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            $vis struct $marker;
            impl $crate::ResourceName for $marker {
                const NAME: &'static str = $name;
            }
        )+
    };
}

/// A system parameter reading the resource of type `T` named `N::NAME`:
/// `terrain: NamedRes<'_, Grid, Terrain>`, then `terrain.cell(x, y)`.
///
/// The name must be in the world when the system is registered
/// ([`World::insert_named_resource`](crate::World::insert_named_resource)); an unknown one is
/// refused then, with the closest name as a suggestion. Access is declared by name: a
/// reader of `Grid "terrain"` does not conflict with a writer of `Grid "units"`.
pub struct NamedRes<'a, T, N: ResourceName> {
    value: &'a T,
    _name: PhantomData<fn() -> N>,
}

/// A system parameter writing the resource of type `T` named `N::NAME`:
/// `mut units: NamedResMut<'_, Grid, Units>`. As [`NamedRes`] otherwise.
pub struct NamedResMut<'a, T, N: ResourceName> {
    value: &'a mut T,
    _name: PhantomData<fn() -> N>,
}

impl<T, N: ResourceName> Deref for NamedRes<'_, T, N> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
    }
}

impl<T, N: ResourceName> Deref for NamedResMut<'_, T, N> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
    }
}

impl<T, N: ResourceName> DerefMut for NamedResMut<'_, T, N> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

impl<T: fmt::Debug, N: ResourceName> fmt::Debug for NamedRes<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("NamedRes")
            .field(&N::NAME)
            .field(self.value)
            .finish()
    }
}

impl<T: fmt::Debug, N: ResourceName> fmt::Debug for NamedResMut<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("NamedResMut")
            .field(&N::NAME)
            .field(self.value)
            .finish()
    }
}

/// What a named resource parameter keeps: its claim and the id its name resolved to.
#[derive(Debug)]
pub struct NamedState {
    claim: Claim,
    id: Option<ComponentId>,
}

impl NamedState {
    fn init<T: Send + Sync + 'static, N: ResourceName>(
        init: &mut ParamInit<'_>,
        access: Access,
        required: bool,
    ) -> Self {
        let id = init.named_resource::<T>(N::NAME, access, required);
        Self {
            claim: init.take_claim(),
            id,
        }
    }

    /// The id, or the error of an unknown name (registration refuses one first).
    fn id<T>(&self, fetch: &ParamFetch<'_>) -> Result<ComponentId, QueryError> {
        self.id.ok_or_else(|| {
            fetch.storage().report(QueryError::NoResource {
                system: fetch.system_name(),
                system_id: fetch.system_id(),
                component: std::any::type_name::<T>(),
                is_component: false,
            })
        })
    }
}

/// The parameter impls of `NamedRes` / `NamedResMut`, and of them in an `Option`: the
/// system runs while the name holds no value (removed with `World::remove_named_resource`),
/// seeing `None`. The name must be known at registration either way.
macro_rules! named_params {
    ($param:ident, $access:expr, $into:ident) => {
        impl<T: Send + Sync + 'static, N: ResourceName> SystemParam for $param<'_, T, N> {
            type State = NamedState;
            type Item<'a> = $param<'a, T, N>;

            fn init(init: &mut ParamInit<'_>) -> NamedState {
                NamedState::init::<T, N>(init, $access, true)
            }

            #[inline]
            fn fetch<'a>(
                state: &'a mut NamedState,
                fetch: &mut ParamFetch<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let id = state.id::<T>(fetch)?;
                Ok($param {
                    value: fetch.view(&state.claim)?.$into::<T>(id)?,
                    _name: PhantomData,
                })
            }
        }

        impl<T: Send + Sync + 'static, N: ResourceName> SystemParam for Option<$param<'_, T, N>> {
            type State = NamedState;
            type Item<'a> = Option<$param<'a, T, N>>;

            fn init(init: &mut ParamInit<'_>) -> NamedState {
                NamedState::init::<T, N>(init, $access, false)
            }

            #[inline]
            fn fetch<'a>(
                state: &'a mut NamedState,
                fetch: &mut ParamFetch<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let id = state.id::<T>(fetch)?;
                let view = fetch.view(&state.claim)?;
                if !view.holds_resource_at(id) {
                    return Ok(None);
                }
                Ok(Some($param {
                    value: view.$into::<T>(id)?,
                    _name: PhantomData,
                }))
            }
        }
    };
}

named_params!(NamedRes, Access::Read, into_resource_at);
named_params!(NamedResMut, Access::Write, into_resource_mut_at);
