//! Errors and schedules are small enough to return by value (issue 11): the error under
//! clippy's `result_large_err` line (128 bytes), the schedule about a kilobyte (its order
//! of 256 ids is most of it), where they were about 6 and 11 KiB.

use laige_scheduler::{Cycle, Schedule, ScheduleError};

#[test]
fn errors_and_schedules_are_small() {
    let (error, cycle, schedule) = (
        size_of::<ScheduleError>(),
        size_of::<Cycle>(),
        size_of::<Schedule>(),
    );
    println!("ScheduleError {error} B, Cycle {cycle} B, Schedule {schedule} B");
    assert!(error < 128, "ScheduleError is {error} bytes");
    assert!(schedule <= 1280, "Schedule is {schedule} bytes");
}
