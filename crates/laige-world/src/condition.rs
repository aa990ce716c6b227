//! Run conditions: read-only typed systems returning `bool` that decide, each tick, whether a
//! system runs (`.run_if(..)` on the system builder), their combinators, and helpers for the
//! common cases.
//!
//! A condition's parameters are set up at registration like a system's, checked to only read
//! ([`RegisterError::ConditionWrites`](crate::RegisterError::ConditionWrites) otherwise), and
//! their reads are merged into the system's declared access, so the scheduler orders and the
//! executor runs the condition as part of its system. It is evaluated once per tick, on the
//! thread that runs the system, just before it; a false condition skips the system with
//! [`SkipReason::RunConditionFalse`](crate::SkipReason::RunConditionFalse): it records no
//! commands, and its successors run (a skip is not a failure).
//!
//! ```
//! use laige_world::{Condition, Res, World, WorldOptions, not, resource_equals};
//!
//! #[derive(PartialEq)]
//! enum State { Menu, Playing }
//! struct Paused(bool);
//!
//! let mut world = World::new(WorldOptions::default());
//! world.insert_resource(State::Playing)?;
//! world.insert_resource(Paused(false))?;
//! world
//!     .system("Physics", || {})
//!     .run_if(resource_equals(State::Playing).and(not(|p: Res<'_, Paused>| p.0)))
//!     .register()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use laige_executor::Exclusive;

use crate::system::{LocalValue, ParamFetch, ParamInit, SystemParam, init_param, unbox_locals};
use crate::{Local, Query, QueryError, QueryFilter, ReadOnlyQueryData, Res};

mod sealed {
    use super::{ParamFetch, ParamInit, QueryError};

    /// How a condition sets its parameters up and is evaluated; sealed, so only the forms
    /// this module implements are conditions.
    pub trait Evaluate<Marker>: Send + Sized + 'static {
        /// The parameters' state.
        type State: Send + 'static;

        /// Sets the parameters up at registration.
        fn init(init: &mut ParamInit<'_>) -> Self::State;

        /// Evaluates the condition once.
        fn evaluate<'a>(
            &mut self,
            state: &'a mut Self::State,
            fetch: &mut ParamFetch<'a>,
        ) -> Result<bool, QueryError>;
    }
}

use sealed::Evaluate;

/// A run condition: a function or closure whose parameters only read ([`Res`], `Query` of
/// `&T`, [`Local`], named resources, ...) and which returns `bool`, or a combination of
/// conditions ([`Condition::and`], [`Condition::or`], [`not`]). `Marker` tells the
/// implementations apart and is inferred.
///
/// Combinations evaluate left to right and stop as soon as the answer is known (`a.and(b)`
/// does not evaluate `b` when `a` is false): the order is fixed, so what a condition's
/// [`Local`] state sees is the same on every runner.
pub trait Condition<Marker>: Evaluate<Marker> {
    /// True when both are; `other` is evaluated only when `self` is true.
    fn and<M, C: Condition<M>>(self, other: C) -> And<Self, C> {
        And(self, other)
    }

    /// True when either is; `other` is evaluated only when `self` is false.
    fn or<M, C: Condition<M>>(self, other: C) -> Or<Self, C> {
        Or(self, other)
    }
}

impl<Marker, C: Evaluate<Marker>> Condition<Marker> for C {}

/// True when `condition` is false.
pub fn not<M, C: Condition<M>>(condition: C) -> Not<C> {
    Not(condition)
}

/// Both conditions ([`Condition::and`]).
#[derive(Clone, Copy, Debug)]
pub struct And<A, B>(A, B);

/// Either condition ([`Condition::or`]).
#[derive(Clone, Copy, Debug)]
pub struct Or<A, B>(A, B);

/// The negated condition ([`not`]).
#[derive(Clone, Copy, Debug)]
pub struct Not<C>(C);

/// The markers of the combinators' implementations.
#[derive(Debug)]
pub struct AndMarker<A, B>(PhantomData<fn() -> (A, B)>);
/// See [`AndMarker`].
#[derive(Debug)]
pub struct OrMarker<A, B>(PhantomData<fn() -> (A, B)>);
/// See [`AndMarker`].
#[derive(Debug)]
pub struct NotMarker<C>(PhantomData<fn() -> C>);

impl<A: Evaluate<MA>, B: Evaluate<MB>, MA: 'static, MB: 'static> Evaluate<AndMarker<MA, MB>>
    for And<A, B>
{
    type State = (A::State, B::State);

    fn init(init: &mut ParamInit<'_>) -> Self::State {
        (A::init(init), B::init(init))
    }

    #[inline]
    fn evaluate<'a>(
        &mut self,
        (a, b): &'a mut Self::State,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<bool, QueryError> {
        Ok(self.0.evaluate(a, fetch)? && self.1.evaluate(b, fetch)?)
    }
}

