//! A column's change ticks are written through a shared reference only under the access
//! contract, so marking them is `unsafe`: safe code cannot forge (or race) a change.
use laige_sim::prelude::*;

struct Pos(#[allow(dead_code)] f32);
impl Component for Pos {}

fn main() {
    let mut world = World::default();
    world
        .register_component_with(ComponentOptions::<Pos>::new().tracked())
        .unwrap();
    world.spawn(Pos(1.0)).unwrap();
    let table = &world.storage().archetypes()[1];
    let ticks = table.columns()[0].ticks().unwrap();
    ticks.mark_changed(0, 1, 99);
}
