//! The graph in Graphviz's DOT language: systems as record nodes (name above budget) in
//! nested clusters, edges coloured and dashed by cause, and a legend.
//!
//! Every name reaches DOT through [`quoted`] (a double-quoted string Graphviz shows as
//! text) or [`record_field`] (the same inside a record label, where `{}|<>` and spaces
//! are syntax); ids are built from indices only.

use std::fmt::Write as _;

use super::ScheduleGraph;
use super::drawing::{self, Block, Line, Style};

pub(super) fn write(graph: &ScheduleGraph) -> String {
    let mut out = String::new();
    // `write!` into a String cannot fail.
    let _ = writeln!(
        out,
        "// laige schedule graph: {} front end, order hash {:#018x}",
        graph.front_end().token(),
        graph.order_hash()
    );
    out.push_str("digraph schedule {\n");
    out.push_str(
        "  graph [rankdir=LR, compound=true, fontname=\"Helvetica\", fontsize=11, labeljust=l];\n",
    );
    out.push_str("  node [shape=Mrecord, fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
    let mut depth = 1;
    drawing::walk(graph, |block| {
        let indent = "  ".repeat(depth);
        let _ = match block {
            Block::Open { id, label } => {
                depth += 1;
                writeln!(
                    out,
                    "{indent}subgraph cluster_{id} {{\n{indent}  label=\"{}\";",
                    quoted(&label)
                )
            }
            // A conditional system is dashed, its budget line saying so.
            Block::System(system) => writeln!(
                out,
                "{indent}s{} [label=\"{}|{}{}\", tooltip=\"{}\"{}];",
                system.system.id.get(),
                record_field(system.system.name),
                record_field(&system.budget.to_string()),
                if system.conditional {
                    "\\n(run_if)"
                } else {
                    ""
                },
                quoted(&drawing::access_text(graph, system)),
                if system.conditional {
                    ", style=dashed"
                } else {
                    ""
                },
            ),
            Block::Close => {
                depth -= 1;
                writeln!(out, "{}}}", "  ".repeat(depth))
            }
        };
    });
    for edge in graph.edges() {
        let label = drawing::edge_label(edge)
            .map(|it| format!(", label=\"{}\"", quoted(&it)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  s{} -> s{} [{}{label}, tooltip=\"{}\"];",
            edge.earlier.id.get(),
            edge.later.id.get(),
            attributes(drawing::style(edge.cause)),
            quoted(&drawing::edge_sentence(edge)),
        );
    }
    for ((ta, a), (tb, b)) in drawing::barriers(graph) {
        let _ = writeln!(
            out,
            "  s{} -> s{} [ltail=cluster_t{ta}, lhead=cluster_t{tb}, {}, label=\"{}\"];",
            a.system.id.get(),
            b.system.id.get(),
            attributes(drawing::BARRIER),
            quoted(drawing::BARRIER.legend),
        );
    }
    let legend = drawing::legend(graph);
    if !legend.is_empty() {
        out.push_str("  subgraph cluster_legend {\n    label=\"legend\";\n");
        out.push_str("    node [shape=point, width=0.05, label=\"\"];\n");
        for (i, style) in legend.iter().enumerate() {
            let _ = writeln!(
                out,
                "    legend{i}a -> legend{i}b [{}, label=\"{}\"];",
                attributes(*style),
                quoted(style.legend)
            );
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

fn attributes(style: Style) -> String {
    let line = match style.line {
        Line::Solid => "solid",
        Line::Dashed => "dashed",
        Line::Dotted => "dotted",
        Line::Bold => "bold, penwidth=2",
    };
    format!("color=\"{}\", style={line}", style.color)
}

/// `text` inside a DOT double-quoted string, shown as it is: quotes and backslashes
/// escaped (so `\N` and friends stay literal), `&` as `&amp;` (so an entity stays
/// literal), a newline as a line break, other control characters as visible `\u{..}` text.
pub(super) fn quoted(text: &str) -> String {
    escape(text, false)
}

/// [`quoted`], and also the characters a record label treats as syntax: `{}|<>` and the
/// space (which Graphviz may otherwise trim or collapse).
pub(super) fn record_field(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, record: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let push = |out: &mut String, ch: char| match ch {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        // Graphviz decodes HTML entities (`&amp;`) in every label.
        '&' => out.push_str("&amp;"),
        '{' | '}' | '|' | '<' | '>' | ' ' if record => {
            out.push('\\');
            out.push(ch);
        }
        c => out.push(c),
    };
    for ch in text.chars() {
        if ch.is_control() && ch != '\n' {
            // Spelled out, and that spelling escaped in turn (its braces are record syntax).
            format!("\\u{{{:x}}}", u32::from(ch))
                .chars()
                .for_each(|c| push(&mut out, c));
        } else {
            push(&mut out, ch);
        }
    }
    out
}
