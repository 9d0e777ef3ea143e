//! Spot policies: the [`SpotPolicy`] trait, what a policy sees each tick, and every policy of
//! the paper behind one [`SpotPolicySpec`] (name and parameters, parsed and printed here only).
//!
//! | name | paper | follows |
//! | --- | --- | --- |
//! | `on-demand` | §6.1 baseline | on-demand from the start ([code] `on_demand`) |
//! | `greedy` | §3.4 | the authors' code (`strawman`): safety net in whole ticks, end game |
//! | `time-sliced:N` | §5.1 | the text, with the code's tick-floored slices |
//! | `uniform-progress` | §5.2 | the code (`rc_cr_threshold`), rules 1–4 |
//! | `uniform-progress-plain` | §5.2 | the code (`rc_cr_threshold_no_condition2`) |
//! | `uniform-progress-oracle` | §5.4 | the code (`rc_next_spot_threshold`) |
//! | `omniscient` | §5.3.1 | the text's optimum, as an exact DP over ticks |
//! | `omniscient-lookahead:N` | §5.3.2 | the text, each slice solved by the same DP |
//! | `quick-optimal[:N]` | Figs. 11–13 | the authors' plotting code: the heuristic they label "Omniscient" |
//!
//! Where text and code differ, the spec (`spot-deadlines-spec.md` §5) records the reading
//! and the doc comment of each policy says which it takes.

mod greedy;
mod oracle;
mod sliced;
mod uniform;

use std::fmt;
use std::str::FromStr;

use crate::SpotError;
use crate::model::{Job, Mode, POLICY_DONE_S, Slack};
use crate::optimum::{LookaheadPlan, OptimumPlan};

pub use greedy::{Greedy, OnDemandOnly};
pub use oracle::UniformProgressOracle;
pub use sliced::{TimeSliced, slice_ends};
pub use uniform::UniformProgress;

/// A policy: each tick, the mode to run in (paper §3.1's action). A user's policy is a
/// type with these two methods; see `examples/` of the crate and the book's chapter.
pub trait SpotPolicy {
    /// The name in rows and errors.
    fn name(&self) -> String;

    /// Called once before each run, with the job, the whole window and the tick length.
    /// Future-blind policies ignore the window; the omniscient ones plan from it.
    ///
    /// # Errors
    /// A policy that cannot run on this job says why ([`SpotError::Input`] naming the
    /// setting): the run is refused rather than played with a substitute plan.
    fn reset(&mut self, _job: &Job, _window: &[bool], _gap_s: f64) -> Result<(), SpotError> {
        Ok(())
    }

    /// Called before each [`SpotPolicy::reset`] with the window's spot price per tick, $/h
    /// (tick 0 = the job's start; empty when the trace has none: every tick at the flat
    /// [`Prices::spot_per_h`](crate::model::Prices)). The omniscient plans price their
    /// ticks with it; other policies ignore it.
    fn spot_prices(&mut self, _per_tick: &[f64]) {}

    /// The mode of tick `o.tick`. Spot may be picked only when `o.spot_available`.
    fn decide(&mut self, o: &Observation<'_>) -> Mode;
}

/// What a policy sees at the start of a tick (after any preemption).
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// The tick, from 0 at the job's start.
    pub tick: usize,
    /// g: seconds per tick.
    pub gap_s: f64,
    /// The mode the job is in now: last tick's, or idle if spot was just lost.
    pub mode: Mode,
    /// Whether spot can be had in this tick.
    pub spot_available: bool,
    /// cp(t): progress made so far, seconds.
    pub work_done_s: f64,
    /// r: changeover seconds still to pay before the current run makes progress.
    pub overhead_left_s: f64,
    /// The job.
    pub job: &'a Job,
    /// The whole window's availability, for oracles (future-blind policies must not read
    /// it: use [`Observation::spot_available`]).
    pub window: &'a [bool],
}

impl Observation<'_> {
    /// t: seconds since the job's start.
    pub fn elapsed_s(&self) -> f64 {
        self.tick as f64 * self.gap_s
    }

    /// C(t): work left, seconds.
    pub fn work_left_s(&self) -> f64 {
        self.job.work_s - self.work_done_s
    }

    /// Whether a policy counts the job as done (at most 1 ms of work left).
    pub fn done(&self) -> bool {
        self.work_left_s() <= POLICY_DONE_S
    }

    /// ep(t): the progress of a job that advances uniformly to its deadline, C(0)·t/R(0).
    pub fn expected_progress_s(&self, t_s: f64) -> f64 {
        t_s * self.job.work_s / self.job.deadline_s
    }

    /// The slack of `work_s` left with `time_s` to go (spec §1.1 item 6).
    pub fn slack(&self, work_s: f64, time_s: f64) -> Slack {
        Slack::of(work_s, time_s, self.gap_s, self.job.changeover_s)
    }

    /// o(t): how long the spot obtainable now will last, seconds — g × the length of the
    /// availability run starting at this tick, 0 without spot (spec §2.9). An oracle.
    pub fn spot_lifetime_s(&self) -> f64 {
        let run = self.window[self.tick.min(self.window.len())..]
            .iter()
            .take_while(|&&a| a)
            .count();
        run as f64 * self.gap_s
    }
}

