//! The column, snapshot and resource stores that take a `ComponentInfo` (and so its drop
//! and clone functions) are the storage's own; no crate hands them one.
use laige_storage::ComponentInfo;
use laige_storage::column::Column;
use laige_storage::resource::Resources;
use laige_storage::snapshot::Snapshots;

fn main() {
    let info: ComponentInfo = unimplemented!();
    let _column = Column::new(&info);
    let mut snapshots = Snapshots::default();
    snapshots.add(&info);
    let mut resources = Resources::default();
    let mut value = 1u8;
    unsafe { resources.put(&info, &raw mut value) };
}
