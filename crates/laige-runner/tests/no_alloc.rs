//! Contract §8.1 test 26 `SchedulingAndTicksAllocateNothing` (§7.4 scheduler window), and
//! the same window over the warning and failure paths and over budget breaches.
//!
//! Its own binary: the counting allocator counts per thread, and no tracing subscriber is
//! installed here, so what is measured is the scheduler, the runner, timing and the rate
//! limiter themselves. Everything is warmed up once before a window opens (the first
//! schedule, run or event may touch lazily initialised statics).

use std::sync::Arc;
use std::time::Duration;

use laige_diag::{Diagnostics, ManualClock};
use laige_registry::{Budget, ComponentId, Registry, SystemDef, SystemId, system};
use laige_runner::{RunError, Runner, SlotProblem};
use laige_scheduler::{Schedule, ScheduleError};
use laige_testkit::{CountingAlloc, count_allocations};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const TICKS: usize = 100;
const ENTITIES: usize = 4;

/// The test world: SchVel.vx and SchPos.x of each entity, and what the readers summed.
struct TestWorld {
    vel: Vec<i64>,
    pos: Vec<i32>,
    vel_sum: i64,
    pos_sum: i64,
    runs: u64,
}

impl TestWorld {
    fn new() -> Self {
        Self {
            vel: vec![0x9999; ENTITIES],
            pos: vec![1; ENTITIES],
            vel_sum: 0,
            pos_sum: 0,
            runs: 0,
        }
    }
}

type Run = fn(&mut TestWorld);

fn sch_write_vel(world: &mut TestWorld) {
    for vx in &mut world.vel {
        *vx = 0x1234;
    }
    world.runs += 1;
}

fn sch_read_vel(world: &mut TestWorld) {
    world.vel_sum = world.vel.iter().sum();
    world.runs += 1;
}

fn sch_read_pos(world: &mut TestWorld) {
    world.pos_sum = world.pos.iter().map(|&x| i64::from(x)).sum();
    world.runs += 1;
}

const VEL: ComponentId = match ComponentId::new(1) {
    Some(id) => id,
    None => panic!(),
};
const POS: ComponentId = match ComponentId::new(2) {
    Some(id) => id,
    None => panic!(),
};

/// SchVel and SchPos registered, reporting through a 60 s window on a manual clock.
fn registry() -> (Registry<Run>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    let mut registry = Registry::with_diagnostics(Diagnostics::with_clock(
        Duration::from_secs(60),
        clock.clone(),
    ));
    registry.register_component(VEL);
    registry.register_component(POS);
    (registry, clock)
}

fn write_vel() -> SystemDef<Run> {
    system!("SchWriteVel" => sch_write_vel, 50).writes(VEL)
}

fn read_vel() -> SystemDef<Run> {
    system!("SchReadVel" => sch_read_vel, 50).reads(VEL)
}

fn read_pos() -> SystemDef<Run> {
    system!("SchReadPos" => sch_read_pos, 50).reads(POS)
}

fn tick(
    runner: &mut Runner,
    schedule: &Schedule,
    registry: &Registry<Run>,
    world: &mut TestWorld,
) -> Result<(), RunError> {
    runner.run(schedule, registry, &mut |_: SystemId, run: &Run| run(world))
}

/// §7.4: SchWriteVel, SchReadVel, SchReadPos over four entities; `schedule()` and 100 ticks
/// with timing on allocate nothing.
#[test]
fn scheduling_and_ticks_allocate_nothing() {
    let (mut registry, _clock) = registry();
    for def in [write_vel(), read_vel(), read_pos()] {
        registry.register(def).unwrap();
    }
    let mut world = TestWorld::new();
    let mut runner = Runner::new();
    assert!(
        runner.options().timing,
        "the default runner times every system"
    );
    let warm = laige_scheduler::schedule(&registry).unwrap();
    tick(&mut runner, &warm, &registry, &mut world).unwrap();
    world.vel.fill(0x9999);

    let (warnings, allocs) = count_allocations(|| {
        let schedule = laige_scheduler::schedule(&registry).unwrap();
        for _ in 0..TICKS {
            tick(&mut runner, &schedule, &registry, &mut world).unwrap();
        }
        schedule.warning_count()
    });
    println!("scheduler-zeroalloc ticks={TICKS} allocs={allocs}");

    assert_eq!(warnings, 0, "registered writer first: no read_before_write");
    assert_eq!(world.vel_sum, 4 * 0x1234);
    assert_eq!(world.pos_sum, 4);
    assert_eq!(world.runs, 3 * (TICKS as u64 + 1));
    let timed = runner.timing_stats(SystemId::new(1).unwrap()).unwrap();
    assert_eq!(timed.runs, TICKS as u64 + 1);
    assert_eq!(allocs, 0);
}

