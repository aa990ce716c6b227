//! A copy of a view would be a second view of the same system, so it has none.
use laige_sim::prelude::*;

fn copy(ctx: &mut SystemContext<'_>) {
    let (view, _, _) = ctx.split();
    let _again = view.clone();
}

fn main() {}
