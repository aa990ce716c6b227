use laige_world::StateHash;

#[derive(StateHash)]
#[state_hash(skip)]
struct Holder(u32);

fn main() {}
