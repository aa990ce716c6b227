//! The 40 `game_tick` systems on laige-sim, and their registration with declared access.
//!
//! | DAG / phase | systems (H heavy, M medium, the rest light; c commands, r rng) |
//! |---|---|
//! | sim / input | advance_clock, cooldown_tick, buff_decay, player_input r, waypoint_cycle, particle_drag, score_decay |
//! | sim / ai | ai_think r, choose_target M, steer M, morale M, wounded_count |
//! | sim / movement | integrate H, clamp_bounds M, waypoint_drift, measure_speed M |
//! | sim / physics | update_cells M, neighbour_check H, cell_census M, collider_pulse, repair_props |
//! | sim / combat | cooldown_bonus, fire c r, hit_units M, regen, tally_kills, damage_falloff |
//! | sim / cleanup | age, expire c, clamp_health, score_commit, target_decay, tag_refresh |
//! | fx / animate | animate_frames M, tint_by_health M, flicker, team_colors |
//! | fx / emit | emit c r, camera_cull, trail_fade |
//!
//! The two DAGs share one track, so they must not conflict: `fx` writes only `Sprite`,
//! which no `sim` system touches, and reads `Team` (never written) and last tick's
//! `Transform` and `Health` (`reads_snapshot`).

use laige_sim::prelude::*;
use laige_sim::world::Snapshot;

use laige_sim::registry::RegisterError;

use super::components::*;

/// A `sim` system in `phase`.
fn sim<'w>(
    world: &'w mut World,
    name: &'static str,
    run: SystemFn,
    phase: &'static str,
) -> laige_sim::world::SystemBuilder<'w> {
    world
        .system(name, run)
        .budget_ms(2.0)
        .in_dag("sim")
        .in_phase(phase)
}

/// An `fx` system in `phase`.
fn fx<'w>(
    world: &'w mut World,
    name: &'static str,
    run: SystemFn,
    phase: &'static str,
) -> laige_sim::world::SystemBuilder<'w> {
    world
        .system(name, run)
        .budget_ms(2.0)
        .in_dag("fx")
        .in_phase(phase)
}

fn advance_clock(ctx: &mut SystemContext<'_>) {
    let clock = ctx.resource_mut::<Clock>().unwrap();
    clock.tick += 1;
    clock.time += DT;
}

fn cooldown_tick(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<&mut Cooldown>(|_, cds| cds.iter_mut().for_each(|cd| cd.0 -= 1.0))
        .unwrap();
}

fn buff_decay(ctx: &mut SystemContext<'_>) {
    let fade = ctx.resource::<Clock>().unwrap().tick.is_multiple_of(4);
    ctx.each::<&mut Buff>(|_, b| {
        b.ticks = b.ticks.saturating_sub(1);
        if fade || b.ticks == 0 {
            b.mult = 1.0 + (b.mult - 1.0) * 0.98;
        }
    })
    .unwrap();
}

fn player_input(ctx: &mut SystemContext<'_>) {
    let (mut queries, _, rng) = ctx.split();
    queries
        .each::<(&mut Target, With<Buff>)>(|_, (target, ())| {
            if rng.next_range(0, 32) == 0 {
                let at = spot(rng.next_u64());
                *target = Target { x: at.x, y: at.y };
            }
        })
        .unwrap();
}

fn waypoint_cycle(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Ai, With<Tag>)>(|_, (ai, ())| {
        ai.timer += 1;
        ai.mode = ai.timer / 120 % 4;
    })
    .unwrap();
}

fn particle_drag(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<(&mut Velocity, With<Lifetime>)>(|_, (vs, ())| {
        for v in vs {
            v.x *= 0.99;
            v.y *= 0.99;
        }
    })
    .unwrap();
}

fn score_decay(ctx: &mut SystemContext<'_>) {
    ctx.resource_mut::<Score>().unwrap().heat *= 0.99;
}

