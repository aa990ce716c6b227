//! Who declares what, per component: the transpose of the systems' access sets.

use crate::{ComponentSet, SystemId, SystemSet};

/// Who declares what, per component: the systems that write it, read it as it is this
/// tick (`reads`, `reads_fresh`) and read it fresh, and emit into it (an event queue). The transpose of the records' access
/// sets, so the systems whose access meets one system's are a union of a few sets, one per
/// component it declares, instead of a pass over every other system.
///
/// Built at setup by [`Accessors::of`] (one pass over the records); a registry keeps its
/// own, built on first use ([`crate::Registry::accessors`]).
#[derive(Clone, Debug, Default)]
pub struct Accessors {
    by_component: Vec<ComponentAccessors>,
}

#[derive(Clone, Copy, Debug, Default)]
struct ComponentAccessors {
    writers: SystemSet,
    readers: SystemSet,
    fresh: SystemSet,
    emitters: SystemSet,
}

impl Accessors {
    /// No system yet, with room for components `0..len`.
    pub(crate) fn with_components(len: usize) -> Self {
        Self {
            by_component: vec![ComponentAccessors::default(); len],
        }
    }

    /// Counts system `id`'s declared access in.
    pub(crate) fn add(
        &mut self,
        id: SystemId,
        reads: &ComponentSet,
        writes: &ComponentSet,
        fresh: &ComponentSet,
    ) {
        let by_component = &mut self.by_component;
        reads.union(writes).iter().for_each(|c| {
            if c.index() >= by_component.len() {
                by_component.resize(c.index() + 1, ComponentAccessors::default());
            }
            let it = &mut by_component[c.index()];
            if writes.contains(c) {
                it.writers.insert(id);
            }
            if reads.contains(c) {
                it.readers.insert(id);
            }
            if fresh.contains(c) {
                it.fresh.insert(id);
            }
        });
    }

    /// Counts system `id`'s emits ([`crate::Access::Emit`]) in.
    pub(crate) fn add_emits(&mut self, id: SystemId, emits: &ComponentSet) {
        let by_component = &mut self.by_component;
        emits.iter().for_each(|c| {
            if c.index() >= by_component.len() {
                by_component.resize(c.index() + 1, ComponentAccessors::default());
            }
            by_component[c.index()].emitters.insert(id);
        });
    }

    /// The union over `components` of what `kind` picks from each.
    #[inline]
    fn union_over(
        &self,
        components: &ComponentSet,
        kind: impl Fn(&ComponentAccessors) -> SystemSet,
    ) -> SystemSet {
        components.iter().fold(SystemSet::EMPTY, |acc, c| {
            match self.by_component.get(c.index()) {
                Some(it) => acc.union(&kind(it)),
                None => acc,
            }
        })
    }

    /// The systems that write any of `components`.
    pub fn writers_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.writers)
    }

    /// The systems that emit into any of the event queues `components`.
    pub fn emitters_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.emitters)
    }

    /// The systems that write or emit into any of `components`: what a reader of them
    /// waits for.
    pub fn producers_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.writers.union(&it.emitters))
    }

    /// The systems that read any of `components` as it is this tick (`reads`,
    /// `reads_fresh`; snapshot reads are not counted).
    pub fn readers_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.readers)
    }

    /// The systems that declared [`crate::Access::ReadFresh`] of any of `components`.
    pub fn fresh_readers_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.fresh)
    }

    /// The systems that read any of `components` plainly: this tick's value, not declared
    /// fresh.
    pub fn plain_readers_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.readers.difference(&it.fresh))
    }

    /// The systems that write or read this tick any of `components`.
    pub fn touchers_of(&self, components: &ComponentSet) -> SystemSet {
        self.union_over(components, |it| it.writers.union(&it.readers))
    }
}
