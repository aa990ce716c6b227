//! A schedule as a stable text table: one row per system in execution order.

use std::fmt;

use laige_diag::TextTable;
use laige_registry::{ComponentId, ComponentSet, Registry};

use crate::Schedule;

/// Renders a schedule as an aligned table (order, system, depends_on, reads, writes),
/// stable across runs so it can be checked in and diffed.
///
/// ```
/// # use laige_registry::{Registry, SystemDef, ComponentId};
/// # fn noop(_: &mut ()) {}
/// let mut registry = Registry::<fn(&mut ())>::new();
/// let pos = ComponentId::new(1).unwrap();
/// registry.register_component_info(pos, "Position", false);
/// registry.register(SystemDef::new("Move", noop as fn(&mut ())).budget_ms(1.0).writes(pos)).unwrap();
/// let schedule = laige_scheduler::schedule(&registry).unwrap();
/// let table = laige_scheduler::ScheduleTable::new(&schedule, &registry).to_string();
/// assert!(table.contains("Move"));
/// assert!(table.contains("Position"));
/// ```
#[derive(Debug)]
pub struct ScheduleTable<'a, R> {
    schedule: &'a Schedule,
    registry: &'a Registry<R>,
}

impl<'a, R> ScheduleTable<'a, R> {
    /// A table of `schedule`'s systems, named through `registry`.
    pub fn new(schedule: &'a Schedule, registry: &'a Registry<R>) -> Self {
        Self { schedule, registry }
    }
}

impl<R> fmt::Display for ScheduleTable<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut table =
            TextTable::new(&["track", "order", "system", "depends_on", "reads", "writes"]);
        let mut step = 0;
        for (t, track) in self.schedule.tracks().enumerate() {
            for &id in track {
                step += 1;
                let Ok(record) = self.registry.get(id) else {
                    continue;
                };
                let reads = self.names(record.reads())
                    + &self.tagged_names(record.reads_snapshot(), "snapshot");
                // Writers of one queue may run at once, so an emit is shown apart from a write.
                let writes =
                    self.names(record.writes()) + &self.tagged_names(record.emits(), "emit");
                table.row(vec![
                    (t + 1).to_string(),
                    step.to_string(),
                    record.name().to_owned(),
                    dash(self.registry.depends_on(id).join(", ")),
                    dash(reads),
                    dash(writes),
                ]);
            }
        }
        table.fmt(f)
    }
}

impl<R> ScheduleTable<'_, R> {
    fn names(&self, set: &ComponentSet) -> String {
        let names: Vec<String> = set.iter().map(|c| self.name(c)).collect();
        names.join(", ")
    }

    /// The names of `set`, each followed by ` (tag)`, each after a space.
    fn tagged_names(&self, set: &ComponentSet, tag: &str) -> String {
        set.iter()
            .map(|c| format!(" {} ({tag})", self.name(c)))
            .collect()
    }

    /// How messages name `component`, without the backticks.
    fn name(&self, component: ComponentId) -> String {
        self.registry
            .component_name(component)
            .to_string()
            .replace('`', "")
    }
}

fn dash(s: String) -> String {
    if s.trim().is_empty() {
        "-".to_owned()
    } else {
        s.trim().to_owned()
    }
}
