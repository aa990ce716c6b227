//! Signatures as normalized token strings.
//!
//! Items are printed from their syntax trees with attributes and bodies removed, then re-spaced by
//! [`normalize`] into the style rustfmt would use on one line (`Result<DepSpec<'a>, ParseError>`),
//! so the manifest does not change when only formatting or comments change.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{
    Fields, FieldsNamed, Generics, ImplItem, Item, ItemEnum, ItemImpl, ItemStruct, ItemTrait,
    ItemUnion, Signature, TraitItem, Variant, Visibility,
};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Flat {
    Ident(String),
    Lifetime(String),
    Literal(String),
    /// An operator made of joint punctuation; `prefix` marks a unary `-`.
    Op(String, bool),
    Open(char),
    Close(char),
}

/// Keywords after which an opening parenthesis or bracket is separated by a space.
const SPACED_KEYWORDS: &[&str] = &[
    "as", "const", "dyn", "for", "impl", "in", "mut", "static", "type", "where",
];

fn flatten(ts: TokenStream, out: &mut Vec<Flat>) {
    let mut pending: Option<String> = None;
    for tt in ts {
        if let Some(op) = pending.as_mut() {
            match &tt {
                TokenTree::Ident(ident) if op == "'" => {
                    out.push(Flat::Lifetime(format!("'{ident}")));
                    pending = None;
                    continue;
                }
                TokenTree::Punct(p) => {
                    op.push(p.as_char());
                    if p.spacing() == Spacing::Alone {
                        push_op(out, pending.take().unwrap_or_default());
                    }
                    continue;
                }
                _ => push_op(out, pending.take().unwrap_or_default()),
            }
        }
        match tt {
            TokenTree::Ident(ident) => out.push(Flat::Ident(ident.to_string())),
            TokenTree::Literal(lit) => out.push(Flat::Literal(lit.to_string())),
            TokenTree::Punct(p) if p.spacing() == Spacing::Joint => {
                pending = Some(p.as_char().to_string())
            }
            TokenTree::Punct(p) => push_op(out, p.as_char().to_string()),
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Bracket => ('[', ']'),
                    Delimiter::Brace => ('{', '}'),
                    Delimiter::None => {
                        flatten(group.stream(), out);
                        continue;
                    }
                };
                out.push(Flat::Open(open));
                let start = out.len();
                flatten(group.stream(), out);
                drop_trailing_comma(out, start, open == '(');
                out.push(Flat::Close(close));
            }
        }
    }
    if let Some(op) = pending {
        push_op(out, op);
    }
}

/// Drops a trailing comma from `out[start..]` (rustfmt keeps them on multi-line lists), except the
/// one that makes a parenthesized list of one element a tuple, like `(u8,)`.
fn drop_trailing_comma(out: &mut Vec<Flat>, start: usize, tuple: bool) {
    if !matches!(out.last(), Some(Flat::Op(op, _)) if op == ",") || out.len() <= start {
        return;
    }
    if tuple {
        let mut angle = 0i32;
        let mut commas = 0;
        let mut nested = 0i32;
        for it in &out[start..] {
            match it {
                Flat::Open(_) => nested += 1,
                Flat::Close(_) => nested -= 1,
                Flat::Op(op, _) if nested == 0 && op == "<" => angle += 1,
                Flat::Op(op, _) if nested == 0 && op == ">" => angle -= 1,
                Flat::Op(op, _) if nested == 0 && angle == 0 && op == "," => commas += 1,
                _ => {}
            }
        }
        if commas == 1 {
            return;
        }
    }
    out.pop();
}

fn push_op(out: &mut Vec<Flat>, op: String) {
    // A trailing comma in a generic list, `<T,>`, is never meaningful.
    if op == ">" && matches!(out.last(), Some(Flat::Op(prev, _)) if prev == ",") {
        out.pop();
    }
    let prefix = matches!(op.as_str(), "-" | "*" | "&" | "&&")
        && match out.last() {
            None | Some(Flat::Op(..) | Flat::Open(_)) => true,
            Some(Flat::Ident(word)) => SPACED_KEYWORDS.contains(&word.as_str()),
            Some(_) => false,
        };
    out.push(Flat::Op(op, prefix));
}

