//! The arena: a small shooter written as a bevy user writes one (see `game.rs`).
//!
//! cargo run --release --example arena -- [--ticks N] [--seed N] [--threads N]
//!
//! Prints the score and the final state hash, which is the same on any number of threads
//! (`tests/arena.rs` checks 1 and 2).

use std::error::Error;
use std::process::ExitCode;

use laige_sim::prelude::*;

mod game;

const USAGE: &str = "usage: arena [--ticks N] [--seed N] [--threads N]";

#[derive(Debug, PartialEq, Eq)]
struct Args {
    ticks: u32,
    seed: u64,
    threads: Option<usize>,
}

fn parse(args: &[&str]) -> Result<Args, String> {
    let mut parsed = Args {
        ticks: 1_800,
        seed: 0x0A2E_4A5E,
        threads: None,
    };
    let mut it = args.iter();
    while let Some(&flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value; {USAGE}"))?;
        let number = |what: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("{what} takes a whole number, not `{value}`"))
        };
        match flag {
            "--ticks" => {
                parsed.ticks =
                    u32::try_from(number("--ticks")?).map_err(|_| "--ticks is too large")?;
            }
            "--seed" => parsed.seed = number("--seed")?,
            "--threads" => {
                parsed.threads = Some(
                    usize::try_from(number("--threads")?).map_err(|_| "--threads is too large")?,
                );
            }
            _ => return Err(format!("unknown flag `{flag}`; {USAGE}")),
        }
    }
    Ok(parsed)
}

fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let (mut world, schedule) = game::build(args.seed, WorldOptions::default())?;
    if let Some(threads) = args.threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    let hash = game::run(&mut world, &schedule, args.ticks)?;
    let score = *world.resource::<game::Score>()?;
    let stats = *world.resource::<game::Stats>()?;
    let wave = world.resource::<game::Wave>()?.number;
    println!(
        "arena: {} ticks, seed {:#x}, {}: wave {wave}, {} kills, {} deaths, {} enemies and {} shots alive",
        args.ticks,
        args.seed,
        args.threads
            .map_or("sequential".to_owned(), |it| format!("{it} threads")),
        score.kills,
        score.deaths,
        stats.enemies,
        stats.shots,
    );
    println!("state hash {hash:#018x}");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = parse(&args)
        .map_err(Box::<dyn Error>::from)
        .and_then(|args| run(&args));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("arena: {err}");
            ExitCode::FAILURE
        }
    }
}
