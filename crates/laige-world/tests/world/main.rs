//! Integration tests of laige-world, through its public API only.
//!
//! One test binary (fast to link); each module covers one concept.

mod support;

mod archetypes;
mod commands;
mod components;
mod entities;
mod model;
mod prng;
mod queries;
mod state_hash;
mod systems;
