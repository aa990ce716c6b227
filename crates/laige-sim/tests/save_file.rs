//! Save files through the facade (feature `serde`; run with `cargo test -p laige-sim
//! --features serde --test save_file`): a derived `#[component(..., serde)]` type and a serde
//! resource, written to bytes and read back into a fresh world, from the prelude alone.
#![cfg(feature = "serde")]

use laige_sim::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Component, StateHash)]
#[component(hashed, saved_copy, serde)]
struct Pos(i32, i32);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Turn(u32);

fn game() -> World {
    let mut world = World::default();
    world.register_component::<Pos>().unwrap();
    world.insert_resource(Turn::default()).unwrap();
    world.serde_resource::<Turn>().unwrap();
    world
}

#[test]
fn a_world_goes_to_bytes_and_back_through_the_prelude() {
    let mut world = game();
    let a = world.spawn(Pos(1, 2)).unwrap();
    let b = world.spawn(Pos(3, 4)).unwrap();
    world.despawn(a).unwrap();
    world.resource_mut::<Turn>().unwrap().0 = 9;
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let bytes = state.to_binary(&world).unwrap();
    assert_eq!(&bytes[..8], b"LAIGESAV");

    let mut fresh = game();
    let mut loaded = WorldState::new();
    loaded.from_binary(&fresh, &bytes).unwrap();
    fresh.restore_state(&loaded).unwrap();
    assert_eq!(fresh.state_hash(), world.state_hash());
    assert_eq!(fresh.get::<Pos>(b).unwrap(), &Pos(3, 4));
    assert!(!fresh.is_alive(a));
    assert_eq!(fresh.resource::<Turn>().unwrap(), &Turn(9));

    let err: SaveFileError = loaded.from_binary(&fresh, &bytes[..20]).unwrap_err();
    assert!(err.to_string().contains("ends inside section"), "{err}");
}
