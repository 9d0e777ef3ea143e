//! VM billing: per-second (paper 004 Eq. 11, paper 000 §6.3.1) or per started hour.

/// Billing granularity of VM on-time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BillingGranularity {
    /// Exact on-time × price (the papers' per-second accounting).
    #[default]
    PerSecond,
    /// Each power-on interval is rounded up to whole started hours.
    PerHour,
}

crate::choice! {
    impl Choice for BillingGranularity {
        PerSecond = "per-second": "Each second of on-time",
        PerHour = "per-hour": "Each started hour of every power-on interval",
    }
}

impl BillingGranularity {
    /// Billed seconds for one on-interval of `on_time_s` seconds.
    #[inline]
    pub fn billed_seconds(&self, on_time_s: f64) -> f64 {
        match self {
            BillingGranularity::PerSecond => on_time_s,
            BillingGranularity::PerHour => (on_time_s / 3600.0).ceil() * 3600.0,
        }
    }

    /// Cost in dollars of one on-interval of `on_time_s` seconds at `price_per_second`.
    /// A VM's bill over its intervals is [`crate::fleet::billed_at`], which merges those
    /// that meet at one instant first (no power cycle): the one bill every face reports.
    #[inline]
    pub fn cost(&self, on_time_s: f64, price_per_second: f64) -> f64 {
        self.billed_seconds(on_time_s) * price_per_second
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hourly_billing_rounds_each_interval_up() {
        let b = BillingGranularity::PerHour;
        assert_eq!(b.billed_seconds(1.0), 3600.0);
        assert_eq!(b.billed_seconds(3600.0), 3600.0);
        assert_eq!(b.billed_seconds(3601.0), 7200.0);
        assert_eq!(BillingGranularity::PerSecond.cost(10.0, 0.5), 5.0);
    }
}