fn ai_think(ctx: &mut SystemContext<'_>) {
    let (mut queries, _, rng) = ctx.split();
    queries
        .each::<(&mut Ai, With<Cooldown>)>(|_, (ai, ())| {
            ai.timer += 1;
            if rng.next_range(0, 100) == 0 {
                ai.mode = rng.next_range(0, 4);
                ai.timer = 0;
            }
        })
        .unwrap();
}

fn choose_target_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Target, &Transform, &Team, &Ai)>(|_, (target, t, team, ai)| {
        choose_target(target, t, team, ai);
    })
    .unwrap();
}

fn steer_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Velocity, &Transform, &Target)>(|_, (v, t, target)| steer(v, t, target))
        .unwrap();
}

fn morale(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Cooldown, Snapshot<&Health>)>(|_, (cd, health)| {
        if health.is_some_and(|h| h.0 < FULL_HEALTH / 4.0) {
            cd.0 += 0.5;
        }
    })
    .unwrap();
}

fn wounded_count(ctx: &mut SystemContext<'_>) {
    let view = ctx.snapshot_view::<Health>().unwrap();
    let wounded = view
        .values()
        .iter()
        .filter(|h| h.0 < FULL_HEALTH / 4.0)
        .count() as u32;
    ctx.resource_mut::<Score>().unwrap().wounded = wounded;
}

/// Heavy and on the critical path: its batches run on the idle threads (`par_each_chunk`).
fn integrate_system(ctx: &mut SystemContext<'_>) {
    ctx.par_each_chunk::<(&mut Transform, &Velocity)>(|_, _, (ts, vs)| {
        for (t, v) in ts.iter_mut().zip(vs) {
            integrate(t, v);
        }
    })
    .unwrap();
}

fn clamp_bounds_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Transform, &mut Velocity)>(|_, (t, v)| clamp_bounds(t, v))
        .unwrap();
}

fn waypoint_drift(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Transform, &Ai, With<Tag>)>(|_, (t, ai, ())| {
        let dir = if ai.mode % 2 == 0 { 1.0 } else { -1.0 };
        t.x = (t.x + dir * 0.5).clamp(-HALF, HALF);
    })
    .unwrap();
}

fn measure_speed(ctx: &mut SystemContext<'_>) {
    let mut top = 0.0f32;
    ctx.each_chunk::<&Velocity>(|_, vs| {
        for v in vs {
            top = top.max((v.x * v.x + v.y * v.y).sqrt());
        }
    })
    .unwrap();
    let score = ctx.resource_mut::<Score>().unwrap();
    score.top_speed = top;
    score.heat += top * 0.001;
}

fn update_cells(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Cell, &Transform)>(|_, (cell, t)| *cell = cell_of(t))
        .unwrap();
}

/// Heavy and on the critical path, like `integrate`.
fn neighbour_check(ctx: &mut SystemContext<'_>) {
    ctx.par_each_chunk::<(&mut Velocity, &Transform)>(|_, _, (vs, ts)| {
        for (v, t) in vs.iter_mut().zip(ts) {
            neighbour_push(v, t);
        }
    })
    .unwrap();
}

fn cell_census(ctx: &mut SystemContext<'_>) {
    let mut occupied = [0u64; (CELLS * CELLS).div_ceil(64) as usize];
    ctx.each::<&Cell>(|_, cell| occupied[cell.0 as usize / 64] |= 1 << (cell.0 % 64))
        .unwrap();
    ctx.resource_mut::<Score>().unwrap().occupied = occupied.iter().map(|w| w.count_ones()).sum();
}

fn collider_pulse(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Collider, &Tag)>(|_, (c, tag)| {
        let base = if tag.0 & 0xFF == 1 { 4.0 } else { 1.0 };
        c.0 = base + (c.0 - base) * 0.5 + 0.01;
    })
    .unwrap();
}

fn repair_props(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Health, With<Tag>)>(|_, (h, ())| h.0 = (h.0 + 0.1).min(FULL_HEALTH))
        .unwrap();
}

fn cooldown_bonus(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Cooldown, &Buff)>(|_, (cd, b)| cd.0 -= 0.25 * (b.mult - 1.0))
        .unwrap();
}

