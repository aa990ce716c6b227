//! `cargo xtask api`: the committed public API manifest, `laige-api.json`.
//!
//! The manifest lists every public item of every `crates/laige-*` crate as
//! `{"path", "kind", "signature"}`, sorted, one item per line, so a pull request that changes the
//! public API shows it as a diff of this file. A `#[doc(hidden)]` item is public all the same:
//! it is listed with `"hidden": "marked"` (it carries the attribute) or `"inside"` (it is in a
//! hidden module, item or impl), and every hidden item must be named, with its reason, in
//! ADR 0001's list ([`hidden`]), so the count of hidden items cannot grow unseen. The items come from a `syn` walk of the sources
//! ([`walk`]); `docs/decisions/0001-api-manifest-extraction.md` explains why and what it misses.

pub mod hidden;
mod render;
mod walk;

use std::{collections::BTreeMap, fs, path::Path};

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

use crate::metadata;
pub use walk::{CrateSource, Entry, Hidden, public_api};

/// The manifest file name, at the workspace root.
pub const MANIFEST: &str = "laige-api.json";

/// The `format` field of the manifest; bump it when the layout or the signature style changes.
const FORMAT: &str = "laige-api/2";

/// What `cargo xtask api` does with the regenerated manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write `laige-api.json`.
    Write,
    /// Compare with the committed `laige-api.json` and fail when it differs.
    Check,
}

/// The crates whose API engines use: every `crates/laige-*` library but the test support
/// crate, which only tests depend on.
const NOT_API: &[&str] = &["laige-testkit"];

/// The published crates of the workspace at `root`: every `crates/laige-*` library but
/// [`NOT_API`].
pub fn workspace_crates(root: &Path) -> Result<Vec<CrateSource>> {
    let ws = metadata::load(root)?;
    let mut res = Vec::new();
    for pkg in ws.packages {
        let rel = metadata::display_rel(&ws.root, &pkg.dir);
        let api = rel.starts_with("crates/") && pkg.name.starts_with("laige-");
        if !api || NOT_API.contains(&pkg.name.as_str()) {
            continue;
        }
        let root = pkg
            .lib_root
            .with_context(|| format!("`{}` has no library target", pkg.name))?;
        res.push(CrateSource {
            name: pkg.name.replace('-', "_"),
            root,
        });
    }
    Ok(res)
}