impl<A: Evaluate<MA>, B: Evaluate<MB>, MA: 'static, MB: 'static> Evaluate<OrMarker<MA, MB>>
    for Or<A, B>
{
    type State = (A::State, B::State);

    fn init(init: &mut ParamInit<'_>) -> Self::State {
        (A::init(init), B::init(init))
    }

    #[inline]
    fn evaluate<'a>(
        &mut self,
        (a, b): &'a mut Self::State,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<bool, QueryError> {
        Ok(self.0.evaluate(a, fetch)? || self.1.evaluate(b, fetch)?)
    }
}

impl<C: Evaluate<M>, M: 'static> Evaluate<NotMarker<M>> for Not<C> {
    type State = C::State;

    fn init(init: &mut ParamInit<'_>) -> Self::State {
        C::init(init)
    }

    #[inline]
    fn evaluate<'a>(
        &mut self,
        state: &'a mut Self::State,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<bool, QueryError> {
        Ok(!self.0.evaluate(state, fetch)?)
    }
}

macro_rules! function_condition {
    ($($p:ident),*) => {
        // The marker is the function's signature, as for systems.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        impl<Func, $($p: SystemParam + 'static),*> Evaluate<fn($($p,)*) -> bool> for Func
        where
            Func: Send + 'static,
            for<'f> &'f mut Func: FnMut($($p),*) -> bool + FnMut($($p::Item<'_>),*) -> bool,
        {
            type State = ($($p::State,)*);

            fn init(init: &mut ParamInit<'_>) -> Self::State {
                ($(init_param::<$p>(init),)*)
            }

            #[inline(always)]
            fn evaluate<'a>(
                &mut self,
                state: &'a mut Self::State,
                fetch: &mut ParamFetch<'a>,
            ) -> Result<bool, QueryError> {
                #[inline(always)]
                #[allow(clippy::too_many_arguments)]
                fn call<$($p),*>(mut f: impl FnMut($($p),*) -> bool, $($p: $p),*) -> bool {
                    f($($p),*)
                }
                let ($($p,)*) = state;
                $(let $p = $p::fetch($p, fetch)?;)*
                Ok(call(self, $($p),*))
            }
        }
    };
}

function_condition!();
function_condition!(P0);
function_condition!(P0, P1);
function_condition!(P0, P1, P2);
function_condition!(P0, P1, P2, P3);
function_condition!(P0, P1, P2, P3, P4);
function_condition!(P0, P1, P2, P3, P4, P5);
function_condition!(P0, P1, P2, P3, P4, P5, P6);
function_condition!(P0, P1, P2, P3, P4, P5, P6, P7);

/// True while the resource `T` equals `value`: `resource_equals(State::Playing)`, the usual
/// state gate. The system is refused at scheduling while the world holds no `T`, as for any
/// `Res<T>`.
pub fn resource_equals<T: PartialEq + Send + Sync + 'static>(
    value: T,
) -> impl Condition<fn(Res<'static, T>) -> bool> {
    move |resource: Res<'_, T>| *resource == value
}

/// True while `predicate` holds for the resource `T`:
/// `resource_matches(|score: &Score| score.0 > 100)`.
pub fn resource_matches<T: Send + Sync + 'static>(
    predicate: impl Fn(&T) -> bool + Send + 'static,
) -> impl Condition<fn(Res<'static, T>) -> bool> {
    move |resource: Res<'_, T>| predicate(&resource)
}

/// True on the first tick the condition is evaluated on, then on every `n`-th after it
/// (`n` of 0 counts as 1): logical ticks, never time, so the same ticks on every runner and
/// worker count. The count is the condition's own (a [`Local`]): it advances on each tick
/// the system is considered, not on ticks a throttle or a failure skipped it before its
/// condition ran.
pub fn every_n_ticks(n: u32) -> impl Condition<fn(Local<'static, u32>) -> bool> {
    let n = n.max(1);
    move |mut count: Local<'_, u32>| {
        let due = *count == 0;
        *count = (*count + 1) % n;
        due
    }
}

/// What a reader parameter tells [`not_empty`]: whether anything waits for it. A query has
/// something when a row matches; [`EventsWaiting`](crate::EventsWaiting) when the system's
/// reader of an event type has events it has not read ([`on_event`]). An `EventReader` is
/// not `Pending`: opening one reads its events, which would leave none for the system.
pub trait Pending {
    /// Whether anything waits.
    fn has_pending(&self) -> bool;
}

impl<Q: ReadOnlyQueryData, F: QueryFilter> Pending for Query<'_, Q, F> {
    fn has_pending(&self) -> bool {
        self.iter().is_ok_and(|mut rows| rows.next().is_some())
    }
}

impl<E> Pending for crate::EventsWaiting<'_, E> {
    fn has_pending(&self) -> bool {
        self.any()
    }
}

/// True while the parameter `P` has something pending ([`Pending`]):
/// `not_empty::<Query<'static, &Enemy>>()` while any entity has an `Enemy`. Its parameter
/// is set up and checked as any condition's: it must only read.
pub fn not_empty<P>() -> NotEmpty<P>
where
    P: SystemParam + 'static,
    for<'a> P::Item<'a>: Pending,
{
    NotEmpty(PhantomData)
}

