//! [`Prepared`]: a query checked once, for many lookups by entity handle.

use std::fmt;

use super::{Matcher, QueryData};
use crate::{Entity, Storage};

/// A query checked once against what its system declared, for looking up many entities by
/// handle (targets, parents, neighbours): [`Prepared::get`] does no check of its own.
///
/// Made by `prepare` on a `World`, a `SystemContext`
/// or [`Queries`](crate::Queries), and borrows it: no other query of that context runs while
/// a `Prepared` lives, and each item borrows the `Prepared`, so items come one at a time.
///
/// ```
/// use laige_world::{Component, World, WorldOptions};
///
/// struct Pos(f32);
/// impl Component for Pos {}
/// struct Target(laige_world::Entity);
/// impl Component for Target {}
///
/// let mut world = World::new(WorldOptions::default());
/// world.register_component::<Pos>()?;
/// world.register_component::<Target>()?;
/// let a = world.spawn((Pos(1.0),))?;
/// world.spawn((Pos(5.0), Target(a)))?;
///
/// let mut targets = Vec::new();
/// world.each::<&Target>(|t| targets.push(t.0))?;
/// let mut positions = world.prepare::<&mut Pos>()?;
/// for target in targets {
///     if let Some(pos) = positions.get(target) {
///         pos.0 += 1.0;
///     }
/// }
/// assert_eq!(world.get::<Pos>(a)?.0, 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Prepared<'a, Q: QueryData> {
    storage: &'a Storage,
    state: Q::State,
    matcher: Matcher,
}

impl<'a, Q: QueryData> Prepared<'a, Q> {
    /// Wraps a checked query.
    ///
    /// # Safety
    ///
    /// For `'a`, the caller has the access `Q` needs to every column it may reach, as for
    /// [`each_in`](super::each_in); `state` and `matcher` come from checking `Q`.
    pub(crate) unsafe fn new(storage: &'a Storage, state: Q::State, matcher: Matcher) -> Self {
        Self {
            storage,
            state,
            matcher,
        }
    }

    /// The item of `entity`, or `None` when the entity is not alive or its table does not
    /// match the query.
    pub fn get(&mut self, entity: Entity) -> Option<Q::Item<'_>> {
        // The item may only live as long as this borrow of `self`.
        let storage: &Storage = self.storage;
        // SAFETY: `new`'s caller has the access for `'a`, which outlives this borrow, and
        // `&mut self` keeps one item alive at a time.
        unsafe { super::iter::get_in::<Q>(storage, &self.state, &self.matcher, entity) }
    }
}

impl<'a, Q: QueryData> Prepared<'a, Q> {
    /// [`Prepared::get`] for one lookup, consuming the check so the item lives for `'a`.
    pub fn into_item(self, entity: Entity) -> Option<Q::Item<'a>> {
        // SAFETY: `new`'s caller has the access for `'a`, and consuming `self` makes this the
        // only item.
        unsafe { super::iter::get_in::<Q>(self.storage, &self.state, &self.matcher, entity) }
    }
}

impl<Q: QueryData> fmt::Debug for Prepared<'_, Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prepared")
            .field("query", &std::any::type_name::<Q>())
            .finish_non_exhaustive()
    }
}
