//! The job generator of paper 002 §7.1: BigDataBench jobs with uniformly drawn
//! requirements at the arrival times of an hour of the Facebook FB-2009 trace.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_core::job::{Job, JobKind};
use frugal_core::resources::Resources;

use super::swim::{EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, SwimHour, parse_swim, select_hour};

/// The arrival patterns of paper 002 §7.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// "Normal": 50 jobs arriving in an hour — the first 50 jobs of an FB-2009 hour
    /// (hour 0: 50 jobs in 46 min).
    Normal,
    /// "Burst": 100 jobs arriving in about 10 minutes — the first 100 jobs of a busy
    /// FB-2009 hour (hour 6: 100 jobs in 9 min).
    Burst,
}

frugal_core::choice! {
    impl Choice for Pattern {
        Normal = "normal": "50 jobs: the arrivals of FB-2009 hour 0's first 50 jobs (46 min)",
        Burst = "burst": "100 jobs: the arrivals of FB-2009 hour 6's first 100 jobs (9 min)",
    }
}

impl Pattern {
    /// Jobs per episode: 50 or 100.
    pub fn jobs(self) -> usize {
        match self {
            Pattern::Normal => 50,
            Pattern::Burst => 100,
        }
    }

    /// The FB-2009 hour whose arrivals make the pattern's evaluation episode (0 or 6).
    pub fn eval_hour(self) -> u32 {
        match self {
            Pattern::Normal => 0,
            Pattern::Burst => 6,
        }
    }

    /// The other hours of FB-2009 day 0 with the pattern's shape, for training on episodes
    /// other than the evaluation one. Burst: the hours whose first 100 jobs arrive within
    /// 20 minutes (7, 14, 20, 23).
    pub fn train_hours(self) -> &'static [u32] {
        match self {
            Pattern::Normal => &[1, 2, 3, 5, 8, 9, 10, 12, 13, 15, 16, 17, 18, 21, 22],
            Pattern::Burst => &[7, 14, 20, 23],
        }
    }
}

/// Run time T_C^L (seconds, inclusive integer range) of each job kind. Paper 002 §7.1
/// profiles WordCount (CPU-bound), Sort (memory-bound) and PageRank (network-bound) on a
/// real cluster but does not print the profiles; these are the ranges of the run times in
/// the authors' published job files (RM_DeepRL, `input/jobs.csv` and `jobs_burst.csv`:
/// WordCount 34–74 s, Sort 29–46 s, PageRank 100–250 s). The files themselves carry no
/// licence and are not shipped.
pub const RUN_TIME_S: [(JobKind, u32, u32); 3] = [
    (JobKind::CpuBound, 34, 74),
    (JobKind::MemoryBound, 29, 46),
    (JobKind::NetworkBound, 100, 250),
];

/// Paper 002 §7.1's episode for `pattern` at the arrivals of FB-2009 `hour`, drawn with
/// `seed`: per job, in arrival order, the kind uniform over the three, executor cores
/// U{1..6}, executor memory U{1..10} GiB, executors U{1..8}, and T_C^L uniform over the
/// kind's [`RUN_TIME_S`] range (whole seconds). No deadlines; T_C^H = T_C^L (the paper's
/// cluster is one cloud site). The draws of different hours are independent (the hour
/// selects the generator's stream), so training hours never repeat the evaluation
/// episode's jobs. Ids are `p002-h<hour>-<k>`.
///
/// # Panics
/// If `hour` ≥ 24 or the embedded trace has fewer jobs in it than the pattern needs
/// (neither happens for the pattern's own hours).
pub fn paper002_jobs(pattern: Pattern, hour: u32, seed: u64) -> Vec<Job> {
    assert!(hour < 24, "hour {hour} is not an hour of the day");
    let records =
        parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME).expect("the embedded trace parses");
    let arrivals = select_hour(&records, SwimHour::Hour(hour), Some(pattern.jobs()));
    assert_eq!(
        arrivals.len(),
        pattern.jobs(),
        "FB-2009 hour {hour} has fewer than {} jobs",
        pattern.jobs()
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(u64::from(hour));
    arrivals
        .iter()
        .enumerate()
        .map(|(k, (arrival, _))| {
            let (kind, lo, hi) = RUN_TIME_S[rng.random_range(0..3)];
            let executor_demand =
                Resources::from_gib(rng.random_range(1..=6), rng.random_range(1..=10));
            let executors = rng.random_range(1..=8);
            let t_local = f64::from(rng.random_range(lo..=hi));
            Job {
                id: format!("p002-h{hour}-{k}"),
                kind,
                executors,
                executor_demand,
                arrival: *arrival,
                deadline: None,
                t_local,
                t_hybrid: t_local,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episodes_follow_the_paper_ranges_and_the_trace_arrivals() {
        for pattern in [Pattern::Normal, Pattern::Burst] {
            let jobs = paper002_jobs(pattern, pattern.eval_hour(), 1);
            assert_eq!(jobs.len(), pattern.jobs());
            assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
            let span = jobs.last().unwrap().arrival - jobs[0].arrival;
            match pattern {
                Pattern::Normal => assert!((2000.0..3600.0).contains(&span), "{span}"),
                Pattern::Burst => assert!(span < 660.0, "{span}"),
            }
            for j in &jobs {
                assert!((1..=8).contains(&j.executors));
                assert!((1..=6).contains(&j.executor_demand.cores()));
                let gib = j.executor_demand.memory_gib();
                assert!((1.0..=10.0).contains(&gib) && gib.fract() == 0.0);
                let (_, lo, hi) = RUN_TIME_S.iter().find(|(k, _, _)| *k == j.kind).unwrap();
                assert!((f64::from(*lo)..=f64::from(*hi)).contains(&j.t_local));
                assert_eq!(j.deadline, None);
            }
        }
    }

    #[test]
    fn a_seed_gives_one_episode_and_hours_draw_apart() {
        let a = paper002_jobs(Pattern::Burst, 6, 3);
        assert_eq!(a, paper002_jobs(Pattern::Burst, 6, 3));
        assert_ne!(a, paper002_jobs(Pattern::Burst, 6, 4));
        let other = paper002_jobs(Pattern::Burst, 7, 3);
        let specs = |jobs: &[Job]| -> Vec<(JobKind, u32)> {
            jobs.iter().map(|j| (j.kind, j.executors)).collect()
        };
        assert_ne!(specs(&a), specs(&other));
    }

    #[test]
    fn kinds_and_sizes_are_uniform() {
        let jobs: Vec<Job> = (0..40)
            .flat_map(|s| paper002_jobs(Pattern::Burst, 6, s))
            .collect();
        let n = jobs.len() as f64;
        for kind in [
            JobKind::CpuBound,
            JobKind::MemoryBound,
            JobKind::NetworkBound,
        ] {
            let share = jobs.iter().filter(|j| j.kind == kind).count() as f64 / n;
            assert!((share - 1.0 / 3.0).abs() < 0.03, "{kind:?}: {share}");
        }
        let mean_e = jobs.iter().map(|j| f64::from(j.executors)).sum::<f64>() / n;
        assert!((mean_e - 4.5).abs() < 0.15, "{mean_e}");
    }
}
