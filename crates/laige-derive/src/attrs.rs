//! The derives' attributes: `#[component(...)]` on a type, `#[state_hash(...)]` on a type or
//! a field. Every key is checked; an unknown or repeated one is an error at its span.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Path};

/// What `#[component(...)]` said.
#[derive(Default)]
pub(crate) struct ComponentAttrs {
    /// The span of the `hashed` key, when given.
    pub hashed: Option<Span>,
    /// The span of the `versioned` key, when given.
    pub versioned: Option<Span>,
    /// The span of the `tracked` key, when given.
    pub tracked: Option<Span>,
    /// The span of the `saved` key, when given.
    pub saved: Option<Span>,
    /// The span of the `saved_copy` key, when given.
    pub saved_copy: Option<Span>,
    /// The span of the `sparse` key, when given.
    pub sparse: Option<Span>,
    /// The span of the `serde` key, when given.
    pub serde: Option<Span>,
    pub krate: Option<Path>,
}

/// What `#[state_hash(...)]` said on the type.
#[derive(Default)]
pub(crate) struct StateHashAttrs {
    pub krate: Option<Path>,
}

/// Parses every `#[component(...)]` of `attrs`.
pub(crate) fn component(attrs: &[Attribute]) -> syn::Result<ComponentAttrs> {
    let mut res = ComponentAttrs::default();
    for attr in attrs.iter().filter(|it| it.path().is_ident("component")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("hashed") {
                set_flag(&meta, &mut res.hashed)
            } else if meta.path.is_ident("versioned") {
                set_flag(&meta, &mut res.versioned)
            } else if meta.path.is_ident("tracked") {
                set_flag(&meta, &mut res.tracked)
            } else if meta.path.is_ident("saved") {
                set_flag(&meta, &mut res.saved)
            } else if meta.path.is_ident("saved_copy") {
                set_flag(&meta, &mut res.saved_copy)
            } else if meta.path.is_ident("sparse") {
                set_flag(&meta, &mut res.sparse)
            } else if meta.path.is_ident("serde") {
                set_flag(&meta, &mut res.serde)
            } else if meta.path.is_ident("crate") {
                set_crate(&meta, &mut res.krate)
            } else {
                Err(meta.error(format!(
                    "unknown `component` option `{}`; expected `hashed`, `versioned`, `tracked`, `saved`, `saved_copy`, `sparse`, `serde` or `crate = path`",
                    path_name(&meta.path)
                )))
            }
        })?;
    }
    if let (Some(_), Some(sparse)) = (res.versioned, res.sparse) {
        return Err(syn::Error::new(
            sparse,
            "a component cannot be both `sparse` and `versioned`: sparse components keep no \
             snapshot; drop one of them",
        ));
    }
    Ok(res)
}

/// Parses every `#[state_hash(...)]` on the type itself.
pub(crate) fn state_hash_type(attrs: &[Attribute]) -> syn::Result<StateHashAttrs> {
    let mut res = StateHashAttrs::default();
    for attr in attrs.iter().filter(|it| it.path().is_ident("state_hash")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                set_crate(&meta, &mut res.krate)
            } else if meta.path.is_ident("skip") {
                Err(meta.error("`skip` goes on a field, not on the type"))
            } else {
                Err(meta.error(format!(
                    "unknown `state_hash` option `{}` on a type; expected `crate = path`",
                    path_name(&meta.path)
                )))
            }
        })?;
    }
    Ok(res)
}

/// Whether a field's `#[state_hash(...)]` says `skip`.
pub(crate) fn state_hash_skip(attrs: &[Attribute]) -> syn::Result<bool> {
    let mut skip = None;
    for attr in attrs.iter().filter(|it| it.path().is_ident("state_hash")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                set_flag(&meta, &mut skip)
            } else {
                Err(meta.error(format!(
                    "unknown `state_hash` option `{}` on a field; expected `skip`",
                    path_name(&meta.path)
                )))
            }
        })?;
    }
    Ok(skip.is_some())
}

/// Refuses `#[state_hash(...)]` where it would mean nothing (on an enum variant).
pub(crate) fn refuse_state_hash(attrs: &[Attribute], what: &str) -> syn::Result<()> {
    match attrs.iter().find(|it| it.path().is_ident("state_hash")) {
        Some(attr) => Err(syn::Error::new_spanned(
            attr,
            format!("`state_hash` options do not apply to {what}; put `skip` on a field"),
        )),
        None => Ok(()),
    }
}

fn set_flag(meta: &ParseNestedMeta<'_>, flag: &mut Option<Span>) -> syn::Result<()> {
    if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        return Err(meta.error(format!("`{}` takes no value", path_name(&meta.path))));
    }
    if flag.is_some() {
        return Err(meta.error(format!("`{}` is given twice", path_name(&meta.path))));
    }
    *flag = Some(meta.path.segments[0].ident.span());
    Ok(())
}

fn set_crate(meta: &ParseNestedMeta<'_>, krate: &mut Option<Path>) -> syn::Result<()> {
    if krate.is_some() {
        return Err(meta.error("`crate` is given twice"));
    }
    *krate = Some(meta.value()?.parse()?);
    Ok(())
}

fn path_name(path: &Path) -> String {
    path.segments
        .iter()
        .map(|it| it.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}
