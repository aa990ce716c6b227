//! How reports name a system.

use std::fmt;

use laige_diag::Text;
use laige_registry::SystemId;

/// A system as reports name it: id and registration name.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SystemRef {
    /// The system's id.
    pub id: SystemId,
    /// The system's registration name.
    pub name: &'static str,
}

impl SystemRef {
    /// The name as messages show it: escaped and bounded ([`Text`]), without backticks.
    pub fn escaped_name(&self) -> Text<&'static str> {
        Text::name(self.name)
    }
}

impl fmt::Display for SystemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.escaped_name())
    }
}
