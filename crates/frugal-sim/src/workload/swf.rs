//! SWF logs (Parallel Workloads Archive) as Spark-like jobs, so `frugal simulate` can
//! replay the HPC and bag-of-tasks logs this field's traces come in.
//!
//! | quantity | rule |
//! | --- | --- |
//! | kept records | submit time, run time > 0 and allocated processors > 0 all known; the others are counted by reason ([`SwfJobs`]) |
//! | id | `job<job number>` |
//! | arrival | submit time − the first kept record's submit time, s (records sorted by submit time, stable) |
//! | kind | `cpu_bound` (SWF has no application class) |
//! | executors E | allocated processors (one executor per processor) |
//! | executor size | 1 core and the per-processor memory (used, else requested) rounded up to whole GiB, at least 1; 1 GiB (Spark's default executor memory) when the log has neither |
//! | T_C^L | the run time, s |
//! | T_C^H | `T_C^L · (1 + hybrid_penalty)` |
//! | deadline | with probability `deadline_share` (seeded), `arrival + deadline_factor · T_C^L` |
//!
//! A job wider than the cluster is kept: the simulator reports it as never run.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_core::job::{Job, MAX_EXECUTORS, MAX_SECONDS};
use frugal_core::resources::Resources;
use frugal_traces::swf::SwfLog;

use super::TraceMapping;

/// The jobs of a log and the records left out.
#[derive(Clone, Debug, PartialEq)]
pub struct SwfJobs {
    /// Jobs by arrival.
    pub jobs: Vec<Job>,
    /// Records without a submit time.
    pub dropped_submit_time: usize,
    /// Records without a positive run time.
    pub dropped_run_time: usize,
    /// Records without a positive processor count.
    pub dropped_processors: usize,
    /// Records whose run time or processor count exceeds frugal's job limits.
    pub dropped_too_large: usize,
}

/// Maps the first `limit` usable records of `log` (all if `None`) to jobs (rules in the
/// module documentation).
pub fn map_swf(log: &SwfLog, limit: Option<usize>, m: &TraceMapping) -> SwfJobs {
    let mut out = SwfJobs {
        jobs: Vec::new(),
        dropped_submit_time: 0,
        dropped_run_time: 0,
        dropped_processors: 0,
        dropped_too_large: 0,
    };
    let mut kept = Vec::new();
    for r in &log.jobs {
        match (r.submit_time, r.run_time, r.allocated_processors) {
            (None, ..) => out.dropped_submit_time += 1,
            (_, None, _) | (_, Some(..=0.0), _) => out.dropped_run_time += 1,
            (_, _, None | Some(0)) => out.dropped_processors += 1,
            (Some(_), Some(run), Some(p)) if run > MAX_SECONDS || p > u64::from(MAX_EXECUTORS) => {
                out.dropped_too_large += 1
            }
            (Some(submit), Some(run), Some(p)) => kept.push((submit, run, p as u32, r)),
        }
    }
    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
    kept.truncate(limit.unwrap_or(usize::MAX));
    let start = kept.first().map_or(0.0, |k| k.0);
    let mut rng = ChaCha8Rng::seed_from_u64(m.seed);
    for (submit, run, procs, r) in kept {
        let kb = r.used_memory_kb.or(r.requested_memory_kb);
        let gib = kb.map_or(1, |kb| ((kb / 1_048_576.0).ceil() as u32).clamp(1, 1 << 20));
        let arrival = submit - start;
        let id = format!("job{}", r.job_number);
        let size = (procs, Resources::from_gib(1, gib));
        out.jobs
            .push(m.cpu_bound_job(&mut rng, id, size, arrival, run));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_traces::swf::parse;

    #[test]
    fn records_become_jobs_by_the_documented_rules() {
        // Job 3 was submitted first; job 2 has no run time; job 4 no processor count;
        // job 5 no submit time.
        let log = parse(
            "1 100 -1 50 4 -1 2097152 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n\
             2 110 -1 -1 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n\
             3 40 -1 10 2 -1 -1 -1 -1 3000000 1 1 1 -1 -1 -1 -1 -1\n\
             4 120 -1 10 -1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n\
             5 -1 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n\
             6 130 -1 7 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
            "t.swf",
        )
        .unwrap();
        let m = TraceMapping {
            deadline_share: 1.0,
            deadline_factor: 3.0,
            ..Default::default()
        };
        let out = map_swf(&log, None, &m);
        assert_eq!(
            (
                out.dropped_submit_time,
                out.dropped_run_time,
                out.dropped_processors
            ),
            (1, 1, 1)
        );
        let ids: Vec<&str> = out.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["job3", "job1", "job6"]);
        let j3 = &out.jobs[0];
        // Requested 3,000,000 KB per processor → 3 GiB (2.86 rounded up); arrival 0.
        assert_eq!(
            (j3.executors, j3.executor_demand, j3.arrival),
            (2, Resources::from_gib(1, 3), 0.0)
        );
        assert_eq!((j3.t_local, j3.deadline), (10.0, Some(30.0)));
        let j1 = &out.jobs[1];
        // Used 2 GiB per processor; submitted 60 s after job 3.
        assert_eq!(
            (j1.executor_demand, j1.arrival, j1.t_hybrid),
            (Resources::from_gib(1, 2), 60.0, 65.0)
        );
        assert_eq!(out.jobs[2].executor_demand, Resources::from_gib(1, 1));
        assert_eq!(map_swf(&log, Some(2), &m).jobs.len(), 2);
    }
}
