//! The rollback example (`examples/rollback/`): a late input, eight ticks rolled back and
//! simulated again, ends in the state of a run that had the input on time: the same state
//! hash, the same checksum record, the same entities. (Every runner and worker count is
//! covered by laige-world's `tests/rollback.rs`.)

#[allow(dead_code)]
#[path = "../examples/rollback/game.rs"]
mod game;

use laige_sim::prelude::*;

fn handles(world: &mut World) -> Vec<Entity> {
    let mut out = Vec::new();
    world.each::<Entity>(|e| out.push(e)).unwrap();
    out
}

#[test]
fn a_late_input_rolled_back_eight_ticks_gives_the_on_time_state() {
    for seed in [1, 7, 42] {
        let mut reference = game::on_time(seed, 120).unwrap();
        let (mut late, rollback) = game::with_late_input(seed, 120, 40, 8).unwrap();
        assert_eq!(rollback.ticks, 8);
        assert_eq!(late.state_hash(), reference.state_hash(), "seed {seed}");
        assert_eq!(late.ticks_run(), reference.ticks_run());
        assert_eq!(handles(&mut late), handles(&mut reference));
        assert_eq!(
            late.checksums().unwrap().to_bytes(),
            reference.checksums().unwrap().to_bytes(),
            "the checksum record reads as the on-time run's"
        );
        let predicted = game::predicted_only(seed, 120, 40, 8).unwrap();
        assert_ne!(
            predicted.state_hash(),
            reference.state_hash(),
            "the prediction was wrong, so the rollback had something to repair (seed {seed})"
        );
    }
}
