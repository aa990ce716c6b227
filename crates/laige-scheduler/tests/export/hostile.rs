//! Hostile names: every name the registry and the layout accept must come back exactly as
//! written from each format (JSON parsed by serde_json, DOT laid out by Graphviz, Mermaid
//! labels decoded), with no character read as syntax.

use laige_registry::Registry;
use laige_scheduler::{Layout, ScheduleGraph, schedule_declared};
use serde_json::Value;

use super::{Run, c, registry, sys};

const TRACK: &str = "Tr\"ack\\1";
const DAG: &str = "D<a>g|{x}";
const PHASES: [&str; 2] = ["Ph#ase\nOne", "Phase \"2\" `code`"];

/// Names with quotes, backslashes (and Graphviz's `\N`), newlines, record syntax,
/// Mermaid's entity and Markdown syntax, HTML, control characters and keywords.
const SYSTEMS: [&str; 8] = [
    "Quote\"d",
    "Back\\slash\\N",
    "Multi\nLine",
    "Rec{o}rd|<port>",
    "Mer#quot;maid &amp; <b>bold</b>",
    "`Tick` [x](y); %% end",
    "Bell\u{7}Tab\tEnd\u{1b}",
    "end",
];

const COMPONENTS: [&str; 4] = ["Vec<Quote\"d>", "A|B{c}", "Line\nbreak\\", ""];

fn hostile() -> (Registry<Run>, Layout, ScheduleGraph) {
    let [
        quoted,
        backslash,
        multi,
        record,
        mermaid,
        markdown,
        control,
        end,
    ] = SYSTEMS;
    let registry = registry(
        &COMPONENTS,
        vec![
            sys(quoted).in_phase(PHASES[0]).writes(c(1)),
            sys(backslash).writes(c(2)).reads(c(1)),
            sys(multi).reads_fresh(c(2)).writes(c(3)),
            sys(record).after(multi).reads_fresh(c(4)),
            sys(mermaid).before(end).writes(c(4)),
            sys(markdown).after_weak(mermaid),
            sys(control).in_phase(PHASES[0]).exclusive_phase(),
            sys(end).after(multi).reads(c(3)),
        ],
    );
    let layout = Layout::new().dag(TRACK, DAG, &PHASES, PHASES[1]);
    let schedule = schedule_declared(&registry, &layout).unwrap();
    let graph = ScheduleGraph::new(&schedule, &registry, Some(&layout)).unwrap();
    (registry, layout, graph)
}

#[test]
fn json_gives_back_every_name() {
    let (_, _, graph) = hostile();
    let json: Value = serde_json::from_str(&graph.to_json()).expect("valid JSON");
    let names: Vec<&str> = json["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, SYSTEMS);
    let components: Vec<Value> = json["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].clone())
        .collect();
    let want: Vec<Value> = COMPONENTS
        .iter()
        .map(|&n| if n.is_empty() { Value::Null } else { n.into() })
        .collect();
    assert_eq!(components, want);
    assert_eq!(json["tracks"][0]["name"], TRACK);
    assert_eq!(json["dags"][0]["name"], DAG);
    assert_eq!(json["dags"][0]["phases"], serde_json::json!(PHASES));
}

/// What Graphviz shows for a name: one text per line, control characters (other than the
/// newline) spelled `\u{..}`.
fn shown_lines(text: &str) -> Vec<String> {
    let visible: String = text
        .chars()
        .map(|ch| match ch {
            '\n' => "\n".to_owned(),
            c if c.is_control() => format!("\\u{{{:x}}}", u32::from(c)),
            c => c.to_string(),
        })
        .collect();
    visible.split('\n').map(str::to_owned).collect()
}

/// The texts Graphviz draws for the object (node, cluster or edge) named `name`.
fn drawn_texts(layout: &Value, key: &str, name: &str) -> Vec<String> {
    let objects = layout[key].as_array().unwrap();
    let object = objects
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("graphviz laid out no {name}"));
    object["_ldraw_"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|op| op["op"] == "T")
        .map(|op| op["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn graphviz_draws_every_name_as_written() {
    let (registry, _, graph) = hostile();
    let Some(json) = laige_testkit::graphviz(&graph.to_dot(), "json") else {
        return;
    };
    let layout: Value = serde_json::from_str(&json).unwrap();
    for record in registry.iter() {
        let mut want = shown_lines(record.name());
        want.push("1 ms".to_owned());
        let node = format!("s{}", record.id().get());
        assert_eq!(drawn_texts(&layout, "objects", &node), want, "{node}");
    }
    let phase = drawn_texts(&layout, "objects", "cluster_t0_d0_p0");
    assert_eq!(phase, shown_lines(&format!("phase {}", PHASES[0])));
    let track = drawn_texts(&layout, "objects", "cluster_t0");
    assert_eq!(track, shown_lines(&format!("track 1: {TRACK}")));
    let dag = drawn_texts(&layout, "objects", "cluster_t0_d0");
    assert_eq!(dag, shown_lines(&format!("DAG {DAG}")));
    let edge_labels: Vec<String> = layout["edges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["_ldraw_"].as_array().cloned().unwrap_or_default())
        .filter(|op| op["op"] == "T")
        .map(|op| op["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        edge_labels.contains(&"fresh: A|B{c}".to_owned()),
        "{edge_labels:?}"
    );
}

/// Mermaid's entity codes back to characters, and `<br/>` back to a newline.
fn decode_mermaid(label: &str) -> String {
    let mut out = String::new();
    let mut rest = label;
    while let Some(ch) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("<br/>") {
            out.push('\n');
            rest = after;
        } else if ch == '#' {
            let end = rest.find(';').expect("an entity code ends with `;`");
            let code = &rest[1..end];
            let decoded = match code {
                "quot" => '"',
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                n => char::from_u32(n.parse().expect("a numeric entity")).unwrap(),
            };
            out.push(decoded);
            rest = &rest[end + 1..];
        } else {
            assert!(!"\"<>|`&".contains(ch), "raw `{ch}` in label {label:?}");
            assert!(!ch.is_control(), "raw control character in label {label:?}");
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

#[test]
fn mermaid_labels_decode_to_every_name() {
    let (registry, _, graph) = hostile();
    let mermaid = graph.to_mermaid();
    let (opened, closed) = mermaid.lines().fold((0, 0), |(o, e), line| {
        let line = line.trim();
        (
            o + usize::from(line.starts_with("subgraph ")),
            e + usize::from(line == "end"),
        )
    });
    assert_eq!(opened, closed, "{mermaid}");
    for record in registry.iter() {
        let prefix = format!("s{}[\"", record.id().get());
        let line = mermaid
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no node line for {}", record.id()));
        let label = line
            .strip_prefix(&prefix)
            .and_then(|l| l.strip_suffix("\"]"))
            .expect("a node line is s<id>[\"label\"]");
        assert_eq!(decode_mermaid(label), format!("{}\n1 ms", record.name()));
    }
    let phase = "subgraph t0_d0_p0[\"";
    let line = mermaid
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(phase))
        .unwrap();
    let label = line[phase.len()..].strip_suffix("\"]").unwrap();
    assert_eq!(decode_mermaid(label), format!("phase {}", PHASES[0]));
    let fresh = mermaid
        .lines()
        .find_map(|l| {
            l.split("|\"")
                .nth(1)?
                .strip_suffix("\"| s3")
                .map(str::to_owned)
        })
        .expect("the fresh edge into s3 has a label");
    assert_eq!(decode_mermaid(&fresh), "fresh: A|B{c}");
}
