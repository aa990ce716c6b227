//! Saving and restoring the whole world, bit for bit: [`WorldState`],
//! [`World::save_state`] and [`World::restore_state`] (docs/api/rollback.md).
//!
//! A state is made of sections, one per kind of state that decides future ticks: the
//! storage (`laige-storage`'s [`StorageState`]: tables, entity allocator, resources,
//! snapshots), the systems (PRNG streams and `Local` values) and the tick (its number,
//! whether the first tick ran, the skips asked for the next one). Each section implements
//! [`Section`]: it checks that it fits a world, saves from it and restores into it. A new
//! kind of state (event queues, change ticks) is one more field and one more impl, listed in
//! [`WorldState::sections`] and [`WorldState::sections_mut`].

#[cfg(feature = "serde")]
mod file;
mod ring;

use std::any::Any;

use laige_storage::{StorageState, StorageStateError};

use crate::{Prng, World};

pub use ring::StateRing;

/// Why a world could not be saved into a [`WorldState`], or a state restored into a world.
/// Nothing was changed then; the error also went out as its `ecs/...` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// A registered component or resource type was not registered as saved, so a save
    /// would lose it. Event `ecs/state_not_saved`.
    NotSaved {
        /// The type's name.
        component: &'static str,
        /// Whether it is a resource type.
        resource: bool,
    },
    /// The state was saved from a world with other component types (at id `id`, the
    /// first that differs; `""` for none). Event `ecs/state_components_differ`.
    ComponentsDiffer {
        /// The component id.
        id: u16,
        /// The type the state holds there.
        state: &'static str,
        /// The type the world has there.
        world: &'static str,
    },
    /// The state was saved from a world with other systems (at id `id`, the first that
    /// differs; `""` for none). Event `ecs/state_systems_differ`.
    SystemsDiffer {
        /// The system id.
        id: u32,
        /// The system the state holds there.
        state: &'static str,
        /// The system the world has there.
        world: &'static str,
    },
    /// A system's `Local` values are of other types than the state's (another function
    /// registered under the same name). Event `ecs/state_locals_differ`.
    LocalsDiffer {
        /// The system.
        system: &'static str,
        /// The state's type of the first `Local` that differs, or `""` for none.
        state: &'static str,
        /// The world's.
        world: &'static str,
    },
    /// The state holds no world yet. Event `ecs/state_empty`.
    Empty,
    /// A [`StateRing`] holds no state of tick `tick`. Event `ecs/state_tick_not_held`.
    TickNotHeld {
        /// The tick asked for.
        tick: u64,
        /// The oldest tick the ring holds (0 when it holds none).
        oldest: u64,
        /// The newest.
        newest: u64,
    },
}

laige_diag::diagnostics! {
    const StateError in Ecs;
    NotSaved { %component, resource: false } => warn state_not_saved { component }
        "component `{component}` is not saved, so a save would lose it: register it with \
         `ComponentOptions::saved()` (it needs `Clone`) or `saved_copy()` (`Copy`), or \
         `#[component(saved)]` / `#[component(saved_copy)]`";
    NotSaved { component } => warn state_not_saved { component = *component }
        |f| match resource_kind(component) {
            ResourceKind::Events(event) => {
                let event = laige_diag::Text::name(event);
                write!(
                f,
                "the event queue of `{event}` is not saved, so a save would lose the events in \
                 flight: call `world.save_events::<{event}>()` (it needs `Clone`) during setup"
                )
            }
            ResourceKind::Named(ty, name) => {
                let (ty, name) = (laige_diag::Text::name(ty), laige_diag::Text::name(name));
                write!(
                f,
                "resource `{ty}` named \"{name}\" is not saved, so a save would lose it: call \
                 `world.save_named_resource::<{ty}>(\"{name}\")` (it needs `Clone`) during setup"
                )
            }
            ResourceKind::Plain => write!(
                f,
                "resource `{}` is not saved, so a save would lose it: call \
                 `world.save_resource::<{}>()` (it needs `Clone`) during setup",
                laige_diag::Text::name(component),
                laige_diag::Text::name(component)
            ),
        };
    ComponentsDiffer { id, %state, %world }
        => warn state_components_differ { component_id = *id, state, world }
        |f| write!(
            f,
            "the state was saved from a world with other components: component id {id} is {} \
             in the state but {} in this world; register the same component types in the \
             same order before restoring",
            described(state),
            described(world)
        );
    SystemsDiffer { id, %state, %world }
        => warn state_systems_differ { system_id = *id, state, world }
        |f| write!(
            f,
            "the state was saved from a world with other systems: system id {id} is {} in \
             the state but {} in this world; register the same systems in the same order \
             before restoring",
            described(state),
            described(world)
        );
    LocalsDiffer { %system, %state, %world }
        => warn state_locals_differ { system, state, world }
        |f| write!(
            f,
            "system `{system}` keeps a `Local` of {} in this world but of {} in the state: \
             register the same function under that name before restoring",
            described(world),
            described(state)
        );
    TickNotHeld { tick, oldest, newest }
        => warn state_tick_not_held { tick = *tick, oldest = *oldest, newest = *newest }
        "the rollback ring holds no state of tick {tick} (it holds ticks {oldest} to {newest}): \
         roll back at most its capacity, and save every tick";
    Empty => warn state_empty {}
        "the state holds no world yet: save into it (`world.save_state(&mut state)`) before \
         restoring it";
}

