//! SkyNomad's lifetime model (paper §3.4, §A.3; spec §2.7 "Lifetime" and "Volatility",
//! the artifact's `unified_cost_model.py`, its floating-point order kept): a per-zone log of
//! runs, a Nelson–Aalen estimate of how long spot lasts in the zone given the age of the run
//! that is open, and a volatility factor g_z that scales the cumulative hazard when recent
//! preemptions come faster than the estimate expects.
//!
//! Times are seconds since the job's start; durations and ages are hours.

use std::collections::VecDeque;

/// Who opened a run: a spot instance, or a probe (or virtual availability).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A spot instance of the job.
    Spot,
    /// A probe's "virtual instance".
    Probe,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Start { time_s: f64, source: Source },
    End { time_s: f64, failed: bool },
}

/// A closed run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// When it started, s.
    pub start_s: f64,
    /// When it ended, s.
    pub end_s: f64,
    /// Its length, h.
    pub duration_h: f64,
    /// Ended by a preemption or a failed probe (else censored: we ended it).
    pub failed: bool,
}

/// A zone's run log and what is derived from it each tick.
#[derive(Clone, Debug, Default)]
pub struct ZoneLog {
    events: Vec<Event>,
    /// Closed runs, in order (rebuilt by [`ZoneLog::rebuild`]).
    pub segments: Vec<Segment>,
    /// The open run: its start (s), age (h) and source.
    pub open: Option<(f64, f64, Source)>,
}

impl ZoneLog {
    /// Records a start. A start overwrites a start that is still open (the artifact's log).
    pub fn start(&mut self, time_s: f64, source: Source) {
        self.events.push(Event::Start { time_s, source });
    }

    /// Records an end: it closes whatever is open, or nothing.
    pub fn end(&mut self, time_s: f64, failed: bool) {
        self.events.push(Event::End { time_s, failed });
    }

    /// Rebuilds the closed segments and the open run at time `now_s`.
    pub fn rebuild(&mut self, now_s: f64) {
        self.segments.clear();
        let mut open: Option<(f64, Source)> = None;
        for ev in &self.events {
            match *ev {
                Event::Start { time_s, source } => open = Some((time_s, source)),
                Event::End { time_s, failed } => {
                    if let Some((start_s, _)) = open.take() {
                        self.segments.push(Segment {
                            start_s,
                            end_s: time_s,
                            duration_h: ((time_s - start_s) / 3600.0).max(0.0),
                            failed,
                        });
                    }
                }
            }
        }
        self.open =
            open.map(|(start_s, source)| (start_s, ((now_s - start_s) / 3600.0).max(0.0), source));
    }

    /// The open run's age, h.
    pub fn age_h(&self) -> Option<f64> {
        self.open.map(|(_, age, _)| age)
    }

    /// The open run's source.
    pub fn source(&self) -> Option<Source> {
        self.open.map(|(_, _, source)| source)
    }
}

/// The Nelson–Aalen estimate: knots (τ_j, h_j) at the distinct failure durations and the
/// tail hazard λ per hour.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hazard {
    /// (τ_j in h, h_j = d_j/n_j), τ increasing.
    pub knots: Vec<(f64, f64)>,
    /// λ = max(h_last, 10⁻⁸), 10⁻⁸ without a failure.
    pub tail: f64,
}

const EPSILON: f64 = 1e-8;

