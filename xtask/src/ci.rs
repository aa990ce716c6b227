//! `cargo xtask ci`: every gate CI runs, in order, with one summary at the end.
//!
//! Gates run even after an earlier one failed, so one run shows every problem.
//! A gate whose tool is missing is skipped on a developer's machine and fails under
//! `CI=true`: a gate CI skips is a gate that never runs (`.ci/run` installs the tools).
//! Command output is streamed as it happens (nothing is captured), so a CI log shows cargo's own
//! `test result:` lines.

use std::{path::Path, process::Command, time::Instant};

use anyhow::{Result, bail};

use crate::{api, lint, lockstep, metadata::cargo};

/// How one gate ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Ok,
    Failed(String),
    Skipped(String),
}

/// The gates, in the order they run.
const GATES: &[(&str, &str)] = &[
    ("fmt", "cargo fmt --all --check"),
    (
        "clippy",
        "cargo clippy --workspace --all-targets -- -D warnings",
    ),
    ("test", "cargo test --workspace"),
    (
        "serde",
        "cargo clippy -p laige-sim --features serde --all-targets -- -D warnings && cargo test -p laige-sim --features serde --test save_file",
    ),
    (
        "doc",
        "RUSTDOCFLAGS='-D warnings' cargo doc --workspace --no-deps",
    ),
    ("api", "cargo xtask api --check"),
    ("lint", "cargo xtask lint"),
    ("deny", "cargo deny check bans licenses sources"),
    (
        "loom",
        "RUSTFLAGS='--cfg loom' cargo test -p laige-executor --release --lib loom",
    ),
    (
        "lockstep",
        "the demo's checksum records agree across debug, release and target-cpu=native builds",
    ),
    (
        "valgrind",
        "valgrind on the unsafe crates' tests: memcheck for storage, DRD for the executor",
    ),
];

/// Test binaries run under valgrind: (package, valgrind tool arguments, suppressions file).
/// These are the crates with `unsafe` code (the World's tests drive storage and queries; the
/// storage and query crates' own unit tests run too).
const VALGRIND: &[(&str, &[&str], &str)] = &[
    (
        "laige-storage",
        &["--tool=memcheck", "--leak-check=full"],
        "crates/laige-world/valgrind.supp",
    ),
    (
        "laige-query",
        &["--tool=memcheck", "--leak-check=full"],
        "crates/laige-world/valgrind.supp",
    ),
    (
        "laige-world",
        &["--tool=memcheck", "--leak-check=full"],
        "crates/laige-world/valgrind.supp",
    ),
];

/// Runs the gates (all of them, or those named in the comma-separated `only`) and prints a summary.
pub fn run(root: &Path, only: Option<&str>) -> Result<()> {
    let selected: Vec<&str> = match only {
        None => GATES.iter().map(|(name, _)| *name).collect(),
        Some(list) => {
            let names: Vec<&str> = list
                .split(',')
                .map(str::trim)
                .filter(|it| !it.is_empty())
                .collect();
            if let Some(bad) = names
                .iter()
                .find(|it| !GATES.iter().any(|(name, _)| name == *it))
            {
                let known: Vec<&str> = GATES.iter().map(|(name, _)| *name).collect();
                bail!("unknown gate `{bad}`; known gates: {}", known.join(", "));
            }
            names
        }
    };
    let mut results = Vec::new();
    for &(name, command) in GATES {
        if !selected.contains(&name) {
            continue;
        }
        println!("\n==> ci gate `{name}`: {command}");
        let started = Instant::now();
        let outcome = run_gate(root, name);
        let secs = started.elapsed().as_secs_f64();
        match &outcome {
            Outcome::Ok => println!("<== ci gate `{name}`: ok ({secs:.1}s)"),
            Outcome::Failed(why) => println!("<== ci gate `{name}`: FAILED ({why}, {secs:.1}s)"),
            Outcome::Skipped(why) => println!("<== ci gate `{name}`: skipped: {why}"),
        }
        results.push((name, command, outcome));
    }

    println!("\n==> ci summary");
    for (name, command, outcome) in &results {
        let (status, note) = match outcome {
            Outcome::Ok => ("ok", String::new()),
            Outcome::Failed(why) => ("FAILED", format!(" ({why})")),
            Outcome::Skipped(why) => ("skipped", format!(" ({why})")),
        };
        println!("  {status:<8} {name:<7} {command}{note}");
    }
    let n_failed = results
        .iter()
        .filter(|it| matches!(it.2, Outcome::Failed(_)))
        .count();
    let n_skipped = results
        .iter()
        .filter(|it| matches!(it.2, Outcome::Skipped(_)))
        .count();
    let n_ok = results.len() - n_failed - n_skipped;
    if n_failed > 0 {
        let failed: Vec<&str> = results
            .iter()
            .filter(|it| matches!(it.2, Outcome::Failed(_)))
            .map(|it| it.0)
            .collect();
        println!("ci: FAILED (gates ok: {n_ok}, failed: {n_failed}, skipped: {n_skipped})");
        bail!("ci gates failed: {}", failed.join(", "));
    }
    println!("ci: ok (gates ok: {n_ok}, failed: 0, skipped: {n_skipped})");
    Ok(())
}

