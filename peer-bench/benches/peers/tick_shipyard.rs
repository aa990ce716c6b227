//! The `game_tick` shape on shipyard: the same components, kernels and systems in one
//! workload, added in `game_tick`'s phase order (shipyard runs conflicting systems in
//! insertion order). The three systems that spawn or despawn take `AllStoragesViewMut`,
//! shipyard's way to change structure inside a workload, so each runs alone. Snapshot
//! readers read the live values, as on specs.

use laige_sim::prelude::Prng;
use shipyard::{
    AllStoragesViewMut, Contains, EntityId, IntoIter, Unique, UniqueView, UniqueViewMut, View,
    ViewMut, Workload, World,
};

use crate::game_tick::census;
use crate::game_tick::components::*;

macro_rules! components {
    ($($t:ty),*) => {$(
        impl shipyard::Component for $t {
            type Tracking = shipyard::track::Untracked;
        }
    )*};
}
components!(
    Transform, Velocity, Health, Team, Target, Cooldown, Ai, Sprite, Lifetime, Collider, Cell,
    Damage, Buff, Tag
);
impl Unique for Score {}
impl Unique for Clock {}

/// The PRNG of a system that draws.
macro_rules! rng_state {
    ($($name:ident),*) => {$(
        pub struct $name {
            rng: Prng,
        }
        impl Unique for $name {}
    )*};
}
rng_state!(InputRng, ThinkRng);

/// `fire`'s PRNG, and the projectiles it collects while its views are borrowed.
pub struct FireRng {
    rng: Prng,
    pending: Vec<ProjectileBundle>,
}
impl Unique for FireRng {}

/// `emit`'s PRNG, and the particles it collects while its views are borrowed.
pub struct EmitRng {
    rng: Prng,
    particles: Vec<ParticleBundle>,
}
impl Unique for EmitRng {}

