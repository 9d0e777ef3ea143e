//! Forecasts of the primary workload and the ephemeral capacity they leave (paper 001
//! §III-A.1, Eq. 1).
//!
//! The paper forecasts each host's CPU and RAM utilisation for the next 24 h at the 0.99
//! quantile by quantile regression, without saying which model (§III-A.1: "not detailed in
//! this paper"). frugal offers three forecasters: [`SeasonalQuantile`] (the default), the
//! empirical τ-quantile of the same time of day (± 5 steps = ± 15 min, circular) over every
//! complete day before the window; [`QuantileRegression`], a linear quantile regression on
//! the day before and the time of day, fitted per host and metric on the training days
//! ([`crate::quantreg`]); and [`Oracle`], the actual utilisation (an ablation: perfect
//! forecasts). [`coverage`] scores any of them on held-out windows by coverage and pinball
//! loss.

use serde::Serialize;

pub use crate::quantreg::{QuantileRegression, pinball};
use crate::trace::{Metric, STEPS_PER_DAY, Utilisation};

/// Forecasts U(k, m, t) ∈ [0, 1] of Eq. 1.
pub trait Forecaster: Send + Sync {
    /// U(host, metric, ·) for `steps` 3-minute steps starting at absolute step `from`
    /// (counted from day 1 00:00). Uses only samples before `from`, except [`Oracle`].
    fn forecast(
        &self,
        util: &Utilisation,
        host: usize,
        metric: Metric,
        from: usize,
        steps: usize,
    ) -> Vec<f64>;
}

/// The forecasters `--forecaster` offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForecasterKind {
    /// [`SeasonalQuantile`] with τ = 0.99 (the paper's quantile, §IV-A).
    SeasonalQuantile,
    /// [`QuantileRegression`] with τ = 0.99.
    QuantileRegression,
    /// [`Oracle`].
    Oracle,
}

frugal_core::choice! {
    impl Choice for ForecasterKind {
        SeasonalQuantile = "seasonal-quantile": "The 0.99 quantile of the same time of day over the past days",
        QuantileRegression = "quantile-regression": "Linear quantile regression at 0.99 on the day before and the time of day, fitted per host and metric on days 1-4 (the paper's forecaster family)",
        Oracle = "oracle": "The actual utilisation (perfect forecasts; an ablation)",
    }
}

impl ForecasterKind {
    /// The forecaster, ready to forecast `hosts` of `util` (only quantile regression
    /// learns anything: it is fitted here, one LP per host and metric).
    ///
    /// # Errors
    /// When the solver fails on a host's LP (named in the message).
    pub fn build(self, util: &Utilisation, hosts: &[usize]) -> anyhow::Result<Box<dyn Forecaster>> {
        Ok(match self {
            ForecasterKind::SeasonalQuantile => Box::new(SeasonalQuantile::PAPER),
            ForecasterKind::QuantileRegression => {
                Box::new(QuantileRegression::fit(util, hosts, PAPER_TAU)?)
            }
            ForecasterKind::Oracle => Box::new(Oracle),
        })
    }
}

/// The quantile of every forecast in the paper's experiments (§IV-A).
pub const PAPER_TAU: f64 = 0.99;

/// Empirical τ-quantile of the same time of day over the complete days before the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeasonalQuantile {
    /// The quantile τ ∈ [0, 1], interpolated linearly between order statistics (the
    /// "type 7" rule: position τ·(n − 1) in the sorted sample).
    pub tau: f64,
    /// Steps either side of the time of day pooled with it (circular over the day).
    pub half_width: usize,
}

impl SeasonalQuantile {
    /// τ = 0.99 (paper §IV-A), ± 5 steps.
    pub const PAPER: SeasonalQuantile = SeasonalQuantile {
        tau: PAPER_TAU,
        half_width: 5,
    };
}

impl Forecaster for SeasonalQuantile {
    /// With no complete day before `from`, there is no history: U = 1 (no capacity is
    /// promised), which the experiments never hit (their windows start on day 5).
    fn forecast(
        &self,
        util: &Utilisation,
        host: usize,
        metric: Metric,
        from: usize,
        steps: usize,
    ) -> Vec<f64> {
        let days = from / STEPS_PER_DAY;
        let series = util.series(host, metric);
        let w = self.half_width as isize;
        let per_time: Vec<f64> = (0..STEPS_PER_DAY)
            .map(|tod| {
                let mut pool: Vec<f64> = (0..days)
                    .flat_map(|d| {
                        (-w..=w).map(move |o| {
                            let s = (tod as isize + o).rem_euclid(STEPS_PER_DAY as isize);
                            d * STEPS_PER_DAY + s as usize
                        })
                    })
                    .map(|i| series[i])
                    .collect();
                quantile(&mut pool, self.tau).unwrap_or(1.0)
            })
            .collect();
        (from..from + steps)
            .map(|s| per_time[s % STEPS_PER_DAY])
            .collect()
    }
}

