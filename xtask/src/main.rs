//! cargo xtask (work in progress).
fn main() {}
