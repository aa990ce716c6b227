//! The desync finder: checksum records of live runs, what their checksums are, how two
//! records compare, and their file form (round trips, and every kind of bad file).

use std::hash::BuildHasher;

use laige_executor::ExecutorOptions;
use laige_scheduler::Schedule;
use laige_world::{
    ChecksumRecord, CompareError, Component, ComponentOptions, Culprit, Desync, Entity,
    RecordError, StateHash, StateHasher, SystemContext, World, WorldOptions,
};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(f32);
impl Component for Pos {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(f32);
impl Component for Vel {}
/// What `Jitter` writes: the tick it is on, and a value made from it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Noise {
    tick: u32,
    value: u64,
}
impl Component for Noise {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spark;
impl Component for Spark {}
#[derive(Clone, Copy, Debug, PartialEq)]
struct Trail;
impl Component for Trail {}

impl StateHash for Pos {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}
impl StateHash for Vel {
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
    }
}
impl StateHash for Noise {
    fn hash_state(&self, h: &mut StateHasher) {
        (self.tick, self.value).hash_state(h);
    }
}

/// How one run goes wrong, from tick `DIVERGE_AT` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    /// `Jitter` reads an unseeded source (a fresh `RandomState`).
    Unseeded,
    /// `Sparks` spawns one entity more (a difference only the state hash sees).
    ExtraSpawn,
}

const DIVERGE_AT: u32 = 3;

fn accelerate(ctx: &mut SystemContext<'_>) {
    let kick = ctx.rng().next_float01();
    ctx.each::<&mut Vel>(|v| v.0 = v.0 * 0.5 + kick).unwrap();
}

fn integrate(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Pos, &Vel)>(|(p, v)| p.0 += v.0).unwrap();
}

fn jitter(ctx: &mut SystemContext<'_>) {
    let fault = *ctx.resource::<Fault>().unwrap();
    ctx.each::<&mut Noise>(|n| {
        n.tick += 1;
        n.value = if fault == Fault::Unseeded && n.tick >= DIVERGE_AT {
            // The bug under test: a hash with per-process random keys.
            std::collections::hash_map::RandomState::new().hash_one(n.tick)
        } else {
            u64::from(n.tick) * 0x9E37_79B9
        };
    })
    .unwrap();
}

fn trail(_: &mut SystemContext<'_>) {}

fn sparks(ctx: &mut SystemContext<'_>) {
    let fault = *ctx.resource::<Fault>().unwrap();
    let mut tick = 0;
    ctx.each::<&Noise>(|n| tick = n.tick).unwrap();
    let spawns = if fault == Fault::ExtraSpawn && tick == DIVERGE_AT {
        2
    } else {
        1
    };
    for _ in 0..spawns {
        ctx.commands().spawn((Spark,));
    }
}

/// Four systems: `Accelerate` (writes `Vel`, draws from its PRNG), `Integrate` (writes
/// `Pos`, after it), `Jitter` (writes `Noise`), and `Sparks` (spawns through commands).
fn world(fault: Fault) -> (World, Schedule) {
    let mut world = World::new(WorldOptions {
        seed: 0x5EED,
        ..WorldOptions::default()
    });
    world
        .register_component_with(ComponentOptions::<Pos>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Vel>::new().hashed())
        .unwrap();
    world
        .register_component_with(ComponentOptions::<Noise>::new().hashed())
        .unwrap();
    world.register_component::<Spark>().unwrap();
    world.insert_resource(fault).unwrap();
    for i in 0..6 {
        world.spawn((Pos(i as f32), Vel(1.0))).unwrap();
    }
    world.spawn((Noise { tick: 0, value: 0 },)).unwrap();
    world
        .system("Accelerate", accelerate)
        .budget_ms(1.0)
        .writes::<Vel>()
        .register()
        .unwrap();
    world
        .system("Integrate", integrate)
        .budget_ms(1.0)
        .after("Accelerate")
        .writes::<Pos>()
        .reads::<Vel>()
        .register()
        .unwrap();
    world
        .system("Jitter", jitter)
        .budget_ms(1.0)
        .writes::<Noise>()
        .reads::<Fault>()
        .register()
        .unwrap();
    world
        .system("Sparks", sparks)
        .budget_ms(1.0)
        .reads::<Noise>()
        .reads::<Fault>()
        .after("Jitter")
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    (world, schedule)
}

/// Runs `ticks` ticks with checksums on, optionally on the executor, and returns the record.
fn run(fault: Fault, threads: Option<usize>, ticks: u32, keep: usize) -> ChecksumRecord {
    let (mut world, schedule) = world(fault);
    if let Some(threads) = threads {
        world.use_executor(ExecutorOptions::parallel(threads));
    }
    world.record_checksums(keep);
    for _ in 0..ticks {
        world.run_systems(&schedule).unwrap();
    }
    world.take_checksums().unwrap()
}

#[test]
fn a_record_lists_systems_and_their_writes_in_schedule_order() {
    let record = run(Fault::None, None, 4, 8);
    let layout: Vec<(&str, Vec<&str>)> = record
        .systems()
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.writes.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        layout,
        [
            ("Accelerate", vec!["Vel"]),
            ("Integrate", vec!["Pos"]),
            ("Jitter", vec!["Noise"]),
            ("Sparks", vec![]),
        ]
    );
    let ticks: Vec<u64> = record.ticks().map(|t| t.tick()).collect();
    assert_eq!(ticks, [0, 1, 2, 3]);
    assert!(record.ticks().all(|t| t.checksums().len() == 3));
}

