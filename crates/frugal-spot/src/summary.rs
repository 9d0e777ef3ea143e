//! The paper's aggregates of many windows: Table 3's hours and spot utilisation, savings
//! against on-demand (§6.1: 1 − mean cost / mean on-demand cost), and the gap to the
//! omniscient optimum with the factor by which one policy closes another's (§6.4), with a
//! bootstrap interval.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::experiment::SpotRow;

/// One policy over every window of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySummary {
    /// Where the traces came from.
    pub traces: String,
    /// The policy.
    pub policy: String,
    /// Windows run.
    pub windows: usize,
    /// Mean bill, dollars.
    pub cost_usd: f64,
    /// 100 · (1 − mean cost / mean on-demand-only cost).
    pub savings_pct: f64,
    /// Mean and standard deviation of the progress made on on-demand, hours.
    pub on_demand_work_h: (f64, f64),
    /// Mean and standard deviation of the progress made on spot, hours.
    pub spot_work_h: (f64, f64),
    /// 100 · mean spot progress / the omniscient policy's (Table 3's spot utilisation),
    /// when it ran.
    pub spot_utilisation_pct: Option<f64>,
    /// Percent of windows finished by the deadline.
    pub deadline_met_pct: f64,
    /// Mean and 75th percentile of the gap to the omniscient optimum, percent.
    pub gap_pct: Option<(f64, f64)>,
}

/// A statistic of the gap over windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    /// The mean ("average case", Fig. 12).
    Mean,
    /// The 75th percentile ("bad case", Fig. 12).
    P75,
}

/// A ratio with its 95 % bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// The ratio on all windows.
    pub value: f64,
    /// 2.5th percentile of the bootstrap ratios.
    pub low: f64,
    /// 97.5th percentile of the bootstrap ratios.
    pub high: f64,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len().max(1) as f64).sqrt()
}

/// The `q`-quantile of `v` by linear interpolation between order statistics (numpy's
/// default).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let x = q * (s.len() - 1) as f64;
    let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (x - lo as f64)
}

/// One summary per (traces, policy), in the rows' order.
pub fn summarise(rows: &[SpotRow]) -> Vec<PolicySummary> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if !keys.contains(&(&r.traces, &r.policy)) {
            keys.push((&r.traces, &r.policy));
        }
    }
    let of = |traces: &str, policy: &str| -> Vec<&SpotRow> {
        rows.iter()
            .filter(|r| r.traces == traces && r.policy == policy)
            .collect()
    };
    keys.iter()
        .map(|&(traces, policy)| {
            let rs = of(traces, policy);
            let col = |f: fn(&SpotRow) -> f64| rs.iter().map(|r| f(r)).collect::<Vec<_>>();
            let cost = col(|r| r.cost_usd);
            let savings = col(|r| r.savings_pct);
            let od = col(|r| r.on_demand_work_h);
            let spot = col(|r| r.spot_work_h);
            let optimum_spot: Vec<f64> = of(traces, "omniscient")
                .iter()
                .map(|r| r.spot_work_h)
                .collect();
            let gaps: Vec<f64> = rs.iter().filter_map(|r| r.gap_pct).collect();
            PolicySummary {
                traces: traces.to_string(),
                policy: policy.to_string(),
                windows: rs.len(),
                cost_usd: mean(&cost),
                // The baseline's cost is the same on every window of a trace set, so the
                // mean saving is 1 − mean cost / mean baseline cost.
                savings_pct: mean(&savings),
                on_demand_work_h: (mean(&od), sd(&od)),
                spot_work_h: (mean(&spot), sd(&spot)),
                spot_utilisation_pct: (!optimum_spot.is_empty() && mean(&optimum_spot) > 0.0)
                    .then(|| 100.0 * mean(&spot) / mean(&optimum_spot)),
                deadline_met_pct: 100.0 * rs.iter().filter(|r| r.deadline_met).count() as f64
                    / rs.len().max(1) as f64,
                gap_pct: (!gaps.is_empty()).then(|| (mean(&gaps), quantile(&gaps, 0.75))),
            }
        })
        .collect()
}

/// How many times smaller `policy`'s gap to the optimum is than `baseline`'s (§6.4, Fig. 12:
/// "UP closes greedy's gap by about 2×"): statistic(gap of baseline) / statistic(gap of
/// policy) over the windows both ran, with a paired bootstrap over windows (2,000 draws
/// from `seed`). The gap is in **dollars**, as the paper's figure plots it: a window's cost
/// minus the `omniscient` optimum's cost on the same (trace, window); a percentage gap
/// weighs cheap windows more and gives another ratio. `None` without the optimum's rows,
/// or when the policy's gap is 0.
pub fn gap_closure(
    rows: &[SpotRow],
    baseline: &str,
    policy: &str,
    statistic: Statistic,
    seed: u64,
) -> Option<Ratio> {
    let optimum = |r: &SpotRow| {
        rows.iter()
            .find(|o| o.policy == "omniscient" && o.trace == r.trace && o.window == r.window)
            .map(|o| o.cost_usd)
    };
    let gap = |name: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r.policy == name)
            .filter_map(|r| optimum(r).map(|best| r.cost_usd - best))
            .collect()
    };
    let (a, b) = (gap(baseline), gap(policy));
    if a.is_empty() || a.len() != b.len() {
        return None;
    }
    let stat = |v: &[f64]| match statistic {
        Statistic::Mean => mean(v),
        Statistic::P75 => quantile(v, 0.75),
    };
    let ratio = |x: &[f64], y: &[f64]| {
        let d = stat(y);
        (d > 0.0).then(|| stat(x) / d)
    };
    let value = ratio(&a, &b)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = a.len();
    let mut draws = Vec::with_capacity(2000);
    let (mut xa, mut xb) = (vec![0.0; n], vec![0.0; n]);
    for _ in 0..2000 {
        for k in 0..n {
            let i = rng.random_range(0..n);
            xa[k] = a[i];
            xb[k] = b[i];
        }
        draws.push(ratio(&xa, &xb).unwrap_or(f64::INFINITY));
    }
    Some(Ratio {
        value,
        low: quantile(&draws, 0.025),
        high: quantile(&draws, 0.975),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.75), 3.25);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&[5.0], 0.75), 5.0);
    }
}