/// The actual utilisation: perfect forecasts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Oracle;

impl Forecaster for Oracle {
    fn forecast(
        &self,
        util: &Utilisation,
        host: usize,
        metric: Metric,
        from: usize,
        steps: usize,
    ) -> Vec<f64> {
        (from..from + steps)
            .map(|s| util.at(host, metric, s))
            .collect()
    }
}

/// The τ-quantile of `values` by linear interpolation (position τ·(n − 1) of the sorted
/// values); `None` for an empty slice.
pub fn quantile(values: &mut [f64], tau: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let pos = tau.clamp(0.0, 1.0) * (values.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(values[lo] + (values[hi] - values[lo]) * (pos - lo as f64))
}

/// Eq. 1: the ephemeral capacity A(k, m, t) = C(k, m) · (1 − (U(k, m, t) + S(m))), clamped
/// at 0 when U + S > 1 (spec A3: "prediction + safety margin > 100 %" means the host
/// cannot take tasks, §IV-B1). `capacity` in the metric's unit (GFLOP/s or GiB), `u` and
/// `margin` fractions.
pub fn available(capacity: f64, u: f64, margin: f64) -> f64 {
    capacity * (1.0 - (u + margin)).max(0.0)
}

/// How well τ-quantile forecasts fit the actual utilisation over a window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Coverage {
    /// Share of (host, step) samples with actual u ≤ forecast U, 0–1 (the target of a
    /// τ-quantile forecast is τ).
    pub covered: f64,
    /// Mean of U − u over the samples, percentage points (positive = over-estimate).
    pub mean_over_pp: f64,
    /// Mean pinball loss ρ_τ(u − U) ([`pinball`]) over the samples, percentage points:
    /// the score a τ-quantile forecast minimises, lower is better; it charges a miss
    /// above the forecast τ / (1 − τ) = 99 times an over-estimate of the same size.
    pub pinball_pp: f64,
}

impl Coverage {
    /// Scores forecasts at quantile `tau` over `pairs` of (forecast U, actual u) series
    /// of equal length, one pair per host, utilisations as fractions 0–1.
    pub fn of<'a>(tau: f64, pairs: impl IntoIterator<Item = (&'a [f64], &'a [f64])>) -> Coverage {
        let (mut covered, mut over, mut loss, mut n) = (0usize, 0.0, 0.0, 0usize);
        for (forecast, actual) in pairs {
            debug_assert_eq!(forecast.len(), actual.len());
            for (&u_hat, &u) in forecast.iter().zip(actual) {
                covered += usize::from(u <= u_hat);
                over += u_hat - u;
                loss += pinball(tau, u, u_hat);
                n += 1;
            }
        }
        let n = n.max(1) as f64;
        Coverage {
            covered: covered as f64 / n,
            mean_over_pp: 100.0 * over / n,
            pinball_pp: 100.0 * loss / n,
        }
    }

    /// The mean of several windows' scores (each window weighs the same).
    pub fn mean(all: &[Coverage]) -> Coverage {
        let n = all.len().max(1) as f64;
        let avg = |f: fn(&Coverage) -> f64| all.iter().map(f).sum::<f64>() / n;
        Coverage {
            covered: avg(|c| c.covered),
            mean_over_pp: avg(|c| c.mean_over_pp),
            pinball_pp: avg(|c| c.pinball_pp),
        }
    }
}

/// Coverage of `forecaster` (at τ = [`PAPER_TAU`]) for `hosts` and `metric` over `steps`
/// steps from `from`.
pub fn coverage(
    forecaster: &dyn Forecaster,
    util: &Utilisation,
    hosts: &[usize],
    metric: Metric,
    from: usize,
    steps: usize,
) -> Coverage {
    let pairs: Vec<(Vec<f64>, Vec<f64>)> = hosts
        .iter()
        .map(|&h| {
            let forecast = forecaster.forecast(util, h, metric, from, steps);
            let actual = (from..from + steps)
                .map(|s| util.at(h, metric, s))
                .collect();
            (forecast, actual)
        })
        .collect();
    Coverage::of(
        PAPER_TAU,
        pairs.iter().map(|(f, a)| (f.as_slice(), a.as_slice())),
    )
}
