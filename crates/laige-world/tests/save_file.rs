//! Save files (feature `serde`): a `WorldState` written to bytes (postcard) and to JSON text
//! and read back into a fresh world gives the same world (hash, entity handles, every later
//! tick); a file of another registry, a damaged file or a type without serde registration is
//! an error naming it; and no input makes a read panic (proptest over arbitrary bytes and
//! over mutations and truncations of valid files).

use laige_executor::{ExecutorOptions, Mode};
use laige_world::{
    Changed, Commands, Component, ComponentOptions, Entity, Local, NamedResMut, Query, ResMut, Rng,
    SaveFileError, Snapshot, StateError, StateHash, StateHasher, World, WorldOptions, WorldState,
    resource_name,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Pos(i64);
impl Component for Pos {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().saved_copy().serde()
    }
}
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Vel(i64);
impl Component for Vel {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().serde().saved_copy()
    }
}
/// Heap-owning, saved by `Clone`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Bag(Vec<u32>);
impl Component for Bag {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().serde()
    }
}
/// Versioned: its snapshot is in the file too.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Heat(u32);
impl Component for Heat {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().versioned().serde()
    }
}
/// Sparse and tracked: the set's dense order and its change ticks are in the file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Stun(u32);
impl Component for Stun {
    fn component_options() -> ComponentOptions<Self> {
        ComponentOptions::new().hashed().sparse().tracked().serde()
    }
}
/// Tracked in a table: a `Changed<Burn>` watcher sees the saved ticks. Registered by the
/// derive's `serde` option.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Component)]
#[component(hashed, tracked, serde)]
struct Burn(u8);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Score(u64, Vec<u64>);
/// What the `Changed<Burn>` watcher saw, per run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Seen(Vec<u32>);
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Grid(Vec<u32>);

resource_name!(Terrain = "terrain"; Units = "units");

macro_rules! hash_fields {
    ($($ty:ident => |$it:ident, $h:ident| $body:expr;)*) => {$(
        impl StateHash for $ty {
            fn hash_state(&self, $h: &mut StateHasher) {
                let $it = self;
                $body
            }
        }
    )*};
}
hash_fields! {
    Pos => |it, h| h.write_u64(it.0 as u64);
    Vel => |it, h| h.write_u64(it.0 as u64);
    Bag => |it, h| it.0.iter().for_each(|v| h.write_u32(*v));
    Heat => |it, h| h.write_u32(it.0);
    Stun => |it, h| h.write_u32(it.0);
    Burn => |it, h| h.write_u32(u32::from(it.0));
    Score => |it, h| { h.write_u64(it.0); h.write_u64(it.1.len() as u64) };
    Seen => |it, h| it.0.iter().for_each(|v| h.write_u32(*v));
    Grid => |it, h| it.0.iter().for_each(|v| h.write_u32(*v));
}

