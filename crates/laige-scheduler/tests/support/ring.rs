//! A ring of systems, each depending on the next: the cycle both the cycle report tests
//! and the allocation-counting tests schedule.

use laige_registry::{Registry, SystemDef};

/// The run type of the ring's systems: they are scheduled, never run.
pub type Run = fn(&mut ());

fn noop(_: &mut ()) {}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// A ring of `n` systems, `Ring0` depends on `Ring1`, ..., the last on `Ring0`.
pub fn ring(n: usize) -> Registry<Run> {
    let mut registry = Registry::new();
    for i in 0..n {
        let def = SystemDef::new(leak(format!("Ring{i}")), noop as Run)
            .budget_ms(1.0)
            .depends_on(leak(format!("Ring{}", (i + 1) % n)));
        registry.register(def).unwrap();
    }
    registry
}
