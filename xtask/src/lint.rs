//! `cargo xtask lint`: the workspace rules that neither rustc nor clippy can check.
//!
//! Every rule is a plain function over [`CrateModel`]s, an in-memory picture of a crate
//! (name, dependencies, source files), so tests can feed it seeded violations without touching disk.
//! [`load_workspace`] builds the models of the real tree from `cargo metadata`.

mod cycles;
mod lex;

use std::{
    fmt, fs,
    path::{Path, PathBuf},
};

use anyhow::{Context as _, Result, bail};

use crate::{
    layering::{self, Allowed, LAYERING, Layer},
    metadata::{self, DepKind, Dependency},
};
use lex::{Lexed, TokKind};

/// One source file of a crate.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path relative to the crate directory, `/`-separated (`src/lib.rs`, `tests/it.rs`).
    pub path: String,
    /// The file contents.
    pub text: String,
}

/// The in-memory picture of one workspace crate that the rules look at.
#[derive(Debug, Clone)]
pub struct CrateModel {
    /// The package name.
    pub name: String,
    /// The crate directory relative to the workspace root (`crates/laige-diag`, `xtask`).
    pub dir: String,
    /// The declared dependencies.
    pub deps: Vec<Dependency>,
    /// The crate root relative to the crate directory (`src/lib.rs`, or `src/main.rs` for binaries).
    pub root_file: String,
    /// Every `.rs` file under the crate directory.
    pub files: Vec<SourceFile>,
}

impl CrateModel {
    fn file(&self, path: &str) -> Option<&SourceFile> {
        self.files.iter().find(|it| it.path == path)
    }

    fn display(&self, file: &str) -> String {
        format!("{}/{file}", self.dir)
    }
}

/// One broken rule: where, which rule, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// A workspace-relative file (optionally `:line`) or a crate name.
    pub location: String,
    /// The short rule name.
    pub rule: &'static str,
    /// What is wrong and what to do about it.
    pub fix: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.rule, self.fix)
    }
}

fn violation(location: impl Into<String>, rule: &'static str, fix: impl Into<String>) -> Violation {
    Violation {
        location: location.into(),
        rule,
        fix: fix.into(),
    }
}

/// Runs every model-based rule against `crates` using `table`.
pub fn check_all(crates: &[CrateModel], table: &[Layer]) -> Vec<Violation> {
    let mut res = Vec::new();
    res.extend(check_layering(crates, table));
    res.extend(check_depspec(crates));
    res.extend(check_unsafe(crates, table));
    res.extend(check_crate_docs(crates));
    res.extend(check_honest_tests(crates));
    res.extend(check_unused_dependencies(crates));
    res.extend(cycles::check_module_cycles(crates));
    res
}

/// Rule 7: every normal dependency is used by the crate's own code (`src/`): a dependency
/// only tests or benches use belongs in `[dev-dependencies]`, and one nothing uses is an
/// edge the layering table allows for no reason.
pub fn check_unused_dependencies(crates: &[CrateModel]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates {
        let lexed: Vec<Lexed> = krate
            .files
            .iter()
            .filter(|it| it.path.starts_with("src/"))
            .map(|it| lex::lex(&it.text))
            .collect();
        for dep in krate.deps.iter().filter(|it| it.kind == DepKind::Normal) {
            let lib = dep.name.replace('-', "_");
            let used = lexed
                .iter()
                .any(|it| (0..it.tokens.len()).any(|idx| it.is_ident(idx, &lib)));
            if !used {
                res.push(violation(
                    krate.display("Cargo.toml"),
                    "unused-dependency",
                    format!(
                        "`{}` declares the dependency `{}` but its `src/` never names `{lib}`; remove \
                         it, or move it to [dev-dependencies] if only tests or benches use it",
                        krate.name, dep.name
                    ),
                ));
            }
        }
    }
    res
}

