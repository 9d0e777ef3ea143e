//! Per-cell statistics over runs, and the comparisons paper 001 reports (§IV-B1, Table
//! III, Fig. 3): the figures of `frugal ephemeral` come from here only.

use serde::Serialize;

use crate::experiment::EphemeralRow;
use crate::forecast::{ForecasterKind, quantile};
use crate::hosts::DataCentre;

/// Statistics of one (data centre, chunk size, safety margin, volatility, forecaster,
/// strategy) cell over its runs (start hours). Job times are over the runs that ended; percentages over all runs
/// that were not rejected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Data centre.
    pub dc: DataCentre,
    /// Chunk size, MiB.
    pub chunk_mib: u32,
    /// Safety margin, percent.
    pub safety_margin_pct: u32,
    /// Volatility factor of the primary workload (1: as recorded).
    pub volatility: f64,
    /// Forecaster of the primary workload.
    pub forecaster: ForecasterKind,
    /// Strategy.
    pub strategy: &'static str,
    /// Runs.
    pub runs: usize,
    /// Runs whose job the plan rejected.
    pub rejected: usize,
    /// Median job time, seconds.
    pub job_time_s: f64,
    /// Smallest job time, seconds.
    pub job_time_min_s: f64,
    /// Largest job time, seconds.
    pub job_time_max_s: f64,
    /// Median % relaunched tasks (Table III's "median").
    pub relaunched_pct: f64,
    /// Smallest % relaunched.
    pub relaunched_min_pct: f64,
    /// Largest % relaunched.
    pub relaunched_max_pct: f64,
    /// 98th percentile of % relaunched (linear interpolation).
    pub relaunched_p98_pct: f64,
    /// Median % remote map tasks (Table IV).
    pub remote_pct: f64,
    /// Median plan makespan (Eq. 3), seconds; empty for Cuckoo, which does not plan.
    pub plan_makespan_s: Option<f64>,
    /// Median plan job time with the shuffle's estimate
    /// ([`crate::plan::Plan::job_times_with_shuffle`]), seconds; empty for Cuckoo.
    pub plan_job_time_s: Option<f64>,
    /// 1 − median job time / Cuckoo's median job time in the same cell, percent (positive:
    /// faster than Cuckoo); empty without a Cuckoo run in the cell.
    pub vs_cuckoo_pct: Option<f64>,
}

/// Whether a strategy is one of Cuckoo's (they do not plan).
fn is_cuckoo(strategy: &str) -> bool {
    strategy.starts_with("cuckoo")
}

fn stat(mut v: Vec<f64>, tau: f64) -> f64 {
    quantile(&mut v, tau).unwrap_or(f64::NAN)
}

/// The cells of `rows`, in the order each cell first appears.
pub fn cells(rows: &[EphemeralRow]) -> Vec<Cell> {
    let key = |r: &EphemeralRow| {
        (
            r.dc,
            r.chunk_mib,
            r.safety_margin_pct,
            r.volatility,
            r.forecaster,
            r.strategy,
        )
    };
    let mut keys = Vec::new();
    for r in rows {
        if !keys.contains(&key(r)) {
            keys.push(key(r));
        }
    }
    let mut out: Vec<Cell> = keys
        .iter()
        .map(|k| {
            let runs: Vec<&EphemeralRow> = rows.iter().filter(|r| key(r) == *k).collect();
            let planned: Vec<&&EphemeralRow> = runs.iter().filter(|r| !r.rejected).collect();
            let times: Vec<f64> = planned
                .iter()
                .map(|r| r.job_time_s)
                .filter(|t| t.is_finite())
                .collect();
            let relaunched: Vec<f64> = planned.iter().map(|r| r.relaunched_pct).collect();
            let remote: Vec<f64> = planned.iter().map(|r| r.remote_pct).collect();
            let plans = !is_cuckoo(k.5) && !planned.is_empty();
            let plan_stat = |f: fn(&EphemeralRow) -> f64| {
                plans.then(|| stat(planned.iter().map(|r| f(r)).collect(), 0.5))
            };
            Cell {
                dc: k.0,
                chunk_mib: k.1,
                safety_margin_pct: k.2,
                volatility: k.3,
                forecaster: k.4,
                strategy: k.5,
                runs: runs.len(),
                rejected: runs.len() - planned.len(),
                job_time_s: stat(times.clone(), 0.5),
                job_time_min_s: stat(times.clone(), 0.0),
                job_time_max_s: stat(times, 1.0),
                relaunched_pct: stat(relaunched.clone(), 0.5),
                relaunched_min_pct: stat(relaunched.clone(), 0.0),
                relaunched_max_pct: stat(relaunched.clone(), 1.0),
                relaunched_p98_pct: stat(relaunched, 0.98),
                remote_pct: stat(remote, 0.5),
                plan_makespan_s: plan_stat(|r| f64::from(r.plan_makespan_s)),
                plan_job_time_s: plan_stat(|r| r.plan_job_time_s),
                vs_cuckoo_pct: None,
            }
        })
        .collect();
    for i in 0..out.len() {
        let c = &out[i];
        let cuckoo = out.iter().find(|o| {
            o.strategy == "cuckoo"
                && (
                    o.dc,
                    o.chunk_mib,
                    o.safety_margin_pct,
                    o.volatility,
                    o.forecaster,
                ) == (
                    c.dc,
                    c.chunk_mib,
                    c.safety_margin_pct,
                    c.volatility,
                    c.forecaster,
                )
        });
        let vs = cuckoo
            .filter(|o| o.job_time_s.is_finite() && c.job_time_s.is_finite())
            .map(|o| 100.0 * (1.0 - c.job_time_s / o.job_time_s));
        out[i].vs_cuckoo_pct = vs;
    }
    out
}

