//! Sharing the storage under a system's access is the unsafe door: safe code cannot open it.
use laige_sim::prelude::*;
use laige_sim::world::Queries;

fn main() {
    let mut world = World::default();
    let id = world.system_fn("S", |_| {}).register().unwrap();
    let meta = *world.context(id).unwrap().meta();
    let _view = Queries::new(world.storage(), &meta);
}
