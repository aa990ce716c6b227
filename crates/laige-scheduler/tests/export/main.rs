//! The schedule graph export: its edges and causes as the scheduling rules state them,
//! the three formats snapshotted for a layout with every cause, Graphviz accepting the DOT,
//! hostile names surviving each format's escaping, and the errors.

use laige_registry::{ComponentId, Registry, SystemDef, SystemId};
use laige_scheduler::{GraphCause, Layout, Schedule, ScheduleGraph, schedule, schedule_declared};
use serde_json::Value;

type Run = fn(&mut ());
fn noop(_: &mut ()) {}

fn c(id: u16) -> ComponentId {
    ComponentId::new(id).unwrap()
}

fn sys(name: &'static str) -> SystemDef<Run> {
    SystemDef::new(name, noop as Run).budget_ms(1.0)
}

fn registry(components: &[&'static str], defs: Vec<SystemDef<Run>>) -> Registry<Run> {
    let mut registry = Registry::new();
    for (i, &name) in components.iter().enumerate() {
        // The first component keeps last tick's value, for `reads_snapshot`.
        registry.register_component_info(c(i as u16 + 1), name, i == 0);
    }
    for def in defs {
        registry.register(def).unwrap();
    }
    registry
}

/// `earlier -> later: cause` for every edge, in the graph's order.
fn edges(graph: &ScheduleGraph) -> Vec<String> {
    graph
        .edges()
        .iter()
        .map(|e| {
            let on = e
                .cause
                .component()
                .map(|c| format!(" {}", c.name))
                .unwrap_or_default();
            format!(
                "{} -> {}: {}{on}",
                e.earlier.name,
                e.later.name,
                e.cause.token()
            )
        })
        .collect()
}

const POS: u16 = 1;
const VEL: u16 = 2;
const HEALTH: u16 = 3;
const INPUT: u16 = 4;
const CONTACTS: u16 = 5;
const SOUND: u16 = 6;
const PACKET: u16 = 7;

fn game_layout() -> Layout {
    Layout::new()
        .dag(
            "Main",
            "Game",
            &["Input", "Simulation", "Output"],
            "Simulation",
        )
        .dag("Main", "Audio", &["Mix"], "Mix")
        .dag("Late", "Net", &["Send"], "Send")
}

/// A declarative game in which every edge cause occurs: `after`, `before`, `after_weak`,
/// `exclusive`, `fresh`, `phase_order`, an access conflict only an executor orders
/// (`Spawner` → `Damage`: the weak edge to `Ai` orders no data), and a track barrier.
fn game() -> (Registry<Run>, Schedule) {
    let registry = registry(
        &[
            "Position", "Velocity", "Health", "Input", "Contacts", "Sound", "Packet",
        ],
        vec![
            sys("ReadInput").in_phase("Input").writes(c(INPUT)),
            sys("Movement").writes(c(POS)).reads(c(VEL)).reads(c(INPUT)),
            sys("Clamp").writes(c(POS)).after("Movement"),
            sys("Physics").writes(c(VEL)).before("Movement"),
            sys("Collide").reads_fresh(c(POS)).writes(c(CONTACTS)),
            sys("Spawner").writes(c(HEALTH)),
            sys("Ai").after_weak("Spawner").reads(c(INPUT)),
            sys("Damage").after("Ai").reads(c(HEALTH)),
            sys("Render").in_phase("Output").reads(c(POS)),
            sys("Flush").in_phase("Output").exclusive_phase(),
            sys("Mixer").in_dag("Audio").writes(c(SOUND)),
            sys("Encode")
                .in_dag("Net")
                .writes(c(PACKET))
                .reads_snapshot(c(POS)),
            sys("Send").in_dag("Net").after("Encode").reads(c(PACKET)),
        ],
    );
    let schedule = schedule_declared(&registry, &game_layout()).unwrap();
    (registry, schedule)
}

fn game_graph() -> ScheduleGraph {
    let (registry, schedule) = game();
    ScheduleGraph::new(&schedule, &registry, Some(&game_layout())).unwrap()
}

#[test]
fn declarative_edges_are_explain_declared_plus_the_executors_conflict_edges() {
    let (registry, schedule) = game();
    let graph = ScheduleGraph::new(&schedule, &registry, Some(&game_layout())).unwrap();
    let mut explained: Vec<(u32, u32, GraphCause)> =
        laige_scheduler::explain_declared(&registry, &game_layout())
            .unwrap()
            .iter()
            .map(|e| (e.earlier.id.get(), e.later.id.get(), e.cause.into()))
            .collect();
    explained.sort_by_key(|&(a, b, _)| (a, b));
    let drawn: Vec<(u32, u32, GraphCause)> = graph
        .edges()
        .iter()
        .filter(|e| e.cause.token() != "conflict")
        .map(|e| (e.earlier.id.get(), e.later.id.get(), e.cause))
        .collect();
    assert_eq!(drawn, explained);
    let conflicts: Vec<String> = edges(&graph)
        .into_iter()
        .filter(|e| e.ends_with("conflict Health"))
        .collect();
    assert_eq!(conflicts, ["Spawner -> Damage: conflict Health"]);
}

#[test]
fn every_cause_is_drawn_and_in_the_legend() {
    let graph = game_graph();
    let mut tokens: Vec<&str> = graph.edges().iter().map(|e| e.cause.token()).collect();
    tokens.sort_unstable();
    tokens.dedup();
    assert_eq!(
        tokens,
        [
            "after",
            "after_weak",
            "before",
            "conflict",
            "exclusive",
            "fresh",
            "phase_order"
        ]
    );
    let dot = graph.to_dot();
    let mermaid = graph.to_mermaid();
    for legend in [
        "after (depends_on)",
        "before",
        "after_weak",
        "exclusive phase",
        "fresh read",
        "cross-phase conflict",
        "access conflict (order edge)",
        "track barrier",
    ] {
        assert!(dot.contains(&format!("label=\"{legend}\"")), "{legend}");
        assert!(mermaid.contains(&format!("|\"{legend}\"|")), "{legend}");
    }
}

#[test]
fn declarative_graph_snapshots() {
    let graph = game_graph();
    insta::assert_snapshot!("game_dot", graph.to_dot());
    insta::assert_snapshot!("game_mermaid", graph.to_mermaid());
    insta::assert_snapshot!("game_json", graph.to_json());
}

#[test]
fn graphviz_renders_the_declarative_graph() {
    let Some(svg) = laige_testkit::graphviz(&game_graph().to_dot(), "svg") else {
        return;
    };
    assert!(svg.contains("<svg"), "{svg}");
    assert!(svg.contains("Movement"));
}

#[test]
fn flat_edges_follow_the_flat_rules() {
    // Known answers from the rules, not from the export: `Census` reads `Position` before
    // `Move` writes it (read_before_write, beside the after edge it does not have);
    // `Move` → `Grid` is an order only access gives; `Move` → `Draw` is implied by
    // `Move` → `Grid` → `Draw`, so an executor (and the graph) leaves it out.
    let registry = registry(
        &["Position", "Cell"],
        vec![
            sys("Census").reads(c(1)),
            sys("Move").writes(c(1)).depends_on("Census"),
            sys("Grid").reads(c(1)).writes(c(2)),
            sys("Draw").reads(c(1)).reads(c(2)).depends_on("Grid"),
        ],
    );
    let schedule = schedule(&registry).unwrap();
    let graph = ScheduleGraph::new(&schedule, &registry, None).unwrap();
    assert_eq!(
        edges(&graph),
        [
            "Census -> Move: after",
            "Census -> Move: read_before_write Position",
            "Move -> Grid: conflict Position",
            "Grid -> Draw: after",
        ]
    );
    assert_eq!(graph.tracks(), [""]);
    assert!(graph.dags().is_empty());
    assert!(graph.systems().iter().all(|s| s.dag.is_none()));
}

#[test]
fn output_is_a_pure_function_of_the_registrations() {
    let (a, b) = (game_graph(), game_graph());
    assert_eq!(a.to_dot(), b.to_dot());
    assert_eq!(a.to_mermaid(), b.to_mermaid());
    assert_eq!(a.to_json(), b.to_json());
    let ids: Vec<SystemId> = a.systems().iter().map(|s| s.system.id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let keys: Vec<(SystemId, SystemId)> = a
        .edges()
        .iter()
        .map(|e| (e.earlier.id, e.later.id))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn json_follows_its_schema() {
    let graph = game_graph();
    let json: Value = serde_json::from_str(&graph.to_json()).unwrap();
    assert_eq!(json["schema"], "laige-schedule-graph");
    assert_eq!(json["version"], 1);
    assert_eq!(json["front_end"], "declarative");
    assert_eq!(json["tracks"][1]["name"], "Late");
    assert_eq!(json["dags"][2]["track"], 1);
    let systems = json["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 13);
    let collide = &systems[4];
    assert_eq!(collide["name"], "Collide");
    assert_eq!(collide["reads"], serde_json::json!([]));
    assert_eq!(collide["reads_fresh"], serde_json::json!([POS]));
    assert_eq!(collide["writes"], serde_json::json!([CONTACTS]));
    assert_eq!(collide["budget_raw"], 65536);
    assert_eq!(collide["dag"], 0);
    assert_eq!(collide["phase"], 1);
    let steps: Vec<u64> = systems
        .iter()
        .map(|s| s["step"].as_u64().unwrap())
        .collect();
    let mut sorted = steps.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..13).collect::<Vec<u64>>());
    let conflict = json["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["cause"] == "conflict")
        .unwrap();
    assert_eq!(conflict["component"], HEALTH);
    assert_eq!(conflict["strong"], false);
    assert_eq!(json["order_hash"], format!("{:#018x}", graph.order_hash()));
}

mod errors;
mod hostile;
