//! Only the storage makes a `Location`, so none can name a row that is not there.
use laige_storage::entity::Location;

fn main() {
    let _row = Location {
        archetype: 0,
        row: 1_000,
    };
}
