//! Declares the `loom` cfg, so `RUSTFLAGS="--cfg loom"` model-checking builds are expected.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(loom)");
}
