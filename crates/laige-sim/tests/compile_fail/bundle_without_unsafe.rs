//! A `Bundle` hands the storage raw pointers to its values: implementing it is a promise,
//! so it takes `unsafe impl`.
use laige_storage::bundle::BundleIds;
use laige_storage::{Bundle, Components, WorldError};
use laige_registry::ComponentId;

struct Forged(u8);

impl Bundle for Forged {
    fn resolve_into(components: &Components, ids: &mut BundleIds) -> Result<(), WorldError> {
        ids.push::<u64>(components)
    }

    fn take_from(self, _: &BundleIds, _: &mut usize, put: &mut dyn FnMut(ComponentId, *mut u8)) {
        let mut byte = self.0;
        put(ComponentId::from_index(1).unwrap(), &raw mut byte);
    }
}

fn main() {}
