use laige_world::StateHash;

#[derive(StateHash)]
struct Holder {
    #[state_hash(ignore)]
    count: u32,
}

fn main() {}
