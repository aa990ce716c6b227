//! Rule 8: the modules at a crate's root import each other without a circle.
//!
//! A file of module `a` (`src/a.rs` or anything under `src/a/`) depends on module `b` when its
//! code names `crate::b` (also inside a `crate::{..}` group), or `crate::X` for a name `X` that
//! the crate root re-exports from `b`. Test code (`tests.rs` files and `#[cfg(test)] mod`
//! blocks) does not count: a test may look at its crate from anywhere.
//! A circle among these edges is reported once, with the file and line of each step.

use std::collections::{BTreeMap, BTreeSet};

use super::lex::{self, Lexed, TokKind};
use super::{CrateModel, Violation, violation};

/// Crates whose root modules may import each other in a circle: none.
pub const CYCLES_ALLOWED: &[&str] = &[];

/// One import edge between root modules, with where it was first seen.
type Edges = BTreeMap<String, BTreeMap<String, String>>;

/// Rule 8: root modules import each other acyclically (see the module docs).
pub fn check_module_cycles(crates: &[CrateModel]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates {
        if CYCLES_ALLOWED.contains(&krate.name.as_str()) {
            continue;
        }
        let edges = module_edges(krate);
        for cycle in cycles(&edges) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|pair| format!("{} -> {} ({})", pair[0], pair[1], edges[&pair[0]][&pair[1]]))
                .collect();
            let first = &edges[&cycle[0]][&cycle[1]];
            res.push(violation(
                first.clone(),
                "module-cycle",
                format!(
                    "modules of `{}` import each other in a circle: {}; move what both need into a \
                     module below them, or pass it down as data",
                    krate.name,
                    steps.join(", ")
                ),
            ));
        }
    }
    res
}

/// The root module a file under `src/` belongs to; `None` for the crate root and test files.
fn module_of(path: &str, root_file: &str) -> Option<String> {
    let rest = path.strip_prefix("src/")?;
    if path == root_file || path.ends_with("/tests.rs") || rest == "tests.rs" {
        return None;
    }
    let first = rest.split('/').next()?;
    Some(first.strip_suffix(".rs").unwrap_or(first).to_owned())
}

/// Every import edge between the root modules of `krate`.
fn module_edges(krate: &CrateModel) -> Edges {
    let modules: BTreeSet<String> = krate
        .files
        .iter()
        .filter_map(|it| module_of(&it.path, &krate.root_file))
        .collect();
    let reexports = krate
        .file(&krate.root_file)
        .map(|it| reexports(&lex::lex(&it.text), &modules))
        .unwrap_or_default();
    let mut edges = Edges::new();
    for file in &krate.files {
        let Some(from) = module_of(&file.path, &krate.root_file) else {
            continue;
        };
        let lexed = lex::lex(&file.text);
        for (name, line) in crate_paths(&lexed) {
            let to = if modules.contains(&name) {
                name
            } else if let Some(module) = reexports.get(&name) {
                module.clone()
            } else {
                continue;
            };
            if to != from {
                let at = format!("{}:{}", krate.display(&file.path), line + 1);
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(at);
            }
        }
    }
    edges
}

fn ident(lexed: &Lexed, idx: usize) -> Option<&str> {
    match lexed.tokens.get(idx).map(|it| &it.kind) {
        Some(TokKind::Ident(it)) => Some(it),
        _ => None,
    }
}

/// The names the crate root re-exports from one of its `modules`: `pub use m::{A, B as C}`
/// maps `A` and `C` to `m`.
fn reexports(lexed: &Lexed, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut res = BTreeMap::new();
    let mut idx = 0;
    while idx < lexed.tokens.len() {
        if !lexed.is_ident(idx, "use") {
            idx += 1;
            continue;
        }
        let mut at = idx + 1;
        if lexed.is_ident(at, "crate") || lexed.is_ident(at, "self") {
            at += 3;
        }
        let module = ident(lexed, at).filter(|it| modules.contains(*it));
        let mut last = None;
        while at < lexed.tokens.len() && !lexed.is_punct(at, ';') {
            let closes = lexed.is_punct(at, ',') || lexed.is_punct(at, '}');
            if closes && let (Some(m), Some(name)) = (module, last.take()) {
                res.insert(name, m.to_owned());
            }
            if let Some(name) = ident(lexed, at).filter(|it| !["as", "self"].contains(it)) {
                last = Some(name.to_owned());
            }
            at += 1;
        }
        if let (Some(m), Some(name)) = (module, last) {
            res.insert(name, m.to_owned());
        }
        idx = at;
    }
    res
}

