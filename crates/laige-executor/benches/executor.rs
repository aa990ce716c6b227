//! Executor benches (placeholder).
fn main() {}
