use laige_world::Component;

#[derive(Component)]
#[component(versioned, versioned)]
struct Pos(f32);

fn main() {}