/// Rule 1: every crate is in the table and its normal and build dependencies are allowed edges.
pub fn check_layering(crates: &[CrateModel], table: &[Layer]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates {
        let Some(layer) = table.iter().find(|it| it.krate == krate.name) else {
            res.push(violation(
                &krate.name,
                "layering",
                format!(
                    "`{}` is not in the layering table; add it to `LAYERING` in xtask/src/layering.rs \
                     and run `cargo xtask lint --bless-docs`",
                    krate.name
                ),
            ));
            continue;
        };
        for dep in krate.deps.iter().filter(|it| it.kind != DepKind::Dev) {
            if layering::allows(layer, &dep.name) {
                continue;
            }
            let allowed = match layer.allowed {
                Allowed::Anything => "anything".to_owned(),
                Allowed::Only([]) => "nothing".to_owned(),
                Allowed::Only(deps) => deps.join(", "),
            };
            let table_kind = if dep.kind == DepKind::Build {
                "build-dependency"
            } else {
                "dependency"
            };
            res.push(violation(
                krate.display("Cargo.toml"),
                "layering",
                format!(
                    "`{}` may not have the {table_kind} `{}` (allowed: {allowed}); remove it, move it to \
                     [dev-dependencies], or change the layering table in xtask/src/layering.rs",
                    krate.name, dep.name
                ),
            ));
        }
    }
    res
}

/// Rule 2: crates marked `no_std` (laige-depspec) say `#![no_std]`, and their normal
/// dependencies (only those their row allows, which rule 1 checks) have their default
/// features off, so that they build without `std` and `alloc` too.
pub fn check_depspec(crates: &[CrateModel]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates {
        if !layering::find(&krate.name).is_some_and(|it| it.no_std) {
            continue;
        }
        for dep in krate
            .deps
            .iter()
            .filter(|it| it.kind == DepKind::Normal && it.default_features)
        {
            res.push(violation(
                krate.display("Cargo.toml"),
                "no-std-leaf",
                format!(
                    "`{}` may use `{}` only with `default-features = false` (no std, no alloc); \
                     turn its default features off, or make it a dev-dependency",
                    krate.name, dep.name
                ),
            ));
        }
        let has_attr = krate.file("src/lib.rs").is_some_and(|file| {
            let lexed = lex::lex(&file.text);
            (0..lexed.tokens.len()).any(|idx| {
                lexed.is_punct(idx, '#')
                    && lexed.is_punct(idx + 1, '!')
                    && lexed.is_punct(idx + 2, '[')
                    && lexed.is_ident(idx + 3, "no_std")
                    && lexed.is_punct(idx + 4, ']')
            })
        });
        if !has_attr {
            res.push(violation(
                krate.display("src/lib.rs"),
                "no-std-leaf",
                format!(
                    "`{}` must be `#![no_std]`; add the attribute after the crate doc",
                    krate.name
                ),
            ));
        }
    }
    res
}

/// Rule 3: `unsafe` only in crates whose row allows it (files under `src/`), and then every
/// `unsafe` block and `unsafe impl` carries a `// SAFETY:` comment.
pub fn check_unsafe(crates: &[CrateModel], table: &[Layer]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates {
        let allowed = table
            .iter()
            .find(|it| it.krate == krate.name)
            .is_some_and(|it| it.unsafe_allowed);
        for file in krate.files.iter().filter(|it| it.path.starts_with("src/")) {
            let lexed = lex::lex(&file.text);
            for idx in 0..lexed.tokens.len() {
                if !lexed.is_ident(idx, "unsafe") {
                    continue;
                }
                let line = lexed.tokens[idx].line;
                let location = format!("{}:{}", krate.display(&file.path), line + 1);
                if !allowed {
                    res.push(violation(
                        location,
                        "unsafe-forbidden",
                        format!(
                            "`{}` may not contain `unsafe` (see the layering table); move the code into a \
                             crate whose row allows unsafe, or into tests/ or benches/",
                            krate.name
                        ),
                    ));
                    continue;
                }
                let what = if lexed.is_punct(idx + 1, '{') {
                    "block"
                } else if lexed.is_ident(idx + 1, "impl") {
                    "impl"
                } else {
                    continue;
                };
                if !has_safety_comment(&lexed, line) {
                    res.push(violation(
                        location,
                        "unsafe-undocumented",
                        format!(
                            "`unsafe` {what} without a `// SAFETY:` comment; write one on the line above \
                             explaining why the invariants hold"
                        ),
                    ));
                }
            }
        }
    }
    res
}

/// A `SAFETY:` comment on `line` itself, or in the run of comment and attribute lines just above it.
fn has_safety_comment(lexed: &Lexed, line: usize) -> bool {
    if lexed.lines[line].comment.contains("SAFETY:") {
        return true;
    }
    for info in lexed.lines[..line].iter().rev() {
        if info.comment.contains("SAFETY:") {
            return true;
        }
        match info.first_code {
            None if info.is_blank() => return false,
            None | Some('#') => {}
            Some(_) => return false,
        }
    }
    false
}

