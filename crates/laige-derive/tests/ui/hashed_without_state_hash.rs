use laige_world::Component;

#[derive(Component)]
#[component(hashed)]
struct Pos(f32);

fn main() {}
