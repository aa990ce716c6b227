//! The type-erased structural doors trust a pointer and a location: only `unsafe` code may
//! call them.
use laige_diag::Diagnostics;
use laige_storage::{Entity, Storage};

fn main() {
    let mut storage = Storage::new(8, 8, Diagnostics::default());
    let entity: Entity = unimplemented!();
    let location = storage.locate(entity, "forge").unwrap();
    let id = storage.component_id::<u32>().unwrap();
    let mut value = 7u32;
    storage.insert_erased(entity, location, id, (&raw mut value).cast());
    storage.remove_erased(entity, location, id, None);
}
