//! The registry: validated system records, dense by id.

use std::borrow::Borrow;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use laige_depspec::{DepSpec, MAX_DEPENDENCIES, ParseError};
use laige_diag::Diagnostics;

use crate::accessors::Accessors;
use crate::names::NameIndex;
use crate::suggest::closest;
use crate::{
    Access, Budget, ComponentId, ComponentName, ComponentSet, IoList, MAX_SYSTEMS, Names,
    Placement, RegisterError, SystemDef, SystemId, UnknownSystem,
};

/// One registered system, as the registry keeps it.
///
/// Its `depends_on` names live in the registry ([`Registry::depends_on`]), not here: a
/// record stays about half the size, and registering and scheduling 256 systems copy and
/// scan that much less.
#[derive(Clone, Debug)]
pub struct SystemRecord {
    id: SystemId,
    name: &'static str,
    budget: Budget,
    spec: &'static str,
    deps: DepRange,
    reads: ComponentSet,
    writes: ComponentSet,
    fresh: ComponentSet,
    snapshot: ComponentSet,
    emits: ComponentSet,
    placement: Placement,
    before: &'static str,
    before_names: DepRange,
    exclusive: bool,
    after_weak: &'static str,
    after_weak_names: DepRange,
    matching: ComponentSet,
}

impl SystemRecord {
    /// The system's id.
    pub fn id(&self) -> SystemId {
        self.id
    }

    /// The registration name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The time budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The `depends_on` spec as written.
    pub fn depends_on_spec(&self) -> &'static str {
        self.spec
    }

    /// How many names the `depends_on` spec lists ([`Registry::depends_on`] has them).
    pub fn dependency_count(&self) -> usize {
        usize::from(self.deps.len)
    }

    /// The components the system reads as they are this tick: [`Access::Read`] and
    /// [`Access::ReadFresh`] (not snapshot reads, which see a frozen copy).
    pub fn reads(&self) -> &ComponentSet {
        &self.reads
    }

    /// The components declared [`Access::ReadFresh`] (a subset of [`Self::reads`]).
    pub fn reads_fresh(&self) -> &ComponentSet {
        &self.fresh
    }

    /// The components declared [`Access::ReadSnapshot`].
    pub fn reads_snapshot(&self) -> &ComponentSet {
        &self.snapshot
    }

    /// The DAG and phase the system declared (declarative front end).
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The systems this one runs before, by name (declarative front end), parsed again from
    /// the spec as written; [`Registry::before`] has them parsed at registration.
    #[inline]
    pub fn before(&self) -> DepSpec<'static> {
        parsed(self.before)
    }

    /// The systems this one runs after where their data overlap (declarative front end),
    /// parsed again from the spec as written; [`Registry::after_weak`] has them parsed.
    #[inline]
    pub fn after_weak(&self) -> DepSpec<'static> {
        parsed(self.after_weak)
    }

    /// The components every table this system touches holds; empty for any table.
    pub fn matching(&self) -> &ComponentSet {
        &self.matching
    }

    /// Whether the system runs alone in its phase.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// The components the system declared [`Access::Write`].
    pub fn writes(&self) -> &ComponentSet {
        &self.writes
    }

    /// The event queues the system declared [`Access::Emit`].
    pub fn emits(&self) -> &ComponentSet {
        &self.emits
    }

    /// What the system changes for its readers: the components it writes and the queues it
    /// emits into. Ordering rules (fresh reads, reads before writes) treat both alike; only
    /// the single-writer rule counts writes alone.
    pub fn produces(&self) -> ComponentSet {
        self.writes.union(&self.emits)
    }

    /// Every component the system declared, in any way.
    pub fn touches(&self) -> ComponentSet {
        self.reads
            .union(&self.writes)
            .union(&self.snapshot)
            .union(&self.emits)
    }

    /// Whether the system declared a read of `component`.
    pub fn declares_read(&self, component: ComponentId) -> bool {
        self.reads.contains(component)
    }

    /// Whether the system declared a write of `component`.
    pub fn declares_write(&self, component: ComponentId) -> bool {
        self.writes.contains(component)
    }
}

/// Registered systems, dense by [`SystemId`], plus the set of component ids the front end
/// has registered.
///
/// Capacity for [`MAX_SYSTEMS`] records is reserved at creation, so registering never
/// allocates.
#[derive(Debug)]
pub struct Registry<R> {
    records: Vec<SystemRecord>,
    /// Every record's parsed `depends_on`, `after_weak` and `before` names, back to back
    /// in registration order; a record's [`DepRange`]s say where its lists are.
    dep_names: Vec<&'static str>,
    // Run payloads live apart from the records, densely, so a tick's dispatch loop walks
    // a few cache lines instead of one large record per system.
    runs: Vec<R>,
    names: NameIndex,
    components: ComponentSet,
    versioned: ComponentSet,
    shared: Names,
    /// Built on first use, for the schedule and the plan alike; dropped on registration.
    accessors: OnceLock<Accessors>,
    diag: Diagnostics,
    identity: u64,
}

