//! Typed systems: functions and closures whose parameters say what they touch.
//!
//! A typed system is any `FnMut(params..) + Send + 'static` whose parameters are
//! [`SystemParam`]s ([`Query`], [`Res`], [`ResMut`], [`Commands`](crate::Commands), [`Rng`],
//! [`Local`], and tuples of them), or one that takes `&mut SystemContext` alone, the escape
//! hatch. It returns `()` or `Result<(), E>` for any `E` that converts to a boxed error.
//!
//! Registration ([`World::system`](crate::World::system)) sets up each parameter once,
//! derives the system's declared access from them, checks that no two of them alias, and boxes
//! the function with its parameters' state: one allocation, at setup. Every run then fetches
//! the parameters from the system's context parts and calls the function; a run allocates
//! nothing.
//!
//! ```
//! use laige_world::{Component, Query, Res, World, WorldOptions};
//!
//! struct Pos(f32);
//! impl Component for Pos {}
//! struct Vel(f32);
//! impl Component for Vel {}
//! struct Time { dt: f32 }
//!
//! let mut world = World::new(WorldOptions::default());
//! world.register_component::<Pos>()?;
//! world.register_component::<Vel>()?;
//! world.insert_resource(Time { dt: 0.5 })?;
//! let e = world.spawn((Pos(0.0), Vel(2.0)))?;
//!
//! // Declares `writes::<Pos>`, `reads::<Vel>` and `reads::<Time>` by itself.
//! world
//!     .system("Movement", |mut q: Query<'_, (&mut Pos, &Vel)>, time: Res<'_, Time>| {
//!         q.each(|(pos, vel)| pos.0 += vel.0 * time.dt)
//!     })
//!     .register()?;
//! let schedule = world.schedule()?;
//! world.run_systems(&schedule)?;
//! assert_eq!(world.get::<Pos>(e)?.0, 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod function;
mod params;

use std::error::Error;
use std::fmt;
use std::marker::PhantomData;

use laige_executor::Exclusive;
use laige_query::{Claim, ParamViews, Queries};

use crate::command::CommandBuffer;
use crate::par::BatchScratch;
use crate::{Prng, QueryError, Storage, SystemMeta};

pub use function::WithContext;
pub use laige_query::QueryFilter;
pub use laige_query::declare::ParamInit;
pub(crate) use laige_query::declare::ParamNeeds;
pub use params::{Local, Query, Res, ResMut, Rng};

/// Sets up parameter `P` in `init`, attributing what it needs to it (a tuple of parameters
/// attributes each element's needs to that element).
pub(crate) fn init_param<P: SystemParam>(init: &mut ParamInit<'_>) -> P::State {
    let outer = init.enter_param(std::any::type_name::<P>());
    let state = P::init(init);
    init.leave_param(outer);
    state
}

/// What a failing system returns, boxed: any error type converts into it with `?`.
pub type BoxError = Box<dyn Error + Send + Sync + 'static>;

/// What one run of a typed system may touch: its checked view of the storage, its meta, its
/// own command buffer and PRNG stream, and the scratch its query parameters' `par_each` loops
/// share. Only the World makes one, for the system it runs.
#[doc(hidden)]
#[derive(Debug)]
pub struct SystemWorld<'w> {
    pub(crate) view: Queries<'w>,
    pub(crate) meta: &'w SystemMeta,
    pub(crate) commands: &'w mut CommandBuffer,
    pub(crate) rng: &'w mut Prng,
    pub(crate) batches: &'w BatchScratch,
}

/// What a typed system's parameters are fetched from for one run: each parameter's checked
/// view ([`ParamViews`]: two parameters that would alias cannot both get one), and the
/// system's command buffer and PRNG, which one parameter each may take.
#[derive(Debug)]
pub struct ParamFetch<'w> {
    views: ParamViews<'w>,
    meta: &'w SystemMeta,
    commands: Option<&'w mut CommandBuffer>,
    rng: Option<&'w mut Prng>,
    batches: &'w BatchScratch,
}

impl<'w> ParamFetch<'w> {
    pub(crate) fn new(world: SystemWorld<'w>) -> Self {
        Self {
            views: ParamViews::new(world.view),
            meta: world.meta,
            commands: Some(world.commands),
            rng: Some(world.rng),
            batches: world.batches,
        }
    }

    /// The view of a parameter that recorded `claim` at registration.
    pub(crate) fn view(&mut self, claim: &'w Claim) -> Result<Queries<'w>, QueryError> {
        self.views.claim(claim)
    }

    /// The running system's id.
    pub(crate) fn system(&self) -> laige_registry::SystemId {
        self.meta.id()
    }

    /// The storage, for metadata.
    pub(crate) fn storage(&self) -> &'w Storage {
        self.views.storage()
    }

