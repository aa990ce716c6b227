//! Failure types as data: the [`diagnostics!`](crate::diagnostics) table, and the traits
//! its derived code uses to record fields.
//!
//! Every laige failure is one variant of an error enum, with one structured event whose
//! name, severity and field keys are contract. The table states them once per variant;
//! `event`, `key`, `emit` and `Display` are derived from it, and every text that reaches a
//! field or a message goes through [`crate::Text`]'s rules, which escape and bound it.

use std::fmt;

use crate::EventKey;
use crate::text::{FieldText, field_limit};

/// A failure with one rate-limited structured event; what a [`diagnostics!`] table
/// implements.
///
/// [`diagnostics!`]: crate::diagnostics
pub trait Diagnostic: fmt::Display {
    /// The event name, without the subsystem prefix.
    fn event(&self) -> &'static str;
    /// The rate-limit key of the failure's event.
    fn key(&self) -> EventKey;
    /// Emits the failure's event with the contract's field keys and its `Display` text as
    /// the message.
    fn emit(&self);
}

/// A value a table row may give an event field: a number or a flag as it is, text (a
/// `&str`, or any `Display` value wrapped in [`Rendered`]) escaped and bounded to the
/// field's limit ([`field_limit`]). The [`diagnostics!`](crate::diagnostics) table calls it
/// for each field; implement it for a field type of your own.
pub trait FieldValue {
    /// What the event records: the value itself, or its rendered text.
    type Held: HeldField;
    /// Prepares the value for a field whose text keeps at most `limit` bytes.
    fn hold(self, limit: usize) -> Self::Held;
}

/// A prepared field value, recorded by reference while the event is emitted.
pub trait HeldField {
    /// The type `tracing` records.
    type Value<'a>: tracing::Value
    where
        Self: 'a;
    /// The value to record.
    fn value(&self) -> Self::Value<'_>;
}

macro_rules! scalar_fields {
    ($($ty:ty)*) => {$(
        impl FieldValue for $ty {
            type Held = $ty;
            fn hold(self, _limit: usize) -> $ty {
                self
            }
        }

        impl HeldField for $ty {
            type Value<'a> = $ty;
            fn value(&self) -> $ty {
                *self
            }
        }
    )*};
}

scalar_fields!(u8 u16 u32 u64 usize i8 i16 i32 i64 isize f64 bool);

impl FieldValue for &str {
    type Held = FieldText;
    fn hold(self, limit: usize) -> FieldText {
        FieldText::render(&self, limit)
    }
}

impl<T: FieldValue + Copy> FieldValue for &T {
    type Held = T::Held;
    fn hold(self, limit: usize) -> T::Held {
        (*self).hold(limit)
    }
}

/// A `Display` value recorded as a text field, e.g. a cycle's names joined by commas.
#[derive(Clone, Copy, Debug)]
pub struct Rendered<T>(pub T);

impl<T: fmt::Display> FieldValue for Rendered<T> {
    type Held = FieldText;
    fn hold(self, limit: usize) -> FieldText {
        FieldText::render(&self.0, limit)
    }
}

impl HeldField for FieldText {
    type Value<'a> = &'a str;
    fn value(&self) -> &str {
        self.as_str()
    }
}

/// Holds `value` for the field `key`; what the derived `emit` calls for each field.
#[doc(hidden)]
pub fn hold_field<V: FieldValue>(key: &str, value: V) -> V::Held {
    value.hold(field_limit(key))
}