fn space_after(prev: &Flat, cur: &Flat) -> bool {
    match prev {
        Flat::Open('{') => !matches!(cur, Flat::Close('}')),
        Flat::Open(_) => false,
        Flat::Ident(_) | Flat::Lifetime(_) | Flat::Literal(_) | Flat::Close(_) => true,
        Flat::Op(op, prefix) => match op.as_str() {
            // A macro repetition `$(..)*` followed by the next `$` fragment.
            "*" | "?" | "+" if matches!(cur, Flat::Op(next, _) if next == "$") => true,
            "::" | "$" | "." | ".." | "..=" | "#" | "<" | "!" | "?" | "'" => false,
            "-" | "*" | "&" | "&&" => !prefix,
            _ => true,
        },
    }
}

fn space_before(prev: &Flat, cur: &Flat, macro_matcher: bool) -> bool {
    match cur {
        Flat::Close('}') => !matches!(prev, Flat::Open('{')),
        Flat::Close(_) => false,
        Flat::Open('{') => true,
        Flat::Open(_) => match prev {
            Flat::Ident(word) => SPACED_KEYWORDS.contains(&word.as_str()),
            Flat::Op(op, _) => op != ">",
            _ => false,
        },
        Flat::Ident(_) | Flat::Lifetime(_) | Flat::Literal(_) => true,
        Flat::Op(op, _) => match op.as_str() {
            "," | ";" | ":" | "." | ">" => false,
            "::" | "<" => matches!(prev, Flat::Op(op, _) if op != ">"),
            "!" => match prev {
                Flat::Ident(word) => word == "impl",
                _ => true,
            },
            // In a macro matcher, `$(..)*`, `$(..)?` and `$(..)+` are repetitions.
            "*" | "?" | "+" if macro_matcher => !matches!(prev, Flat::Close(_)),
            "?" => !matches!(prev, Flat::Close(_)),
            _ => true,
        },
    }
}

/// Prints `ts` on one line with rustfmt-like spacing.
pub fn normalize(ts: TokenStream) -> String {
    normalize_with(ts, false)
}

fn normalize_with(ts: TokenStream, macro_matcher: bool) -> String {
    let mut flat = Vec::new();
    flatten(ts, &mut flat);
    drop_trailing_comma(&mut flat, 0, false);
    let mut res = String::new();
    let mut prev: Option<&Flat> = None;
    for cur in &flat {
        if let Some(prev) = prev
            && space_after(prev, cur)
            && space_before(prev, cur, macro_matcher)
        {
            res.push(' ');
        }
        match cur {
            Flat::Ident(s) | Flat::Lifetime(s) | Flat::Literal(s) | Flat::Op(s, _) => {
                res.push_str(s)
            }
            Flat::Open(c) | Flat::Close(c) => res.push(*c),
        }
        prev = Some(cur);
    }
    res
}

fn norm(tokens: &impl ToTokens) -> String {
    normalize(tokens.to_token_stream())
}

fn non_exhaustive(attrs: &[syn::Attribute]) -> &'static str {
    if attrs.iter().any(|it| it.path().is_ident("non_exhaustive")) {
        "#[non_exhaustive] "
    } else {
        ""
    }
}

/// Whether `vis` is plain `pub`.
pub fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// `sig` without what only matters inside the body: parameter attributes and `mut` bindings.
fn clean_sig(sig: &Signature) -> Signature {
    let mut sig = sig.clone();
    for arg in &mut sig.inputs {
        match arg {
            syn::FnArg::Receiver(it) => {
                it.attrs.clear();
                // `mut self` is a binding; `&mut self` is part of the signature.
                if it.reference.is_none() {
                    it.mutability = None;
                }
            }
            syn::FnArg::Typed(it) => {
                it.attrs.clear();
                if let syn::Pat::Ident(pat) = &mut *it.pat {
                    pat.mutability = None;
                }
            }
        }
    }
    sig
}

