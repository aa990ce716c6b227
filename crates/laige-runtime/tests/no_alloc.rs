//! A steady-state runtime tick allocates nothing: stepped and in real time on a manual
//! clock, with the ladder throttling and shedding, telemetry written, on the sequential
//! runner and on the executor.

mod support;

use laige_runtime::{OverloadLevel, Priority, Runtime, SystemPolicy};
use laige_world::{Component, Query};
use support::{Load, MS};

#[global_allocator]
static GLOBAL: laige_testkit::CountingAlloc = laige_testkit::CountingAlloc;

struct Pos(f32);
impl Component for Pos {}
struct Glow(f32);
impl Component for Glow {}

fn runtime(load: &Load, workers: usize) -> Runtime {
    let mut world = load.world();
    world.register_component::<Pos>().unwrap();
    world.register_component::<Glow>().unwrap();
    for i in 0..100 {
        world.spawn((Pos(i as f32), Glow(1.0))).unwrap();
    }
    let moves = world
        .system("Move", |mut q: Query<'_, &mut Pos>| q.each(|p| p.0 += 1.0))
        .register()
        .unwrap();
    let sheds = world
        .system("Sparkle", |mut q: Query<'_, (&Pos, &mut Glow)>| {
            q.each(|(p, g)| g.0 = p.0 * 0.5)
        })
        .after(moves)
        .register()
        .unwrap();
    load.register(&mut world);
    let mut options = load.options(100);
    options.workers = workers;
    options.telemetry_ticks = 8;
    let mut rt = Runtime::new(world, options).unwrap();
    rt.set_policy(
        moves,
        SystemPolicy {
            throttle_divisor: 2,
            ..SystemPolicy::default()
        },
    )
    .unwrap();
    rt.set_policy(
        sheds,
        SystemPolicy {
            priority: Priority::Low,
            can_shed: true,
            throttle_divisor: 1,
        },
    )
    .unwrap();
    rt
}

#[test]
fn a_steady_runtime_tick_allocates_nothing() {
    for workers in [0, 2] {
        let load = Load::default();
        let mut rt = runtime(&load, workers);
        load.set(3 * MS);
        rt.set_lockstep(true);
        rt.confirm_level(4, OverloadLevel::SHED).unwrap();
        // Warm-up: the first ticks, the first skips, the ring's first lap.
        for _ in 0..20 {
            rt.step().unwrap();
        }
        assert_eq!(rt.level(), OverloadLevel::SHED);
        let before = laige_testkit::allocations();
        for _ in 0..50 {
            rt.step().unwrap();
        }
        for _ in 0..20 {
            rt.run_frame().unwrap();
        }
        rt.confirm_level(rt.ticks_run(), OverloadLevel::NORMAL)
            .unwrap();
        for _ in 0..20 {
            rt.step().unwrap();
        }
        let after = laige_testkit::allocations();
        assert_eq!(after - before, 0, "{workers} workers");
        let (tick, systems) = rt.telemetry().latest().unwrap();
        assert_eq!(tick.level, OverloadLevel::NORMAL);
        assert_eq!(systems.len(), 3);
    }
}

/// Drawn positions: render-side state, unhashed, that no fixed system touches.
struct Drawn(f32);
impl Component for Drawn {}

#[test]
fn a_steady_frame_with_a_frame_schedule_allocates_nothing() {
    use laige_runtime::{FrameTime, RuntimeOptions};
    use laige_scheduler::Layout;
    use laige_world::Res;
    for workers in [0, 2] {
        let load = Load::default();
        let mut world = load.world();
        world.set_layout(Layout::new().dag("Fixed", "sim", &["all"], "all").dag(
            "Frame",
            "render",
            &["all"],
            "all",
        ));
        world.register_component::<Pos>().unwrap();
        world.register_component::<Drawn>().unwrap();
        for i in 0..100 {
            world.spawn((Pos(i as f32), Drawn(0.0))).unwrap();
        }
        world
            .system("Move", |mut q: Query<'_, &mut Pos>| q.each(|p| p.0 += 1.0))
            .in_dag("sim")
            .register()
            .unwrap();
        world
            .system(
                "Interpolate",
                |frame: Res<'_, FrameTime>, mut q: Query<'_, (&Pos, &mut Drawn)>| {
                    let alpha = frame.overstep_fraction as f32;
                    q.each(|(p, d)| d.0 = p.0 - 1.0 + alpha)
                },
            )
            .in_dag("render")
            .register()
            .unwrap();
        load.register(&mut world);
        let options = RuntimeOptions {
            workers,
            telemetry_ticks: 8,
            frame_track: Some("Frame"),
            ..load.options(100)
        };
        let mut rt = Runtime::new(world, options).unwrap();
        load.set(3 * MS);
        for _ in 0..20 {
            rt.run_frame().unwrap();
        }
        let before = laige_testkit::allocations();
        for _ in 0..30 {
            rt.run_frame().unwrap();
            rt.step().unwrap();
            rt.frame().unwrap();
        }
        let after = laige_testkit::allocations();
        assert_eq!(after - before, 0, "{workers} workers");
    }
}