impl Hazard {
    /// From a zone's closed segments; under virtual availability the open run counts as a
    /// censored sample when its age is positive. d_j counts failures within 10⁻⁹ h of τ_j;
    /// n_j the samples at least τ_j − 10⁻⁹ h long.
    pub fn estimate(log: &ZoneLog, virtual_availability: bool) -> Hazard {
        let none = Hazard {
            knots: Vec::new(),
            tail: EPSILON,
        };
        if log.segments.is_empty() && !virtual_availability {
            return none;
        }
        let mut samples: Vec<(f64, bool)> = log
            .segments
            .iter()
            .map(|s| (s.duration_h, s.failed))
            .collect();
        if virtual_availability {
            if let Some(age) = log.age_h().filter(|&a| a > 0.0) {
                samples.push((age, false));
            }
            if samples.is_empty() {
                return none;
            }
        }
        let mut failures: Vec<f64> = samples
            .iter()
            .filter(|s| s.1 && s.0 >= 0.0)
            .map(|s| s.0)
            .collect();
        failures.sort_by(f64::total_cmp);
        failures.dedup();
        if failures.is_empty() {
            return none;
        }
        let mut knots = Vec::with_capacity(failures.len());
        for &tau in &failures {
            let d = samples
                .iter()
                .filter(|s| s.1 && (s.0 - tau).abs() <= 1e-9)
                .count();
            let n = samples.iter().filter(|s| s.0 + 1e-9 >= tau).count();
            let step = if d > 0 {
                d as f64 / (n as f64).max(1e-12)
            } else {
                0.0
            };
            if step > 0.0 {
                knots.push((tau, step));
            }
        }
        let tail = knots.last().map_or(EPSILON, |k| k.1.max(EPSILON));
        Hazard { knots, tail }
    }

    /// H(x): the cumulative hazard at age `x` h (the knots below x, then λ per hour since the
    /// last of them, or since 0).
    pub fn cumulative(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        if self.knots.is_empty() {
            return (x * self.tail).max(0.0);
        }
        let mut s = 0.0;
        let mut last = 0.0;
        for &(tau, step) in &self.knots {
            if tau >= x {
                break;
            }
            s += step;
            last = tau;
        }
        if x > last && self.tail > 0.0 {
            s += (x - last) * self.tail;
        }
        s
    }

    /// E[remaining lifetime | age `age_h`] in hours with the hazard scaled by `g`
    /// (the tail as a geometric series of ticks of `gap_h` hours).
    pub fn expected_h(&self, g: f64, age_h: f64, gap_h: f64) -> f64 {
        let g = g.max(1e-6);
        let mut e = 0.0;
        let mut survive = 1.0;
        let mut t = age_h.max(0.0);
        for &(tau, step) in &self.knots {
            if tau <= t + 1e-12 {
                continue;
            }
            e += survive * (tau - t);
            survive *= (-g * step).exp();
            t = tau;
        }
        if self.tail > 1e-12 {
            let inc = self.tail.max(1e-12);
            let denom = 1.0 - (-g * inc).exp();
            e += if denom > 1e-9 {
                survive * gap_h / denom
            } else {
                survive * gap_h / (g * inc).max(1e-9)
            };
        }
        e.max(0.0)
    }
}

/// The volatility factor g_z (§A.3's γ*): a window of per-tick (risk, failures) events whose
/// total risk is kept under 8; g = 1 until the window holds a total risk of 1, then the
/// largest failures/risk over its newest suffixes of risk ≤ 1, at least 1.
#[derive(Clone, Debug)]
pub struct Volatility {
    events: VecDeque<(f64, u32)>,
    /// g_z.
    pub g: f64,
}

impl Default for Volatility {
    fn default() -> Volatility {
        Volatility {
            events: VecDeque::new(),
            g: 1.0,
        }
    }
}

impl Volatility {
    /// Appends one tick's event (nothing if it has neither risk nor failures).
    pub fn push(&mut self, risk: f64, failures: u32) {
        let risk = risk.max(0.0);
        if risk <= 0.0 && failures == 0 {
            return;
        }
        self.events.push_back((risk, failures));
        let mut total: f64 = self.events.iter().map(|e| e.0).sum();
        while let Some(&(oldest, _)) = self.events.front() {
            if total - oldest >= 8.0 {
                self.events.pop_front();
                total -= oldest;
            } else {
                break;
            }
        }
        let total: f64 = self.events.iter().map(|e| e.0).sum();
        self.g = if total < 1.0 {
            1.0
        } else {
            self.densest().max(1.0)
        };
    }

