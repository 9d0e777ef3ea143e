//! The β-weighted episodic reward of paper 002 Eq. 7–14.

use frugal_core::cluster::Cluster;
use frugal_core::job::Job;
use frugal_sim::RunResult;

/// Key performance indicators of an episode (also reported mid-episode).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpisodeKpis {
    /// Simulated time, seconds.
    pub time_s: f64,
    /// Dollars billed so far (at the end: total cost, Eq. 4).
    pub cost: f64,
    /// Jobs whose executors are all placed.
    pub jobs_scheduled: usize,
    /// Jobs in the episode.
    pub jobs_total: usize,
    /// Mean run time (finish − start) of the jobs, seconds (Eq. 5; at the end only).
    pub mean_duration_s: f64,
    /// Mean job completion time (finish − arrival), seconds (at the end only).
    pub mean_jct_s: f64,
    /// Deadline-met percentage (at the end only; `None` without deadline jobs).
    pub deadline_met_pct: Option<f64>,
}

/// R_epi of paper 002 Eq. 14 for a completed episode:
/// R_fixed · (β·(1 − Cost/Cost_max) + (1 − β)·(1 − (Avg_T − Avg_Tmin)/(Avg_Tmax − Avg_Tmin))).
///
/// Cost_max (Eq. 7) = Σ_jobs T_max · Σ_VMs price, with T_max = T_C^H·(1 + kind penalty)
/// (T_C^L·(1 + kind penalty) without a local site), the run time of the worst placement;
/// Avg_Tmin (Eq. 10) and Avg_Tmax (Eq. 11) are the means of T_C^L and T_max; Avg_T (Eq. 5)
/// the mean run time achieved. Both normalised terms are clamped to [0, 1].
pub fn episodic_reward(
    result: &RunResult,
    jobs: &[Job],
    cluster: &Cluster,
    kind_penalty: f64,
    beta: f64,
    r_fixed: f64,
) -> f64 {
    let n = jobs.len().max(1) as f64;
    let t_max = |j: &Job| {
        let base = if cluster.has_local_site {
            j.t_hybrid
        } else {
            j.t_local
        };
        base * (1.0 + kind_penalty)
    };
    let price: f64 = cluster.vms.iter().map(|v| v.price_per_second).sum();
    let cost_max: f64 = jobs.iter().map(t_max).sum::<f64>() * price;
    let cost_term = if cost_max > 0.0 {
        1.0 - (result.summary.total_cost / cost_max).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let avg_min = jobs.iter().map(|j| j.t_local).sum::<f64>() / n;
    let avg_max = jobs.iter().map(t_max).sum::<f64>() / n;
    let avg = mean_duration(result);
    let time_term = if avg_max > avg_min {
        1.0 - ((avg - avg_min) / (avg_max - avg_min)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    r_fixed * (beta * cost_term + (1.0 - beta) * time_term)
}

/// Mean finish − start of the started jobs, seconds.
pub(crate) fn mean_duration(result: &RunResult) -> f64 {
    let d: Vec<f64> = result
        .jobs
        .iter()
        .filter_map(|r| Some(r.finish? - r.start?))
        .collect();
    if d.is_empty() {
        0.0
    } else {
        d.iter().sum::<f64>() / d.len() as f64
    }
}