/// The safety net and end game every future-blind policy of the paper ends with (§3.3;
/// the authors' code, spec §2.3 and §5 items 2–3), for `work_s` left and `time_s` to go:
///
/// - when need₂ ≥ rem and the job is idle or on on-demand: on-demand (leave room for one
///   more changeover should a spot taken now be lost);
/// - when need₁ ≥ rem (the last safe moment): stay on spot only if it runs with its
///   changeover paid, else on-demand; with d = 0 and spot available, spot (free to switch).
///
/// Otherwise `pick` stands.
pub fn safety_net(o: &Observation<'_>, work_s: f64, time_s: f64, pick: Mode) -> Mode {
    let s = o.slack(work_s, time_s);
    let mut pick = pick;
    if s.need2_s >= s.rem_s && matches!(o.mode, Mode::Idle | Mode::OnDemand) {
        pick = Mode::OnDemand;
    }
    if s.need1_s >= s.rem_s {
        pick = if o.mode == Mode::Spot && o.overhead_left_s == 0.0 {
            Mode::Spot
        } else {
            Mode::OnDemand
        };
        if o.job.changeover_s == 0.0 && o.spot_available {
            pick = Mode::Spot;
        }
    }
    pick
}

/// Spot if it can be had now, else idle: the first rule of greedy and UP.
pub fn spot_or_idle(o: &Observation<'_>) -> Mode {
    if o.spot_available {
        Mode::Spot
    } else {
        Mode::Idle
    }
}

/// One of the paper's policies with its parameters; parsed from and printed as its name
/// (`greedy`, `time-sliced:8`, …; the table in the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpotPolicySpec {
    /// On-demand from the start (the baseline every saving is against).
    OnDemand,
    /// Greedy: spot whenever available, on-demand for good at the last safe moment.
    Greedy,
    /// Time Sliced with this many slices.
    TimeSliced(u32),
    /// Uniform Progress (all its rules).
    UniformProgress,
    /// Uniform Progress without the 2d hysteresis before leaving on-demand.
    UniformProgressPlain,
    /// Uniform Progress with the next-spot-lifetime oracle instead of the hysteresis.
    UniformProgressOracle,
    /// The omniscient optimum (exact DP over ticks).
    Omniscient,
    /// The partial-lookahead optimum: this many slices, each seeing only its own.
    OmniscientLookahead(u32),
    /// The authors' plotted "Omniscient" heuristic (`quick_optimal`) over this many slices
    /// (1: the whole horizon).
    QuickOptimal(u32),
}

impl SpotPolicySpec {
    /// Every policy of the paper, with the parameters of its figures (8 slices).
    pub const ALL: [SpotPolicySpec; 10] = [
        SpotPolicySpec::OnDemand,
        SpotPolicySpec::Greedy,
        SpotPolicySpec::TimeSliced(8),
        SpotPolicySpec::UniformProgress,
        SpotPolicySpec::UniformProgressPlain,
        SpotPolicySpec::UniformProgressOracle,
        SpotPolicySpec::Omniscient,
        SpotPolicySpec::OmniscientLookahead(8),
        SpotPolicySpec::QuickOptimal(1),
        SpotPolicySpec::QuickOptimal(8),
    ];

    /// A fresh policy of this spec, for the prices `prices` (the oracle's thresholds need k).
    pub fn build(self, prices: &crate::model::Prices) -> Box<dyn SpotPolicy + Send> {
        match self {
            SpotPolicySpec::OnDemand => Box::new(OnDemandOnly),
            SpotPolicySpec::Greedy => Box::new(Greedy),
            SpotPolicySpec::TimeSliced(n) => Box::new(TimeSliced::new(n)),
            SpotPolicySpec::UniformProgress => Box::new(UniformProgress { hysteresis: true }),
            SpotPolicySpec::UniformProgressPlain => Box::new(UniformProgress { hysteresis: false }),
            SpotPolicySpec::UniformProgressOracle => {
                Box::new(UniformProgressOracle { k: prices.k() })
            }
            SpotPolicySpec::Omniscient => Box::new(OptimumPlan::new(*prices)),
            SpotPolicySpec::OmniscientLookahead(n) => Box::new(LookaheadPlan::new(*prices, n)),
            SpotPolicySpec::QuickOptimal(n) => {
                Box::new(crate::quick::QuickOptimal::new(*prices, n))
            }
        }
    }

