//! The names a registry shares with what is computed from it.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::{ComponentId, ComponentName, MAX_COMPONENTS, MAX_SYSTEMS, SystemId};

/// The names of one registry's systems and components, shared with the schedules and
/// errors computed from it, so that those name a system or a component by its id alone (a
/// byte) and still print without the registry. Cloning shares the table (an `Arc`) and
/// never allocates.
///
/// A system's name never changes once registered; its slot is filled when a report first
/// needs it ([`Registry::share_names`](crate::Registry::share_names)), so registering stays
/// as cheap as it was. A component may be given its name again; then the registry starts
/// a new table, and what was computed before keeps the names it was computed with.
#[derive(Clone)]
pub struct Names(Arc<Table>);

#[derive(Clone)]
struct Table {
    systems: [OnceLock<&'static str>; MAX_SYSTEMS],
    components: [&'static str; MAX_COMPONENTS],
}

impl Names {
    pub(crate) fn new() -> Self {
        Self(Arc::new(Table {
            systems: [const { OnceLock::new() }; MAX_SYSTEMS],
            components: [""; MAX_COMPONENTS],
        }))
    }

    /// The name of system `id`; empty when no report from this registry has named it.
    pub fn system(&self, id: SystemId) -> &'static str {
        self.0.systems[id.index()].get().copied().unwrap_or("")
    }

    /// How messages name `component`: its registered name, or `component <id>`.
    pub fn component(&self, component: ComponentId) -> ComponentName {
        ComponentName {
            id: component,
            name: self.0.components[component.index()],
        }
    }

    /// Fills system `id`'s slot; a slot once filled keeps its name (a registry never
    /// renames a system).
    pub(crate) fn share_system(&self, id: SystemId, name: &'static str) {
        self.0.systems[id.index()].get_or_init(|| name);
    }

    /// Names `component`, copying the table first when something computed earlier still
    /// shares it (setup time).
    pub(crate) fn set_component(&mut self, component: ComponentId, name: &'static str) {
        if self.0.components[component.index()] != name {
            Arc::make_mut(&mut self.0).components[component.index()] = name;
        }
    }
}

impl fmt::Debug for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Names").finish_non_exhaustive()
    }
}
