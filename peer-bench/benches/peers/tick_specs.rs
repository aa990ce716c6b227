//! The `game_tick` shape on specs: the same components, kernels and systems, registered in
//! `game_tick`'s phase order (specs orders conflicting systems by insertion, as our
//! declarative front end orders them by phase). Structural changes go through
//! `LazyUpdate` and `Entities`, applied by `World::maintain` after the dispatch.
//! Snapshot readers read the live values (specs has no snapshots), so they wait for the
//! writers instead.

use laige_sim::prelude::Prng;
use specs::prelude::*;

use crate::game_tick::census;
use crate::game_tick::components::*;

macro_rules! storages {
    ($($t:ty: $s:ident),* $(,)?) => {$(
        impl specs::Component for $t {
            type Storage = $s<Self>;
        }
    )*};
}
storages!(
    Transform: VecStorage, Velocity: VecStorage, Health: DenseVecStorage,
    Team: DenseVecStorage, Target: DenseVecStorage, Cooldown: DenseVecStorage,
    Ai: DenseVecStorage, Sprite: DenseVecStorage, Lifetime: DenseVecStorage,
    Collider: DenseVecStorage, Cell: DenseVecStorage, Damage: DenseVecStorage,
    Buff: DenseVecStorage, Tag: DenseVecStorage,
);

/// A system from its data and body; `Name(rng)` gives it a PRNG, named `rng` in the body.
macro_rules! sys {
    ($lt:lifetime, $name:ident($rng:ident), ($($d:ident: $t:ty),*) $body:block) => {
        pub struct $name(pub Prng);
        impl<$lt> System<$lt> for $name {
            type SystemData = ($($t,)*);
            #[allow(unused_mut)]
            fn run(&mut self, ($(mut $d,)*): Self::SystemData) {
                let $rng = &mut self.0;
                $body
            }
        }
    };
    ($lt:lifetime, $name:ident, ($($d:ident: $t:ty),*) $body:block) => {
        pub struct $name;
        impl<$lt> System<$lt> for $name {
            type SystemData = ($($t,)*);
            #[allow(unused_mut)]
            fn run(&mut self, ($(mut $d,)*): Self::SystemData) $body
        }
    };
}