/// Renders `entries` as the manifest text: pretty JSON with one item per line and a final newline.
pub fn render(entries: &[Entry]) -> String {
    let string = |s: &str| Value::String(s.to_owned()).to_string();
    let mut res = String::from("{\n");
    res.push_str(&format!("  \"format\": {},\n", string(FORMAT)));
    res.push_str(&format!(
        "  \"generated_by\": {},\n",
        string("cargo xtask api (do not edit by hand; run it and commit this file)")
    ));
    res.push_str("  \"items\": [");
    for (idx, it) in entries.iter().enumerate() {
        let sep = if idx == 0 { "\n" } else { ",\n" };
        let hidden = match it.hidden {
            Hidden::No => "",
            Hidden::Marked => ", \"hidden\": \"marked\"",
            Hidden::Inside => ", \"hidden\": \"inside\"",
        };
        res.push_str(&format!(
            "{sep}    {{\"path\": {}, \"kind\": {}, \"signature\": {}{hidden}}}",
            string(&it.path),
            string(&it.kind),
            string(&it.signature)
        ));
    }
    res.push_str(if entries.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    res
}

/// Parses manifest text back into entries.
pub fn parse(text: &str) -> Result<Vec<Entry>> {
    let json: Value = serde_json::from_str(text).context("not valid JSON")?;
    let items = json
        .get("items")
        .and_then(Value::as_array)
        .context("no `items` array")?;
    items
        .iter()
        .map(|it| {
            let field = |key: &str| {
                it.get(key)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .with_context(|| format!("item without `{key}`"))
            };
            Ok(Entry {
                path: field("path")?,
                kind: field("kind")?,
                signature: field("signature")?,
                hidden: match it.get("hidden").and_then(Value::as_str) {
                    None => Hidden::No,
                    Some("marked") => Hidden::Marked,
                    Some("inside") => Hidden::Inside,
                    Some(other) => bail!("unknown `hidden` value `{other}`"),
                },
            })
        })
        .collect()
}

/// Describes how `new` differs from `old`, by path and kind: items added, removed, or whose signature changed.
pub fn diff(old: &[Entry], new: &[Entry]) -> Vec<String> {
    type Sides<'a> = (Vec<String>, Vec<String>);
    let shown = |it: &Entry| {
        if it.hidden.any() {
            format!("{} [hidden]", it.signature)
        } else {
            it.signature.clone()
        }
    };
    let mut by_key: BTreeMap<(&str, &str), Sides<'_>> = BTreeMap::new();
    for it in old.iter().filter(|it| !new.contains(it)) {
        by_key
            .entry((&it.path, &it.kind))
            .or_default()
            .0
            .push(shown(it));
    }
    for it in new.iter().filter(|it| !old.contains(it)) {
        by_key
            .entry((&it.path, &it.kind))
            .or_default()
            .1
            .push(shown(it));
    }
    let mut res = Vec::new();
    for ((path, kind), (removed, added)) in by_key {
        let n_changed = removed.len().min(added.len());
        for (before, after) in removed.iter().zip(&added) {
            res.push(format!(
                "changed: {path} ({kind}): `{before}` is now `{after}`"
            ));
        }
        for it in &added[n_changed..] {
            res.push(format!("added:   {path} ({kind}): `{it}`"));
        }
        for it in &removed[n_changed..] {
            res.push(format!("removed: {path} ({kind}): `{it}`"));
        }
    }
    res
}

/// `cargo xtask api [--check]`.
pub fn run(root: &Path, mode: Mode) -> Result<()> {
    let entries = public_api(&workspace_crates(root)?)?;
    let text = render(&entries);
    let path = root.join(MANIFEST);
    match mode {
        Mode::Write => {
            let old = fs::read_to_string(&path).ok();
            // Written first, so the manifest shows the hidden items the check names.
            let verb = if old.as_deref() == Some(text.as_str()) {
                "is up to date"
            } else {
                fs::write(&path, &text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                "written"
            };
            let listed = hidden::check(root, &entries)?;
            println!(
                "{MANIFEST} {verb} ({} items, {listed} hidden)",
                entries.len()
            );
            Ok(())
        }
        Mode::Check => {
            let old = match fs::read_to_string(&path) {
                Ok(it) => it,
                Err(e) => bail!(
                    "cannot read {MANIFEST}: {e}; run `cargo xtask api` and commit `{MANIFEST}`"
                ),
            };
            if old == text {
                let listed = hidden::check(root, &entries)?;
                println!(
                    "api: {MANIFEST} is up to date ({} items, {listed} hidden)",
                    entries.len()
                );
                return Ok(());
            }
            let changes = match parse(&old) {
                Ok(old_entries) => diff(&old_entries, &entries),
                Err(e) => vec![format!("the committed file cannot be read: {e:#}")],
            };
            let changes = if changes.is_empty() {
                "  (same items, different layout)".to_owned()
            } else {
                changes
                    .iter()
                    .map(|it| format!("  {it}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            bail!(
                "{MANIFEST} is out of date with the sources:\n{changes}\nrun `cargo xtask api` and commit `{MANIFEST}`"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn fixture_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/api_fixture")
    }

    #[test]
    fn fixture_manifest_matches_expected() {
        let dir = fixture_dir();
        let crates = [CrateSource {
            name: "api_fixture".to_owned(),
            root: dir.join("src/lib.rs"),
        }];
        let got = render(&public_api(&crates).unwrap());
        let expected_path = dir.join("expected.json");
        if std::env::var_os("XTASK_BLESS").is_some() {
            fs::write(&expected_path, &got).unwrap();
            return;
        }
        let want = fs::read_to_string(&expected_path).unwrap_or_default();
        if got != want {
            let changes = diff(&parse(&want).unwrap_or_default(), &parse(&got).unwrap());
            panic!(
                "the fixture's manifest differs from tests/fixtures/api_fixture/expected.json:\n  {}\n\
                 if the new output is right, rerun with XTASK_BLESS=1 and review the diff",
                changes.join("\n  ")
            );
        }
    }

    /// A facade re-exporting another crate's module and items lists each as one `pub use`
    /// of its canonical path (`Exposed` is defined in a private module); its own items in full.
    #[test]
    fn reexports_of_another_crate_are_one_line_each() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let crates = ["api_fixture", "api_facade"].map(|name| CrateSource {
            name: name.to_owned(),
            root: fixtures.join(name).join("src/lib.rs"),
        });
        let facade: Vec<(String, String, String)> = public_api(&crates)
            .unwrap()
            .into_iter()
            .filter(|it| it.path.starts_with("api_facade"))
            .map(|it| (it.path, it.kind, it.signature))
            .collect();
        let row = |path: &str, kind: &str, signature: &str| {
            (path.to_owned(), kind.to_owned(), signature.to_owned())
        };
        assert_eq!(
            facade,
            [
                row("api_facade", "mod", "pub mod api_facade"),
                row(
                    "api_facade::fixture",
                    "use",
                    "pub use api_fixture as fixture"
                ),
                row("api_facade::prelude", "mod", "pub mod prelude"),
                row(
                    "api_facade::prelude::Exposed",
                    "use",
                    "pub use api_fixture::Exposed"
                ),
                row(
                    "api_facade::prelude::Wrapped",
                    "use",
                    "pub use api_fixture::Wrapper as Wrapped"
                ),
                row(
                    "api_facade::prelude::largest",
                    "use",
                    "pub use api_fixture::largest"
                ),
                row("api_facade::wiring", "fn", "pub fn wiring()"),
            ]
        );
    }

    #[test]
    fn render_parse_round_trip_and_diff() {
        let entry = |path: &str, kind: &str, signature: &str| Entry {
            path: path.to_owned(),
            kind: kind.to_owned(),
            signature: signature.to_owned(),
            hidden: Hidden::No,
        };
        let old = vec![
            entry("c::a", "fn", "pub fn a()"),
            entry("c::b", "fn", "pub fn b()"),
            entry("c::S", "struct", "pub struct S"),
        ];
        let new = vec![
            entry("c::a", "fn", "pub fn a(x: u8)"),
            entry("c::S", "struct", "pub struct S"),
            entry("c::z", "const", "pub const z: u8 = \"\\\"\""),
        ];
        assert_eq!(parse(&render(&new)).unwrap(), new);
        assert_eq!(parse(&render(&[])).unwrap(), Vec::new());
        assert!(render(&new).ends_with("}\n"));
        assert_eq!(
            diff(&old, &new),
            [
                "changed: c::a (fn): `pub fn a()` is now `pub fn a(x: u8)`",
                "removed: c::b (fn): `pub fn b()`",
                "added:   c::z (const): `pub const z: u8 = \"\\\"\"`",
            ]
        );
    }
}
