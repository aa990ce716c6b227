//! A system definition: what a user hands the registry.

use crate::{Budget, ComponentId};

/// The most component accesses one system declares (contract `kMaxArchetypeComponents`).
pub const MAX_IO: usize = 32;

/// How a system touches a component. There is no read-write access: a system that reads
/// and writes a component declares [`Access::Write`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Access {
    /// The system only reads the component.
    Read,
    /// The system may write the component (and read it).
    Write,
}

impl Access {
    /// `read` or `write`, as used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// One declared component access. `component` is `None` when the front end could not
/// resolve the component (a type never registered); registration then fails with
/// `io_unregistered`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Io {
    /// The component, if it is known.
    pub component: Option<ComponentId>,
    /// How the system touches it.
    pub access: Access,
}

/// A fixed-capacity list of declared accesses, in declaration order. Never allocates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IoList {
    items: [Io; MAX_IO],
    len: u8,
    overflowed: bool,
}

impl IoList {
    /// The empty list.
    pub const EMPTY: Self = Self {
        items: [Io {
            component: None,
            access: Access::Read,
        }; MAX_IO],
        len: 0,
        overflowed: false,
    };

    /// Appends an access; past [`MAX_IO`] entries the list remembers that it overflowed,
    /// and registration reports `io_too_many`.
    pub const fn push(&mut self, io: Io) {
        if (self.len as usize) < MAX_IO {
            self.items[self.len as usize] = io;
            self.len += 1;
        } else {
            self.overflowed = true;
        }
    }

    /// The declared accesses, in order.
    pub fn as_slice(&self) -> &[Io] {
        &self.items[..self.len as usize]
    }

    /// Whether more than [`MAX_IO`] accesses were pushed.
    pub const fn overflowed(&self) -> bool {
        self.overflowed
    }
}

impl Default for IoList {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// Everything the registry needs to know about one system.
///
/// `R` is whatever the front end runs: a plain `fn` pointer taking the world's context,
/// or a test harness's own function type. The registry stores it and never calls it.
///
/// ```
/// use laige_registry::{Budget, ComponentId, SystemDef};
///
/// fn clamp(_: &mut ()) {}
/// let vel = ComponentId::new(2).unwrap();
/// let def = SystemDef::new("Clamp", clamp as fn(&mut ()))
///     .budget(Budget::from_millis(1))
///     .depends_on("Movement")
///     .writes(vel);
/// assert_eq!(def.depends_on, "Movement");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SystemDef<R> {
    /// Unique registration name; other systems name it in their `depends_on`.
    pub name: &'static str,
    /// What runs; `None` models a definition whose function is missing (`run_invalid`).
    pub run: Option<R>,
    /// The time budget; must be strictly positive.
    pub budget: Budget,
    /// Comma-separated names of the systems this one runs after; `""` for none.
    pub depends_on: &'static str,
    /// The declared component accesses.
    pub io: IoList,
}

impl<R> SystemDef<R> {
    /// A definition with no budget yet (registration requires one), no dependencies and
    /// no declared access.
    pub const fn new(name: &'static str, run: R) -> Self {
        Self {
            name,
            run: Some(run),
            budget: Budget::from_raw(0),
            depends_on: "",
            io: IoList::EMPTY,
        }
    }

    /// Sets the time budget.
    pub const fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets the time budget in milliseconds.
    pub const fn budget_ms(self, ms: f32) -> Self {
        self.budget(Budget::from_millis_f32(ms))
    }

    /// Sets the `depends_on` spec: names of systems to run after, comma separated.
    pub const fn depends_on(mut self, spec: &'static str) -> Self {
        self.depends_on = spec;
        self
    }

    /// Declares a read of `component`.
    pub const fn reads(mut self, component: ComponentId) -> Self {
        self.io.push(Io {
            component: Some(component),
            access: Access::Read,
        });
        self
    }

    /// Declares a write of `component`.
    pub const fn writes(mut self, component: ComponentId) -> Self {
        self.io.push(Io {
            component: Some(component),
            access: Access::Write,
        });
        self
    }

    /// Declares an access in its raw form, for front ends that resolve types to ids.
    pub const fn io(mut self, io: Io) -> Self {
        self.io.push(io);
        self
    }
}