sys!('a, AdvanceClock, (clock: Write<'a, Clock>) {
    clock.tick += 1;
    clock.time += DT;
});
sys!('a, CooldownTick, (cds: WriteStorage<'a, Cooldown>) {
    (&mut cds).join().for_each(|cd| cd.0 -= 1.0);
});
sys!('a, BuffDecay, (buffs: WriteStorage<'a, Buff>, clock: Read<'a, Clock>) {
    let fade = clock.tick.is_multiple_of(4);
    for b in (&mut buffs).join() {
        b.ticks = b.ticks.saturating_sub(1);
        if fade || b.ticks == 0 {
            b.mult = 1.0 + (b.mult - 1.0) * 0.98;
        }
    }
});
sys!('a, PlayerInput(rng), (targets: WriteStorage<'a, Target>, buffs: ReadStorage<'a, Buff>) {
    for (target, _) in (&mut targets, &buffs).join() {
        if rng.next_range(0, 32) == 0 {
            let at = spot(rng.next_u64());
            *target = Target { x: at.x, y: at.y };
        }
    }
});
sys!('a, WaypointCycle, (ais: WriteStorage<'a, Ai>, tags: ReadStorage<'a, Tag>) {
    for (ai, _) in (&mut ais, &tags).join() {
        ai.timer += 1;
        ai.mode = ai.timer / 120 % 4;
    }
});
sys!('a, ParticleDrag, (vs: WriteStorage<'a, Velocity>, ls: ReadStorage<'a, Lifetime>) {
    for (v, _) in (&mut vs, &ls).join() {
        v.x *= 0.99;
        v.y *= 0.99;
    }
});
sys!('a, ScoreDecay, (score: Write<'a, Score>) {
    score.heat *= 0.99;
});
sys!('a, AiThink(rng), (ais: WriteStorage<'a, Ai>, cds: ReadStorage<'a, Cooldown>) {
    for (ai, _) in (&mut ais, &cds).join() {
        ai.timer += 1;
        if rng.next_range(0, 100) == 0 {
            ai.mode = rng.next_range(0, 4);
            ai.timer = 0;
        }
    }
});
sys!('a, ChooseTarget, (targets: WriteStorage<'a, Target>, ts: ReadStorage<'a, Transform>,
        teams: ReadStorage<'a, Team>, ais: ReadStorage<'a, Ai>) {
    for (target, t, team, ai) in (&mut targets, &ts, &teams, &ais).join() {
        choose_target(target, t, team, ai);
    }
});
sys!('a, Steer, (vs: WriteStorage<'a, Velocity>, ts: ReadStorage<'a, Transform>,
        targets: ReadStorage<'a, Target>) {
    for (v, t, target) in (&mut vs, &ts, &targets).join() {
        steer(v, t, target);
    }
});
sys!('a, Morale, (cds: WriteStorage<'a, Cooldown>, hs: ReadStorage<'a, Health>) {
    for (cd, h) in (&mut cds, &hs).join() {
        if h.0 < FULL_HEALTH / 4.0 {
            cd.0 += 0.5;
        }
    }
});
sys!('a, WoundedCount, (score: Write<'a, Score>, hs: ReadStorage<'a, Health>) {
    score.wounded = hs.join().filter(|h| h.0 < FULL_HEALTH / 4.0).count() as u32;
});
sys!('a, Integrate, (ts: WriteStorage<'a, Transform>, vs: ReadStorage<'a, Velocity>) {
    (&mut ts, &vs).join().for_each(|(t, v)| integrate(t, v));
});
sys!('a, ClampBounds, (ts: WriteStorage<'a, Transform>, vs: WriteStorage<'a, Velocity>) {
    (&mut ts, &mut vs).join().for_each(|(t, v)| clamp_bounds(t, v));
});
sys!('a, WaypointDrift, (ts: WriteStorage<'a, Transform>, ais: ReadStorage<'a, Ai>,
        tags: ReadStorage<'a, Tag>) {
    for (t, ai, _) in (&mut ts, &ais, &tags).join() {
        let dir = if ai.mode % 2 == 0 { 1.0 } else { -1.0 };
        t.x = (t.x + dir * 0.5).clamp(-HALF, HALF);
    }
});
sys!('a, MeasureSpeed, (score: Write<'a, Score>, vs: ReadStorage<'a, Velocity>) {
    let top = vs.join().fold(0.0f32, |top, v| top.max((v.x * v.x + v.y * v.y).sqrt()));
    score.top_speed = top;
    score.heat += top * 0.001;
});
sys!('a, UpdateCells, (cells: WriteStorage<'a, Cell>, ts: ReadStorage<'a, Transform>) {
    (&mut cells, &ts).join().for_each(|(cell, t)| *cell = cell_of(t));
});
sys!('a, NeighbourCheck, (vs: WriteStorage<'a, Velocity>, ts: ReadStorage<'a, Transform>) {
    (&mut vs, &ts).join().for_each(|(v, t)| neighbour_push(v, t));
});
sys!('a, CellCensus, (score: Write<'a, Score>, cells: ReadStorage<'a, Cell>) {
    let mut occupied = [0u64; (CELLS * CELLS).div_ceil(64) as usize];
    for cell in cells.join() {
        occupied[cell.0 as usize / 64] |= 1 << (cell.0 % 64);
    }
    score.occupied = occupied.iter().map(|w| w.count_ones()).sum();
});
sys!('a, ColliderPulse, (cs: WriteStorage<'a, Collider>, tags: ReadStorage<'a, Tag>) {
    for (c, tag) in (&mut cs, &tags).join() {
        let base = if tag.0 & 0xFF == 1 { 4.0 } else { 1.0 };
        c.0 = base + (c.0 - base) * 0.5 + 0.01;
    }
});
sys!('a, RepairProps, (hs: WriteStorage<'a, Health>, tags: ReadStorage<'a, Tag>) {
    (&mut hs, &tags).join().for_each(|(h, _)| h.0 = (h.0 + 0.1).min(FULL_HEALTH));
});
sys!('a, CooldownBonus, (cds: WriteStorage<'a, Cooldown>, buffs: ReadStorage<'a, Buff>) {
    (&mut cds, &buffs).join().for_each(|(cd, b)| cd.0 -= 0.25 * (b.mult - 1.0));
});
sys!('a, Fire(rng), (entities: Entities<'a>, cds: WriteStorage<'a, Cooldown>,
        ts: ReadStorage<'a, Transform>, teams: ReadStorage<'a, Team>,
        targets: ReadStorage<'a, Target>, lazy: Read<'a, LazyUpdate>) {
    for (cd, t, team, target) in (&mut cds, &ts, &teams, &targets).join() {
        if cd.0 <= 0.0 {
            spawn(&lazy, &entities, projectile(*t, *target, team.0, SHOT_LIFE));
            cd.0 = rng.next_range(MEAN_COOLDOWN / 2, MEAN_COOLDOWN * 3 / 2) as f32;
        }
    }
});
sys!('a, HitUnits, (hs: WriteStorage<'a, Health>, ts: ReadStorage<'a, Transform>,
        clock: Read<'a, Clock>) {
    let tick = clock.tick;
    (&mut hs, &ts).join().for_each(|(h, t)| h.0 -= hazard(t, tick));
});
sys!('a, Regen, (hs: WriteStorage<'a, Health>, buffs: ReadStorage<'a, Buff>) {
    (&mut hs, &buffs).join().for_each(|(h, b)| h.0 = (h.0 + 0.05 * b.mult).min(FULL_HEALTH));
});
sys!('a, TallyKills, (score: Write<'a, Score>, hs: ReadStorage<'a, Health>,
        cds: ReadStorage<'a, Cooldown>) {
    score.kills += (&hs, &cds).join().filter(|(h, _)| h.0 <= 0.0).count() as u32;
});
sys!('a, DamageFalloff, (ds: WriteStorage<'a, Damage>) {
    (&mut ds).join().for_each(|d| d.0 *= 0.98);
});
sys!('a, Age, (ls: WriteStorage<'a, Lifetime>) {
    (&mut ls).join().for_each(|l| l.0 = l.0.saturating_sub(1));
});
sys!('a, Expire, (entities: Entities<'a>, ls: ReadStorage<'a, Lifetime>,
        hs: ReadStorage<'a, Health>, teams: ReadStorage<'a, Team>, tags: ReadStorage<'a, Tag>,
        ais: ReadStorage<'a, Ai>, buffs: ReadStorage<'a, Buff>, clock: Read<'a, Clock>,
        lazy: Read<'a, LazyUpdate>) {
    let tick = u64::from(clock.tick);
    let place = |e: Entity| spot(mix(u64::from(e.id()) | tick << 32));
    let cooldown = |e: Entity| (mix(u64::from(e.id()) ^ tick) % 60) as f32;
    for (e, life) in (&entities, &ls).join() {
        if life.0 == 0 {
            entities.delete(e).unwrap();
            if tags.contains(e) {
                spawn(&lazy, &entities, pickup(place(e), PICKUP_LIFE));
            }
        }
    }
    for (e, h, team) in (&entities, &hs, &teams).join() {
        if h.0 <= 0.0 && ais.contains(e) {
            entities.delete(e).unwrap();
            spawn(&lazy, &entities, soldier(place(e), team.0, cooldown(e)));
        } else if h.0 <= 0.0 && buffs.contains(e) {
            entities.delete(e).unwrap();
            spawn(&lazy, &entities, hero(place(e), team.0, cooldown(e)));
        }
    }
});
sys!('a, ClampHealth, (hs: WriteStorage<'a, Health>, tags: ReadStorage<'a, Tag>) {
    (&mut hs, &tags).join().for_each(|(h, _)| h.0 = h.0.max(0.0));
});
sys!('a, ScoreCommit, (score: Write<'a, Score>, clock: Read<'a, Clock>) {
    score.ticks = clock.tick;
});
sys!('a, TargetDecay, (targets: WriteStorage<'a, Target>, buffs: ReadStorage<'a, Buff>) {
    for (target, _) in (&mut targets, &buffs).join() {
        target.x *= 0.999;
        target.y *= 0.999;
    }
});
sys!('a, TagRefresh, (tags: WriteStorage<'a, Tag>, sprites: ReadStorage<'a, Sprite>) {
    (&mut tags, &sprites).join().for_each(|(tag, _)| tag.0 = tag.0.wrapping_add(256));
});
sys!('a, AnimateFrames, (sprites: WriteStorage<'a, Sprite>) {
    (&mut sprites).join().for_each(animate);
});
sys!('a, TintByHealth, (sprites: WriteStorage<'a, Sprite>, hs: ReadStorage<'a, Health>,
        buffs: ReadStorage<'a, Buff>) {
    (&mut sprites, &hs, &buffs).join().for_each(|(s, h, _)| tint_by_health(s, Some(h)));
});
sys!('a, Flicker, (sprites: WriteStorage<'a, Sprite>, ls: ReadStorage<'a, Lifetime>) {
    (&mut sprites, &ls).join().for_each(|(s, _)| s.tint ^= (s.frame & 1) << 4);
});
sys!('a, TeamColors, (sprites: WriteStorage<'a, Sprite>, teams: ReadStorage<'a, Team>) {
    for (s, team) in (&mut sprites, &teams).join() {
        s.tint = (s.tint & 0xFF_FF00) | if team.0 == 0 { 0x40 } else { 0xC0 };
    }
});
sys!('a, Emit(rng), (entities: Entities<'a>, teams: ReadStorage<'a, Team>,
        ds: ReadStorage<'a, Damage>, ts: ReadStorage<'a, Transform>,
        lazy: Read<'a, LazyUpdate>) {
    for (_, _, t) in (&teams, &ds, &ts).join() {
        if rng.next_range(0, SHOT_LIFE) == 0 {
            let kick = (rng.next_float01(), rng.next_float01());
            spawn(&lazy, &entities, particle(*t, kick, SHOT_LIFE));
        }
    }
});
sys!('a, CameraCull, (sprites: WriteStorage<'a, Sprite>, ts: ReadStorage<'a, Transform>,
        tags: ReadStorage<'a, Tag>) {
    (&mut sprites, &ts, &tags).join().for_each(|(s, t, _)| s.visible = in_camera(t));
});
sys!('a, TrailFade, (sprites: WriteStorage<'a, Sprite>, ls: ReadStorage<'a, Lifetime>) {
    for (s, _) in (&mut sprites, &ls).join() {
        let green = (s.tint >> 8 & 0xFF) * 15 / 16;
        s.tint = (s.tint & 0xFF_00FF) | green << 8;
    }
});