impl std::error::Error for StateError {}

/// What a resource's registered name says it is: an event queue (`…Events<E>`), a named
/// resource (`T "name"`), or a plain resource.
enum ResourceKind<'a> {
    Events(&'a str),
    Named(&'a str, &'a str),
    Plain,
}

fn resource_kind(name: &str) -> ResourceKind<'_> {
    const QUEUE: &str = "laige_world::events::queue::Events<";
    if let Some(event) = name.strip_prefix(QUEUE).and_then(|it| it.strip_suffix('>')) {
        return ResourceKind::Events(event);
    }
    match name.split_once(" \"") {
        Some((ty, rest)) if rest.ends_with('"') => ResourceKind::Named(ty, &rest[..rest.len() - 1]),
        _ => ResourceKind::Plain,
    }
}

/// `name` in backticks, or "none" for `""`.
fn described(name: impl std::fmt::Display) -> String {
    let name = name.to_string();
    if name.is_empty() {
        "none".to_owned()
    } else {
        format!("`{name}`")
    }
}

impl From<StorageStateError> for StateError {
    fn from(err: StorageStateError) -> Self {
        match err {
            StorageStateError::NotSaved {
                component,
                resource,
            } => Self::NotSaved {
                component,
                resource,
            },
            StorageStateError::ComponentsDiffer { id, state, world } => {
                Self::ComponentsDiffer { id, state, world }
            }
            _ => Self::Empty,
        }
    }
}

/// One kind of state a [`WorldState`] holds: how it fits a world, and how it is copied out
/// of it and back.
trait Section {
    /// Copies the section out of `world`, reusing the buffers it holds. Fails only before
    /// changing anything.
    fn save(&mut self, world: &mut World) -> Result<(), StateError>;

    /// Whether the section can be restored into `world`; changes nothing.
    fn check(&self, world: &mut World) -> Result<(), StateError>;

    /// Copies the section into `world`, which [`Section::check`] accepted.
    fn restore(&self, world: &mut World);
}

/// Everything of a [`World`] that decides its future ticks, saved by
/// [`World::save_state`] and put back by [`World::restore_state`]:
///
/// - every component's values, table by table in row order, with the tables' entities;
/// - the entity allocator (generations and the free list), so restored handles are the
///   same handles and the next spawns hand out the same ones;
/// - the resource values, and the snapshots of versioned components;
/// - every system's PRNG stream (and its `par_each` batches' streams) and `Local` values,
///   its run condition's included;
/// - the tick number, whether the first tick ran, and the skips asked for the next tick.
///
/// It keeps its buffers: once it has held a world of a given shape (the same registry and
/// tables, no more entities than before), saving into it again allocates nothing, and nor
/// does restoring it. Keep several for a rollback ring ([`StateRing`](crate::StateRing)).
#[derive(Debug, Default)]
pub struct WorldState {
    storage: StorageSection,
    systems: SystemsSection,
    tick: TickSection,
}

impl WorldState {
    /// An empty state; [`World::save_state`] fills it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the state holds a saved world.
    pub fn is_saved(&self) -> bool {
        self.storage.0.is_saved()
    }

    /// The tick number of the saved world: the number its next tick runs under
    /// ([`World::ticks_run`] at the save).
    pub fn tick(&self) -> u64 {
        self.tick.tick
    }