/// Rule 4: every crate root opens with a `//!` doc comment.
pub fn check_crate_docs(crates: &[CrateModel]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates {
        let first = krate
            .file(&krate.root_file)
            .and_then(|file| file.text.lines().map(str::trim).find(|it| !it.is_empty()));
        if !first.is_some_and(|it| it.starts_with("//!")) {
            res.push(violation(
                krate.display(&krate.root_file),
                "crate-doc",
                "the crate root must open with a `//!` doc comment saying what the crate does (and does not do)",
            ));
        }
    }
    res
}

/// Rule 5: no `#[ignore]`, no `#[should_panic]`, and no assertion on real time (an
/// `assert*!` whose arguments read `elapsed()` or `Instant::now()`) in any crate under
/// `crates/`. Such an assertion fails under valgrind or on a busy host; figures belong in
/// benches, and a test times systems on a manual clock.
pub fn check_honest_tests(crates: &[CrateModel]) -> Vec<Violation> {
    let mut res = Vec::new();
    for krate in crates.iter().filter(|it| it.dir.starts_with("crates/")) {
        for file in &krate.files {
            let lexed = lex::lex(&file.text);
            for idx in 0..lexed.tokens.len() {
                let Some(fix) = dishonest_test_at(&lexed, idx) else {
                    continue;
                };
                let location = format!(
                    "{}:{}",
                    krate.display(&file.path),
                    lexed.tokens[idx].line + 1
                );
                res.push(violation(location, "honest-tests", fix));
            }
        }
    }
    res
}

/// What is dishonest about the test code starting at token `idx`, if anything.
fn dishonest_test_at(lexed: &Lexed, idx: usize) -> Option<&'static str> {
    let word = |at: usize| match lexed.tokens.get(at).map(|it| &it.kind) {
        Some(TokKind::Ident(word)) => Some(word.as_str()),
        _ => None,
    };
    if lexed.is_punct(idx, '#') && lexed.is_punct(idx + 1, '[') {
        return match word(idx + 2)? {
            "ignore" => Some("`#[ignore]` hides a test; fix the test or delete it"),
            "should_panic" => Some(
                "`#[should_panic]` passes on any panic; return a `Result` or assert on the error value",
            ),
            _ => None,
        };
    }
    let is_assert = word(idx)
        .is_some_and(|it| it.starts_with("assert") || it.starts_with("debug_assert"))
        && lexed.is_punct(idx + 1, '!')
        && lexed.is_punct(idx + 2, '(');
    if !is_assert {
        return None;
    }
    let mut depth = 0usize;
    for at in idx + 2..lexed.tokens.len() {
        if lexed.is_punct(at, '(') {
            depth += 1;
        } else if lexed.is_punct(at, ')') {
            depth -= 1;
            if depth == 0 {
                break;
            }
        }
        let reads_time = lexed.is_ident(at, "elapsed")
            || (lexed.is_ident(at, "Instant") && lexed.is_ident(at + 3, "now"));
        if reads_time {
            return Some(
                "an assertion on real time fails under valgrind or on a busy host; time systems on a \
                 `TickClock::manual` clock, and put figures in a bench",
            );
        }
    }
    None
}

/// Rule 6: the rendered table in `docs/ARCHITECTURE.md` matches [`LAYERING`].
pub fn check_docs(doc: Option<&str>) -> Vec<Violation> {
    let location = "docs/ARCHITECTURE.md";
    let Some(doc) = doc else {
        return vec![violation(
            location,
            "layering-docs",
            "file is missing; restore it, then run `cargo xtask lint --bless-docs`",
        )];
    };
    layering::diff_docs(doc, LAYERING)
        .into_iter()
        .map(|it| {
            violation(
                location,
                "layering-docs",
                format!("{it}; run `cargo xtask lint --bless-docs`"),
            )
        })
        .collect()
}

