//! A system definition: what a user hands the registry.

use crate::{Budget, ComponentId, ComponentSet};

/// The most component accesses one system declares (contract `kMaxArchetypeComponents`).
pub const MAX_IO: usize = 32;

/// How a system touches a component (or a resource). There is no read-write access: a
/// system that reads and writes a component declares [`Access::Write`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Access {
    /// The system only reads the component. In the declarative front end a plain read may
    /// not share a phase with an unordered writer: say which value it wants.
    Read,
    /// The system may write the component (and read it).
    Write,
    /// A read that must see this tick's value: ordered after the same-phase writers.
    ReadFresh,
    /// A read of the value at the end of the previous tick, from versioned storage: it
    /// never conflicts with writers and needs no edge.
    ReadSnapshot,
    /// The system appends to an event queue (the component is the queue's id). Two emitters
    /// of one queue do not conflict: each appends to its own buffer, merged in schedule
    /// order. An emitter conflicts with the queue's readers, which see its events the same
    /// tick when ordered after it and the next tick when ordered before it.
    Emit,
}

impl Access {
    /// The declaration's name, as used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Access::Read => "reads",
            Access::Write => "writes",
            Access::ReadFresh => "reads_fresh",
            Access::ReadSnapshot => "reads_snapshot",
            Access::Emit => "emits",
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
    /// The component's type name, when the front end knows it (a typed declaration); errors
    /// name the type with it. A `&'static str`, so the list stays allocation-free.
    pub type_name: Option<&'static str>,
}

/// A fixed-capacity list of declared accesses, in declaration order. Never allocates.
// Not an `ArrayVec`: a `SystemDef` is a plain `Copy` value (copied on registration, as the
// contract's `DefStoredByValue` checks) built by `const fn`s, and an `ArrayVec` is neither
// `Copy` nor pushable in a `const fn`.
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
            type_name: None,
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
    #[inline]
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
    /// Declarative front end: the DAG (`""` for the layout's first) and the phase (`""` for
    /// the DAG's default) the system belongs to. The flat laige front end ignores both.
    pub placement: Placement,
    /// Comma-separated names of systems this one runs before (declarative front end).
    pub before: &'static str,
    /// Whether the system runs alone in its phase (declarative front end).
    pub exclusive: bool,
    /// Comma-separated names of systems this one runs after only where their data overlap
    /// (declarative front end): the sequential order puts it after them, but where the two
    /// touch disjoint tables at run time a parallel executor may run them at once.
    pub after_weak: &'static str,
    /// The components every table this system touches holds: its queries all require them.
    /// The World checks it at every query; executors use it to let systems that conflict by
    /// type but touch disjoint tables run at once. Empty means any table.
    pub matching: ComponentSet,
    /// Set when a front end could not resolve a `matching` component (never registered).
    pub matching_unresolved: bool,
}

/// Where a system sits in a declarative layout: its DAG and its phase, by name.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Placement {
    /// The DAG's name; `""` means the layout's first DAG.
    pub dag: &'static str,
    /// The phase's name; `""` means the DAG's default phase.
    pub phase: &'static str,
}

impl<R> SystemDef<R> {
    /// The same definition running `f(run)`: for a front end that wraps what a lower-level
    /// definition runs (the World wraps `fn` pointers into its own run type).
    pub fn map_run<S>(self, f: impl FnOnce(R) -> S) -> SystemDef<S> {
        SystemDef {
            name: self.name,
            run: self.run.map(f),
            budget: self.budget,
            depends_on: self.depends_on,
            io: self.io,
            placement: self.placement,
            before: self.before,
            exclusive: self.exclusive,
            after_weak: self.after_weak,
            matching: self.matching,
            matching_unresolved: self.matching_unresolved,
        }
    }

    /// A definition with no budget yet (registration requires one), no dependencies and
    /// no declared access.
    pub const fn new(name: &'static str, run: R) -> Self {
        Self {
            name,
            run: Some(run),
            budget: Budget::from_raw(0),
            depends_on: "",
            io: IoList::EMPTY,
            placement: Placement { dag: "", phase: "" },
            before: "",
            exclusive: false,
            after_weak: "",
            matching: ComponentSet::EMPTY,
            matching_unresolved: false,
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
            type_name: None,
        });
        self
    }

    /// Declares a write of `component`.
    pub const fn writes(mut self, component: ComponentId) -> Self {
        self.io.push(Io {
            component: Some(component),
            access: Access::Write,
            type_name: None,
        });
        self
    }

    /// Declares a read that must see this tick's writes.
    pub const fn reads_fresh(mut self, component: ComponentId) -> Self {
        self.io.push(Io {
            component: Some(component),
            access: Access::ReadFresh,
            type_name: None,
        });
        self
    }

    /// Declares a read of the previous tick's value of a versioned component.
    pub const fn reads_snapshot(mut self, component: ComponentId) -> Self {
        self.io.push(Io {
            component: Some(component),
            access: Access::ReadSnapshot,
            type_name: None,
        });
        self
    }

    /// Declares that the system appends to the event queue `queue` ([`Access::Emit`]).
    pub const fn emits(mut self, queue: ComponentId) -> Self {
        self.io.push(Io {
            component: Some(queue),
            access: Access::Emit,
            type_name: None,
        });
        self
    }

    /// Runs after the named systems: the declarative spelling of `depends_on`.
    pub const fn after(self, spec: &'static str) -> Self {
        self.depends_on(spec)
    }

    /// Runs before the named systems (comma separated).
    pub const fn before(mut self, spec: &'static str) -> Self {
        self.before = spec;
        self
    }

    /// Runs after the named systems where their data overlap; see [`SystemDef::after_weak`].
    pub const fn after_weak(mut self, spec: &'static str) -> Self {
        self.after_weak = spec;
        self
    }

    /// Declares that every table the system touches holds `component`.
    pub fn matching(mut self, component: ComponentId) -> Self {
        self.matching.insert(component);
        self
    }

    /// Puts the system in a DAG of the layout.
    pub const fn in_dag(mut self, dag: &'static str) -> Self {
        self.placement.dag = dag;
        self
    }

    /// Puts the system in a phase of its DAG.
    pub const fn in_phase(mut self, phase: &'static str) -> Self {
        self.placement.phase = phase;
        self
    }

    /// Makes the system run alone in its phase.
    pub const fn exclusive_phase(mut self) -> Self {
        self.exclusive = true;
        self
    }

    /// Declares an access in its raw form, for front ends that resolve types to ids.
    pub const fn io(mut self, io: Io) -> Self {
        self.io.push(io);
        self
    }
}
