//! An item borrows the query it came from: it cannot be kept past the system's run.
use laige_sim::prelude::*;

struct Pos(f32);
impl Component for Pos {}

fn keep<'a>(mut q: Query<'a, &'a mut Pos>) -> Vec<&'a mut Pos> {
    q.iter_mut().unwrap().collect()
}

fn main() {}
