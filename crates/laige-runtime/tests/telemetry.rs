//! The telemetry ring, its JSON export, and the counter tracks in the Chrome trace.

mod support;

use laige_runtime::{OverloadLevel, Runtime, RuntimeOptions};
use serde_json::Value;
use support::{Load, MS};

fn runtime(load: &Load, ticks: usize) -> Runtime {
    let mut world = load.world();
    load.register(&mut world);
    let options = RuntimeOptions {
        telemetry_ticks: ticks,
        ..load.options(100)
    };
    Runtime::new(world, options).unwrap()
}

#[test]
fn the_ring_keeps_the_last_ticks_with_their_fields() {
    let load = Load::default();
    let mut rt = runtime(&load, 4);
    load.set(13 * MS);
    for _ in 0..10 {
        rt.step().unwrap();
    }
    let telemetry = rt.telemetry();
    assert_eq!(
        (telemetry.capacity(), telemetry.len(), telemetry.recorded()),
        (4, 4, 10)
    );
    let ticks: Vec<u64> = telemetry.ticks().map(|(t, _)| t.tick).collect();
    assert_eq!(ticks, [6, 7, 8, 9]);
    let (last, systems) = telemetry.latest().unwrap();
    assert_eq!(last.actual_duration_nanos, 13_000_000);
    assert_eq!(
        last.target_duration_nanos,
        10_000_000 * u64::from(last.multiplier)
    );
    assert!((last.overrun_ratio - 1.3).abs() < 1e-9);
    assert_eq!(last.active_workers, 1);
    // Only the Load system is scheduled; it ran on the calling thread for 13 ms.
    assert_eq!(systems.len(), 1);
    assert_eq!(systems[0].duration_nanos, 13_000_000);
    assert_eq!(systems[0].worker, 0);
}

#[test]
fn the_json_export_carries_every_field() {
    let load = Load::default();
    let mut rt = runtime(&load, 16);
    load.set(2 * MS);
    for _ in 0..3 {
        rt.step().unwrap();
    }
    let json: Value = serde_json::from_str(&rt.telemetry().to_json()).unwrap();
    assert_eq!(json["version"], 1);
    let ticks = json["ticks"].as_array().unwrap();
    assert_eq!(ticks.len(), 3);
    let tick = &ticks[2];
    for field in [
        "tick",
        "target_nanos",
        "start_nanos",
        "target_duration_nanos",
        "actual_duration_nanos",
        "overrun_ratio",
        "level",
        "multiplier",
        "active_workers",
        "catch_up",
        "dropped",
        "skipped",
        "failed",
    ] {
        assert!(tick.get(field).is_some(), "{field} missing in {tick}");
    }
    assert_eq!(tick["tick"], 2);
    assert_eq!(tick["actual_duration_nanos"], 2_000_000);
    let system = &tick["systems"][0];
    assert_eq!(system["outcome"], "ran");
    assert_eq!(system["duration_nanos"], 2_000_000);
}

#[test]
fn the_chrome_trace_shows_the_ladder_as_counter_tracks() {
    let load = Load::default();
    let mut rt = runtime(&load, 64);
    rt.world_mut().record_timeline(64);
    load.set(20 * MS);
    for _ in 0..14 {
        rt.step().unwrap();
    }
    assert!(rt.level() >= OverloadLevel::SHED);
    let trace: Value =
        serde_json::from_str(&rt.world().timeline().unwrap().to_chrome_trace()).unwrap();
    let levels: Vec<f64> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "overload level")
        .map(|e| e["args"]["value"].as_f64().unwrap())
        .collect();
    assert_eq!(levels.len(), 14);
    assert_eq!(levels[0], 0.0);
    assert_eq!(levels[5], 1.0);
    assert_eq!(levels[11], 2.0);
    let ratios = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "overrun ratio")
        .count();
    assert_eq!(ratios, 14);
}

#[test]
fn without_system_telemetry_a_row_has_the_tick_alone() {
    let load = Load::default();
    let mut world = load.world();
    load.register(&mut world);
    let options = RuntimeOptions {
        system_telemetry: false,
        ..load.options(100)
    };
    let mut rt = Runtime::new(world, options).unwrap();
    load.set(4 * MS);
    rt.step().unwrap();
    let (tick, systems) = rt.telemetry().latest().unwrap();
    assert!(systems.is_empty());
    assert_eq!(tick.actual_duration_nanos, 4_000_000);
}
