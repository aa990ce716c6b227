//! `#[derive(StateHash)]`: fields in declaration order, enums by variant index then fields.

use proc_macro2::{TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Index, Member, parse_quote};

use crate::{attrs, krate};

pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let attrs = attrs::state_hash_type(&input.attrs)?;
    let krate = krate::path(attrs.krate.as_ref());
    let name = &input.ident;
    let type_params: Vec<Ident> = input
        .generics
        .type_params()
        .map(|it| it.ident.clone())
        .collect();
    // Field types that mention a type parameter get a `StateHash` bound.
    let mut bounded = Vec::new();

    let body = match &input.data {
        Data::Struct(data) => {
            let mut feeds = Vec::new();
            for (member, field) in hashed_fields(&data.fields)? {
                note_bound(&field.ty, &type_params, &mut bounded);
                feeds.push(feed(&krate, &field.ty, quote!(&self.#member)));
            }
            quote!(#(#feeds)*)
        }
        Data::Enum(data) => {
            let count = data.variants.len();
            let mut arms = Vec::new();
            for (index, variant) in data.variants.iter().enumerate() {
                attrs::refuse_state_hash(&variant.attrs, "an enum variant")?;
                let tag = if count <= 1 << 8 {
                    let tag = index as u8;
                    quote!(__laige_hasher.write_u8(#tag);)
                } else if count <= 1 << 16 {
                    let tag = index as u16;
                    quote!(__laige_hasher.write_u16(#tag);)
                } else {
                    let tag = index as u32;
                    quote!(__laige_hasher.write_u32(#tag);)
                };
                let variant_name = &variant.ident;
                let mut patterns = Vec::new();
                let mut feeds = Vec::new();
                let hashed = hashed_fields(&variant.fields)?;
                for (position, field) in variant.fields.iter().enumerate() {
                    let member = member(position, field);
                    match hashed.iter().find(|(it, _)| *it == member) {
                        Some(_) => {
                            let binding = format_ident!("__laige_field{position}");
                            note_bound(&field.ty, &type_params, &mut bounded);
                            feeds.push(feed(&krate, &field.ty, quote!(#binding)));
                            patterns.push(quote!(#member: #binding));
                        }
                        None => patterns.push(quote!(#member: _)),
                    }
                }
                arms.push(quote! {
                    Self::#variant_name { #(#patterns),* } => {
                        #tag
                        #(#feeds)*
                    }
                });
            }
            if arms.is_empty() {
                // An enum without variants has no value to hash (and `&Never` is inhabited).
                quote!(match *self {})
            } else {
                quote! {
                    match self {
                        #(#arms)*
                    }
                }
            }
        }
        Data::Union(data) => {
            return Err(syn::Error::new(
                data.union_token.span(),
                "`StateHash` cannot be derived for a union: which field holds the value is not known; implement `StateHash` by hand",
            ));
        }
    };

    let mut generics = input.generics.clone();
    let where_clause = generics.make_where_clause();
    for ty in bounded {
        where_clause
            .predicates
            .push(parse_quote!(#ty: #krate::StateHash));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::StateHash for #name #ty_generics #where_clause {
            #[inline]
            #[allow(unused_variables)]
            fn hash_state(&self, __laige_hasher: &mut #krate::StateHasher) {
                #body
            }
        }
    })
}

/// The fields that are hashed, in declaration order, with their member names.
fn hashed_fields(fields: &Fields) -> syn::Result<Vec<(Member, &syn::Field)>> {
    let mut res = Vec::new();
    for (position, field) in fields.iter().enumerate() {
        if !attrs::state_hash_skip(&field.attrs)? {
            res.push((member(position, field), field));
        }
    }
    Ok(res)
}

fn member(position: usize, field: &syn::Field) -> Member {
    match &field.ident {
        Some(ident) => Member::Named(ident.clone()),
        None => Member::Unnamed(Index {
            index: position as u32,
            span: field.ty.span(),
        }),
    }
}

/// Feeds `value` (a reference to a `ty`), with the field type's span, so a field whose type
/// has no `StateHash` is reported at that field.
fn feed(krate: &TokenStream, ty: &syn::Type, value: TokenStream) -> TokenStream {
    quote_spanned! {ty.span()=>
        <#ty as #krate::StateHash>::hash_state(#value, __laige_hasher);
    }
}

fn note_bound(ty: &syn::Type, type_params: &[Ident], bounded: &mut Vec<syn::Type>) {
    let same = |it: &syn::Type| quote!(#it).to_string() == quote!(#ty).to_string();
    if mentions(quote!(#ty), type_params) && !bounded.iter().any(same) {
        bounded.push(ty.clone());
    }
}

fn mentions(tokens: TokenStream, names: &[Ident]) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(ident) => names.contains(&ident),
        TokenTree::Group(group) => mentions(group.stream(), names),
        _ => false,
    })
}
