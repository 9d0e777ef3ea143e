//! The synthetic workload of paper 000 §6.1.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};

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
    /// Number of jobs.
    pub jobs: usize,
    /// T_C^H = T_C^L · (1 + hybrid_penalty); default 0.3.
    pub hybrid_penalty: f64,
    /// Seed.
    pub seed: u64,
}

/// Paper 000 §6.1: Poisson arrivals (exponential gaps, mean 5 s high / 100 s light),
/// T_C^L ~ Exp(λ = 0.01) (mean 100 s, at least 1 s), deadline = arrival + T_C^L + 1000 s
/// (light) or 5000 s (high), executor cores U{1..6}, memory U{1..10} GiB, executors
/// U{1..8}; kinds uniform over the three classes (paper 002 §7.1). First arrival at the
/// first gap.
pub fn synthetic(cfg: &SyntheticConfig) -> Vec<Job> {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let (mean_gap, slack) = match cfg.load {
        Load::Light => (100.0, 1000.0),
        Load::High => (5.0, 5000.0),
    };
    let gap = Exp::<f64>::new(1.0 / mean_gap).expect("positive rate");
    let duration = Exp::<f64>::new(0.01).expect("positive rate");
    let mut t = 0.0;
    (0..cfg.jobs)
        .map(|i| {
            t += gap.sample(&mut rng);
            let t_local: f64 = duration.sample(&mut rng).max(1.0);
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
                    rng.random_range(1..=10),
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
            jobs: 20_000,
            hybrid_penalty: 0.3,
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
                jobs: 20_000,
                hybrid_penalty: 0.3,
                seed: 7
            })
        );
    }
}