/// A bundle `LazyUpdate` can insert component by component.
pub trait LazyBundle {
    fn insert(self, lazy: &LazyUpdate, e: Entity);
}

macro_rules! lazy_bundle {
    ($($t:ident $i:tt),*) => {
        impl<$($t: specs::Component + Send + Sync),*> LazyBundle for ($($t,)*) {
            fn insert(self, lazy: &LazyUpdate, e: Entity) {
                $( lazy.insert(e, self.$i); )*
            }
        }
    };
}
lazy_bundle!(A 0, B 1, C 2);
lazy_bundle!(A 0, B 1, C 2, D 3);
lazy_bundle!(A 0, B 1, C 2, D 3, E 4);
lazy_bundle!(A 0, B 1, C 2, D 3, E 4, F 5);
lazy_bundle!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

fn spawn(lazy: &LazyUpdate, entities: &Entities<'_>, bundle: impl LazyBundle) {
    bundle.insert(lazy, entities.create());
}

/// The specs world and dispatcher of `entities` entities, with a rayon pool of `threads`.
pub fn build(entities: u32, seed: u64, threads: usize) -> (World, Dispatcher<'static, 'static>) {
    let rng = |stream: u32| Prng::derive_substream(seed, stream);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut dispatcher = DispatcherBuilder::new()
        .with_pool(std::sync::Arc::new(pool))
        .with(AdvanceClock, "advance_clock", &[])
        .with(CooldownTick, "cooldown_tick", &[])
        .with(BuffDecay, "buff_decay", &[])
        .with(PlayerInput(rng(4)), "player_input", &[])
        .with(WaypointCycle, "waypoint_cycle", &[])
        .with(ParticleDrag, "particle_drag", &[])
        .with(ScoreDecay, "score_decay", &[])
        .with(AiThink(rng(8)), "ai_think", &[])
        .with(ChooseTarget, "choose_target", &[])
        .with(Steer, "steer", &[])
        .with(Morale, "morale", &[])
        .with(WoundedCount, "wounded_count", &[])
        .with(Integrate, "integrate", &[])
        .with(ClampBounds, "clamp_bounds", &["integrate"])
        .with(WaypointDrift, "waypoint_drift", &[])
        .with(MeasureSpeed, "measure_speed", &[])
        .with(UpdateCells, "update_cells", &[])
        .with(NeighbourCheck, "neighbour_check", &[])
        .with(CellCensus, "cell_census", &[])
        .with(ColliderPulse, "collider_pulse", &[])
        .with(RepairProps, "repair_props", &[])
        .with(CooldownBonus, "cooldown_bonus", &[])
        .with(Fire(rng(23)), "fire", &[])
        .with(HitUnits, "hit_units", &[])
        .with(Regen, "regen", &["hit_units"])
        .with(TallyKills, "tally_kills", &[])
        .with(DamageFalloff, "damage_falloff", &[])
        .with(Age, "age", &[])
        .with(Expire, "expire", &[])
        .with(ClampHealth, "clamp_health", &[])
        .with(ScoreCommit, "score_commit", &[])
        .with(TargetDecay, "target_decay", &[])
        .with(TagRefresh, "tag_refresh", &[])
        .with(AnimateFrames, "animate_frames", &[])
        .with(TintByHealth, "tint_by_health", &[])
        .with(Flicker, "flicker", &[])
        .with(TeamColors, "team_colors", &[])
        .with(Emit(rng(38)), "emit", &[])
        .with(CameraCull, "camera_cull", &[])
        .with(TrailFade, "trail_fade", &[])
        .build();
    let mut world = World::new();
    dispatcher.setup(&mut world);
    world.insert(Score::default());
    world.insert(Clock::default());
    populate(&mut world, entities, seed);
    (world, dispatcher)
}

