//! [`IntoSystem`] for functions and closures of up to 16 [`SystemParam`]s (more through
//! tuples, which nest), and for those that take `&mut SystemContext` alone.

use super::{BoxError, IntoSystem, ParamFetch, ParamInit, SystemOutput, SystemParam, SystemWorld};
use crate::SystemContext;

macro_rules! function_system {
    ($($p:ident),*) => {
        // The marker is the function's signature, so each arity is its own impl and the
        // parameter types are known without annotations.
        #[allow(non_snake_case, unused_variables, unused_mut, clippy::unused_unit)]
        impl<Func, Out, $($p: SystemParam),*> IntoSystem<fn($($p,)*) -> Out> for Func
        where
            Func: Send + 'static,
            // Callable with the parameter types as written (which fixes them) and with each
            // one's item for any run's lifetime (which is what `run` passes).
            for<'f> &'f mut Func: FnMut($($p),*) -> Out + FnMut($($p::Item<'_>),*) -> Out,
            Out: SystemOutput,
        {
            type State = ($($p::State,)*);

            fn init(init: &mut ParamInit<'_>) -> Self::State {
                ($(super::init_param::<$p>(init),)*)
            }

            #[inline(always)]
            fn run(&mut self, state: &mut Self::State, world: SystemWorld<'_>) -> Result<(), BoxError> {
                // A plain generic call, so the compiler sees the items' concrete types.
                #[inline(always)]
                #[allow(clippy::too_many_arguments)]
                fn call<Out, $($p),*>(mut f: impl FnMut($($p),*) -> Out, $($p: $p),*) -> Out {
                    f($($p),*)
                }
                let ($($p,)*) = state;
                let mut fetch = ParamFetch::new(world);
                $(let $p = $p::fetch($p, &mut fetch)?;)*
                call(self, $($p),*).into_result()
            }
        }
    };
}

function_system!();
function_system!(P0);
function_system!(P0, P1);
function_system!(P0, P1, P2);
function_system!(P0, P1, P2, P3);
function_system!(P0, P1, P2, P3, P4);
function_system!(P0, P1, P2, P3, P4, P5);
function_system!(P0, P1, P2, P3, P4, P5, P6);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7, P8);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12);
function_system!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13);
function_system!(
    P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14
);
function_system!(
    P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15
);

/// The marker of systems that take `&mut SystemContext` alone: they see the world through
/// the context's checked queries, and declare their access on the builder.
#[doc(hidden)]
#[derive(Debug)]
pub struct WithContext;

impl<Func, Out> IntoSystem<(WithContext, Out)> for Func
where
    Func: FnMut(&mut SystemContext<'_>) -> Out + Send + 'static,
    Out: SystemOutput,
{
    type State = ();

    // The context is the only parameter: nothing to check against another one, and its
    // queries are checked against the builder's declarations at every call.
    fn init(_: &mut ParamInit<'_>) {}

    #[inline(always)]
    fn run(&mut self, _: &mut (), world: SystemWorld<'_>) -> Result<(), BoxError> {
        let SystemWorld {
            view,
            meta,
            commands,
            rng,
            batches,
            ..
        } = world;
        let mut ctx = SystemContext::with_batches(view, meta, commands, rng, batches);
        self(&mut ctx).into_result()
    }
}
