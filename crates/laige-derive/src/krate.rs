//! Where the generated code finds the laige items (`Component`, `StateHash`, ...).

use proc_macro2::TokenStream;
use quote::quote;
use syn::Path;

/// The path of the crate root that holds `Component`, `ComponentOptions`, `StateHash` and
/// `StateHasher`: `given` when the attribute named one, else `::laige_world` for
/// laige-world itself and for crates that depend on it but not on `laige-sim`, else
/// `::laige_sim::world` (the facade users depend on).
pub(crate) fn path(given: Option<&Path>) -> TokenStream {
    if let Some(given) = given {
        return quote!(#given);
    }
    // Cargo sets both for every crate it compiles, and the derive runs inside that
    // compilation, so they name the crate being built (its tests and doctests included).
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    let uses_world_directly = match package.as_str() {
        "laige-sim" => false,
        "laige-world" => true,
        _ => std::env::var("CARGO_MANIFEST_DIR")
            .ok()
            .and_then(|dir| std::fs::read_to_string(format!("{dir}/Cargo.toml")).ok())
            .is_some_and(|manifest| {
                !depends_on(&manifest, "laige-sim") && depends_on(&manifest, "laige-world")
            }),
    };
    if uses_world_directly {
        quote!(::laige_world)
    } else {
        quote!(::laige_sim::world)
    }
}

/// Whether `manifest` has a dependency entry for `name`: a key `name = ...` or
/// `name.workspace = ...`, or a table `[...dependencies.name]`.
fn depends_on(manifest: &str, name: &str) -> bool {
    manifest.lines().map(str::trim).any(|line| {
        let key = line.trim_start_matches('"');
        let is_key = key.strip_prefix(name).is_some_and(|rest| {
            rest.trim_start_matches('"')
                .trim_start()
                .starts_with(['=', '.'])
        });
        let is_table = line.starts_with('[')
            && line
                .trim_end_matches(']')
                .ends_with(&format!("dependencies.{name}"));
        is_key || is_table
    })
}

#[cfg(test)]
mod tests {
    use super::depends_on;

    #[test]
    fn finds_dependency_keys_and_tables() {
        let manifest = "[dependencies]\nlaige-world.workspace = true\n\"laige-x\" = \"1\"\n\
                        [dev-dependencies.laige-sim]\npath = \"..\"\n";
        assert!(depends_on(manifest, "laige-world"));
        assert!(depends_on(manifest, "laige-x"));
        assert!(depends_on(manifest, "laige-sim"));
        assert!(!depends_on(manifest, "laige"));
        assert!(!depends_on(
            "[package]\nname = \"laige-sim-user\"\n",
            "laige-sim"
        ));
        assert!(depends_on("laige-sim = { path = \"x\" }", "laige-sim"));
    }

    proptest::proptest! {
        /// Any text is read without a panic, and a dependency line added anywhere is found.
        #[test]
        fn any_manifest_is_read_and_an_added_key_is_found(
            lines in proptest::collection::vec("[ -~]{0,40}", 0..12),
            at in 0usize..12,
        ) {
            let text = lines.join("\n");
            let _ = depends_on(&text, "laige-sim");
            let mut with_key = lines.clone();
            with_key.insert(at.min(lines.len()), "laige-sim = \"0.1\"".to_owned());
            proptest::prop_assert!(depends_on(&with_key.join("\n"), "laige-sim"));
        }
    }
}
