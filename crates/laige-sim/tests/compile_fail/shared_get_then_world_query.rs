//! Issue 19's program: a live `&Pos` from the world, then a whole-world query writing it.
use laige_sim::prelude::*;

struct Pos(f32);
impl Component for Pos {}

fn main() {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    let e = world.spawn((Pos(1.0),)).unwrap();
    let shared: &Pos = world.get::<Pos>(e).unwrap();
    world.each::<&mut Pos>(|p| p.0 = 99.0).unwrap();
    println!("{}", shared.0);
}
