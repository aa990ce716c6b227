//! Registration failures: one variant per row of the contract's validation table.

use std::fmt;

use laige_depspec::ParseError;
use laige_diag::Text;

use crate::{ComponentId, MAX_IO, MAX_SYSTEMS, SystemId};

/// Why [`Registry::register`](crate::Registry::register) refused a definition.
///
/// Checks run in the contract's normative order and the first failure wins: `name_invalid`,
/// `run_invalid`, `budget_invalid`, `dep_spec_invalid`, `duplicate`, `io_unregistered`,
/// `io_duplicate`, then `budget_exhausted`. A refused registration changes nothing.
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
    /// The `depends_on` spec does not parse.
    DepSpecInvalid {
        /// The system's name.
        name: &'static str,
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
}

laige_diag::diagnostics! {
    const RegisterError in System;
    NameInvalid { %name, budget_raw } => warn name_invalid { budget_raw } |f| {
        if name.raw().is_empty() {
            write!(f, "a system has an empty name: give it a unique, non-empty name")
        } else {
            write!(
                f,
                "system name `{name}` cannot be named in a depends_on spec: use a name \
                 without commas and without leading or trailing whitespace"
            )
        }
    };
    RunInvalid { %name } => warn run_invalid { name }
        "system `{name}` has no run function: set one before registering it";
    BudgetInvalid { %name, budget_raw } => warn budget_invalid { name, budget_raw } |f| write!(
        f,
        "system `{name}` has budget {} ms (raw {budget_raw}): give it a positive budget, \
         e.g. `.budget_ms(1.0)`",
        f64::from(*budget_raw) / 65536.0
    );
    DepSpecInvalid { %name, %spec, error }
        => warn dep_spec_invalid { name, error = error.kind.name() }
        |f| write!(
            f,
            "system `{name}` has a malformed depends_on spec \"{spec}\": {}",
            error.display_quoting(error.token(spec.raw()).map(Text::name))
        );
    Duplicate { %name, existing } => warn duplicate { name, existing_system_id = existing.get() }
        "system `{name}` is already registered (as {existing}): give each system a unique name";
    IoUnregistered { %name, position } => warn io_unregistered { name }
        "system `{name}` declares access {position} to a component that is not registered: \
         register the component before the systems that use it";
    IoDuplicate { %name, component } => warn io_duplicate { name, component_id = component.get() }
        "system `{name}` declares component {component} twice: declare it once, as write if \
         the system writes it at all";
    IoTooMany { %name } => warn io_too_many { name }
        "system `{name}` declares more than {MAX_IO} component accesses: split it into smaller \
         systems";
    BudgetExhausted { %name, systems } => warn budget_exhausted { name, systems }
        "cannot register `{name}`: the registry already holds {systems} of at most \
         {MAX_SYSTEMS} systems; merge small systems";
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
