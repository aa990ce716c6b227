//! The laige-sim demo: 10,000 particles, nine systems, one deterministic schedule.
//!
//! ```text
//! cargo run --release --example demo -- [--particles N] [--ticks N] [--seed N] [--threads N]
//!                                       [--graph FILE] [--mermaid FILE]
//!                                       [--trace FILE] [--checksums FILE]
//!                                       [--hz N] [--steps N] [--load MS]
//! ```
//!
//! `--threads 0` (the default) runs one system at a time; `--threads N` runs the schedule's
//! DAG on N threads. The final state hash is the same either way.
//!
//! `--graph FILE` writes the schedule graph as Graphviz DOT (render it with
//! `dot -Tsvg FILE -o graph.svg`), `--mermaid FILE` as a Mermaid flowchart.
//!
//! `--trace FILE` records every tick's timeline (the last 100,000) and writes it as Chrome
//! Trace Event Format JSON: open it in <https://ui.perfetto.dev> or `chrome://tracing`.
//! `--checksums FILE` records every tick's checksums (the last 100,000) and writes the
//! record's binary file form, to compare with runs on other machines or builds
//! (`cargo run --example desync -- A B`).
//!
//! `--hz N` runs `--ticks` ticks on the tick runtime (`laige_sim::runtime`) in real time at
//! N ticks per second; `--steps N` runs N ticks stepped, one after the other, at the rate of
//! `--hz` (60 by default). `--load MS` adds a system that spins MS milliseconds in the middle
//! third of the ticks, so the overload ladder escalates and recovers (`--trace` shows it as
//! counter tracks). On the runtime `Census` may be shed and `Glow` throttled to every other
//! tick; the state hash then includes the runtime's `FixedTime`, so it differs from a run
//! without the runtime.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod particles;

use laige_sim::prelude::*;
use laige_sim::runner::TimingTable;
use laige_sim::scheduler::{ScheduleGraph, ScheduleTable};
use particles::{self as demo, DemoConfig};

const USAGE: &str = "usage: demo [--particles N] [--ticks N] [--seed N] [--threads N] [--graph FILE] [--mermaid FILE] [--trace FILE] [--checksums FILE] [--hz N] [--steps N] [--load MS]";

/// The most ticks `--trace` and `--checksums` keep (the last ones).
const RECORDED_TICKS: usize = 100_000;

#[derive(Debug, PartialEq)]
struct Args {
    config: DemoConfig,
    ticks: u32,
    threads: usize,
    /// Where to write the schedule graph as DOT.
    graph: Option<PathBuf>,
    /// Where to write it as Mermaid.
    mermaid: Option<PathBuf>,
    /// Where to write the timeline as Chrome trace JSON.
    trace: Option<PathBuf>,
    /// Where to write the checksum record.
    checksums: Option<PathBuf>,
    /// Run on the tick runtime in real time at this rate.
    hz: Option<u32>,
    /// Run this many ticks on the tick runtime, stepped.
    steps: Option<u32>,
    /// Artificial load in milliseconds per tick, in the middle third of the ticks.
    load_ms: u32,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        config: DemoConfig::default(),
        ticks: 1_000,
        threads: 0,
        graph: None,
        mermaid: None,
        trace: None,
        checksums: None,
        hz: None,
        steps: None,
        load_ms: 0,
    };
    while let Some(flag) = it.next() {
        let mut text = |name: &str| -> Result<String, String> {
            match it.next() {
                Some(raw) if !raw.starts_with("--") => Ok(raw),
                _ => Err(format!("{name} needs a value")),
            }
        };
        let mut value = |name: &str| -> Result<u64, String> {
            let raw = text(name)?.replace('_', "");
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
            "--graph" => args.graph = Some(text(&flag)?.into()),
            "--mermaid" => args.mermaid = Some(text(&flag)?.into()),
            "--trace" => args.trace = Some(text(&flag)?.into()),
            "--checksums" => args.checksums = Some(text(&flag)?.into()),
            "--hz" => {
                let hz =
                    u32::try_from(value(&flag)?).map_err(|_| "--hz is too large".to_owned())?;
                if hz == 0 {
                    return Err("--hz must be at least 1".to_owned());
                }
                args.hz = Some(hz);
            }
            "--steps" => {
                args.steps = Some(
                    u32::try_from(value(&flag)?).map_err(|_| "--steps is too large".to_owned())?,
                )
            }
            "--load" => {
                args.load_ms =
                    u32::try_from(value(&flag)?).map_err(|_| "--load is too large".to_owned())?
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown flag `{other}`; try --help")),
        }
    }
    Ok(args)
}

/// Writes the schedule graph files `args` asks for.
fn write_graphs(args: &Args, world: &World, schedule: &Schedule) -> Result<(), String> {
    if args.graph.is_none() && args.mermaid.is_none() {
        return Ok(());
    }
    let graph = ScheduleGraph::new(schedule, world.registry(), world.layout())
        .map_err(|err| format!("cannot export the schedule graph: {err}"))?;
    let files = [
        (
            &args.graph,
            ScheduleGraph::to_dot as fn(&ScheduleGraph) -> String,
        ),
        (&args.mermaid, ScheduleGraph::to_mermaid),
    ];
    for (path, render) in files {
        if let Some(path) = path {
            write(path, render(&graph))?;
        }
    }
    Ok(())
}

