//! The laige-sim demo: 10,000 particles, eight systems, one deterministic schedule.
//!
//! ```text
//! cargo run --release --example demo -- [--particles N] [--ticks N] [--seed N] [--threads N]
//!     [--trace FILE] [--checksums FILE]
//! ```
//!
//! `--threads 0` (the default) runs one system at a time; `--threads N` runs the schedule's
//! DAG on N threads. The final state hash is the same either way.
//!
//! `--trace FILE` records every tick's timeline (the last 100,000) and writes it as Chrome Trace Event Format
//! JSON: open it in <https://ui.perfetto.dev> or `chrome://tracing`. `--checksums FILE`
//! records every tick's checksums and writes the record's binary file form, for comparing
//! runs on other machines or builds (`laige_sim::world::ChecksumRecord::first_desync`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use laige_sim::demo::{self, DemoConfig};
use laige_sim::prelude::*;
use laige_sim::runner::TimingTable;
use laige_sim::scheduler::ScheduleTable;

struct Args {
    config: DemoConfig,
    ticks: u32,
    threads: usize,
    trace: Option<PathBuf>,
    checksums: Option<PathBuf>,
}

/// The most ticks `--trace` and `--checksums` keep (the last ones).
const RECORDED_TICKS: usize = 100_000;

const USAGE: &str = "usage: demo [--particles N] [--ticks N] [--seed N] [--threads N] \
                     [--trace FILE] [--checksums FILE]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        config: DemoConfig::default(),
        ticks: 1_000,
        threads: 0,
        trace: None,
        checksums: None,
    };
    let mut it = std::env::args_os().skip(1);
    while let Some(flag) = it.next() {
        let Some(flag) = flag.to_str().map(str::to_owned) else {
            return Err(format!(
                "unknown flag `{}`; try --help",
                flag.to_string_lossy()
            ));
        };
        if let "--trace" | "--checksums" = flag.as_str() {
            let path = PathBuf::from(it.next().ok_or_else(|| format!("{flag} needs a file"))?);
            match flag.as_str() {
                "--trace" => args.trace = Some(path),
                _ => args.checksums = Some(path),
            }
            continue;
        }
        let mut value = |name: &str| -> Result<u64, String> {
            let raw = it.next().ok_or_else(|| format!("{name} needs a value"))?;
            let raw = raw.to_string_lossy().replace('_', "");
            let parsed = match raw.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => raw.parse(),
            };
            parsed.map_err(|_| format!("{name} takes a whole number, not `{raw}`"))
        };
        match flag.as_str() {
            "--particles" | "--entities" => {
                args.config.particles = u32::try_from(value(&flag)?)
                    .map_err(|_| "--particles is too large".to_owned())?
            }
            "--ticks" => {
                args.ticks =
                    u32::try_from(value(&flag)?).map_err(|_| "--ticks is too large".to_owned())?
            }
            "--seed" => args.config.seed = value(&flag)?,
            "--threads" => {
                args.threads = usize::try_from(value(&flag)?)
                    .map_err(|_| "--threads is too large".to_owned())?
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown flag `{other}`; try --help")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    // Events (warnings, budget overruns) go to stderr as plain lines.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        .init();

    let (mut world, schedule) = match demo::build(args.config, WorldOptions::default()) {
        Ok(it) => it,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    if args.threads > 0 {
        world.use_executor(ExecutorOptions {
            threads: args.threads,
            mode: Mode::Parallel,
            ..Default::default()
        });
    }

    println!(
        "laige-sim demo: {} particles, seed {:#x}, {} ticks, {}",
        args.config.particles,
        args.config.seed,
        args.ticks,
        if args.threads > 0 {
            format!("{} threads", args.threads)
        } else {
            "sequential".to_owned()
        }
    );
    println!();
    println!("Schedule (order hash {:#018x})", schedule.order_hash());
    print!("{}", ScheduleTable::new(&schedule, world.registry()));
    println!();
    if schedule.warning_count() == 0 {
        println!("Warnings: none");
    } else {
        println!("Warnings ({}):", schedule.warning_count());
        for warning in schedule.warnings() {
            println!("  {warning}");
        }
    }
    println!();

    // Every tick is kept, up to the last 100,000: the buffers are sized once, on the first tick.
    let recorded = usize::try_from(args.ticks).map_or(RECORDED_TICKS, |it| it.min(RECORDED_TICKS));
    if args.trace.is_some() {
        world.record_timeline(recorded);
    }
    if args.checksums.is_some() {
        world.record_checksums(recorded);
    }

    let start = Instant::now();
    let hash = match demo::run(&mut world, &schedule, args.ticks) {
        Ok(hash) => hash,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    let elapsed = start.elapsed();

    println!("Timing after {} ticks", args.ticks);
    print!(
        "{}",
        TimingTable::new(world.runner().timing(), world.registry(), schedule.order())
    );
    println!();
    let per_tick = elapsed.as_secs_f64() * 1e3 / f64::from(args.ticks.max(1));
    println!(
        "{} ticks in {:.1} ms ({per_tick:.3} ms per tick), {} entities alive",
        args.ticks,
        elapsed.as_secs_f64() * 1e3,
        world.len()
    );
    println!("state hash {hash:#018x}");

    if let (Some(path), Some(timeline)) = (&args.trace, world.timeline()) {
        if let Err(err) = std::fs::write(path, timeline.to_chrome_trace()) {
            eprintln!("error: cannot write the trace to {}: {err}", path.display());
            return ExitCode::FAILURE;
        }
        println!(
            "trace of {} ticks written to {}",
            timeline.len(),
            path.display()
        );
    }
    if let (Some(path), Some(checksums)) = (&args.checksums, world.checksums()) {
        if let Err(err) = std::fs::write(path, checksums.to_bytes()) {
            eprintln!(
                "error: cannot write the checksums to {}: {err}",
                path.display()
            );
            return ExitCode::FAILURE;
        }
        println!(
            "checksums of {} ticks written to {}",
            checksums.len(),
            path.display()
        );
    }
    ExitCode::SUCCESS
}
