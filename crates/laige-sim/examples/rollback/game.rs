//! The rollback example's game: two players steered by inputs, shots they fire at random,
//! which fly and expire. Every component, the input resource and the systems' `Local`
//! state are saved, so a `StateRing` can take the world back and simulate it again.

use laige_sim::prelude::*;

/// A player's or a shot's position, in fixed point.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed, saved_copy)]
pub struct Pos(pub i32, pub i32);

/// Velocity per tick.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed, saved_copy)]
pub struct Vel(pub i32, pub i32);

/// Which player (0 or 1) an entity is.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed, saved_copy)]
pub struct Player(pub u8);

/// A shot: the ticks it has left.
#[derive(Component, StateHash, Clone, Copy, Debug, PartialEq)]
#[component(hashed, saved_copy)]
pub struct Shot(pub u32);

/// This tick's input per player: a steering value in -2..=2.
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Inputs(pub [i8; 2]);

/// How many shots were fired in all.
#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
pub struct Fired(pub u32);

/// The players' true inputs: a pure function of the tick (what each peer pressed).
pub fn input_for(tick: u64, player: usize) -> i8 {
    let mixed = tick
        .wrapping_mul(0x9E37_79B9)
        .rotate_left(player as u32 * 7 + 3);
    (mixed % 5) as i8 - 2
}

/// The world and its schedule.
pub fn build(seed: u64) -> Result<(World, Schedule), Box<dyn std::error::Error>> {
    let mut world = World::new(WorldOptions {
        seed,
        ..WorldOptions::default()
    });
    world.set_timing(false);
    world.register_component::<Pos>()?;
    world.register_component::<Vel>()?;
    world.register_component::<Player>()?;
    world.register_component::<Shot>()?;
    world.insert_hashed_resource(Inputs::default())?;
    world.save_resource::<Inputs>()?;
    world.insert_hashed_resource(Fired::default())?;
    world.save_resource::<Fired>()?;
    for player in 0..2u8 {
        world.spawn((Pos(i32::from(player) * 1000, 0), Vel(0, 0), Player(player)))?;
    }
    world
        .system(
            "Steer",
            |mut q: Query<'_, (&Player, &mut Vel)>, inputs: Res<'_, Inputs>| {
                q.each(|(player, vel)| {
                    vel.0 = (vel.0 + i32::from(inputs.0[player.0 as usize])).clamp(-20, 20);
                })
            },
        )
        .register()?;
    world
        .system(
            "Fire",
            |q: Query<'_, (&Player, &Pos)>,
             mut commands: Commands<'_>,
             mut rng: Rng<'_>,
             mut fired: ResMut<'_, Fired>,
             mut cooldown: Local<'_, u32>| {
                *cooldown = cooldown.saturating_sub(1);
                for (player, pos) in q.iter()? {
                    if *cooldown == 0 && rng.next_range(0, 4) == 0 {
                        let dir = if player.0 == 0 { 1 } else { -1 };
                        let life = rng.next_range(10, 40);
                        commands.spawn((*pos, Vel(dir * 30, 0), Shot(life)));
                        fired.0 += 1;
                        *cooldown = 3;
                    }
                }
                Ok::<(), QueryError>(())
            },
        )
        .register()?;
    world
        .system("Move", |mut q: Query<'_, (&mut Pos, &Vel)>| {
            q.par_each(|_, (pos, vel)| {
                pos.0 += vel.0;
                pos.1 += vel.1;
            })
        })
        .register()?;
    world
        .system(
            "Expire",
            |mut q: Query<'_, (Entity, &mut Shot)>, mut commands: Commands<'_>| {
                q.each(|(entity, shot)| match shot.0 {
                    0 => commands.despawn(entity),
                    _ => shot.0 -= 1,
                })
            },
        )
        .register()?;
    let schedule = world.schedule()?;
    Ok((world, schedule))
}

/// Runs one tick with `inputs`.
pub fn step(
    world: &mut World,
    schedule: &Schedule,
    inputs: [i8; 2],
) -> Result<(), Box<dyn std::error::Error>> {
    world.resource_mut::<Inputs>()?.0 = inputs;
    world.run_systems(schedule)?;
    Ok(())
}

/// The inputs of tick `tick` as both peers pressed them.
pub fn true_inputs(tick: u64) -> [i8; 2] {
    [input_for(tick, 0), input_for(tick, 1)]
}

/// A run where every input arrives on time: the reference.
pub fn on_time(seed: u64, ticks: u64) -> Result<World, Box<dyn std::error::Error>> {
    let (mut world, schedule) = build(seed)?;
    world.record_checksums(256);
    for tick in 0..ticks {
        step(&mut world, &schedule, true_inputs(tick))?;
    }
    Ok(world)
}

/// What the late run did: how many ticks it simulated again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rollback {
    /// The first tick whose input was late.
    pub from: u64,
    /// How many ticks it went back.
    pub ticks: u64,
}

/// A run where player 1's inputs for ticks `late..late + delay` arrive only at tick
/// `late + delay`: until then it predicts them (player 1 keeps its last confirmed input);
/// when they arrive it rolls back `delay` ticks to tick `late` and simulates them again with
/// the true inputs, as GGRS asks (load, then advance per tick, saving each).
pub fn with_late_input(
    seed: u64,
    ticks: u64,
    late: u64,
    delay: u64,
) -> Result<(World, Rollback), StateError> {
    let (mut world, schedule) = build(seed).expect("the game builds");
    world.record_checksums(256);
    let mut ring = StateRing::new(delay as usize + 1);
    let confirmed = input_for(late.saturating_sub(1), 1);
    let predict = |tick: u64| -> [i8; 2] {
        if (late..late + delay).contains(&tick) {
            [input_for(tick, 0), confirmed]
        } else {
            true_inputs(tick)
        }
    };
    let advance = |world: &mut World, inputs| step(world, &schedule, inputs).expect("a tick runs");
    for tick in 0..ticks {
        if tick == late + delay {
            // The late inputs arrived: back to `late`, and forward again with them.
            ring.load(&mut world, late)?;
            for again in late..tick {
                ring.save(&mut world)?;
                advance(&mut world, true_inputs(again));
            }
        }
        ring.save(&mut world)?;
        advance(&mut world, predict(tick));
    }
    Ok((
        world,
        Rollback {
            from: late,
            ticks: delay,
        },
    ))
}

/// The late run without the rollback: the predicted inputs stay (what the rollback repairs).
pub fn predicted_only(
    seed: u64,
    ticks: u64,
    late: u64,
    delay: u64,
) -> Result<World, Box<dyn std::error::Error>> {
    let (mut world, schedule) = build(seed)?;
    let confirmed = input_for(late.saturating_sub(1), 1);
    for tick in 0..ticks {
        let mut inputs = true_inputs(tick);
        if (late..late + delay).contains(&tick) {
            inputs[1] = confirmed;
        }
        step(&mut world, &schedule, inputs)?;
    }
    Ok(world)
}