/// The warning path: a reader registered before its writer warns on every `schedule()`;
/// with the clock moved past the window each time, every warning is emitted (and the
/// rate limiter's summary path runs too), yet nothing allocates.
#[test]
fn read_before_write_warnings_allocate_nothing() {
    let (mut registry, clock) = registry();
    for def in [read_vel(), write_vel(), read_pos()] {
        registry.register(def).unwrap();
    }
    let mut world = TestWorld::new();
    let mut runner = Runner::new();
    let warm = laige_scheduler::schedule(&registry).unwrap();
    tick(&mut runner, &warm, &registry, &mut world).unwrap();

    let (warnings, allocs) = count_allocations(|| {
        let mut warnings = 0;
        for i in 0..TICKS {
            // Every other pass inside the window (suppressed), the rest after it (emitted).
            if i % 2 == 0 {
                clock.advance(Duration::from_secs(60));
            }
            let schedule = laige_scheduler::schedule(&registry).unwrap();
            warnings += schedule.warning_count();
            tick(&mut runner, &schedule, &registry, &mut world).unwrap();
        }
        registry.diagnostics().flush();
        warnings
    });
    println!("scheduler-zeroalloc-warn schedules={TICKS} ticks={TICKS} allocs={allocs}");

    assert_eq!(warnings, TICKS);
    assert_eq!(world.vel_sum, 4 * 0x1234, "the previous tick's write");
    assert_eq!(allocs, 0);
}

/// The failure paths: each scheduling failure and each run-time schedule check, repeated
/// inside and past the rate window, allocates nothing.
#[test]
fn failures_allocate_nothing() {
    let (mut double_writer, dw_clock) = registry();
    double_writer.register(write_vel()).unwrap();
    double_writer
        .register(system!("SchWriteVel2" => sch_write_vel, 50).writes(VEL))
        .unwrap();

    let (mut missing, missing_clock) = registry();
    missing
        .register(system!("GhostHunt" => sch_read_pos, 50, GhostSystm))
        .unwrap();
    missing
        .register(system!("GhostSystem" => sch_read_pos, 50))
        .unwrap();

    let (mut cycle, cycle_clock) = registry();
    cycle
        .register(system!("CycA" => sch_read_pos, 50, CycB))
        .unwrap();
    cycle
        .register(system!("CycB" => sch_read_pos, 50, CycA))
        .unwrap();

    let (mut stale, stale_clock) = registry();
    stale.register(write_vel()).unwrap();
    let old = laige_scheduler::schedule(&stale).unwrap();
    stale.register(read_vel()).unwrap();
    let invalid = Schedule::hand_built(2, &[SystemId::new(1).unwrap(), SystemId::new(1).unwrap()]);

    let mut world = TestWorld::new();
    let mut runner = Runner::new();
    let clocks = [&dw_clock, &missing_clock, &cycle_clock, &stale_clock];
    let attempt = |runner: &mut Runner, world: &mut TestWorld| {
        let dw = laige_scheduler::schedule(&double_writer).unwrap_err();
        let miss = laige_scheduler::schedule(&missing).unwrap_err();
        let cyc = laige_scheduler::schedule(&cycle).unwrap_err();
        let st = tick(runner, &old, &stale, world).unwrap_err();
        let inv = tick(runner, &invalid, &stale, world).unwrap_err();
        [
            matches!(dw, ScheduleError::DoubleWriter { .. }),
            matches!(
                miss,
                ScheduleError::DepMissing {
                    suggestion: Some("GhostSystem"),
                    ..
                }
            ),
            matches!(cyc, ScheduleError::DependencyCycle(c) if c.len() == 2),
            matches!(st, RunError::ScheduleStale { .. }),
            matches!(
                inv,
                RunError::ScheduleInvalid {
                    slot: 1,
                    id: 1,
                    problem: SlotProblem::Repeated { first_slot: 0 }
                }
            ),
        ]
    };
    assert_eq!(attempt(&mut runner, &mut world), [true; 5], "warm-up");

    let (ok, allocs) = count_allocations(|| {
        let mut ok = true;
        for i in 0..TICKS {
            if i % 2 == 0 {
                for clock in clocks {
                    clock.advance(Duration::from_secs(60));
                }
            }
            ok &= attempt(&mut runner, &mut world) == [true; 5];
        }
        for registry in [&double_writer, &missing, &cycle] {
            registry.diagnostics().flush();
        }
        stale.diagnostics().flush();
        ok
    });
    println!(
        "scheduler-zeroalloc-error attempts={} allocs={allocs}",
        5 * TICKS
    );

    assert!(ok);
    assert_eq!(world.runs, 0, "no failing check ran anything");
    assert_eq!(allocs, 0);
}

