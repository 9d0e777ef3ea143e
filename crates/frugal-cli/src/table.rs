//! The comparison tables printed by `frugal simulate`: an aligned text table that fits
//! 120 columns (every column with `--wide`) and a Markdown table.

use comfy_table::{CellAlignment, ContentArrangement, LineStyle, Table, TableStyle};
use frugal_sim::experiment::AggregateRow;

/// `v` with `decimals` decimals, never "-0.00".
pub fn fixed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    match s.strip_prefix('-') {
        Some(abs) if abs.chars().all(|c| c == '0' || c == '.') => abs.to_string(),
        _ => s,
    }
}

/// `mean` or `mean ± ci` (95 % half-width).
fn estimate(mean: f64, ci: Option<f64>, decimals: usize) -> String {
    match ci {
        Some(ci) => format!("{} ± {}", fixed(mean, decimals), fixed(ci, decimals)),
        None => fixed(mean, decimals),
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "–".to_string(), |v| fixed(v, decimals))
}

/// A column: two header lines (the text table) and the cell of one row.
struct Column {
    head: [&'static str; 2],
    cell: fn(&AggregateRow) -> String,
    /// Shown in the default (narrow) table.
    narrow: bool,
    /// Shown only when some row has a non-zero value.
    sparse: Option<fn(&AggregateRow) -> bool>,
}

fn columns(timings: bool) -> Vec<Column> {
    let mut c = vec![
        Column {
            head: ["policy", ""],
            cell: |r| r.policy.clone(),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["queue", ""],
            cell: |r| r.queue.clone(),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["cost", "$"],
            cell: |r| estimate(r.cost_usd, r.cost_usd_ci95, 2),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["vs", "baseline"],
            cell: |r| {
                r.vs_baseline_pct.map_or_else(
                    || "–".to_string(),
                    |v| {
                        let s = fixed(v, 1);
                        if s.starts_with('-') {
                            format!("{s}%")
                        } else {
                            format!("+{s}%")
                        }
                    },
                )
            },
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["local", "$"],
            cell: |r| fixed(r.cost_local_usd, 2),
            narrow: false,
            sparse: None,
        },
        Column {
            head: ["cloud", "$"],
            cell: |r| fixed(r.cost_cloud_usd, 2),
            narrow: false,
            sparse: None,
        },
        Column {
            head: ["deadline", "met"],
            cell: |r| match r.deadline_met_pct {
                None => "–".to_string(),
                Some(m) => format!(
                    "{}% of {}",
                    estimate(m, r.deadline_met_pct_ci95, 1),
                    fixed(r.deadline_jobs, 0)
                ),
            },
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["dropped", ""],
            cell: |r| fixed(r.dropped, 0),
            narrow: true,
            sparse: Some(|r| r.dropped > 0.0),
        },
        Column {
            head: ["never", "run"],
            cell: |r| fixed(r.never_scheduled, 0),
            narrow: true,
            sparse: Some(|r| r.never_scheduled > 0.0),
        },
        Column {
            head: ["mean", "JCT s"],
            cell: |r| match r.mean_jct_s {
                None => "–".to_string(),
                Some(m) => estimate(m, r.mean_jct_s_ci95, 0),
            },
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["p95", "JCT s"],
            cell: |r| opt(r.p95_jct_s, 0),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["mean", "wait s"],
            cell: |r| opt(r.mean_wait_s, 0),
            narrow: false,
            sparse: None,
        },
        Column {
            head: ["makespan", "s"],
            cell: |r| fixed(r.makespan_s, 0),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["CPU", "util"],
            cell: |r| format!("{}%", fixed(r.cpu_utilisation_pct, 0)),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["mem", "util"],
            cell: |r| format!("{}%", fixed(r.memory_utilisation_pct, 0)),
            narrow: false,
            sparse: None,
        },
        Column {
            head: ["VM-h", ""],
            cell: |r| fixed(r.vm_hours, 2),
            narrow: true,
            sparse: None,
        },
        Column {
            head: ["policy", "calls"],
            cell: |r| fixed(r.decisions, 0),
            narrow: false,
            sparse: None,
        },
    ];
    if timings {
        c.push(Column {
            head: ["decision µs", "mean/p99/max"],
            cell: |r| {
                format!(
                    "{} / {} / {}",
                    opt(r.decision_mean_us, 2),
                    opt(r.decision_p99_us, 2),
                    opt(r.decision_max_us, 0)
                )
            },
            narrow: true,
            sparse: None,
        });
    }
    c
}

fn header(c: &Column, rows: &[AggregateRow]) -> String {
    if c.head[0] == "vs" {
        let base = rows.first().map_or("", |r| r.baseline.as_str());
        return format!("vs\n{base}");
    }
    if c.head[1].is_empty() {
        c.head[0].to_string()
    } else {
        format!("{}\n{}", c.head[0], c.head[1])
    }
}

/// The text table: one row per policy. Without `wide` it keeps the columns that fit
/// 120 characters (dropped and never-run jobs only when there are any).
pub fn render(rows: &[AggregateRow], wide: bool, timings: bool) -> String {
    let cols: Vec<Column> = columns(timings)
        .into_iter()
        .filter(|c| wide || (c.narrow && c.sparse.is_none_or(|f| rows.iter().any(f))))
        .collect();
    let mut t = Table::new();
    // No borders, no vertical lines: a rule under the header and two spaces between
    // columns, so the table stays narrow and pastes cleanly.
    t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')))
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(cols.iter().map(|c| header(c, rows)));
    for r in rows {
        t.add_row(cols.iter().map(|c| (c.cell)(r)));
    }
    for i in 0..cols.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, 2));
            if i >= 2 {
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

/// A GitHub-flavoured Markdown table with every column.
pub fn markdown(rows: &[AggregateRow], timings: bool) -> String {
    let cols = columns(timings);
    let head: Vec<String> = cols
        .iter()
        .map(|c| header(c, rows).replace('\n', " "))
        .collect();
    let mut s = format!("| {} |\n", head.join(" | "));
    s.push_str(&format!(
        "|{}\n",
        cols.iter()
            .enumerate()
            .map(|(i, _)| if i < 2 { " --- |" } else { " ---: |" })
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
