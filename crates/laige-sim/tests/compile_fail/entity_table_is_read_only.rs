//! The entity table moves an entity only inside the storage's own structural operations.
use laige_diag::Diagnostics;
use laige_storage::{Entity, Storage};

fn main() {
    let storage = Storage::new(8, 8, Diagnostics::default());
    let entity: Entity = unimplemented!();
    let location = storage.locate(entity, "forge").unwrap();
    storage.entities().set_location(entity, location);
    storage.entities().free(entity);
}