/// Builds the crate models of the workspace at `root` from `cargo metadata` and the files on disk.
pub fn load_workspace(root: &Path) -> Result<Vec<CrateModel>> {
    let ws = metadata::load(root)?;
    let mut res = Vec::new();
    for pkg in ws.packages {
        let root_path = pkg
            .lib_root
            .or(pkg.bin_root)
            .with_context(|| format!("`{}` has neither a lib nor a bin target", pkg.name))?;
        let mut files = Vec::new();
        collect_rs_files(&pkg.dir, &pkg.dir, &mut files)?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        res.push(CrateModel {
            dir: metadata::display_rel(&ws.root, &pkg.dir),
            root_file: metadata::display_rel(&pkg.dir, &root_path),
            name: pkg.name,
            deps: pkg.deps,
            files,
        });
    }
    Ok(res)
}

fn collect_rs_files(base: &Path, dir: &Path, out: &mut Vec<SourceFile>) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .map(|it| it.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .map(|it| it.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                collect_rs_files(base, &path, out)?;
            }
        } else if name.ends_with(".rs") {
            let text = fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            out.push(SourceFile {
                path: metadata::display_rel(base, &path),
                text,
            });
        }
    }
    Ok(())
}

/// Runs every rule on the real tree at `root`; returns the violations and the number of crates.
pub fn lint_tree(root: &Path) -> Result<(Vec<Violation>, usize)> {
    let crates = load_workspace(root)?;
    let mut res = check_all(&crates, LAYERING);
    let doc = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).ok();
    res.extend(check_docs(doc.as_deref()));
    Ok((res, crates.len()))
}

/// `cargo xtask lint`: prints one line per violation and fails if there is any.
pub fn run(root: &Path) -> Result<()> {
    let (violations, n_crates) = lint_tree(root)?;
    for it in &violations {
        println!("{it}");
    }
    if !violations.is_empty() {
        bail!(
            "lint: {} violation(s) in {n_crates} crates",
            violations.len()
        );
    }
    println!("lint: ok ({n_crates} crates checked)");
    Ok(())
}

