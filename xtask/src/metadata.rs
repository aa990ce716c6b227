//! The workspace as `cargo metadata --no-deps` describes it, reduced to what the tasks need.

use std::{
    env,
    ffi::OsString,
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

/// How a package depends on another one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// `[dependencies]`.
    Normal,
    /// `[build-dependencies]`.
    Build,
    /// `[dev-dependencies]`.
    Dev,
}

/// One dependency edge as declared in a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// The package name of the dependency (not its rename).
    pub name: String,
    /// The table it was declared in.
    pub kind: DepKind,
    /// Whether the dependency's default features are on (`default-features = false` turns
    /// them off).
    pub default_features: bool,
}

/// One workspace member.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package name, e.g. `laige-registry`.
    pub name: String,
    /// The absolute directory holding the package's `Cargo.toml`.
    pub dir: PathBuf,
    /// The declared dependencies.
    pub deps: Vec<Dependency>,
    /// The crate root of the library target, if any.
    pub lib_root: Option<PathBuf>,
    /// The crate root of the first binary target, if any.
    pub bin_root: Option<PathBuf>,
}

/// The workspace members, sorted by name.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace root directory.
    pub root: PathBuf,
    /// The member packages.
    pub packages: Vec<Package>,
}

/// A `Command` for the cargo that runs us (`$CARGO`), falling back to `cargo` from `PATH`.
pub fn cargo() -> Command {
    Command::new(env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

/// Runs `cargo metadata --format-version 1 --no-deps` in `root` and parses its output.
pub fn load(root: &Path) -> Result<Workspace> {
    let output = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .context("failed to run `cargo metadata`")?;
    if !output.status.success() {
        bail!(
            "`cargo metadata` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let json: Value =
        serde_json::from_slice(&output.stdout).context("`cargo metadata` printed invalid JSON")?;
    parse(&json)
}

fn str_field<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .with_context(|| format!("metadata: missing string `{key}`"))
}

fn parse(json: &Value) -> Result<Workspace> {
    let root = PathBuf::from(str_field(json, "workspace_root")?);
    let members: Vec<&str> = json
        .get("workspace_members")
        .and_then(Value::as_array)
        .context("metadata: missing `workspace_members`")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut packages = Vec::new();
    for pkg in json
        .get("packages")
        .and_then(Value::as_array)
        .context("metadata: missing `packages`")?
    {
        if !members.contains(&str_field(pkg, "id")?) {
            continue;
        }
        let manifest = PathBuf::from(str_field(pkg, "manifest_path")?);
        let dir = manifest
            .parent()
            .context("manifest path has no parent")?
            .to_path_buf();
        let mut deps = Vec::new();
        for dep in pkg
            .get("dependencies")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let kind = match dep.get("kind").and_then(Value::as_str) {
                None => DepKind::Normal,
                Some("build") => DepKind::Build,
                Some("dev") => DepKind::Dev,
                Some(other) => bail!("metadata: unknown dependency kind `{other}`"),
            };
            deps.push(Dependency {
                name: str_field(dep, "name")?.to_owned(),
                kind,
                default_features: dep
                    .get("uses_default_features")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
            });
        }
        let mut lib_root = None;
        let mut bin_root = None;
        for target in pkg
            .get("targets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let kinds: Vec<&str> = target
                .get("kind")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let src = PathBuf::from(str_field(target, "src_path")?);
            if kinds
                .iter()
                .any(|k| matches!(*k, "lib" | "rlib" | "proc-macro"))
            {
                lib_root.get_or_insert(src);
            } else if kinds.contains(&"bin") {
                bin_root.get_or_insert(src);
            }
        }
        packages.push(Package {
            name: str_field(pkg, "name")?.to_owned(),
            dir,
            deps,
            lib_root,
            bin_root,
        });
    }
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Workspace { root, packages })
}

/// `path` relative to `root`, with `/` separators, for messages.
pub fn display_rel(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|it| it.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_members_deps_and_targets() {
        let json: Value = serde_json::from_str(
            r#"{
              "workspace_root": "/ws",
              "workspace_members": ["a 0.1.0 (path+file:///ws/crates/a)"],
              "packages": [
                {"id": "a 0.1.0 (path+file:///ws/crates/a)", "name": "a",
                 "manifest_path": "/ws/crates/a/Cargo.toml",
                 "dependencies": [
                   {"name": "tracing", "kind": null, "uses_default_features": false},
                   {"name": "insta", "kind": "dev"},
                   {"name": "cc", "kind": "build"}
                 ],
                 "targets": [{"kind": ["lib"], "src_path": "/ws/crates/a/src/lib.rs"}]},
                {"id": "not-a-member", "name": "b", "manifest_path": "/x/Cargo.toml",
                 "dependencies": [], "targets": []}
              ]
            }"#,
        )
        .unwrap();
        let ws = parse(&json).unwrap();
        assert_eq!(ws.packages.len(), 1);
        let a = &ws.packages[0];
        assert_eq!(a.dir, PathBuf::from("/ws/crates/a"));
        assert_eq!(a.lib_root, Some(PathBuf::from("/ws/crates/a/src/lib.rs")));
        let kinds: Vec<DepKind> = a.deps.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [DepKind::Normal, DepKind::Dev, DepKind::Build]);
        let defaults: Vec<bool> = a.deps.iter().map(|d| d.default_features).collect();
        assert_eq!(defaults, [false, true, true]);
        assert_eq!(display_rel(&ws.root, &a.dir), "crates/a");
    }
}
