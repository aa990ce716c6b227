//! A system's context writes through a shared `&Storage`, so reading every hashed value
//! through one is `unsafe`: the caller must know no context is writing.
use laige_sim::world::{StateHasher, World};

fn main() {
    let world = World::default();
    let mut h = StateHasher::new();
    world.storage().hash_components(&mut h);
}
