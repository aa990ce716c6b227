//! Registration failures: one variant per row of the contract's validation table.

use std::fmt;

use laige_depspec::ParseError;
use laige_diag::Text;

use crate::{Access, ComponentId, MAX_IO, MAX_SYSTEMS, SystemId};

/// Why [`Registry::register`](crate::Registry::register) refused a definition.
///
/// Checks run in the contract's normative order and the first failure wins: `name_invalid`,
/// `run_invalid`, `budget_invalid`, `dep_spec_invalid`, `duplicate`, `io_unregistered`,
/// `io_duplicate`, then `budget_exhausted`. A refused registration changes nothing.
///
/// The registry never returns the last three variants, `param_kind`, `param_conflict` and
/// `access_contradicts`: a typed front end (the World's system builder) checks a system's
/// parameters against each other and against its declarations before it hands the
/// definition over, and reports them through the same events.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name is empty, contains a comma, or starts or ends with a space, tab, CR or LF
    /// (the bytes a spec trims), so no `depends_on` spec could ever name it
    /// ([`laige_depspec::is_token`]).
    NameInvalid {
        /// The offending name.
        name: &'static str,
        /// The definition's raw budget, to help find it.
        budget_raw: i32,
    },
    /// The definition has no run function.
    RunInvalid {
        /// The system's name.
        name: &'static str,
    },
    /// The budget is zero or negative.
    BudgetInvalid {
        /// The system's name.
        name: &'static str,
        /// The raw Q16.16 budget.
        budget_raw: i32,
        /// The budget was NaN (stored as raw 0).
        not_a_number: bool,
    },
    /// A name list does not parse: the `depends_on` spec, or a declarative `before` or
    /// `after_weak` list.
    DepSpecInvalid {
        /// The system's name.
        name: &'static str,
        /// The builder method that sets the list: `after` (the `depends_on` spec), `before`
        /// or `after_weak`, so messages name what the user called.
        method: &'static str,
        /// The spec as written.
        spec: &'static str,
        /// What is wrong with it, and where.
        error: ParseError,
    },
    /// Another system already has this name.
    Duplicate {
        /// The name.
        name: &'static str,
        /// The system that holds it.
        existing: SystemId,
    },
    /// A declared component is not registered.
    IoUnregistered {
        /// The system's name.
        name: &'static str,
        /// Position of the access in the declaration list; the list's length for a
        /// `matching` component.
        position: usize,
        /// The declared type's name, when the front end gave it ([`Io::type_name`](crate::Io::type_name)).
        component: Option<&'static str>,
        /// The declared access.
        access: Access,
    },
    /// A component is declared twice (any mix of read and write).
    IoDuplicate {
        /// The system's name.
        name: &'static str,
        /// The component declared twice.
        component: ComponentId,
    },
    /// More than [`MAX_IO`] accesses are declared.
    IoTooMany {
        /// The system's name.
        name: &'static str,
    },
    /// The registry already holds [`MAX_SYSTEMS`] systems.
    BudgetExhausted {
        /// The system's name.
        name: &'static str,
        /// How many systems are registered.
        systems: usize,
    },
    /// A parameter of a typed system names a type of the wrong kind: a resource in a query,
    /// a component as a resource, or a component that is not versioned as a snapshot.
    ParamKind {
        /// The system's name.
        name: &'static str,
        /// The parameter's type name.
        param: &'static str,
        /// The type it names.
        component: &'static str,
        /// What that type would have to be (`a component`, `a resource`, ...).
        expected: &'static str,
    },
    /// Two parameters of a typed system (or one query, naming a type twice) reach one
    /// component, resource, command buffer or PRNG stream in ways that cannot coexist: one
    /// writes what the other reads or writes, so they would alias, or one reads the live
    /// value and the other the snapshot, which one declaration cannot say.
    ParamConflict {
        /// The system's name.
        name: &'static str,
        /// The type (or part of the system) both reach.
        component: &'static str,
        /// The earlier parameter's type name.
        first: &'static str,
        /// How it reaches the component.
        first_access: Access,
        /// The later parameter's type name.
        second: &'static str,
        /// How it reaches the component.
        second_access: Access,
        /// Whether both are elements of one parameter (a query naming a type twice).
        within_one: bool,
    },
    /// A declaration on the builder (`.reads::<T>()`, ...) contradicts what a parameter of
    /// the typed system needs: it would allow less, or another kind of read.
    AccessContradicts {
        /// The system's name.
        name: &'static str,
        /// The component or resource type.
        component: &'static str,
        /// What the builder declares.
        declared: Access,
        /// The parameter's type name.
        param: &'static str,
        /// What the parameter needs.
        needs: Access,
    },
    /// A system writes or reads events of a type whose queue was never registered
    /// (`World::register_events`), so no capacity was ever given for it.
    EventsUnregistered {
        /// The system's name.
        name: &'static str,
        /// The event type's name.
        event: &'static str,
        /// [`Access::Emit`] for a writer; a read for a reader.
        access: Access,
    },
    /// A system would be one writer too many of an event queue: each writer has a buffer of
    /// its own, and a reader gathers at most this many.
    EventsTooManyWriters {
        /// The system's name.
        name: &'static str,
        /// The event type's name.
        event: &'static str,
        /// The most writers a queue has.
        limit: usize,
    },
    /// A system declared reactive (`.reactive()`) reads no event queue, so nothing would
    /// ever wake it.
    ReactiveWithoutEvents {
        /// The system's name.
        name: &'static str,
    },
}

