//! The system parameters: queries, resources, commands, the PRNG stream, local state, and
//! tuples of them.

use std::any::type_name;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use laige_query::{Claim, Queries, QueryIter, ReadOnlyQueryData};
use laige_registry::Access;

use super::{ParamFetch, ParamInit, SystemParam, init_param};
use crate::par::{Batch, BatchScratch, BatchSink, par_each_chunk_in, par_each_in};
use crate::{
    CommandBuffer, Commands, Entity, Filtered, Prepared, Prng, QueryData, QueryError, QueryFilter,
    Storage, SystemMeta,
};

/// A system parameter that queries entities: `Query<'_, (&mut Pos, &Vel)>`, or with a filter,
/// `Query<'_, &mut Pos, With<Player>>`.
///
/// Its elements declare the system's access at registration (`&mut T` a write, `&T` a read,
/// [`Fresh<&T>`](crate::Fresh) a fresh read, [`Snapshot<&T>`](crate::Snapshot) a snapshot
/// read), so the builder needs no `.reads`/`.writes` for them. Every call is still checked
/// against the system's declaration, which costs what a context query costs, and which is
/// how a table footprint (`.matching::<T>()`) is enforced: hence the `Result`s, which convert
/// with `?` in a system that returns one.
pub struct Query<'a, Q: QueryData, F: QueryFilter = ()> {
    /// The view this parameter claimed: it reaches only the query's own components.
    view: Queries<'a>,
    /// The system's `par_each` scratch, shared by its query parameters (one loop at a time).
    batches: &'a BatchScratch,
    _query: PhantomData<fn() -> (Q, F)>,
}

impl<'a, Q: QueryData, F: QueryFilter> Query<'a, Q, F> {
    /// Calls `f` with each matching item: archetypes in ascending id, rows in table order.
    /// Another parameter (a second query, a resource, the commands) may be used inside `f`;
    /// this one may not. Put [`Entity`] in the query for the entity.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`]: only [`QueryError::Unmatched`] can happen to a registered
    /// system, when the query does not require every component of the system's `.matching`
    /// footprint.
    #[inline]
    pub fn each(&mut self, f: impl FnMut(Q::Item<'_>)) -> Result<(), QueryError> {
        self.view.each::<Filtered<Q, F>>(f)
    }

    /// Calls `f` once per matching non-empty archetype with its entities and whole columns.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    #[inline]
    pub fn each_chunk(&mut self, f: impl FnMut(&[Entity], Q::Chunk<'_>)) -> Result<(), QueryError> {
        self.view.each_chunk::<Filtered<Q, F>>(f)
    }

    /// The matching items as an [`Iterator`], mutably: `for (pos, vel) in q.iter_mut()? {..}`.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    #[inline]
    pub fn iter_mut(&mut self) -> Result<QueryIter<'_, Filtered<Q, F>>, QueryError> {
        self.view.iter_mut::<Filtered<Q, F>>()
    }

    /// The one matching item, mutably.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotSingle`] unless exactly one row matches; otherwise as for
    /// [`Query::each`].
    #[inline]
    pub fn single_mut(&mut self) -> Result<Q::Item<'_>, QueryError> {
        self.view.single_mut::<Filtered<Q, F>>()
    }

    /// The item of `entity`, mutably: `None` when it is not alive or does not match.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Result<Option<Q::Item<'_>>, QueryError> {
        self.view.get_mut::<Filtered<Q, F>>(entity)
    }

    /// Calls `f` with each matching item, in batches that the idle threads of the executor
    /// help with; see [`SystemContext::par_each`](crate::SystemContext::par_each) for the
    /// batches, their commands and their PRNG streams.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    pub fn par_each(
        &mut self,
        f: impl Fn(&mut Batch<'_>, Q::Item<'_>) + Sync,
    ) -> Result<(), QueryError> {
        par_each_in::<Filtered<Q, F>>(self.view.reborrow(), BatchSink::Pool(self.batches), f)
    }

    /// Calls `f` once per batch of [`Query::par_each`] with its entities and its rows of
    /// each column.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    pub fn par_each_chunk(
        &mut self,
        f: impl Fn(&mut Batch<'_>, &[Entity], Q::Chunk<'_>) + Sync,
    ) -> Result<(), QueryError> {
        let sink = BatchSink::Pool(self.batches);
        par_each_chunk_in::<Filtered<Q, F>>(self.view.reborrow(), sink, f)
    }

    /// Checks the query once, for many lookups by handle ([`Prepared::get`]).
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    #[inline]
    pub fn prepare(&mut self) -> Result<Prepared<'_, Filtered<Q, F>>, QueryError> {
        self.view.prepare::<Filtered<Q, F>>()
    }

    /// The storage's metadata: liveness, counts, archetypes.
    pub fn storage(&self) -> &'a Storage {
        self.view.storage()
    }
}