/// Starts the recorders `args` asks for, keeping every tick up to [`RECORDED_TICKS`].
fn start_recording(args: &Args, world: &mut World) {
    let ticks = usize::try_from(args.ticks).map_or(RECORDED_TICKS, |it| it.min(RECORDED_TICKS));
    if args.trace.is_some() {
        world.record_timeline(ticks);
    }
    if args.checksums.is_some() {
        world.record_checksums(ticks);
    }
}

/// Writes the timeline and the checksum record `args` asks for.
fn write_records(args: &Args, world: &World) -> Result<(), String> {
    if let (Some(path), Some(timeline)) = (&args.trace, world.timeline()) {
        write(path, timeline.to_chrome_trace())?;
        println!(
            "trace of {} ticks written to {}",
            timeline.len(),
            path.display()
        );
    }
    if let (Some(path), Some(checksums)) = (&args.checksums, world.checksums()) {
        write(path, checksums.to_bytes())?;
        println!(
            "checksums of {} ticks written to {}",
            checksums.len(),
            path.display()
        );
    }
    Ok(())
}

/// What `Tally` counted from `Cull`'s events, and how often its run condition skipped it.
fn print_expirations(world: &World) {
    if let Ok(counts) = world.resource::<demo::Expirations>() {
        println!(
            "{} particles expired and were replaced; `Tally` ran on the {} ticks that had expirations",
            counts.total, counts.ticks
        );
    }
}

fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), String> {
    std::fs::write(path, contents)
        .map_err(|err| format!("cannot write `{}`: {err}", path.display()))
}