/// A small game with every kind of state a file holds: tables, a heap-owning column, a
/// versioned component's snapshot, a tracked table column and a tracked sparse set, plain
/// and named resources, spawns and despawns (so a free list), PRNG draws in systems and in
/// `par_each` batches. No `Local`: they have no file form.
fn game(seed: u64, entities: u32, threads: usize) -> World {
    let mut world = World::new(WorldOptions {
        seed,
        ..WorldOptions::default()
    });
    world.set_timing(false);
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.register_component::<Bag>().unwrap();
    world.register_component::<Heat>().unwrap();
    world.register_component::<Stun>().unwrap();
    world.register_component::<Burn>().unwrap();
    world.insert_hashed_resource(Score::default()).unwrap();
    world.serde_resource::<Score>().unwrap();
    world.insert_hashed_resource(Seen::default()).unwrap();
    world.serde_resource::<Seen>().unwrap();
    for (name, cells) in [("terrain", vec![1, 2, 3]), ("units", vec![0; 3])] {
        world
            .insert_hashed_named_resource(name, Grid(cells))
            .unwrap();
        world.serde_named_resource::<Grid>(name).unwrap();
    }
    for i in 0..entities {
        let i = i64::from(i);
        world
            .spawn((Pos(i), Vel(i % 7 - 3), Heat(i as u32)))
            .unwrap();
    }
    world
        .system("Move", |mut q: Query<'_, (&mut Pos, &Vel)>| {
            q.par_each(|batch, (pos, vel)| {
                pos.0 = pos.0.wrapping_add(vel.0) ^ (batch.rng().next_u64() & 3) as i64;
            })
        })
        .register()
        .unwrap();
    world
        .system(
            "Churn",
            |q: Query<'_, (Entity, &Pos, Option<&Stun>)>,
             mut commands: Commands<'_>,
             mut rng: Rng<'_>,
             mut score: ResMut<'_, Score>| {
                let tick = score.1.len() as u32 + 1;
                let mut n = 0u32;
                for (entity, pos, stun) in q.iter()? {
                    match rng.next_range(0, 10) {
                        0 => commands.despawn(entity),
                        1 if stun.is_some() => commands.remove::<Stun>(entity),
                        2 => commands.insert(entity, Stun(tick)),
                        3 => commands.insert(entity, Burn(tick as u8)),
                        _ if pos.0 % 5 == 0 && n < 3 => {
                            n += 1;
                            let bag = Bag(vec![tick; (tick % 4) as usize]);
                            commands.spawn((Pos(pos.0.wrapping_add(1)), Vel(-1), bag));
                        }
                        _ => {}
                    }
                }
                score.0 = score.0.wrapping_mul(31).wrapping_add(u64::from(n));
                score.1.push(u64::from(n));
                Ok::<(), laige_world::QueryError>(())
            },
        )
        .register()
        .unwrap();
    world
        .system("Grow", |mut q: Query<'_, &mut Bag>, mut rng: Rng<'_>| {
            q.each(|bag| bag.0.push(rng.next_range(0, 100)))
        })
        .register()
        .unwrap();
    world
        .system("Warm", |mut q: Query<'_, (&mut Heat, &Pos)>| {
            q.each(|(heat, pos)| heat.0 = heat.0.wrapping_add(pos.0 as u32 & 15))
        })
        .register()
        .unwrap();
    world
        .system("Drift", |mut q: Query<'_, (&mut Vel, Snapshot<&Heat>)>| {
            q.each(|(vel, heat)| {
                let push = heat.map_or(0, |it| i64::from(it.0 % 3) - 1);
                vel.0 = (vel.0 + push).clamp(-5, 5);
            })
        })
        .register()
        .unwrap();
    world
        .system(
            "Stunned",
            |mut q: Query<'_, &mut Stun>, mut units: NamedResMut<'_, Grid, Units>| {
                units.0[0] = units.0[0].wrapping_add(1);
                q.each(|stun| stun.0 = stun.0.wrapping_mul(3))
            },
        )
        .register()
        .unwrap();
    world
        .system(
            "Watch",
            |q: Query<'_, Entity, Changed<Burn>>,
             mut seen: ResMut<'_, Seen>,
             terrain: laige_world::NamedRes<'_, Grid, Terrain>| {
                let count = q.iter()?.count() as u32;
                seen.0.push(count + terrain.0[0]);
                Ok::<(), laige_world::QueryError>(())
            },
        )
        .register()
        .unwrap();
    if threads > 0 {
        world.use_executor(ExecutorOptions {
            threads,
            mode: Mode::Parallel,
            ..ExecutorOptions::default()
        });
    }
    world
}

/// The live handles in ascending index.
fn handles(world: &mut World) -> Vec<Entity> {
    let mut out = Vec::new();
    world.each::<Entity>(|e| out.push(e)).unwrap();
    out.sort();
    out
}

/// Runs `ticks` ticks and returns the state hash after each.
fn run(world: &mut World, ticks: usize) -> Vec<u64> {
    let schedule = world.schedule().unwrap();
    (0..ticks)
        .map(|_| {
            world.run_systems(&schedule).unwrap();
            world.state_hash()
        })
        .collect()
}

/// A game run `t` ticks and saved, with the file written in both forms.
fn saved_game(seed: u64, entities: u32, t: usize) -> (World, WorldState) {
    let mut world = game(seed, entities, 0);
    run(&mut world, t);
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    (world, state)
}

/// Which form a test writes and reads.
#[derive(Clone, Copy, Debug)]
enum Form {
    Binary,
    Json,
}