fn advance_clock(mut clock: UniqueViewMut<Clock>) {
    clock.tick += 1;
    clock.time += DT;
}
fn cooldown_tick(mut cds: ViewMut<Cooldown>) {
    (&mut cds).iter().for_each(|cd| cd.0 -= 1.0);
}
fn buff_decay(mut buffs: ViewMut<Buff>, clock: UniqueView<Clock>) {
    let fade = clock.tick.is_multiple_of(4);
    for b in (&mut buffs).iter() {
        b.ticks = b.ticks.saturating_sub(1);
        if fade || b.ticks == 0 {
            b.mult = 1.0 + (b.mult - 1.0) * 0.98;
        }
    }
}
fn player_input(mut targets: ViewMut<Target>, buffs: View<Buff>, mut s: UniqueViewMut<InputRng>) {
    let rng = &mut s.rng;
    for (target, _) in (&mut targets, &buffs).iter() {
        if rng.next_range(0, 32) == 0 {
            let at = spot(rng.next_u64());
            *target = Target { x: at.x, y: at.y };
        }
    }
}
fn waypoint_cycle(mut ais: ViewMut<Ai>, tags: View<Tag>) {
    for (ai, _) in (&mut ais, &tags).iter() {
        ai.timer += 1;
        ai.mode = ai.timer / 120 % 4;
    }
}
fn particle_drag(mut vs: ViewMut<Velocity>, ls: View<Lifetime>) {
    for (v, _) in (&mut vs, &ls).iter() {
        v.x *= 0.99;
        v.y *= 0.99;
    }
}
fn score_decay(mut score: UniqueViewMut<Score>) {
    score.heat *= 0.99;
}
fn ai_think(mut ais: ViewMut<Ai>, cds: View<Cooldown>, mut s: UniqueViewMut<ThinkRng>) {
    let rng = &mut s.rng;
    for (ai, _) in (&mut ais, &cds).iter() {
        ai.timer += 1;
        if rng.next_range(0, 100) == 0 {
            ai.mode = rng.next_range(0, 4);
            ai.timer = 0;
        }
    }
}
fn choose_target_system(
    mut targets: ViewMut<Target>,
    ts: View<Transform>,
    teams: View<Team>,
    ais: View<Ai>,
) {
    for (target, t, team, ai) in (&mut targets, &ts, &teams, &ais).iter() {
        choose_target(target, t, team, ai);
    }
}
fn steer_system(mut vs: ViewMut<Velocity>, ts: View<Transform>, targets: View<Target>) {
    for (v, t, target) in (&mut vs, &ts, &targets).iter() {
        steer(v, t, target);
    }
}
fn morale(mut cds: ViewMut<Cooldown>, hs: View<Health>) {
    for (cd, h) in (&mut cds, &hs).iter() {
        if h.0 < FULL_HEALTH / 4.0 {
            cd.0 += 0.5;
        }
    }
}
fn wounded_count(mut score: UniqueViewMut<Score>, hs: View<Health>) {
    score.wounded = hs.iter().filter(|h| h.0 < FULL_HEALTH / 4.0).count() as u32;
}
fn integrate_system(mut ts: ViewMut<Transform>, vs: View<Velocity>) {
    (&mut ts, &vs).iter().for_each(|(t, v)| integrate(t, v));
}
fn clamp_bounds_system(mut ts: ViewMut<Transform>, mut vs: ViewMut<Velocity>) {
    (&mut ts, &mut vs)
        .iter()
        .for_each(|(t, v)| clamp_bounds(t, v));
}
fn waypoint_drift(mut ts: ViewMut<Transform>, ais: View<Ai>, tags: View<Tag>) {
    for (t, ai, _) in (&mut ts, &ais, &tags).iter() {
        let dir = if ai.mode % 2 == 0 { 1.0 } else { -1.0 };
        t.x = (t.x + dir * 0.5).clamp(-HALF, HALF);
    }
}
fn measure_speed(mut score: UniqueViewMut<Score>, vs: View<Velocity>) {
    let top = vs
        .iter()
        .fold(0.0f32, |top, v| top.max((v.x * v.x + v.y * v.y).sqrt()));
    score.top_speed = top;
    score.heat += top * 0.001;
}
fn update_cells(mut cells: ViewMut<Cell>, ts: View<Transform>) {
    (&mut cells, &ts)
        .iter()
        .for_each(|(cell, t)| *cell = cell_of(t));
}
fn neighbour_check(mut vs: ViewMut<Velocity>, ts: View<Transform>) {
    (&mut vs, &ts)
        .iter()
        .for_each(|(v, t)| neighbour_push(v, t));
}
fn cell_census(mut score: UniqueViewMut<Score>, cells: View<Cell>) {
    let mut occupied = [0u64; (CELLS * CELLS).div_ceil(64) as usize];
    for cell in cells.iter() {
        occupied[cell.0 as usize / 64] |= 1 << (cell.0 % 64);
    }
    score.occupied = occupied.iter().map(|w| w.count_ones()).sum();
}
fn collider_pulse(mut cs: ViewMut<Collider>, tags: View<Tag>) {
    for (c, tag) in (&mut cs, &tags).iter() {
        let base = if tag.0 & 0xFF == 1 { 4.0 } else { 1.0 };
        c.0 = base + (c.0 - base) * 0.5 + 0.01;
    }
}
fn repair_props(mut hs: ViewMut<Health>, tags: View<Tag>) {
    (&mut hs, &tags)
        .iter()
        .for_each(|(h, _)| h.0 = (h.0 + 0.1).min(FULL_HEALTH));
}
fn cooldown_bonus(mut cds: ViewMut<Cooldown>, buffs: View<Buff>) {
    (&mut cds, &buffs)
        .iter()
        .for_each(|(cd, b)| cd.0 -= 0.25 * (b.mult - 1.0));
}
fn fire(mut all: AllStoragesViewMut) {
    let mut pending = {
        let (mut cds, ts, teams, targets, mut s) = all
            .borrow::<(
                ViewMut<Cooldown>,
                View<Transform>,
                View<Team>,
                View<Target>,
                UniqueViewMut<FireRng>,
            )>()
            .unwrap();
        let s = &mut *s;
        for (cd, t, team, target) in (&mut cds, &ts, &teams, &targets).iter() {
            if cd.0 <= 0.0 {
                s.pending.push(projectile(*t, *target, team.0, SHOT_LIFE));
                cd.0 = s.rng.next_range(MEAN_COOLDOWN / 2, MEAN_COOLDOWN * 3 / 2) as f32;
            }
        }
        std::mem::take(&mut s.pending)
    };
    for bundle in pending.drain(..) {
        all.add_entity(bundle);
    }
    all.borrow::<UniqueViewMut<FireRng>>().unwrap().pending = pending;
}
fn hit_units(mut hs: ViewMut<Health>, ts: View<Transform>, clock: UniqueView<Clock>) {
    let tick = clock.tick;
    (&mut hs, &ts)
        .iter()
        .for_each(|(h, t)| h.0 -= hazard(t, tick));
}
fn regen(mut hs: ViewMut<Health>, buffs: View<Buff>) {
    (&mut hs, &buffs)
        .iter()
        .for_each(|(h, b)| h.0 = (h.0 + 0.05 * b.mult).min(FULL_HEALTH));
}
fn tally_kills(mut score: UniqueViewMut<Score>, hs: View<Health>, cds: View<Cooldown>) {
    score.kills += (&hs, &cds).iter().filter(|(h, _)| h.0 <= 0.0).count() as u32;
}
fn damage_falloff(mut ds: ViewMut<Damage>) {
    (&mut ds).iter().for_each(|d| d.0 *= 0.98);
}
fn age(mut ls: ViewMut<Lifetime>) {
    (&mut ls).iter().for_each(|l| l.0 = l.0.saturating_sub(1));
}