/// The job-time improvement of a strategy over Cuckoo for one data centre and chunk
/// size, as the paper reads Fig. 3 (§IV-B1, spec A18): each strategy's smallest median
/// over the safety margins, improvement = 1 − strategy / Cuckoo.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Improvement {
    /// Data centre.
    pub dc: DataCentre,
    /// Chunk size, MiB.
    pub chunk_mib: u32,
    /// The forecaster both ran with.
    pub forecaster: ForecasterKind,
    /// The strategy compared with Cuckoo.
    pub strategy: &'static str,
    /// Cuckoo's smallest median job time over the margins, seconds.
    pub cuckoo_s: f64,
    /// The strategy's smallest median job time over the margins, seconds.
    pub strategy_s: f64,
    /// 1 − strategy_s / cuckoo_s, percent.
    pub improvement_pct: f64,
    /// The paper's value (§IV-B1), when it gives one for this data centre and chunk size.
    pub paper_pct: Option<f64>,
}

/// Paper 001 §IV-B1: Salamander's job-time improvement over Cuckoo, percent.
pub fn paper_improvement(dc: DataCentre, chunk_mib: u32) -> Option<f64> {
    match (dc, chunk_mib) {
        (DataCentre::Pc1, 128) => Some(9.3),
        (DataCentre::Pc2, 128) => Some(11.1),
        (DataCentre::University, 128) => Some(8.8),
        (DataCentre::Pc1, 256) => Some(30.5),
        (DataCentre::Pc2, 256) => Some(5.2),
        (DataCentre::University, 256) => Some(47.6),
        _ => None,
    }
}

/// One [`Improvement`] per (data centre, chunk size, forecaster, non-Cuckoo strategy) in
/// `cells`, on the primary workload as recorded (volatility 1), as the paper ran it.
pub fn improvements(cells: &[Cell]) -> Vec<Improvement> {
    let min_median = |dc, chunk, forecaster, strategy: &str| {
        cells
            .iter()
            .filter(|c| c.dc == dc && c.chunk_mib == chunk && c.strategy == strategy)
            .filter(|c| c.forecaster == forecaster)
            .filter(|c| c.volatility == 1.0)
            .map(|c| c.job_time_s)
            .filter(|t| t.is_finite())
            .min_by(f64::total_cmp)
    };
    let mut out: Vec<Improvement> = Vec::new();
    for c in cells {
        if c.strategy == "cuckoo"
            || out.iter().any(|o| {
                (o.dc, o.chunk_mib, o.forecaster, o.strategy)
                    == (c.dc, c.chunk_mib, c.forecaster, c.strategy)
            })
        {
            continue;
        }
        let (Some(cuckoo_s), Some(strategy_s)) = (
            min_median(c.dc, c.chunk_mib, c.forecaster, "cuckoo"),
            min_median(c.dc, c.chunk_mib, c.forecaster, c.strategy),
        ) else {
            continue;
        };
        out.push(Improvement {
            dc: c.dc,
            chunk_mib: c.chunk_mib,
            forecaster: c.forecaster,
            strategy: c.strategy,
            cuckoo_s,
            strategy_s,
            improvement_pct: 100.0 * (1.0 - strategy_s / cuckoo_s),
            paper_pct: paper_improvement(c.dc, c.chunk_mib),
        });
    }
    out
}
