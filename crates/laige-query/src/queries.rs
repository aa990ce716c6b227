//! The checked view: the one type through which anything above the storage reads or writes
//! component columns and resources while systems may run.

use std::any::type_name;

use laige_registry::{Access, ComponentId};

use crate::declare::Claim;
use crate::query::{
    Checks, Prepared, QueryData, QueryIter, ReadOnlyQueryData, SystemMeta, checked_ptr,
    checked_ptr_at, each_chunk_in, each_in, prepared_in, snapshot_of,
};
use crate::{Entity, QueryError, SnapshotView, Storage};

/// The checked view of the storage that one running system has (or setup code on the whole
/// world): every query, resource and snapshot read goes through it, and each is checked once
/// per call, before the first row, against the system's declared access ([`SystemMeta`]).
///
/// It is the one door to the columns: its fields are private, and the only ways to make one
/// are [`Queries::new`], whose contract is the scheduler's proof, and [`Queries::exclusive`],
/// which borrows the storage mutably. A low-level system's `SystemContext` and a typed
/// system's `Query` are thin layers over it.
#[derive(Debug)]
pub struct Queries<'w> {
    storage: &'w Storage,
    /// The system's meta (`None` for setup code holding the storage exclusively: nothing to
    /// check against), and a typed parameter's claim.
    checks: Checks<'w>,
}

impl<'w> Queries<'w> {
    /// The checked view of the system described by `meta`, over a storage other views may
    /// share.
    ///
    /// # Safety
    ///
    /// While this value (or anything borrowed from it) lives, no other live view, reference
    /// or thread may write a component that `meta` declares read (plain or fresh) or write,
    /// or read a component that `meta` declares write; resources count as components (they
    /// share the id space). A snapshot read (`reads_snapshot`) needs nothing of others: it
    /// reads only the frozen copy, which changes under `&mut Storage` alone.
    ///
    /// Who may open this door: a host running systems that the scheduler proved disjoint
    /// (the executor's `SharedHost`), or code that holds the storage exclusively and makes
    /// one view at a time from it (which [`Queries::exclusive`] does safely).
    #[inline]
    pub unsafe fn new(storage: &'w Storage, meta: &'w SystemMeta) -> Self {
        Self {
            storage,
            checks: Checks {
                meta: Some(meta),
                limit: None,
            },
        }
    }

    /// A view over a storage borrowed mutably, so no other view can exist: checked against
    /// `meta` when given (a system's context made by `World::context`), unchecked otherwise
    /// (setup code's whole-world queries).
    #[inline]
    pub fn exclusive(storage: &'w mut Storage, meta: Option<&'w SystemMeta>) -> Self {
        Self {
            storage,
            checks: Checks { meta, limit: None },
        }
    }

