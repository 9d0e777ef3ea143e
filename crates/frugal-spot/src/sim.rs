//! The tick simulator: one policy, one job, one window of availability (spec §1.1, the
//! authors' simulator's semantics, implemented exactly).
//!
//! Tick i covers [i·g, (i+1)·g). At each tick:
//! 1. the last tick's progress and bill are settled; if the job ran on spot in tick i−1 and
//!    spot is not available in tick i, it is preempted: its mode becomes idle, nothing more
//!    is billed;
//! 2. the policy sees the [`Observation`] (mode after any preemption, availability of tick
//!    i, elapsed time, progress, changeover left) and picks the mode of tick i;
//! 3. if it picks a running mode other than the current one (the first start included),
//!    the changeover counter r is set to d;
//! 4. a running tick is billed in full at its mode's price (× N instances; on spot, the
//!    trace's price of that tick when it has per-tick `prices`, else the flat one) and makes
//!    progress max(0, g − r), capped at the work left; then r := max(0, r − g). Changeover
//!    left when an instance is lost is lost with it (the next start sets r := d again);
//! 5. the job is done when at most [`DONE_S`](crate::model::DONE_S) of work is left; its
//!    last, partly used tick is billed whole (or, with [`LastTick::Prorated`], only for
//!    the seconds used).
//!
//! The simulator does not stop at the deadline (policies meet it by construction); it
//! reports whether the job finished by R(0). Past the window's end spot is unavailable.

use serde::{Deserialize, Serialize};

use crate::SpotError;
use crate::model::{DONE_S, Job, Mode, Prices};
use crate::policy::{Observation, SpotPolicy};

/// How the job's last, partly used tick is billed (spec §5 item 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LastTick {
    /// Whole, like every other tick (the authors' simulator).
    #[default]
    Whole,
    /// Only for the seconds used: changeover plus progress (per-second billing, the paper's
    /// text).
    Prorated,
}

frugal_core::choice! {
    impl Choice for LastTick {
        Whole = "whole": "Billed whole, like every tick",
        Prorated = "prorated": "Billed for the seconds used",
    }
}

/// What one run of a policy on one window cost and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WindowOutcome {
    /// The bill, dollars.
    pub cost_usd: f64,
    /// Billed on-demand hours (per instance; changeovers included).
    pub on_demand_h: f64,
    /// Billed spot hours (per instance; changeovers included).
    pub spot_h: f64,
    /// Progress made on on-demand capacity, hours (Table 3's "OD hours").
    pub on_demand_work_h: f64,
    /// Progress made on spot capacity, hours (Table 3's "spot hours").
    pub spot_work_h: f64,
    /// Starts that paid a changeover (the first start included).
    pub changeovers: u32,
    /// Times spot was taken away while the job ran on it.
    pub preemptions: u32,
    /// When the job finished, hours after its start.
    pub finish_h: f64,
    /// Whether it finished by its deadline R(0).
    pub deadline_met: bool,
}

/// One tick of a run, as [`run_traced`] records it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tick {
    /// The tick, from 0 at the job's start.
    pub tick: usize,
    /// Whether spot could be had in it.
    pub spot_available: bool,
    /// Whether the job lost its spot capacity at the tick's start.
    pub preempted: bool,
    /// What it ran on.
    pub mode: Mode,
    /// Progress made by the tick's end, hours.
    pub work_done_h: f64,
    /// The bill by the tick's end, dollars.
    pub cost_usd: f64,
}

/// Runs `policy` on `job` over the availability `window` (tick 0 = the job's start) with
/// tick length `gap_s`; `spot_prices`, when given, is the spot price of each tick of the
/// window in $/h (a trace's per-tick `prices`, from the window's first tick): a spot tick is
/// billed at its own price, a tick past the series' end at the flat
/// [`Prices::spot_per_h`]. The policy is told the series first
/// ([`SpotPolicy::spot_prices`]).
///
/// # Errors
/// [`SpotError::Policy`] if the policy picks spot in a tick without spot, or has not
/// finished the job after four times its deadline plus its work; the policy's own error
/// from [`SpotPolicy::reset`] (an exact optimum too large to compute, say).
pub fn run(
    policy: &mut dyn SpotPolicy,
    job: &Job,
    prices: &Prices,
    spot_prices: Option<&[f64]>,
    window: &[bool],
    gap_s: f64,
    last_tick: LastTick,
) -> Result<WindowOutcome, SpotError> {
    run_traced(
        policy,
        job,
        prices,
        spot_prices,
        window,
        gap_s,
        last_tick,
        None,
    )
}

