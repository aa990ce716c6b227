use laige_world::Component;

#[derive(Component)]
#[component(hashed, sorted)]
struct Pos(f32);

fn main() {}