/// ` = value` for a constant whose value is a simple expression (literals, paths, calls and
/// arithmetic over them), else nothing: struct and array literals spell out private fields and
/// would churn the manifest whenever the representation changes.
fn const_value(expr: &syn::Expr) -> String {
    fn simple(expr: &syn::Expr) -> bool {
        use syn::Expr;
        match expr {
            Expr::Lit(_) | Expr::Path(_) => true,
            Expr::Unary(it) => simple(&it.expr),
            Expr::Binary(it) => simple(&it.left) && simple(&it.right),
            Expr::Paren(it) => simple(&it.expr),
            Expr::Group(it) => simple(&it.expr),
            Expr::Cast(it) => simple(&it.expr),
            Expr::Call(it) => simple(&it.func) && it.args.iter().all(simple),
            _ => false,
        }
    }
    if simple(expr) {
        format!(" = {}", norm(expr))
    } else {
        String::new()
    }
}

/// `pub fn name<G>(args) -> Ret where ..`.
pub fn fn_sig(vis_pub: bool, sig: &Signature) -> String {
    let sig = clean_sig(sig);
    if vis_pub {
        norm(&quote!(pub #sig))
    } else {
        norm(&sig)
    }
}

/// The generics (without where clause) and the where clause of `generics`, printed.
fn split_generics(generics: &Generics) -> (String, String) {
    let where_clause = generics
        .where_clause
        .as_ref()
        .map(|it| format!(" {}", norm(it)))
        .unwrap_or_default();
    (norm(generics), where_clause)
}

/// The public fields of `fields` as `{ pub a: T, .. }` / `(pub T, _)` / nothing, plus whether it is a tuple.
fn fields_shape(
    fields: &Fields,
    only_pub: bool,
    hidden: impl Fn(&[syn::Attribute]) -> bool,
) -> String {
    let show = |field: &syn::Field| (!only_pub || is_pub(&field.vis)) && !hidden(&field.attrs);
    let field_text = |field: &syn::Field| {
        let mut field = field.clone();
        field.attrs.clear();
        norm(&field)
    };
    match fields {
        Fields::Unit => String::new(),
        Fields::Named(FieldsNamed { named, .. }) => {
            let mut parts: Vec<String> =
                named.iter().filter(|it| show(it)).map(field_text).collect();
            if parts.len() != named.len() {
                parts.push("..".to_owned());
            }
            if parts.is_empty() {
                " {}".to_owned()
            } else {
                format!(" {{ {} }}", parts.join(", "))
            }
        }
        Fields::Unnamed(unnamed) => {
            let parts: Vec<String> = unnamed
                .unnamed
                .iter()
                .map(|it| {
                    if show(it) {
                        field_text(it)
                    } else {
                        "_".to_owned()
                    }
                })
                .collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// `pub struct S<G>(pub T, _) where ..` or `pub struct S<G> where .. { pub a: T, .. }`.
pub fn struct_sig(item: &ItemStruct, hidden: impl Fn(&[syn::Attribute]) -> bool) -> String {
    let (generics, where_clause) = split_generics(&item.generics);
    let shape = fields_shape(&item.fields, true, hidden);
    let head = format!(
        "{}pub struct {}{generics}",
        non_exhaustive(&item.attrs),
        item.ident
    );
    match item.fields {
        Fields::Named(_) => format!("{head}{where_clause}{shape}"),
        _ => format!("{head}{shape}{where_clause}"),
    }
}

/// `pub union U<G> where .. { pub a: T, .. }`.
pub fn union_sig(item: &ItemUnion, hidden: impl Fn(&[syn::Attribute]) -> bool) -> String {
    let (generics, where_clause) = split_generics(&item.generics);
    let shape = fields_shape(&Fields::Named(item.fields.clone()), true, hidden);
    format!("pub union {}{generics}{where_clause}{shape}", item.ident)
}

/// `A`, `B(u32)`, `C { x: u32 }`, `D = 3`, with `#[non_exhaustive]` when present.
pub fn variant_sig(variant: &Variant) -> String {
    let shape = fields_shape(&variant.fields, false, |_| false);
    let discriminant = variant
        .discriminant
        .as_ref()
        .map(|(_, expr)| format!(" = {}", norm(expr)))
        .unwrap_or_default();
    format!(
        "{}{}{shape}{discriminant}",
        non_exhaustive(&variant.attrs),
        variant.ident
    )
}

/// `pub enum E<G> where .. { A, B(u32) }` listing the visible variants.
pub fn enum_sig(item: &ItemEnum, hidden: impl Fn(&[syn::Attribute]) -> bool) -> String {
    let (generics, where_clause) = split_generics(&item.generics);
    let variants: Vec<String> = item
        .variants
        .iter()
        .filter(|it| !hidden(&it.attrs))
        .map(variant_sig)
        .collect();
    let body = if variants.is_empty() {
        "{}".to_owned()
    } else {
        format!("{{ {} }}", variants.join(", "))
    };
    format!(
        "{}pub enum {}{generics}{where_clause} {body}",
        non_exhaustive(&item.attrs),
        item.ident
    )
}

/// `pub unsafe trait T<G>: Super where ..` (the items are listed separately).
pub fn trait_sig(item: &ItemTrait) -> String {
    let (generics, where_clause) = split_generics(&item.generics);
    let unsafety = if item.unsafety.is_some() {
        "unsafe "
    } else {
        ""
    };
    let auto = if item.auto_token.is_some() {
        "auto "
    } else {
        ""
    };
    let supertraits = if item.supertraits.is_empty() {
        String::new()
    } else {
        format!(": {}", norm(&item.supertraits))
    };
    format!(
        "pub {unsafety}{auto}trait {}{generics}{supertraits}{where_clause}",
        item.ident
    )
}

/// One item of a trait definition: its kind and signature.
pub fn trait_item_sig(item: &TraitItem) -> Option<(&'static str, String, String)> {
    match item {
        TraitItem::Fn(it) => {
            let body = if it.default.is_some() { " { .. }" } else { "" };
            Some((
                "method",
                it.sig.ident.to_string(),
                format!("{}{body}", fn_sig(false, &it.sig)),
            ))
        }
        TraitItem::Type(it) => {
            let mut it = it.clone();
            it.attrs.clear();
            let text = norm(&it).trim_end_matches(';').to_owned();
            Some(("assoc type", it.ident.to_string(), text))
        }
        TraitItem::Const(it) => {
            let value = it
                .default
                .as_ref()
                .map(|(_, expr)| const_value(expr))
                .unwrap_or_default();
            Some((
                "assoc const",
                it.ident.to_string(),
                format!("const {}: {}{value}", it.ident, norm(&it.ty)),
            ))
        }
        _ => None,
    }
}

/// `impl<G> Trait for Type where ..` (or `impl<G> Type` for inherent impls).
pub fn impl_header(item: &ItemImpl) -> String {
    let mut item = item.clone();
    item.attrs.clear();
    item.items.clear();
    let mut text = norm(&item);
    // Printing an impl always ends in its (now empty) body.
    if let Some(stripped) = text.strip_suffix(" {}") {
        text = stripped.to_owned();
    }
    text
}

/// One item of an impl block: its kind, name and signature. `vis_pub` prints `pub` for inherent items.
pub fn impl_item_sig(item: &ImplItem) -> Option<(&'static str, String, String)> {
    match item {
        ImplItem::Fn(it) => Some((
            "method",
            it.sig.ident.to_string(),
            fn_sig(is_pub(&it.vis), &it.sig),
        )),
        ImplItem::Const(it) => {
            let vis = if is_pub(&it.vis) { "pub " } else { "" };
            let value = const_value(&it.expr);
            Some((
                "assoc const",
                it.ident.to_string(),
                format!("{vis}const {}: {}{value}", it.ident, norm(&it.ty)),
            ))
        }
        ImplItem::Type(it) => {
            let vis = if is_pub(&it.vis) { "pub " } else { "" };
            let (generics, where_clause) = split_generics(&it.generics);
            Some((
                "assoc type",
                it.ident.to_string(),
                format!(
                    "{vis}type {}{generics}{where_clause} = {}",
                    it.ident,
                    norm(&it.ty)
                ),
            ))
        }
        _ => None,
    }
}

/// The kind and signature of a module-level item, or `None` for items that are not API.
pub fn item_sig(
    item: &Item,
    hidden: impl Fn(&[syn::Attribute]) -> bool,
) -> Option<(&'static str, String)> {
    Some(match item {
        Item::Fn(it) => ("fn", fn_sig(true, &it.sig)),
        Item::Struct(it) => ("struct", struct_sig(it, hidden)),
        Item::Enum(it) => ("enum", enum_sig(it, hidden)),
        Item::Union(it) => ("union", union_sig(it, hidden)),
        Item::Trait(it) => ("trait", trait_sig(it)),
        Item::TraitAlias(it) => {
            let (generics, where_clause) = split_generics(&it.generics);
            (
                "trait alias",
                format!(
                    "pub trait {}{generics} = {}{where_clause}",
                    it.ident,
                    norm(&it.bounds)
                ),
            )
        }
        Item::Type(it) => {
            let (generics, where_clause) = split_generics(&it.generics);
            (
                "type",
                format!(
                    "pub type {}{generics}{where_clause} = {}",
                    it.ident,
                    norm(&it.ty)
                ),
            )
        }
        Item::Const(it) => {
            let (generics, _) = split_generics(&it.generics);
            (
                "const",
                format!(
                    "pub const {}{generics}: {}{}",
                    it.ident,
                    norm(&it.ty),
                    const_value(&it.expr)
                ),
            )
        }
        Item::Static(it) => {
            let mutability = if matches!(it.mutability, syn::StaticMutability::Mut(_)) {
                "mut "
            } else {
                ""
            };
            (
                "static",
                format!("pub static {mutability}{}: {}", it.ident, norm(&it.ty)),
            )
        }
        Item::Macro(it) => ("macro", macro_sig(it)?),
        _ => return None,
    })
}

/// `macro_rules! name { (matcher) => { .. }; .. }`, listing every arm's matcher.
fn macro_sig(item: &syn::ItemMacro) -> Option<String> {
    let name = item.ident.as_ref()?;
    let mut arms = Vec::new();
    let mut expect_matcher = true;
    for tt in item.mac.tokens.clone() {
        if let TokenTree::Group(group) = &tt
            && expect_matcher
        {
            arms.push(format!(
                "{} => {{ .. }}",
                normalize_with(TokenTree::Group(group.clone()).into(), true)
            ));
            expect_matcher = false;
        } else if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ';') {
            expect_matcher = true;
        }
    }
    Some(format!("macro_rules! {name} {{ {} }}", arms.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig_of(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        fn_sig(true, &item.sig)
    }

    #[test]
    fn normalizes_like_rustfmt() {
        let cases = [
            (
                "pub fn parse<'a>(spec: &'a str) -> Result<DepSpec<'a>, ParseError> {}",
                "pub fn parse<'a>(spec: &'a str) -> Result<DepSpec<'a>, ParseError>",
            ),
            (
                "fn f<T: ?Sized + Clone, const N: usize>(x: &mut [T; N], y: *const T) where T: 'static {}",
                "pub fn f<T: ?Sized + Clone, const N: usize>(x: &mut [T; N], y: *const T) where T: 'static",
            ),
            (
                "fn g(f: impl Fn(u8) -> u8, it: impl Iterator<Item = Vec<Vec<u8>>>) -> <T as Tr>::Out {}",
                "pub fn g(f: impl Fn(u8) -> u8, it: impl Iterator<Item = Vec<Vec<u8>>>) -> <T as Tr>::Out",
            ),
            (
                "async unsafe fn h(&self, _: (u8, ())) -> ! {}",
                "pub async unsafe fn h(&self, _: (u8, ())) -> !",
            ),
            (
                "fn k(x: &dyn for<'a> Fn(&'a u8)) -> ::core::fmt::Result {}",
                "pub fn k(x: &dyn for<'a> Fn(&'a u8)) -> ::core::fmt::Result",
            ),
            (
                "fn m<T,>(a: (u8,), b: (Vec<u8>,), c: (u8, u16,),) where T: Clone, {}",
                "pub fn m<T>(a: (u8,), b: (Vec<u8>,), c: (u8, u16)) where T: Clone",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(sig_of(src), want);
        }
    }

    #[test]
    fn prints_impl_headers_and_consts() {
        let item: ItemImpl =
            syn::parse_str("impl<T: Clone> core::fmt::Display for Wrap<T> where T: Send { }")
                .unwrap();
        assert_eq!(
            impl_header(&item),
            "impl<T: Clone> core::fmt::Display for Wrap<T> where T: Send"
        );
        let item: ItemImpl = syn::parse_str("unsafe impl !Sync for X {}").unwrap();
        assert_eq!(impl_header(&item), "unsafe impl !Sync for X");
        let item: Item = syn::parse_str("pub const MIN: i32 = -1;").unwrap();
        assert_eq!(
            item_sig(&item, |_| false).unwrap().1,
            "pub const MIN: i32 = -1"
        );
    }
}
