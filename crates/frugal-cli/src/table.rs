//! The comparison table printed by `frugal simulate`.

use comfy_table::{CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use frugal_sim::Summary;

/// Renders one row per policy; the cost column is also shown relative to `baseline`
/// (the row of that policy, else the first row).
pub fn render(rows: &[Summary], baseline: &str) -> String {
    let base = rows
        .iter()
        .find(|r| r.policy == baseline)
        .or(rows.first())
        .map_or(0.0, |r| r.total_cost);
    let vs = format!("vs {baseline}");
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "policy",
            "queue",
            "cost $",
            vs.as_str(),
            "local $",
            "cloud $",
            "deadline met",
            "dropped",
            "never",
            "mean JCT s",
            "p95 JCT s",
            "mean wait s",
            "makespan s",
            "CPU util",
            "mem util",
            "VM-h",
            "decision µs mean/p99",
        ]);
    for r in rows {
        let rel = if base > 0.0 {
            format!("{:+.1}%", 100.0 * (r.total_cost / base - 1.0))
        } else {
            "-".into()
        };
        t.add_row(vec![
            r.policy.clone(),
            r.queue.clone(),
            format!("{:.2}", r.total_cost),
            rel,
            format!("{:.2}", r.cost_local),
            format!("{:.2}", r.cost_cloud),
            format!("{:.1}% of {}", r.deadline_met_pct, r.deadline_jobs),
            r.dropped.to_string(),
            r.never_scheduled.to_string(),
            format!("{:.0}", r.mean_jct_s),
            format!("{:.0}", r.p95_jct_s),
            format!("{:.0}", r.mean_wait_s),
            format!("{:.0}", r.makespan_s),
            format!("{:.0}%", 100.0 * r.cpu_utilisation),
            format!("{:.0}%", 100.0 * r.memory_utilisation),
            format!("{:.2}", r.vm_hours),
            format!(
                "{:.2} / {:.2} / {:.0}",
                r.decision_mean_us, r.decision_p99_us, r.decision_max_us
            ),
        ]);
    }
    for i in 2..17 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t.to_string()
}
