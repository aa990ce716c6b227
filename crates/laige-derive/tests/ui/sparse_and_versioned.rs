use laige_world::Component;

#[derive(Component, Clone)]
#[component(versioned, sparse)]
struct Marker;

fn main() {}