fn fire(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, rng) = ctx.split();
    queries
        .each::<(&mut Cooldown, &Transform, &Team, &Target)>(|_, (cd, t, team, target)| {
            if cd.0 <= 0.0 {
                commands.spawn(projectile(*t, *target, team.0, SHOT_LIFE));
                cd.0 = rng.next_range(MEAN_COOLDOWN / 2, MEAN_COOLDOWN * 3 / 2) as f32;
            }
        })
        .unwrap();
}

fn hit_units(ctx: &mut SystemContext<'_>) {
    let tick = ctx.resource::<Clock>().unwrap().tick;
    ctx.each::<(&mut Health, &Transform)>(|_, (h, t)| h.0 -= hazard(t, tick))
        .unwrap();
}

fn regen(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Health, &Buff)>(|_, (h, b)| h.0 = (h.0 + 0.05 * b.mult).min(FULL_HEALTH))
        .unwrap();
}

fn tally_kills(ctx: &mut SystemContext<'_>) {
    let mut kills = 0;
    ctx.each::<(&Health, With<Cooldown>)>(|_, (h, ())| kills += u32::from(h.0 <= 0.0))
        .unwrap();
    ctx.resource_mut::<Score>().unwrap().kills += kills;
}

fn damage_falloff(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<&mut Damage>(|_, ds| ds.iter_mut().for_each(|d| d.0 *= 0.98))
        .unwrap();
}

fn age(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<&mut Lifetime>(|_, ls| {
        for l in ls {
            l.0 = l.0.saturating_sub(1);
        }
    })
    .unwrap();
}

/// Despawns what expired or died; pickups and units come back elsewhere, so those counts
/// never change; projectiles and particles are replaced by `fire` and `emit`.
fn expire(ctx: &mut SystemContext<'_>) {
    let tick = u64::from(ctx.resource::<Clock>().unwrap().tick);
    let (mut queries, mut commands, _) = ctx.split();
    let place = |e: Entity| spot(mix(u64::from(e.index()) | tick << 32));
    queries
        .each::<&Lifetime>(|e, life| {
            if life.0 == 0 {
                commands.despawn(e);
            }
        })
        .unwrap();
    queries
        .each::<(&Lifetime, With<Tag>)>(|e, (life, ())| {
            if life.0 == 0 {
                commands.spawn(pickup(place(e), PICKUP_LIFE));
            }
        })
        .unwrap();
    let cooldown = |e: Entity| (mix(u64::from(e.index()) ^ tick) % 60) as f32;
    queries
        .each::<(&Health, &Team, With<Ai>)>(|e, (h, team, ())| {
            if h.0 <= 0.0 {
                commands.despawn(e);
                commands.spawn(soldier(place(e), team.0, cooldown(e)));
            }
        })
        .unwrap();
    queries
        .each::<(&Health, &Team, With<Buff>)>(|e, (h, team, ())| {
            if h.0 <= 0.0 {
                commands.despawn(e);
                commands.spawn(hero(place(e), team.0, cooldown(e)));
            }
        })
        .unwrap();
}

fn clamp_health(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Health, With<Tag>)>(|_, (h, ())| h.0 = h.0.max(0.0))
        .unwrap();
}

fn score_commit(ctx: &mut SystemContext<'_>) {
    let tick = ctx.resource::<Clock>().unwrap().tick;
    ctx.resource_mut::<Score>().unwrap().ticks = tick;
}

fn target_decay(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Target, With<Buff>)>(|_, (target, ())| {
        target.x *= 0.999;
        target.y *= 0.999;
    })
    .unwrap();
}

fn tag_refresh(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Tag, With<Sprite>)>(|_, (tag, ())| tag.0 = tag.0.wrapping_add(256))
        .unwrap();
}

fn animate_frames(ctx: &mut SystemContext<'_>) {
    ctx.each_chunk::<&mut Sprite>(|_, ss| ss.iter_mut().for_each(animate))
        .unwrap();
}

fn tint_system(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Sprite, Snapshot<&Health>, With<Buff>)>(|_, (s, h, ())| {
        tint_by_health(s, h);
    })
    .unwrap();
}

