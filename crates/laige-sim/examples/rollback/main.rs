//! Rollback netcode in miniature: player 1's inputs for eight ticks arrive late, the game
//! predicts them, then rolls back eight ticks and simulates them again with the true inputs,
//! and ends in the same state (hash and checksum record) as a run that had every input on
//! time.
//!
//! `cargo run --example rollback [-- SEED]`

mod game;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args()
        .nth(1)
        .map(|it| it.parse())
        .transpose()?
        .unwrap_or(7);
    let ticks = 120;
    let reference = game::on_time(seed, ticks)?;
    let (late, rollback) = game::with_late_input(seed, ticks, 40, 8)?;
    let predicted = game::predicted_only(seed, ticks, 40, 8)?;
    println!(
        "seed {seed}, {ticks} ticks: player 1's inputs for ticks {}..{} arrived {} ticks late",
        rollback.from,
        rollback.from + rollback.ticks,
        rollback.ticks
    );
    println!(
        "on time:          state hash {:#018x}",
        reference.state_hash()
    );
    println!(
        "predicted only:   state hash {:#018x}",
        predicted.state_hash()
    );
    println!(
        "rolled back {}:    state hash {:#018x}",
        rollback.ticks,
        late.state_hash()
    );
    let desync = late
        .checksums()
        .expect("recorded")
        .first_desync(reference.checksums().expect("recorded"))?;
    match desync {
        None => println!("checksum records: every tick agrees"),
        Some(desync) => println!("checksum records differ: {desync}"),
    }
    if late.state_hash() != reference.state_hash() {
        return Err("the rolled-back run differs from the on-time run".into());
    }
    Ok(())
}
