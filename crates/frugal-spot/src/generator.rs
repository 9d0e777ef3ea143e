//! Synthetic availability traces: the default source, so that every command runs from a
//! clone with nothing beside it (the paper's traces carry no licence and are never shipped).
//!
//! A zone alternates spot lifetimes (available) and waits (unavailable), each drawn from a
//! log-normal distribution with a given mean and coefficient of variation, rounded to whole
//! ticks (at least one). The paper's average-case model (§4.2) smooths spot into a fraction
//! r = lifetime / (lifetime + wait); its traces show lifetimes and waits far more variable
//! than exponential ones (coefficients of variation 1.3–3.3), hence the log-normal. The eight
//! zones of [`ZoneModel::TWO_WEEK`] take their four parameters from the first 1,781 ticks of
//! the paper's 2-week traces (the runs of available and unavailable ticks of each file):
//! summary statistics only, no trace data.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, LogNormal};

use crate::trace::Trace;

/// One synthetic zone's lifetime model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZoneModel {
    /// The zone's name in rows.
    pub name: &'static str,
    /// Mean spot lifetime (a run of available ticks), hours.
    pub lifetime_h: f64,
    /// Coefficient of variation of the lifetime.
    pub lifetime_cv: f64,
    /// Mean wait (a run of unavailable ticks), hours.
    pub wait_h: f64,
    /// Coefficient of variation of the wait.
    pub wait_cv: f64,
}

impl ZoneModel {
    /// Stand-ins for the paper's 2-week set (AWS, 2022-10-26, first 1,781 ticks of 600 s),
    /// zone by zone: the mean and coefficient of variation of its spot lifetimes and waits.
    pub const TWO_WEEK: [ZoneModel; 8] = [
        ZoneModel::new("us-west-2a_k80_1", 6.59, 1.42, 0.33, 1.28),
        ZoneModel::new("us-west-2a_k80_8", 1.83, 1.36, 1.49, 1.62),
        ZoneModel::new("us-west-2a_v100_1", 2.29, 1.84, 1.06, 1.75),
        ZoneModel::new("us-west-2a_v100_8", 0.69, 1.62, 1.39, 2.09),
        ZoneModel::new("us-west-2b_k80_1", 1.70, 2.20, 5.05, 3.30),
        ZoneModel::new("us-west-2b_k80_8", 1.29, 1.44, 0.91, 2.02),
        ZoneModel::new("us-west-2b_v100_1", 1.96, 1.56, 1.34, 1.54),
        ZoneModel::new("us-west-2b_v100_8", 0.58, 1.37, 1.12, 2.55),
    ];

    const fn new(
        name: &'static str,
        lifetime_h: f64,
        lifetime_cv: f64,
        wait_h: f64,
        wait_cv: f64,
    ) -> ZoneModel {
        ZoneModel {
            name,
            lifetime_h,
            lifetime_cv,
            wait_h,
            wait_cv,
        }
    }

    /// A trace of `ticks` ticks of `gap_s` seconds for a gang of `instances`, from `seed`:
    /// available ticks hold N, unavailable ones a uniform draw in 0..N (a partial gang,
    /// which the all-or-none rule counts as unavailable). The first tick is available with
    /// probability lifetime / (lifetime + wait).
    pub fn generate(&self, ticks: usize, gap_s: f64, instances: u32, seed: u64) -> Trace {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let lifetime = log_normal(self.lifetime_h, self.lifetime_cv);
        let wait = log_normal(self.wait_h, self.wait_cv);
        let mut up = rng.random_bool(self.lifetime_h / (self.lifetime_h + self.wait_h));
        let mut values = Vec::with_capacity(ticks);
        while values.len() < ticks {
            let hours = if up {
                lifetime.sample(&mut rng)
            } else {
                wait.sample(&mut rng)
            };
            let run = ((hours * 3600.0 / gap_s).round() as usize).max(1);
            for _ in 0..run.min(ticks - values.len()) {
                values.push(if up {
                    instances
                } else if instances > 1 {
                    rng.random_range(0..instances)
                } else {
                    0
                });
            }
            up = !up;
        }
        Trace {
            name: self.name.to_string(),
            gap_s,
            values,
            prices: None,
        }
    }
}

/// The log-normal with mean `mean` and coefficient of variation `cv`:
/// σ² = ln(1 + cv²), μ = ln(mean) − σ²/2.
fn log_normal(mean: f64, cv: f64) -> LogNormal<f64> {
    let var = (1.0 + cv * cv).ln();
    LogNormal::new(mean.ln() - var / 2.0, var.sqrt()).expect("positive mean and cv")
}

/// The synthetic 2-week set: one trace per zone of [`ZoneModel::TWO_WEEK`], 3,895 ticks of
/// 600 s (as long as the real files), zone i drawn from seed `seed + i`.
pub fn two_week_set(instances: u32, seed: u64) -> Vec<Trace> {
    ZoneModel::TWO_WEEK
        .iter()
        .enumerate()
        .map(|(i, z)| z.generate(3895, 600.0, instances, seed.wrapping_add(i as u64)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_close_to_the_zone_model() {
        let z = ZoneModel::TWO_WEEK[2];
        let a = z.generate(200_000, 600.0, 1, 3);
        assert_eq!(a, z.generate(200_000, 600.0, 1, 3));
        assert_ne!(a.values, z.generate(200_000, 600.0, 1, 4).values);
        // Long run: the available fraction approaches lifetime / (lifetime + wait), within
        // the rounding of runs to whole ticks.
        let want = z.lifetime_h / (z.lifetime_h + z.wait_h);
        let got = a.available_fraction(1);
        assert!((got - want).abs() < 0.03, "{got} vs {want}");
    }

    #[test]
    fn gangs_are_all_or_partial() {
        let t = ZoneModel::TWO_WEEK[0].generate(5000, 300.0, 4, 1);
        assert!(t.values.iter().all(|&v| v <= 4));
        assert!(t.values.contains(&4));
        assert!(t.values.iter().any(|&v| v < 4));
    }
}
