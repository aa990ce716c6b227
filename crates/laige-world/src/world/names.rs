//! System names and the names a system runs after: owned strings become `&'static str`
//! for the registry, and handles stand for names.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use laige_registry::SystemId;

/// A registered system: what [`SystemBuilder::register`](crate::SystemBuilder::register)
/// returns. Pass it to `.after(..)`, `.before(..)` or `.after_weak(..)` of a later system to
/// order the two without spelling the name again; [`SystemHandle::id`] is its id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SystemHandle {
    pub(crate) id: SystemId,
    pub(crate) name: &'static str,
}

impl SystemHandle {
    /// The system's id.
    pub fn id(self) -> SystemId {
        self.id
    }

    /// The system's registration name.
    pub fn name(self) -> &'static str {
        self.name
    }
}

impl From<SystemHandle> for SystemId {
    fn from(handle: SystemHandle) -> Self {
        handle.id
    }
}

impl From<&SystemHandle> for SystemId {
    fn from(handle: &SystemHandle) -> Self {
        handle.id
    }
}

/// What `.after(..)`, `.before(..)` and `.after_weak(..)` take: a [`SystemHandle`], a name,
/// or several names comma separated (`"Input, Physics"`), borrowed or owned.
pub trait SystemNames {
    /// The names, comma separated.
    fn into_names(self) -> Cow<'static, str>;
}

impl SystemNames for &'static str {
    fn into_names(self) -> Cow<'static, str> {
        Cow::Borrowed(self)
    }
}

impl SystemNames for String {
    fn into_names(self) -> Cow<'static, str> {
        Cow::Owned(self)
    }
}

impl SystemNames for Cow<'static, str> {
    fn into_names(self) -> Cow<'static, str> {
        self
    }
}

impl SystemNames for SystemHandle {
    fn into_names(self) -> Cow<'static, str> {
        Cow::Borrowed(self.name)
    }
}

impl SystemNames for &SystemHandle {
    fn into_names(self) -> Cow<'static, str> {
        Cow::Borrowed(self.name)
    }
}

/// A name list being built by repeated `.after(..)` calls: the first borrowed list is kept
/// as is, so the usual single call allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct NameList {
    joined: Option<String>,
}

impl NameList {
    /// Adds `more` to `field` (the definition's spec so far).
    pub(crate) fn add(&mut self, field: &mut &'static str, more: Cow<'static, str>) {
        if more.is_empty() {
            return;
        }
        match &mut self.joined {
            Some(joined) => {
                joined.push_str(", ");
                joined.push_str(&more);
            }
            None if field.is_empty() => match more {
                Cow::Borrowed(names) => *field = names,
                Cow::Owned(names) => self.joined = Some(names),
            },
            None => self.joined = Some(format!("{field}, {more}")),
        }
    }

    /// The spec to register: `field`, or the joined list when one was built.
    pub(crate) fn finish(self, field: &mut &'static str) {
        if let Some(joined) = self.joined {
            *field = intern(Cow::Owned(joined));
        }
    }
}

/// `name` as the `&'static str` the registry keeps. A borrowed name is returned as is; an
/// owned one is interned: stored once per process (not once per world or registration) and
/// kept for the life of the process, so generated names cost their bytes once.
pub(crate) fn intern(name: Cow<'static, str>) -> &'static str {
    let owned = match name {
        Cow::Borrowed(name) => return name,
        Cow::Owned(owned) => owned,
    };
    // Only looked up, never iterated: nothing here reaches an order or an id.
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&name) = names.get(owned.as_str()) {
        return name;
    }
    let name: &'static str = Box::leak(owned.into_boxed_str());
    names.insert(name);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_names_are_interned_once_and_borrowed_ones_kept() {
        let a = intern(Cow::Owned(format!("Unit{}", 7)));
        let b = intern(Cow::Owned("Unit7".to_owned()));
        assert!(std::ptr::eq(a, b), "one copy per distinct name");
        let literal = "Unit7";
        assert!(std::ptr::eq(intern(Cow::Borrowed(literal)), literal));
    }

    #[test]
    fn name_lists_join_in_call_order() {
        let mut field = "";
        let mut list = NameList::default();
        list.add(&mut field, Cow::Borrowed("Input"));
        assert_eq!(field, "Input", "one borrowed list is kept as is");
        list.add(&mut field, Cow::Borrowed(""));
        list.add(&mut field, Cow::Owned("Physics, Ai".to_owned()));
        list.finish(&mut field);
        assert_eq!(field, "Input, Physics, Ai");
    }
}
