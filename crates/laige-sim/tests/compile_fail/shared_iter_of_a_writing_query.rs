//! `iter` (through `&self`) is only for read-only queries; a writing query has `iter_mut`.
use laige_sim::prelude::*;

struct Pos(f32);
impl Component for Pos {}

fn shared(q: Query<'_, &mut Pos>) {
    for pos in q.iter().unwrap() {
        pos.0 += 1.0;
    }
}

fn main() {}
