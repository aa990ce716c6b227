//! The `lockstep` CI gate: lockstep peers run different builds, so the demo must compute
//! bit-identical state in a debug build, a release build and a release build for the host
//! CPU (`-C target-cpu=native`, which lets LLVM use FMA and wider vectors).
//!
//! The debug and release variants build in `target/` itself, where the `test` gate has just
//! built the debug demo; the native one, whose flags differ, in `target/lockstep-native`
//! (sharing a directory, differently flagged builds would rebuild one another). Each runs a
//! short demo with one seed and writes its checksum
//! record; the `desync` example then compares the debug record with each release one. When
//! they differ, its report (the first tick, system and component) is the gate's failure.

use std::path::Path;
use std::process::Command;

use crate::metadata::cargo;

/// A build of the demo: its name, whether it is `--release`, its `RUSTFLAGS`, and whether
/// it needs a target directory of its own (for flags the other builds do not use).
struct Variant {
    name: &'static str,
    release: bool,
    rustflags: &'static str,
    own_target_dir: bool,
}

const VARIANTS: [Variant; 3] = [
    Variant {
        name: "debug",
        release: false,
        rustflags: "",
        own_target_dir: false,
    },
    Variant {
        name: "release",
        release: true,
        rustflags: "",
        own_target_dir: false,
    },
    Variant {
        name: "native",
        release: true,
        rustflags: "-C target-cpu=native",
        own_target_dir: true,
    },
];

/// Few ticks and particles: enough for every system to run on drifting floats and for
/// particles to expire and respawn (lifetimes start at 200 ticks), in a second per build.
const DEMO_ARGS: [&str; 6] = [
    "--ticks",
    "240",
    "--particles",
    "400",
    "--seed",
    "0x1F055EED",
];

/// Builds, runs and compares the variants; `Err` holds the failure, the finder's report
/// when the records differ.
pub fn run(root: &Path) -> Result<(), String> {
    let mut records = Vec::new();
    for variant in &VARIANTS {
        let target = root.join("target");
        let target_dir = if variant.own_target_dir {
            target.join(format!("lockstep-{}", variant.name))
        } else {
            target.clone()
        };
        let mut build = cargo();
        build
            .args([
                "build",
                "-p",
                "laige-sim",
                "--example",
                "demo",
                "--example",
                "desync",
            ])
            .env("CARGO_TARGET_DIR", &target_dir)
            .env("RUSTFLAGS", variant.rustflags)
            .current_dir(root);
        if variant.release {
            build.arg("--release");
        }
        println!("lockstep: building the {} demo", variant.name);
        let status = build
            .status()
            .map_err(|e| format!("could not start cargo: {e}"))?;
        if !status.success() {
            return Err(format!("building the {} demo failed", variant.name));
        }
        let profile = if variant.release { "release" } else { "debug" };
        let examples = target_dir.join(profile).join("examples");
        let record = target.join(format!("lockstep-{}.bin", variant.name));
        let out = Command::new(examples.join("demo"))
            .args(DEMO_ARGS)
            .arg("--checksums")
            .arg(&record)
            .current_dir(root)
            .output()
            .map_err(|e| format!("could not run the {} demo: {e}", variant.name))?;
        if !out.status.success() {
            return Err(format!(
                "the {} demo failed: {}",
                variant.name,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let hash = String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|it| it.starts_with("state hash"))
            .unwrap_or("state hash ?")
            .to_owned();
        println!("lockstep: {} demo: {hash}", variant.name);
        records.push((variant.name, examples, record));
    }
    let (base_name, desync, base) = &records[0];
    let mut failures = Vec::new();
    for (name, _, record) in &records[1..] {
        let out = Command::new(desync.join("desync"))
            .arg(base)
            .arg(record)
            .output()
            .map_err(|e| format!("could not run the desync finder: {e}"))?;
        let report =
            String::from_utf8_lossy(if out.status.success() || out.status.code() == Some(1) {
                &out.stdout
            } else {
                &out.stderr
            })
            .trim()
            .to_owned();
        println!("lockstep: {base_name} vs {name}: {report}");
        if !out.status.success() {
            failures.push(format!("{base_name} vs {name}: {report}"));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}
