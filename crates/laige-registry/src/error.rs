//! Registration failures: one variant per row of the contract's validation table.

use std::fmt;

use laige_depspec::ParseError;
use laige_diag::{EventKey, Severity, Subsystem};

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
}

impl RegisterError {
    /// The event name, without the `system/` prefix.
    pub const fn event(&self) -> &'static str {
        match self {
            RegisterError::NameInvalid { .. } => "name_invalid",
            RegisterError::RunInvalid { .. } => "run_invalid",
            RegisterError::BudgetInvalid { .. } => "budget_invalid",
            RegisterError::DepSpecInvalid { .. } => "dep_spec_invalid",
            RegisterError::Duplicate { .. } => "duplicate",
            RegisterError::IoUnregistered { .. } => "io_unregistered",
            RegisterError::IoDuplicate { .. } => "io_duplicate",
            RegisterError::IoTooMany { .. } => "io_too_many",
            RegisterError::BudgetExhausted { .. } => "budget_exhausted",
            RegisterError::ParamKind { .. } => "param_kind",
            RegisterError::ParamConflict { .. } => "param_conflict",
            RegisterError::AccessContradicts { .. } => "access_contradicts",
        }
    }

    /// The contract's error code: `budget_exhausted` for a full registry,
    /// `invalid_argument` for everything else.
    pub const fn code(&self) -> &'static str {
        match self {
            RegisterError::BudgetExhausted { .. } => "budget_exhausted",
            _ => "invalid_argument",
        }
    }

    /// The rate-limit key of this failure's event.
    pub const fn key(&self) -> EventKey {
        EventKey::new(Subsystem::System, self.event(), Severity::Warn)
    }

    /// Emits this failure's structured event with the contract's field keys.
    pub fn emit(&self) {
        macro_rules! warn {
            ($name:literal, $($field:tt)*) => {
                tracing::warn!(name: $name, target: "laige", $($field)*, "{}", self)
            };
        }
        match *self {
            RegisterError::NameInvalid { budget_raw, .. } => {
                warn!("system/name_invalid", budget_raw)
            }
            RegisterError::RunInvalid { name } => warn!("system/run_invalid", name),
            RegisterError::BudgetInvalid { name, budget_raw } => {
                warn!("system/budget_invalid", name, budget_raw)
            }
            RegisterError::DepSpecInvalid { name, error, .. } => {
                warn!("system/dep_spec_invalid", name, error = error.kind.name())
            }
            RegisterError::Duplicate { name, existing } => {
                warn!(
                    "system/duplicate",
                    name,
                    existing_system_id = existing.get()
                )
            }
            RegisterError::IoUnregistered { name, .. } => warn!("system/io_unregistered", name),
            RegisterError::IoDuplicate { name, component } => {
                warn!("system/io_duplicate", name, component_id = component.get())
            }
            RegisterError::IoTooMany { name } => warn!("system/io_too_many", name),
            RegisterError::BudgetExhausted { name, systems } => {
                warn!("system/budget_exhausted", name, systems)
            }
            RegisterError::ParamKind {
                name,
                param,
                component,
                ..
            } => warn!("system/param_kind", name, param, component),
            RegisterError::ParamConflict {
                name,
                component,
                first,
                second,
                ..
            } => warn!("system/param_conflict", name, component, first, second),
            RegisterError::AccessContradicts {
                name,
                component,
                param,
                declared,
                needs,
            } => warn!(
                "system/access_contradicts",
                name,
                component,
                param,
                declared = declared.name(),
                needs = needs.name()
            ),
        }
    }
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RegisterError::NameInvalid { name: "", .. } => {
                write!(
                    f,
                    "a system has an empty name: give it a unique, non-empty name"
                )
            }
            RegisterError::NameInvalid { name, .. } => write!(
                f,
                "system name `{name}` cannot be named in `.after(..)` (a depends_on spec): \
                 use a name without commas and without leading or trailing whitespace"
            ),
            RegisterError::RunInvalid { name } => {
                write!(
                    f,
                    "system `{name}` has no run function: set one before registering it"
                )
            }
            RegisterError::BudgetInvalid { name, budget_raw } => write!(
                f,
                "system `{name}` has budget {} ms (raw {budget_raw}): \
                 give it a positive budget, e.g. `.budget_ms(1.0)`",
                f64::from(budget_raw) / 65536.0
            ),
            RegisterError::DepSpecInvalid {
                name,
                method,
                spec,
                error,
            } => {
                let depends_on = if method == "after" {
                    " (its depends_on spec)"
                } else {
                    ""
                };
                write!(
                    f,
                    "system `{name}` has a malformed `.{method}(..)` list{depends_on} {spec:?}: {}",
                    error.display_with(spec)
                )
            }
            RegisterError::Duplicate { name, existing } => write!(
                f,
                "system `{name}` is already registered (as {existing}): \
                 give each system a unique name"
            ),
            RegisterError::IoUnregistered { name, position } => write!(
                f,
                "system `{name}` declares access {position} to a component that is not \
                 registered: register the component before the systems that use it"
            ),
            RegisterError::IoDuplicate { name, component } => write!(
                f,
                "system `{name}` declares component {component} twice: declare it once, \
                 as write if the system writes it at all"
            ),
            RegisterError::IoTooMany { name } => write!(
                f,
                "system `{name}` declares more than {MAX_IO} component accesses: \
                 split it into smaller systems"
            ),
            RegisterError::BudgetExhausted { name, systems } => write!(
                f,
                "cannot register `{name}`: the registry already holds {systems} of at most \
                 {MAX_SYSTEMS} systems; merge small systems"
            ),
            RegisterError::ParamKind {
                name,
                param,
                component,
                expected,
            } => write!(
                f,
                "parameter `{}` of system `{name}` names `{}`, which is not {expected}: \
                 query components, take resources as `Res`/`ResMut`, and read snapshots only \
                 of components registered versioned",
                ShortType(param),
                ShortType(component)
            ),
            RegisterError::ParamConflict {
                name,
                component,
                first,
                first_access,
                second,
                second_access,
                within_one,
            } => {
                let (first, second) = (ShortType(first), ShortType(second));
                let component = ShortType(component);
                let aliased = first_access == Access::Write || second_access == Access::Write;
                match (within_one, aliased) {
                    (true, _) => write!(
                        f,
                        "parameter `{first}` of system `{name}` names `{component}` twice \
                         with a write, so its items would alias: name it once"
                    ),
                    (false, true) => write!(
                        f,
                        "parameters `{first}` and `{second}` of system `{name}` both reach \
                         `{component}` and one of them writes it, so they would alias: merge \
                         them into one parameter, or split the system"
                    ),
                    (false, false) => write!(
                        f,
                        "parameters `{first}` and `{second}` of system `{name}` read \
                         `{component}` both live and as a snapshot, and a system declares a \
                         component once: read it one way, or split the system"
                    ),
                }
            }
            RegisterError::AccessContradicts {
                name,
                component,
                declared,
                param,
                needs,
            } => {
                let component = ShortType(component);
                write!(
                    f,
                    "system `{name}` declares `.{}::<{component}>()`, but its parameter `{}` \
                     needs `.{}::<{component}>()`: drop the declaration (parameters declare \
                     their own access), or make it `.{}::<{component}>()`",
                    declared.name(),
                    ShortType(param),
                    needs.name(),
                    needs.name()
                )
            }
        }
    }
}

impl std::error::Error for RegisterError {}

/// A type name as messages show it: every path cut to its last segment, so
/// `laige_world::system::Query<(&mut game::Pos, &game::Vel), ()>` reads
/// `Query<(&mut Pos, &Vel), ()>`. Writes straight to the formatter; allocates nothing.
struct ShortType<'a>(&'a str);

impl fmt::Display for ShortType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while !rest.is_empty() {
            let word = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
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