    /// A shorter-lived view of the same system, for handing out while this one waits.
    #[inline]
    pub fn reborrow(&mut self) -> Queries<'_> {
        Queries {
            storage: self.storage,
            checks: self.checks,
        }
    }

    /// The storage's metadata: liveness, counts, archetypes.
    #[inline]
    pub fn storage(&self) -> &'w Storage {
        self.storage
    }

    /// The running system's meta; `None` for setup code on the world.
    #[inline]
    pub fn meta(&self) -> Option<&'w SystemMeta> {
        self.checks.meta
    }

    #[inline]
    pub(crate) fn checks(&self) -> Checks<'w> {
        self.checks
    }

    /// Calls `f` with each matching item: archetypes in ascending id, rows in table order.
    /// Put [`Entity`] in the query for the entity: `each::<(Entity, &Pos)>(|(e, pos)| ..)`.
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] when the system did not declare an access the query needs
    /// (reads need a read or write declaration, writes a write declaration);
    /// [`QueryError::Aliased`] for a query naming a component twice with a write;
    /// [`QueryError::Unmatched`] when the system declared a table footprint
    /// (`.matching::<T>()`) and the query does not require every component of it. Nothing is
    /// visited then, and the error's event (`ecs/access_violation`, ...) is reported.
    #[inline]
    pub fn each<Q: QueryData>(&mut self, f: impl FnMut(Q::Item<'_>)) -> Result<(), QueryError> {
        // SAFETY: the constructors make the declared access exclusive as declared (or the
        // whole storage exclusive); `each_in` checks `Q` against it first, and `&mut self`
        // keeps a second query of this view from running inside `f`.
        unsafe { each_in::<Q>(self.storage, self.checks, f) }
    }

    /// Calls `f` once per matching non-empty archetype with its entities and whole columns
    /// (`&[T]`, `&mut [T]`, ...), in ascending archetype id.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    #[inline]
    pub fn each_chunk<Q: QueryData>(
        &mut self,
        f: impl FnMut(&[Entity], Q::Chunk<'_>),
    ) -> Result<(), QueryError> {
        // SAFETY: as for `each`.
        unsafe { each_chunk_in::<Q>(self.storage, self.checks, f) }
    }

    /// The matching items as an [`Iterator`] (`for`, `find`, `break`, `sum`), in the order of
    /// [`Queries::each`]; checked once, here, before the first row.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    #[inline]
    pub fn iter_mut<Q: QueryData>(&mut self) -> Result<QueryIter<'_, Q>, QueryError> {
        self.reborrow().into_iter_mut()
    }

    /// [`Queries::iter_mut`] for a read-only query, through a shared borrow: several such
    /// iterators may be alive at once.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    #[inline]
    pub fn iter<Q: ReadOnlyQueryData>(&self) -> Result<QueryIter<'_, Q>, QueryError> {
        // SAFETY: as for `each`; a read-only query's items are shared references (or
        // copies), which any number of iterators may hand out at once.
        unsafe { QueryIter::new(self.storage, self.checks) }
    }

    /// [`Queries::iter_mut`], consuming the view so the items live as long as it could.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    #[inline]
    pub fn into_iter_mut<Q: QueryData>(self) -> Result<QueryIter<'w, Q>, QueryError> {
        // SAFETY: as for `each`; the view is consumed, so nothing else of it runs meanwhile.
        unsafe { QueryIter::new(self.storage, self.checks) }
    }

    /// The one matching item.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotSingle`] unless exactly one row matches; otherwise as for
    /// [`Queries::each`].
    pub fn single<Q: ReadOnlyQueryData>(&self) -> Result<Q::Item<'_>, QueryError> {
        let iter = self.iter::<Q>()?;
        single_of::<Q>(self.storage, self.checks.meta, iter)
    }

    /// The one matching item, mutably.
    ///
    /// # Errors
    ///
    /// As for [`Queries::single`].
    pub fn single_mut<Q: QueryData>(&mut self) -> Result<Q::Item<'_>, QueryError> {
        let (storage, meta) = (self.storage, self.checks.meta);
        single_of::<Q>(storage, meta, self.iter_mut::<Q>()?)
    }

    /// Checks `Q` once, for many lookups by handle ([`Prepared::get`]): random access to a
    /// target, a parent or a neighbour. The check comes before any lookup, so a dead handle
    /// never hides an undeclared access.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    #[inline]
    pub fn prepare<Q: QueryData>(&mut self) -> Result<Prepared<'_, Q>, QueryError> {
        self.reborrow().into_prepared()
    }

    /// [`Queries::prepare`], consuming the view so the result lives as long as it could.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    #[inline]
    pub fn into_prepared<Q: QueryData>(self) -> Result<Prepared<'w, Q>, QueryError> {
        // SAFETY: as for `each`; the view is consumed, so the result is its only user.
        unsafe { prepared_in::<Q>(self.storage, self.checks) }
    }

    /// The item of `entity`, read-only: `None` when it is not alive or does not match.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn get<Q: ReadOnlyQueryData>(
        &self,
        entity: Entity,
    ) -> Result<Option<Q::Item<'_>>, QueryError> {
        // SAFETY: as for `iter`: read-only items may coexist.
        let prepared = unsafe { prepared_in::<Q>(self.storage, self.checks) }?;
        Ok(prepared.into_item(entity))
    }

    /// The item of `entity`, mutably: `None` when it is not alive or does not match.
    ///
    /// # Errors
    ///
    /// As for [`Queries::each`].
    pub fn get_mut<Q: QueryData>(
        &mut self,
        entity: Entity,
    ) -> Result<Option<Q::Item<'_>>, QueryError> {
        Ok(self.reborrow().into_prepared::<Q>()?.into_item(entity))
    }

    /// The resource `T`. Checked on every call: a system must have declared a read
    /// (`.reads::<T>()` or `.reads_fresh::<T>()`) or a write of `T`. The reference borrows
    /// the view, so copy out what a query's closure needs first
    /// (`let dt = ctx.resource::<Time>()?.dt;`).
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] (event `ecs/access_violation`) when not declared;
    /// [`QueryError::NoResource`] (event `ecs/resource_missing`) when the world holds no `T`.
    pub fn resource<T: Send + Sync + 'static>(&self) -> Result<&T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.checks, Access::Read)?;
        // SAFETY: `T`'s value (its id is `T`'s); declared read or write by this system, so by
        // the constructor's contract no other live view writes it; this view hands out
        // `&mut T` only from `resource_mut(&mut self)`, which cannot coexist with this borrow.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// The resource `T`, mutably. Checked on every call: a system must have declared
    /// `.writes::<T>()`. The reference borrows the view mutably, so no second reference to
    /// any resource (or a query) can coexist with it.
    ///
    /// # Errors
    ///
    /// As for [`Queries::resource`].
    pub fn resource_mut<T: Send + Sync + 'static>(&mut self) -> Result<&mut T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.checks, Access::Write)?;
        // SAFETY: declared write, so by the constructor's contract no other live view reads or
        // writes it; `&mut self` keeps every other reference this view could hand out away.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// [`Queries::resource`], consuming the view so the reference lives as long as it could.
    ///
    /// # Errors
    ///
    /// As for [`Queries::resource`].
    pub fn into_resource<T: Send + Sync + 'static>(self) -> Result<&'w T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.checks, Access::Read)?;
        // SAFETY: as for `resource`; the view is consumed, and shared references may coexist.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// [`Queries::resource_mut`], consuming the view so the reference lives as long as it
    /// could.
    ///
    /// # Errors
    ///
    /// As for [`Queries::resource`].
    pub fn into_resource_mut<T: Send + Sync + 'static>(self) -> Result<&'w mut T, QueryError> {
        let ptr = checked_ptr::<T>(self.storage, self.checks, Access::Write)?;
        // SAFETY: as for `resource_mut`; the view is consumed, so this is its only reference.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// The resource of type `T` named `name` (`ctx.named_resource::<Grid>("terrain")`),
    /// checked on every call as [`Queries::resource`] is: the system must have declared a
    /// read or write of it by that name (`.reads_named::<Grid>("terrain")`). Finding the
    /// name scans the world's named resources; a typed `NamedRes` parameter keeps the id.
    ///
    /// # Errors
    ///
    /// [`QueryError::NoResource`] when no `T` has that name or none is held;
    /// [`QueryError::Undeclared`] when not declared.
    pub fn named_resource<T: Send + Sync + 'static>(&self, name: &str) -> Result<&T, QueryError> {
        let (id, display) = self.named_id::<T>(name);
        let ptr = checked_ptr_at::<T>(self.storage, self.checks, Access::Read, id, display)?;
        // SAFETY: as for `resource`: `ptr` is a held `T` (checked by type), declared read or
        // write by this system, and `&mut` comes only from a `&mut self` method.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// The resource of type `T` named `name`, mutably; needs a declared write by name
    /// (`.writes_named::<Grid>("units")`).
    ///
    /// # Errors
    ///
    /// As for [`Queries::named_resource`].
    pub fn named_resource_mut<T: Send + Sync + 'static>(
        &mut self,
        name: &str,
    ) -> Result<&mut T, QueryError> {
        let (id, display) = self.named_id::<T>(name);
        let ptr = checked_ptr_at::<T>(self.storage, self.checks, Access::Write, id, display)?;
        // SAFETY: as for `resource_mut`: declared write, and `&mut self` keeps every other
        // reference this view could hand out away.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// [`Queries::named_resource`] of the resource id `id` (a `NamedRes` parameter's,
    /// resolved at registration), consuming the view.
    ///
    /// # Errors
    ///
    /// As for [`Queries::named_resource`].
    pub fn into_resource_at<T: Send + Sync + 'static>(
        self,
        id: ComponentId,
    ) -> Result<&'w T, QueryError> {
        let display = self.display_of(id);
        let ptr = checked_ptr_at::<T>(self.storage, self.checks, Access::Read, Some(id), display)?;
        // SAFETY: as for `into_resource`.
        Ok(unsafe { &*ptr.cast::<T>() })
    }

    /// [`Queries::named_resource_mut`] of the resource id `id`, consuming the view.
    ///
    /// # Errors
    ///
    /// As for [`Queries::named_resource`].
    pub fn into_resource_mut_at<T: Send + Sync + 'static>(
        self,
        id: ComponentId,
    ) -> Result<&'w mut T, QueryError> {
        let display = self.display_of(id);
        let ptr = checked_ptr_at::<T>(self.storage, self.checks, Access::Write, Some(id), display)?;
        // SAFETY: as for `into_resource_mut`.
        Ok(unsafe { &mut *ptr.cast::<T>() })
    }

    /// Whether the world holds a value for the resource id `id` now. No check, no event.
    pub fn holds_resource_at(&self, id: ComponentId) -> bool {
        self.storage.components().is_resource(id) && self.storage.resources().ptr(id).is_some()
    }

    /// The id and display name of the `T` named `name`; an unknown name keeps the type's.
    fn named_id<T: 'static>(&self, name: &str) -> (Option<ComponentId>, &'static str) {
        let components = self.storage.components();
        match components.named_id::<T>(name) {
            Some(id) => (Some(id), components.get(id).name()),
            None => (None, type_name::<T>()),
        }
    }

    /// How errors name resource `id`.
    fn display_of(&self, id: ComponentId) -> &'static str {
        self.storage
            .components()
            .info(id)
            .map_or("?", |it| it.name())
    }

    /// Whether the world holds a value of resource `T` now. A pure query: no check, no event.
    pub fn holds_resource<T: 'static>(&self) -> bool {
        let components = self.storage.components();
        components
            .id_of::<T>()
            .filter(|&id| components.is_resource(id))
            .and_then(|id| self.storage.resources().ptr(id))
            .is_some()
    }

    /// The snapshot of the versioned component `T` (its values at the last end of tick),
    /// which other systems may write the live values of meanwhile.
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] unless a system declared `.reads_snapshot::<T>()`;
    /// [`QueryError::NotVersioned`] for a component that keeps no snapshot;
    /// [`QueryError::ResourceInQuery`] for a resource type. Reported.
    pub fn snapshot_view<T: Send + Sync + 'static>(
        &self,
    ) -> Result<SnapshotView<'w, T>, QueryError> {
        let storage = self.storage;
        snapshot_of::<T>(storage.components(), storage.snapshots(), self.checks.meta)
            .map_err(|err| storage.report(err))
    }

    /// `entity`'s snapshot value of `T`; `None` when it had none at the last end of tick.
    ///
    /// # Errors
    ///
    /// As for [`Queries::snapshot_view`].
    pub fn snapshot<T: Send + Sync + 'static>(
        &self,
        entity: Entity,
    ) -> Result<Option<&'w T>, QueryError> {
        Ok(self.snapshot_view::<T>()?.get(entity))
    }

    /// Calls `f` with every entity that has a snapshot value of `T` and that value, in
    /// ascending entity index (including entities despawned since the snapshot, excluding
    /// ones spawned since).
    ///
    /// # Errors
    ///
    /// As for [`Queries::snapshot_view`]; nothing is visited then.
    pub fn each_snapshot<T: Send + Sync + 'static>(
        &self,
        mut f: impl FnMut(Entity, &'w T),
    ) -> Result<(), QueryError> {
        for (entity, value) in self.snapshot_view::<T>()?.iter() {
            f(entity, value);
        }
        Ok(())
    }

    /// The state hash of the components (`World::component_state_hash`), from inside a
    /// system, e.g. a per-tick hash system.
    ///
    /// # Errors
    ///
    /// [`QueryError::Undeclared`] for the first (lowest id) hashed component or hashed
    /// resource the system did not declare (read or write): the hash reads every hashed value.
    /// [`QueryError::Unmatched`] for a system with a table footprint (`.matching::<T>()`):
    /// the hash visits every table.
    pub fn component_state_hash(&mut self) -> Result<u64, QueryError> {
        let storage = self.storage;
        if let Some(meta) = self.checks.meta {
            // The hash visits every table, so it cannot stay inside a table footprint.
            if let Some(component) = meta.matching().iter().next() {
                let err = QueryError::Unmatched {
                    system: meta.name(),
                    system_id: meta.id(),
                    component: storage.components().get(component).name(),
                };
                return Err(storage.report(err));
            }
            let declared = meta.reads().union(meta.writes());
            if let Some(info) = storage
                .components()
                .iter()
                .find(|c| c.is_hashed() && !declared.contains(c.id()))
            {
                let err = QueryError::Undeclared {
                    system: meta.name(),
                    system_id: meta.id(),
                    component: info.name(),
                    access: Access::Read,
                    declared: meta.declared(info.id()),
                };
                return Err(storage.report(err));
            }
        }
        let mut h = laige_storage::StateHasher::new();
        // SAFETY: reads only hashed values, all declared read or write by this system (checked
        // above), so no other live view writes them (the constructor's contract), or the view
        // holds the storage exclusively; `&mut self` keeps this view's own queries out.
        unsafe { storage.hash_components(&mut h) };
        Ok(h.finish())
    }
}