/// Declares a failure type's events, once each, and derives from the table the inherent
/// methods `event()` (the name without the prefix), `key()` (the rate-limit key), `emit()`
/// (the `tracing` event), the constant `EVENTS` (every key the type can report), its
/// `Display` and its [`Diagnostic`] impl.
///
/// The header names the type (with its lifetime, if it has one) and its subsystem (`System`
/// or `Ecs`); with `const` first, `event()` and `key()` are `const fn`. Each row then reads
///
/// ```text
/// Variant { bindings } => severity event_name { fields } message;
/// ```
///
/// - the pattern is a struct variant `Variant { a, %b, c: literal }`, a tuple variant
///   `Variant(a)`, a unit variant `Variant`, or for a struct `{ a, b }`; unlisted fields are
///   ignored. A binding marked `%` is text: in the message it is escaped and bounded
///   ([`crate::Text`]); text types such as a system reference escape themselves.
/// - `severity` is `warn` or `error`; the event is named `subsystem/event_name`.
/// - each field is `key` (the binding of that name) or `key = expression`; a `&str` value is
///   escaped and cut to the field's limit ([`crate::field_limit`]), a number is recorded as
///   it is, and `Rendered(value)` records a `Display` value as text.
/// - the message is a format string over the bindings, or `|f| expression` writing to the
///   formatter `f` for one that needs logic.
///
/// A row `Variant(inner) => inner;` forwards everything to a wrapped failure.
///
/// ```
/// use laige_diag::{Severity, Subsystem};
///
/// #[derive(Debug)]
/// pub enum LoadError {
///     Missing { name: &'static str, tries: u32 },
///     Corrupt { name: &'static str },
/// }
///
/// laige_diag::diagnostics! {
///     const LoadError in System;
///     Missing { %name, tries } => warn load_missing { name, tries }
///         "`{name}` was not found after {tries} tries: check the path";
///     Corrupt { %name } => error load_corrupt { name }
///         |f| write!(f, "`{name}` is corrupt: load it again");
/// }
///
/// let err = LoadError::Missing { name: "a\0b", tries: 2 };
/// assert_eq!(err.event(), "load_missing");
/// assert_eq!(err.key().severity, Severity::Warn);
/// assert_eq!(err.to_string(), r"`a\0b` was not found after 2 tries: check the path");
/// assert_eq!(LoadError::EVENTS.len(), 2);
/// assert_eq!(LoadError::EVENTS[1].subsystem, Subsystem::System);
/// err.emit(); // one `system/load_missing` event with fields `name` and `tries`
/// ```
#[macro_export]
macro_rules! diagnostics {
    (const $ty:ident $(<$lt:lifetime>)? in $sub:ident; $($rows:tt)*) => {
        $crate::diagnostics!(@impl [const] [$(<$lt>)?] $ty $sub $($rows)*);
    };
    ($ty:ident $(<$lt:lifetime>)? in $sub:ident; $($rows:tt)*) => {
        $crate::diagnostics!(@impl [] [$(<$lt>)?] $ty $sub $($rows)*);
    };
    (@impl [$($qual:tt)*] [$($generics:tt)*] $ty:ident $sub:ident $(
        $($variant:ident)?
        $({ $($(% $sx:ident)? $($s:ident)? $(: $sp:pat)?),* $(,)? })?
        $(( $($(% $tx:ident)? $($t:ident)?),* $(,)? ))?
        => $level:ident
        $( $event:ident { $($key:ident $(= $value:expr)?),* $(,)? } )?
        $( $text:literal )?
        $( | $f:ident | $body:expr )?
    );* $(;)?) => {
        impl $($generics)* $ty $($generics)* {
            /// Every event key this type reports, in table order.
            pub const EVENTS: &'static [$crate::EventKey] = &[$($(
                $crate::EventKey::new(
                    $crate::Subsystem::$sub,
                    stringify!($event),
                    $crate::diagnostics!(@severity $level),
                ),
            )?)*];

            /// The event name, without the subsystem prefix.
            #[allow(unused_variables)]
            pub $($qual)* fn event(&self) -> &'static str {
                match self {$(
                    Self $(:: $variant)?
                    $({ $($($sx)? $($s)? $(: $sp)?,)* .. })?
                    $(( $($($tx)? $($t)?,)* .. ))?
                    => $crate::diagnostics!(@event $level $($event)?),
                )*}
            }

            /// The rate-limit key of this failure's event.
            #[allow(unused_variables)]
            pub $($qual)* fn key(&self) -> $crate::EventKey {
                match self {$(
                    Self $(:: $variant)?
                    $({ $($($sx)? $($s)? $(: $sp)?,)* .. })?
                    $(( $($($tx)? $($t)?,)* .. ))?
                    => $crate::diagnostics!(@key $sub $level $($event)?),
                )*}
            }

            /// Emits this failure's structured event with the contract's field keys.
            #[allow(unused_variables)]
            pub fn emit(&self) {
                match self {$(
                    Self $(:: $variant)?
                    $({ $($($sx)? $($s)? $(: $sp)?,)* .. })?
                    $(( $($($tx)? $($t)?,)* .. ))?
                    => $crate::diagnostics!(
                        @emit self $sub $level $($event [$($key $(= $value)?),*])?
                    ),
                )*}
            }
        }

        impl $($generics)* ::core::fmt::Display for $ty $($generics)* {
            #[allow(unused_variables)]
            fn fmt(&self, formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {$(
                    Self $(:: $variant)?
                    $({ $($($sx)? $($s)? $(: $sp)?,)* .. })?
                    $(( $($($tx)? $($t)?,)* .. ))?
                    => {
                        $($($(let $sx = $crate::Escape::escaped($sx);)?)*)?
                        $($($(let $tx = $crate::Escape::escaped($tx);)?)*)?
                        $crate::diagnostics!(@fmt formatter $level [$($text)?] [$($f $body)?])
                    }
                )*}
            }
        }

        impl $($generics)* $crate::Diagnostic for $ty $($generics)* {
            fn event(&self) -> &'static str {
                Self::event(self)
            }
            fn key(&self) -> $crate::EventKey {
                Self::key(self)
            }
            fn emit(&self) {
                Self::emit(self)
            }
        }
    };

    (@event $inner:ident) => { $inner.event() };
    (@event $level:ident $event:ident) => { stringify!($event) };

    (@key $sub:ident $inner:ident) => { $inner.key() };
    (@key $sub:ident $level:ident $event:ident) => {
        $crate::EventKey::new(
            $crate::Subsystem::$sub,
            stringify!($event),
            $crate::diagnostics!(@severity $level),
        )
    };

    (@emit $this:ident $sub:ident $inner:ident) => { $inner.emit() };
    (@emit $this:ident $sub:ident $level:ident $event:ident [$($key:ident $(= $value:expr)?),*]) => {{
        let ($($key,)*) = ($(
            $crate::hold_field(stringify!($key), $crate::diagnostics!(@value $key $($value)?)),
        )*);
        $crate::__private::tracing::event!(
            name: concat!($crate::diagnostics!(@prefix $sub), "/", stringify!($event)),
            target: "laige",
            $crate::diagnostics!(@level $level),
            $($key = $crate::HeldField::value(&$key),)*
            "{}",
            $this
        )
    }};

    (@value $key:ident) => { $key };
    (@value $key:ident $value:expr) => { $value };

    (@fmt $out:ident $inner:ident [] []) => { ::core::fmt::Display::fmt($inner, $out) };
    (@fmt $out:ident $level:ident [$text:literal] []) => { ::core::write!($out, $text) };
    (@fmt $out:ident $level:ident [] [$f:ident $body:expr]) => {{
        let $f = $out;
        $body
    }};

    (@severity warn) => { $crate::Severity::Warn };
    (@severity error) => { $crate::Severity::Error };
    (@level warn) => { $crate::__private::tracing::Level::WARN };
    (@level error) => { $crate::__private::tracing::Level::ERROR };
    (@prefix System) => { "system" };
    (@prefix Ecs) => { "ecs" };
}
