//! World and query failures: each names what failed and says how to fix it, and each has
//! one rate-limited structured event.

use std::fmt;

use laige_registry::{Access, ComponentId, MAX_COMPONENTS, SystemId};

use crate::Entity;

/// Why a World operation failed. Nothing panics: every failure is one of these, plus one
/// rate-limited `ecs/...` event ([`WorldError::event`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum WorldError {
    /// The handle names no live entity: it was despawned, or comes from another world.
    /// Event `ecs/stale_entity_access` (`ecs/stale_entity_destroy` for a despawn), fields
    /// `entity_id`, `generation`.
    StaleEntity {
        /// The stale handle.
        entity: Entity,
        /// What was attempted (`get`, `insert`, `despawn`, ...).
        op: &'static str,
    },
    /// The component type was never registered. Event `ecs/component_unregistered`.
    UnregisteredComponent {
        /// The Rust type name.
        component: &'static str,
    },
    /// The entity is live but lacks the component. Event `ecs/component_missing`.
    MissingComponent {
        /// The entity.
        entity: Entity,
        /// The component's type name.
        component: &'static str,
    },
    /// The type is already registered. Event `ecs/component_duplicate`, fields
    /// `component_id`, `size`, `alignment`.
    ComponentDuplicate {
        /// The type name.
        component: &'static str,
        /// Its existing id.
        id: ComponentId,
        /// `size_of`.
        size: usize,
        /// `align_of`.
        alignment: usize,
    },
    /// The world already has [`MAX_COMPONENTS`] component types. Event `ecs/component_budget`.
    ComponentLimit {
        /// The type that did not fit.
        component: &'static str,
    },
    /// A bundle lists one component type twice. Event `ecs/bundle_duplicate`.
    BundleDuplicate {
        /// The repeated type.
        component: &'static str,
    },
    /// A bundle holds more than [`MAX_BUNDLE`](crate::MAX_BUNDLE) components. Event
    /// `ecs/bundle_too_large`.
    BundleTooLarge {
        /// The first type that did not fit.
        component: &'static str,
    },
    /// The world already holds its `max_entities`. Event `ecs/entity_limit`.
    EntityLimit {
        /// The limit.
        max_entities: u32,
    },
    /// No such system is registered. Event `ecs/system_unknown`.
    UnknownSystem {
        /// The raw id asked for.
        id: u32,
        /// How many systems are registered.
        systems: usize,
    },
    /// A pending-entity placeholder was used outside the command buffer (and the tick) that
    /// made it. Event `ecs/pending_entity_invalid`.
    InvalidPending {
        /// The placeholder's spawn index in its buffer.
        index: u32,
    },
    /// A command buffer filled for one world was applied to another.
    /// Event `ecs/command_buffer_foreign`.
    ForeignCommandBuffer,
    /// A resource type was used as a component: spawned, inserted on, read from or removed
    /// from an entity. Event `ecs/resource_as_component`.
    ResourceAsComponent {
        /// The resource's type name.
        component: &'static str,
    },
    /// A type registered as a component was inserted as a resource.
    /// Event `ecs/component_as_resource`.
    ComponentAsResource {
        /// The component's type name.
        component: &'static str,
    },
    /// The world holds no such resource (never inserted, or removed).
    /// Event `ecs/resource_missing`.
    NoResource {
        /// The type name.
        component: &'static str,
    },
    /// A snapshot was asked of a component that is not versioned (or not registered).
    /// Event `ecs/snapshot_unversioned`.
    NotVersioned {
        /// The type name.
        component: &'static str,
    },
    /// A component was registered both sparse and versioned; sparse components keep no
    /// snapshot. Event `ecs/component_sparse_versioned`.
    SparseVersioned {
        /// The type name.
        component: &'static str,
    },
}