impl<R> Default for Registry<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> Registry<R> {
    /// An empty registry with its own diagnostics (1 s rate window).
    pub fn new() -> Self {
        Self::with_diagnostics(Diagnostics::default())
    }

    /// An empty registry reporting through `diag`.
    pub fn with_diagnostics(diag: Diagnostics) -> Self {
        // Identity is never part of an order or a result; it only tells two registries apart.
        static NEXT_IDENTITY: AtomicU64 = AtomicU64::new(1);
        Self {
            records: Vec::with_capacity(MAX_SYSTEMS),
            // Room for three full specs per system: registering never allocates.
            dep_names: Vec::with_capacity(3 * MAX_SYSTEMS * MAX_DEPENDENCIES),
            runs: Vec::with_capacity(MAX_SYSTEMS),
            names: NameIndex::new(),
            components: ComponentSet::EMPTY,
            versioned: ComponentSet::EMPTY,
            shared: Names::new(),
            accessors: OnceLock::new(),
            diag,
            identity: NEXT_IDENTITY.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The diagnostics this registry, and everything scheduled from it, reports through.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diag
    }

    /// A process-unique number for this registry, so a schedule from another registry is
    /// recognised as stale.
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// Records that `component` exists, so systems may declare access to it.
    pub fn register_component(&mut self, component: ComponentId) {
        self.components.insert(component);
    }

    /// Records a component with a name for messages (e.g. `Position`) and whether it keeps
    /// the previous tick's value for [`Access::ReadSnapshot`].
    pub fn register_component_info(
        &mut self,
        component: ComponentId,
        name: &'static str,
        versioned: bool,
    ) {
        self.components.insert(component);
        self.shared.set_component(component, name);
        if versioned {
            self.versioned.insert(component);
        } else {
            self.versioned.remove(component);
        }
    }

    /// The components that keep the previous tick's value.
    pub fn versioned_components(&self) -> &ComponentSet {
        &self.versioned
    }

    /// How messages name `component`: its registered name, or `component <id>`.
    pub fn component_name(&self, component: ComponentId) -> ComponentName {
        self.shared.component(component)
    }

    /// The names of `systems`, shared with whatever reports them ([`Names`]): their slots
    /// are filled, then the table is handed out (an `Arc` clone, no allocation).
    ///
    /// # Panics
    ///
    /// When a system is not registered here.
    pub fn share_names(&self, systems: impl IntoIterator<Item = SystemId>) -> Names {
        let records = &self.records;
        self.shared
            .share_systems(systems.into_iter().map(|id| (id, records[id.index()].name)));
        self.shared.clone()
    }

    /// Who declares what, per component ([`Accessors`]), for the registered systems:
    /// built on the first call after a registration, then shared.
    pub fn accessors(&self) -> &Accessors {
        self.accessors.get_or_init(|| Accessors::of(self))
    }

    /// The component ids systems may declare.
    pub fn components(&self) -> &ComponentSet {
        &self.components
    }

    /// Validates `def` and stores it under the next id.
    ///
    /// Takes a definition by value (`register(SystemDef::new(..)...)`) or by reference
    /// (`register(&def)`, for definitions kept in a table and registered again, say after
    /// a reload); a reference spares copying the 272-byte definition.
    ///
    /// # Errors
    ///
    /// The first failing check of the contract's order, as a [`RegisterError`]; its event
    /// is emitted (rate limited) too. A failed registration changes nothing.
    pub fn register(&mut self, def: impl Borrow<SystemDef<R>>) -> Result<SystemId, RegisterError>
    where
        R: Clone,
    {
        let result = self.try_register(def.borrow());
        if let Err(err) = &result {
            self.diag.report(err.key(), || err.emit());
        }
        result
    }

    /// Runs every check of the contract's order and, once all pass, stores the record.
    ///
    /// One function, checks and commit: handing the checked parts (access sets, parsed
    /// spec) from a checking function to the commit moved them through a `Result` and
    /// several stack copies on every registration. The parsed spec never leaves this frame.
    fn try_register(&mut self, def: &SystemDef<R>) -> Result<SystemId, RegisterError>
    where
        R: Clone,
    {
        let name = def.name;
        // A name can be registered when a `depends_on` spec can name it.
        if !laige_depspec::is_token(name) {
            return Err(RegisterError::NameInvalid {
                name,
                budget_raw: def.budget.raw(),
            });
        }
        let Some(run) = &def.run else {
            return Err(RegisterError::RunInvalid { name });
        };
        if !def.budget.is_valid() {
            return Err(RegisterError::BudgetInvalid {
                name,
                budget_raw: def.budget.raw(),
                not_a_number: def.budget.is_nan(),
            });
        }
        let spec_error = |method, spec, error| RegisterError::DepSpecInvalid {
            name,
            method,
            spec,
            error,
        };
        // An empty spec, which lists nothing, is ruled out as a string first: a parse builds
        // and returns a 264-byte value. Otherwise read by reference (`names_in`): moving the
        // parse out of its `Result` costs a copy and, worse, stalls on reading it back.
        let parsed;
        let deps: &[&'static str] = if def.depends_on.is_empty() {
            &[]
        } else {
            parsed = DepSpec::parse(def.depends_on);
            names_in(&parsed).map_err(|error| spec_error("after", def.depends_on, error))?
        };
        // The declarative specs' names are kept too, so scheduling a layout does not parse
        // them again.
        let (weak_parse, before_parse);
        let after_weak = if def.after_weak.is_empty() {
            &[][..]
        } else {
            weak_parse = DepSpec::parse(def.after_weak);
            names_in(&weak_parse)
                .map_err(|error| spec_error("after_weak", def.after_weak, error))?
        };
        let before = if def.before.is_empty() {
            &[][..]
        } else {
            before_parse = DepSpec::parse(def.before);
            names_in(&before_parse).map_err(|error| spec_error("before", def.before, error))?
        };
        let records = &self.records;
        let name_slot = match self
            .names
            .find_or_slot(name, |position| records[position].name)
        {
            Ok(position) => {
                let existing = records[position].id;
                return Err(RegisterError::Duplicate { name, existing });
            }
            Err(free) => free,
        };
        let mut access = AccessSets::default();
        self.resolve_io(name, &def.io, &mut access)?;
        let unknown_table = def.matching.difference(&self.components);
        if def.matching_unresolved || !unknown_table.is_empty() {
            let position = def.io.as_slice().len();
            return Err(RegisterError::IoUnregistered {
                name,
                position,
                component: None,
                access: Access::Read,
            });
        }
        if self.records.len() >= MAX_SYSTEMS {
            return Err(RegisterError::BudgetExhausted {
                name,
                systems: self.records.len(),
            });
        }
        // Every check passed: from here on, nothing fails.
        let deps_range = self.keep_names(deps);
        let after_weak_names = self.keep_names(after_weak);
        let before_names = self.keep_names(before);
        let id = SystemId::from_index(self.records.len());
        self.names.fill(name_slot, self.records.len());
        self.records.push(SystemRecord {
            id,
            name,
            budget: def.budget,
            spec: def.depends_on,
            deps: deps_range,
            reads: access.reads,
            writes: access.writes,
            fresh: access.fresh,
            snapshot: access.snapshot,
            emits: access.emits,
            placement: def.placement,
            before: def.before,
            before_names,
            exclusive: def.exclusive,
            after_weak: def.after_weak,
            after_weak_names,
            matching: def.matching,
        });
        self.runs.push(run.clone());
        self.accessors = OnceLock::new();
        Ok(id)
    }

    /// Sorts the declared accesses into `sets` (empty), which the caller owns: returning
    /// the 160 bytes of sets in a `Result` cost copies through the stack.
    fn resolve_io(
        &self,
        name: &'static str,
        io: &IoList,
        sets: &mut AccessSets,
    ) -> Result<(), RegisterError> {
        let mut declared = ComponentSet::EMPTY;
        for (position, it) in io.as_slice().iter().enumerate() {
            let component = match it.component {
                Some(c) if self.components.contains(c) => c,
                _ => {
                    return Err(RegisterError::IoUnregistered {
                        name,
                        position,
                        component: it.type_name,
                        access: it.access,
                    });
                }
            };
            if !declared.insert(component) {
                return Err(RegisterError::IoDuplicate { name, component });
            }
            let set = match it.access {
                Access::Read => &mut sets.reads,
                Access::Write => &mut sets.writes,
                Access::ReadFresh => {
                    sets.fresh.insert(component);
                    &mut sets.reads
                }
                Access::ReadSnapshot => &mut sets.snapshot,
                Access::Emit => &mut sets.emits,
            };
            set.insert(component);
        }
        if io.overflowed() {
            return Err(RegisterError::IoTooMany { name });
        }
        Ok(())
    }

    /// How many systems are registered; also the highest id.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no system is registered.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The record of `id`.
    ///
    /// # Errors
    ///
    /// [`UnknownSystem`] when `id` is past the registered systems.
    pub fn get(&self, id: SystemId) -> Result<&SystemRecord, UnknownSystem> {
        self.records.get(id.index()).ok_or(UnknownSystem {
            id: id.get(),
            systems: self.records.len(),
        })
    }

    /// The record of a raw id value, 0 included (which names no system).
    ///
    /// # Errors
    ///
    /// [`UnknownSystem`] for 0 or an id past the registered systems.
    pub fn get_raw(&self, id: u32) -> Result<&SystemRecord, UnknownSystem> {
        let unknown = UnknownSystem {
            id,
            systems: self.records.len(),
        };
        SystemId::new(id).ok_or(unknown).and_then(|id| self.get(id))
    }

    /// The records in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &SystemRecord> + '_ {
        self.records.iter()
    }

