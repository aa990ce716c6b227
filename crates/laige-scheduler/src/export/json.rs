//! The graph as JSON, schema `laige-schedule-graph` (see `docs/api/export.md`): one object,
//! keys in a fixed order, one system, edge or component per line so diffs stay readable.
//!
//! Every name reaches JSON through [`string`], which escapes quotes, backslashes and every
//! control character.

use std::fmt::Write as _;

use laige_registry::{ComponentName, ComponentSet};

use super::{JSON_VERSION, ScheduleGraph};

pub(super) fn write(graph: &ScheduleGraph) -> String {
    let mut out = String::new();
    // `write!` into a String cannot fail.
    out.push_str("{\n  \"schema\": \"laige-schedule-graph\",\n");
    let _ = writeln!(out, "  \"version\": {JSON_VERSION},");
    let _ = writeln!(out, "  \"front_end\": \"{}\",", graph.front_end().token());
    // A string: a u64 does not fit a JavaScript number.
    let _ = writeln!(out, "  \"order_hash\": \"{:#018x}\",", graph.order_hash());

    let tracks = graph.tracks().iter().map(|&name| {
        let name = if name.is_empty() {
            "null".to_owned()
        } else {
            string(name)
        };
        format!("{{\"name\": {name}}}")
    });
    list(&mut out, "tracks", tracks, false);

    let dags = graph.dags().iter().map(|dag| {
        let track = graph.tracks().iter().position(|&t| t == dag.track);
        let phases: Vec<String> = dag.phases.iter().map(|p| string(p)).collect();
        format!(
            "{{\"name\": {}, \"track\": {}, \"phases\": [{}], \"default_phase\": {}}}",
            string(dag.name),
            track.map_or_else(|| "null".to_owned(), |t| t.to_string()),
            phases.join(", "),
            string(dag.default_phase)
        )
    });
    list(&mut out, "dags", dags, false);

    let components = graph.components().iter().map(|c| {
        format!(
            "{{\"id\": {}, \"name\": {}, \"versioned\": {}}}",
            c.name.id.get(),
            component_name(c.name),
            c.versioned
        )
    });
    list(&mut out, "components", components, false);

    let systems = graph.systems().iter().map(|s| {
        format!(
            "{{\"id\": {}, \"name\": {}, \"budget_ms\": {}, \"budget_raw\": {}, \"step\": {}, \
             \"track\": {}, \"dag\": {}, \"phase\": {}, \"exclusive\": {}, \"reads\": {}, \
             \"reads_fresh\": {}, \"reads_snapshot\": {}, \"writes\": {}, \"emits\": {}}}",
            s.system.id.get(),
            string(s.system.name),
            s.budget.as_millis_f64(),
            s.budget.raw(),
            s.step,
            s.track,
            optional(s.dag),
            optional(s.phase),
            s.exclusive,
            ids(&s.reads),
            ids(&s.reads_fresh),
            ids(&s.reads_snapshot),
            ids(&s.writes),
            ids(&s.emits),
        )
    });
    list(&mut out, "systems", systems, false);

    let edges = graph.edges().iter().map(|e| {
        let component = e
            .cause
            .component()
            .map_or_else(|| "null".to_owned(), |c| c.id.get().to_string());
        format!(
            "{{\"from\": {}, \"to\": {}, \"cause\": \"{}\", \"component\": {component}, \"strong\": {}}}",
            e.earlier.id.get(),
            e.later.id.get(),
            e.cause.token(),
            e.cause.is_strong()
        )
    });
    list(&mut out, "edges", edges, true);
    out.push_str("}\n");
    out
}

/// `"key": [...]`, one item per line; `last` leaves off the trailing comma.
fn list(out: &mut String, key: &str, items: impl Iterator<Item = String>, last: bool) {
    let items: Vec<String> = items.collect();
    let close = if last { "]" } else { "]," };
    if items.is_empty() {
        let _ = writeln!(out, "  \"{key}\": [{close}");
        return;
    }
    let _ = writeln!(out, "  \"{key}\": [");
    let _ = writeln!(out, "    {}", items.join(",\n    "));
    let _ = writeln!(out, "  {close}");
}

fn optional(index: Option<usize>) -> String {
    index.map_or_else(|| "null".to_owned(), |i| i.to_string())
}

fn ids(set: &ComponentSet) -> String {
    let ids: Vec<String> = set.iter().map(|c| c.get().to_string()).collect();
    format!("[{}]", ids.join(", "))
}

fn component_name(name: ComponentName) -> String {
    if name.name.is_empty() {
        "null".to_owned()
    } else {
        string(name.name)
    }
}

/// `text` as a JSON string: quotes, backslashes and control characters escaped (the
/// common ones by letter, the rest as `\u00XX`).
pub(super) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
