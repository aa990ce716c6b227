//! The `Local` values of typed systems, kept beside the boxed function (not inside its
//! parameters' state) so that a world state can save and restore them.

use std::any::{Any, type_name};

/// One `Local<T>`'s value, with what saving it takes (`T: Clone`).
pub(crate) trait LocalValue: Send {
    /// The value's type name, for messages.
    fn type_name(&self) -> &'static str;

    /// The value, for the parameter's fetch.
    fn as_any_mut(&mut self) -> &mut dyn Any;

    /// Copies the value into `slot`, into the copy it holds already (`clone_from`, which
    /// reuses its allocations) or a new one.
    fn save(&self, slot: &mut Option<Box<dyn Any + Send>>);

    /// Makes the value the copy `saved` holds; `false` when it holds another type.
    fn restore(&mut self, saved: &(dyn Any + Send)) -> bool;
}

impl std::fmt::Debug for dyn LocalValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Local").field(&self.type_name()).finish()
    }
}

struct LocalCell<T>(T);

impl<T: Clone + Send + 'static> LocalValue for LocalCell<T> {
    fn type_name(&self) -> &'static str {
        type_name::<T>()
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        &mut self.0
    }

    fn save(&self, slot: &mut Option<Box<dyn Any + Send>>) {
        match slot.as_mut().and_then(|it| it.downcast_mut::<T>()) {
            Some(copy) => copy.clone_from(&self.0),
            None => *slot = Some(Box::new(self.0.clone())),
        }
    }

    fn restore(&mut self, saved: &(dyn Any + Send)) -> bool {
        match saved.downcast_ref::<T>() {
            Some(copy) => {
                self.0.clone_from(copy);
                true
            }
            None => false,
        }
    }
}

/// `value` boxed for [`ParamInit::local`](laige_query::declare::ParamInit::local).
pub(crate) fn boxed_local<T: Clone + Send + 'static>(value: T) -> Box<dyn Any + Send> {
    let local: Box<dyn LocalValue> = Box::new(LocalCell(value));
    Box::new(local)
}

/// The values [`boxed_local`] made, back from the registration.
pub(crate) fn unbox_locals(values: Vec<Box<dyn Any + Send>>) -> Vec<Box<dyn LocalValue>> {
    values
        .into_iter()
        .filter_map(|it| it.downcast::<Box<dyn LocalValue>>().ok())
        .map(|it| *it)
        .collect()
}
