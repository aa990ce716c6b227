//! The workspace layering table: which crate may depend on which, and where `unsafe` may live.
//!
//! [`LAYERING`] is the single source of truth.
//! `docs/ARCHITECTURE.md` carries a rendered copy between the markers [`DOCS_BEGIN`] and [`DOCS_END`];
//! `cargo xtask lint --bless-docs` rewrites that copy, and a test fails when the two drift apart.

use std::fmt::Write as _;

/// The normal dependencies one crate may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowed {
    /// Exactly these packages (internal and external), nothing else.
    Only(&'static [&'static str]),
    /// Any package at all (tooling crates).
    Anything,
}

/// One row of the layering table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layer {
    /// The package name, as in `Cargo.toml`.
    pub krate: &'static str,
    /// The normal (and build) dependencies it may have; dev-dependencies are free.
    pub allowed: Allowed,
    /// Whether `unsafe` may appear under the crate's `src/`.
    pub unsafe_allowed: bool,
    /// Whether the crate must be `#![no_std]` (and then has no dependencies at all).
    pub no_std: bool,
}

const fn layer(krate: &'static str, deps: &'static [&'static str], unsafe_allowed: bool) -> Layer {
    Layer {
        krate,
        allowed: Allowed::Only(deps),
        unsafe_allowed,
        no_std: false,
    }
}

/// The layering table, in layer order: each crate may use only crates listed above it.
pub const LAYERING: &[Layer] = &[
    // `arrayvec` without default features is `no_std` and never allocates (rule 2).
    Layer {
        krate: "laige-depspec",
        allowed: Allowed::Only(&["arrayvec"]),
        unsafe_allowed: false,
        no_std: true,
    },
    layer("laige-diag", &["arrayvec", "tracing", "quanta"], false),
    layer(
        "laige-registry",
        &["laige-depspec", "laige-diag", "tracing"],
        false,
    ),
    // Storage under the tick layer: it knows no schedule, runner or executor. Feature
    // `serde` writes save files: serde's data model, postcard and serde_json (ADR 0019).
    layer(
        "laige-storage",
        &[
            "arrayvec",
            "laige-diag",
            "laige-registry",
            "postcard",
            "serde",
            "serde_json",
        ],
        true,
    ),
    // Typed, checked queries over the storage's tables, and a system's declared access.
    layer("laige-query", &["laige-registry", "laige-storage"], true),
    layer(
        "laige-scheduler",
        &[
            "arrayvec",
            "laige-depspec",
            "laige-diag",
            "laige-registry",
            "smallvec",
            "tracing",
        ],
        false,
    ),
    layer(
        "laige-runner",
        &["laige-diag", "laige-registry", "laige-scheduler", "tracing"],
        false,
    ),
    layer(
        "laige-executor",
        &["laige-diag", "laige-registry", "laige-scheduler", "tracing"],
        true,
    ),
    // The recorders' data and formats, under the World that owns and feeds them.
    layer(
        "laige-record",
        &[
            "laige-diag",
            "laige-registry",
            "laige-scheduler",
            "laige-storage",
        ],
        false,
    ),
    // The derives (`Component`, `StateHash`): a proc-macro crate that names no laige crate;
    // its generated code names the facade's paths.
    layer("laige-derive", &["proc-macro2", "quote", "syn"], false),
    // `#![deny(unsafe_code)]`, allowed in `parallel_host.rs` alone (the `SharedHost` impl and
    // the one checked view it opens), by design.
    layer(
        "laige-world",
        &[
            "laige-diag",
            "laige-registry",
            "laige-storage",
            "laige-query",
            "laige-record",
            "laige-scheduler",
            "laige-runner",
            "laige-executor",
            "laige-derive",
            "rand_core",
            "serde",
            "tracing",
        ],
        true,
    ),
    // The tick driver over the World: the metronome, the overload ladder, the telemetry.
    layer(
        "laige-runtime",
        &[
            "laige-diag",
            "laige-registry",
            "laige-scheduler",
            "laige-runner",
            "laige-executor",
            "laige-world",
        ],
        false,
    ),
    layer(
        "laige-sim",
        &[
            "laige-depspec",
            "laige-diag",
            "laige-registry",
            "laige-scheduler",
            "laige-runner",
            "laige-executor",
            "laige-world",
            "laige-runtime",
            "tracing",
        ],
        false,
    ),
    // Test support, used only as a dev-dependency; its counting allocator implements `GlobalAlloc`.
    layer("laige-testkit", &["tracing", "tracing-subscriber"], true),
    Layer {
        krate: "xtask",
        allowed: Allowed::Anything,
        unsafe_allowed: false,
        no_std: false,
    },
];

/// The marker line that opens the rendered table in `docs/ARCHITECTURE.md`.
pub const DOCS_BEGIN: &str = "<!-- layering-table:begin -->";
/// The marker line that closes the rendered table in `docs/ARCHITECTURE.md`.
pub const DOCS_END: &str = "<!-- layering-table:end -->";

/// The row for `krate`, if the table has one.
pub fn find(krate: &str) -> Option<&'static Layer> {
    LAYERING.iter().find(|it| it.krate == krate)
}

