//! The demo's schedule graph: its DOT, Mermaid and JSON snapshotted, the DOT accepted by
//! Graphviz, and the SVG committed under `docs/img/` drawn from the current graph.

// The demo lives beside its example, not in the facade.
#[allow(dead_code)]
#[path = "../examples/demo/particles.rs"]
mod demo;

use demo::DemoConfig;
use laige_sim::prelude::*;
use laige_sim::scheduler::ScheduleGraph;

fn demo_graph() -> ScheduleGraph {
    let config = DemoConfig {
        particles: 16,
        ..DemoConfig::default()
    };
    let (world, schedule) = demo::build(config, WorldOptions::default()).unwrap();
    ScheduleGraph::new(&schedule, world.registry(), world.layout()).unwrap()
}

#[test]
fn demo_graph_snapshots() {
    let graph = demo_graph();
    insta::assert_snapshot!("demo_dot", graph.to_dot());
    insta::assert_snapshot!("demo_mermaid", graph.to_mermaid());
    insta::assert_snapshot!("demo_json", graph.to_json());
}

#[test]
fn demo_edges_are_its_declarations_and_its_warning() {
    // The demo's table (crates/laige-sim/examples/demo/particles.rs): eight `after` edges (`Tally`'s
    // also orders it after the writer of its event queue), and `Forces`
    // reading `Position` before `Integrate` writes it.
    let graph = demo_graph();
    let edges: Vec<String> = graph
        .edges()
        .iter()
        .map(|e| format!("{} -> {} {}", e.earlier.name, e.later.name, e.cause.token()))
        .collect();
    assert_eq!(
        edges,
        [
            "Forces -> Integrate after",
            "Forces -> Integrate read_before_write",
            "Forces -> Heat after",
            "Integrate -> Grid after",
            "Heat -> Glow after",
            "Glow -> Census after",
            "Age -> Cull after",
            "Cull -> Tally after",
            "Grid -> Census after",
        ]
    );
}

#[test]
fn graphviz_renders_the_demo_graph() {
    if let Some(svg) = laige_testkit::graphviz(&demo_graph().to_dot(), "svg") {
        assert!(svg.contains("Integrate"), "{svg}");
    }
}

/// The `<title>`s Graphviz gives the nodes (`s1`) and edges (`s1->s2`) of the schedule,
/// legend and clusters left out, sorted.
fn titles(svg: &str) -> Vec<String> {
    let mut titles: Vec<String> = svg
        .split("<title>")
        .skip(1)
        .filter_map(|it| it.split("</title>").next())
        .map(|it| it.replace("&#45;&gt;", "->"))
        .filter(|it| {
            it.strip_prefix('s')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    titles.sort();
    titles
}

#[test]
fn the_committed_svg_draws_the_current_graph() {
    // Regenerate with the command in the README when this fails.
    let svg = include_str!("../../../docs/img/demo-schedule.svg");
    let graph = demo_graph();
    let mut want: Vec<String> = graph
        .systems()
        .iter()
        .map(|s| format!("s{}", s.system.id.get()))
        .collect();
    want.extend(
        graph
            .edges()
            .iter()
            .map(|e| format!("s{}->s{}", e.earlier.id.get(), e.later.id.get())),
    );
    want.sort();
    assert_eq!(titles(svg), want);
    for system in graph.systems() {
        assert!(svg.contains(&format!(">{}</text>", system.system.name)));
    }
}