    /// Whether the policy reads the future (the omniscient ones and the oracle).
    pub fn sees_the_future(self) -> bool {
        matches!(
            self,
            SpotPolicySpec::Omniscient
                | SpotPolicySpec::OmniscientLookahead(_)
                | SpotPolicySpec::QuickOptimal(_)
                | SpotPolicySpec::UniformProgressOracle
        )
    }
}

impl fmt::Display for SpotPolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpotPolicySpec::OnDemand => f.write_str("on-demand"),
            SpotPolicySpec::Greedy => f.write_str("greedy"),
            SpotPolicySpec::TimeSliced(n) => write!(f, "time-sliced:{n}"),
            SpotPolicySpec::UniformProgress => f.write_str("uniform-progress"),
            SpotPolicySpec::UniformProgressPlain => f.write_str("uniform-progress-plain"),
            SpotPolicySpec::UniformProgressOracle => f.write_str("uniform-progress-oracle"),
            SpotPolicySpec::Omniscient => f.write_str("omniscient"),
            SpotPolicySpec::OmniscientLookahead(n) => write!(f, "omniscient-lookahead:{n}"),
            SpotPolicySpec::QuickOptimal(1) => f.write_str("quick-optimal"),
            SpotPolicySpec::QuickOptimal(n) => write!(f, "quick-optimal:{n}"),
        }
    }
}

impl FromStr for SpotPolicySpec {
    type Err = String;

    /// Parses a name of the module table; the error lists the names.
    fn from_str(s: &str) -> Result<SpotPolicySpec, String> {
        let (name, param) = match s.trim().split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s.trim(), None),
        };
        let slices = |p: Option<&str>| -> Result<u32, String> {
            let p = p.ok_or_else(|| format!("{name} needs a slice count: {name}:8"))?;
            match p.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(n),
                _ => Err(format!("{s}: the slice count must be a whole number ≥ 1")),
            }
        };
        let plain = |spec: SpotPolicySpec| match param {
            None => Ok(spec),
            Some(_) => Err(format!("{name} takes no parameter")),
        };
        match name {
            "on-demand" => plain(SpotPolicySpec::OnDemand),
            "greedy" => plain(SpotPolicySpec::Greedy),
            "time-sliced" => slices(param).map(SpotPolicySpec::TimeSliced),
            "uniform-progress" => plain(SpotPolicySpec::UniformProgress),
            "uniform-progress-plain" => plain(SpotPolicySpec::UniformProgressPlain),
            "uniform-progress-oracle" => plain(SpotPolicySpec::UniformProgressOracle),
            "omniscient" => plain(SpotPolicySpec::Omniscient),
            "omniscient-lookahead" => slices(param).map(SpotPolicySpec::OmniscientLookahead),
            "quick-optimal" => match param {
                None => Ok(SpotPolicySpec::QuickOptimal(1)),
                Some(_) => slices(param).map(SpotPolicySpec::QuickOptimal),
            },
            _ => Err(format!(
                "unknown spot policy {s:?}; the policies: on-demand, greedy, time-sliced:N, \
                 uniform-progress, uniform-progress-plain, uniform-progress-oracle, \
                 omniscient, omniscient-lookahead:N, quick-optimal[:N]"
            )),
        }
    }
}

frugal_core::serde_as_text!(SpotPolicySpec);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_errors_list_the_policies() {
        for p in SpotPolicySpec::ALL {
            assert_eq!(p.to_string().parse::<SpotPolicySpec>().unwrap(), p);
        }
        assert_eq!("time-sliced:3".parse(), Ok(SpotPolicySpec::TimeSliced(3)));
        assert!(
            "time-sliced"
                .parse::<SpotPolicySpec>()
                .unwrap_err()
                .contains(":8")
        );
        assert!(
            "time-sliced:0"
                .parse::<SpotPolicySpec>()
                .unwrap_err()
                .contains("≥ 1")
        );
        assert!(
            "greedy:2"
                .parse::<SpotPolicySpec>()
                .unwrap_err()
                .contains("no parameter")
        );
        assert!(
            "gredy"
                .parse::<SpotPolicySpec>()
                .unwrap_err()
                .contains("uniform-progress")
        );
    }
}
