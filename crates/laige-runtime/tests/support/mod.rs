//! A world under a manual clock, with a system whose run advances that clock: artificial
//! load the test sets, so every timing decision is the test's choice.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use laige_diag::{ManualClock, TickClock};
use laige_runtime::{Runtime, RuntimeClock, RuntimeOptions};
use laige_world::{World, WorldOptions};

/// The test's hands on a runtime's time: the clock, and the load each tick adds to it.
#[derive(Clone, Default)]
pub struct Load {
    pub clock: Arc<ManualClock>,
    nanos: Arc<AtomicU64>,
}

impl Load {
    /// Each tick from now on takes `by` on the manual clock.
    pub fn set(&self, by: Duration) {
        self.nanos
            .store(u64::try_from(by.as_nanos()).unwrap(), Ordering::Relaxed);
    }

    /// A system that advances the clock by the load.
    pub fn register(&self, world: &mut World) {
        let (clock, nanos) = (self.clock.clone(), self.nanos.clone());
        world
            .system("Load", move || {
                clock.advance(Duration::from_nanos(nanos.load(Ordering::Relaxed)));
            })
            .register()
            .unwrap();
    }

    /// Runtime options at `hz` on this clock.
    pub fn options(&self, hz: u32) -> RuntimeOptions {
        RuntimeOptions {
            tick_rate: hz,
            clock: RuntimeClock::Manual(self.clock.clone()),
            ..RuntimeOptions::default()
        }
    }

    /// A world timed on this clock, with the time resources installed.
    pub fn world(&self) -> World {
        let mut world = World::new(WorldOptions {
            clock: TickClock::manual(self.clock.clone()),
            ..WorldOptions::default()
        });
        Runtime::install(&mut world).unwrap();
        world
    }
}

pub const MS: Duration = Duration::from_millis(1);