/// Whether `dep` is an allowed normal dependency of the crate described by `layer`.
pub fn allows(layer: &Layer, dep: &str) -> bool {
    match layer.allowed {
        Allowed::Anything => true,
        Allowed::Only(deps) => deps.contains(&dep),
    }
}

/// Renders `table` as the markdown that sits between the markers (markers excluded).
pub fn render_markdown(table: &[Layer]) -> String {
    let mut res = String::new();
    res.push_str("| crate | allowed normal dependencies | unsafe allowed |\n");
    res.push_str("|---|---|---|\n");
    for it in table {
        let deps = match it.allowed {
            Allowed::Anything => "anything".to_owned(),
            Allowed::Only([]) if it.no_std => "(none; must also be `#![no_std]`)".to_owned(),
            Allowed::Only(deps) if it.no_std => format!(
                "{} (without default features; must also be `#![no_std]`)",
                backticked(deps)
            ),
            Allowed::Only([]) => "(none)".to_owned(),
            Allowed::Only(deps) => backticked(deps),
        };
        let unsafe_allowed = if it.unsafe_allowed { "yes" } else { "no" };
        // Writing into a String cannot fail.
        let _ = writeln!(res, "| `{}` | {deps} | {unsafe_allowed} |", it.krate);
    }
    res.push_str(
        "\nDev-dependencies are free. \
         This table is generated from `xtask/src/layering.rs` (`LAYERING`) by `cargo xtask lint --bless-docs`, \
         and `cargo xtask lint` enforces it.\n",
    );
    res
}

