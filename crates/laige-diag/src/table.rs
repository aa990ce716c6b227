//! Aligned plain-text tables for human-facing reports (schedules, timing).

use std::fmt;

/// A plain-text table: a header row, a rule, then rows, columns padded to the widest cell.
/// Stable output (no colours, no widths from the terminal), so it can be diffed.
///
/// ```
/// let mut table = laige_diag::TextTable::new(&["system", "runs"]);
/// table.row(vec!["Movement".into(), "3".into()]);
/// assert_eq!(table.to_string(), "system    runs\n--------  ----\nMovement  3\n");
/// ```
#[derive(Clone, Debug, Default)]
pub struct TextTable {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl TextTable {
    /// A table with these column headers.
    pub fn new(headers: &[&str]) -> Self {
        Self {
            headers: headers.iter().map(|&h| h.to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells render empty, extra ones are dropped.
    pub fn row(&mut self, cells: Vec<String>) -> &mut Self {
        self.rows.push(cells);
        self
    }
}

impl fmt::Display for TextTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = |cell: &str| cell.chars().count();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        for cells in std::iter::once(&self.headers)
            .chain(std::iter::once(&rule))
            .chain(&self.rows)
        {
            let mut line = String::new();
            for (i, w) in widths.iter().enumerate() {
                let cell = cells.get(i).map_or("", String::as_str);
                if i > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', w - width(cell)));
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}
