//! Export errors: each names what is wrong and the fix, and none panics.

use laige_registry::SystemId;
use laige_scheduler::{ExportError, Layout, Schedule, ScheduleGraph, schedule};

use super::{c, game, game_layout, registry, sys};

fn id(n: u32) -> SystemId {
    SystemId::new(n).unwrap()
}

#[test]
fn a_hand_built_schedule_is_refused() {
    let (registry, _) = game();
    let hand = Schedule::hand_built(registry.len(), &[id(1)]);
    let err = ScheduleGraph::new(&hand, &registry, None).unwrap_err();
    assert_eq!(err, ExportError::HandBuilt);
    insta::assert_snapshot!(err.to_string(), @"a hand-built schedule has no proven edges to draw: export a schedule from `schedule` or `schedule_declared`");
}

#[test]
fn a_stale_or_foreign_schedule_is_refused() {
    let mut flat = registry(&["Position"], vec![sys("A")]);
    let schedule = schedule(&flat).unwrap();
    let (other, _) = game();
    let err = ScheduleGraph::new(&schedule, &other, None).unwrap_err();
    assert!(matches!(err, ExportError::Stale { foreign: true, .. }));
    insta::assert_snapshot!(err.to_string(), @"the schedule was computed from another registry: export it with the registry it came from");

    flat.register(sys("B")).unwrap();
    let err = ScheduleGraph::new(&schedule, &flat, None).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the schedule was computed for 1 systems but the registry now has 2: schedule again, then export");
}

#[test]
fn a_layout_is_needed_for_declarative_features() {
    let (registry, schedule) = game();
    let err = ScheduleGraph::new(&schedule, &registry, None).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"`ReadInput` uses `in_phase`, which only a layout gives meaning to: export with the layout the schedule was built from");
}

#[test]
fn a_layout_that_does_not_build_says_why() {
    let (registry, schedule) = game();
    let layout = Layout::new().dag("Main", "Game", &["Simulation"], "Simulation");
    let err = ScheduleGraph::new(&schedule, &registry, Some(&layout)).unwrap_err();
    assert!(matches!(err, ExportError::Layout(_)));
    assert!(std::error::Error::source(&err).is_some());
    assert!(
        err.to_string().starts_with("the layout does not build: "),
        "{err}"
    );
    assert!(err.to_string().contains("`ReadInput`"), "{err}");
}

#[test]
fn a_layout_that_builds_another_schedule_is_refused() {
    // `Net` moves from the `Late` track to `Main`: `Encode` is the first system it moves.
    let (registry, schedule) = game();
    let other = Layout::new()
        .dag(
            "Main",
            "Game",
            &["Input", "Simulation", "Output"],
            "Simulation",
        )
        .dag("Main", "Audio", &["Mix"], "Mix")
        .dag("Main", "Net", &["Send"], "Send");
    let err = ScheduleGraph::new(&schedule, &registry, Some(&other)).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the layout places or orders `Encode` differently from the schedule: export with the layout the schedule was built from, or with none for a flat schedule");
}

#[test]
fn a_layout_with_other_tracks_is_refused() {
    // Every system lands in `Game`, in the flat order, but the layout also has `Late`.
    let flat = registry(&["Position"], vec![sys("A"), sys("B").writes(c(1))]);
    let schedule = schedule(&flat).unwrap();
    let err = ScheduleGraph::new(&schedule, &flat, Some(&game_layout())).unwrap_err();
    assert_eq!(
        err,
        ExportError::TrackCount {
            layout: 2,
            schedule: 1
        }
    );
    insta::assert_snapshot!(err.to_string(), @"the layout builds 2 tracks but the schedule has 1: export with the layout the schedule was built from, or with none for a flat schedule");
}
