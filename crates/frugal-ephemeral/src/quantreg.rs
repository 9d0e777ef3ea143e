//! Linear quantile regression of the primary workload: the forecaster paper 001 names
//! (§II-C.1 "Forecasting builder", §IV-A: quantile 0.99), fitted as a linear programme.
//!
//! The paper does not give the model, its features or its history (§III-A.1: "not
//! detailed in this paper"). frugal fits, once per host and metric, the linear τ-quantile
//! of u(t) (Koenker and Bassett, "Regression Quantiles", Econometrica 46(1), 1978, DOI
//! 10.2307/1913643) on [`FEATURES`] features of the day before:
//!
//! | feature | meaning |
//! |---|---|
//! | 1 | intercept |
//! | u(l) | utilisation at the same time of day on the last day observed, l = t − 480 k |
//! | max u(l − 10 … l) | the peak of the half hour up to that time |
//! | sin, cos (2π · tod / 480) | time of day, daily harmonic |
//! | sin, cos (4π · tod / 480) | time of day, half-daily harmonic |
//!
//! k is the smallest whole number of days that puts l before the forecast's origin, so a
//! forecast never reads a sample at or after its origin: k = 1 inside the 24-hour planning
//! window, k = 2 for the second day forecast for re-plans (the model is applied unchanged;
//! it was fitted at k = 1). The fit minimises the pinball loss Σ ρ_τ(u(t) − x(t)·β) over
//! every step t of the training days 2 … [`FIRST_TEST_DAY`] − 1 (day 1 has no day before
//! it), as the LP min τ·Σe⁺ + (1 − τ)·Σe⁻ s.t. x(t)·β + e⁺(t) − e⁻(t) = u(t), e ≥ 0,
//! solved by `good_lp`'s `microlp` backend. Forecasts are clipped to [0, 1] (a
//! utilisation), so a host whose model predicts a negative load is not promised more than
//! its capacity.

use anyhow::{Context, anyhow};
use good_lp::{Expression, ProblemVariables, Solution, SolverModel, variable};
use rayon::prelude::*;

use crate::forecast::Forecaster;
use crate::trace::{FIRST_TEST_DAY, Metric, STEPS_PER_DAY, Utilisation};

/// Features per forecast step (the module's table).
pub const FEATURES: usize = 7;

/// Steps of the trailing peak feature (10 steps = 30 minutes before the lagged time).
const PEAK_STEPS: usize = 10;

/// The features of step `t` (3-minute steps from day 1 00:00) for a forecast made at
/// `origin` (the first step not observed), read from `series` (utilisation, 0–1), in the
/// order of the module's table (harmonics of angles in radians); `None` when `t` is before
/// `origin` or there is no full day before `origin`.
pub fn features(series: &[f64], origin: usize, t: usize) -> Option<[f64; FEATURES]> {
    if origin < STEPS_PER_DAY || t < origin {
        return None;
    }
    let days_back = (t - origin) / STEPS_PER_DAY + 1;
    let l = t - days_back * STEPS_PER_DAY;
    let peak = series[l.saturating_sub(PEAK_STEPS)..=l]
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let angle = std::f64::consts::TAU * (t % STEPS_PER_DAY) as f64 / STEPS_PER_DAY as f64;
    Some([
        1.0,
        series[l],
        peak,
        angle.sin(),
        angle.cos(),
        (2.0 * angle).sin(),
        (2.0 * angle).cos(),
    ])
}