/// The first segment of every `crate::` path outside test modules, with its line: `crate::a`
/// gives `a`, `crate::{a::X, B}` gives `a` and `B`.
fn crate_paths(lexed: &Lexed) -> Vec<(String, usize)> {
    let mut res = Vec::new();
    let mut idx = 0;
    while idx < lexed.tokens.len() {
        if let Some(end) = test_module_end(lexed, idx) {
            idx = end;
            continue;
        }
        let is_path = lexed.is_ident(idx, "crate")
            && lexed.is_punct(idx + 1, ':')
            && lexed.is_punct(idx + 2, ':');
        if !is_path {
            idx += 1;
            continue;
        }
        let line = lexed.tokens[idx].line;
        idx += 3;
        if let Some(name) = ident(lexed, idx) {
            res.push((name.to_owned(), line));
            continue;
        }
        if !lexed.is_punct(idx, '{') {
            continue;
        }
        let mut depth = 0;
        let mut starts = true;
        while idx < lexed.tokens.len() {
            if lexed.is_punct(idx, '{') {
                depth += 1;
                starts = true;
            } else if lexed.is_punct(idx, '}') {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            } else if lexed.is_punct(idx, ',') {
                starts = depth == 1;
            } else if let Some(name) = ident(lexed, idx) {
                if starts && depth == 1 {
                    res.push((name.to_owned(), lexed.tokens[idx].line));
                }
                starts = false;
            } else {
                starts = false;
            }
            idx += 1;
        }
    }
    res
}

/// If `#[cfg(test)] mod name { .. }` starts at `idx`, the index just past its closing brace.
fn test_module_end(lexed: &Lexed, idx: usize) -> Option<usize> {
    let opens = lexed.is_punct(idx, '#')
        && lexed.is_punct(idx + 1, '[')
        && lexed.is_ident(idx + 2, "cfg")
        && lexed.is_punct(idx + 3, '(')
        && lexed.is_ident(idx + 4, "test")
        && lexed.is_punct(idx + 5, ')')
        && lexed.is_punct(idx + 6, ']')
        && lexed.is_ident(idx + 7, "mod")
        && lexed.is_punct(idx + 9, '{');
    if !opens {
        return None;
    }
    let mut depth = 0;
    for at in idx + 9..lexed.tokens.len() {
        if lexed.is_punct(at, '{') {
            depth += 1;
        } else if lexed.is_punct(at, '}') {
            depth -= 1;
            if depth == 0 {
                return Some(at + 1);
            }
        }
    }
    Some(lexed.tokens.len())
}

/// One circle per set of modules that import each other, each as `[a, b, .., a]`, found by a
/// depth-first walk in name order (so the report is deterministic).
fn cycles(edges: &Edges) -> Vec<Vec<String>> {
    fn walk(
        node: &str,
        edges: &Edges,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        seen: &mut BTreeSet<Vec<String>>,
        out: &mut Vec<Vec<String>>,
    ) {
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flat_map(|it| it.keys()) {
            if let Some(pos) = stack.iter().position(|it| it == next) {
                let mut cycle = stack[pos..].to_vec();
                let mut key = cycle.clone();
                key.sort();
                if seen.insert(key) {
                    cycle.push(next.clone());
                    out.push(cycle);
                }
            } else if !done.contains(next) {
                walk(next, edges, stack, done, seen, out);
            }
        }
        stack.pop();
        done.insert(node.to_owned());
    }
    let mut out = Vec::new();
    let mut done = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for node in edges.keys() {
        if !done.contains(node) {
            walk(node, edges, &mut Vec::new(), &mut done, &mut seen, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::SourceFile;

    fn krate(files: &[(&str, &str)]) -> CrateModel {
        CrateModel {
            name: "laige-storage".to_owned(),
            dir: "crates/laige-storage".to_owned(),
            deps: Vec::new(),
            root_file: "src/lib.rs".to_owned(),
            files: files
                .iter()
                .map(|(path, text)| SourceFile {
                    path: (*path).to_owned(),
                    text: (*text).to_owned(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_seeded_cycle_through_a_reexport_is_reported() {
        let crates = [krate(&[
            (
                "src/lib.rs",
                "//! S.\nmod a;\nmod b;\npub use b::{Bee, Other as Renamed};\n",
            ),
            ("src/a.rs", "//! A.\nuse crate::Renamed;\n"),
            ("src/b.rs", "//! B.\nuse crate::{x::Y, a::Ay};\n"),
            ("src/b/inner.rs", "//! B inner.\n"),
        ])];
        let res = check_module_cycles(&crates);
        assert_eq!(res.len(), 1, "{res:?}");
        assert_eq!(res[0].rule, "module-cycle");
        assert_eq!(res[0].location, "crates/laige-storage/src/a.rs:2");
        assert!(
            res[0]
                .fix
                .contains("a -> b (crates/laige-storage/src/a.rs:2)")
                && res[0]
                    .fix
                    .contains("b -> a (crates/laige-storage/src/b.rs:2)"),
            "{}",
            res[0]
        );
    }

    #[test]
    fn one_way_imports_tests_and_comments_pass() {
        let crates = [krate(&[
            ("src/lib.rs", "//! S.\nmod a;\nmod b;\n"),
            (
                "src/a.rs",
                "//! A.\nuse crate::b::Bee;\n// crate::a in a comment\n",
            ),
            (
                "src/b.rs",
                "//! B, see [`crate::a`].\n#[cfg(test)]\nmod tests {\n    use crate::a::Ay;\n}\n",
            ),
            ("src/b/tests.rs", "use crate::a::Ay;\n"),
        ])];
        assert_eq!(check_module_cycles(&crates), Vec::new());
    }
}
