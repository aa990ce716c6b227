//! A component is read from several threads at once: it must be `Sync`.
use std::cell::Cell;

use laige_sim::prelude::*;

struct Counter(Cell<u32>);
impl Component for Counter {}

fn main() {}