impl<Q: ReadOnlyQueryData, F: QueryFilter> Query<'_, Q, F> {
    /// The matching items as an [`Iterator`], for a read-only query.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    #[inline]
    pub fn iter(&self) -> Result<QueryIter<'_, Filtered<Q, F>>, QueryError> {
        self.view.iter::<Filtered<Q, F>>()
    }

    /// The one matching item.
    ///
    /// # Errors
    ///
    /// As for [`Query::single_mut`].
    #[inline]
    pub fn single(&self) -> Result<Q::Item<'_>, QueryError> {
        self.view.single::<Filtered<Q, F>>()
    }

    /// The item of `entity`: `None` when it is not alive or does not match.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    #[inline]
    pub fn get(&self, entity: Entity) -> Result<Option<Q::Item<'_>>, QueryError> {
        self.view.get::<Filtered<Q, F>>(entity)
    }
}

impl<Q: QueryData, F: QueryFilter> fmt::Debug for Query<'_, Q, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("system", &self.view.meta().map(SystemMeta::name))
            .field("query", &type_name::<Q>())
            .field("filter", &type_name::<F>())
            .finish()
    }
}

impl<Q: QueryData, F: QueryFilter> SystemParam for Query<'_, Q, F> {
    /// What the query's elements claim.
    type State = Claim;
    type Item<'a> = Query<'a, Q, F>;

    fn init(init: &mut ParamInit<'_>) -> Claim {
        Filtered::<Q, F>::declare(init);
        init.take_claim()
    }

    #[inline]
    fn fetch<'a>(
        claim: &'a mut Claim,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<Self::Item<'a>, QueryError> {
        Ok(Query {
            view: fetch.view(claim)?,
            batches: fetch.batches(),
            _query: PhantomData,
        })
    }
}

/// A system parameter reading the resource `T`: `time: Res<'_, Time>`, then `time.dt`.
///
/// The system does not run while the world holds no `T` (that run fails with
/// [`QueryError::NoResource`]); take `Option<Res<'_, T>>` to run without it.
pub struct Res<'a, T> {
    value: &'a T,
}

/// A system parameter writing the resource `T`: `mut score: ResMut<'_, Score>`.
///
/// As [`Res`] for a missing resource; take `Option<ResMut<'_, T>>` to run without it.
pub struct ResMut<'a, T> {
    value: &'a mut T,
}

impl<T> Deref for Res<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> Deref for ResMut<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for ResMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Res<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Res").field(self.value).finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for ResMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ResMut").field(self.value).finish()
    }
}

macro_rules! resource_param {
    ($param:ident, $access:expr, $into:ident) => {
        impl<T: Send + Sync + 'static> SystemParam for $param<'_, T> {
            /// What the resource's access claims.
            type State = Claim;
            type Item<'a> = $param<'a, T>;

            fn init(init: &mut ParamInit<'_>) -> Claim {
                init.resource::<T>($access, true);
                init.take_claim()
            }

            #[inline]
            fn fetch<'a>(
                claim: &'a mut Claim,
                fetch: &mut ParamFetch<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let value = fetch.view(claim)?.$into::<T>()?;
                Ok($param { value })
            }
        }

        impl<T: Send + Sync + 'static> SystemParam for Option<$param<'_, T>> {
            type State = Claim;
            type Item<'a> = Option<$param<'a, T>>;

            fn init(init: &mut ParamInit<'_>) -> Claim {
                init.resource::<T>($access, false);
                init.take_claim()
            }

            #[inline]
            fn fetch<'a>(
                claim: &'a mut Claim,
                fetch: &mut ParamFetch<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let view = fetch.view(claim)?;
                if !view.holds_resource::<T>() {
                    return Ok(None);
                }
                Ok(Some($param {
                    value: view.$into::<T>()?,
                }))
            }
        }
    };
}