    /// The records as a slice, indexed by [`SystemId::index`].
    pub fn records(&self) -> &[SystemRecord] {
        &self.records
    }

    /// What system `id` runs.
    ///
    /// # Errors
    ///
    /// [`UnknownSystem`] when `id` is past the registered systems.
    pub fn run(&self, id: SystemId) -> Result<&R, UnknownSystem> {
        self.runs.get(id.index()).ok_or(UnknownSystem {
            id: id.get(),
            systems: self.runs.len(),
        })
    }

    /// The run payloads, indexed by [`SystemId::index`].
    pub fn runs(&self) -> &[R] {
        &self.runs
    }

    /// The parsed `depends_on` names of system `id`, in spec order; empty for an id this
    /// registry does not have (see [`Registry::get`]).
    pub fn depends_on(&self, id: SystemId) -> &[&'static str] {
        self.names_of(id, |record| record.deps)
    }

    /// The parsed `after_weak` names of system `id`, in spec order (declarative front end);
    /// empty for an id this registry does not have.
    pub fn after_weak(&self, id: SystemId) -> &[&'static str] {
        self.names_of(id, |record| record.after_weak_names)
    }

    /// The parsed `before` names of system `id`, in spec order (declarative front end);
    /// empty for an id this registry does not have.
    pub fn before(&self, id: SystemId) -> &[&'static str] {
        self.names_of(id, |record| record.before_names)
    }