/// The same starting population as `game_tick::build`.
fn populate(world: &mut World, entities: u32, seed: u64) {
    let [
        soldiers,
        heroes,
        projectiles,
        particles,
        props,
        decorations,
        pickups,
        waypoints,
    ] = census(entities);
    let mut rng = Prng::new(seed ^ 0x6A4E_7EC5);
    let mut at = || spot(rng.next_u64());
    let mut spawned = Vec::with_capacity(entities as usize);
    macro_rules! put {
        ($count:expr, |$i:ident| $bundle:expr) => {
            for $i in 0..$count {
                let bundle = $bundle;
                spawned.push(world.create_entity().build());
                bundle.insert(
                    &world.read_resource::<LazyUpdate>(),
                    *spawned.last().unwrap(),
                );
            }
        };
    }
    put!(soldiers, |i| soldier(
        at(),
        i % 2,
        (i % MEAN_COOLDOWN) as f32
    ));
    put!(heroes, |i| hero(at(), i % 2, (i % MEAN_COOLDOWN) as f32));
    put!(projectiles, |i| {
        let (from, to) = (at(), at());
        projectile(from, Target { x: to.x, y: to.y }, i % 2, 1 + i % SHOT_LIFE)
    });
    put!(particles, |i| {
        let spread = (i % 7) as f32 / 7.0;
        particle(at(), (spread, 1.0 - spread), 1 + i % SHOT_LIFE)
    });
    put!(props, |_i| prop(at()));
    put!(decorations, |_i| decoration(at()));
    put!(pickups, |i| pickup(at(), 1 + i % PICKUP_LIFE));
    put!(waypoints, |_i| waypoint(at()));
    world.maintain();
    assert_eq!(spawned.len() as u32, census(entities).iter().sum::<u32>());
}
