//! The graph as a Mermaid flowchart: systems in nested subgraphs, one link per edge with
//! its cause's arrow and colour (`linkStyle`), and a legend subgraph.
//!
//! Every name reaches Mermaid through [`quoted`], inside double quotes, with Mermaid's
//! entity codes for the characters it would read as syntax or HTML; ids are built from
//! indices only.

use std::fmt::Write as _;

use super::ScheduleGraph;
use super::drawing::{self, Block, Line, Style};

pub(super) fn write(graph: &ScheduleGraph) -> String {
    let mut out = String::new();
    // `write!` into a String cannot fail.
    let _ = writeln!(
        out,
        "%% laige schedule graph: {} front end, order hash {:#018x}",
        graph.front_end().token(),
        graph.order_hash()
    );
    out.push_str("flowchart LR\n");
    let mut depth = 1;
    drawing::walk(graph, |block| {
        let indent = "  ".repeat(depth);
        let _ = match block {
            Block::Open { id, label } => {
                depth += 1;
                writeln!(out, "{indent}subgraph {id}[\"{}\"]", quoted(&label))
            }
            // A conditional system is a hexagon.
            Block::System(system) => {
                let (open, close, mark) = if system.conditional {
                    ("{{", "}}", "<br/>run_if")
                } else {
                    ("[", "]", "")
                };
                writeln!(
                    out,
                    "{indent}s{}{open}\"{}<br/>{}{mark}\"{close}",
                    system.system.id.get(),
                    quoted(system.system.name),
                    quoted(&system.budget.to_string())
                )
            }
            Block::Close => {
                depth -= 1;
                writeln!(out, "{}end", "  ".repeat(depth))
            }
        };
    });
    // Links are styled by index, in the order they are declared.
    let mut links: Vec<Style> = Vec::new();
    for edge in graph.edges() {
        let style = drawing::style(edge.cause);
        let label = drawing::edge_label(edge)
            .map(|it| format!("|\"{}\"|", quoted(&it)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  s{} {}{label} s{}",
            edge.earlier.id.get(),
            arrow(style.line),
            edge.later.id.get()
        );
        links.push(style);
    }
    for ((ta, _), (tb, _)) in drawing::barriers(graph) {
        let style = drawing::BARRIER;
        let _ = writeln!(
            out,
            "  t{ta} {}|\"{}\"| t{tb}",
            arrow(style.line),
            quoted(style.legend)
        );
        links.push(style);
    }
    let legend = drawing::legend(graph);
    if !legend.is_empty() {
        out.push_str("  subgraph legend[\"legend\"]\n");
        for (i, style) in legend.iter().enumerate() {
            let _ = writeln!(
                out,
                "    legend{i}a[\" \"] {}|\"{}\"| legend{i}b[\" \"]",
                arrow(style.line),
                quoted(style.legend)
            );
            links.push(*style);
        }
        out.push_str("  end\n");
        out.push_str("  classDef legendPoint fill:none,stroke:none\n");
        let points: Vec<String> = (0..legend.len())
            .map(|i| format!("legend{i}a,legend{i}b"))
            .collect();
        let _ = writeln!(out, "  class {} legendPoint", points.join(","));
    }
    // One `linkStyle` per distinct look, in the order each first appears.
    let mut styled = vec![false; links.len()];
    for i in 0..links.len() {
        if styled[i] {
            continue;
        }
        let same: Vec<String> = (i..links.len())
            .filter(|&j| links[j] == links[i])
            .inspect(|&j| styled[j] = true)
            .map(|j| j.to_string())
            .collect();
        let _ = writeln!(
            out,
            "  linkStyle {} {}",
            same.join(","),
            link_style(links[i])
        );
    }
    out
}

fn arrow(line: Line) -> &'static str {
    match line {
        Line::Solid => "-->",
        Line::Dashed | Line::Dotted => "-.->",
        Line::Bold => "==>",
    }
}

fn link_style(style: Style) -> String {
    let line = match style.line {
        Line::Solid => "stroke-width:1px",
        Line::Dashed => "stroke-width:1px,stroke-dasharray: 6 4",
        Line::Dotted => "stroke-width:1px,stroke-dasharray: 2 3",
        Line::Bold => "stroke-width:3px",
    };
    format!("stroke:{},{line}", style.color)
}

/// `text` inside a Mermaid double-quoted label: `"`, `#`, `&`, `<`, `>`, `|` and the
/// backtick (which would start a Markdown string) as entity codes, a newline as `<br/>`,
/// other control characters as numeric entity codes.
pub(super) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            '`' => out.push_str("#96;"),
            '\n' => out.push_str("<br/>"),
            c if c.is_control() => {
                let _ = write!(out, "#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}
