use laige_world::StateHash;

struct Opaque;

#[derive(StateHash)]
struct Holder {
    count: u32,
    opaque: Opaque,
}

fn main() {}
