//! The forecasters and their scores, against hand-computed values.

use frugal_ephemeral::forecast::{Coverage, Forecaster, PAPER_TAU, QuantileRegression, pinball};
use frugal_ephemeral::quantreg::{FEATURES, features, fit};
use frugal_ephemeral::trace::{Metric, STEPS_PER_DAY, Utilisation};

/// One host, 7 days: CPU = `cpu(day)` % all day, RAM = 50 %.
fn daily(cpu: impl Fn(usize) -> f64) -> Utilisation {
    let mut csv = String::from("host,day,sample,cpu_pct,mem_pct\n");
    for day in 1..=7 {
        for s in 0..288 {
            csv += &format!("0,{day},{s},{},50\n", cpu(day));
        }
    }
    Utilisation::parse(csv.as_bytes(), "synthetic", 1).unwrap()
}

fn row(v: [f64; 2]) -> [f64; FEATURES] {
    let mut x = [0.0; FEATURES];
    x[..2].copy_from_slice(&v);
    x
}

/// With only an intercept the τ-quantile regression is an order statistic: the pinball
/// loss of 0, 1, …, 100 is smallest at the ⌈τ·n⌉-th value, ⌈0.99 × 101⌉ = 100th = 99.
#[test]
fn an_intercept_alone_is_the_empirical_quantile() {
    let y: Vec<f64> = (0..=100).map(f64::from).collect();
    let x = vec![row([1.0, 0.0]); y.len()];
    let beta = fit(&x, &y, 0.99).unwrap();
    assert!((beta[0] - 99.0).abs() < 1e-6, "{beta:?}");
    let beta = fit(&x, &y, 0.5).unwrap();
    assert!((beta[0] - 50.0).abs() < 1e-6, "{beta:?}");
}

/// An exact linear relation is found whatever τ: it has zero loss.
#[test]
fn an_exact_linear_relation_is_recovered() {
    let x: Vec<[f64; FEATURES]> = (0..40)
        .map(|i| {
            let i = f64::from(i);
            [
                1.0,
                i,
                (i * 0.7).sin(),
                i * i / 40.0,
                (i * 1.3).cos(),
                0.5 * (i * 0.2).sin(),
                i.sqrt(),
            ]
        })
        .collect();
    let truth = [0.2, 0.01, -0.3, 0.05, 0.1, 0.4, -0.02];
    let y: Vec<f64> = x
        .iter()
        .map(|r| r.iter().zip(&truth).map(|(a, b)| a * b).sum())
        .collect();
    let beta = fit(&x, &y, PAPER_TAU).unwrap();
    for (b, t) in beta.iter().zip(&truth) {
        assert!((b - t).abs() < 1e-6, "{beta:?}");
    }
}

#[test]
fn the_pinball_loss_charges_a_miss_above_ninety_nine_times_an_over_estimate() {
    assert!((pinball(0.99, 0.5, 0.4) - 0.099).abs() < 1e-12);
    assert!((pinball(0.99, 0.4, 0.5) - 0.001).abs() < 1e-12);
    assert_eq!(pinball(0.99, 0.4, 0.4), 0.0);
    // Two samples: u = 0.5 under U = 0.6 (covered, over by 10 points, loss 0.001) and
    // u = 0.5 over U = 0.4 (missed, under by 10 points, loss 0.099).
    let c = Coverage::of(0.99, [(&[0.6, 0.4][..], &[0.5, 0.5][..])]);
    assert_eq!(c.covered, 0.5);
    assert!(c.mean_over_pp.abs() < 1e-12);
    assert!((c.pinball_pp - 5.0).abs() < 1e-9, "{c:?}");
}

/// The lag is the last day observed before the origin: one day inside the first 24
/// hours, two days in the second.
#[test]
fn features_never_read_at_or_after_the_origin() {
    let series: Vec<f64> = (0..7 * STEPS_PER_DAY).map(|i| i as f64).collect();
    let origin = 4 * STEPS_PER_DAY;
    let x = features(&series, origin, origin + 30).unwrap();
    assert_eq!(
        (x[0], x[1], x[2]),
        (1.0, 3.0 * 480.0 + 30.0, 3.0 * 480.0 + 30.0)
    );
    let x = features(&series, origin, origin + 479).unwrap();
    assert_eq!(x[1], (origin - 1) as f64);
    let x = features(&series, origin, origin + 480).unwrap();
    assert_eq!(x[1], (origin - 480) as f64);
    // The time of day: 00:00 is angle 0 (sin 0, cos 1), 06:00 a quarter turn.
    assert!((x[3], x[4]) == (0.0, 1.0));
    let x = features(&series, origin, origin + 120).unwrap();
    assert!((x[3] - 1.0).abs() < 1e-12 && x[4].abs() < 1e-12);
    assert!(
        features(&series, 479, 500).is_none(),
        "no full day before the origin"
    );
}

/// CPU rises 10 points a day: the one-day-lag model learns u(t) = u(t − 1 day) + 0.1
/// exactly on days 2–4 and forecasts day 5 at 0.5 from day 4's 0.4; on the second day of a
/// forecast it reads day 4 again (two days back), so it says 0.5 where day 6 is at 0.6.
#[test]
fn quantile_regression_learns_a_daily_trend_and_reads_only_the_past() {
    let u = daily(|d| 10.0 * d as f64);
    let q = QuantileRegression::fit(&u, &[0], PAPER_TAU).unwrap();
    let origin = 4 * STEPS_PER_DAY;
    let f = q.forecast(&u, 0, Metric::Cpu, origin, 2 * STEPS_PER_DAY);
    assert!(
        f[..480].iter().all(|v| (v - 0.5).abs() < 1e-6),
        "{:?}",
        &f[..3]
    );
    assert!(f[480..].iter().all(|v| (v - 0.5).abs() < 1e-6));
    let ram = q.forecast(&u, 0, Metric::Ram, origin, 10);
    assert!(ram.iter().all(|v| (v - 0.5).abs() < 1e-6), "{ram:?}");
    // Whatever happens from the origin on does not change the forecast.
    let other = daily(|d| if d >= 5 { 90.0 } else { 10.0 * d as f64 });
    let g = QuantileRegression::fit(&other, &[0], PAPER_TAU)
        .unwrap()
        .forecast(&other, 0, Metric::Cpu, origin, 2 * STEPS_PER_DAY);
    assert_eq!(f, g);
    // A forecast made a day later reads day 5.
    let later = q.forecast(&other, 0, Metric::Cpu, origin + STEPS_PER_DAY, 1);
    assert_eq!(later, vec![1.0], "0.9 + 0.1, clipped to a utilisation");
}