/// What `expire` replaces, collected while its views are borrowed.
#[derive(Default)]
pub struct Expired {
    gone: Vec<EntityId>,
    pickups: Vec<PickupBundle>,
    soldiers: Vec<SoldierBundle>,
    heroes: Vec<HeroBundle>,
}
impl Unique for Expired {}

fn expire(mut all: AllStoragesViewMut) {
    let mut e = {
        let (ls, hs, teams, tags, ais, buffs, clock, mut expired) = all
            .borrow::<(
                View<Lifetime>,
                View<Health>,
                View<Team>,
                View<Tag>,
                View<Ai>,
                View<Buff>,
                UniqueView<Clock>,
                UniqueViewMut<Expired>,
            )>()
            .unwrap();
        let e = &mut *expired;
        let tick = u64::from(clock.tick);
        let place = |id: EntityId| spot(mix(id.index() | tick << 32));
        let cooldown = |id: EntityId| (mix(id.index() ^ tick) % 60) as f32;
        for (id, life) in ls.iter().with_id() {
            if life.0 == 0 {
                e.gone.push(id);
                if (&tags).contains(id) {
                    e.pickups.push(pickup(place(id), PICKUP_LIFE));
                }
            }
        }
        for (id, (h, team)) in (&hs, &teams).iter().with_id() {
            if h.0 <= 0.0 && (&ais).contains(id) {
                e.gone.push(id);
                e.soldiers.push(soldier(place(id), team.0, cooldown(id)));
            } else if h.0 <= 0.0 && (&buffs).contains(id) {
                e.gone.push(id);
                e.heroes.push(hero(place(id), team.0, cooldown(id)));
            }
        }
        std::mem::take(e)
    };
    for id in e.gone.drain(..) {
        all.delete_entity(id);
    }
    for bundle in e.pickups.drain(..) {
        all.add_entity(bundle);
    }
    for bundle in e.soldiers.drain(..) {
        all.add_entity(bundle);
    }
    for bundle in e.heroes.drain(..) {
        all.add_entity(bundle);
    }
    *all.borrow::<UniqueViewMut<Expired>>().unwrap() = e;
}
fn clamp_health(mut hs: ViewMut<Health>, tags: View<Tag>) {
    (&mut hs, &tags)
        .iter()
        .for_each(|(h, _)| h.0 = h.0.max(0.0));
}
fn score_commit(mut score: UniqueViewMut<Score>, clock: UniqueView<Clock>) {
    score.ticks = clock.tick;
}
fn target_decay(mut targets: ViewMut<Target>, buffs: View<Buff>) {
    for (target, _) in (&mut targets, &buffs).iter() {
        target.x *= 0.999;
        target.y *= 0.999;
    }
}
fn tag_refresh(mut tags: ViewMut<Tag>, sprites: View<Sprite>) {
    (&mut tags, &sprites)
        .iter()
        .for_each(|(tag, _)| tag.0 = tag.0.wrapping_add(256));
}
fn animate_frames(mut sprites: ViewMut<Sprite>) {
    (&mut sprites).iter().for_each(animate);
}
fn tint_system(mut sprites: ViewMut<Sprite>, hs: View<Health>, buffs: View<Buff>) {
    (&mut sprites, &hs, &buffs)
        .iter()
        .for_each(|(s, h, _)| tint_by_health(s, Some(h)));
}
fn flicker(mut sprites: ViewMut<Sprite>, ls: View<Lifetime>) {
    (&mut sprites, &ls)
        .iter()
        .for_each(|(s, _)| s.tint ^= (s.frame & 1) << 4);
}
fn team_colors(mut sprites: ViewMut<Sprite>, teams: View<Team>) {
    for (s, team) in (&mut sprites, &teams).iter() {
        s.tint = (s.tint & 0xFF_FF00) | if team.0 == 0 { 0x40 } else { 0xC0 };
    }
}
fn emit(mut all: AllStoragesViewMut) {
    let mut particles = {
        let (teams, ds, ts, mut s) = all
            .borrow::<(
                View<Team>,
                View<Damage>,
                View<Transform>,
                UniqueViewMut<EmitRng>,
            )>()
            .unwrap();
        let s = &mut *s;
        for (_, _, t) in (&teams, &ds, &ts).iter() {
            if s.rng.next_range(0, SHOT_LIFE) == 0 {
                let kick = (s.rng.next_float01(), s.rng.next_float01());
                s.particles.push(particle(*t, kick, SHOT_LIFE));
            }
        }
        std::mem::take(&mut s.particles)
    };
    for bundle in particles.drain(..) {
        all.add_entity(bundle);
    }
    all.borrow::<UniqueViewMut<EmitRng>>().unwrap().particles = particles;
}
fn camera_cull(mut sprites: ViewMut<Sprite>, ts: View<Transform>, tags: View<Tag>) {
    (&mut sprites, &ts, &tags)
        .iter()
        .for_each(|(s, t, _)| s.visible = in_camera(t));
}
fn trail_fade(mut sprites: ViewMut<Sprite>, ls: View<Lifetime>) {
    for (s, _) in (&mut sprites, &ls).iter() {
        let green = (s.tint >> 8 & 0xFF) * 15 / 16;
        s.tint = (s.tint & 0xFF_00FF) | green << 8;
    }
}

