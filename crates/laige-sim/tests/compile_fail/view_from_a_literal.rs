//! A checked view cannot be built from a literal: its fields are private, so only the
//! `unsafe` `Queries::new` (or `Queries::exclusive` over `&mut Storage`) makes one.
use laige_sim::prelude::*;
use laige_sim::world::Queries;

fn main() {
    let world = World::default();
    let _view = Queries {
        storage: world.storage(),
    };
}
