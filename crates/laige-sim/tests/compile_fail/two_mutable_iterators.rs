//! Two iterators of one query would hand out two `&mut` to one row.
use laige_sim::prelude::*;

struct Pos(f32);
impl Component for Pos {}

fn twice(mut q: Query<'_, &mut Pos>) {
    let first = q.iter_mut().unwrap();
    let second = q.iter_mut().unwrap();
    drop((first, second));
}

fn main() {}