    fn names_of(&self, id: SystemId, range: impl Fn(&SystemRecord) -> DepRange) -> &[&'static str] {
        let Some(record) = self.records.get(id.index()) else {
            return &[];
        };
        let range = range(record);
        let start = usize::from(range.start);
        &self.dep_names[start..start + usize::from(range.len)]
    }

    /// Appends `names` to the arena (reserved at creation for every system's three specs).
    fn keep_names(&mut self, names: &[&'static str]) -> DepRange {
        let range = DepRange {
            start: self.dep_names.len() as u16,
            len: names.len() as u8,
        };
        self.dep_names.extend_from_slice(names);
        range
    }

    /// The id of the system named exactly `name` (case-sensitive).
    pub fn find(&self, name: &str) -> Option<SystemId> {
        let records = &self.records;
        self.names
            .find(name, |position| records[position].name)
            .map(|position| records[position].id)
    }

    /// The registered name closest to `name`, when one is close enough to be a likely typo.
    pub fn closest_name(&self, name: &str) -> Option<&'static str> {
        closest(name, self.records.iter().map(|it| it.name))
    }
}

/// Where one of a record's name lists sits in [`Registry::dep_names`]. 256 systems of three
/// lists of at most 16 names fit in `u16`.
#[derive(Clone, Copy, Debug)]
struct DepRange {
    start: u16,
    len: u8,
}

#[derive(Default)]
struct AccessSets {
    reads: ComponentSet,
    writes: ComponentSet,
    fresh: ComponentSet,
    snapshot: ComponentSet,
    emits: ComponentSet,
}

/// The names of a parse, by reference: moving the 264-byte spec out of its `Result` costs
/// a copy.
fn names_in<'a>(
    parse: &'a Result<DepSpec<'static>, ParseError>,
) -> Result<&'a [&'static str], ParseError> {
    parse
        .as_ref()
        .map(DepSpec::as_slice)
        .map_err(|error| *error)
}

/// A spec that was validated at registration.
///
/// An empty spec, which lists nothing, is ruled out as a string first, inline: a caller
/// that only asks `is_empty` (the flat front end's `needs_layout`, twice per record) then
/// neither calls the parser nor builds the 264-byte value.
#[inline]
fn parsed(spec: &'static str) -> DepSpec<'static> {
    if spec.is_empty() {
        return DepSpec::EMPTY;
    }
    DepSpec::parse(spec).unwrap_or_default()
}
