//! The synthetic workload of paper 000 §6.1.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp, Poisson};

use frugal_core::Reading;
use frugal_core::job::{Job, JobKind};
use frugal_core::resources::Resources;

/// Load level of paper 000 §6.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Mean inter-arrival 100 s; deadline slack 1000 s.
    Light,
    /// Mean inter-arrival 5 s; deadline slack 5000 s.
    High,
}

/// Parameters of [`synthetic`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyntheticConfig {
    /// Load level.
    pub load: Load,
    /// [`Reading::PaperText`]: paper 000 §6.1 as written — exponential gaps of mean 100 s
    /// (light) or 5 s (high); T_C^L ~ Exp(0.01), at least 1 s; deadline = arrival + T_C^L +
    /// 1000 s (light) or 5000 s (high); cores U{1..6}, memory U{1..10} GiB, executors
    /// U{1..8}. [`Reading::AuthorsCode`]: the workloads the authors published with their
    /// simulator (RM-Simulator at 8c959db, `workload_jobs_{low,high}_load.csv`, generated
    /// by `Workload/SimpleGen.java`): Poisson-distributed whole-second gaps of mean 50 s
    /// (light) or 25 s (high); T_C^L = ⌊10 + Exp(0.01)⌋ s; deadline = arrival + T_C^L +
    /// U{0..299} s; cores U{1..6}, memory U{4..12} GiB, executors U{1..8} — each checked
    /// against the 1,000-job files (gap mean 49.7 s / 25.2 s with variance ≈ mean, slack
    /// 0–299 s, memory 4–12 GiB). The deadline figures (Fig. 4) move with the slack. Both
    /// readings draw a job's executors, cores and memory independently, so about 8 % of the
    /// jobs fit on neither site of the small-scale cluster, where the files have none
    /// (`tests/it/authors_workloads.rs`); the files themselves are read by
    /// [`super::read_jobs_csv`].
    pub reading: Reading,
    /// Number of jobs.
    pub jobs: usize,
    /// T_C^H = T_C^L · (1 + hybrid_penalty); default 0.3.
    pub hybrid_penalty: f64,
    /// Seed.
    pub seed: u64,
}

/// Paper 000 §6.1's workload in the chosen [`Reading`]; kinds uniform over the
/// three classes (paper 002 §7.1; they matter only with a kind penalty). First arrival at
/// the first gap. Draws per job, in this order: gap, T_C^L, (slack,) kind, executors,
/// cores, memory — the paper-text order is the one every earlier release used, so its
/// workloads are unchanged. T_C^H = (1 + `hybrid_penalty`) · T_C^L.
pub fn synthetic(cfg: &SyntheticConfig) -> Vec<Job> {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let duration = Exp::<f64>::new(0.01).expect("positive rate");
    let mut t = 0.0;
    (0..cfg.jobs)
        .map(|i| {
            let (gap, t_local, slack, memory_gib) = match cfg.reading {
                Reading::PaperText => {
                    let (mean_gap, slack) = match cfg.load {
                        Load::Light => (100.0, 1000.0),
                        Load::High => (5.0, 5000.0),
                    };
                    let gap = Exp::<f64>::new(1.0 / mean_gap).expect("positive rate");
                    let gap = gap.sample(&mut rng);
                    let t_local: f64 = duration.sample(&mut rng).max(1.0);
                    (gap, t_local, slack, 1..=10)
                }
                Reading::AuthorsCode => {
                    let mean_gap = match cfg.load {
                        Load::Light => 50.0,
                        Load::High => 25.0,
                    };
                    let gap = Poisson::<f64>::new(mean_gap).expect("positive mean");
                    let gap = gap.sample(&mut rng);
                    let t_local = (10.0 + duration.sample(&mut rng)).floor();
                    let slack = f64::from(rng.random_range(0..300u32));
                    (gap, t_local, slack, 4..=12)
                }
            };
            t += gap;
            let kind = [
                JobKind::CpuBound,
                JobKind::MemoryBound,
                JobKind::NetworkBound,
            ][rng.random_range(0..3)];
            Job {
                id: format!("job{i}"),
                kind,
                executors: rng.random_range(1..=8),
                executor_demand: Resources::from_gib(
                    rng.random_range(1..=6),
                    rng.random_range(memory_gib),
                ),
                arrival: t,
                deadline: Some(t + t_local + slack),
                t_local,
                t_hybrid: t_local * (1.0 + cfg.hybrid_penalty),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_match_the_paper_setup() {
        let jobs = synthetic(&SyntheticConfig {
            load: Load::High,
            reading: Reading::PaperText,
            jobs: 20_000,
            hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
            seed: 7,
        });
        let n = jobs.len() as f64;
        let mean_gap = jobs.last().unwrap().arrival / n;
        assert!((mean_gap - 5.0).abs() < 0.2, "{mean_gap}");
        let mean_tc = jobs.iter().map(|j| j.t_local).sum::<f64>() / n;
        assert!((mean_tc - 100.0).abs() < 4.0, "{mean_tc}");
        assert!(jobs.iter().all(|j| (1..=8).contains(&j.executors)
            && (1..=6).contains(&j.executor_demand.cores())
            && (1..=10).contains(&(j.executor_demand.memory_mib() / 1024))));
        assert_eq!(
            jobs,
            synthetic(&SyntheticConfig {
                load: Load::High,
                reading: Reading::PaperText,
                jobs: 20_000,
                hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
                seed: 7
            })
        );
    }
}