fn write(form: Form, state: &WorldState, world: &World) -> Vec<u8> {
    match form {
        Form::Binary => state.to_binary(world).unwrap(),
        Form::Json => state.to_json(world).unwrap().into_bytes(),
    }
}

fn read(
    form: Form,
    state: &mut WorldState,
    world: &World,
    file: &[u8],
) -> Result<(), SaveFileError> {
    match form {
        Form::Binary => state.from_binary(world, file),
        Form::Json => match std::str::from_utf8(file) {
            Ok(text) => state.from_json(world, text),
            // Not text: there is nothing for the JSON reader to see.
            Err(_) => Err(SaveFileError::BadMagic),
        },
    }
}

/// A world saved at tick `t` and written to a file, then run `k` more ticks; a fresh world
/// (other seed, no entities, `threads` workers) loads the file and runs the same `k` ticks.
/// Both give the same hashes, handles and resources.
fn loads_into_the_same_world(
    form: Form,
    seed: u64,
    entities: u32,
    t: usize,
    k: usize,
    threads: usize,
) {
    let (mut world, state) = saved_game(seed, entities, t);
    let saved_hash = world.state_hash();
    let file = write(form, &state, &world);
    let after = run(&mut world, k);

    let mut fresh = game(seed ^ 0x5eed, 0, threads);
    let mut loaded = WorldState::new();
    read(form, &mut loaded, &fresh, &file).unwrap();
    assert_eq!(loaded.tick(), t as u64);
    assert_eq!(loaded.entity_count(), state.entity_count());
    assert_eq!(
        write(form, &loaded, &fresh),
        file,
        "a file read back writes the same bytes"
    );
    fresh.restore_state(&loaded).unwrap();
    assert_eq!(fresh.state_hash(), saved_hash);
    assert_eq!(fresh.ticks_run(), t as u64);
    assert_eq!(run(&mut fresh, k), after, "every later tick matches");
    assert_eq!(handles(&mut fresh), handles(&mut world));
    assert_eq!(
        fresh.resource::<Score>().unwrap(),
        world.resource::<Score>().unwrap()
    );
    assert_eq!(
        fresh.resource::<Seen>().unwrap(),
        world.resource::<Seen>().unwrap()
    );
    assert_eq!(
        fresh.named_resource::<Grid>("units").unwrap(),
        world.named_resource::<Grid>("units").unwrap()
    );
}

#[test]
fn a_binary_file_loads_into_a_fresh_world_that_ticks_as_the_original() {
    for threads in [0, 1, 2, 4] {
        loads_into_the_same_world(Form::Binary, 11, 200, 6, 5, threads);
    }
}

#[test]
fn a_json_file_loads_into_a_fresh_world_that_ticks_as_the_original() {
    for threads in [0, 2] {
        loads_into_the_same_world(Form::Json, 12, 120, 6, 5, threads);
    }
}

#[test]
fn the_file_holds_the_free_list_so_the_next_spawns_get_the_same_handles() {
    let (mut world, _) = saved_game(3, 40, 0);
    let gone: Vec<Entity> = handles(&mut world).into_iter().step_by(3).collect();
    for &e in &gone {
        world.despawn(e).unwrap();
    }
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let file = state.to_binary(&world).unwrap();
    let next = world.spawn((Pos(0), Vel(0))).unwrap();
    assert!(gone.contains(&Entity::from_parts(next.index(), next.generation() - 1).unwrap()));

    let mut fresh = game(3, 0, 0);
    let mut loaded = WorldState::new();
    loaded.from_binary(&fresh, &file).unwrap();
    fresh.restore_state(&loaded).unwrap();
    for &e in &gone {
        assert!(!fresh.is_alive(e), "{e} stays despawned");
    }
    assert_eq!(fresh.spawn((Pos(0), Vel(0))).unwrap(), next);
}

#[test]
fn a_json_file_reads_as_json_with_the_type_names() {
    let (world, state) = saved_game(1, 3, 1);
    let text = state.to_json(&world).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["magic"], "LAIGESAV");
    assert_eq!(value["version"], 1);
    let names: Vec<&str> = value["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| it["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], std::any::type_name::<Pos>());
    assert!(names.contains(&"Grid \"terrain\""));
    assert!(text.len() > state.to_binary(&world).unwrap().len());
}

