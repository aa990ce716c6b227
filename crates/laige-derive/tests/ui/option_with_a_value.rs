use laige_world::Component;

#[derive(Component)]
#[component(hashed = true)]
struct Pos(f32);

fn main() {}
