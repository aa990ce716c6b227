//! A `SystemMeta` cannot claim access it was not registered with: its fields are private.
use laige_sim::prelude::*;
use laige_sim::world::{ComponentSet, SystemMeta};

fn main() {
    let _meta = SystemMeta {
        id: SystemId::new(1).unwrap(),
        name: "Forged",
        reads: ComponentSet::EMPTY,
        writes: ComponentSet::EMPTY,
        reads_fresh: ComponentSet::EMPTY,
        reads_snapshot: ComponentSet::EMPTY,
        emits: ComponentSet::EMPTY,
        matching: ComponentSet::EMPTY,
    };
}