/// `SystemTiming.HealthyTicksAllocateNothing`: two systems × 100 ticks with timing on.
#[test]
fn healthy_timed_ticks_allocate_nothing() {
    let (mut registry, _clock) = registry();
    registry.register(write_vel()).unwrap();
    registry.register(read_vel()).unwrap();
    let schedule = laige_scheduler::schedule(&registry).unwrap();
    let mut world = TestWorld::new();
    let mut runner = Runner::new();
    tick(&mut runner, &schedule, &registry, &mut world).unwrap();

    let ((), allocs) = count_allocations(|| {
        for _ in 0..TICKS {
            tick(&mut runner, &schedule, &registry, &mut world).unwrap();
        }
    });
    println!("system-timing-zeroalloc ticks={TICKS} allocs={allocs}");
    let stats = runner.timing_stats(SystemId::new(2).unwrap()).unwrap();
    assert_eq!(stats.runs, TICKS as u64 + 1);
    assert_eq!(stats.window_samples, 64);
    assert_eq!(allocs, 0);
}

/// Budget breaches every tick (a 1-raw-step budget, about 15 ns): window statistics, both
/// events and the rate limiter's summaries, and still nothing allocates.
#[test]
fn budget_breaches_allocate_nothing() {
    let (mut registry, clock) = registry();
    registry
        .register(
            SystemDef::new("Tiny", sch_read_pos as Run)
                .budget(Budget::from_raw(1))
                .reads(POS),
        )
        .unwrap();
    let schedule = laige_scheduler::schedule(&registry).unwrap();
    let mut world = TestWorld::new();
    let mut runner = Runner::new();
    tick(&mut runner, &schedule, &registry, &mut world).unwrap();

    let ((), allocs) = count_allocations(|| {
        for i in 0..TICKS {
            if i % 2 == 0 {
                clock.advance(Duration::from_secs(60));
            }
            // One real run, one synthetic 1 ms sample (certainly over budget).
            tick(&mut runner, &schedule, &registry, &mut world).unwrap();
            let record = registry.get(SystemId::new(1).unwrap()).unwrap();
            runner
                .timing_mut()
                .observe(record, 1_000_000, registry.diagnostics());
        }
        registry.diagnostics().flush();
    });
    println!("system-timing-zeroalloc-breach ticks={TICKS} allocs={allocs}");
    let stats = runner.timing_stats(SystemId::new(1).unwrap()).unwrap();
    assert_eq!(stats.runs, 2 * TICKS as u64 + 1);
    assert!(stats.warns >= TICKS as u64);
    assert!(stats.errors >= TICKS as u64);
    assert_eq!(allocs, 0);
}

/// The windows above can fail: an allocation inside one is counted.
#[test]
fn counter_sees_allocations() {
    let (_, allocs) = count_allocations(|| std::hint::black_box(vec![0u8; 16]));
    assert_eq!(allocs, 1);
}
