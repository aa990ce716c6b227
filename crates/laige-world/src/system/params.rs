//! The system parameters: queries, resources, commands, the PRNG stream, local state, and
//! tuples of them.

use std::any::type_name;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use laige_registry::{Access, ComponentId};

use super::{ParamInit, SystemParam, SystemWorld, init_param};
use crate::par::{Batch, BatchScratch, BatchSink, par_each_chunk_in, par_each_in};
use crate::{
    CommandBuffer, Commands, Entity, Prepared, Prng, QueryError, QueryFilter, Storage, SystemMeta,
};
use laige_query::query::{Filtered, QueryData, each_chunk_in, each_in, prepared_in};

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
    storage: &'a Storage,
    meta: &'a SystemMeta,
    /// The system's `par_each` scratch, shared by its query parameters (one loop at a time,
    /// see [`SystemWorld::batches`]).
    batches: NonNull<BatchScratch>,
    _query: PhantomData<fn() -> (Q, F)>,
}

impl<Q: QueryData, F: QueryFilter> Query<'_, Q, F> {
    /// Calls `f` with each matching entity and its item: archetypes in ascending id, rows in
    /// table order. Another parameter (a second query, a resource, the commands) may be used
    /// inside `f`; this one may not.
    ///
    /// # Errors
    ///
    /// As for [`SystemContext::each`](crate::SystemContext::each): only
    /// [`QueryError::Unmatched`] can happen to a registered system, when the query does not
    /// require every component of the system's `.matching` footprint.
    pub fn each(&mut self, f: impl FnMut(Entity, Q::Item<'_>)) -> Result<(), QueryError> {
        // SAFETY: the system's access is exclusive as declared for the run (the fetch
        // contract), no other parameter reaches this query's components in a conflicting way
        // (registration), and `&mut self` keeps this one from running twice at once;
        // `each_in` checks the query against the declaration first.
        unsafe { each_in::<Filtered<Q, F>>(self.storage, Some(self.meta), f) }
    }

    /// Calls `f` once per matching non-empty archetype with its entities and whole columns.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    pub fn each_chunk(
        &mut self,
        mut f: impl FnMut(&[Entity], Q::Chunk<'_>),
    ) -> Result<(), QueryError> {
        // SAFETY: as for `each`.
        unsafe {
            each_chunk_in::<Filtered<Q, F>>(self.storage, Some(self.meta), |entities, chunk| {
                f(entities, chunk)
            })
        }
    }

    /// Calls `f` with each matching entity and its item, in batches that the idle threads of
    /// the executor help with; see [`SystemContext::par_each`](crate::SystemContext::par_each)
    /// for the batches, their commands and their PRNG streams.
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    pub fn par_each(
        &mut self,
        f: impl Fn(&mut Batch<'_>, Entity, Q::Item<'_>) + Sync,
    ) -> Result<(), QueryError> {
        // SAFETY: as for `each`; the scratch is the running system's, and no other loop of
        // its parameters runs meanwhile (`&mut self` here, and a loop's closure is `Fn`).
        unsafe {
            let sink = BatchSink::Pool(&mut *self.batches.as_ptr());
            par_each_in::<Filtered<Q, F>>(self.storage, Some(self.meta), sink, f)
        }
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
        // SAFETY: as for `par_each`.
        unsafe {
            let sink = BatchSink::Pool(&mut *self.batches.as_ptr());
            par_each_chunk_in::<Filtered<Q, F>>(self.storage, Some(self.meta), sink, f)
        }
    }

    /// Checks the query once, for many lookups by handle ([`Prepared::get`]).
    ///
    /// # Errors
    ///
    /// As for [`Query::each`].
    pub fn prepare(&mut self) -> Result<Prepared<'_, Filtered<Q, F>>, QueryError> {
        // SAFETY: as for `each`; the result borrows `self` mutably for as long as it lives.
        unsafe { prepared_in::<Filtered<Q, F>>(self.storage, Some(self.meta)) }
    }

    /// The storage's metadata: liveness, counts, archetypes.
    pub fn storage(&self) -> &Storage {
        self.storage
    }
}

impl<Q: QueryData, F: QueryFilter> fmt::Debug for Query<'_, Q, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("system", &self.meta.name)
            .field("query", &type_name::<Q>())
            .field("filter", &type_name::<F>())
            .finish()
    }
}