/// True while the system's own reader of `E` has events waiting: bevy's `on_message`.
/// Guards a system that reads `E` (`EventReader<'_, E>`), which then runs only on ticks
/// with events for it and sees them all; unlike an [`EventReader`](crate::EventReader) in
/// the condition, it leaves them unread. Composes with [`not`], `and` and `or` as any
/// condition; `.reactive()` is the shorthand for "any of the queues it reads".
pub fn on_event<E: Send + Sync + 'static>() -> NotEmpty<crate::EventsWaiting<'static, E>> {
    not_empty()
}

/// The condition [`not_empty`] makes.
pub struct NotEmpty<P>(PhantomData<fn() -> P>);

impl<P> fmt::Debug for NotEmpty<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("NotEmpty")
            .field(&std::any::type_name::<P>())
            .finish()
    }
}

/// The marker of [`NotEmpty`]'s implementation.
#[derive(Debug)]
pub struct NotEmptyMarker;

impl<P> Evaluate<NotEmptyMarker> for NotEmpty<P>
where
    P: SystemParam + 'static,
    for<'a> P::Item<'a>: Pending,
{
    type State = P::State;

    fn init(init: &mut ParamInit<'_>) -> Self::State {
        init_param::<P>(init)
    }

    #[inline]
    fn evaluate<'a>(
        &mut self,
        state: &'a mut Self::State,
        fetch: &mut ParamFetch<'a>,
    ) -> Result<bool, QueryError> {
        Ok(P::fetch(state, fetch)?.has_pending())
    }
}

/// A condition with its parameters' state, behind one box.
trait ErasedCondition: Send {
    fn holds<'a>(&'a mut self, fetch: &mut ParamFetch<'a>) -> Result<bool, QueryError>;

    /// Hands each of its conditions' `Local` values to `each`, first condition first.
    fn visit_locals(&mut self, each: &mut dyn FnMut(&mut Box<dyn LocalValue>));
}

struct ConditionFn<C: Evaluate<M>, M> {
    condition: C,
    state: C::State,
    /// The condition's own `Local` values (its parameters' state kept between ticks).
    locals: Vec<Box<dyn LocalValue>>,
    _marker: PhantomData<fn() -> M>,
}

impl<C: Evaluate<M>, M> ErasedCondition for ConditionFn<C, M> {
    #[inline]
    fn holds<'a>(&'a mut self, fetch: &mut ParamFetch<'a>) -> Result<bool, QueryError> {
        let Self {
            condition,
            state,
            locals,
            ..
        } = self;
        fetch.set_locals(locals);
        condition.evaluate(state, fetch)
    }

    fn visit_locals(&mut self, each: &mut dyn FnMut(&mut Box<dyn LocalValue>)) {
        self.locals.iter_mut().for_each(each);
    }
}

/// Two `.run_if(..)` calls on one builder: both must hold, the first asked first.
struct Both(BoxedCondition, BoxedCondition);

impl ErasedCondition for Both {
    #[inline]
    fn holds<'a>(&'a mut self, fetch: &mut ParamFetch<'a>) -> Result<bool, QueryError> {
        let (first, second) = (&mut self.0, &mut self.1);
        Ok(first.0.get_mut().holds(fetch)? && second.0.get_mut().holds(fetch)?)
    }

    fn visit_locals(&mut self, each: &mut dyn FnMut(&mut Box<dyn LocalValue>)) {
        self.0.visit_locals(each);
        self.1.visit_locals(each);
    }
}

/// A system's run condition, set up and boxed at registration (its one allocation).
///
/// Only reached through `&mut`, so it sits in an [`Exclusive`] like a typed system's box.
pub(crate) struct BoxedCondition(Exclusive<Box<dyn ErasedCondition>>);

impl BoxedCondition {
    /// Sets `condition`'s parameters up through `init` and boxes it with their state.
    pub(crate) fn new<C: Condition<M>, M: 'static>(condition: C, init: &mut ParamInit<'_>) -> Self {
        let state = C::init(init);
        let locals = unbox_locals(init.take_locals());
        Self(Exclusive::new(Box::new(ConditionFn {
            condition,
            state,
            locals,
            _marker: PhantomData,
        })))
    }

    /// `self` and then `other`, both required.
    pub(crate) fn and(self, other: BoxedCondition) -> Self {
        Self(Exclusive::new(Box::new(Both(self, other))))
    }

    /// Hands each of its conditions' `Local` values to `each`, in a fixed order (the first
    /// `.run_if` first, each in parameter order): what a saved state holds of it.
    pub(crate) fn visit_locals(&mut self, each: &mut dyn FnMut(&mut Box<dyn LocalValue>)) {
        self.0.get_mut().visit_locals(each);
    }

    /// Evaluates the condition once.
    #[inline]
    pub(crate) fn holds<'a>(&'a mut self, fetch: &mut ParamFetch<'a>) -> Result<bool, QueryError> {
        self.0.get_mut().holds(fetch)
    }
}

impl fmt::Debug for BoxedCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxedCondition")
    }
}
