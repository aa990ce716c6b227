//! The laige derives: `#[derive(Component)]`, with the registration options that belong to
//! the type, and `#[derive(StateHash)]`, which hashes every field in declaration order.
//!
//! Use them through `laige-sim` (or `laige-world`), which re-export them next to the traits
//! of the same names (default feature `derive`):
//!
//! ```
//! use laige_world::{Component, StateHash, World};
//!
//! #[derive(Component, StateHash, Clone)]
//! #[component(hashed, versioned)]
//! struct Health(u32);
//!
//! let mut world = World::default();
//! let id = world.register_component::<Health>()?; // hashed and versioned, as the type says
//! assert!(world.component_info(id).is_some_and(|it| it.is_hashed() && it.is_versioned()));
//! # Ok::<(), laige_world::WorldError>(())
//! ```
//!
//! # `#[derive(Component)]`
//!
//! Implements `Component`. The attribute `#[component(...)]` takes, in any order:
//!
//! - `hashed`: the value enters `World::state_hash` (needs `StateHash`);
//! - `versioned`: the component keeps a frozen copy of its values for snapshot readers
//!   (needs `Clone`);
//! - `tracked`: the component keeps change ticks, for `Changed<T>`, `Added<T>` and `Ref<T>`
//!   (docs/api/changes.md);
//! - `saved`: `World::save_state` saves it, cloning (needs `Clone`; `versioned` implies it);
//! - `saved_copy`: `World::save_state` saves it as bytes, whole columns at once (needs `Copy`);
//! - `serde`: save files hold it (`WorldState::to_binary`, feature `serde`; needs `Clone`,
//!   `serde::Serialize` and `serde::de::DeserializeOwned`, and implies `saved` unless
//!   `saved_copy` is given);
//! - `crate = path`: where the laige items are, when the default cannot find them (below).
//!
//! The options become `Component::component_options()`, which
//! `World::register_component::<T>()` registers with; without the attribute they are the
//! defaults (presence only, not versioned). A type parameter gets the bounds
//! `Send + Sync + 'static`; lifetime parameters are refused, since a component is `'static`.
//!
//! # `#[derive(StateHash)]`: the hashing order
//!
//! The order is part of the state hash's contract (docs/decisions/0004-state-hash.md), so it
//! is fixed by the type's source alone, never by the build:
//!
//! - a struct feeds its fields in declaration order, each through its own `StateHash`;
//!   a unit struct feeds nothing;
//! - an enum feeds its variant's index in declaration order (0, 1, ...; an explicit
//!   `= value` discriminant does not change it), as one byte when the enum has at most 256
//!   variants, two bytes up to 65,536, else four, then that variant's fields in declaration
//!   order;
//! - `#[state_hash(skip)]` on a field leaves it out (for fields without state, such as
//!   `PhantomData`; a skipped field no longer reaches the desync finder);
//! - `#[state_hash(crate = path)]` on the type, as for `Component`.
//!
//! A field whose type mentions a type parameter adds the bound `FieldType: StateHash`.
//! Unions are refused: which field holds the value is not known.
//!
//! # Where the generated code finds laige
//!
//! The generated impls name `::laige_sim::world` when the crate being built depends on
//! `laige-sim` (as users do), and `::laige_world` inside `laige-world` or when the crate depends on
//! `laige-world` but not on `laige-sim`. A renamed dependency needs `crate = path`, e.g.
//! `#[component(crate = sim::world)]`.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod attrs;
mod component;
mod krate;
mod state_hash;

/// Implements `Component`; `#[component(hashed, versioned)]` (or `sparse`) sets the options
/// `World::register_component::<T>()` uses. See the crate docs.
#[proc_macro_derive(Component, attributes(component))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    component::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `StateHash`: fields in declaration order, enums by variant index then fields.
/// See the crate docs for the exact order.
#[proc_macro_derive(StateHash, attributes(state_hash))]
pub fn derive_state_hash(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    state_hash::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