fn main() -> ExitCode {
    // Lossy, so an argument that is not UTF-8 is an unknown flag or a strange file name,
    // never a panic.
    let args = match parse_args(
        std::env::args_os()
            .skip(1)
            .map(|it| it.to_string_lossy().into_owned()),
    ) {
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
    if let Err(message) = write_graphs(&args, &world, &schedule) {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
    if args.hz.is_some() || args.steps.is_some() {
        return run_on_runtime(&args, world);
    }
    if args.threads > 0 {
        world.use_executor(ExecutorOptions::parallel(args.threads));
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

    start_recording(&args, &mut world);
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
    print_expirations(&world);
    println!("state hash {hash:#018x}");
    if let Err(message) = write_records(&args, &world) {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The demo on the tick runtime: `--hz` in real time, `--steps` stepped, `--load` to watch
/// the overload ladder; prints the telemetry's summary at exit.
fn run_on_runtime(args: &Args, mut world: World) -> ExitCode {
    use laige_sim::runtime::{
        FixedTime, OverloadLevel, Priority, Runtime, RuntimeOptions, SystemPolicy,
    };
    let ticks = args.steps.unwrap_or(args.ticks);
    if let Err(err) = Runtime::install(&mut world) {
        eprintln!("error: {err}");
        return ExitCode::FAILURE;
    }
    let load = std::time::Duration::from_millis(u64::from(args.load_ms));
    let (from, to) = (u64::from(ticks / 3), u64::from(ticks / 3 * 2));
    if !load.is_zero() {
        // Real time on purpose: the load is what the ladder measures.
        let spin = move |time: Res<'_, FixedTime>| {
            if (from..to).contains(&time.tick) {
                let start = Instant::now();
                while start.elapsed() < load {
                    std::hint::spin_loop();
                }
            }
        };
        if let Err(err) = world.system("ArtificialLoad", spin).register() {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    }
    start_recording(args, &mut world);
    let options = RuntimeOptions {
        tick_rate: args.hz.unwrap_or(RuntimeOptions::DEFAULT_TICK_RATE),
        workers: args.threads,
        ..RuntimeOptions::default()
    };
    let mut rt = match Runtime::new(world, options) {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    let registry = rt.world().registry();
    let (census, glow) = (registry.find("Census"), registry.find("Glow"));
    let sheddable = SystemPolicy {
        priority: Priority::Low,
        can_shed: true,
        throttle_divisor: 1,
    };
    let throttled = SystemPolicy {
        throttle_divisor: 2,
        ..SystemPolicy::default()
    };
    for (id, policy) in [(census, sheddable), (glow, throttled)] {
        if let Some(id) = id {
            let _ = rt.set_policy(id, policy);
        }
    }
    println!(
        "laige-sim demo on the runtime: {} particles, {ticks} ticks at {} Hz, {}, load {} ms",
        args.config.particles,
        rt.options().tick_rate,
        if args.steps.is_some() {
            "stepped"
        } else {
            "real time"
        },
        args.load_ms
    );
    let start = Instant::now();
    let (mut dropped, mut failed, mut top) = (0, 0, OverloadLevel::NORMAL);
    let mut at_level = [0u64; 8];
    let mut skipped = 0u64;
    for _ in 0..ticks {
        let result = if args.steps.is_some() {
            rt.step().map(|_| 0)
        } else {
            rt.run_frame().map(|frame| frame.dropped)
        };
        match result {
            Ok(d) => dropped += d,
            Err(_) => failed += 1,
        }
        if let Some((tick, _)) = rt.telemetry().latest() {
            top = top.max(tick.level);
            at_level[usize::from(tick.level.0).min(7)] += 1;
            skipped += u64::from(tick.skipped);
        }
    }
    let elapsed = start.elapsed();
    println!(
        "{} ticks in {:.1} ms, {dropped} dropped, {failed} with errors, {skipped} system runs skipped",
        rt.ticks_run(),
        elapsed.as_secs_f64() * 1e3
    );
    let overload = &rt.options().overload;
    print!("ticks per level (last {}):", rt.telemetry().len());
    for (level, count) in at_level.iter().enumerate().filter(|(_, c)| **c > 0) {
        let level = OverloadLevel(level as u8);
        print!(" {}={count}", level.name(overload));
    }
    println!();
    println!(
        "highest level {}, level now {}",
        top.name(overload),
        rt.level().name(overload)
    );
    print_expirations(rt.world());
    println!("state hash {:#018x}", rt.world().state_hash());
    if let Err(message) = write_records(args, rt.world()) {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|it| (*it).to_owned()))
    }

    #[test]
    fn graph_flags_take_a_file() {
        let args = parse(&["--graph", "out.dot", "--mermaid", "out.mmd", "--ticks", "0"]).unwrap();
        assert_eq!(args.graph, Some(PathBuf::from("out.dot")));
        assert_eq!(args.mermaid, Some(PathBuf::from("out.mmd")));
        assert_eq!(args.ticks, 0);
    }

    #[test]
    fn runtime_flags_take_numbers() {
        let args = parse(&["--hz", "30", "--steps", "12", "--load", "40"]).unwrap();
        assert_eq!(
            (args.hz, args.steps, args.load_ms),
            (Some(30), Some(12), 40)
        );
        assert_eq!(
            parse(&["--hz", "0"]).unwrap_err(),
            "--hz must be at least 1"
        );
        assert_eq!(parse(&["--steps"]).unwrap_err(), "--steps needs a value");
    }

    #[test]
    fn bad_flags_are_errors_not_panics() {
        assert_eq!(parse(&["--graph"]).unwrap_err(), "--graph needs a value");
        assert_eq!(
            parse(&["--graph", "--ticks", "3"]).unwrap_err(),
            "--graph needs a value"
        );
        assert_eq!(
            parse(&["--ticks", "many"]).unwrap_err(),
            "--ticks takes a whole number, not `many`"
        );
        assert_eq!(
            parse(&["--ticks", "99999999999"]).unwrap_err(),
            "--ticks is too large"
        );
        assert_eq!(
            parse(&["--graf", "x"]).unwrap_err(),
            "unknown flag `--graf`; try --help"
        );
        assert_eq!(parse(&["--help"]).unwrap_err(), USAGE);
    }

    #[test]
    fn record_flags_take_a_file() {
        let args = parse(&["--trace", "t.json", "--checksums", "c.bin"]).unwrap();
        assert_eq!(args.trace, Some(PathBuf::from("t.json")));
        assert_eq!(args.checksums, Some(PathBuf::from("c.bin")));
        assert_eq!(parse(&["--trace"]).unwrap_err(), "--trace needs a value");
        assert_eq!(
            parse(&["--checksums", "--trace", "t.json"]).unwrap_err(),
            "--checksums needs a value"
        );
    }

    #[test]
    fn records_hold_every_tick_and_an_unwritable_file_is_an_error() {
        let (mut world, schedule) = demo::build(
            DemoConfig {
                particles: 8,
                ..DemoConfig::default()
            },
            WorldOptions::default(),
        )
        .unwrap();
        let dir = std::env::temp_dir().join("laige-demo-no-such-dir");
        let trace = dir.join("t.json");
        let args = parse(&[
            "--ticks",
            "3",
            "--trace",
            trace.to_str().unwrap(),
            "--checksums",
            "c",
        ])
        .unwrap();
        start_recording(&args, &mut world);
        demo::run(&mut world, &schedule, 3).unwrap();
        assert_eq!(world.timeline().map(|it| it.len()), Some(3));
        assert_eq!(world.checksums().map(|it| it.len()), Some(3));
        let err = write_records(&args, &world).unwrap_err();
        assert!(err.starts_with("cannot write `"), "{err}");
    }

    #[test]
    fn an_unwritable_graph_file_is_an_error() {
        let (world, schedule) = demo::build(
            DemoConfig {
                particles: 4,
                ..DemoConfig::default()
            },
            WorldOptions::default(),
        )
        .unwrap();
        let dir = std::env::temp_dir()
            .join("laige-demo-no-such-dir")
            .join("x");
        let args = parse(&["--graph", dir.join("g.dot").to_str().unwrap()]).unwrap();
        let err = write_graphs(&args, &world, &schedule).unwrap_err();
        assert!(err.starts_with("cannot write `"), "{err}");
    }
}
