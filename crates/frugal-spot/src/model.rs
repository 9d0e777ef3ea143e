//! The job, its prices and the deadline arithmetic (paper §3.1–3.2; the authors'
//! simulator's discrete-time rules, spec §1.1 item 6).
//!
//! A job needs C(0) seconds of compute on one instance (or a gang of N) and must finish
//! within R(0) seconds. Each tick it runs on nothing, on spot capacity (price 1 in the
//! paper's normalisation, only when spot is available) or on on-demand capacity (price
//! k > 1, always there). Every move into a running mode other than the current one — the
//! first start included — costs a changeover delay d of billed time without progress.

use serde::{Deserialize, Serialize};

use crate::SpotError;

/// What the job runs on during one tick (the paper's cluster type, Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Nothing runs and nothing is billed.
    Idle,
    /// Spot capacity: cheap, only when available, lost when it goes away (preemption).
    Spot,
    /// On-demand capacity: always available at price k.
    OnDemand,
}

impl Mode {
    /// `idle`, `spot` or `on-demand`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Idle => "idle",
            Mode::Spot => "spot",
            Mode::OnDemand => "on-demand",
        }
    }
}

/// Work left at or below this many seconds counts as done for the simulator (spec §1.1
/// item 5: floating-point remainders of whole-second work).
pub const DONE_S: f64 = 1e-8;

/// Work left at or below this many seconds counts as done for the policies (the authors'
/// policies use a looser test than their simulator; spec §1.1 item 5).
pub const POLICY_DONE_S: f64 = 1e-3;

/// One deadline job (paper §3.1, §5.5). Times in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// C(0): compute needed, in seconds of one instance (of the gang) running.
    pub work_s: f64,
    /// R(0): time from the start to the deadline, in seconds.
    pub deadline_s: f64,
    /// d: billed time without progress after every (re)start, in seconds.
    pub changeover_s: f64,
    /// N: instances of the gang; all run or none (the paper's polarization rule, §5.5).
    pub instances: u32,
}

impl Job {
    /// A single-instance job from hours: C(0), R(0) and d.
    pub fn from_hours(work_h: f64, deadline_h: f64, changeover_h: f64) -> Job {
        Job {
            work_s: work_h * 3600.0,
            deadline_s: deadline_h * 3600.0,
            changeover_s: changeover_h * 3600.0,
            instances: 1,
        }
    }

    /// The job fraction f = C(0)/R(0) (paper §6.1: tight means f > 0.75).
    pub fn fraction(&self) -> f64 {
        self.work_s / self.deadline_s
    }

    /// Horizon T = ⌊R(0)/g⌋ ticks (spec §5 item 9): the ticks that end by the deadline.
    pub fn horizon_ticks(&self, gap_s: f64) -> usize {
        floor_ticks(self.deadline_s, gap_s)
    }

    /// Checks the job against the tick length `gap_s`.
    ///
    /// # Errors
    /// [`SpotError::Input`] naming the field: work or deadline not positive and finite, a
    /// negative changeover, no instance, a deadline shorter than the work plus one
    /// changeover, or a tick so long that the ticks ending by the deadline, T = ⌊R(0)/g⌋,
    /// are fewer than on-demand from the start needs, ⌈(C(0) + d)/g⌉ (no policy could meet
    /// the deadline in whole ticks, not even on-demand from the start).
    pub fn check(&self, gap_s: f64) -> Result<(), SpotError> {
        let bad = |field: &str, why: String| Err(SpotError::Input(format!("{field}: {why}")));
        if !(self.work_s > 0.0 && self.work_s.is_finite()) {
            return bad(
                "work_h",
                format!("{} h must be positive", self.work_s / 3600.0),
            );
        }
        if !(self.changeover_s >= 0.0 && self.changeover_s.is_finite()) {
            return bad(
                "changeover_h",
                format!("{} h must be at least 0", self.changeover_s / 3600.0),
            );
        }
        if self.instances == 0 {
            return bad("instances", "at least 1".into());
        }
        if !(self.deadline_s.is_finite() && self.deadline_s >= self.work_s + self.changeover_s) {
            return bad(
                "deadline_h",
                format!(
                    "{} h is shorter than the work plus one changeover ({} h)",
                    self.deadline_s / 3600.0,
                    (self.work_s + self.changeover_s) / 3600.0
                ),
            );
        }
        if !(gap_s > 0.0 && gap_s.is_finite()) {
            return bad("gap_seconds", format!("{gap_s} must be positive"));
        }
        let need = ceil_ticks(self.work_s + self.changeover_s, gap_s).max(1);
        if self.horizon_ticks(gap_s) < need {
            return bad(
                "gap_seconds",
                format!(
                    "ticks of {} s leave {} whole ticks before the deadline of {} h, \
                     fewer than the {need} that the work plus one changeover take on \
                     on-demand",
                    short(gap_s),
                    self.horizon_ticks(gap_s),
                    self.deadline_s / 3600.0
                ),
            );
        }
        Ok(())
    }
}