// SAFETY: `init` records every element's access (`declare`); a query reaches nothing else.
unsafe impl<Q: QueryData, F: QueryFilter> SystemParam for Query<'_, Q, F> {
    type State = ();
    type Item<'a> = Query<'a, Q, F>;

    fn init(init: &mut ParamInit<'_>) {
        Filtered::<Q, F>::declare(init);
    }

    #[inline]
    unsafe fn fetch<'a>(
        _: &'a mut (),
        world: SystemWorld<'a>,
    ) -> Result<Self::Item<'a>, QueryError> {
        Ok(Query {
            storage: world.storage,
            meta: world.meta,
            batches: world.batches(),
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

/// The value of resource `id` (`T`'s), if the world holds it.
fn resource_ptr(id: Option<ComponentId>, world: SystemWorld<'_>) -> Option<*mut u8> {
    id.and_then(|id| world.storage.resources().ptr(id))
}

/// The error of a run that needs resource `T` while the world holds none; reported.
#[cold]
fn missing<T>(world: SystemWorld<'_>) -> QueryError {
    world.storage.report(QueryError::NoResource {
        system: world.meta.name,
        system_id: world.meta.id,
        component: type_name::<T>(),
        is_component: false,
    })
}

macro_rules! resource_param {
    ($param:ident, $access:expr, |$ptr:ident| $item:expr) => {
        // SAFETY: `init` records the resource's access; `fetch` reaches that value only.
        unsafe impl<T: Send + Sync + 'static> SystemParam for $param<'_, T> {
            type State = Option<ComponentId>;
            type Item<'a> = $param<'a, T>;

            fn init(init: &mut ParamInit<'_>) -> Option<ComponentId> {
                init.resource::<T>($access, true)
            }

            #[inline]
            unsafe fn fetch<'a>(
                id: &'a mut Option<ComponentId>,
                world: SystemWorld<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let $ptr = resource_ptr(*id, world).ok_or_else(|| missing::<T>(world))?;
                // SAFETY: the value is a `T` (its id is `T`'s); the system declared this
                // access, so no other context reaches it in a conflicting way, and no other
                // parameter of this system does (registration); it lives for `'a`, since
                // resources change only under `&mut World`.
                Ok(unsafe { $item })
            }
        }

        // SAFETY: as for the plain parameter.
        unsafe impl<T: Send + Sync + 'static> SystemParam for Option<$param<'_, T>> {
            type State = Option<ComponentId>;
            type Item<'a> = Option<$param<'a, T>>;

            fn init(init: &mut ParamInit<'_>) -> Option<ComponentId> {
                init.resource::<T>($access, false)
            }

            #[inline]
            unsafe fn fetch<'a>(
                id: &'a mut Option<ComponentId>,
                world: SystemWorld<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                // SAFETY: as for the plain parameter.
                Ok(resource_ptr(*id, world).map(|$ptr| unsafe { $item }))
            }
        }
    };
}

resource_param!(Res, Access::Read, |ptr| Res {
    value: &*ptr.cast::<T>()
});
resource_param!(ResMut, Access::Write, |ptr| ResMut {
    value: &mut *ptr.cast::<T>()
});

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

// SAFETY: `init` records that it holds the PRNG, which no second parameter may then.
unsafe impl SystemParam for Rng<'_> {
    type State = ();
    type Item<'a> = Rng<'a>;

    fn init(init: &mut ParamInit<'_>) {
        init.part(type_name::<Prng>());
    }

    #[inline]
    unsafe fn fetch<'a>(_: &'a mut (), world: SystemWorld<'a>) -> Result<Rng<'a>, QueryError> {
        // SAFETY: this parameter is the run's only holder of the PRNG (registration).
        Ok(Rng(unsafe { world.rng() }))
    }
}

// SAFETY: `init` records that it holds the command buffer, which no second parameter may
// then; recording reads only the component table, never a column.
unsafe impl SystemParam for Commands<'_> {
    type State = ();
    type Item<'a> = Commands<'a>;

    fn init(init: &mut ParamInit<'_>) {
        init.part(type_name::<CommandBuffer>());
    }

    #[inline]
    unsafe fn fetch<'a>(_: &'a mut (), world: SystemWorld<'a>) -> Result<Commands<'a>, QueryError> {
        // SAFETY: this parameter is the run's only holder of the buffer (registration).
        Ok(Commands::new(unsafe { world.commands() }, world.storage))
    }
}

/// A system parameter holding state of the system's own that persists between runs:
/// `mut frames: Local<'_, u64>`, then `*frames += 1`. It starts as `T::default()`.
///
/// A closure can keep state in what it captures instead.
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

// SAFETY: the state is the system's own; it reaches nothing of the world.
unsafe impl<T: Default + Send + 'static> SystemParam for Local<'_, T> {
    type State = T;
    type Item<'a> = Local<'a, T>;

    fn init(_: &mut ParamInit<'_>) -> T {
        T::default()
    }

    #[inline]
    unsafe fn fetch<'a>(state: &'a mut T, _: SystemWorld<'a>) -> Result<Local<'a, T>, QueryError> {
        Ok(Local(state))
    }
}

macro_rules! tuple_param {
    ($($p:ident),*) => {
        // SAFETY: each element records its own needs (attributed to it) and fetches only
        // what it recorded.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        unsafe impl<$($p: SystemParam),*> SystemParam for ($($p,)*) {
            type State = ($($p::State,)*);
            type Item<'a> = ($($p::Item<'a>,)*);

            fn init(init: &mut ParamInit<'_>) -> Self::State {
                ($(init_param::<$p>(init),)*)
            }

            #[inline]
            unsafe fn fetch<'a>(
                state: &'a mut Self::State,
                world: SystemWorld<'a>,
            ) -> Result<Self::Item<'a>, QueryError> {
                let ($($p,)*) = state;
                // SAFETY: forwarded from the caller, element by element.
                Ok(($(unsafe { $p::fetch($p, world) }?,)*))
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
