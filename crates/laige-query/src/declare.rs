//! What a typed system's parameters need, collected once at registration: checked against
//! each other here, then merged with the builder's declarations into the registry's list.

use std::any::{Any, type_name};

use laige_registry::{Access, ComponentId, ComponentSet, Io, IoList, RegisterError};

use laige_storage::Storage;

/// The components and resources one typed parameter reaches, recorded at its registration:
/// its view ([`ParamViews::claim`](crate::ParamViews::claim)) reaches nothing else, and no two
/// parameters' claims of one run may overlap with a write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Claim {
    reads: ComponentSet,
    writes: ComponentSet,
}

impl Claim {
    /// Whether the claim covers a read (`write` false) or a write of `component`.
    #[inline]
    pub(crate) fn allows(&self, component: ComponentId, write: bool) -> bool {
        self.writes.contains(component) || (!write && self.reads.contains(component))
    }

    /// The first component both claims reach with a write in either.
    #[inline]
    pub(crate) fn conflict(&self, other: &Claim) -> Option<ComponentId> {
        let written = self.writes.intersection(&other.reads.union(&other.writes));
        let read = self.reads.intersection(&other.writes);
        written.union(&read).iter().next()
    }

    /// The first component this claim reaches that `limit` does not allow.
    #[inline]
    pub(crate) fn outside(&self, limit: &Claim) -> Option<ComponentId> {
        let writes = self.writes.difference(&limit.writes);
        let reads = self.reads.difference(&limit.reads.union(&limit.writes));
        writes.union(&reads).iter().next()
    }

    /// Both claims together.
    #[inline]
    pub(crate) fn merge(&mut self, other: &Claim) {
        self.reads = self.reads.union(&other.reads);
        self.writes = self.writes.union(&other.writes);
    }
}

/// What one parameter needs of one component or resource.
#[derive(Clone, Copy, Debug)]
struct Need {
    /// `None` for a type the world never registered: the registry refuses it as
    /// `io_unregistered`, at this entry's position.
    component: Option<ComponentId>,
    type_name: &'static str,
    access: Access,
    param: &'static str,
    /// Which parameter (or element of a tuple of parameters), counted from 0.
    param_index: u16,
}

/// Collects what a typed system's parameters need while they set up their state.
///
/// Handed to a typed system parameter's `init`; it records every access with the
/// parameter that needs it, and keeps the first conflict it sees, which
/// `World::system`'s `register` reports.
#[doc(hidden)]
#[derive(Debug)]
pub struct ParamInit<'w> {
    storage: &'w mut Storage,
    system: &'static str,
    /// The parameter being set up, for messages.
    param: &'static str,
    /// How many parameters have been set up so far.
    params: u16,
    needs: Vec<Need>,
    /// The exclusive parts of a run claimed so far (the type a holder reaches, and the
    /// parameter that holds it).
    parts: Vec<(&'static str, &'static str)>,
    /// The resources a plain `Res`/`ResMut` needs (id and type name), which the world must
    /// hold when the schedule is built.
    required: Vec<(ComponentId, &'static str)>,
    error: Option<RegisterError>,
    /// What the parameter being set up reaches, for its view.
    claim: Claim,
    /// The system's own state kept outside its function (a `Local`'s value), in parameter
    /// order; the tick layer knows the boxed type.
    locals: Vec<Box<dyn Any + Send>>,
}

impl<'w> ParamInit<'w> {
    /// Collects the needs of system `system`'s parameters. The storage is mutable because
    /// a resource parameter registers its type as a resource when the world has not seen it
    /// yet, so its access can be declared (and ordered) before the value is inserted.
    #[doc(hidden)]
    pub fn new(storage: &'w mut Storage, system: &'static str) -> Self {
        Self {
            storage,
            system,
            param: "",
            params: 0,
            needs: Vec::new(),
            parts: Vec::new(),
            required: Vec::new(),
            error: None,
            claim: Claim::default(),
            locals: Vec::new(),
        }
    }

    /// Keeps `value`, a parameter's own state, with the system (in parameter order), where
    /// the tick layer can save and restore it; the run hands the values back in that order.
    /// Returns its position among the values kept so far, which the run hands back under.
    pub fn local(&mut self, value: Box<dyn Any + Send>) -> usize {
        self.locals.push(value);
        self.locals.len() - 1
    }

    /// Takes the values [`ParamInit::local`] kept so far, for a holder that keeps its own (a
    /// run condition's).
    pub fn take_locals(&mut self) -> Vec<Box<dyn Any + Send>> {
        std::mem::take(&mut self.locals)
    }