/// Prices of one instance, in dollars per hour (paper §2.3: fixed over a job).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// Spot price, $/h.
    pub spot_per_h: f64,
    /// On-demand price, $/h.
    pub on_demand_per_h: f64,
}

impl Prices {
    /// The prices the authors' simulator uses for every V100 and K80 trace of §6: on-demand
    /// $3.06/h, spot $0.9731/h, so k = 3.1446 (spec §3, §5 item 10).
    pub const PAPER: Prices = Prices {
        spot_per_h: 0.9731,
        on_demand_per_h: 3.06,
    };

    /// The spot price of `tick`, $/h: a trace's own (`per_tick[tick]`, tick 0 = the
    /// window's first) where it has one, else the flat [`Prices::spot_per_h`]. The one rule
    /// the simulator's bill and the plans that price the future share.
    pub fn spot_at(&self, per_tick: &[f64], tick: usize) -> f64 {
        per_tick.get(tick).copied().unwrap_or(self.spot_per_h)
    }

    /// k = on-demand price / spot price.
    pub fn k(&self) -> f64 {
        self.on_demand_per_h / self.spot_per_h
    }

    /// Price of `mode`, $/h per instance (0 when idle).
    pub fn of(&self, mode: Mode) -> f64 {
        match mode {
            Mode::Idle => 0.0,
            Mode::Spot => self.spot_per_h,
            Mode::OnDemand => self.on_demand_per_h,
        }
    }

    /// Checks that both prices are positive and finite.
    ///
    /// # Errors
    /// [`SpotError::Input`] naming the price.
    pub fn check(&self) -> Result<(), SpotError> {
        for (field, v) in [
            ("spot_price_per_h", self.spot_per_h),
            ("on_demand_price_per_h", self.on_demand_per_h),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(SpotError::Input(format!("{field}: {v} must be positive")));
            }
        }
        Ok(())
    }
}

/// `x` as written, or in scientific notation when very large or small (errors quoting an
/// absurd input stay one line).
pub(crate) fn short(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Whole ticks of `s` seconds, rounded down, as the authors' simulator counts them. A
/// relative slack of 1e-9 absorbs floating-point remainders of exact multiples.
pub fn floor_ticks(s: f64, gap_s: f64) -> usize {
    let x = s / gap_s;
    (x + 1e-9 * x.abs().max(1.0)).floor().max(0.0) as usize
}

/// Whole ticks of `s` seconds, rounded up (the same slack as [`floor_ticks`]).
pub fn ceil_ticks(s: f64, gap_s: f64) -> usize {
    let x = s / gap_s;
    (x - 1e-9 * x.abs().max(1.0)).ceil().max(0.0) as usize
}

/// The deadline arithmetic every future-blind policy shares (spec §1.1 item 6): with `work_s`
/// left and `time_s` to its (slice's) deadline, at tick length `gap_s` and changeover
/// `changeover_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slack {
    /// rem = ⌊R(t)/g⌋·g: the whole ticks left before the deadline, in seconds.
    pub rem_s: f64,
    /// need₁ = ⌈(C(t) + d)/g⌉·g: what finishing after one more changeover takes.
    pub need1_s: f64,
    /// need₂ = ⌈(C(t) + 2d)/g⌉·g: the same with room for one more changeover after it.
    pub need2_s: f64,
}

impl Slack {
    /// The slack of `work_s` left with `time_s` to go.
    pub fn of(work_s: f64, time_s: f64, gap_s: f64, changeover_s: f64) -> Slack {
        Slack {
            rem_s: floor_ticks(time_s.max(0.0), gap_s) as f64 * gap_s,
            need1_s: ceil_ticks(work_s + changeover_s, gap_s) as f64 * gap_s,
            need2_s: ceil_ticks(work_s + 2.0 * changeover_s, gap_s) as f64 * gap_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_arithmetic_by_hand() {
        // g = 600 s, d = 720 s: 1,000 s of work and 2,500 s to go.
        let s = Slack::of(1000.0, 2500.0, 600.0, 720.0);
        assert_eq!(s.rem_s, 2400.0); // ⌊2500/600⌋ = 4 ticks
        assert_eq!(s.need1_s, 1800.0); // ⌈1720/600⌉ = 3 ticks
        assert_eq!(s.need2_s, 3000.0); // ⌈2440/600⌉ = 5 ticks
        // Exact multiples stay exact despite floating-point noise.
        assert_eq!(floor_ticks(0.8 * 3.0 * 600.0 / 0.8, 600.0), 3);
        assert_eq!(ceil_ticks(3.0 * 600.0 + 1e-12, 600.0), 3);
        assert_eq!(Job::from_hours(48.0, 60.0, 0.2).horizon_ticks(600.0), 360);
        assert_eq!(Job::from_hours(48.0, 60.05, 0.2).horizon_ticks(600.0), 360);
    }
}
