//! The authors' plotted "Omniscient": the `quick_optimal` heuristic (spec §2.7 note, §5
//! item 8), as their plotting script labels it — not the paper's exact optimum, which is
//! [`crate::optimum::omniscient`].
//!
//! frugal's reading of its description: for every i, run on spot through the i longest spot
//! runs of the horizon (each paying its changeover), then make the rest of the work on
//! on-demand in the longest unavailable stretches (gaps), longest first, each stretch
//! paying its changeover and using only the ticks it needs; keep the cheapest i. The sliced
//! variant ("Omniscient (8 slices)") does the same in each of n slices of whole ticks for
//! the slice's share of the work (in proportion to its length), each slice on its own.
//! Plans are replayed by the simulator, so their bills follow the same tick rules.

use crate::SpotError;
use crate::model::{Job, Mode, Prices, ceil_ticks};
use crate::optimum::Replay;
use crate::policy::{Observation, SpotPolicy, slice_ends};

/// Maximal runs of equal availability in `avail`: (start, length, available).
fn runs(avail: &[bool]) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=avail.len() {
        if i == avail.len() || avail[i] != avail[start] {
            out.push((start, i - start, avail[start]));
            start = i;
        }
    }
    out
}

/// The plan of one stretch `avail` (ticks from its own 0) for `work_s` of progress: modes per
/// tick, or `None` if even every gap on on-demand cannot make it.
fn plan(
    work_s: f64,
    avail: &[bool],
    gap_s: f64,
    changeover_s: f64,
    cost: impl Fn(&[Mode]) -> f64,
) -> Option<Vec<Mode>> {
    let all = runs(avail);
    let mut spot: Vec<(usize, usize)> = all.iter().filter(|r| r.2).map(|r| (r.0, r.1)).collect();
    let mut gaps: Vec<(usize, usize)> = all.iter().filter(|r| !r.2).map(|r| (r.0, r.1)).collect();
    // Longest first; ties to the earlier run.
    spot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    gaps.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let progress = |len: usize| (len as f64 * gap_s - changeover_s).max(0.0);
    let mut best: Option<(f64, Vec<Mode>)> = None;
    for i in 0..=spot.len() {
        let mut modes = vec![Mode::Idle; avail.len()];
        let mut left = work_s;
        for &(start, len) in &spot[..i] {
            modes[start..start + len].fill(Mode::Spot);
            left -= progress(len);
        }
        for &(start, len) in &gaps {
            if left <= 0.0 {
                break;
            }
            let ticks = ceil_ticks(left + changeover_s, gap_s).min(len);
            modes[start..start + ticks].fill(Mode::OnDemand);
            left -= progress(ticks);
        }
        if left > 1e-6 {
            continue;
        }
        let c = cost(&modes);
        if best.as_ref().is_none_or(|(b, _)| c < *b) {
            best = Some((c, modes));
        }
    }
    best.map(|(_, m)| m)
}

/// The quick-optimal plan of `job` on `window` with `slices` slices (1: the whole horizon);
/// a stretch's plan is priced by its ticks (every planned tick billed).
fn quick(
    job: &Job,
    prices: &Prices,
    spot_per_h: &[f64],
    window: &[bool],
    gap_s: f64,
    slices: u32,
) -> Vec<Mode> {
    let horizon = job.horizon_ticks(gap_s);
    let avail: Vec<bool> = (0..horizon)
        .map(|t| window.get(t).copied().unwrap_or(false))
        .collect();
    let mut modes = Vec::with_capacity(horizon);
    let mut begin = 0;
    for end in slice_ends(horizon, slices) {
        // A spot tick at its own price where the trace has one, else the flat price.
        let price = |modes: &[Mode]| {
            modes
                .iter()
                .enumerate()
                .map(|(t, &m)| match m {
                    Mode::Spot => prices.spot_at(spot_per_h, begin + t),
                    _ => prices.of(m),
                })
                .sum::<f64>()
        };
        let share = job.work_s * (end - begin) as f64 / horizon.max(1) as f64;
        let stretch = &avail[begin..end];
        let part = plan(share, stretch, gap_s, job.changeover_s, price)
            .unwrap_or_else(|| vec![Mode::OnDemand; stretch.len()]);
        modes.extend(part);
        begin = end;
    }
    modes
}

/// The quick-optimal heuristic as a policy (`quick-optimal`, `quick-optimal:N`).
#[derive(Clone, Debug)]
pub struct QuickOptimal {
    prices: Prices,
    spot_per_h: Vec<f64>,
    slices: u32,
    plan: Replay,
}

impl QuickOptimal {
    /// Over the whole horizon (`slices` = 1) or in `slices` slices.
    pub fn new(prices: Prices, slices: u32) -> QuickOptimal {
        QuickOptimal {
            prices,
            spot_per_h: Vec::new(),
            slices: slices.max(1),
            plan: Replay::default(),
        }
    }
}

impl SpotPolicy for QuickOptimal {
    fn name(&self) -> String {
        if self.slices == 1 {
            "quick-optimal".into()
        } else {
            format!("quick-optimal:{}", self.slices)
        }
    }

    fn spot_prices(&mut self, per_tick: &[f64]) {
        self.spot_per_h = per_tick.to_vec();
    }

    fn reset(&mut self, job: &Job, window: &[bool], gap_s: f64) -> Result<(), SpotError> {
        self.plan = Replay {
            modes: quick(
                job,
                &self.prices,
                &self.spot_per_h,
                window,
                gap_s,
                self.slices,
            ),
        };
        Ok(())
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        self.plan.mode(o.tick)
    }
}