laige_diag::diagnostics! {
    WorldError in Ecs;
    StaleEntity { entity, op: "despawn" }
        => warn stale_entity_destroy {
            entity_id = entity.index(),
            generation = entity.generation(),
        }
        |f| write_stale(f, "despawn", entity);
    StaleEntity { entity, %op }
        => warn stale_entity_access {
            entity_id = entity.index(),
            generation = entity.generation(),
            op,
        }
        |f| write_stale(f, op, entity);
    UnregisteredComponent { %component } => warn component_unregistered { component }
        "component type `{component}` is not registered: call \
         `world.register_component::<{component}>()` during setup";
    MissingComponent { entity, %component }
        => warn component_missing {
            entity_id = entity.index(),
            generation = entity.generation(),
            component,
        }
        "entity {entity} has no `{component}`: insert it first, or use `has` to check";
    ComponentDuplicate { %component, id, size, alignment }
        => warn component_duplicate { component_id = id.get(), size, alignment }
        "component type `{component}` is already registered (id {id}): register each type once";
    ComponentLimit { %component } => warn component_budget { component }
        "cannot register `{component}`: the world already has {MAX_COMPONENTS} component \
         types; merge small components";
    BundleDuplicate { %component } => warn bundle_duplicate { component }
        "a bundle lists `{component}` twice: list each component type once";
    BundleTooLarge { %component } => warn bundle_too_large { component }
        |f| write!(
            f,
            "a bundle holds more than {} components (`{component}` did not fit): an entity has \
             at most that many; spawn fewer and insert the rest",
            crate::MAX_BUNDLE
        );
    EntityLimit { max_entities } => warn entity_limit { max_entities }
        "cannot spawn: the world holds its maximum of {max_entities} entities; despawn some or \
         raise `WorldOptions::max_entities`";
    UnknownSystem { id, systems } => warn system_unknown { id, systems }
        "no system has id {id} (registered ids are 1..={systems}): use an id returned by \
         `register_system`";
    InvalidPending { index } => warn pending_entity_invalid { index }
        "pending entity #{index} belongs to another command buffer or an earlier tick: use a \
         placeholder only in the buffer, and the tick, whose `spawn` returned it";
    ForeignCommandBuffer => warn command_buffer_foreign {}
        "the command buffer was filled for another world: apply a buffer only to the world \
         that filled it";
    ResourceAsComponent { %component } => warn resource_as_component { component }
        "`{component}` is a resource (a singleton in the world), not a component: it cannot be \
         on entities or in queries; use `world.resource::<{component}>()` or \
         `ctx.resource::<{component}>()`";
    ComponentAsResource { %component } => warn component_as_resource { component }
        "`{component}` is registered as a component, so it cannot also be a resource: use a \
         distinct type (a newtype) for the resource";
    NoResource { %component } => warn resource_missing { component }
        "the world holds no resource `{component}`: insert it with `world.insert_resource(..)` \
         first";
    NotVersioned { %component } => warn snapshot_unversioned { component }
        "`{component}` keeps no snapshot (no previous-tick value): register it with \
         `world.register_component_with(ComponentOptions::<{component}>::new().versioned())`";
    SparseVersioned { %component } => warn component_sparse_versioned { component }
        "`{component}` cannot be both sparse and versioned: sparse components keep no snapshot; \
         drop `.sparse()` (table storage) or `.versioned()` from its `ComponentOptions`";
}

/// A named resource's display name, `Grid "terrain"`, as its type and its name.
fn split_named(display: &str) -> Option<(&str, &str)> {
    let (ty, quoted) = display.split_once(" \"")?;
    Some((ty, quoted.strip_suffix('"')?))
}

/// [`QueryError::Undeclared`]'s message for a named resource: declared by name.
fn write_named_undeclared(
    f: &mut fmt::Formatter<'_>,
    system: impl fmt::Display,
    component: impl fmt::Display,
    verb: &str,
    declared: Option<Access>,
    ty: &str,
    label: &str,
) -> fmt::Result {
    let (ty, label) = (laige_diag::Text::name(ty), laige_diag::Text::name(label));
    match declared {
        Some(Access::Read | Access::ReadFresh) if verb == "writes" => write!(
            f,
            "system `{system}` writes `{component}` but declared it read-only: declare \
             `.writes_named::<{ty}>(\"{label}\")` instead of `.reads_named::<{ty}>(\"{label}\")` \
             (or take `NamedResMut` instead of `NamedRes`)"
        ),
        _ => write!(
            f,
            "system `{system}` {verb} `{component}` without declaring it: add \
             `.{verb}_named::<{ty}>(\"{label}\")` to its registration (or take a `NamedRes` or \
             `NamedResMut` parameter)"
        ),
    }
}

/// The message of a stale handle, for both of its events.
fn write_stale(f: &mut fmt::Formatter<'_>, op: impl fmt::Display, entity: &Entity) -> fmt::Result {
    write!(
        f,
        "{op}: entity {entity} is stale (despawned, or not from this world): drop handles of \
         despawned entities, or check `is_alive` first"
    )
}

impl std::error::Error for WorldError {}

