//! The omniscient optimum (paper §5.3.1) as an exact dynamic programme over ticks, and the
//! partial-lookahead optimum (§5.3.2, §A.3) built on it (spec §2.7–2.8).
//!
//! The paper solves an ILP with CBC; under the tick semantics of [`crate::sim`] the same
//! optimum is a shortest path over states (mode, progress):
//!
//! - progress is counted in units u = gcd(g, d) (every tick's progress, g or
//!   max(0, g − max(0, d − (j − 1)·g)), is a multiple of u), P = ⌈C(0)/u⌉ units to go;
//! - the mode after a tick is idle, or the j-th tick of a spot or on-demand run, j capped at
//!   K + 1 with K = ⌈d/g⌉ (from then on a tick makes a full g of progress);
//! - a tick is idle (free, from any state), spot (only if available; continuing a spot run
//!   or starting one from idle or on-demand) or on-demand (likewise), billed whole;
//! - the job must reach P within the horizon T = ⌊R(0)/g⌋ ticks; once there it idles.
//!
//! That is T·(2K + 3)·(P + g/u) states: 360 × 7 × 1,446 ≈ 3.6 M for a 48-h job with
//! a 60-h deadline at 10-min ticks and d = 0.2 h, a few milliseconds. Ties go to the mode
//! examined first (idle, then spot, then on-demand; shorter runs first), so the plan is
//! deterministic. The DP's cost equals the simulator's bill for its plan (tested), and no
//! policy meeting the deadline within T ticks pays less (tested against brute force).

use crate::SpotError;
use crate::model::{Job, Mode, Prices, ceil_ticks};
use crate::policy::slice_ends;
use crate::policy::{Observation, SpotPolicy};

/// Beyond this many states the DP refuses (its back-pointers take one byte each).
const MAX_STATES: usize = 400_000_000;

/// The DP's discretisation of one job at one tick length.
#[derive(Clone, Debug)]
struct Grid {
    /// K + 1: run lengths tracked (j = 1..=K+1).
    runs: usize,
    /// Progress of the j-th tick of a run, in units (index j − 1).
    gains: Vec<usize>,
    /// P: units of work.
    work: usize,
    /// Progress slots: P + g/u (a state at or past P is done).
    width: usize,
    /// Cost of one tick on spot and on on-demand, dollars.
    tick_cost: [f64; 2],
}

impl Grid {
    fn new(job: &Job, prices: &Prices, gap_s: f64) -> Result<Grid, SpotError> {
        let ms = |s: f64, field: &str| -> Result<u64, SpotError> {
            let v = (s * 1000.0).round();
            if (v - s * 1000.0).abs() > 1e-6 || v < 0.0 {
                return Err(SpotError::Input(format!(
                    "{field}: the omniscient DP needs whole milliseconds, not {s} s"
                )));
            }
            Ok(v as u64)
        };
        let g = ms(gap_s, "gap_seconds")?;
        let d = ms(job.changeover_s, "changeover_h")?;
        let unit = if d == 0 { g } else { gcd(g, d) };
        let g_units = (g / unit) as usize;
        let d_units = (d / unit) as usize;
        let k = ceil_ticks(job.changeover_s, gap_s);
        let gains = (1..=k + 1)
            .map(|j| g_units.saturating_sub(d_units.saturating_sub((j - 1) * g_units)))
            .collect();
        let work = ((job.work_s * 1000.0 / unit as f64) - 1e-9).ceil().max(1.0) as usize;
        let n = f64::from(job.instances);
        Ok(Grid {
            runs: k + 1,
            gains,
            work,
            width: work + g_units,
            tick_cost: [
                prices.spot_per_h * n * gap_s / 3600.0,
                prices.on_demand_per_h * n * gap_s / 3600.0,
            ],
        })
    }

    /// 1 + 2(K + 1) modes: idle, spot runs, on-demand runs.
    fn modes(&self) -> usize {
        1 + 2 * self.runs
    }

    /// The mode index of the j-th tick (1-based) of a run of `kind` (0 spot, 1 on-demand).
    fn index(&self, kind: usize, j: usize) -> usize {
        1 + kind * self.runs + (j - 1)
    }

