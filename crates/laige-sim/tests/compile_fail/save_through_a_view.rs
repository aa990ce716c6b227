//! A system's view hands out a shared `&Storage` while other systems write columns:
//! saving the storage through it would read values under their writers, so a save takes
//! `&mut Storage` (the World's, between ticks).
use laige_sim::prelude::*;
use laige_storage::StorageState;

#[derive(Component, Clone, Copy)]
#[component(saved_copy)]
struct Pos(#[allow(dead_code)] f32);

fn sneaky(q: Query<'_, &Pos>) {
    let mut state = StorageState::default();
    q.storage().save_state(&mut state).unwrap();
}

fn main() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.system("Sneaky", sneaky).register().unwrap();
}
