//! Empty: everything lives in `benches/w1.rs`.
