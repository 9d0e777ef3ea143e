//! Text and Markdown tables for the command line: an aligned text table that fits 120
//! columns (every column with `--wide`) and a GitHub-flavoured Markdown table, over any
//! row type described by a list of [`Column`]s.

use clap::ValueEnum;
use comfy_table::{CellAlignment, ContentArrangement, LineStyle, Table, TableStyle};
use serde::Serialize;

/// `v` with `decimals` decimals, never "-0.00".
pub fn fixed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    match s.strip_prefix('-') {
        Some(abs) if abs.chars().all(|c| c == '0' || c == '.') => abs.to_string(),
        _ => s,
    }
}

/// `v` with `decimals` decimals, or "–" when there is none.
pub fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "–".to_string(), |v| fixed(v, decimals))
}

/// A column: its header (two lines in the text table, one in Markdown) and the cell of
/// one row.
pub struct Column<R> {
    /// Header lines; an empty second line is left out.
    pub head: [String; 2],
    /// The cell of a row.
    pub cell: fn(&R) -> String,
    /// Shown in the default (narrow) table.
    pub narrow: bool,
    /// Shown only when some row has a non-zero value.
    pub sparse: Option<fn(&R) -> bool>,
}

impl<R> Column<R> {
    /// A column shown in the narrow table.
    pub fn new(head: [&str; 2], cell: fn(&R) -> String) -> Self {
        Column {
            head: head.map(str::to_string),
            cell,
            narrow: true,
            sparse: None,
        }
    }

    /// Left out of the narrow table.
    pub fn wide_only(mut self) -> Self {
        self.narrow = false;
        self
    }

    /// Left out of the narrow table when `nonzero` holds for no row.
    pub fn sparse(mut self, nonzero: fn(&R) -> bool) -> Self {
        self.sparse = Some(nonzero);
        self
    }

    fn header(&self) -> String {
        if self.head[1].is_empty() {
            self.head[0].clone()
        } else {
            format!("{}\n{}", self.head[0], self.head[1])
        }
    }
}

/// The text table. Without `wide` it keeps the narrow columns (sparse ones only when
/// some row needs them). The first `left` columns are left-aligned, the rest right.
pub fn render<R>(cols: Vec<Column<R>>, rows: &[R], wide: bool, left: usize) -> String {
    let cols: Vec<Column<R>> = cols
        .into_iter()
        .filter(|c| wide || (c.narrow && c.sparse.is_none_or(|f| rows.iter().any(f))))
        .collect();
    let mut t = Table::new();
    // No borders, no vertical lines: a rule under the header and two spaces between
    // columns, so the table stays narrow and pastes cleanly.
    t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')))
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(cols.iter().map(Column::header));
    for r in rows {
        t.add_row(cols.iter().map(|c| (c.cell)(r)));
    }
    for i in 0..cols.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, 2));
            if i >= left {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    let lines: Vec<String> = t.lines().map(|l| l.trim_end().to_string()).collect();
    // The rule under the header spans the padding after the last column: cut it to the
    // text's width.
    let width = lines
        .iter()
        .filter(|l| !l.starts_with('─'))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|l| {
            if l.starts_with('─') {
                "─".repeat(width)
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A GitHub-flavoured Markdown table with every column; the first `left` columns are
/// left-aligned.
pub fn markdown<R>(cols: Vec<Column<R>>, rows: &[R], left: usize) -> String {
    let head: Vec<String> = cols.iter().map(|c| c.header().replace('\n', " ")).collect();
    let mut s = format!("| {} |\n", head.join(" | "));
    s.push_str(&format!(
        "|{}\n",
        (0..cols.len())
            .map(|i| if i < left { " --- |" } else { " ---: |" })
            .collect::<String>()
    ));
    for r in rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| (c.cell)(r).replace('|', "\\|"))
            .collect();
        s.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    s.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_negative_zero() {
        assert_eq!(fixed(-0.001, 2), "0.00");
        assert_eq!(fixed(-0.0, 1), "0.0");
        assert_eq!(fixed(-0.4, 0), "0");
        assert_eq!(fixed(-1.5, 1), "-1.5");
    }
}

/// How a comparison prints its rows: `--format` and `--wide`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Printed {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Table format: show every column (the default fits 120 columns).
    #[arg(long)]
    pub wide: bool,
}

/// Output formats of the comparison tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormatArg {
    /// Aligned text tables for a terminal (≤ 120 columns unless --wide)
    Table,
    /// GitHub-flavoured Markdown tables, every column
    Markdown,
    /// One CSV row per workload × policy, every column, units in the names
    Csv,
    /// A JSON array of the same rows
    Json,
}