/// Why a query was refused. Checked once per query call, in every build, before any row is
/// visited.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum QueryError {
    /// The running system touches a component it did not declare, or writes one it declared
    /// read-only. Event `ecs/access_violation` (`system`, `system_id`, `component`, `access`).
    Undeclared {
        /// The system's name.
        system: &'static str,
        /// The system's id.
        system_id: SystemId,
        /// The component's type name.
        component: &'static str,
        /// The access the query needs.
        access: Access,
        /// What the system declared for it, if anything.
        declared: Option<Access>,
    },
    /// One query names the same component twice with a write among them, e.g.
    /// `(&mut T, &T)`. Event `ecs/query_aliased`.
    Aliased {
        /// The system running the query; `None` for a setup query on the world.
        system: Option<&'static str>,
        /// The component's type name.
        component: &'static str,
    },
    /// A system asked for a resource the world does not hold: never inserted, removed, or a
    /// component type. Event `ecs/resource_missing` (`system`, `system_id`, `component`).
    NoResource {
        /// The system's name.
        system: &'static str,
        /// The system's id.
        system_id: SystemId,
        /// The type name.
        component: &'static str,
        /// Whether the type is registered as a component (so it never can be a resource).
        is_component: bool,
    },
    /// A snapshot read of a component that is not versioned. Event
    /// `ecs/snapshot_unversioned` (`system`, `component`).
    NotVersioned {
        /// The system reading; `None` for a setup query on the world.
        system: Option<&'static str>,
        /// The component's type name.
        component: &'static str,
    },
    /// The system declared a table footprint (`.matching::<T>()`) and a query does not
    /// require `T`, so it could visit tables outside the footprint, which the executor lets
    /// other writers use at the same time. Event `ecs/query_unmatched` (`system`,
    /// `system_id`, `component`).
    Unmatched {
        /// The system's name.
        system: &'static str,
        /// The system's id.
        system_id: SystemId,
        /// The footprint component the query does not require.
        component: &'static str,
    },
    /// A query names a resource type, which no entity can have. Event `ecs/query_resource`
    /// (`system`, `component`).
    ResourceInQuery {
        /// The system running the query; `None` for a setup query on the world.
        system: Option<&'static str>,
        /// The resource's type name.
        component: &'static str,
    },
    /// `single` or `single_mut` on a query that matches no row, or more than one. Event
    /// `ecs/query_not_single` (`system`, `query`, `matched`).
    NotSingle {
        /// The system running the query; `None` for a setup query on the world.
        system: Option<&'static str>,
        /// The query's type, e.g. `(&game::Pos, &mut game::Vel)`.
        query: &'static str,
        /// How many rows matched: 0, or 2 for two or more (counting stops at the second).
        matched: usize,
    },
    /// A change filter (`Changed<T>`, `Added<T>`) or `Ref<T>` names a component that keeps
    /// no change ticks. Event `ecs/query_untracked` (`system`, `component`, `filter`).
    Untracked {
        /// The system running the query; `None` for a setup query on the world.
        system: Option<&'static str>,
        /// The component's type name.
        component: &'static str,
        /// What asked: `Changed`, `Added` or `Ref`.
        filter: &'static str,
    },
    /// `each_chunk` or `par_each_chunk` on a query that touches a sparse component, which
    /// has no column to hand out as a slice. Event `ecs/query_sparse_chunk` (`system`,
    /// `query`).
    SparseChunk {
        /// The system running the query; `None` for a setup query on the world.
        system: Option<&'static str>,
        /// The query's type.
        query: &'static str,
    },
}

