//! Means and confidence intervals over repetitions.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The mean of a sample and the half-width of its two-sided 95 % confidence interval,
/// t₀.₉₇₅,ₙ₋₁ · s / √n (Student t, s the sample standard deviation); no interval for fewer
/// than two values. A sample whose values are all equal (a deterministic policy over
/// repetitions) has exactly that value as its mean and an interval of exactly 0, not the
/// rounding residue of summing and dividing (0.1 + 0.1 + 0.1 over 3 is not 0.1 in binary
/// floating point).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Estimate {
    /// Arithmetic mean.
    pub mean: f64,
    /// Half-width of the 95 % confidence interval, `None` for a single value.
    pub ci95: Option<f64>,
}

impl Estimate {
    /// The estimate of `values`; `None` if there are none.
    pub fn of(values: &[f64]) -> Option<Estimate> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        if values.iter().all(|v| v.to_bits() == values[0].to_bits()) {
            let ci95 = (n >= 2).then_some(0.0);
            return Some(Estimate {
                mean: values[0],
                ci95,
            });
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd = sample_sd(values).expect("n ≥ 2");
        let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
            .expect("n ≥ 2 gives a valid Student t")
            .inverse_cdf(0.975);
        Some(Estimate {
            mean,
            ci95: Some(t * sd / (n as f64).sqrt()),
        })
    }
}

/// The sample standard deviation s of `values` (n − 1 in the denominator); `None` for
/// fewer than two values.
pub fn sample_sd(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    Some((values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_interval_by_hand() {
        // n = 4, mean 2.5, s² = 5/3; t(0.975, 3) = 3.182446305…
        let e = Estimate::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(e.mean, 2.5);
        let want = 3.182_446_305_284_263 * (5.0f64 / 3.0 / 4.0).sqrt();
        assert!((e.ci95.unwrap() - want).abs() < 1e-9, "{:?}", e.ci95);
        assert_eq!(Estimate::of(&[7.0]).unwrap().ci95, None);
        assert_eq!(Estimate::of(&[]), None);
    }

    #[test]
    fn equal_values_have_their_value_as_mean_and_no_spread() {
        // Summed and divided, three 0.1s give 0.10000000000000002 and an interval of
        // about 1.7e-17; a deterministic policy's repetitions must show 0.1 ± 0.
        assert_ne!((0.1f64 + 0.1 + 0.1) / 3.0, 0.1);
        let e = Estimate::of(&[0.1, 0.1, 0.1]).unwrap();
        assert_eq!(e.mean, 0.1);
        assert_eq!(e.ci95, Some(0.0));
        assert_eq!(Estimate::of(&[0.1]).unwrap().ci95, None);
    }
}
