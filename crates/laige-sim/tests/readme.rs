//! The README tour's snippets that are not the tour itself, compiled and run here, so the
//! README cannot drift from the API: moving from the flat rules to a declarative `Layout`,
//! and running at a fixed rate.

use laige_sim::prelude::*;

#[derive(Component)]
struct Pos(f32);
#[derive(Component)]
struct Vel(f32);

fn movement(mut bodies: Query<'_, (&mut Pos, &Vel)>) -> Result<(), QueryError> {
    bodies.each(|(pos, vel)| pos.0 += vel.0)
}

fn clamp(mut bodies: Query<'_, &mut Pos>) -> Result<(), QueryError> {
    bodies.each(|pos| pos.0 = pos.0.min(10.0))
}

fn world() -> World {
    let mut world = World::new(WorldOptions::default());
    world.register_component::<Pos>().unwrap();
    world.register_component::<Vel>().unwrap();
    world.spawn((Pos(9.5), Vel(1.0))).unwrap();
    world
}

/// The README's "When to move to a layout" snippet, verbatim between the markers.
fn with_layout(world: &mut World) -> Result<Schedule, Box<dyn std::error::Error>> {
    // README: layout begins
    world.set_layout(Layout::new().dag("Main", "Game", &["Move", "Resolve"], "Move"));
    let movement = world.system("Movement", movement).register()?; // phase "Move", the default
    world
        .system("Clamp", clamp)
        .in_phase("Resolve")
        .after(movement)
        .register()?;
    let schedule = world.schedule()?; // the DAG is derived from access: Movement, then Clamp
    // README: layout ends
    Ok(schedule)
}

/// The README's "Running at a fixed rate" snippet, verbatim between the markers; `frames`
/// stands in for the game's own quit test, and `render` for its renderer.
fn fixed_rate(mut world: World, frames: u32) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let mut left = frames;
    let mut quit = || {
        left = left.saturating_sub(1);
        left == 0
    };
    let mut alphas = Vec::new();
    let mut render = |_: &World, alpha: f64| alphas.push(alpha);
    // README: runtime begins
    Runtime::install(&mut world)?; // FixedTime (hashed) and FrameTime
    let options = RuntimeOptions {
        tick_rate: 60,
        workers: 2,
        ..RuntimeOptions::default()
    };
    let mut runtime = Runtime::new(world, options)?;
    while !quit() {
        runtime.run_frame()?; // waits, runs the ticks due, catches up or drops a backlog
        render(runtime.world(), runtime.overstep_fraction()); // interpolate by the fraction
    }
    // README: runtime ends
    Ok(alphas)
}

#[test]
fn the_runtime_snippet_runs_frames() {
    let alphas = fixed_rate(world(), 4).unwrap();
    assert_eq!(alphas.len(), 3);
    assert!(alphas.iter().all(|a| (0.0..1.0).contains(a)), "{alphas:?}");
}

#[test]
fn the_flat_rules_refuse_two_writers_even_when_ordered() {
    let mut world = world();
    let movement = world.system("Movement", movement).register().unwrap();
    world
        .system("Clamp", clamp)
        .after(movement)
        .register()
        .unwrap();
    let err = world.schedule().unwrap_err();
    assert_eq!(err.event(), "double_writer", "{err}");
}

#[test]
fn a_layout_orders_two_writers() {
    let mut world = world();
    let schedule = with_layout(&mut world).unwrap();
    world.run_systems(&schedule).unwrap();
    let mut pos = 0.0;
    world.each::<&Pos>(|p| pos = p.0).unwrap();
    assert_eq!(pos, 10.0, "Movement ran, then Clamp");
}

#[test]
fn the_readme_shows_the_snippets_verbatim() {
    for name in ["layout", "runtime"] {
        let begins = format!("// README: {name} begins\n");
        let ends = format!("    // README: {name} ends");
        shown_verbatim(between(include_str!("readme.rs"), &begins, &ends));
    }
}

fn shown_verbatim(snippet: &str) {
    let readme = include_str!("../../../README.md");
    let dedented: String = snippet
        .lines()
        .map(|line| line.strip_prefix("    ").unwrap_or(line))
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(
        readme.contains(&dedented),
        "README.md must show this snippet as is:\n{dedented}"
    );
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap() + start.len();
    let to = from + text[from..].find(end).unwrap();
    &text[from..to]
}