    /// The scratch of the system's `par_each` loops, which every query parameter shares.
    pub(crate) fn batches(&self) -> &'w BatchScratch {
        self.batches
    }

    /// The system's command buffer, for the one parameter that holds it.
    pub(crate) fn take_commands(&mut self) -> Result<&'w mut CommandBuffer, QueryError> {
        let taken = self.commands.take();
        taken.ok_or_else(|| self.part_taken::<CommandBuffer>())
    }

    /// The system's PRNG stream, for the one parameter that holds it.
    pub(crate) fn take_rng(&mut self) -> Result<&'w mut Prng, QueryError> {
        let taken = self.rng.take();
        taken.ok_or_else(|| self.part_taken::<Prng>())
    }

    /// A second holder of a part: registration refuses one, so only a parameter written to
    /// fetch what it did not record gets here.
    #[cold]
    fn part_taken<T>(&self) -> QueryError {
        self.storage().report(QueryError::Aliased {
            system: Some(self.meta.name()),
            component: std::any::type_name::<T>(),
        })
    }
}

/// A parameter of a typed system: how to set it up once at registration, and how to fetch it
/// for one run.
///
/// Implemented for [`Query`], [`Res`], [`ResMut`], `Option<Res<T>>`, `Option<ResMut<T>>`,
/// [`Commands`](crate::Commands), [`Rng`], [`Local`], and tuples of up to 8 parameters
/// (which nest). Safe to implement: a parameter reaches the storage only through the view
/// its registration's record claims ([`ParamInit::take_claim`]), checked against the other
/// parameters' at every fetch, so no implementation can alias another.
pub trait SystemParam {
    /// Kept between runs: resolved ids, a query's claim, a [`Local`]'s value.
    type State: Send + 'static;
    /// What the system function receives for one run.
    type Item<'a>;

    /// Sets the parameter up at registration, recording what it needs.
    fn init(init: &mut ParamInit<'_>) -> Self::State;

    /// The parameter for one run.
    ///
    /// # Errors
    ///
    /// [`QueryError::NoResource`], when a resource it needs is not in the world, and
    /// [`QueryError::Aliased`] for a parameter that reaches what another one holds; the
    /// system does not run then.
    fn fetch<'a>(
        state: &'a mut Self::State,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<Self::Item<'a>, QueryError>;
}

/// What a system function returns: `()`, or `Result<(), E>` for any `E` that converts to a
/// [`BoxError`] (every `std::error::Error + Send + Sync`, and `&str`/`String` messages).
pub trait SystemOutput {
    /// The outcome as a result.
    fn into_result(self) -> Result<(), BoxError>;
}

impl SystemOutput for () {
    #[inline(always)]
    fn into_result(self) -> Result<(), BoxError> {
        Ok(())
    }
}

impl<E: Into<BoxError>> SystemOutput for Result<(), E> {
    #[inline(always)]
    fn into_result(self) -> Result<(), BoxError> {
        self.map_err(Into::into)
    }
}

/// A function or closure that can run as a system: its parameters are [`SystemParam`]s, or
/// it takes `&mut SystemContext` alone. `Marker` tells the implementations apart and is
/// inferred; user code never names it.
pub trait IntoSystem<Marker>: Send + Sized + 'static {
    /// The parameters' state.
    #[doc(hidden)]
    type State: Send + 'static;

    /// Sets the parameters up.
    #[doc(hidden)]
    fn init(init: &mut ParamInit<'_>) -> Self::State;

    /// One run.
    #[doc(hidden)]
    fn run(&mut self, state: &mut Self::State, world: SystemWorld<'_>) -> Result<(), BoxError>;
}

/// A typed system with its parameters' state, behind one box.
pub(crate) trait ErasedSystem: Send {
    /// One run; a failure is stored in `failure`. Writing it here rather than returning a
    /// `Result` lets a system that cannot fail skip the check altogether.
    fn run(&mut self, world: SystemWorld<'_>, failure: &mut Option<BoxError>);
}

struct FunctionSystem<F: IntoSystem<M>, M> {
    function: F,
    state: F::State,
    _marker: PhantomData<fn() -> M>,
}

impl<F: IntoSystem<M>, M> ErasedSystem for FunctionSystem<F, M> {
    #[inline]
    fn run(&mut self, world: SystemWorld<'_>, failure: &mut Option<BoxError>) {
        if let Err(err) = self.function.run(&mut self.state, world) {
            *failure = Some(err);
        }
    }
}

/// A typed system, set up and boxed (the one allocation registration makes for it).
///
/// The box is only reached through `&mut` (`run`), so it sits in an [`Exclusive`]: sharing the
/// World between threads shares no access to the function or its state, which lets a system
/// be any `FnMut + Send`, with no `Sync` bound.
pub(crate) struct BoxedSystem(Exclusive<Box<dyn ErasedSystem>>);

impl BoxedSystem {
    /// Sets up `function`'s parameters through `init` and boxes it with their state.
    pub(crate) fn new<F: IntoSystem<M>, M: 'static>(function: F, init: &mut ParamInit<'_>) -> Self {
        let state = F::init(init);
        Self(Exclusive::new(Box::new(FunctionSystem {
            function,
            state,
            _marker: PhantomData,
        })))
    }

    /// One run; a failure is stored in `failure`, which is left alone otherwise.
    #[inline]
    pub(crate) fn run(&mut self, world: SystemWorld<'_>, failure: &mut Option<BoxError>) {
        self.0.get_mut().run(world, failure);
    }
}

impl fmt::Debug for BoxedSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxedSystem")
    }
}
