//! Cuckoo, the baseline (paper 001 §II-C, §IV-B1): prediction-weighted round-robin data
//! placement with 3 replicas, and Hadoop's locality-favouring slot scheduler.
//!
//! Placement weighs host k by its forecast ephemeral CPU over the window, Σ_t
//! C(k, CPU)·max(0, 1 − U(k, CPU, t) − S) — CPU only, RAM is ignored (§IV-B1). Chunks go
//! round-robin by those weights ("smooth" weighted round-robin: each pick adds every
//! eligible host's weight to its credit, takes the host with the most credit — lowest
//! index on ties — and charges it the eligible total), and a chunk's 2nd and 3rd replicas
//! are the next picks among the hosts that do not already hold it (spec §1.12).
//!
//! Task assignment follows Hadoop 1's default `JobQueueTaskScheduler`: at a heartbeat a
//! TaskTracker may run up to ⌈load × slots⌉ maps, where load = unfinished maps / map slots
//! of the cluster (so a short tail spreads over the hosts instead of filling the first
//! one), and is given at most one reduce per heartbeat under the same cap
//! ([`tracker_capacity`]).

use crate::job::Job;

/// Replicas per chunk (HDFS's default, §IV-B1).
pub const REPLICAS: usize = 3;

/// The hosts holding each map's chunk, first replica first: `replicas` per chunk (at most
/// the number of hosts) on hosts of weights `weight`.
pub fn place_chunks(job: &Job, weight: &[f64], replicas: usize) -> Vec<Vec<usize>> {
    let n = weight.len();
    let mut credit = vec![0.0; n];
    job.maps()
        .map(|_| {
            let mut holders: Vec<usize> = Vec::with_capacity(replicas);
            for _ in 0..replicas.min(n) {
                let eligible: Vec<usize> = (0..n).filter(|k| !holders.contains(k)).collect();
                let total: f64 = eligible.iter().map(|&k| weight[k]).sum();
                for &k in &eligible {
                    credit[k] += weight[k];
                }
                let pick = eligible
                    .iter()
                    .copied()
                    .max_by(|&a, &b| credit[a].total_cmp(&credit[b]).then(b.cmp(&a)))
                    .expect("at least one host");
                credit[pick] -= total;
                holders.push(pick);
            }
            holders
        })
        .collect()
}

/// Hadoop's choice for a host with a free slot: the lowest-numbered pending task whose
/// input has a replica on `host` (local), else the lowest-numbered pending task (remote).
/// `pending` is in ascending order.
pub fn pick_task(pending: &[usize], holders: impl Fn(usize) -> bool) -> Option<usize> {
    pending
        .iter()
        .position(|&t| holders(t))
        .or(if pending.is_empty() { None } else { Some(0) })
}

/// Hadoop 1's cap on the tasks of one kind a TaskTracker of `slots` slots may hold:
/// ⌈`unfinished` / `cluster_slots` × `slots`⌉, at most `slots`.
pub fn tracker_capacity(unfinished: usize, cluster_slots: usize, slots: usize) -> usize {
    if cluster_slots == 0 {
        return 0;
    }
    (unfinished * slots).div_ceil(cluster_slots).min(slots)
}