laige_diag::diagnostics! {
    const RegisterError in System;
    NameInvalid { %name, budget_raw } => warn name_invalid { budget_raw } |f| {
        if name.raw().is_empty() {
            write!(f, "a system has an empty name: give it a unique, non-empty name")
        } else {
            write!(
                f,
                "system name `{name}` cannot be named in `.after(..)` (a depends_on spec): use \
                 a name without commas and without leading or trailing whitespace"
            )
        }
    };
    RunInvalid { %name } => warn run_invalid { name }
        "system `{name}` has no run function: set one before registering it";
    BudgetInvalid { %name, budget_raw, not_a_number }
        => warn budget_invalid { name, budget_raw }
        |f| {
            write!(f, "system `{name}` has ")?;
            match (*not_a_number, *budget_raw) {
                (true, _) => write!(f, "a NaN budget (not a number; stored as raw 0)")?,
                (false, raw) if raw < 0 => write!(
                    f,
                    "a negative budget, {} ms (raw {raw})",
                    f64::from(raw) / 65536.0
                )?,
                (false, raw) => write!(
                    f,
                    "budget 0 ms (raw {raw}; a budget under 1/131072 ms rounds to 0)"
                )?,
            }
            write!(f, ": give it a positive budget, e.g. `.budget_ms(1.0)`")
        };
    DepSpecInvalid { %name, method, %spec, error }
        => warn dep_spec_invalid { name, error = error.kind.name() }
        |f| write!(
            f,
            "system `{name}` has a malformed `.{method}(..)` list{} \"{spec}\": {}",
            if *method == "after" { " (its depends_on spec)" } else { "" },
            error.display_quoting(error.token(spec.raw()).map(Text::name))
        );
    Duplicate { %name, existing } => warn duplicate { name, existing_system_id = existing.get() }
        "system `{name}` is already registered (as {existing}): give each system a unique name";
    IoUnregistered { %name, position, component, access } => warn io_unregistered { name }
        |f| match component {
            Some(component) => {
                let component = short(component);
                write!(
                    f,
                    "system `{name}` needs `.{}::<{component}>()` (by a parameter or the \
                     builder), but `{component}` is not registered: register it before the \
                     systems that use it, with \
                     `world.register_component::<{component}>()` for a component or \
                     `world.insert_resource(..)` for a resource",
                    access.name()
                )
            }
            None => write!(
                f,
                "system `{name}` declares access {position} to a component that is not \
                 registered: register the component before the systems that use it"
            ),
        };
    IoDuplicate { %name, component } => warn io_duplicate { name, component_id = component.get() }
        "system `{name}` declares component {component} twice: declare it once, as write if \
         the system writes it at all";
    IoTooMany { %name } => warn io_too_many { name }
        "system `{name}` declares more than {MAX_IO} component accesses: split it into smaller \
         systems";
    BudgetExhausted { %name, systems } => warn budget_exhausted { name, systems }
        "cannot register `{name}`: the registry already holds {systems} of at most \
         {MAX_SYSTEMS} systems; merge small systems";
    ParamKind { %name, param, component, expected } => warn param_kind { name, param, component }
        |f| write!(
            f,
            "parameter `{}` of system `{name}` names `{}`, which is not {expected}: query \
             components, take resources as `Res`/`ResMut`, and read snapshots only of \
             components registered versioned",
            short(param),
            short(component)
        );
    ParamConflict { %name, component, first, first_access, second, second_access, within_one }
        => warn param_conflict { name, component, first, second }
        |f| {
            let (first, second) = (short(first), short(second));
            let component = short(component);
            let writes = |access: Access| matches!(access, Access::Write | Access::Emit);
            let aliased = writes(*first_access) || writes(*second_access);
            match (*within_one, aliased) {
                (true, _) => write!(
                    f,
                    "parameter `{first}` of system `{name}` names `{component}` twice with a \
                     write, so its items would alias: name it once"
                ),
                (false, true) => write!(
                    f,
                    "parameters `{first}` and `{second}` of system `{name}` both reach \
                     `{component}` and one of them writes it, so they would alias: merge them \
                     into one parameter, or split the system"
                ),
                (false, false) => write!(
                    f,
                    "parameters `{first}` and `{second}` of system `{name}` read `{component}` \
                     both live and as a snapshot, and a system declares a component once: \
                     read it one way, or split the system"
                ),
            }
        };
    AccessContradicts { %name, component, declared, param, needs }
        => warn access_contradicts {
            name, component, param, declared = declared.name(), needs = needs.name()
        }
        |f| {
            let component = short(component);
            write!(
                f,
                "system `{name}` declares `.{}::<{component}>()`, but its parameter `{}` needs \
                 `.{}::<{component}>()`: drop the declaration (parameters declare their own \
                 access), or make it `.{}::<{component}>()`",
                declared.name(),
                short(param),
                needs.name(),
                needs.name()
            )
        };
    EventsUnregistered { %name, event, access } => warn events_unregistered { name, event }
        |f| {
            let event = short(event);
            let (verb, param) = match access {
                Access::Emit => ("writes", "EventWriter"),
                _ => ("reads", "EventReader"),
            };
            write!(
                f,
                "system `{name}` {verb} events `{event}` (an `{param}<{event}>` or \
                 `.{}::<{event}>()`), but no queue of `{event}` is registered, so it has no \
                 capacity: call `world.register_events::<{event}>(capacity)` before \
                 registering the systems that use it",
                if *access == Access::Emit { "emits" } else { "reads_events" }
            )
        };
    EventsTooManyWriters { %name, event, limit } => warn events_too_many_writers { name, event }
        |f| {
            let event = short(event);
            write!(
                f,
                "system `{name}` would be writer {} of the event queue `{event}`, which takes \
                 at most {limit} writers: merge some of them into one system, or give them \
                 event types of their own",
                limit + 1
            )
        };
    ReactiveWithoutEvents { %name } => warn reactive_without_events { name }
        "system `{name}` is reactive (`.reactive()`) but reads no event queue, so it would \
         never run: give it an `EventReader<E>` (or `.reads_events::<E>()`), or drop \
         `.reactive()`";
}

