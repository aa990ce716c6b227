//! The scheduling workloads of `shared/bench/workloads.md` on peer ECS crates and on
//! laige-sim, in one binary so every ratio comes from one run: W2 `empty-100`, W3
//! `chain-100`, W4 `build-256` and a `game_tick`-shaped tick.
//!
//! Run with `cargo bench --bench peers -- --warm-up-time 1 --measurement-time 3`.

#[macro_use]
mod w4_types;
mod build256;
mod empty;
mod tick;
mod tick_shipyard;
mod tick_specs;
#[allow(dead_code)]
mod w4_graph;

#[path = "../../../crates/laige-sim/tests/support/game_tick/mod.rs"]
mod game_tick;
#[path = "../../../crates/laige-scheduler/benches/support/w4.rs"]
mod w4;
#[path = "../../../crates/laige-sim/benches/common/w4_world.rs"]
mod w4_world;

criterion::criterion_group!(peers, empty::bench, build256::bench, tick::bench);
criterion::criterion_main!(peers);
