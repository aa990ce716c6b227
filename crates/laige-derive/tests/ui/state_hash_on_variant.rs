use laige_world::StateHash;

#[derive(StateHash)]
enum Mode {
    #[state_hash(skip)]
    Idle,
    Busy(u32),
}

fn main() {}