impl RegisterError {
    /// The contract's error code: `budget_exhausted` for a full registry,
    /// `invalid_argument` for everything else.
    pub const fn code(&self) -> &'static str {
        match self {
            RegisterError::BudgetExhausted { .. } => "budget_exhausted",
            _ => "invalid_argument",
        }
    }
}

impl std::error::Error for RegisterError {}

/// A type name as messages show it: every path cut to its last segment, so
/// `laige_world::system::Query<(&mut game::Pos, &game::Vel), ()>` reads
/// `Query<(&mut Pos, &Vel), ()>`, escaped and bounded like any name ([`Text`]).
fn short(type_name: &str) -> Text<ShortType<'_>> {
    Text::name(ShortType(type_name))
}

/// [`short`]'s path cutting. Writes straight to the formatter and allocates nothing; a
/// run of identifier characters is looked at only up to a little more than a name's
/// limit, so a huge name costs no more than a bounded one.
struct ShortType<'a>(&'a str);

impl fmt::Display for ShortType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while !rest.is_empty() {
            let window = &rest[..rest.floor_char_boundary(laige_diag::NAME_LIMIT + 2)];
            let word = window
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(window.len());
            let (ident, tail) = rest.split_at(word);
            match tail.strip_prefix("::") {
                // A path segment before another one: dropped with its separator.
                Some(after) if !ident.is_empty() => rest = after,
                _ => {
                    f.write_str(ident)?;
                    let mut chars = tail.chars();
                    if let Some(c) = chars.next() {
                        write!(f, "{c}")?;
                    }
                    rest = chars.as_str();
                }
            }
        }
        Ok(())
    }
}

/// A [`SystemId`] that names no system of this registry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct UnknownSystem {
    /// The id asked for, as a raw value (0 included).
    pub id: u32,
    /// How many systems the registry holds.
    pub systems: usize,
}

impl fmt::Display for UnknownSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no system has id {} (registered ids are 1..={}): use an id returned by register",
            self.id, self.systems
        )
    }
}

impl std::error::Error for UnknownSystem {}
