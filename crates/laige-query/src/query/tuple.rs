//! Tuples of query elements, up to 8 (tuples nest for more).

use std::ptr::NonNull;

use laige_registry::ComponentId;

use super::{QueryData, QueryDesc, ReadOnlyQueryData};
use crate::declare::ParamInit;
use crate::{Entity, QueryError, Storage};
use laige_storage::archetype::Archetype;

macro_rules! tuple_query {
    ($($name:ident $state:ident),*) => {
        // SAFETY: every element's access is recorded (and checked against the others) by its
        // own `init`; each element touches only what it recorded.
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type Item<'a> = ($($name::Item<'a>,)*);
            type Chunk<'a> = ($($name::Chunk<'a>,)*);
            type State = ($($name::State,)*);
            type Fetch = ($($name::Fetch,)*);

            #[allow(unused_variables, clippy::unused_unit)]
            fn init(desc: &mut QueryDesc<'_>) -> Result<Self::State, QueryError> {
                Ok(($($name::init(desc)?,)*))
            }

            #[allow(unused_variables)]
            fn declare(init: &mut ParamInit<'_>) {
                $($name::declare(init);)*
            }

            #[inline]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            fn fetch(state: &Self::State, archetype: &Archetype) -> Self::Fetch {
                let ($($name,)*) = state;
                ($($name::fetch($name, archetype),)*)
            }

            #[inline]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn fetch_driven(
                state: &Self::State,
                archetype: &Archetype,
                driver: ComponentId,
                driver_column: NonNull<u8>,
            ) -> Self::Fetch {
                let ($($name,)*) = state;
                // SAFETY: forwarded from the caller: the archetype matches the tuple, so it
                // matches every element (their requirements are the tuple's).
                ($(unsafe { $name::fetch_driven($name, archetype, driver, driver_column) },)*)
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn next_item<'a>(fetch: &mut Self::Fetch) -> Self::Item<'a> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { $name::next_item($name) },)*)
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            unsafe fn skip_rows(fetch: &mut Self::Fetch, rows: usize) {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller, element by element.
                $(unsafe { $name::skip_rows($name, rows) };)*
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn next_item_mixed<'a>(
                state: &Self::State,
                fetch: &mut Self::Fetch,
                storage: &'a Storage,
                entity: Entity,
            ) -> Self::Item<'a> {
                let ($($name,)*) = fetch;
                let ($($state,)*) = state;
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { $name::next_item_mixed($state, $name, storage, entity) },)*)
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            unsafe fn row_matches_mixed(
                state: &Self::State,
                fetch: &Self::Fetch,
                storage: &Storage,
                entity: Entity,
                row: usize,
            ) -> bool {
                let ($($name,)*) = fetch;
                let ($($state,)*) = state;
                // SAFETY: forwarded from the caller, element by element.
                true $(&& unsafe { $name::row_matches_mixed($state, $name, storage, entity, row) })*
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            unsafe fn skip_rows_mixed(
                state: &Self::State,
                fetch: &mut Self::Fetch,
                storage: &Storage,
                rows: usize,
            ) {
                let ($($name,)*) = fetch;
                let ($($state,)*) = state;
                // SAFETY: forwarded from the caller, element by element.
                $(unsafe { $name::skip_rows_mixed($state, $name, storage, rows) };)*
            }

            #[inline]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn chunk<'a>(fetch: &Self::Fetch, len: usize) -> Self::Chunk<'a> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { $name::chunk($name, len) },)*)
            }

            const FILTERS_ROWS: bool = false $(|| $name::FILTERS_ROWS)*;

            #[inline]
            #[allow(unused_variables, non_snake_case)]
            fn may_match(fetch: &Self::Fetch) -> bool {
                let ($($name,)*) = fetch;
                true $(&& $name::may_match($name))*
            }

            #[inline]
            #[allow(unused_variables, non_snake_case)]
            unsafe fn block_rows(fetch: &Self::Fetch, block: usize) -> u64 {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller, element by element.
                u64::MAX $(& unsafe { $name::block_rows($name, block) })*
            }

            #[inline]
            #[allow(unused_variables, non_snake_case)]
            unsafe fn mark_rows(fetch: &Self::Fetch, first: usize, len: usize) {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller, element by element.
                $(unsafe { $name::mark_rows($name, first, len) };)*
            }
        }

        // SAFETY: every element only reads.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

tuple_query!();
tuple_query!(A sa);
tuple_query!(A sa, B sb);
tuple_query!(A sa, B sb, C sc);
tuple_query!(A sa, B sb, C sc, D sd);
tuple_query!(A sa, B sb, C sc, D sd, E se);
tuple_query!(A sa, B sb, C sc, D sd, E se, F sf);
tuple_query!(A sa, B sb, C sc, D sd, E se, F sf, G sg);
tuple_query!(A sa, B sb, C sc, D sd, E se, F sf, G sg, H sh);