    /// Starts setting up the parameter named `param`, attributing what it needs to it (a
    /// tuple of parameters attributes each element's needs to that element); returns the
    /// enclosing parameter, for [`ParamInit::leave_param`].
    #[doc(hidden)]
    pub fn enter_param(&mut self, param: &'static str) -> &'static str {
        self.params += 1;
        self.claim = Claim::default();
        std::mem::replace(&mut self.param, param)
    }

    /// Ends setting up a parameter: `outer` is what [`ParamInit::enter_param`] returned.
    #[doc(hidden)]
    pub fn leave_param(&mut self, outer: &'static str) {
        self.param = outer;
    }

    /// Records that the current parameter reaches component `T` as `access` (a query
    /// element). A resource type is refused, and a snapshot read needs a versioned component.
    #[doc(hidden)]
    pub fn component<T: 'static>(&mut self, access: Access) {
        let component = self.storage.components().id_of::<T>();
        if let Some(id) = component {
            let info = self.storage.components().get(id);
            if info.is_resource() {
                return self.kind::<T>("a component");
            }
            if access == Access::ReadSnapshot && !info.is_versioned() {
                return self.kind::<T>("a versioned component");
            }
        }
        self.need::<T>(component, access);
    }

    /// Checks a presence filter on `T`, which needs no access: a resource type is refused.
    #[doc(hidden)]
    pub fn filter<T: 'static>(&mut self) {
        if let Some(id) = self.storage.components().id_of::<T>()
            && self.storage.components().is_resource(id)
        {
            self.kind::<T>("a component");
        }
    }

    /// Records a change filter on `T` (`filter`: `Changed`, `Added`): a live read of `T`,
    /// unless the parameter already reaches it (`Query<&mut T, Changed<T>>` reads its ticks
    /// under the write). `T` must be a tracked component.
    pub(crate) fn change_filter<T: 'static>(&mut self, filter: &'static str) {
        let component = self.storage.components().id_of::<T>();
        if let Some(id) = component {
            if self.storage.components().is_resource(id) {
                return self.kind::<T>("a component");
            }
            if self.claim.allows(id, false) {
                self.require_tracked::<T>(filter);
                return;
            }
        }
        self.need::<T>(component, Access::Read);
        self.require_tracked::<T>(filter);
    }

    /// Refuses an untracked component `T` for `filter` (`Changed`, `Added`, `Ref`).
    pub(crate) fn require_tracked<T: 'static>(&mut self, filter: &'static str) {
        let Some(id) = self.storage.components().id_of::<T>() else {
            return;
        };
        let info = self.storage.components().get(id);
        if !info.is_resource() && !info.is_tracked() {
            let err = RegisterError::Untracked {
                name: self.system,
                param: self.param,
                component: type_name::<T>(),
                filter,
            };
            self.fail(err);
        }
    }

    /// Records that the current parameter reaches resource `T` as `access`, and returns
    /// its id; a type the world has not seen yet is registered as a resource (without a
    /// value), so the access is declared and ordered like any other. `required`: the system
    /// cannot run without the value (a plain `Res`/`ResMut`, not an `Option` of one), so the
    /// world must hold it when the schedule is built. A component type is refused.
    #[doc(hidden)]
    pub fn resource<T: Send + Sync + 'static>(
        &mut self,
        access: Access,
        required: bool,
    ) -> Option<ComponentId> {
        let component = match self.storage.components().id_of::<T>() {
            Some(id) if !self.storage.components().is_resource(id) => {
                self.kind::<T>("a resource");
                return None;
            }
            Some(id) => Some(id),
            // Full: left unresolved, which the registry reports as `io_unregistered`.
            None => self.storage.register_resource::<T>().ok(),
        };
        self.need::<T>(component, access);
        if let (Some(id), true) = (component, required) {
            self.required.push((id, type_name::<T>()));
        }
        component
    }

    /// Records that the current parameter reaches the resource of type `T` named `label` as
    /// `access`, and returns its id. Unlike a plain resource, the name must be known already
    /// (inserted with `World::insert_named_resource`): an unknown name is
    /// [`RegisterError::ResourceNameUnknown`], with the closest name of a `T` as a suggestion.
    pub fn named_resource<T: Send + Sync + 'static>(
        &mut self,
        label: &'static str,
        access: Access,
        required: bool,
    ) -> Option<ComponentId> {
        let components = self.storage.components();
        let Some(id) = components.named_id::<T>(label) else {
            let err = RegisterError::ResourceNameUnknown {
                name: self.system,
                resource: type_name::<T>(),
                given: label,
                suggestion: laige_registry::closest_name(label, components.names_of::<T>()),
            };
            self.fail(err);
            return None;
        };
        let display = components.get(id).name();
        self.need_as(Some(id), access, display);
        if required {
            self.required.push((id, display));
        }
        Some(id)
    }

    /// Records that the current parameter reaches the event queue stored as resource `Q` (of
    /// events named `event`) as `access`: [`Access::Emit`] for a writer, a read for a
    /// reader. The queue must be registered already; otherwise registration fails with
    /// [`RegisterError::EventsUnregistered`].
    pub fn event_queue<Q: 'static>(
        &mut self,
        event: &'static str,
        access: Access,
    ) -> Option<ComponentId> {
        let components = self.storage.components();
        let Some(id) = components
            .id_of::<Q>()
            .filter(|&id| components.is_resource(id))
        else {
            let err = RegisterError::EventsUnregistered {
                name: self.system,
                event,
                access,
            };
            self.fail(err);
            return None;
        };
        self.need::<Q>(Some(id), access);
        Some(id)
    }

    /// Records that the current parameter holds `part`, a part of the run that belongs to the
    /// system rather than to the storage (named by the type a holder reaches); a second
    /// holder is a conflict.
    #[doc(hidden)]
    pub fn part(&mut self, part: &'static str) {
        match self.parts.iter().find(|(held, _)| *held == part) {
            Some(&(_, first)) => {
                let err = RegisterError::ParamConflict {
                    name: self.system,
                    component: part,
                    first,
                    first_access: Access::Write,
                    second: self.param,
                    second_access: Access::Write,
                    within_one: false,
                };
                self.fail(err);
            }
            None => self.parts.push((part, self.param)),
        }
    }

    /// What the parameter being set up has recorded so far (a query's elements, a resource),
    /// for the view it is fetched with; reading it leaves the record empty.
    pub fn take_claim(&mut self) -> Claim {
        std::mem::take(&mut self.claim)
    }

    fn kind<T>(&mut self, expected: &'static str) {
        let err = RegisterError::ParamKind {
            name: self.system,
            param: self.param,
            component: type_name::<T>(),
            expected,
        };
        self.fail(err);
    }

    fn fail(&mut self, err: RegisterError) {
        self.error.get_or_insert(err);
    }

    /// Adds a need, merged with an earlier one on the same component: reads merge (a fresh
    /// read wins over a plain one); a write beside anything else, or a live read beside a
    /// snapshot read, is a conflict.
    fn need<T>(&mut self, component: Option<ComponentId>, access: Access) {
        self.need_as(component, access, type_name::<T>());
    }

    /// [`ParamInit::need`] of a need named `type_name` in messages.
    fn need_as(&mut self, component: Option<ComponentId>, access: Access, type_name: &'static str) {
        if let Some(id) = component {
            match access {
                // Two holders of one queue's writer (or a writer and a reader) would lock it
                // twice in one run: claimed as a write, so registration refuses them.
                Access::Write | Access::Emit => self.claim.writes.insert(id),
                Access::Read | Access::ReadFresh => self.claim.reads.insert(id),
                // A snapshot read reaches only the frozen copy, which no view writes.
                Access::ReadSnapshot => false,
            };
        }
        let need = Need {
            component,
            type_name,
            access,
            param: self.param,
            param_index: self.params,
        };
        let earlier =
            component.and_then(|id| self.needs.iter_mut().find(|it| it.component == Some(id)));
        let Some(earlier) = earlier else {
            self.needs.push(need);
            return;
        };
        match merged(earlier.access, access) {
            Some(access) => earlier.access = access,
            None => {
                let err = RegisterError::ParamConflict {
                    name: self.system,
                    component: need.type_name,
                    first: earlier.param,
                    first_access: earlier.access,
                    second: need.param,
                    second_access: access,
                    within_one: earlier.param_index == need.param_index,
                };
                self.fail(err);
            }
        }
    }

    /// What was collected, without the borrow of the world.
    #[doc(hidden)]
    pub fn into_needs(self) -> ParamNeeds {
        ParamNeeds {
            system: self.system,
            needs: self.needs,
            parts: self.parts,
            required: self.required,
            error: self.error,
            locals: self.locals,
        }
    }
}

