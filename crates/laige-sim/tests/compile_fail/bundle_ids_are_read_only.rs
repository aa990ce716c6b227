//! A bundle's resolved ids are what its values are: no crate adds or swaps one.
use laige_storage::bundle::BundleIds;
use laige_registry::{ComponentId, ComponentSet};

fn main() {
    let mut ids: BundleIds = unimplemented!();
    ids.ids.clear();
    ids.set = ComponentSet::EMPTY;
    let _ = ComponentId::from_index(0);
}
