//! Dense ids: systems and components are numbered from 1; 0 is never valid.

use std::fmt;
use std::num::{NonZeroU16, NonZeroU32};

/// The most systems one registry holds (contract `kMaxSystems`).
pub const MAX_SYSTEMS: usize = 256;

/// The most component types one world registers (contract `kMaxComponentTypes`).
pub const MAX_COMPONENTS: usize = 256;

/// A system's id: dense from 1 in registration order. 0 is never a valid id, so
/// `Option<SystemId>` costs nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemId(NonZeroU32);

impl SystemId {
    /// The id with value `value`, or `None` for 0.
    pub const fn new(value: u32) -> Option<Self> {
        match NonZeroU32::new(value) {
            Some(it) => Some(Self(it)),
            None => None,
        }
    }

    /// The id of the system at 0-based registration position `index`.
    #[inline]
    pub(crate) fn from_index(index: usize) -> Self {
        let value = u32::try_from(index + 1).expect("system index is bounded by MAX_SYSTEMS");
        Self(NonZeroU32::new(value).expect("index + 1 is never 0"))
    }

    /// The id's value, 1-based.
    pub const fn get(self) -> u32 {
        self.0.get()
    }

    /// The 0-based registration position, for dense tables indexed by system.
    pub const fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

impl fmt::Debug for SystemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SystemId({})", self.0)
    }
}

impl fmt::Display for SystemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A component type's id: dense from 1 in component registration order, at most
/// [`MAX_COMPONENTS`]. The registry sees only these ids, never the types behind them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(NonZeroU16);

impl ComponentId {
    /// The id with value `value`, or `None` when `value` is 0 or above [`MAX_COMPONENTS`].
    pub const fn new(value: u16) -> Option<Self> {
        if value as usize > MAX_COMPONENTS {
            return None;
        }
        match NonZeroU16::new(value) {
            Some(it) => Some(Self(it)),
            None => None,
        }
    }

    /// The id's value, 1-based.
    pub const fn get(self) -> u16 {
        self.0.get()
    }

    /// The 0-based position, for dense tables indexed by component.
    pub const fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// The id at 0-based position `index`, or `None` past [`MAX_COMPONENTS`].
    #[inline]
    pub fn from_index(index: usize) -> Option<Self> {
        u16::try_from(index + 1).ok().and_then(Self::new)
    }
}

impl fmt::Debug for ComponentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ComponentId({})", self.0)
    }
}

impl fmt::Display for ComponentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