/// The checksum's definition, by hand: per row the entity's index and generation, then the
/// value's `StateHash` bytes; and the state hash is the world's.
#[test]
fn checksums_are_the_documented_hash_of_the_written_rows() {
    let (mut world, schedule) = world(Fault::None);
    world.record_checksums(1);
    world.run_systems(&schedule).unwrap();
    let mut pos = StateHasher::new();
    let mut noise = StateHasher::new();
    let mut rows = Vec::new();
    world
        .each::<(Entity, &Pos)>(|(e, p)| rows.push((e, p.0)))
        .unwrap();
    for (e, p) in rows {
        pos.write_u32(e.index());
        pos.write_u32(e.generation());
        pos.write_f32(p);
    }
    world
        .each::<(Entity, &Noise)>(|(e, n)| {
            noise.write_u32(e.index());
            noise.write_u32(e.generation());
            noise.write_u32(n.tick);
            noise.write_u64(n.value);
        })
        .unwrap();
    let latest = world.checksums().unwrap().latest().unwrap();
    assert_eq!(latest.checksums()[1], pos.finish());
    assert_eq!(latest.checksums()[2], noise.finish());
    assert_eq!(latest.state_hash(), world.state_hash());
}

#[test]
fn the_same_run_agrees_on_every_runner() {
    let sequential = run(Fault::None, None, 6, 16);
    for threads in [1, 2, 4] {
        let parallel = run(Fault::None, Some(threads), 6, 16);
        assert_eq!(sequential.first_desync(&parallel), Ok(None), "{threads}");
    }
}

/// The injected bug: one run reads an unseeded source in `Jitter` from tick 3 on. The report
/// names that system, its component and tick 2 (the world's ticks count from 0, and
/// `Jitter`'s own count reaches 3 on the world's third tick).
#[test]
fn an_unseeded_read_is_found_at_its_tick_and_system() {
    let good = run(Fault::None, None, 6, 16);
    let bad = run(Fault::Unseeded, Some(2), 6, 16);
    let desync = good.first_desync(&bad).unwrap().unwrap();
    let first_bad_tick = u64::from(DIVERGE_AT - 1);
    assert_eq!(desync.tick, first_bad_tick);
    assert_eq!(
        desync.culprit,
        Some(Culprit {
            system: "Jitter".to_owned(),
            component: "Noise".to_owned(),
        })
    );
    assert!(desync.state_differs);
    assert_ne!(desync.ours, desync.theirs);
    let message = desync.to_string();
    assert!(
        message.starts_with("desync at tick 2: system `Jitter` wrote `Noise` differently"),
        "{message}"
    );
    // Either way round, the same place.
    let back = bad.first_desync(&good).unwrap().unwrap();
    assert_eq!((back.tick, back.culprit), (desync.tick, desync.culprit));
}

