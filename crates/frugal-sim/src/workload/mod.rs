//! Workloads: the SWIM Facebook traces, SWF logs (Parallel Workloads Archive), the
//! Alibaba GPU cluster trace of 2023 (with its cluster), the paper 000 synthetic generator,
//! the paper 002 job generator and a CSV job format for users' own workloads.

mod alibaba;
mod csv_jobs;
mod paper002;
mod rm_simulator;
mod swf;
mod swim;
mod synthetic;
mod vm_events;

pub use alibaba::{
    AlibabaJobs, GIB_PER_HOUR, VCPU_PER_HOUR, alibaba_cluster, alibaba_cluster_toml, gpu_per_hour,
    map_alibaba, node_price_per_hour,
};
pub use csv_jobs::{
    CSV_HEADER, CsvJobs, jobs_csv_label, read_jobs_csv, write_jobs_csv, write_replay_csv,
};
pub use paper002::{Pattern, RUN_TIME_S, paper002_jobs};
pub use rm_simulator::RM_SIMULATOR_HEADER;
pub use swf::{SwfJobs, map_swf};
pub use swim::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, SwimHour, SwimRecord, map_swim, parse_swim,
    replicate_days, select_hour,
};
pub use synthetic::{Load, SyntheticConfig, synthetic};
pub use vm_events::{parse_vm_events, read_vm_events, write_vm_events};

use frugal_core::job::{Job, JobKind};
use frugal_core::resources::Resources;
use rand::RngExt;

/// How trace records become jobs' deadlines and cross-site slowdown ([`map_swim`],
/// [`map_swf`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceMapping {
    /// T_C^H = T_C^L · (1 + hybrid_penalty). Default 0.3 (paper 000 §6.1).
    pub hybrid_penalty: f64,
    /// Share of jobs given a deadline, [0, 1]. Default 0.5 (paper 004 §6.4 mixes
    /// deadline-constrained and regular jobs).
    pub deadline_share: f64,
    /// Relative deadline as a multiple of T_C^L. Default 2.
    pub deadline_factor: f64,
    /// Seed of the choice of deadline jobs.
    pub seed: u64,
    /// SWIM jobs: every job is this application (paper 004 §6.1.2 runs a WordCount, a
    /// Sort and a PageRank workload besides the mixed one); `None`: each job's kind
    /// from its shuffle/input ratio (the mixed workload, [`map_swim`]).
    pub application: Option<JobKind>,
}

impl Default for TraceMapping {
    fn default() -> Self {
        TraceMapping {
            hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
            deadline_share: 0.5,
            deadline_factor: 2.0,
            seed: 1,
            application: None,
        }
    }
}

impl TraceMapping {
    /// The deadline of a trace job arriving at `arrival` with T_C^L = `t_local` seconds:
    /// with probability `deadline_share` (one draw from `rng`, taken for every job so that
    /// the choice of one job does not shift the others'), `arrival + deadline_factor ·
    /// t_local`; otherwise none.
    pub fn draw_deadline(
        &self,
        rng: &mut impl rand::Rng,
        arrival: f64,
        t_local: f64,
    ) -> Option<f64> {
        (rng.random::<f64>() < self.deadline_share)
            .then_some(arrival + self.deadline_factor * t_local)
    }

    /// A batch trace's job as frugal runs it: CPU-bound, `executors` × `executor_demand`,
    /// arriving at `arrival` with T_C^L = `t_local` seconds, its deadline drawn by
    /// [`Self::draw_deadline`] and T_C^H = T_C^L · (1 + `hybrid_penalty`).
    pub fn cpu_bound_job(
        &self,
        rng: &mut impl rand::Rng,
        id: String,
        (executors, executor_demand): (u32, Resources),
        arrival: f64,
        t_local: f64,
    ) -> Job {
        Job {
            id,
            kind: JobKind::CpuBound,
            executors,
            executor_demand,
            arrival,
            deadline: self.draw_deadline(rng, arrival, t_local),
            t_local,
            t_hybrid: t_local * (1.0 + self.hybrid_penalty),
        }
    }
}

/// `k` copies of every job, each at its original's arrival: the k-fold arrival rate for
/// a k-fold cluster ([`frugal_core::config::ClusterConfig::scaled`]), so that load per
/// VM stays that of the original pair — the documented way to build 10⁵–10⁶-job runs
/// on 10⁴-VM clusters (`frugal simulate --job-copies`, `frugal bench --sections scale`).
/// Copy i ≥ 1 of job `x` is named `x#i` and directly follows the copies before it, so
/// arrival order (and every tie-break by position) is kept.
pub fn copies(jobs: &[Job], k: u32) -> Vec<Job> {
    let mut out = Vec::with_capacity(jobs.len() * k as usize);
    for j in jobs {
        out.push(j.clone());
        out.extend((1..k).map(|i| Job {
            id: format!("{}#{i}", j.id),
            ..j.clone()
        }));
    }
    out
}

/// A named list of jobs, sorted by arrival.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// Short label for tables, e.g. `FB-2009 hour 0 (first 50 jobs)`.
    pub name: String,
    /// Jobs, by arrival.
    pub jobs: Vec<Job>,
}

/// Invalid workload input: names the file, the line (1-based) and the field.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{file}:{line}: field `{field}`: {message}")]
pub struct WorkloadError {
    /// File name.
    pub file: String,
    /// 1-based line number (0 when the file as a whole is at fault).
    pub line: u64,
    /// Column name.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl WorkloadError {
    pub(crate) fn new(file: &str, line: u64, field: &str, message: impl Into<String>) -> Self {
        WorkloadError {
            file: file.to_string(),
            line,
            field: field.to_string(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_core::Reading;

    #[test]
    fn copies_follow_their_original() {
        let jobs = synthetic(&SyntheticConfig {
            load: Load::High,
            reading: Reading::PaperText,
            jobs: 3,
            hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
            seed: 1,
        });
        let c = copies(&jobs, 3);
        let ids: Vec<&str> = c.iter().map(|j| j.id.as_str()).collect();
        let (a, b, d) = (&jobs[0].id, &jobs[1].id, &jobs[2].id);
        let want = [
            a.clone(),
            format!("{a}#1"),
            format!("{a}#2"),
            b.clone(),
            format!("{b}#1"),
            format!("{b}#2"),
            d.clone(),
            format!("{d}#1"),
            format!("{d}#2"),
        ];
        assert_eq!(ids, want.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            c.chunks(3)
                .zip(&jobs)
                .all(|(g, j)| g.iter().all(|x| x.arrival == j.arrival
                    && x.executor_demand == j.executor_demand
                    && x.deadline == j.deadline))
        );
        assert_eq!(copies(&jobs, 1), jobs);
    }
}