/// The error a read of `file` into `world` gives, with the state left as it was.
fn load_error(form: Form, world: &World, file: &[u8]) -> SaveFileError {
    let (_, before) = saved_game(2, 5, 2);
    let mut state = WorldState::new();
    read(form, &mut state, world, &write(form, &before, world)).unwrap();
    let hash_before = {
        let mut probe = game(0, 0, 0);
        probe.restore_state(&state).unwrap();
        probe.state_hash()
    };
    let err = read(form, &mut state, world, file).unwrap_err();
    let mut probe = game(0, 0, 0);
    probe.restore_state(&state).unwrap();
    assert_eq!(
        probe.state_hash(),
        hash_before,
        "a failed read changes nothing"
    );
    err
}

/// `file`'s JSON with `edit` applied.
fn edited(file: &str, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut value: serde_json::Value = serde_json::from_str(file).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap().into_bytes()
}

#[test]
fn a_damaged_or_foreign_file_is_an_error_naming_what_is_wrong() {
    let (world, state) = saved_game(2, 30, 3);
    let binary = state.to_binary(&world).unwrap();
    let json = state.to_json(&world).unwrap();

    let err = load_error(Form::Binary, &world, b"PNG\x89 not a save");
    insta::assert_snapshot!("save_file_bad_magic", err.to_string());
    let mut future = binary.clone();
    future[8..10].copy_from_slice(&7u16.to_le_bytes());
    let err = load_error(Form::Binary, &world, &future);
    insta::assert_snapshot!("save_file_future_version", err.to_string());
    let err = load_error(Form::Binary, &world, &binary[..binary.len() / 2]);
    assert!(matches!(err, SaveFileError::Truncated { .. }), "{err:?}");
    insta::assert_snapshot!("save_file_truncated", err.to_string());
    let mut longer = binary.clone();
    longer.push(0);
    let err = load_error(Form::Binary, &world, &longer);
    insta::assert_snapshot!("save_file_trailing", err.to_string());

    let size = edited(&json, |it| it["types"][0]["size"] = 4.into());
    let err = load_error(Form::Json, &world, &size);
    insta::assert_snapshot!("save_file_layout", err.to_string());
    let storage = edited(&json, |it| it["types"][4]["storage"] = "Table".into());
    let err = load_error(Form::Json, &world, &storage);
    insta::assert_snapshot!("save_file_storage", err.to_string());
    let moved = edited(&json, |it| it["entities"]["slots"][0]["row"] = 99.into());
    let err = load_error(Form::Json, &world, &moved);
    assert!(matches!(err, SaveFileError::Inconsistent { .. }), "{err:?}");
    insta::assert_snapshot!("save_file_inconsistent", err.to_string());
    let value = edited(&json, |it| {
        it["resources"][0]["value"] = serde_json::json!(["not a score"]);
    });
    let err = load_error(Form::Json, &world, &value);
    insta::assert_snapshot!("save_file_value", err.to_string());
    let err = load_error(Form::Json, &world, &json.as_bytes()[..json.len() - 3]);
    assert!(matches!(err, SaveFileError::Truncated { .. }), "{err:?}");
}

#[test]
fn a_file_of_another_registry_names_the_first_difference() {
    let (world, state) = saved_game(4, 10, 1);
    let file = state.to_binary(&world).unwrap();

    /// A component the writing world did not have.
    #[derive(Clone, Copy, Serialize, Deserialize)]
    struct Extra;
    impl Component for Extra {}
    let mut other = game(4, 0, 0);
    other
        .register_component_with(ComponentOptions::<Extra>::new().serde())
        .unwrap();
    let err = WorldState::new().from_binary(&other, &file).unwrap_err();
    insta::assert_snapshot!("save_file_other_registry", err.to_string());

    let mut fewer = World::default();
    fewer.register_component::<Pos>().unwrap();
    fewer.register_component::<Vel>().unwrap();
    let err = WorldState::new().from_binary(&fewer, &file).unwrap_err();
    insta::assert_snapshot!("save_file_missing_type", err.to_string());

    let mut renamed = game(4, 0, 0);
    renamed.system("Late", || {}).register().unwrap();
    let err = WorldState::new().from_binary(&renamed, &file).unwrap_err();
    insta::assert_snapshot!("save_file_other_systems", err.to_string());
}

