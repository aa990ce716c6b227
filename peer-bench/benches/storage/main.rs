//! The ecs_bench_suite storage workloads of `shared/bench/workloads.md` (`simple_insert`,
//! `simple_iter`, `frag_iter`, `heavy_compute`, `add_remove`) on hecs, bevy_ecs, shipyard
//! and specs, each on its fastest idiom, and on laige-sim through the World and in a
//! system, in one binary so every ratio comes from one run.
//!
//! Run with `cargo bench --bench storage -- --warm-up-time 1 --measurement-time 3`.

mod add_remove;
mod heavy;
mod insert;
mod iter;
mod types;

criterion::criterion_group!(
    storage,
    insert::bench,
    iter::simple,
    iter::frag,
    heavy::bench,
    add_remove::bench
);
criterion::criterion_main!(storage);
