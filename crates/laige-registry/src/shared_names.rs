//! The names a registry shares with what is computed from it.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::{ComponentId, MAX_COMPONENTS, MAX_SYSTEMS, SystemId};

/// A component as messages name it: `Position`, or `component 3` when it has no name.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct ComponentName {
    /// The component's id.
    pub id: ComponentId,
    /// Its registered name, or `""`.
    pub name: &'static str,
}

impl fmt::Display for ComponentName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "component {}", self.id)
        } else {
            write!(f, "`{}`", laige_diag::Text::name(self.name))
        }
    }
}

/// The names of one registry's systems and components, shared with the schedules and
/// errors computed from it, so that those name a system or a component by its id alone (a
/// byte) and still print without the registry. Cloning shares the table (an `Arc`) and
/// never allocates.
///
/// A system's name never changes once registered; its slot is filled when a report needs
/// it ([`Registry::share_names`](crate::Registry::share_names)), so registering stays as
/// cheap as it was. A component may be given its name again; then the registry starts
/// a new table, and what was computed before keeps the names it was computed with.
#[derive(Clone)]
pub struct Names(Arc<Table>);

// `None` for "no name": an all-zero table, which is the cheapest to make. Nothing here
// needs dropping, so neither does the table.
struct Table {
    systems: Mutex<[Option<&'static str>; MAX_SYSTEMS]>,
    components: [Option<&'static str>; MAX_COMPONENTS],
}

impl Clone for Table {
    fn clone(&self) -> Self {
        Self {
            systems: Mutex::new(*self.systems()),
            components: self.components,
        }
    }
}

impl Table {
    fn systems(&self) -> std::sync::MutexGuard<'_, [Option<&'static str>; MAX_SYSTEMS]> {
        // The lock guards plain copies of names: a panic elsewhere cannot leave it torn.
        self.systems.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Names {
    pub(crate) fn new() -> Self {
        Self(Arc::new(Table {
            systems: Mutex::new([None; MAX_SYSTEMS]),
            components: [None; MAX_COMPONENTS],
        }))
    }

    /// The name of system `id`; empty when no report from this registry has named it.
    pub fn system(&self, id: SystemId) -> &'static str {
        self.0.systems()[id.index()].unwrap_or("")
    }

    /// How messages name `component`: its registered name, or `component <id>`.
    pub fn component(&self, component: ComponentId) -> ComponentName {
        ComponentName {
            id: component,
            name: self.0.components[component.index()].unwrap_or(""),
        }
    }

    /// Fills the slots of `systems` (a registry never renames a system, so a filled slot
    /// keeps its name).
    pub(crate) fn share_systems(
        &self,
        systems: impl IntoIterator<Item = (SystemId, &'static str)>,
    ) {
        let mut slots = self.0.systems();
        for (id, name) in systems {
            slots[id.index()] = Some(name);
        }
    }

    /// Names `component`, copying the table first when something computed earlier still
    /// shares it (setup time).
    pub(crate) fn set_component(&mut self, component: ComponentId, name: &'static str) {
        if self.0.components[component.index()] != Some(name) {
            Arc::make_mut(&mut self.0).components[component.index()] = Some(name);
        }
    }
}

impl fmt::Debug for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Names").finish_non_exhaustive()
    }
}