resource_param!(Res, Access::Read, into_resource);
resource_param!(ResMut, Access::Write, into_resource_mut);

/// A system parameter holding the system's own PRNG stream: `mut rng: Rng<'_>`, then
/// `rng.next_range(0, 6)`. Every system has one, derived from the world's seed and its id.
pub struct Rng<'a>(&'a mut Prng);

impl Deref for Rng<'_> {
    type Target = Prng;

    fn deref(&self) -> &Prng {
        self.0
    }
}

impl DerefMut for Rng<'_> {
    fn deref_mut(&mut self) -> &mut Prng {
        self.0
    }
}

impl fmt::Debug for Rng<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Rng").field(self.0).finish()
    }
}

// Registration refuses a second holder of the PRNG; a fetch takes it once.
impl SystemParam for Rng<'_> {
    type State = ();
    type Item<'a> = Rng<'a>;

    fn init(init: &mut ParamInit<'_>) {
        init.part(type_name::<Prng>());
    }

    #[inline]
    fn fetch<'a>(_: &'a mut (), fetch: &mut ParamFetch<'a>) -> Result<Rng<'a>, QueryError> {
        Ok(Rng(fetch.take_rng()?))
    }
}

// Registration refuses a second holder of the buffer; a fetch takes it once. Recording reads
// only the component table, never a column.
impl SystemParam for Commands<'_> {
    type State = ();
    type Item<'a> = Commands<'a>;

    fn init(init: &mut ParamInit<'_>) {
        init.part(type_name::<CommandBuffer>());
    }

    #[inline]
    fn fetch<'a>(_: &'a mut (), fetch: &mut ParamFetch<'a>) -> Result<Commands<'a>, QueryError> {
        let storage = fetch.storage();
        Ok(Commands::new(fetch.take_commands()?, storage))
    }
}

/// A system parameter holding state of the system's own that persists between runs:
/// `mut frames: Local<'_, u64>`, then `*frames += 1`. It starts as `T::default()`.
///
/// It needs `T: Clone`, so that [`World::save_state`](crate::World::save_state) saves it
/// (with `clone_from`, which reuses the saved copy's allocations). State a closure keeps in
/// what it captures is not saved: keep what a rollback must restore in a `Local`.
pub struct Local<'a, T>(&'a mut T);

impl<T> Deref for Local<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
    }
}

impl<T> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

impl<T: fmt::Debug> fmt::Debug for Local<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Local").field(self.0).finish()
    }
}

// The value is the system's own, kept beside its function so that a save reaches it; it
// reaches nothing of the world.
impl<T: Default + Clone + Send + 'static> SystemParam for Local<'_, T> {
    /// The value's position among its holder's kept values.
    type State = usize;
    type Item<'a> = Local<'a, T>;

    fn init(init: &mut ParamInit<'_>) -> usize {
        init.local(super::locals::boxed_local(T::default()))
    }

    #[inline]
    fn fetch<'a>(
        index: &'a mut usize,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<Local<'a, T>, QueryError> {
        Ok(Local(fetch.local_at::<T>(*index)?))
    }
}

macro_rules! tuple_param {
    ($($p:ident),*) => {
        // Each element records its own needs (attributed to it) and fetches its own view.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        impl<$($p: SystemParam),*> SystemParam for ($($p,)*) {
            type State = ($($p::State,)*);
            type Item<'a> = ($($p::Item<'a>,)*);

            fn init(init: &mut ParamInit<'_>) -> Self::State {
                ($(init_param::<$p>(init),)*)
            }

            #[inline]
            fn fetch<'a>(
                state: &'a mut Self::State,
                fetch: &mut ParamFetch<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let ($($p,)*) = state;
                Ok(($($p::fetch($p, fetch)?,)*))
            }
        }
    };
}

tuple_param!(P0);
tuple_param!(P0, P1);
tuple_param!(P0, P1, P2);
tuple_param!(P0, P1, P2, P3);
tuple_param!(P0, P1, P2, P3, P4);
tuple_param!(P0, P1, P2, P3, P4, P5);
tuple_param!(P0, P1, P2, P3, P4, P5, P6);
tuple_param!(P0, P1, P2, P3, P4, P5, P6, P7);