/// The shipyard world of `entities` entities, with its workload on a rayon pool of
/// `threads`.
pub fn build(entities: u32, seed: u64, threads: usize) -> World {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut world = World::builder().with_local_thread_pool(pool).build();
    let rng = |stream: u32| Prng::derive_substream(seed, stream);
    world.add_unique(Score::default());
    world.add_unique(Clock::default());
    world.add_unique(InputRng { rng: rng(4) });
    world.add_unique(ThinkRng { rng: rng(8) });
    world.add_unique(FireRng {
        rng: rng(23),
        pending: Vec::new(),
    });
    world.add_unique(EmitRng {
        rng: rng(38),
        particles: Vec::new(),
    });
    world.add_unique(Expired::default());
    populate(&mut world, entities, seed);
    Workload::new("tick")
        .with_system(advance_clock)
        .with_system(cooldown_tick)
        .with_system(buff_decay)
        .with_system(player_input)
        .with_system(waypoint_cycle)
        .with_system(particle_drag)
        .with_system(score_decay)
        .with_system(ai_think)
        .with_system(choose_target_system)
        .with_system(steer_system)
        .with_system(morale)
        .with_system(wounded_count)
        .with_system(integrate_system)
        .with_system(clamp_bounds_system)
        .with_system(waypoint_drift)
        .with_system(measure_speed)
        .with_system(update_cells)
        .with_system(neighbour_check)
        .with_system(cell_census)
        .with_system(collider_pulse)
        .with_system(repair_props)
        .with_system(cooldown_bonus)
        .with_system(fire)
        .with_system(hit_units)
        .with_system(regen)
        .with_system(tally_kills)
        .with_system(damage_falloff)
        .with_system(age)
        .with_system(expire)
        .with_system(clamp_health)
        .with_system(score_commit)
        .with_system(target_decay)
        .with_system(tag_refresh)
        .with_system(animate_frames)
        .with_system(tint_system)
        .with_system(flicker)
        .with_system(team_colors)
        .with_system(emit)
        .with_system(camera_cull)
        .with_system(trail_fade)
        .add_to_world(&world)
        .unwrap();
    world
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
    for i in 0..soldiers {
        world.add_entity(soldier(at(), i % 2, (i % MEAN_COOLDOWN) as f32));
    }
    for i in 0..heroes {
        world.add_entity(hero(at(), i % 2, (i % MEAN_COOLDOWN) as f32));
    }
    for i in 0..projectiles {
        let (from, to) = (at(), at());
        let to = Target { x: to.x, y: to.y };
        world.add_entity(projectile(from, to, i % 2, 1 + i % SHOT_LIFE));
    }
    for i in 0..particles {
        let spread = (i % 7) as f32 / 7.0;
        world.add_entity(particle(at(), (spread, 1.0 - spread), 1 + i % SHOT_LIFE));
    }
    for _ in 0..props {
        world.add_entity(prop(at()));
    }
    for _ in 0..decorations {
        world.add_entity(decoration(at()));
    }
    for i in 0..pickups {
        world.add_entity(pickup(at(), 1 + i % PICKUP_LIFE));
    }
    for _ in 0..waypoints {
        world.add_entity(waypoint(at()));
    }
}