    /// The live entity count of the saved world.
    pub fn entity_count(&self) -> u32 {
        self.storage.0.entity_count()
    }

    /// The bytes of component, resource and snapshot values held (a `Clone` value counts
    /// its own size, not what it owns on the heap).
    pub fn value_bytes(&self) -> usize {
        self.storage.0.value_bytes()
    }

    /// The bytes a save copies: the value bytes plus the entity columns and the entity
    /// allocator's tables.
    pub fn copied_bytes(&self) -> usize {
        self.storage.0.copied_bytes()
    }

    /// The storage's part of the state.
    pub fn storage(&self) -> &StorageState {
        &self.storage.0
    }

    /// The sections, in the order they are checked and restored.
    fn sections(&self) -> [&dyn Section; 3] {
        // Storage first: an empty state is reported as such.
        [&self.storage, &self.systems, &self.tick]
    }

    /// The sections, in the order they are saved.
    fn sections_mut(&mut self) -> [&mut dyn Section; 3] {
        [&mut self.storage, &mut self.systems, &mut self.tick]
    }
}

impl World {
    /// Saves everything that decides this world's future ticks into `state` (see
    /// [`WorldState`]), reusing its buffers: once `state` held a world of this shape, this
    /// allocates nothing. Call it between ticks. `&mut self` because `Local` values are only
    /// ever reached exclusively (they need `Send`, not `Sync`).
    ///
    /// # Errors
    ///
    /// [`StateError::NotSaved`] naming the first registered type (by id) that was not
    /// registered as saved; `state` is left as it was. The event is emitted.
    pub fn save_state(&mut self, state: &mut WorldState) -> Result<(), StateError> {
        for section in state.sections_mut() {
            if let Err(err) = section.save(self) {
                return Err(self.storage.report(err));
            }
        }
        Ok(())
    }

    /// Makes this world the one `state` saved, bit for bit: the same entities and handles,
    /// tables (with the same ids, rows in the same order), resources, snapshots, PRNG
    /// streams, `Local` values and tick number. Every later tick then matches a run that
    /// never went back, on the sequential runner and any worker count. A checksum record
    /// being kept drops the ticks from the state's tick on, so it reads as that run's.
    ///
    /// Restoring a state saved from this world's current shape allocates nothing.
    ///
    /// # Errors
    ///
    /// [`StateError::Empty`], [`StateError::ComponentsDiffer`],
    /// [`StateError::SystemsDiffer`] or [`StateError::LocalsDiffer`] when the state was
    /// saved from a world with another registry; nothing is changed then. The event is
    /// emitted.
    pub fn restore_state(&mut self, state: &WorldState) -> Result<(), StateError> {
        for section in state.sections() {
            if let Err(err) = section.check(self) {
                return Err(self.storage.report(err));
            }
        }
        for section in state.sections() {
            section.restore(self);
        }
        Ok(())
    }
}

/// The storage's section: `laige-storage`'s own state.
#[derive(Debug, Default)]
struct StorageSection(StorageState);

impl Section for StorageSection {
    fn save(&mut self, world: &mut World) -> Result<(), StateError> {
        world
            .storage
            .save_state(&mut self.0)
            .map_err(StateError::from)
    }

    fn check(&self, world: &mut World) -> Result<(), StateError> {
        world.storage.check_state(&self.0).map_err(StateError::from)
    }

    fn restore(&self, world: &mut World) {
        match world.storage.restore_state(&self.0) {
            Ok(true) => {
                // Other tables: the plan and the failure table were built over the old ones.
                world.runtime.plan = None;
                world.runtime.gate.forget_preds();
            }
            Ok(false) => {}
            // Checked just before, with nothing changed since.
            Err(_) => debug_assert!(false, "the storage section was checked"),
        }
    }
}

/// The systems' section: names (to match the registry), PRNG streams, `Local` values.
#[derive(Debug, Default)]
struct SystemsSection {
    names: Vec<&'static str>,
    /// Per system its PRNG stream and how many `par_each` loops it ran (the root of its
    /// batches' streams).
    rngs: Vec<(Prng, u64)>,
    /// Per system its change ticks: the last run's window and the next run's tick.
    change_ticks: Vec<(laige_query::RunTicks, u64)>,
    locals: Vec<SavedLocals>,
}

