//! Presence filters: `With<T>` and `Without<T>`.

use std::fmt;
use std::marker::PhantomData;

use super::{QueryData, QueryDesc, ReadOnlyQueryData};
use crate::declare::ParamInit;
use crate::{Entity, QueryError, Storage};
use laige_registry::ComponentId;
use laige_storage::archetype::Archetype;

/// A query element that matches only entities that have a `T`, without reading it.
///
/// Yields `()`. Needs no declared access: presence changes only when commands are applied,
/// never while systems run. A resource type is refused ([`QueryError::ResourceInQuery`]).
pub struct With<T>(PhantomData<fn() -> T>);

/// A query element that matches only entities that have no `T`.
///
/// Yields `()`. Needs no declared access.
pub struct Without<T>(PhantomData<fn() -> T>);

impl<T> fmt::Debug for With<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "With<{}>", std::any::type_name::<T>())
    }
}

impl<T> fmt::Debug for Without<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Without<{}>", std::any::type_name::<T>())
    }
}

macro_rules! filter {
    ($ty:ident, $present:literal) => {
        // SAFETY: a filter touches no column; it only narrows the matched archetypes (and,
        // for a sparse component, the rows: by the set's membership, which changes only
        // under `&mut Storage`).
        unsafe impl<T: 'static> QueryData for $ty<T> {
            type Item<'a> = ();
            type Chunk<'a> = ();
            type State = Option<ComponentId>;
            type Fetch = ();

            fn init(desc: &mut QueryDesc<'_>) -> Result<Option<ComponentId>, QueryError> {
                desc.filter::<T>($present)
            }

            #[inline(always)]
            unsafe fn row_matches_mixed(
                state: &Option<ComponentId>,
                _: &(),
                storage: &Storage,
                entity: Entity,
                _: usize,
            ) -> bool {
                // A table component's condition was the table's; a sparse one's is the set's.
                state
                    .and_then(|id| storage.sparse_sets().get(id))
                    .is_none_or(|set| set.contains(entity) == $present)
            }

            // Presence changes only when commands are applied: no access to declare.
            fn declare(init: &mut ParamInit<'_>) {
                init.filter::<T>();
            }

            #[inline]
            fn fetch(_: &Option<ComponentId>, _: &Archetype) {}

            #[inline(always)]
            unsafe fn next_item<'a>(_: &mut ()) -> Self::Item<'a> {}

            #[inline(always)]
            unsafe fn skip_rows(_: &mut (), _: usize) {}

            #[inline]
            unsafe fn chunk<'a>(_: &(), _: usize) -> Self::Chunk<'a> {}
        }

        // SAFETY: a filter yields `()`.
        unsafe impl<T: 'static> ReadOnlyQueryData for $ty<T> {}
    };
}

filter!(With, true);
filter!(Without, false);

/// A filter of a typed system's `Query`: [`With<T>`], [`Without<T>`],
/// [`Changed<T>`](super::Changed), [`Added<T>`](super::Added), or a tuple of them. It narrows
/// the matched entities and yields nothing.
pub trait QueryFilter: QueryData {}

impl<T: 'static> QueryFilter for With<T> {}
impl<T: 'static> QueryFilter for Without<T> {}

macro_rules! tuple_filter {
    ($($name:ident),*) => {
        impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {}
    };
}

tuple_filter!();
tuple_filter!(A);
tuple_filter!(A, B);
tuple_filter!(A, B, C);
tuple_filter!(A, B, C, D);