fn run_gate(root: &Path, name: &str) -> Outcome {
    match name {
        "fmt" => command(root, cargo().args(["fmt", "--all", "--check"])),
        "clippy" => command(
            root,
            cargo().args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        ),
        "test" => command(root, cargo().args(["test", "--workspace"])),
        // The facade's save-file test needs its `serde` feature, which the workspace run
        // leaves off (laige-world's own tests turn it on for themselves).
        "serde" => match command(
            root,
            cargo().args([
                "clippy",
                "-p",
                "laige-sim",
                "--features",
                "serde",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        ) {
            Outcome::Ok => command(
                root,
                cargo().args([
                    "test",
                    "-p",
                    "laige-sim",
                    "--features",
                    "serde",
                    "--test",
                    "save_file",
                ]),
            ),
            failed => failed,
        },
        "doc" => command(
            root,
            cargo()
                .args(["doc", "--workspace", "--no-deps"])
                .env("RUSTDOCFLAGS", "-D warnings"),
        ),
        "api" => in_process(api::run(root, api::Mode::Check)),
        "lint" => in_process(lint::run(root)),
        "deny" => deny(root),
        "loom" => command(
            root,
            cargo()
                .args(["test", "-p", "laige-executor", "--release", "--lib", "loom"])
                .env("RUSTFLAGS", "--cfg loom")
                // Its own target directory: other RUSTFLAGS would rebuild the main one.
                .env("CARGO_TARGET_DIR", root.join("target/loom")),
        ),
        "lockstep" => match lockstep::run(root) {
            Ok(()) => Outcome::Ok,
            Err(report) => {
                println!("error: {report}");
                Outcome::Failed(report)
            }
        },
        "valgrind" => valgrind(root),
        _ => Outcome::Failed(format!("no such gate `{name}`")),
    }
}

/// Runs `cmd` in `root` with inherited stdio, so its output streams straight into the log.
fn command(root: &Path, cmd: &mut Command) -> Outcome {
    match cmd.current_dir(root).status() {
        Ok(status) if status.success() => Outcome::Ok,
        Ok(status) => Outcome::Failed(format!(
            "exit status {}",
            status
                .code()
                .map_or("signal".to_owned(), |it| it.to_string())
        )),
        Err(e) => Outcome::Failed(format!("could not start: {e}")),
    }
}

fn in_process(res: Result<()>) -> Outcome {
    match res {
        Ok(()) => Outcome::Ok,
        Err(e) => {
            println!("error: {e:#}");
            Outcome::Failed("see above".to_owned())
        }
    }
}

/// A gate whose tool is missing: skipped locally, failed under `CI` (where `.ci/run`
/// should have installed it).
fn missing_tool(why: &str) -> Outcome {
    if std::env::var_os("CI").is_some_and(|it| !it.is_empty() && it != "false") {
        println!("error: {why}; CI must run every gate");
        return Outcome::Failed(why.to_owned());
    }
    println!("skipped: {why}");
    Outcome::Skipped(why.to_owned())
}

fn deny(root: &Path) -> Outcome {
    let installed = cargo()
        .args(["deny", "--version"])
        .current_dir(root)
        .output()
        .is_ok_and(|it| it.status.success());
    if !installed {
        return missing_tool("cargo-deny is not installed (cargo install --locked cargo-deny)");
    }
    command(
        root,
        cargo().args(["deny", "check", "bans", "licenses", "sources"]),
    )
}

fn valgrind(root: &Path) -> Outcome {
    let installed = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|it| it.status.success());
    if !installed {
        return missing_tool("valgrind is not installed (apt-get install valgrind)");
    }
    for (package, tool, suppressions) in VALGRIND {
        let binaries = match test_binaries(root, package) {
            Ok(it) => it,
            Err(e) => return Outcome::Failed(format!("building {package}'s tests: {e:#}")),
        };
        for binary in binaries {
            println!("valgrind {} {}", tool.join(" "), binary);
            let outcome = command(
                root,
                Command::new("valgrind")
                    .args(["-q", "--error-exitcode=1"])
                    .args(*tool)
                    .arg(format!("--suppressions={suppressions}"))
                    .arg(&binary)
                    .arg("--test-threads=2"),
            );
            if outcome != Outcome::Ok {
                return outcome;
            }
        }
    }
    // The executor's race check runs its own script: it knows which tests measure timing
    // (meaningless under valgrind's one-thread-at-a-time scheduling) and its suppressions.
    command(root, Command::new("bash").arg(DRD_SCRIPT))
}

/// Runs the executor's test binaries under valgrind's DRD race detector.
const DRD_SCRIPT: &str = "crates/laige-executor/valgrind/drd.sh";

/// The library and integration test executables of `package`, built in debug.
fn test_binaries(root: &Path, package: &str) -> Result<Vec<String>> {
    let out = cargo()
        .args(["test", "-p", package, "--no-run", "--message-format=json"])
        .current_dir(root)
        .output()?;
    if !out.status.success() {
        bail!(
            "cargo test --no-run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut binaries = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let kind = message["target"]["kind"][0].as_str().unwrap_or("");
        let artifact = message["reason"] == "compiler-artifact" && matches!(kind, "lib" | "test");
        if let (true, Some(exe)) = (artifact, message["executable"].as_str()) {
            binaries.push(exe.to_owned());
        }
    }
    Ok(binaries)
}
