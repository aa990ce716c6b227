//! Graphviz as a test oracle: render DOT with the real `dot` and fail on any complaint.

use std::io::Write as _;
use std::process::{Command, Stdio};

/// Renders `dot_source` with Graphviz's `dot -T<format>` and returns the output.
///
/// Panics (failing the calling test) when Graphviz rejects the input, exits non-zero, or
/// prints anything on stderr, which is where it reports a label it had to repair. When the
/// `dot` program is missing, panics under `CI=true` with the line that installs it, and
/// otherwise prints a notice and returns `None`, so a developer without Graphviz can still
/// run the other tests.
pub fn graphviz(dot_source: &str, format: &str) -> Option<String> {
    let spawned = Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let install = "install graphviz (`apt-get install graphviz`) so that `dot` is on PATH";
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "graphviz is missing under CI: {install}"
            );
            eprintln!("notice: the Graphviz check did not run: {install}");
            return None;
        }
        Err(err) => panic!("could not start graphviz's `dot`: {err}"),
    };
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Written from another thread: `dot` may fill its stdout pipe before reading all input.
    let input = dot_source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("graphviz's `dot` ran");
    writer
        .join()
        .expect("the writer thread did not panic")
        .expect("graphviz's `dot` read its input");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "graphviz rejected the DOT ({}):\n{stderr}\n--- input ---\n{dot_source}",
        output.status
    );
    Some(String::from_utf8(output.stdout).expect("graphviz writes UTF-8"))
}
