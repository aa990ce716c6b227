//! Storage's tables are its own: no crate reads or replaces them behind its back.
use laige_diag::Diagnostics;
use laige_storage::Storage;

fn main() {
    let mut storage = Storage::new(8, 8, Diagnostics::default());
    storage.archetypes.clear();
    let _entities = &storage.entities;
    storage.components = Default::default();
}