#[test]
fn a_difference_only_commands_make_is_a_state_desync() {
    let good = run(Fault::None, None, 6, 16);
    let bad = run(Fault::ExtraSpawn, None, 6, 16);
    let desync = good.first_desync(&bad).unwrap().unwrap();
    assert_eq!(
        desync,
        Desync {
            tick: 2,
            culprit: None,
            ours: good.ticks().nth(2).unwrap().state_hash(),
            theirs: bad.ticks().nth(2).unwrap().state_hash(),
            state_differs: true,
            skip_differs: false,
        }
    );
    assert!(
        desync
            .to_string()
            .contains("every system's written components match")
    );
}

#[test]
fn records_compare_over_the_ticks_both_hold() {
    // One keeps ticks 4..=9, the other 0..=5: they share 4 and 5, where the bug shows.
    let late = run(Fault::None, None, 10, 6);
    let early = run(Fault::Unseeded, None, 6, 16);
    assert_eq!(late.ticks().next().unwrap().tick(), 4);
    let desync = late.first_desync(&early).unwrap().unwrap();
    assert_eq!(desync.tick, 4, "the first common tick that differs");

    let short = run(Fault::None, None, 3, 16);
    let err = late.first_desync(&short).unwrap_err();
    assert_eq!(
        err,
        CompareError::NoCommonTick {
            ours: Some((4, 9)),
            theirs: Some((0, 2)),
        }
    );
    assert!(err.to_string().contains("ticks 4..=9"), "{err}");
}

#[test]
fn records_of_different_schedules_do_not_compare() {
    let record = run(Fault::None, None, 3, 8);
    let (mut world, _) = world(Fault::None);
    world.register_component::<Trail>().unwrap();
    world
        .system("Extra", trail)
        .budget_ms(1.0)
        .writes::<Trail>()
        .reads::<Pos>()
        .register()
        .unwrap();
    let schedule = world.schedule().unwrap();
    world.record_checksums(8);
    world.run_systems(&schedule).unwrap();
    let other = world.take_checksums().unwrap();
    let err = record.first_desync(&other).unwrap_err();
    assert!(
        matches!(err, CompareError::DifferentSchedules { position: 4, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the records come from different schedules: at position 4 one has no system and the \
         other `Extra` (writes: Trail); compare runs of the same build of the same systems"
    );
}

#[test]
fn records_round_trip_through_their_file_form() {
    let record = run(Fault::Unseeded, Some(2), 7, 5);
    let bytes = record.to_bytes();
    let back = ChecksumRecord::from_bytes(&bytes).unwrap();
    assert_eq!(back.systems(), record.systems());
    assert!(back.ticks().eq(record.ticks()));
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.first_desync(&record), Ok(None));
    // The documented header: magic, version 2, 4 systems, then `Accelerate`'s name.
    assert_eq!(&bytes[..8], b"LAIGECHK");
    assert_eq!(&bytes[8..12], [0, 2, 0, 4]);
    assert_eq!(&bytes[12..16], 10u32.to_be_bytes());
    assert_eq!(&bytes[16..26], b"Accelerate");
    // 5 rows of 2 + 4 skip codes + 3 checksums, and the trailer.
    let header = bytes.len() - 5 * 9 * 8 - 8;
    assert_eq!(&bytes[header - 8..header], 5u64.to_be_bytes());
}

#[test]
fn an_empty_record_round_trips() {
    let (mut world, _) = world(Fault::None);
    world.record_checksums(3);
    let record = world.take_checksums().unwrap();
    assert!(record.is_empty());
    let back = ChecksumRecord::from_bytes(&record.to_bytes()).unwrap();
    assert!(back.is_empty() && back.systems().is_empty());
}

/// Rewrites the trailer after an edit, so the edit is what the reader meets.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 8;
    let mut h = StateHasher::new();
    h.write_bytes(&bytes[..body]);
    bytes.truncate(body);
    bytes.extend_from_slice(&h.finish().to_be_bytes());
    bytes
}

