//! Shared fixtures: component types, a drop counter, world builders, event helpers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use laige_testkit::Event;
use laige_world::{
    Component, ComponentOptions, StateHash, StateHasher, SystemBuilder, World, WorldOptions,
};

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pos {
    pub x: f32,
    pub y: f32,
}
impl Component for Pos {}

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Vel {
    pub x: f32,
    pub y: f32,
}
impl Component for Vel {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Health(pub i32);
impl Component for Health {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Tag;
impl Component for Tag {}

/// Over-aligned, to check column alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(64))]
pub struct Wide(pub u64);
impl Component for Wide {}

/// Never registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unregistered(pub u8);
impl Component for Unregistered {}

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.x, self.y).hash_state(h);
    }
}

impl StateHash for Health {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}

/// Counts how many of its values are live: +1 on creation, -1 on drop; a double drop
/// shows up as a negative count, a leak as a positive one.
#[derive(Clone, Debug, Default)]
pub struct Counter {
    created: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

impl Counter {
    pub fn make(&self, value: u32) -> Counted {
        self.created.fetch_add(1, Ordering::SeqCst);
        Counted {
            value,
            dropped: self.dropped.clone(),
            boxed: Box::new(value),
        }
    }

    pub fn created(&self) -> usize {
        self.created.load(Ordering::SeqCst)
    }

    pub fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }

    pub fn live(&self) -> isize {
        self.created() as isize - self.dropped() as isize
    }
}

/// A component with a heap allocation and a drop side effect.
#[derive(Debug)]
pub struct Counted {
    pub value: u32,
    dropped: Arc<AtomicUsize>,
    boxed: Box<u32>,
}
impl Component for Counted {}

impl Counted {
    pub fn boxed(&self) -> u32 {
        *self.boxed
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

/// A second heap-owning type, to have two droppable columns in one archetype.
#[derive(Debug)]
pub struct Named(#[allow(dead_code)] pub String);
impl Component for Named {}

/// A deterministic world with Pos (hashed), Vel, Health (hashed), Tag, Wide registered
/// in that order: ids 1..=5.
pub fn world() -> World {
    world_with(WorldOptions::default())
}

pub fn world_with(options: WorldOptions) -> World {
    let mut world = World::new(options);
    world
        .register_component_with(ComponentOptions::<Pos>::new().hashed())
        .unwrap();
    world.register_component::<Vel>().unwrap();
    world
        .register_component_with(ComponentOptions::<Health>::new().hashed())
        .unwrap();
    world.register_component::<Tag>().unwrap();
    world.register_component::<Wide>().unwrap();
    world
}

pub fn pos(x: f32) -> Pos {
    Pos { x, y: -x }
}

pub fn vel(x: f32) -> Vel {
    Vel { x, y: 2.0 * x }
}

/// The events named `name`.
pub fn named<'a>(events: &'a [Event], name: &str) -> Vec<&'a Event> {
    events.iter().filter(|e| e.name == name).collect()
}

/// The single event named `name`; fails the test otherwise.
pub fn one<'a>(events: &'a [Event], name: &str) -> &'a Event {
    let found = named(events, name);
    assert_eq!(
        found.len(),
        1,
        "expected one `{name}` in:\n{}",
        laige_testkit::render(events)
    );
    found[0]
}

/// What a matrix test's system declares for the component or resource under test.
#[derive(Clone, Copy, Debug)]
pub enum Decl {
    Nothing,
    Read,
    Fresh,
    Write,
    Snapshot,
}

/// `builder` with `decl`'s declaration of `T` added.
pub fn declare<T: 'static>(builder: SystemBuilder<'_>, decl: Decl) -> SystemBuilder<'_> {
    match decl {
        Decl::Nothing => builder,
        Decl::Read => builder.reads::<T>(),
        Decl::Fresh => builder.reads_fresh::<T>(),
        Decl::Write => builder.writes::<T>(),
        Decl::Snapshot => builder.reads_snapshot::<T>(),
    }
}
