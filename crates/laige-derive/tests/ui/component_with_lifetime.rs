use laige_world::Component;

#[derive(Component)]
struct Name<'a>(&'a str);

fn main() {}