#[test]
fn a_type_without_serde_registration_is_named_with_the_fix() {
    #[derive(Clone, Copy)]
    struct Plain;
    impl Component for Plain {
        fn component_options() -> ComponentOptions<Self> {
            ComponentOptions::new().saved_copy()
        }
    }
    let mut world = game(1, 2, 0);
    world.register_component::<Plain>().unwrap();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let err = state.to_binary(&world).unwrap_err();
    insta::assert_snapshot!("save_file_not_serde_component", err.to_string());

    #[derive(Clone)]
    struct Config;
    let mut world = game(1, 2, 0);
    world.insert_resource(Config).unwrap();
    world.save_resource::<Config>().unwrap();
    world.save_state(&mut state).unwrap();
    let err = state.to_json(&world).unwrap_err();
    insta::assert_snapshot!("save_file_not_serde_resource", err.to_string());

    #[derive(Clone)]
    struct Hit;
    let mut world = game(1, 2, 0);
    world.register_events::<Hit>(8).unwrap();
    world.save_events::<Hit>().unwrap();
    world.save_state(&mut state).unwrap();
    let err = state.to_binary(&world).unwrap_err();
    insta::assert_snapshot!("save_file_events", err.to_string());
}

#[test]
fn local_values_have_no_file_form_and_are_refused_by_name() {
    let mut world = game(1, 2, 0);
    world
        .system("Counter", |mut n: Local<'_, u32>| *n += 1)
        .register()
        .unwrap();
    run(&mut world, 1);
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    let err = state.to_binary(&world).unwrap_err();
    insta::assert_snapshot!("save_file_local", err.to_string());

    // A file written where "Counter" kept no `Local` loads where it keeps one (the same
    // systems), but the restore refuses it by name.
    let (mut plain, _) = saved_game(1, 2, 0);
    plain.system("Counter", || {}).register().unwrap();
    run(&mut plain, 1);
    plain.save_state(&mut state).unwrap();
    let file = state.to_binary(&plain).unwrap();
    let mut with_local = game(1, 0, 0);
    with_local
        .system("Counter", |mut n: Local<'_, u32>| *n += 1)
        .register()
        .unwrap();
    let mut loaded = WorldState::new();
    loaded.from_binary(&with_local, &file).unwrap();
    assert!(matches!(
        with_local.restore_state(&loaded),
        Err(StateError::LocalsDiffer { .. })
    ));
}

#[test]
fn an_empty_state_or_one_of_another_world_is_refused() {
    let world = game(1, 2, 0);
    assert_eq!(
        WorldState::new().to_binary(&world),
        Err(SaveFileError::Empty)
    );
    let (_, state) = saved_game(1, 2, 0);
    let mut other = World::default();
    other.register_component::<Pos>().unwrap();
    assert!(matches!(
        state.to_binary(&other),
        Err(SaveFileError::OtherWorld { .. })
    ));
}

/// Reads `file` into a fresh game world; a read that succeeds must restore and tick
/// without panicking either (the reader checked every invariant the world relies on).
fn survives(form: Form, file: &[u8]) {
    let mut world = game(8, 0, 0);
    let mut state = WorldState::new();
    if read(form, &mut state, &world, file).is_ok() && world.restore_state(&state).is_ok() {
        // A well-formed file may lie about values (an empty `Grid`, a resource not held):
        // that fails the game's own systems, as errors the world reports, never a panic.
        if let Ok(schedule) = world.schedule() {
            for _ in 0..2 {
                if let Err(err) = world.run_systems(&schedule) {
                    eprintln!("{err}");
                }
            }
        }
        world.spawn((Pos(1), Vel(1))).unwrap();
    }
}

fn fuzz_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|it| it.parse().ok())
        .unwrap_or(64)
}

fn valid_file(form: Form) -> Vec<u8> {
    let (world, state) = saved_game(6, 12, 3);
    write(form, &state, &world)
}