/// What a typed system's parameters need, collected by [`ParamInit`], kept until the
/// builder's declarations are final.
#[derive(Debug)]
#[doc(hidden)]
pub struct ParamNeeds {
    system: &'static str,
    needs: Vec<Need>,
    /// The parts of a run the parameters hold (type, parameter).
    parts: Vec<(&'static str, &'static str)>,
    required: Vec<(ComponentId, &'static str)>,
    error: Option<RegisterError>,
    locals: Vec<Box<dyn Any + Send>>,
}

impl ParamNeeds {
    /// The parameters' own state that [`ParamInit::local`] kept, in parameter order.
    pub fn take_locals(&mut self) -> Vec<Box<dyn Any + Send>> {
        std::mem::take(&mut self.locals)
    }

    /// The resources the system cannot run without (id and type name), in parameter order;
    /// taken before [`ParamNeeds::finish`].
    pub fn take_required(&mut self) -> Vec<(ComponentId, &'static str)> {
        std::mem::take(&mut self.required)
    }

    /// The condition check: [`RegisterError::ConditionWrites`] for the first need that
    /// writes, then the first part of the run held (the command buffer, the PRNG), else the
    /// first error the parameters had.
    pub fn read_only(&self) -> Result<(), RegisterError> {
        let write = self.needs.iter().find(|it| it.access == Access::Write);
        let found = write
            .map(|it| (it.param, it.type_name, false))
            .or_else(|| self.parts.first().map(|&(part, param)| (param, part, true)));
        if let Some((param, component, holds_part)) = found {
            return Err(RegisterError::ConditionWrites {
                name: self.system,
                param,
                component,
                holds_part,
            });
        }
        match self.error {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The system's access list: what the parameters need, each component once in the
    /// order first needed, then the builder's `declared` list as written (the registry
    /// checks that one as for any system).
    ///
    /// # Errors
    ///
    /// The first conflict between parameters, then the first declaration that contradicts
    /// a parameter ([`RegisterError::AccessContradicts`]).
    #[doc(hidden)]
    pub fn finish(self, declared: &IoList) -> Result<IoList, RegisterError> {
        if let Some(err) = self.error {
            return Err(err);
        }
        let mut io = IoList::EMPTY;
        for need in &self.needs {
            let explicit = need.component.and_then(|id| {
                declared
                    .as_slice()
                    .iter()
                    .find(|it| it.component == Some(id))
            });
            match explicit {
                Some(it) if !covers(it.access, need.access) => {
                    return Err(RegisterError::AccessContradicts {
                        name: self.system,
                        component: need.type_name,
                        declared: it.access,
                        param: need.param,
                        needs: need.access,
                    });
                }
                Some(_) => {}
                None => io.push(Io {
                    component: need.component,
                    access: need.access,
                    type_name: Some(need.type_name),
                }),
            }
        }
        for &it in declared.as_slice() {
            io.push(it);
        }
        if declared.overflowed() {
            // The declared list alone filled `io`; one more push only marks it overflowed,
            // so the registry still reports `io_too_many`.
            io.push(Io {
                component: None,
                access: Access::Read,
                type_name: None,
            });
        }
        Ok(io)
    }
}

/// Two parameters' accesses to one component as one declaration, if they can coexist.
fn merged(a: Access, b: Access) -> Option<Access> {
    use Access::{Emit, Read, ReadFresh, ReadSnapshot, Write};
    match (a, b) {
        (Write | Emit, _) | (_, Write | Emit) => None,
        (ReadSnapshot, ReadSnapshot) => Some(ReadSnapshot),
        (ReadSnapshot, _) | (_, ReadSnapshot) => None,
        (Read, Read) => Some(Read),
        _ => Some(ReadFresh),
    }
}

/// Whether a declaration allows what a parameter needs: a write allows every live access, a
/// fresh read allows reads, and a snapshot read allows only itself.
fn covers(declared: Access, needs: Access) -> bool {
    use Access::{Emit, Read, ReadFresh, ReadSnapshot, Write};
    match needs {
        Emit => declared == Emit,
        Read => matches!(declared, Read | ReadFresh | Write),
        ReadFresh => matches!(declared, ReadFresh | Write),
        Write => declared == Write,
        ReadSnapshot => declared == ReadSnapshot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_merge_and_writes_or_mixed_kinds_conflict() {
        use Access::{Read, ReadFresh, ReadSnapshot, Write};
        assert_eq!(merged(Read, Read), Some(Read));
        assert_eq!(merged(Read, ReadFresh), Some(ReadFresh));
        assert_eq!(merged(ReadFresh, Read), Some(ReadFresh));
        assert_eq!(merged(ReadSnapshot, ReadSnapshot), Some(ReadSnapshot));
        for (a, b) in [
            (Write, Read),
            (Read, Write),
            (Write, Write),
            (ReadSnapshot, Read),
            (ReadFresh, ReadSnapshot),
        ] {
            assert_eq!(merged(a, b), None, "{a:?} with {b:?}");
        }
    }

    #[test]
    fn a_declaration_covers_what_it_allows() {
        use Access::{Read, ReadFresh, ReadSnapshot, Write};
        assert!(covers(Write, Read) && covers(Write, ReadFresh) && covers(Write, Write));
        assert!(covers(ReadFresh, Read) && covers(Read, Read));
        assert!(!covers(Read, ReadFresh) && !covers(Read, Write));
        assert!(!covers(ReadSnapshot, Read) && !covers(Write, ReadSnapshot));
        assert!(covers(ReadSnapshot, ReadSnapshot));
    }
}