    fn mode(&self, m: usize) -> Mode {
        match m {
            0 => Mode::Idle,
            m if m <= self.runs => Mode::Spot,
            _ => Mode::OnDemand,
        }
    }

    fn gain(&self, m: usize) -> usize {
        if m == 0 {
            0
        } else {
            self.gains[(m - 1) % self.runs]
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A solved DP: the cost of every end state and the back-pointers to rebuild its plan.
struct Solved {
    ticks: usize,
    /// Cost of each (mode, progress) after the last tick, `INFINITY` where unreachable.
    last: Vec<f64>,
    /// Predecessor mode of each (tick, mode, progress).
    back: Vec<u8>,
}

/// Runs the DP over `avail` (one entry per tick) from the state `start` (mode index,
/// progress units). States that cannot reach `target` units by the last tick even at full
/// speed, and progress beyond what the ticks so far could make, are never expanded: at
/// tick t only progress in [target − (n − t)·g/u, start + t·g/u] is live — the slack band,
/// a fifth of the states for f = 0.8.
fn solve(
    grid: &Grid,
    avail: &[bool],
    start: (usize, usize),
    target: usize,
) -> Result<Solved, SpotError> {
    let (m_count, w) = (grid.modes(), grid.width);
    let states = avail.len().saturating_mul(m_count).saturating_mul(w);
    if states > MAX_STATES {
        return Err(SpotError::Input(format!(
            "the omniscient DP would need {states} states (more than {MAX_STATES}): a \
             changeover that shares no larger unit with the tick length"
        )));
    }
    let mut cur = vec![f64::INFINITY; m_count * w];
    cur[start.0 * w + start.1] = 0.0;
    let mut next = vec![f64::INFINITY; m_count * w];
    let mut back = vec![0u8; states];
    let mut from_other = vec![(f64::INFINITY, 0u8); w];
    let full = *grid.gains.last().expect("K + 1 ≥ 1 gains");
    let n = avail.len();
    for (t, &available) in avail.iter().enumerate() {
        next.fill(f64::INFINITY);
        let bp = &mut back[t * m_count * w..(t + 1) * m_count * w];
        let lo = target.saturating_sub((n - t) * full);
        let hi = (start.1 + t * full).min(w - 1);
        if lo > hi {
            // Nothing can reach the target any more.
            cur.fill(f64::INFINITY);
            break;
        }
        let running = lo..(hi + 1).min(grid.work);
        // Idle: from any state, free.
        for m in 0..m_count {
            for p in lo..=hi {
                let v = cur[m * w + p];
                if v < next[p] {
                    next[p] = v;
                    bp[p] = m as u8;
                }
            }
        }
        for kind in 0..2 {
            if kind == 0 && !available {
                continue;
            }
            let cost = grid.tick_cost[kind];
            // A new run starts from idle or from a run of the other kind.
            for p in running.clone() {
                from_other[p] = (cur[p], 0);
            }
            for j in 1..=grid.runs {
                let m = grid.index(1 - kind, j);
                for p in running.clone() {
                    let v = cur[m * w + p];
                    if v < from_other[p].0 {
                        from_other[p] = (v, m as u8);
                    }
                }
            }
            let first = grid.index(kind, 1);
            let gain = grid.gains[0];
            for p in running.clone() {
                let (v, m) = from_other[p];
                let (to, c) = (first * w + p + gain, v + cost);
                if c < next[to] {
                    next[to] = c;
                    bp[to] = m;
                }
            }
            // A run goes on: j → j + 1, and K + 1 → K + 1.
            for j in 1..=grid.runs {
                let m = grid.index(kind, j);
                let to_mode = grid.index(kind, (j + 1).min(grid.runs));
                let gain = grid.gains[to_mode - grid.index(kind, 1)];
                for p in running.clone() {
                    let c = cur[m * w + p] + cost;
                    let to = to_mode * w + p + gain;
                    if c < next[to] {
                        next[to] = c;
                        bp[to] = m as u8;
                    }
                }
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(Solved {
        ticks: avail.len(),
        last: cur,
        back,
    })
}

impl Solved {
    /// The cheapest end state with at least `min_units` of progress.
    fn best_done(&self, grid: &Grid, min_units: usize) -> Option<(usize, usize, f64)> {
        let w = grid.width;
        let mut best: Option<(usize, usize, f64)> = None;
        for m in 0..grid.modes() {
            for p in min_units..w {
                let v = self.last[m * w + p];
                if v.is_finite() && best.is_none_or(|(_, _, b)| v < b) {
                    best = Some((m, p, v));
                }
            }
        }
        best
    }

    /// The mode of every tick on the way to the end state `end`.
    fn plan(&self, grid: &Grid, end: (usize, usize)) -> Vec<Mode> {
        let (m_count, w) = (grid.modes(), grid.width);
        let mut modes = vec![Mode::Idle; self.ticks];
        let (mut m, mut p) = end;
        for t in (0..self.ticks).rev() {
            modes[t] = grid.mode(m);
            let prev = self.back[t * m_count * w + m * w + p] as usize;
            p -= grid.gain(m);
            m = prev;
        }
        modes
    }
}

/// The omniscient optimum of `job` on `window` (tick 0 = the job's start; ticks past its
/// end have no spot): its bill in dollars and its mode per tick, or `None` when no plan
/// finishes within T = ⌊R(0)/g⌋ ticks.
///
/// # Errors
/// [`SpotError::Input`] for a tick length or changeover that is not whole milliseconds, or a
/// problem too large for the DP.
pub fn omniscient(
    job: &Job,
    prices: &Prices,
    window: &[bool],
    gap_s: f64,
) -> Result<Option<(f64, Vec<Mode>)>, SpotError> {
    let grid = Grid::new(job, prices, gap_s)?;
    let avail = horizon(window, job.horizon_ticks(gap_s));
    let solved = solve(&grid, &avail, (0, 0), grid.work)?;
    Ok(solved
        .best_done(&grid, grid.work)
        .map(|(m, p, cost)| (cost, solved.plan(&grid, (m, p)))))
}

/// The partial-lookahead optimum (§5.3.2): the horizon cut into `slices` slices of whole
/// ticks (as Time Sliced); each slice sees only its own availability and, from the state the
/// last one ended in, takes the plan that minimises its cost per unit of progress among
/// those whose progress by the slice's end is at least C(0)·(slice end)/T (and at most C(0));
/// the last slice must finish. Progress already ahead of a slice's share may be kept at no
/// cost (ratio 0). A slice that cannot reach its share takes its largest progress. Returns
/// the bill and the modes, or `None` if the last slice cannot finish.
///
/// # Errors
/// As [`omniscient`].
pub fn lookahead(
    job: &Job,
    prices: &Prices,
    window: &[bool],
    gap_s: f64,
    slices: u32,
) -> Result<Option<(f64, Vec<Mode>)>, SpotError> {
    let grid = Grid::new(job, prices, gap_s)?;
    let horizon_ticks = job.horizon_ticks(gap_s);
    let avail = horizon(window, horizon_ticks);
    let mut modes = Vec::with_capacity(horizon_ticks);
    let (mut state, mut total) = ((0usize, 0usize), 0.0);
    let mut begin = 0;
    for end in slice_ends(horizon_ticks, slices) {
        let share = if end == horizon_ticks {
            grid.work
        } else {
            (grid.work * end).div_ceil(horizon_ticks)
        };
        let mut solved = solve(&grid, &avail[begin..end], state, share)?;
        if solved.last.iter().all(|v| !v.is_finite()) {
            // The share cannot be reached: expand every state to take the furthest one.
            solved = solve(&grid, &avail[begin..end], state, 0)?;
        }
        let Some((m, p, cost)) = best_ratio(&grid, &solved, state.1, share) else {
            return Ok(None);
        };
        if end == horizon_ticks && p < grid.work {
            return Ok(None);
        }
        modes.extend(solved.plan(&grid, (m, p)));
        total += cost;
        state = (m, p.min(grid.work));
        begin = end;
    }
    Ok(Some((total, modes)))
}

/// The end state of a slice with the least cost per unit of progress among those with at
/// least `share` units (progress beyond P counts as P); if none reaches `share`, the one
/// with the most progress (then the least cost).
fn best_ratio(
    grid: &Grid,
    solved: &Solved,
    from: usize,
    share: usize,
) -> Option<(usize, usize, f64)> {
    let w = grid.width;
    let mut best: Option<(f64, usize, usize, usize, f64)> = None; // ratio, progress, m, p, cost
    let mut furthest: Option<(usize, f64, usize, usize)> = None;
    for m in 0..grid.modes() {
        for p in 0..w {
            let cost = solved.last[m * w + p];
            if !cost.is_finite() {
                continue;
            }
            let made = p.min(grid.work);
            if furthest.is_none_or(|(f, c, _, _)| made > f || (made == f && cost < c)) {
                furthest = Some((made, cost, m, p));
            }
            if made < share {
                continue;
            }
            let gained = made.saturating_sub(from);
            let ratio = if gained == 0 {
                if cost == 0.0 { 0.0 } else { f64::INFINITY }
            } else {
                cost / gained as f64
            };
            let better = best.is_none_or(|(r, g, ..)| ratio < r || (ratio == r && made > g));
            if ratio.is_finite() && better {
                best = Some((ratio, made, m, p, cost));
            }
        }
    }
    best.map(|(_, _, m, p, c)| (m, p, c))
        .or(furthest.map(|(_, c, m, p)| (m, p, c)))
}

/// The first `ticks` entries of `window`, unavailable past its end.
fn horizon(window: &[bool], ticks: usize) -> Vec<bool> {
    (0..ticks)
        .map(|t| window.get(t).copied().unwrap_or(false))
        .collect()
}

/// A plan computed when a run starts, replayed tick by tick; on-demand where it has none
/// (a job the plan cannot finish in time, or ticks past the plan).
#[derive(Clone, Debug, Default)]
pub(crate) struct Replay {
    pub(crate) modes: Vec<Mode>,
}

impl Replay {
    pub(crate) fn mode(&self, tick: usize) -> Mode {
        self.modes.get(tick).copied().unwrap_or(Mode::OnDemand)
    }
}

/// The omniscient optimum as a policy: [`omniscient`]'s plan, computed from the window when
/// the run starts.
#[derive(Clone, Debug)]
pub struct OptimumPlan {
    prices: Prices,
    plan: Replay,
}

impl OptimumPlan {
    /// The optimum at `prices`.
    pub fn new(prices: Prices) -> OptimumPlan {
        OptimumPlan {
            prices,
            plan: Replay { modes: Vec::new() },
        }
    }
}

impl SpotPolicy for OptimumPlan {
    fn name(&self) -> String {
        "omniscient".into()
    }

    fn reset(&mut self, job: &Job, window: &[bool], gap_s: f64) {
        // An error (a changeover of no common unit) leaves on-demand, the feasible plan;
        // experiments check the job first, so it does not arise there.
        let modes = omniscient(job, &self.prices, window, gap_s)
            .ok()
            .flatten()
            .map(|(_, m)| m)
            .unwrap_or_default();
        self.plan = Replay { modes };
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        self.plan.mode(o.tick)
    }
}

/// The partial-lookahead optimum as a policy ([`lookahead`]).
#[derive(Clone, Debug)]
pub struct LookaheadPlan {
    prices: Prices,
    slices: u32,
    plan: Replay,
}

impl LookaheadPlan {
    /// `slices` slices at `prices`.
    pub fn new(prices: Prices, slices: u32) -> LookaheadPlan {
        LookaheadPlan {
            prices,
            slices,
            plan: Replay { modes: Vec::new() },
        }
    }
}

impl SpotPolicy for LookaheadPlan {
    fn name(&self) -> String {
        format!("omniscient-lookahead:{}", self.slices)
    }

    fn reset(&mut self, job: &Job, window: &[bool], gap_s: f64) {
        let modes = lookahead(job, &self.prices, window, gap_s, self.slices)
            .ok()
            .flatten()
            .map(|(_, m)| m)
            .unwrap_or_default();
        self.plan = Replay { modes };
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        self.plan.mode(o.tick)
    }
}