/// One system's saved `Local` values.
#[derive(Debug, Default)]
struct SavedLocals {
    types: Vec<&'static str>,
    values: Vec<Option<Box<dyn Any + Send>>>,
}

impl Section for SystemsSection {
    fn save(&mut self, world: &mut World) -> Result<(), StateError> {
        let records = world.registry.records();
        if self.names.len() != records.len()
            || self.names.iter().zip(records).any(|(a, b)| *a != b.name())
        {
            self.names.clear();
            self.names.extend(records.iter().map(|it| it.name()));
            self.locals.clear();
        }
        self.rngs.clear();
        self.change_ticks.clear();
        self.change_ticks
            .extend(world.systems.iter().map(|it| it.change_ticks()));
        self.locals
            .resize_with(world.systems.len(), SavedLocals::default);
        for (system, saved) in world.systems.iter_mut().zip(&mut self.locals) {
            self.rngs.push(system.random_state());
            let (mut count, mut same) = (0, true);
            system.visit_locals(|local| {
                same &= saved.types.get(count) == Some(&local.type_name());
                count += 1;
            });
            if !same || count != saved.types.len() {
                saved.types.clear();
                saved.values.clear();
                system.visit_locals(|local| {
                    saved.types.push(local.type_name());
                    saved.values.push(None);
                });
            }
            let mut at = 0;
            system.visit_locals(|local| {
                local.save(&mut saved.values[at]);
                at += 1;
            });
        }
        Ok(())
    }

    fn check(&self, world: &mut World) -> Result<(), StateError> {
        let records = world.registry.records();
        for index in 0..self.names.len().max(records.len()) {
            let state = self.names.get(index).copied();
            let live = records.get(index).map(|it| it.name());
            if state != live {
                return Err(StateError::SystemsDiffer {
                    id: index as u32 + 1,
                    state: state.unwrap_or(""),
                    world: live.unwrap_or(""),
                });
            }
        }
        self.check_locals(world)
    }

    fn restore(&self, world: &mut World) {
        for (system, &(ticks, next)) in world.systems.iter_mut().zip(&self.change_ticks) {
            system.set_change_ticks(ticks, next);
        }
        for ((system, rng), saved) in world.systems.iter_mut().zip(&self.rngs).zip(&self.locals) {
            system.set_random_state(rng.0, rng.1);
            let mut values = saved.values.iter();
            system.visit_locals(|local| {
                if let Some(Some(value)) = values.next() {
                    local.restore(&**value);
                }
            });
        }
    }
}

impl SystemsSection {
    /// The first system whose `Local` types differ from the state's, as an error.
    fn check_locals(&self, world: &mut World) -> Result<(), StateError> {
        for (system, saved) in world.systems.iter_mut().zip(&self.locals) {
            let name = system.meta().name();
            let (mut at, mut differs) = (0, None);
            system.visit_locals(|local| {
                if differs.is_none() && saved.types.get(at) != Some(&local.type_name()) {
                    differs = Some((at, local.type_name()));
                }
                at += 1;
            });
            if differs.is_none() && at < saved.types.len() {
                differs = Some((at, ""));
            }
            if let Some((at, world)) = differs {
                return Err(StateError::LocalsDiffer {
                    system: name,
                    state: saved.types.get(at).copied().unwrap_or(""),
                    world,
                });
            }
        }
        Ok(())
    }
}

/// The tick's section: its number, whether the first tick ran, and the skips asked for
/// the next tick.
#[derive(Debug, Default)]
struct TickSection {
    tick: u64,
    ticked: bool,
    requests: Vec<(u8, u32)>,
}

impl Section for TickSection {
    fn save(&mut self, world: &mut World) -> Result<(), StateError> {
        self.tick = world.observers.tick;
        self.ticked = world.runtime.ticked;
        world.runtime.gate.save_requests(&mut self.requests);
        Ok(())
    }

    fn check(&self, _: &mut World) -> Result<(), StateError> {
        Ok(())
    }

    fn restore(&self, world: &mut World) {
        world.observers.tick = self.tick;
        world.runtime.ticked = self.ticked;
        let systems = world.systems.len();
        world.runtime.gate.restore_requests(&self.requests, systems);
        if let Some(checksums) = &mut world.observers.checksums {
            checksums.rewind_to(self.tick);
        }
    }
}