#[test]
fn bad_files_are_clear_errors() {
    let bytes = run(Fault::None, None, 3, 8).to_bytes();

    assert_eq!(
        ChecksumRecord::from_bytes(b"").unwrap_err(),
        RecordError::NotARecord
    );
    assert_eq!(
        ChecksumRecord::from_bytes(b"{\"ticks\": []}").unwrap_err(),
        RecordError::NotARecord
    );

    let mut version = bytes.clone();
    version[9] = 7;
    let err = ChecksumRecord::from_bytes(&version).unwrap_err();
    assert_eq!(err, RecordError::UnsupportedVersion { found: 7 });
    assert!(
        err.to_string().contains("version 7 is not supported"),
        "{err}"
    );

    for len in 0..bytes.len() {
        let err = ChecksumRecord::from_bytes(&bytes[..len]).unwrap_err();
        match err {
            RecordError::NotARecord => assert!(len < 8),
            RecordError::Truncated { len: at, .. } => assert_eq!(at, len),
            other => panic!("cut at {len}: {other:?}"),
        }
    }
    let err = ChecksumRecord::from_bytes(&bytes[..bytes.len() - 3]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "checksum record is cut short: the trailer at byte {} runs past its end at byte {}; \
             copy the whole file again",
            bytes.len() - 8,
            bytes.len() - 3
        )
    );

    let mut longer = bytes.clone();
    longer.extend_from_slice(b"xyz");
    assert_eq!(
        ChecksumRecord::from_bytes(&longer).unwrap_err(),
        RecordError::TrailingBytes { extra: 3 }
    );

    let mut flipped = bytes.clone();
    let last_row = bytes.len() - 12;
    flipped[last_row] ^= 0x40;
    let err = ChecksumRecord::from_bytes(&flipped).unwrap_err();
    assert!(matches!(err, RecordError::Corrupt { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("checksum record is corrupt: its trailer says")
    );

    let mut name = bytes.clone();
    name[16] = 0xFF;
    assert_eq!(
        ChecksumRecord::from_bytes(&name).unwrap_err(),
        RecordError::InvalidName { offset: 16 }
    );

    // Swap the first two rows' tick numbers: 1, 0, 2.
    let rows = bytes.len() - 8 - 3 * 9 * 8;
    let mut swapped = bytes.clone();
    swapped[rows..rows + 8].copy_from_slice(&1u64.to_be_bytes());
    swapped[rows + 72..rows + 80].copy_from_slice(&0u64.to_be_bytes());
    assert_eq!(
        ChecksumRecord::from_bytes(&resealed(swapped)).unwrap_err(),
        RecordError::TicksOutOfOrder {
            row: 1,
            tick: 0,
            previous: 1
        }
    );

    // A tick count far past the bytes is refused before anything is allocated for it.
    let mut huge = bytes.clone();
    huge[rows - 8..rows].copy_from_slice(&u64::MAX.to_be_bytes());
    assert!(matches!(
        ChecksumRecord::from_bytes(&huge).unwrap_err(),
        RecordError::Truncated {
            what: "the rows",
            ..
        }
    ));
}

mod fuzz {
    use laige_world::ChecksumRecord;
    use proptest::prelude::*;

    /// Systems with the names of their writes, as a record lists them.
    type Systems = Vec<(String, Vec<String>)>;
    /// Rows of words: tick, state hash, checksums.
    type Rows = Vec<Vec<u64>>;

    /// Encodes a record the way the module docs describe, independently of the crate.
    fn encode(systems: &Systems, rows: &Rows) -> Vec<u8> {
        let mut out = b"LAIGECHK".to_vec();
        out.extend_from_slice(&2u16.to_be_bytes());
        out.extend_from_slice(&(systems.len() as u16).to_be_bytes());
        let name = |out: &mut Vec<u8>, name: &str| {
            out.extend_from_slice(&(name.len() as u32).to_be_bytes());
            out.extend_from_slice(name.as_bytes());
        };
        for (system, writes) in systems {
            name(&mut out, system);
            out.extend_from_slice(&(writes.len() as u16).to_be_bytes());
            for component in writes {
                name(&mut out, component);
            }
        }
        out.extend_from_slice(&(rows.len() as u64).to_be_bytes());
        for row in rows {
            for word in row {
                out.extend_from_slice(&word.to_be_bytes());
            }
        }
        let mut h = laige_world::StateHasher::new();
        h.write_bytes(&out);
        out.extend_from_slice(&h.finish().to_be_bytes());
        out
    }

    fn record() -> impl Strategy<Value = (Systems, Rows)> {
        let systems = prop::collection::vec(
            ("\\PC{0,12}", prop::collection::vec("\\PC{0,8}", 0..3)),
            0..5,
        );
        (systems, 0usize..6, any::<u64>()).prop_flat_map(|(systems, ticks, seed)| {
            let width = 1 + systems.len() + systems.iter().map(|s| s.1.len()).sum::<usize>();
            let rows = prop::collection::vec(prop::collection::vec(any::<u64>(), width), ticks);
            (Just(systems), rows).prop_map(move |(systems, rows)| {
                // Ascending tick numbers in front of each row.
                let rows = rows
                    .into_iter()
                    .enumerate()
                    .map(|(i, rest)| {
                        let mut row = vec![(seed % 1000) + i as u64 * 3];
                        row.extend(rest);
                        row
                    })
                    .collect();
                (systems, rows)
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn documented_encoding_round_trips((systems, rows) in record()) {
            let bytes = encode(&systems, &rows);
            let parsed = ChecksumRecord::from_bytes(&bytes).unwrap();
            prop_assert_eq!(parsed.to_bytes(), bytes);
            prop_assert_eq!(parsed.len(), rows.len());
            for (tick, row) in parsed.ticks().zip(&rows) {
                prop_assert_eq!(tick.tick(), row[0]);
                prop_assert_eq!(tick.state_hash(), row[1]);
                prop_assert_eq!(tick.skips(), &row[2..2 + systems.len()]);
                prop_assert_eq!(tick.checksums(), &row[2 + systems.len()..]);
            }
            let names: Vec<_> = parsed.systems().iter().map(|s| (s.name.clone(), s.writes.clone())).collect();
            prop_assert_eq!(names, systems);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let _ = ChecksumRecord::from_bytes(&bytes);
        }

        #[test]
        fn bytes_after_a_valid_header_never_panic(
            tail in prop::collection::vec(any::<u8>(), 0..512),
            systems in 0u16..4,
        ) {
            let mut bytes = b"LAIGECHK\x00\x02".to_vec();
            bytes.extend_from_slice(&systems.to_be_bytes());
            bytes.extend_from_slice(&tail);
            prop_assert!(ChecksumRecord::from_bytes(&bytes).is_err() || bytes.len() >= 28);
        }

        #[test]
        fn any_edit_of_a_valid_record_is_refused(
            (systems, rows) in record(),
            at in any::<prop::sample::Index>(),
            xor in 1u8..=255,
        ) {
            let mut bytes = encode(&systems, &rows);
            let at = at.index(bytes.len());
            bytes[at] ^= xor;
            prop_assert!(ChecksumRecord::from_bytes(&bytes).is_err());
        }
    }
}