    /// failures/risk of the densest newest suffix with risk ≤ 1 (ties to the shorter).
    fn densest(&self) -> f64 {
        const EPS: f64 = 1e-6;
        let (mut risk, mut fails, mut len) = (0.0_f64, 0.0_f64, 0_usize);
        let (mut best_len, mut best) = (0_usize, 0.0_f64);
        for &(r, f) in self.events.iter().rev() {
            risk += r.max(0.0);
            fails += f64::from(f);
            len += 1;
            if len == 1 && risk <= EPS && fails <= 0.0 {
                continue;
            }
            if risk > 1.0 + 1e-9 {
                if len == 1 {
                    let eff = risk.max(if fails > 0.0 { EPS } else { risk });
                    best = if eff > 0.0 { fails / eff } else { 0.0 };
                    best_len = 1;
                }
                break;
            }
            let eff = if risk <= 0.0 {
                if fails > 0.0 { EPS } else { 0.0 }
            } else {
                risk
            };
            let ratio = if eff > 0.0 { fails / eff } else { 0.0 };
            if best_len == 0
                || ratio > best + 1e-9
                || ((ratio - best).abs() <= 1e-9 && len < best_len)
            {
                best = ratio;
                best_len = len;
            }
        }
        if best_len == 0
            && let Some(&(r, f)) = self.events.back()
        {
            let f = f64::from(f);
            let eff = if r > 0.0 {
                r
            } else if f > 0.0 {
                EPS
            } else {
                0.0
            };
            best = if eff > 0.0 { f / eff } else { 0.0 };
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(segments: &[(f64, bool)]) -> ZoneLog {
        let mut l = ZoneLog::default();
        let mut t = 0.0;
        for &(h, failed) in segments {
            l.start(t, Source::Spot);
            t += h * 3600.0;
            l.end(t, failed);
        }
        l.rebuild(t);
        l
    }

    #[test]
    fn nelson_aalen_by_hand() {
        // Samples 1 h (failed), 2 h (censored), 3 h (failed): knots (1, 1/3), (3, 1/1).
        let h = Hazard::estimate(&log(&[(1.0, true), (2.0, false), (3.0, true)]), false);
        assert_eq!(h.knots, vec![(1.0, 1.0 / 3.0), (3.0, 1.0)]);
        assert_eq!(h.tail, 1.0);
        assert_eq!(h.cumulative(0.5), 0.5); // λ·x with no knot below x
        assert!((h.cumulative(2.0) - (1.0 / 3.0 + 1.0)).abs() < 1e-12);
        // From age 0, g = 1, ticks of 0.1 h: 1·1 + e^(-1/3)·2 + e^(-4/3)·0.1/(1 − e^(−1)).
        let want = 1.0
            + (-1.0_f64 / 3.0).exp() * 2.0
            + (-4.0_f64 / 3.0).exp() * 0.1 / (1.0 - (-1.0_f64).exp());
        assert!((h.expected_h(1.0, 0.0, 0.1) - want).abs() < 1e-12);
    }

    #[test]
    fn a_zone_never_seen_failing_has_the_epsilon_tail() {
        let h = Hazard::estimate(&log(&[(2.0, false)]), false);
        assert!(h.knots.is_empty());
        assert_eq!(h.tail, 1e-8);
        // About one tick / (1 − e^(−10⁻⁸)) ≈ 10⁷ ticks: any cap binds.
        assert!(h.expected_h(1.0, 0.0, 1.0 / 6.0) > 1e5);
    }

    #[test]
    fn volatility_is_one_until_a_unit_of_risk_then_the_densest_suffix() {
        let mut v = Volatility::default();
        v.push(0.5, 0);
        assert_eq!(v.g, 1.0);
        v.push(0.25, 2); // total 0.75 < 1
        assert_eq!(v.g, 1.0);
        v.push(0.5, 0); // total 1.25: suffixes 0.5/0 → 0, 0.75/2 → 2.67; 1.25 > 1 stops
        assert!((v.g - 2.0 / 0.75).abs() < 1e-12);
        v.push(0.0, 0); // neither risk nor failures: ignored
        assert!((v.g - 2.0 / 0.75).abs() < 1e-12);
    }
}
