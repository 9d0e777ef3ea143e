//! The columns of `frugal simulate`'s comparison table: one row per policy.

use frugal_sim::experiment::AggregateRow;

use crate::table::{Column, fixed, opt};

type C = Column<AggregateRow>;

/// `mean` or `mean ± ci` (95 % half-width).
fn estimate(mean: f64, ci: Option<f64>, decimals: usize) -> String {
    match ci {
        Some(ci) => format!("{} ± {}", fixed(mean, decimals), fixed(ci, decimals)),
        None => fixed(mean, decimals),
    }
}

/// The columns; the "vs" column names the baseline of `rows`.
fn columns(rows: &[AggregateRow], timings: bool) -> Vec<Column<AggregateRow>> {
    let baseline = rows.first().map_or("", |r| r.baseline.as_str());
    let mut vs = C::new(["vs", ""], |r| {
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
    });
    vs.head[1] = baseline.to_string();
    let mut c = vec![
        C::new(["policy", ""], |r| r.policy.clone()),
        C::new(["queue", ""], |r| r.queue.clone()),
        C::new(["cost", "$"], |r| estimate(r.cost_usd, r.cost_usd_ci95, 2)),
        vs,
        C::new(["local", "$"], |r| fixed(r.cost_local_usd, 2)).wide_only(),
        C::new(["cloud", "$"], |r| fixed(r.cost_cloud_usd, 2)).wide_only(),
        C::new(["deadline", "met"], |r| match r.deadline_met_pct {
            None => "–".to_string(),
            Some(m) => format!(
                "{}% of {}",
                estimate(m, r.deadline_met_pct_ci95, 1),
                fixed(r.deadline_jobs, 0)
            ),
        }),
        C::new(["dropped", ""], |r| fixed(r.dropped, 0)).sparse(|r| r.dropped > 0.0),
        C::new(["never", "run"], |r| fixed(r.never_scheduled, 0))
            .sparse(|r| r.never_scheduled > 0.0),
        C::new(["mean", "JCT s"], |r| match r.mean_jct_s {
            None => "–".to_string(),
            Some(m) => estimate(m, r.mean_jct_s_ci95, 0),
        }),
        C::new(["p95", "JCT s"], |r| opt(r.p95_jct_s, 0)),
        C::new(["mean", "wait s"], |r| opt(r.mean_wait_s, 0)).wide_only(),
        C::new(["makespan", "s"], |r| fixed(r.makespan_s, 0)),
        C::new(["CPU", "util"], |r| {
            format!("{}%", fixed(r.cpu_utilisation_pct, 0))
        }),
        C::new(["mem", "util"], |r| {
            format!("{}%", fixed(r.memory_utilisation_pct, 0))
        })
        .wide_only(),
        C::new(["VM-h", ""], |r| fixed(r.vm_hours, 2)),
        C::new(["policy", "calls"], |r| fixed(r.decisions, 0)).wide_only(),
    ];
    if timings {
        c.push(C::new(["decision µs", "mean/p99/max"], |r| {
            format!(
                "{} / {} / {}",
                opt(r.decision_mean_us, 2),
                opt(r.decision_p99_us, 2),
                opt(r.decision_max_us, 0)
            )
        }));
    }
    c
}

/// The text table (≤ 120 columns unless `wide`).
pub fn render(rows: &[AggregateRow], wide: bool, timings: bool) -> String {
    crate::table::render(columns(rows, timings), rows, wide, 2)
}

/// The Markdown table with every column.
pub fn markdown(rows: &[AggregateRow], timings: bool) -> String {
    crate::table::markdown(columns(rows, timings), rows, 2)
}
