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
//!         q.each(|_, (pos, vel)| pos.0 += vel.0 * time.dt)
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
use std::ptr::NonNull;

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

/// What one run of a system may touch: the storage (shared), the system's meta, its own
/// command buffer and PRNG stream, which [`SystemParam::fetch`] hands out to at most one
/// parameter each, and the scratch its query parameters' `par_each` loops share.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct SystemWorld<'w> {
    pub(crate) storage: &'w Storage,
    pub(crate) meta: &'w SystemMeta,
    commands: NonNull<CommandBuffer>,
    rng: NonNull<Prng>,
    batches: NonNull<BatchScratch>,
    _exclusive: PhantomData<(&'w mut CommandBuffer, &'w mut Prng, &'w mut BatchScratch)>,
}

impl<'w> SystemWorld<'w> {
    pub(crate) fn new(
        storage: &'w Storage,
        meta: &'w SystemMeta,
        commands: &'w mut CommandBuffer,
        rng: &'w mut Prng,
        batches: &'w mut BatchScratch,
    ) -> Self {
        Self {
            storage,
            meta,
            commands: NonNull::from(commands),
            rng: NonNull::from(rng),
            batches: NonNull::from(batches),
            _exclusive: PhantomData,
        }
    }

    /// The system's command buffer.
    ///
    /// # Safety
    ///
    /// No other reference to it obtained from this value (or a copy) is live for `'w`.
    pub(crate) unsafe fn commands(self) -> &'w mut CommandBuffer {
        // SAFETY: `new` took it from a `&'w mut`, and the caller makes this the only use.
        unsafe { &mut *self.commands.as_ptr() }
    }

    /// The system's PRNG stream.
    ///
    /// # Safety
    ///
    /// As for [`SystemWorld::commands`].
    pub(crate) unsafe fn rng(self) -> &'w mut Prng {
        // SAFETY: as for `commands`.
        unsafe { &mut *self.rng.as_ptr() }
    }

    /// The scratch of the system's `par_each` loops, which every query parameter shares:
    /// only one loop runs at a time (`par_each` takes `&mut self`, and a loop's closure is
    /// `Fn`, so it cannot start another query's loop).
    pub(crate) fn batches(self) -> NonNull<BatchScratch> {
        self.batches
    }
}

/// A parameter of a typed system: how to set it up once at registration, and how to fetch it
/// for one run.
///
/// Implemented for [`Query`], [`Res`], [`ResMut`], `Option<Res<T>>`, `Option<ResMut<T>>`,
/// [`Commands`](crate::Commands), [`Rng`], [`Local`], and tuples of up to 8 parameters
/// (which nest). Its methods use crate-internal types, so it cannot be implemented
/// elsewhere.
///
/// # Safety
///
/// `init` must record, through its [`ParamInit`], every component and resource `fetch`
/// reaches and how, and every part of the system (its commands, its PRNG) it holds; `fetch`
/// must reach nothing else.
pub unsafe trait SystemParam {
    /// Kept between runs: resolved ids, a [`Local`]'s value.
    #[doc(hidden)]
    type State: Send + 'static;
    /// What the system function receives for one run.
    type Item<'a>;

    /// Sets the parameter up at registration, recording what it needs.
    #[doc(hidden)]
    fn init(init: &mut ParamInit<'_>) -> Self::State;

    /// The parameter for one run.
    ///
    /// # Errors
    ///
    /// Only [`QueryError::NoResource`], when a resource it needs is not in the world; the
    /// system does not run then.
    ///
    /// # Safety
    ///
    /// For `'a`, the access the system declared is exclusive as declared (the
    /// [`SystemContext::new`](crate::SystemContext::new) contract), and no other parameter
    /// fetched from the same `world` reaches what this one does (registration checked it).
    #[doc(hidden)]
    unsafe fn fetch<'a>(
        state: &'a mut Self::State,
        world: SystemWorld<'a>,
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
    ///
    /// # Safety
    ///
    /// As for [`SystemParam::fetch`], for every parameter.
    #[doc(hidden)]
    unsafe fn run(
        &mut self,
        state: &mut Self::State,
        world: SystemWorld<'_>,
    ) -> Result<(), BoxError>;
}

/// A typed system with its parameters' state, behind one box.
pub(crate) trait ErasedSystem: Send {
    /// One run; a failure is stored in `failure`. Writing it here rather than returning a
    /// `Result` lets a system that cannot fail skip the check altogether.
    ///
    /// # Safety
    ///
    /// As for [`SystemParam::fetch`].
    unsafe fn run(&mut self, world: SystemWorld<'_>, failure: &mut Option<BoxError>);
}

struct FunctionSystem<F: IntoSystem<M>, M> {
    function: F,
    state: F::State,
    _marker: PhantomData<fn() -> M>,
}

impl<F: IntoSystem<M>, M> ErasedSystem for FunctionSystem<F, M> {
    #[inline]
    unsafe fn run(&mut self, world: SystemWorld<'_>, failure: &mut Option<BoxError>) {
        // SAFETY: forwarded from the caller.
        if let Err(err) = unsafe { self.function.run(&mut self.state, world) } {
            *failure = Some(err);
        }
    }
}

/// A typed system, set up and boxed (the one allocation registration makes for it).
pub(crate) struct BoxedSystem(Box<dyn ErasedSystem>);

// SAFETY: nothing is reachable through `&BoxedSystem` (`run` takes `&mut self`, `Debug`
// prints a constant), so sharing one between threads shares no access to the function or its
// state; moving it to another thread (for `&mut` access there) needs only `Send`, which the
// box has. This is what lets a system be any `FnMut + Send`, with no `Sync` bound, while the
// World that owns it is `Sync`.
unsafe impl Sync for BoxedSystem {}

impl BoxedSystem {
    /// Sets up `function`'s parameters through `init` and boxes it with their state.
    pub(crate) fn new<F: IntoSystem<M>, M: 'static>(function: F, init: &mut ParamInit<'_>) -> Self {
        let state = F::init(init);
        Self(Box::new(FunctionSystem {
            function,
            state,
            _marker: PhantomData,
        }))
    }

    /// One run; a failure is stored in `failure`, which is left alone otherwise.
    ///
    /// # Safety
    ///
    /// As for [`SystemParam::fetch`].
    #[inline]
    pub(crate) unsafe fn run(&mut self, world: SystemWorld<'_>, failure: &mut Option<BoxError>) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.run(world, failure) }
    }
}

impl fmt::Debug for BoxedSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxedSystem")
    }
}
