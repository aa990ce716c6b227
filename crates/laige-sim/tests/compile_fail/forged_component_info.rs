//! A component's drop, hash and clone functions are the storage's, made at registration:
//! none can be swapped into a copy of its info, and no info can be built by hand.
use laige_storage::ComponentInfo;

unsafe fn not_a_drop(_: *mut u8) {}

fn main() {
    let info: ComponentInfo = unimplemented!();
    let mut forged = info;
    forged.drop = Some(not_a_drop);
    forged.clone_fn = None;
    forged.hash = None;
}
