//! A system context cannot be built from a literal either.
use laige_sim::prelude::*;

fn main() {
    let world = World::default();
    let _ctx = SystemContext {
        storage: world.storage(),
    };
}
