use laige_world::StateHash;

#[derive(StateHash)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
