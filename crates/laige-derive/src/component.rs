//! `#[derive(Component)]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{DeriveInput, GenericParam, parse_quote, parse_quote_spanned};

use crate::{attrs, krate};

pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let attrs = attrs::component(&input.attrs)?;
    if let Some(lifetime) = input.generics.lifetimes().next() {
        return Err(syn::Error::new_spanned(
            lifetime,
            "a component is stored in the world, so it must be `'static`: it cannot have a lifetime parameter",
        ));
    }
    let krate = krate::path(attrs.krate.as_ref());
    let name = &input.ident;

    let mut generics = input.generics.clone();
    let type_params: Vec<_> = generics.type_params().map(|it| it.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in &type_params {
        where_clause
            .predicates
            .push(parse_quote!(#param: ::core::marker::Send + ::core::marker::Sync + 'static));
    }
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let generic = input
        .generics
        .params
        .iter()
        .any(|it| matches!(it, GenericParam::Type(_) | GenericParam::Const(_)));

    // Each option's call carries its key's span, so a missing `StateHash` or `Clone` is
    // reported at `hashed` or `versioned`.
    let mut options = quote!(#krate::ComponentOptions::<Self>::new());
    if let Some(span) = attrs.hashed {
        options = quote_spanned!(span=> #options.hashed());
        if generic {
            where_clause
                .predicates
                .push(parse_quote_spanned!(span=> #name #ty_generics: #krate::StateHash));
        }
    }
    if let Some(span) = attrs.versioned {
        options = quote_spanned!(span=> #options.versioned());
        if generic {
            where_clause
                .predicates
                .push(parse_quote_spanned!(span=> #name #ty_generics: ::core::clone::Clone));
        }
    }
    if let Some(span) = attrs.tracked {
        options = quote_spanned!(span=> #options.tracked());
    }
    if let Some(span) = attrs.saved {
        options = quote_spanned!(span=> #options.saved());
        if generic {
            where_clause
                .predicates
                .push(parse_quote_spanned!(span=> #name #ty_generics: ::core::clone::Clone));
        }
    }
    if let Some(span) = attrs.saved_copy {
        options = quote_spanned!(span=> #options.saved_copy());
        if generic {
            where_clause
                .predicates
                .push(parse_quote_spanned!(span=> #name #ty_generics: ::core::marker::Copy));
        }
    }
    if let Some(span) = attrs.sparse {
        options = quote_spanned!(span=> #options.sparse());
    }
    if let Some(span) = attrs.serde {
        options = quote_spanned!(span=> #options.serde());
        if generic {
            where_clause.predicates.push(parse_quote_spanned!(span=>
                #name #ty_generics: ::core::clone::Clone
                    + ::serde::Serialize
                    + ::serde::de::DeserializeOwned
            ));
        }
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();

    let any_option = attrs.hashed.is_some()
        || attrs.versioned.is_some()
        || attrs.tracked.is_some()
        || attrs.saved.is_some()
        || attrs.saved_copy.is_some()
        || attrs.sparse.is_some()
        || attrs.serde.is_some();
    let options_fn = any_option.then(|| {
        quote! {
            #[inline]
            fn component_options() -> #krate::ComponentOptions<Self> {
                #options
            }
        }
    });
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Component for #name #ty_generics #where_clause {
            #options_fn
        }
    })
}
