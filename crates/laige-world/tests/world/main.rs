//! Integration tests of laige-world, through its public API only.
//!
//! One test binary (fast to link); each module covers one concept.

mod support;

mod archetypes;
mod batch;
mod bundles;
mod command_batches;
mod commands;
mod components;
mod entities;
mod footprints;
mod model;
mod prng;
mod queries;
mod resources;
mod snapshots;
mod state_hash;
mod systems;
mod typed;

/// The types an executor shares between threads are `Send` and `Sync`.
#[test]
fn shared_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<laige_world::World>();
    send_sync::<laige_world::Storage>();
    send_sync::<laige_world::CommandBuffer>();
    send_sync::<laige_world::SystemContext<'static>>();
    send_sync::<laige_world::Commands<'static>>();
    send_sync::<laige_world::Queries<'static>>();
}