proptest! {
    // 64 cases each by default (CI runs this binary under memcheck too); a longer hunt sets
    // `PROPTEST_CASES`.
    #![proptest_config(ProptestConfig { cases: fuzz_cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_are_an_error_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut with_header = b"LAIGESAV\x01\x00".to_vec();
        with_header.extend_from_slice(&bytes);
        survives(Form::Binary, &bytes);
        survives(Form::Binary, &with_header);
        survives(Form::Json, &bytes);
    }

    #[test]
    fn a_mutated_binary_file_is_an_error_or_a_sound_world(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut file = valid_file(Form::Binary);
        for (at, byte) in flips {
            let at = at.index(file.len());
            file[at] = byte;
        }
        if truncate {
            file.truncate(cut.index(file.len()));
        }
        survives(Form::Binary, &file);
    }

    #[test]
    fn a_mutated_json_file_is_an_error_or_a_sound_world(
        at in any::<prop::sample::Index>(),
        with in "[0-9a-z\\[\\]{}\",:-]{0,3}",
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let text = String::from_utf8(valid_file(Form::Json)).unwrap();
        let mut at = at.index(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut text = format!("{}{with}{}", &text[..at], &text[(at + 1).min(text.len())..]);
        if truncate {
            let mut cut = cut.index(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        survives(Form::Json, text.as_bytes());
    }

    #[test]
    fn a_mutated_number_in_a_json_file_is_an_error_or_a_sound_world(
        pick in any::<prop::sample::Index>(),
        value in prop_oneof![Just(0u64), Just(1), Just(2), 0u64..64, Just(u64::from(u32::MAX)), any::<u64>()],
    ) {
        // Numbers are where a well-formed file can lie: ids, rows, generations, lengths.
        let text = String::from_utf8(valid_file(Form::Json)).unwrap();
        let mut value_doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut numbers = Vec::new();
        collect_numbers(&mut value_doc, &mut numbers);
        let target = pick.index(numbers.len());
        let mut seen = 0;
        replace_number(&mut value_doc, target, value, &mut seen);
        survives(Form::Json, serde_json::to_string(&value_doc).unwrap().as_bytes());
    }
}

fn collect_numbers(value: &mut serde_json::Value, out: &mut Vec<()>) {
    match value {
        serde_json::Value::Number(_) => out.push(()),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|it| collect_numbers(it, out)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|it| collect_numbers(it, out)),
        _ => {}
    }
}

fn replace_number(value: &mut serde_json::Value, target: usize, with: u64, seen: &mut usize) {
    match value {
        serde_json::Value::Number(_) => {
            if *seen == target {
                *value = with.into();
            }
            *seen += 1;
        }
        serde_json::Value::Array(items) => items
            .iter_mut()
            .for_each(|it| replace_number(it, target, with, seen)),
        serde_json::Value::Object(map) => map
            .values_mut()
            .for_each(|it| replace_number(it, target, with, seen)),
        _ => {}
    }
}

#[test]
fn large_values_and_zero_sized_components_round_trip() {
    /// Zero-sized: its column takes no bytes in memory or in the file.
    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Component)]
    #[component(serde)]
    struct Flag;
    /// One value far larger than its size: the writer's room grows to fit it.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Component)]
    #[component(serde)]
    struct Big(Vec<u64>);
    let build = || {
        let mut world = World::default();
        world.register_component::<Flag>().unwrap();
        world.register_component::<Big>().unwrap();
        world
    };
    let mut world = build();
    let big = Big((0..100_000u64).map(|i| i * 0x1_0001).collect());
    let a = world.spawn((Flag, big.clone())).unwrap();
    let b = world.spawn(Flag).unwrap();
    let mut state = WorldState::new();
    world.save_state(&mut state).unwrap();
    for form in [Form::Binary, Form::Json] {
        let file = write(form, &state, &world);
        let mut fresh = build();
        let mut loaded = WorldState::new();
        read(form, &mut loaded, &fresh, &file).unwrap();
        fresh.restore_state(&loaded).unwrap();
        assert_eq!(fresh.get::<Big>(a).unwrap(), &big, "{form:?}");
        assert!(fresh.get::<Flag>(b).is_ok());
        assert!(fresh.get::<Big>(b).is_err());
    }
}