fn flicker(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Sprite, With<Lifetime>)>(|_, (s, ())| s.tint ^= (s.frame & 1) << 4)
        .unwrap();
}

fn team_colors(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Sprite, &Team)>(|_, (s, team)| {
        s.tint = (s.tint & 0xFF_FF00) | if team.0 == 0 { 0x40 } else { 0xC0 };
    })
    .unwrap();
}

fn emit(ctx: &mut SystemContext<'_>) {
    let (mut queries, mut commands, rng) = ctx.split();
    let view = queries.snapshot_view::<Transform>().unwrap();
    queries
        .each::<(&Team, With<Damage>)>(|e, (_, ())| {
            if rng.next_range(0, SHOT_LIFE) == 0
                && let Some(at) = view.get(e)
            {
                let kick = (rng.next_float01(), rng.next_float01());
                commands.spawn(particle(*at, kick, SHOT_LIFE));
            }
        })
        .unwrap();
}

fn camera_cull(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Sprite, Snapshot<&Transform>, With<Tag>)>(|_, (s, t, ())| {
        s.visible = t.is_some_and(in_camera);
    })
    .unwrap();
}

fn trail_fade(ctx: &mut SystemContext<'_>) {
    ctx.each::<(&mut Sprite, With<Lifetime>)>(|_, (s, ())| {
        let green = (s.tint >> 8 & 0xFF) * 15 / 16;
        s.tint = (s.tint & 0xFF_00FF) | green << 8;
    })
    .unwrap();
}