/// `` `a`, `b` ``.
fn backticked(deps: &[&str]) -> String {
    deps.iter()
        .map(|dep| format!("`{dep}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One row as parsed back from markdown, in owned form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRow {
    /// The crate name.
    pub krate: String,
    /// `None` means "anything".
    pub allowed: Option<Vec<String>>,
    /// The `unsafe allowed` column.
    pub unsafe_allowed: bool,
    /// Whether the dependency cell mentions `no_std`.
    pub no_std: bool,
}

impl ParsedRow {
    fn from_layer(layer: &Layer) -> ParsedRow {
        ParsedRow {
            krate: layer.krate.to_owned(),
            allowed: match layer.allowed {
                Allowed::Anything => None,
                Allowed::Only(deps) => Some(deps.iter().map(|it| (*it).to_owned()).collect()),
            },
            unsafe_allowed: layer.unsafe_allowed,
            no_std: layer.no_std,
        }
    }
}

/// Extracts the text between the markers of `doc`, or explains what is missing.
pub fn marked_section(doc: &str) -> Result<&str, String> {
    let start = doc
        .find(DOCS_BEGIN)
        .ok_or_else(|| format!("marker `{DOCS_BEGIN}` not found"))?;
    let body_start = start + DOCS_BEGIN.len();
    let end = doc[body_start..]
        .find(DOCS_END)
        .map(|it| it + body_start)
        .ok_or_else(|| format!("marker `{DOCS_END}` not found after `{DOCS_BEGIN}`"))?;
    Ok(&doc[body_start..end])
}

/// Replaces the text between the markers of `doc` with the rendering of `table`.
pub fn bless_markdown(doc: &str, table: &[Layer]) -> Result<String, String> {
    let section = marked_section(doc)?;
    let start = section.as_ptr() as usize - doc.as_ptr() as usize;
    let end = start + section.len();
    Ok(format!(
        "{}\n{}{}",
        &doc[..start],
        render_markdown(table),
        &doc[end..]
    ))
}

/// Parses the markdown table rows found in `section` (header and separator rows are skipped).
pub fn parse_markdown(section: &str) -> Result<Vec<ParsedRow>, String> {
    let mut res = Vec::new();
    for line in section
        .lines()
        .map(str::trim)
        .filter(|it| it.starts_with('|'))
    {
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(|it| it.trim().trim_matches('`').trim())
            .collect();
        if cells.len() != 3 {
            return Err(format!("expected 3 columns in `{line}`"));
        }
        if cells[0] == "crate" || cells[0].chars().all(|c| c == '-' || c == ':') {
            continue;
        }
        let no_std = cells[1].contains("no_std");
        // A `no_std` row's note follows its list in parentheses.
        let deps_cell = match cells[1].split_once(" (") {
            Some((list, _)) if no_std => list,
            _ => cells[1],
        };
        let allowed = if deps_cell == "anything" {
            None
        } else if deps_cell.starts_with("(none") {
            Some(Vec::new())
        } else {
            Some(
                deps_cell
                    .split(',')
                    .map(|it| it.trim().trim_matches('`').to_owned())
                    .collect(),
            )
        };
        let unsafe_allowed = match cells[2] {
            "yes" => true,
            "no" => false,
            other => {
                return Err(format!(
                    "`unsafe allowed` must be yes or no, found `{other}`"
                ));
            }
        };
        res.push(ParsedRow {
            krate: cells[0].to_owned(),
            allowed,
            unsafe_allowed,
            no_std,
        });
    }
    Ok(res)
}

/// Compares the table in `doc` with `table`; returns one message per differing row.
pub fn diff_docs(doc: &str, table: &[Layer]) -> Vec<String> {
    let parsed = match marked_section(doc).and_then(parse_markdown) {
        Ok(it) => it,
        Err(e) => return vec![e],
    };
    let expected: Vec<ParsedRow> = table.iter().map(ParsedRow::from_layer).collect();
    let mut res = Vec::new();
    for want in &expected {
        match parsed.iter().find(|it| it.krate == want.krate) {
            None => res.push(format!("row `{}` is missing", want.krate)),
            Some(got) if got != want => {
                res.push(format!(
                    "row `{}` differs: docs say {got:?}, xtask says {want:?}",
                    want.krate
                ));
            }
            Some(_) => {}
        }
    }
    for got in &parsed {
        if !expected.iter().any(|it| it.krate == got.krate) {
            res.push(format!("row `{}` is not in xtask's table", got.krate));
        }
    }
    let order_docs: Vec<&str> = parsed.iter().map(|it| it.krate.as_str()).collect();
    let order_xtask: Vec<&str> = expected.iter().map(|it| it.krate.as_str()).collect();
    if res.is_empty() && order_docs != order_xtask {
        res.push("rows are in a different order than xtask's table".to_owned());
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architecture_doc_matches_layering_const() {
        let path = crate::project_root().join("docs/ARCHITECTURE.md");
        let doc = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let diffs = diff_docs(&doc, LAYERING);
        assert!(
            diffs.is_empty(),
            "docs/ARCHITECTURE.md layering table differs from xtask/src/layering.rs:\n  {}\n\
             run `cargo xtask lint --bless-docs` to regenerate the docs from the const",
            diffs.join("\n  ")
        );
    }

    #[test]
    fn render_then_parse_round_trips() {
        let rendered = render_markdown(LAYERING);
        let doc = format!("# t\n{DOCS_BEGIN}\n{rendered}{DOCS_END}\n");
        assert_eq!(diff_docs(&doc, LAYERING), Vec::<String>::new());
    }

    #[test]
    fn edited_row_is_reported() {
        let rendered = render_markdown(LAYERING).replace(
            "| `laige-diag` | `arrayvec`, `tracing`, `quanta` |",
            "| `laige-diag` | (none) |",
        );
        let doc = format!("{DOCS_BEGIN}\n{rendered}{DOCS_END}\n");
        let diffs = diff_docs(&doc, LAYERING);
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        assert!(diffs[0].contains("laige-diag"), "{diffs:?}");
    }

    #[test]
    fn bless_replaces_only_the_marked_section() {
        let doc = format!("# Title\n\nbefore\n{DOCS_BEGIN}\nstale\n{DOCS_END}\nafter\n");
        let blessed = bless_markdown(&doc, LAYERING).unwrap();
        assert!(blessed.starts_with("# Title\n\nbefore\n"));
        assert!(blessed.ends_with(&format!("{DOCS_END}\nafter\n")));
        assert!(!blessed.contains("stale"));
        assert!(diff_docs(&blessed, LAYERING).is_empty());
    }

    #[test]
    fn layers_only_depend_on_layers_above() {
        for (idx, it) in LAYERING.iter().enumerate() {
            if let Allowed::Only(deps) = it.allowed {
                for dep in deps.iter().filter(|d| d.starts_with("laige-")) {
                    let dep_idx = LAYERING.iter().position(|l| l.krate == *dep);
                    assert!(
                        dep_idx.is_some_and(|d| d < idx),
                        "{} may not depend on {dep}",
                        it.krate
                    );
                }
            }
        }
    }
}