/// The one item `iter` yields, or [`QueryError::NotSingle`] (reported).
fn single_of<'a, Q: QueryData>(
    storage: &Storage,
    meta: Option<&SystemMeta>,
    mut iter: QueryIter<'a, Q>,
) -> Result<Q::Item<'a>, QueryError> {
    let first = iter.next();
    let matched = match (&first, iter.next().is_some()) {
        (Some(_), false) => return first.ok_or_else(|| unreachable_single::<Q>(storage, meta)),
        (None, _) => 0,
        (Some(_), true) => 2,
    };
    Err(storage.report(QueryError::NotSingle {
        system: meta.map(SystemMeta::name),
        query: type_name::<Q>(),
        matched,
    }))
}

/// The error of a first item that was there and is not; it cannot happen (the match above
/// saw it), and costs nothing to name rather than panic.
#[cold]
fn unreachable_single<Q>(storage: &Storage, meta: Option<&SystemMeta>) -> QueryError {
    storage.report(QueryError::NotSingle {
        system: meta.map(SystemMeta::name),
        query: type_name::<Q>(),
        matched: 0,
    })
}

/// One typed system's view, handed out to its parameters for one run: each parameter gets a
/// view of its own ([`ParamViews::claim`]) that reaches only what it recorded at registration,
/// and two parameters whose records overlap with a write cannot both get one.
///
/// So the parameters of a run can never alias, whatever the code that fetches them does:
/// the check costs a few set operations per parameter and run.
#[derive(Debug)]
pub struct ParamViews<'w> {
    storage: &'w Storage,
    checks: Checks<'w>,
    /// What the views handed out so far reach.
    claimed: Claim,
}

