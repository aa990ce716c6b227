//! Compares two checksum records (the demo's `--checksums FILE`, or any
//! `ChecksumRecord::to_bytes`) and names where the runs first differ.
//!
//! ```text
//! cargo run --example desync -- OURS.bin THEIRS.bin
//! ```
//!
//! Exits 0 when every tick both records hold agrees, 1 with the finder's report (the first
//! tick, system and component that differ) when they do not, and 2 when a file cannot be
//! read or the records cannot be compared.

use std::process::ExitCode;

use laige_sim::world::ChecksumRecord;

fn load(path: &str) -> Result<ChecksumRecord, String> {
    let bytes = std::fs::read(path).map_err(|err| format!("cannot read {path}: {err}"))?;
    ChecksumRecord::from_bytes(&bytes).map_err(|err| format!("{path}: {err}"))
}

fn main() -> ExitCode {
    // Lossy, so a path that is not UTF-8 is a file that cannot be read, never a panic.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|it| it.to_string_lossy().into_owned())
        .collect();
    let [ours, theirs] = args.as_slice() else {
        eprintln!("usage: desync OURS.bin THEIRS.bin");
        return ExitCode::from(2);
    };
    let (a, b) = match (load(ours), load(theirs)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(err), _) | (_, Err(err)) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    match a.first_desync(&b) {
        Ok(None) => {
            println!(
                "no desync: {ours} ({} ticks) and {theirs} ({} ticks) agree on every tick both hold",
                a.len(),
                b.len()
            );
            ExitCode::SUCCESS
        }
        Ok(Some(desync)) => {
            println!("{ours} vs {theirs}: {desync}");
            ExitCode::from(1)
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