/// `cargo xtask lint --bless-docs`: rewrites the layering table in `docs/ARCHITECTURE.md`.
pub fn bless_docs(root: &Path) -> Result<()> {
    let path = root.join("docs/ARCHITECTURE.md");
    let doc =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let blessed = layering::bless_markdown(&doc, LAYERING).map_err(anyhow::Error::msg)?;
    if blessed != doc {
        fs::write(&path, blessed).with_context(|| format!("cannot write {}", path.display()))?;
        println!("updated the layering table in docs/ARCHITECTURE.md");
    } else {
        println!("docs/ARCHITECTURE.md is already up to date");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(name: &str) -> Dependency {
        Dependency {
            name: name.to_owned(),
            kind: DepKind::Normal,
            default_features: true,
        }
    }

    fn krate(name: &str, deps: &[&str], files: &[(&str, &str)]) -> CrateModel {
        CrateModel {
            name: name.to_owned(),
            dir: format!("crates/{name}"),
            deps: deps.iter().map(|it| dep(it)).collect(),
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

    const DOC: &str = "//! A crate.\n";

    fn rules(violations: &[Violation]) -> Vec<(&str, &'static str)> {
        violations
            .iter()
            .map(|it| (it.location.as_str(), it.rule))
            .collect()
    }

    #[test]
    fn clean_model_passes() {
        let crates = [
            krate(
                "laige-depspec",
                &[],
                &[("src/lib.rs", "//! Specs.\n#![no_std]\n")],
            ),
            krate(
                "laige-diag",
                &["tracing"],
                &[("src/lib.rs", &format!("{DOC}use tracing::Level;\n"))],
            ),
            krate(
                "laige-world",
                &["laige-registry"],
                &[(
                    "src/lib.rs",
                    "//! W.\n// SAFETY: the index is in bounds.\nlet x = unsafe { laige_registry::f() };\n",
                )],
            ),
        ];
        assert_eq!(check_all(&crates, LAYERING), Vec::new());
    }

    #[test]
    fn forbidden_edge_is_reported() {
        let crates = [krate(
            "laige-registry",
            &["laige-scheduler", "tracing"],
            &[("src/lib.rs", DOC)],
        )];
        let res = check_layering(&crates, LAYERING);
        assert_eq!(
            rules(&res),
            [("crates/laige-registry/Cargo.toml", "layering")]
        );
        assert!(res[0].fix.contains("`laige-scheduler`"), "{}", res[0]);
    }

    #[test]
    fn storage_depending_on_the_executor_is_reported() {
        let crates = [krate(
            "laige-storage",
            &["laige-registry", "laige-executor"],
            &[("src/lib.rs", DOC)],
        )];
        let res = check_layering(&crates, LAYERING);
        assert_eq!(
            rules(&res),
            [("crates/laige-storage/Cargo.toml", "layering")]
        );
        assert!(res[0].fix.contains("`laige-executor`"), "{}", res[0]);
    }

    #[test]
    fn dev_dependencies_are_free() {
        let mut it = krate("laige-diag", &["tracing"], &[("src/lib.rs", DOC)]);
        it.deps.push(Dependency {
            name: "insta".to_owned(),
            kind: DepKind::Dev,
            default_features: true,
        });
        assert_eq!(check_layering(&[it], LAYERING), Vec::new());
    }

    #[test]
    fn crate_missing_from_table_is_reported() {
        let res = check_layering(&[krate("laige-new", &[], &[("src/lib.rs", DOC)])], LAYERING);
        assert_eq!(rules(&res), [("laige-new", "layering")]);
        assert!(res[0].fix.contains("add it to `LAYERING`"), "{}", res[0]);
    }

    #[test]
    fn depspec_with_a_dependency_is_reported() {
        let crates = [krate(
            "laige-depspec",
            &["arrayvec"],
            &[("src/lib.rs", "//! S.\n#![no_std]\n")],
        )];
        let res = check_depspec(&crates);
        assert_eq!(
            rules(&res),
            [("crates/laige-depspec/Cargo.toml", "no-std-leaf")]
        );
    }

    #[test]
    fn depspec_may_use_arrayvec_without_default_features_only() {
        let text = "//! S.\n#![no_std]\nuse arrayvec::ArrayVec;\nuse smallvec::SmallVec;\n";
        let mut crates = [krate(
            "laige-depspec",
            &["arrayvec"],
            &[("src/lib.rs", text)],
        )];
        crates[0].deps[0].default_features = false;
        assert_eq!(check_all(&crates, LAYERING), Vec::new());

        crates[0].deps[0].name = "smallvec".to_owned();
        let res = check_all(&crates, LAYERING);
        assert_eq!(
            rules(&res),
            [("crates/laige-depspec/Cargo.toml", "layering")]
        );
    }

    #[test]
    fn depspec_without_no_std_is_reported() {
        let text = "//! S, and `#![no_std]` in a doc does not count.\n// #![no_std]\n";
        let res = check_depspec(&[krate("laige-depspec", &[], &[("src/lib.rs", text)])]);
        assert_eq!(
            rules(&res),
            [("crates/laige-depspec/src/lib.rs", "no-std-leaf")]
        );
    }

    #[test]
    fn unsafe_in_forbidden_crate_is_reported() {
        let text =
            "//! R.\n// SAFETY: documented, but still forbidden here.\nunsafe impl Send for X {}\n";
        let res = check_unsafe(
            &[krate("laige-registry", &[], &[("src/lib.rs", text)])],
            LAYERING,
        );
        assert_eq!(
            rules(&res),
            [("crates/laige-registry/src/lib.rs:3", "unsafe-forbidden")]
        );
    }

    #[test]
    fn unsafe_in_tests_and_comments_is_exempt() {
        let files = [
            (
                "src/lib.rs",
                "//! R.\n// unsafe { in a comment }\nconst S: &str = \"unsafe {\";\n",
            ),
            (
                "tests/alloc.rs",
                "unsafe impl GlobalAlloc for Counting {}\n",
            ),
            ("benches/b.rs", "fn f() { unsafe { g() } }\n"),
        ];
        assert_eq!(
            check_unsafe(&[krate("laige-depspec", &[], &files)], LAYERING),
            Vec::new()
        );
    }

    #[test]
    fn undocumented_unsafe_block_is_reported() {
        let text = "//! W.\n\
                    fn f() {\n\
                    \x20   let a = unsafe { g() };\n\
                    \x20   // SAFETY: g has no preconditions.\n\
                    \x20   let b = unsafe { g() };\n\
                    \x20   // SAFETY: the attribute in between is fine.\n\
                    \x20   #[allow(unused)]\n\
                    \x20   let c = unsafe { g() };\n\
                    \x20   let d = unsafe { g() }; // SAFETY: same line.\n\
                    \x20   // SAFETY: a blank line breaks the link.\n\
                    \n\
                    \x20   let e = unsafe { g() };\n\
                    }\n\
                    unsafe impl Send for W {}\n\
                    /// # Safety\n/// Callers promise nothing; `unsafe fn` needs no SAFETY comment.\n\
                    unsafe fn h() {}\n";
        let res = check_unsafe(
            &[krate("laige-world", &[], &[("src/lib.rs", text)])],
            LAYERING,
        );
        assert_eq!(
            rules(&res),
            [
                ("crates/laige-world/src/lib.rs:3", "unsafe-undocumented"),
                ("crates/laige-world/src/lib.rs:12", "unsafe-undocumented"),
                ("crates/laige-world/src/lib.rs:14", "unsafe-undocumented"),
            ]
        );
    }

    #[test]
    fn missing_crate_doc_is_reported() {
        let crates = [
            krate(
                "laige-diag",
                &[],
                &[("src/lib.rs", "\n// plain comment\n//! late doc\n")],
            ),
            krate(
                "laige-runner",
                &[],
                &[("src/lib.rs", "\n\n//! Runs systems.\n")],
            ),
            krate("laige-scheduler", &[], &[]),
        ];
        let res = check_crate_docs(&crates);
        assert_eq!(
            rules(&res),
            [
                ("crates/laige-diag/src/lib.rs", "crate-doc"),
                ("crates/laige-scheduler/src/lib.rs", "crate-doc")
            ]
        );
    }

    #[test]
    fn ignore_and_should_panic_are_reported() {
        let files = [
            ("src/lib.rs", "//! D.\n#[test]\n#[ignore]\nfn a() {}\n"),
            (
                "tests/t.rs",
                "#[test]\n#[should_panic(expected = \"x\")]\nfn b() {}\n// #[ignore] in a comment\n",
            ),
            (
                "tests/time.rs",
                "fn c() {\n    assert!(start.elapsed() < LIMIT);\n    assert_eq!(f(g(1)), 2);\n    \
                 let t = Instant::now();\n    debug_assert!(Instant::now() > t, \"elapsed\");\n}\n",
            ),
        ];
        let res = check_honest_tests(&[krate("laige-diag", &[], &files)]);
        assert_eq!(
            rules(&res),
            [
                ("crates/laige-diag/src/lib.rs:3", "honest-tests"),
                ("crates/laige-diag/tests/t.rs:2", "honest-tests"),
                ("crates/laige-diag/tests/time.rs:2", "honest-tests"),
                ("crates/laige-diag/tests/time.rs:5", "honest-tests"),
            ]
        );
    }

    #[test]
    fn unused_normal_dependency_is_reported() {
        let files = [
            (
                "src/lib.rs",
                "//! Uses `laige_runner` only in a comment.\nuse laige_diag::X;\nfn f() { tracing::info!(\"laige_runner\") }\n",
            ),
            ("tests/t.rs", "use laige_runner::Runner;\n"),
        ];
        let mut it = krate(
            "laige-world",
            &["laige-diag", "laige-runner", "tracing"],
            &files,
        );
        it.deps.push(Dependency {
            name: "rstest".to_owned(),
            kind: DepKind::Dev,
            default_features: true,
        });
        assert_eq!(
            rules(&check_unused_dependencies(&[it])),
            [("crates/laige-world/Cargo.toml", "unused-dependency")]
        );
    }

    #[test]
    fn honest_tests_rule_skips_xtask() {
        let mut it = krate("xtask", &[], &[("src/main.rs", "#[ignore]\n")]);
        it.dir = "xtask".to_owned();
        assert_eq!(check_honest_tests(&[it]), Vec::new());
    }

    #[test]
    fn violation_line_format() {
        let it = violation("crates/a/src/lib.rs:3", "crate-doc", "add a doc");
        assert_eq!(
            it.to_string(),
            "crates/a/src/lib.rs:3: crate-doc: add a doc"
        );
    }

    #[test]
    fn real_workspace_passes_lint() {
        let root = crate::project_root();
        let (violations, n_crates) = lint_tree(&root).unwrap();
        let lines: Vec<String> = violations.iter().map(ToString::to_string).collect();
        assert!(
            lines.is_empty(),
            "`cargo xtask lint` fails on the real tree:\n{}",
            lines.join("\n")
        );
        assert!(n_crates >= LAYERING.len(), "only {n_crates} crates found");
    }
}