laige_diag::diagnostics! {
    const QueryError in Ecs;
    Undeclared { %system, system_id, %component, access, declared }
        => warn access_violation {
            system,
            system_id = system_id.get(),
            component,
            access = access_name(*access),
        }
        |f| {
            let verb = if *access == Access::Write {
                "writes"
            } else {
                "reads"
            };
            if let Some((ty, label)) = split_named(component.raw()) {
                return write_named_undeclared(f, system, component, verb, *declared, ty, label);
            }
            match *declared {
                _ if *access == Access::ReadSnapshot => match *declared {
                    Some(other) => write!(
                        f,
                        "system `{system}` reads the snapshot of `{component}` (its value at the \
                         end of the previous tick) but declared `.{}::<{component}>()`: snapshot \
                         reads need `.reads_snapshot::<{component}>()` instead (a component is \
                         declared once per system)",
                        declaration(other)
                    ),
                    None => write!(
                        f,
                        "system `{system}` reads the snapshot of `{component}` without declaring \
                         it: add `.reads_snapshot::<{component}>()` to its registration"
                    ),
                },
                Some(Access::Read | Access::ReadFresh) if *access == Access::Write => write!(
                    f,
                    "system `{system}` writes `{component}` but declared it read-only: declare \
                     `.writes::<{component}>()` instead of `.reads::<{component}>()`"
                ),
                Some(Access::ReadSnapshot) => write!(
                    f,
                    "system `{system}` {verb} the live `{component}` but declared a snapshot read \
                     (the previous tick's value), which live access cannot serve: use the \
                     snapshot API (`ctx.snapshot::<{component}>(entity)`, \
                     `ctx.each_snapshot::<{component}>(..)` or a `Snapshot<&{component}>` query \
                     element), or declare `.{verb}::<{component}>()` instead"
                ),
                _ => write!(
                    f,
                    "system `{system}` {verb} `{component}` without declaring it: add \
                     `.{verb}::<{component}>()` to its registration"
                ),
            }
        };
    Aliased { %system, %component }
        => warn query_aliased { system = system.unwrap_or(""), component }
        |f| {
            write_system_prefix(f, system)?;
            write!(
                f,
                "the query names `{component}` twice with a write among them, which would alias \
                 a mutable reference: name it once (`&mut {component}` also reads it)"
            )
        };
    NoResource { %system, system_id, %component, is_component }
        => warn resource_missing { system, system_id = system_id.get(), component }
        |f| if *is_component {
            write!(
                f,
                "system `{system}` asked for resource `{component}`, but `{component}` is a \
                 component type: read it with a query (`ctx.each::<&{component}>(..)`)"
            )
        } else {
            write!(
                f,
                "system `{system}` asked for resource `{component}`, which the world does not \
                 hold: insert it during setup with `world.insert_resource(..)`"
            )
        };
    NotVersioned { %system, %component }
        => warn snapshot_unversioned { system = system.unwrap_or(""), component }
        |f| {
            write_system_prefix(f, system)?;
            write!(
                f,
                "`{component}` keeps no snapshot (no previous-tick value): register it with \
                 `world.register_component_with(ComponentOptions::<{component}>::new().versioned())`"
            )
        };
    ResourceInQuery { %system, %component }
        => warn query_resource { system = system.unwrap_or(""), component }
        |f| {
            write_system_prefix(f, system)?;
            write!(
                f,
                "`{component}` is a resource, which no entity has, so it cannot be in a query: \
                 read it with `ctx.resource::<{component}>()`"
            )
        };
    NotSingle { %system, %query, matched }
        => warn query_not_single { system = system.unwrap_or(""), query, matched = *matched }
        |f| {
            write_system_prefix(f, system)?;
            if *matched == 0 {
                write!(
                    f,
                    "`single` on the query `{query}` found no entity: it needs exactly one (use \
                     `iter` to accept none, or spawn the entity first)"
                )
            } else {
                write!(
                    f,
                    "`single` on the query `{query}` found more than one entity: it needs exactly \
                     one (use `iter`, or narrow the query with a `With<..>` filter)"
                )
            }
        };
    Untracked { %system, %component, %filter }
        => warn query_untracked { system = system.unwrap_or(""), component, filter }
        |f| {
            write_system_prefix(f, system)?;
            write!(
                f,
                "`{filter}<{component}>` needs change ticks, which `{component}` does not keep: \
                 register it tracked, with `ComponentOptions::<{component}>::new().tracked()` \
                 or `#[component(tracked)]`"
            )
        };
    SparseChunk { %system, %query }
        => warn query_sparse_chunk { system = system.unwrap_or(""), query }
        |f| {
            write_system_prefix(f, system)?;
            write!(
                f,
                "the query `{query}` touches a sparse component, whose values are in no table \
                 column, so it has no chunks: loop over it with `each`, `iter` or `par_each`, or \
                 register the component without `.sparse()`"
            )
        };
    Unmatched { %system, system_id, %component }
        => warn query_unmatched { system, system_id = system_id.get(), component }
        "system `{system}` declared `.matching::<{component}>()`, so every table it touches \
         must hold `{component}`, but this access could visit tables without it: add \
         `With<{component}>` (or `&{component}`) to the query (the state hash visits every \
         table, so a hashing system cannot declare `matching`)";
}

/// `system `name`: ` for a query run by a system; nothing for a setup query on the world.
fn write_system_prefix(
    f: &mut fmt::Formatter<'_>,
    system: Option<impl fmt::Display>,
) -> fmt::Result {
    match system {
        Some(system) => write!(f, "system `{system}`: "),
        None => Ok(()),
    }
}

/// `read`, `write` or `read_snapshot`: what a query needs.
fn access_name(access: Access) -> &'static str {
    match access {
        Access::Write => "write",
        Access::ReadSnapshot => "read_snapshot",
        _ => "read",
    }
}

/// The builder method that declares `access`.
fn declaration(access: Access) -> &'static str {
    match access {
        Access::Read => "reads",
        Access::ReadFresh => "reads_fresh",
        Access::Write => "writes",
        Access::ReadSnapshot => "reads_snapshot",
        Access::Emit => "emits",
    }
}

impl std::error::Error for QueryError {}