/// Fits β of the τ-quantile of `y` on the rows `x` (the LP of the module docs).
///
/// # Errors
/// The solver's message when the LP fails (it cannot be infeasible or unbounded for
/// τ ∈ (0, 1): β = 0 with e = |y| is feasible and the objective is ≥ 0).
pub fn fit(x: &[[f64; FEATURES]], y: &[f64], tau: f64) -> anyhow::Result<[f64; FEATURES]> {
    let mut vars = ProblemVariables::new();
    let beta: Vec<_> = (0..FEATURES).map(|_| vars.add(variable())).collect();
    let over: Vec<_> = y.iter().map(|_| vars.add(variable().min(0.0))).collect();
    let under: Vec<_> = y.iter().map(|_| vars.add(variable().min(0.0))).collect();
    let loss: Expression = over.iter().map(|&e| tau * e).sum::<Expression>()
        + under.iter().map(|&e| (1.0 - tau) * e).sum::<Expression>();
    let mut model = vars.minimise(loss).using(good_lp::microlp);
    for (i, row) in x.iter().enumerate() {
        let fitted: Expression = row.iter().zip(&beta).map(|(&v, &b)| v * b).sum();
        model = model.with((fitted + over[i] - under[i]).eq(y[i]));
    }
    let solution = model
        .solve()
        .map_err(|e| anyhow!("quantile regression LP: {e}"))?;
    Ok(std::array::from_fn(|j| solution.value(beta[j])))
}

/// The pinball loss ρ_τ(u − q) = τ · (u − q) when u ≥ q, (1 − τ) · (q − u) otherwise, in
/// the unit of u and q: the loss a τ-quantile forecast minimises in expectation (Koenker
/// and Bassett 1978, whose "check function" it is).
pub fn pinball(tau: f64, u: f64, q: f64) -> f64 {
    if u >= q {
        tau * (u - q)
    } else {
        (1.0 - tau) * (q - u)
    }
}

/// Linear quantile regression fitted per host and metric on the training days.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantileRegression {
    /// The quantile τ ∈ (0, 1).
    pub tau: f64,
    /// β per host, CPU then RAM; `None` for a host not fitted.
    models: Vec<Option<[[f64; FEATURES]; 2]>>,
}

impl QuantileRegression {
    /// Fits τ-quantile models of CPU and RAM for each host in `hosts` on `util`'s
    /// training days, one LP per host and metric, in parallel on the current rayon pool.
    ///
    /// # Errors
    /// The host and metric whose LP the solver could not solve.
    pub fn fit(util: &Utilisation, hosts: &[usize], tau: f64) -> anyhow::Result<Self> {
        let fitted: Vec<(usize, [[f64; FEATURES]; 2])> = hosts
            .par_iter()
            .map(|&h| {
                let fit_metric = |m: Metric| {
                    let series = util.series(h, m);
                    let steps = STEPS_PER_DAY..(FIRST_TEST_DAY - 1) * STEPS_PER_DAY;
                    // Each training step is forecast from its own origin: a one-day lag.
                    let x: Vec<_> = steps
                        .clone()
                        .filter_map(|t| features(series, t, t))
                        .collect();
                    let y: Vec<f64> = steps.map(|t| series[t]).collect();
                    fit(&x, &y, tau).with_context(|| format!("host {h}, {m:?}"))
                };
                Ok((h, [fit_metric(Metric::Cpu)?, fit_metric(Metric::Ram)?]))
            })
            .collect::<anyhow::Result<_>>()?;
        let mut models = vec![None; util.hosts()];
        for (h, m) in fitted {
            models[h] = Some(m);
        }
        Ok(QuantileRegression { tau, models })
    }

    /// β of `host` and `metric`, if fitted.
    pub fn coefficients(&self, host: usize, metric: Metric) -> Option<[f64; FEATURES]> {
        let m = self.models.get(host).copied().flatten()?;
        Some(m[metric as usize])
    }
}

impl Forecaster for QuantileRegression {
    /// # Panics
    /// For a host the model was not fitted on (a programming error: build it for the
    /// hosts you forecast).
    fn forecast(
        &self,
        util: &Utilisation,
        host: usize,
        metric: Metric,
        from: usize,
        steps: usize,
    ) -> Vec<f64> {
        let beta = self
            .coefficients(host, metric)
            .unwrap_or_else(|| panic!("quantile regression not fitted for host {host}"));
        let series = util.series(host, metric);
        (from..from + steps)
            .map(|t| match features(series, from, t) {
                Some(x) => x.iter().zip(&beta).map(|(v, b)| v * b).sum::<f64>(),
                None => 1.0,
            })
            .map(|u| u.clamp(0.0, 1.0))
            .collect()
    }
}
