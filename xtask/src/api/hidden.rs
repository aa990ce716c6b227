//! The hidden-item rule: every public item that carries `#[doc(hidden)]` is named, with its
//! reason, in the list of ADR 0001 (section [`SECTION`]), and the list names nothing else. So
//! the number of hidden items can only change with a reviewed edit of that list.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::Path,
};

use anyhow::{Context as _, Result, bail};

use super::{Entry, Hidden};

/// The ADR that lists the hidden items, from the workspace root.
pub const ADR: &str = "docs/decisions/0001-api-manifest-extraction.md";

/// The heading of the list in [`ADR`].
pub const SECTION: &str = "## Hidden public items";

/// The hidden items counted, each with its paths:
/// - every entry that carries `#[doc(hidden)]` itself ([`Hidden::Marked`]): a hidden module,
///   item, `pub use`, member or impl block;
/// - every item (not a member, not a re-export) inside a hidden module that no visible path
///   reaches: hiding a module does not make its contents one item.
///
/// A definition at several paths (the same kind and signature, and for a member the same
/// parent) counts once.
pub fn marked(entries: &[Entry]) -> Vec<(String, Vec<&str>)> {
    /// Kinds listed under their parent's path: a member is its parent's.
    const MEMBERS: &[&str] = &[
        "field",
        "variant",
        "method",
        "assoc type",
        "assoc const",
        "impl",
    ];
    let member = |it: &Entry| MEMBERS.contains(&it.kind.as_str());
    let visible: BTreeSet<(&str, &str)> = entries
        .iter()
        .filter(|it| it.hidden == Hidden::No)
        .map(|it| (it.kind.as_str(), it.signature.as_str()))
        .collect();
    let counted = |it: &Entry| match it.hidden {
        Hidden::No => false,
        Hidden::Marked => true,
        Hidden::Inside => {
            !member(it)
                && it.kind != "use"
                && !visible.contains(&(it.kind.as_str(), it.signature.as_str()))
        }
    };
    let mut items: Vec<(String, Vec<&str>)> = Vec::new();
    let mut by_key: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for it in entries.iter().filter(|it| counted(it)) {
        let parent = match member(it) {
            true => it.path.rsplit_once("::").map_or("", |(parent, _)| parent),
            false => "",
        };
        let key = (it.kind.as_str(), it.signature.as_str(), parent);
        match by_key.get(&key) {
            Some(&at) => items[at].1.push(&it.path),
            None => {
                by_key.insert(key, items.len());
                items.push((format!("{} ({})", it.path, it.kind), vec![&it.path]));
            }
        }
    }
    items
}

/// The paths [`ADR`]'s list names: the first `` `code` `` of each `- ` line under
/// [`SECTION`], up to the next heading.
pub fn listed(adr: &str) -> Vec<String> {
    let mut res = Vec::new();
    let mut inside = false;
    for line in adr.lines() {
        if line.starts_with('#') {
            inside = line.trim() == SECTION;
            continue;
        }
        let Some(rest) = line.strip_prefix("- `").filter(|_| inside) else {
            continue;
        };
        if let Some((path, _)) = rest.split_once('`') {
            res.push(path.to_owned());
        }
    }
    res
}

/// Checks `entries` against the list in `adr`: returns how many hidden items there are, or
/// the error naming each hidden item the list leaves out and each listed path that is not a
/// hidden item (any more).
pub fn compare(entries: &[Entry], adr: &str) -> Result<usize> {
    let items = marked(entries);
    let listed = listed(adr);
    let unlisted: Vec<&String> = items
        .iter()
        .filter(|(_, paths)| !paths.iter().any(|p| listed.iter().any(|l| l == p)))
        .map(|(name, _)| name)
        .collect();
    let stale: Vec<&String> = listed
        .iter()
        .filter(|l| !items.iter().any(|(_, paths)| paths.contains(&l.as_str())))
        .collect();
    if unlisted.is_empty() && stale.is_empty() {
        return Ok(items.len());
    }
    let mut msg = format!(
        "{} hidden public items, and {ADR} (section `{SECTION}`) lists {}:",
        items.len(),
        listed.len()
    );
    for it in unlisted {
        msg.push_str(&format!(
            "\n  hidden but not listed: {it}; make it private, or `unsafe`, or list it with its reason"
        ));
    }
    for it in stale {
        msg.push_str(&format!(
            "\n  listed but not a hidden item: `{it}`; remove it from the list"
        ));
    }
    bail!(msg)
}

/// [`compare`] with the ADR of the workspace at `root`.
pub fn check(root: &Path, entries: &[Entry]) -> Result<usize> {
    let path = root.join(ADR);
    let adr =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    compare(entries, &adr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, kind: &str, signature: &str, hidden: Hidden) -> Entry {
        Entry {
            path: path.to_owned(),
            kind: kind.to_owned(),
            signature: signature.to_owned(),
            hidden,
        }
    }

    const ADR_TEXT: &str = "# 0001\n\n## Hidden public items\n\n- `c::plumbing`: the macro's.\n- `c::S::field` (field): why.\n\n## Later\n\n- `c::not_in_the_list`\n";

    #[test]
    fn the_list_is_the_section_s_first_code_spans() {
        assert_eq!(listed(ADR_TEXT), ["c::plumbing", "c::S::field"]);
    }

    #[test]
    fn every_marked_item_is_listed_and_nothing_else() {
        let mut entries = vec![
            entry("c::plumbing", "fn", "pub fn plumbing()", Hidden::Marked),
            entry("c::m::plumbing", "fn", "pub fn plumbing()", Hidden::Marked),
            entry("c::S::field", "field", "pub field: u8", Hidden::Marked),
            entry(
                "c::hidden_mod::Shown",
                "struct",
                "pub struct Shown",
                Hidden::Inside,
            ),
            entry("c::Shown", "struct", "pub struct Shown", Hidden::No),
            entry("c::Shown::get", "method", "pub fn get()", Hidden::Inside),
            entry("c::shown", "fn", "pub fn shown()", Hidden::No),
        ];
        assert_eq!(compare(&entries, ADR_TEXT).unwrap(), 2);

        // An item only a hidden module reaches counts, as the module would.
        entries.push(entry(
            "c::hidden_mod::inner",
            "fn",
            "pub fn inner()",
            Hidden::Inside,
        ));
        let err = compare(&entries, ADR_TEXT).unwrap_err().to_string();
        assert!(
            err.contains("hidden but not listed: c::hidden_mod::inner (fn)"),
            "{err}"
        );
        entries.pop();

        entries.push(entry("c::sneaky", "fn", "pub fn sneaky()", Hidden::Marked));
        let err = compare(&entries, ADR_TEXT).unwrap_err().to_string();
        assert!(
            err.contains("hidden but not listed: c::sneaky (fn)"),
            "{err}"
        );

        entries.retain(|it| it.path != "c::sneaky" && it.path != "c::S::field");
        let err = compare(&entries, ADR_TEXT).unwrap_err().to_string();
        assert!(
            err.contains("listed but not a hidden item: `c::S::field`"),
            "{err}"
        );
    }
}
