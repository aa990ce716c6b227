//! A `Local` must be `Clone`, so `World::save_state` can save it: a system keeping state it
//! cannot clone is refused at compile time, not skipped by a rollback.
use laige_sim::prelude::*;

#[derive(Default)]
struct Unclonable(u32);

fn count(mut seen: Local<'_, Unclonable>) {
    seen.0 += 1;
}

fn main() {
    let mut world = World::default();
    world.system("Count", count).register().unwrap();
}
