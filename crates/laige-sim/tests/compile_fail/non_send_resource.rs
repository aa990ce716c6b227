//! A resource is shared with systems on other threads: it must be `Send + Sync`.
use std::rc::Rc;

use laige_sim::prelude::*;

fn main() {
    let mut world = World::default();
    world.insert_resource(Rc::new(1_u32)).unwrap();
}
