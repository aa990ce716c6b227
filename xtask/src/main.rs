//! Workspace automation for laige, run as `cargo xtask <task>`.
//!
//! This crate follows the cargo-xtask convention: a binary crate named `xtask`, wired in through the
//! `xtask` alias in `.cargo/config.toml`, that needs nothing but cargo and rustc.
//!
//! Tasks:
//!
//! - `cargo xtask ci [--only GATE,..]` runs every CI gate in order (fmt, clippy, test, doc, api, lint, deny,
//!   loom, lockstep, valgrind),
//!   keeps going after a failure, and ends with one summary. `.ci/run` calls exactly this.
//! - `cargo xtask lint [--bless-docs]` checks the layering table, `unsafe` placement and `// SAFETY:`
//!   comments, crate docs and honest tests; `--bless-docs` rewrites the table in `docs/ARCHITECTURE.md`.
//! - `cargo xtask api [--check]` regenerates `laige-api.json`, the committed public API manifest;
//!   `--check` only compares and names the items added and removed.
//!
//! The layering table itself lives in [`layering::LAYERING`].

mod api;
mod ci;
mod layering;
mod lint;
mod lockstep;
mod metadata;

use std::{
    env,
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Result, bail};

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  ci [--only GATE[,GATE..]]   run every CI gate and print a summary
                              gates: fmt, clippy, test, doc, api, lint, deny, loom,
                              lockstep, valgrind
  lint [--bless-docs]         check layering, unsafe, crate docs and honest tests;
                              --bless-docs rewrites the table in docs/ARCHITECTURE.md
  api [--check]               regenerate laige-api.json; --check fails if it is stale
  help                        print this message
";

/// The workspace root: the parent of this crate's directory.
pub fn project_root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.parent()
        .map_or_else(|| dir.to_path_buf(), Path::to_path_buf)
}

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<()> {
    let root = project_root();
    let (task, rest) = match args.split_first() {
        None => {
            print!("{USAGE}");
            return Ok(());
        }
        Some((task, rest)) => (task.as_str(), rest),
    };
    let flags: Vec<&str> = rest.iter().map(String::as_str).collect();
    match (task, flags.as_slice()) {
        ("help" | "-h" | "--help", _) => {
            print!("{USAGE}");
            Ok(())
        }
        ("lint", []) => lint::run(&root),
        ("lint", ["--bless-docs"]) => lint::bless_docs(&root),
        ("api", []) => api::run(&root, api::Mode::Write),
        ("api", ["--check"]) => api::run(&root, api::Mode::Check),
        ("ci", []) => ci::run(&root, None),
        ("ci", ["--only", gates]) => ci::run(&root, Some(gates)),
        ("ci", [only]) if only.starts_with("--only=") => {
            ci::run(&root, Some(&only["--only=".len()..]))
        }
        ("lint" | "api" | "ci", _) => bail!(
            "unexpected arguments for `{task}`: {}\n\n{USAGE}",
            flags.join(" ")
        ),
        _ => bail!("unknown task `{task}`\n\n{USAGE}"),
    }
}