/// Registers the 40 systems into `sim` and `fx`. Budgets are generous: the workload times
/// the tick, it does not exercise budget warnings.
pub fn register(world: &mut World) -> Result<(), RegisterError> {
    // input
    sim(world, "advance_clock", advance_clock, "input")
        .writes::<Clock>()
        .register()?;
    sim(world, "cooldown_tick", cooldown_tick, "input")
        .writes::<Cooldown>()
        .register()?;
    sim(world, "buff_decay", buff_decay, "input")
        .writes::<Buff>()
        .reads_fresh::<Clock>()
        .register()?;
    sim(world, "player_input", player_input, "input")
        .writes::<Target>()
        .matching::<Buff>()
        .register()?;
    sim(world, "waypoint_cycle", waypoint_cycle, "input")
        .writes::<Ai>()
        .matching::<Tag>()
        .register()?;
    sim(world, "particle_drag", particle_drag, "input")
        .writes::<Velocity>()
        .matching::<Lifetime>()
        .register()?;
    sim(world, "score_decay", score_decay, "input")
        .writes::<Score>()
        .register()?;
    // ai
    sim(world, "ai_think", ai_think, "ai")
        .writes::<Ai>()
        .matching::<Cooldown>()
        .register()?;
    sim(world, "choose_target", choose_target_system, "ai")
        .writes::<Target>()
        .reads::<Transform>()
        .reads::<Team>()
        .reads_fresh::<Ai>()
        .register()?;
    sim(world, "steer", steer_system, "ai")
        .writes::<Velocity>()
        .reads::<Transform>()
        .reads_fresh::<Target>()
        .register()?;
    sim(world, "morale", morale, "ai")
        .writes::<Cooldown>()
        .reads_snapshot::<Health>()
        .register()?;
    sim(world, "wounded_count", wounded_count, "ai")
        .writes::<Score>()
        .reads_snapshot::<Health>()
        .register()?;
    // movement
    sim(world, "integrate", integrate_system, "movement")
        .writes::<Transform>()
        .reads::<Velocity>()
        .matching::<Velocity>()
        .register()?;
    sim(world, "clamp_bounds", clamp_bounds_system, "movement")
        .writes::<Transform>()
        .writes::<Velocity>()
        .matching::<Velocity>()
        .after("integrate")
        .register()?;
    sim(world, "waypoint_drift", waypoint_drift, "movement")
        .writes::<Transform>()
        .reads::<Ai>()
        .matching::<Tag>()
        .after_weak("clamp_bounds")
        .register()?;
    sim(world, "measure_speed", measure_speed, "movement")
        .writes::<Score>()
        .reads_fresh::<Velocity>()
        .register()?;
    // physics
    sim(world, "update_cells", update_cells, "physics")
        .writes::<Cell>()
        .reads::<Transform>()
        .register()?;
    sim(world, "neighbour_check", neighbour_check, "physics")
        .writes::<Velocity>()
        .reads::<Transform>()
        .matching::<Velocity>()
        .register()?;
    sim(world, "cell_census", cell_census, "physics")
        .writes::<Score>()
        .reads_fresh::<Cell>()
        .register()?;
    sim(world, "collider_pulse", collider_pulse, "physics")
        .writes::<Collider>()
        .reads::<Tag>()
        .matching::<Tag>()
        .register()?;
    sim(world, "repair_props", repair_props, "physics")
        .writes::<Health>()
        .matching::<Tag>()
        .register()?;
    // combat
    sim(world, "cooldown_bonus", cooldown_bonus, "combat")
        .writes::<Cooldown>()
        .reads::<Buff>()
        .matching::<Buff>()
        .register()?;
    sim(world, "fire", fire, "combat")
        .writes::<Cooldown>()
        .reads::<Transform>()
        .reads::<Team>()
        .reads::<Target>()
        .after_weak("cooldown_bonus")
        .register()?;
    sim(world, "hit_units", hit_units, "combat")
        .writes::<Health>()
        .reads::<Transform>()
        .reads::<Clock>()
        .register()?;
    sim(world, "regen", regen, "combat")
        .writes::<Health>()
        .reads::<Buff>()
        .matching::<Buff>()
        .after("hit_units")
        .register()?;
    sim(world, "tally_kills", tally_kills, "combat")
        .writes::<Score>()
        .reads_fresh::<Health>()
        .register()?;
    sim(world, "damage_falloff", damage_falloff, "combat")
        .writes::<Damage>()
        .register()?;
    // cleanup
    sim(world, "age", age, "cleanup")
        .writes::<Lifetime>()
        .register()?;
    sim(world, "expire", expire, "cleanup")
        .reads_fresh::<Lifetime>()
        .reads_fresh::<Health>()
        .reads::<Team>()
        .reads::<Clock>()
        .register()?;
    sim(world, "clamp_health", clamp_health, "cleanup")
        .writes::<Health>()
        .matching::<Tag>()
        .register()?;
    sim(world, "score_commit", score_commit, "cleanup")
        .writes::<Score>()
        .reads::<Clock>()
        .register()?;
    sim(world, "target_decay", target_decay, "cleanup")
        .writes::<Target>()
        .matching::<Buff>()
        .register()?;
    sim(world, "tag_refresh", tag_refresh, "cleanup")
        .writes::<Tag>()
        .matching::<Sprite>()
        .register()?;

    fx(world, "animate_frames", animate_frames, "animate")
        .writes::<Sprite>()
        .register()?;
    fx(world, "tint_by_health", tint_system, "animate")
        .writes::<Sprite>()
        .reads_snapshot::<Health>()
        .matching::<Buff>()
        .after_weak("animate_frames")
        .register()?;
    fx(world, "flicker", flicker, "animate")
        .writes::<Sprite>()
        .matching::<Lifetime>()
        .after_weak("tint_by_health")
        .register()?;
    fx(world, "team_colors", team_colors, "animate")
        .writes::<Sprite>()
        .reads::<Team>()
        .after_weak("flicker")
        .register()?;
    fx(world, "emit", emit, "emit")
        .reads::<Team>()
        .reads_snapshot::<Transform>()
        .register()?;
    fx(world, "camera_cull", camera_cull, "emit")
        .writes::<Sprite>()
        .reads_snapshot::<Transform>()
        .matching::<Tag>()
        .register()?;
    fx(world, "trail_fade", trail_fade, "emit")
        .writes::<Sprite>()
        .matching::<Lifetime>()
        .after_weak("camera_cull")
        .register()?;
    Ok(())
}