/// [`run`], also appending every tick until the job is done to `ticks` when given.
///
/// # Errors
/// As [`run`].
#[allow(clippy::too_many_arguments)]
pub fn run_traced(
    policy: &mut dyn SpotPolicy,
    job: &Job,
    prices: &Prices,
    spot_prices: Option<&[f64]>,
    window: &[bool],
    gap_s: f64,
    last_tick: LastTick,
    mut ticks: Option<&mut Vec<Tick>>,
) -> Result<WindowOutcome, SpotError> {
    policy.spot_prices(spot_prices.unwrap_or(&[]));
    policy.reset(job, window, gap_s)?;
    let n = f64::from(job.instances);
    let mut out = WindowOutcome::default();
    let mut mode = Mode::Idle;
    let mut done_s = 0.0;
    let mut overhead_s = 0.0;
    // Seconds billed and worked per mode (spot, on-demand), summed exactly and turned into
    // hours once.
    let (mut billed, mut worked) = ([0.0f64; 2], [0.0f64; 2]);
    // With per-tick spot prices, the spot seconds × their ticks' prices ($·s/h), summed in
    // tick order; without, billed[0] × the flat price.
    let mut spot_usd_s = 0.0f64;
    let dollars = |billed: &[f64; 2], spot_usd_s: f64| {
        let spot = if spot_prices.is_some() {
            spot_usd_s
        } else {
            billed[0] * prices.spot_per_h
        };
        (spot + billed[1] * prices.on_demand_per_h) * n / 3600.0
    };
    // A policy that never finishes is a bug: stop it with an error, not a hang.
    let limit = crate::model::ceil_ticks(4.0 * job.deadline_s + job.work_s, gap_s) + 1;
    for tick in 0.. {
        if job.work_s - done_s <= DONE_S {
            break;
        }
        if tick >= limit {
            return Err(SpotError::Policy(format!(
                "{}: the job is not done after {tick} ticks",
                policy.name()
            )));
        }
        let available = window.get(tick).copied().unwrap_or(false);
        let preempted = mode == Mode::Spot && !available;
        if preempted {
            mode = Mode::Idle;
            out.preemptions += 1;
        }
        let o = Observation {
            tick,
            gap_s,
            mode,
            spot_available: available,
            work_done_s: done_s,
            overhead_left_s: overhead_s,
            job,
            window,
        };
        let pick = policy.decide(&o);
        if pick == Mode::Spot && !available {
            return Err(SpotError::Policy(format!(
                "{}: picked spot at tick {tick}, where spot is not available",
                policy.name()
            )));
        }
        if pick != mode && pick != Mode::Idle {
            overhead_s = job.changeover_s;
            out.changeovers += 1;
        }
        mode = pick;
        // The bill so far, for the record: each mode's seconds at its price.
        let record = |ticks: &mut Option<&mut Vec<Tick>>, cost_usd: f64, done_s: f64| {
            if let Some(t) = ticks.as_deref_mut() {
                t.push(Tick {
                    tick,
                    spot_available: available,
                    preempted,
                    mode,
                    work_done_h: done_s / 3600.0,
                    cost_usd,
                });
            }
        };
        if mode == Mode::Idle {
            record(&mut ticks, dollars(&billed, spot_usd_s), done_s);
            continue;
        }
        let left = job.work_s - done_s;
        let progress = (gap_s - overhead_s).max(0.0).min(left);
        let overhead_used = overhead_s.min(gap_s);
        overhead_s = (overhead_s - gap_s).max(0.0);
        done_s += progress;
        let finished = job.work_s - done_s <= DONE_S;
        let billed_s = match last_tick {
            LastTick::Prorated if finished => overhead_used + progress,
            _ => gap_s,
        };
        let k = usize::from(mode == Mode::OnDemand);
        billed[k] += billed_s;
        worked[k] += progress;
        if mode == Mode::Spot {
            spot_usd_s += billed_s * prices.spot_at(spot_prices.unwrap_or(&[]), tick);
        }
        if finished {
            out.finish_h = (tick as f64 * gap_s + overhead_used + progress) / 3600.0;
        }
        record(&mut ticks, dollars(&billed, spot_usd_s), done_s);
    }
    out.spot_h = billed[0] / 3600.0;
    out.on_demand_h = billed[1] / 3600.0;
    out.spot_work_h = worked[0] / 3600.0;
    out.on_demand_work_h = worked[1] / 3600.0;
    out.cost_usd = dollars(&billed, spot_usd_s);
    out.deadline_met = out.finish_h * 3600.0 <= job.deadline_s + 1e-6;
    Ok(out)
}