impl<'w> ParamViews<'w> {
    /// The parameters' views of the system `view` runs for.
    #[inline]
    pub fn new(view: Queries<'w>) -> Self {
        Self {
            storage: view.storage,
            checks: view.checks,
            claimed: Claim::default(),
        }
    }

    /// The storage's metadata: liveness, counts, archetypes.
    #[inline]
    pub fn storage(&self) -> &'w Storage {
        self.storage
    }

    /// The running system's meta; `None` for setup code on the world.
    #[inline]
    pub fn meta(&self) -> Option<&'w SystemMeta> {
        self.checks.meta
    }

    /// A view for the parameter whose registration recorded `claim`.
    ///
    /// # Errors
    ///
    /// [`QueryError::Aliased`] (reported) when `claim` overlaps what an earlier parameter of
    /// this run claimed, with a write in either, or reaches beyond this view's own claim.
    #[inline]
    pub fn claim(&mut self, claim: &'w Claim) -> Result<Queries<'w>, QueryError> {
        let outside = self.checks.limit.and_then(|limit| claim.outside(limit));
        if let Some(component) = claim.conflict(&self.claimed).or(outside) {
            return Err(self.aliased(component));
        }
        self.claimed.merge(claim);
        Ok(Queries {
            storage: self.storage,
            checks: Checks {
                meta: self.checks.meta,
                limit: Some(claim),
            },
        })
    }

    #[cold]
    fn aliased(&self, component: ComponentId) -> QueryError {
        self.storage.report(QueryError::Aliased {
            system: self.checks.meta.map(SystemMeta::name),
            component: self.storage.components().get(component).name(),
        })
    }
}

/// The snapshot of `T` for setup code and tools, which the storage's borrow keeps unchanged
/// (only `&mut Storage` refreshes it): no system's declaration to check. Not reported.
///
/// # Errors
///
/// [`QueryError::ResourceInQuery`] for a resource type, [`QueryError::NotVersioned`] for a
/// component that keeps no snapshot.
pub fn read_snapshot<T: Send + Sync + 'static>(
    storage: &Storage,
) -> Result<SnapshotView<'_, T>, QueryError> {
    snapshot_of::<T>(storage.components(), storage.snapshots(), None)
}
