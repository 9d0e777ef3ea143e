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

/// Beyond this many states the DP refuses (its back-pointers take one byte each, so this is
/// also its memory in bytes), naming the settings that made the problem so large.
pub const MAX_STATES: usize = 400_000_000;

/// The longest tick or changeover the DP takes, in milliseconds (about 31 years): beyond
/// it the unit arithmetic could overflow.
const MAX_MS: f64 = 1e12;

/// The DP's discretisation of one job at one tick length.
#[derive(Clone, Debug)]
struct Grid {
    /// u = gcd(g, d) in milliseconds: the unit progress is counted in.
    unit_ms: u64,
    /// K + 1: run lengths tracked (j = 1..=K+1).
    runs: usize,
    /// Progress of the j-th tick of a run, in units (index j − 1).
    gains: Vec<usize>,
    /// P: units of work.
    work: usize,
    /// Progress slots: P + g/u (a state at or past P is done).
    width: usize,
    /// Cost of one tick on on-demand, dollars (a spot tick's: [`Grid::spot_costs`]).
    on_demand_tick_cost: f64,
    /// N instances and g seconds, to price a tick.
    instances: f64,
    gap_s: f64,
}

impl Grid {
    fn new(job: &Job, prices: &Prices, gap_s: f64) -> Result<Grid, SpotError> {
        let g = whole_ms(gap_s, "gap_seconds")?;
        let d = whole_ms(job.changeover_s, "changeover_h")?;
        let unit = if d == 0 { g } else { gcd(g, d) };
        let g_units = (g / unit) as usize;
        let d_units = (d / unit) as usize;
        let k = ceil_ticks(job.changeover_s, gap_s);
        let gains = (1..=k + 1)
            .map(|j| g_units.saturating_sub(d_units.saturating_sub((j - 1) * g_units)))
            .collect();
        let work = ((job.work_s * 1000.0 / unit as f64) - 1e-9).ceil().max(1.0);
        if !work.is_finite() || work > MAX_STATES as f64 {
            return Err(too_large(job, gap_s, unit, work, f64::INFINITY));
        }
        let work = work as usize;
        let n = f64::from(job.instances);
        Ok(Grid {
            unit_ms: unit,
            runs: k + 1,
            gains,
            work,
            width: work.saturating_add(g_units),
            on_demand_tick_cost: prices.on_demand_per_h * n * gap_s / 3600.0,
            instances: n,
            gap_s,
        })
    }

    /// The cost of a spot tick at each of the first `ticks` ticks, at
    /// [`Prices::spot_at`] (the same arithmetic as the flat tick cost).
    fn spot_costs(&self, prices: &Prices, spot_per_h: &[f64], ticks: usize) -> Vec<f64> {
        (0..ticks)
            .map(|t| prices.spot_at(spot_per_h, t) * self.instances * self.gap_s / 3600.0)
            .collect()
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

    /// Ticks that on-demand alone needs to finish from mode `m` with `p` units done: an
    /// on-demand run goes on (its next ticks' gains), any other mode starts one (paying d).
    fn on_demand_ticks(&self, m: usize, p: usize) -> usize {
        let mut left = self.work.saturating_sub(p);
        // The current on-demand run's length j (0: a new run starts).
        let mut j = m.saturating_sub(self.runs);
        let mut ticks = 0;
        while left > 0 {
            j = (j + 1).min(self.runs);
            let gain = self.gains[j - 1];
            if gain == 0 && j == self.runs {
                return usize::MAX; // no progress ever (cannot happen: the last gain is g/u)
            }
            left = left.saturating_sub(gain);
            ticks += 1;
        }
        ticks
    }

    fn gain(&self, m: usize) -> usize {
        if m == 0 {
            0
        } else {
            self.gains[(m - 1) % self.runs]
        }
    }
}

/// `s` seconds as whole milliseconds, the unit both exact optima count time in.
///
/// # Errors
/// [`SpotError::Input`] naming `field`: negative, beyond [`MAX_MS`] (the unit arithmetic
/// could overflow), or not a whole number of milliseconds.
pub(crate) fn whole_ms(s: f64, field: &str) -> Result<u64, SpotError> {
    let v = (s * 1000.0).round();
    if !(0.0..=MAX_MS).contains(&v) {
        return Err(SpotError::Input(format!(
            "{field}: {} s is out of the exact optimum's range (0 to {} s)",
            crate::model::short(s),
            MAX_MS / 1000.0
        )));
    }
    if (v - s * 1000.0).abs() > 1e-6 {
        return Err(SpotError::Input(format!(
            "{field}: the exact optimum needs whole milliseconds, not {s} s"
        )));
    }
    Ok(v as u64)
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The refusal of a DP with `states` states (`work` units of u = `unit_ms` ms), naming the
/// settings behind its size: the unit comes from the tick length and the changeover, the
/// units of work from C(0), the ticks from R(0).
fn too_large(job: &Job, gap_s: f64, unit_ms: u64, work: f64, states: f64) -> SpotError {
    let unit_s = unit_ms as f64 / 1000.0;
    let states = if states.is_finite() {
        format!("{states:.0}")
    } else {
        "more".into()
    };
    SpotError::Input(format!(
        "omniscient: the exact optimum would need {states} states, more than its limit of \
         {MAX_STATES}: progress is counted in units of gcd(tick length {} s, \
         changeover_h {} h) = {unit_s} s, so work_h {} h is {work:.0} units over {} ticks \
         of the deadline_h {} h; give a changeover that shares a larger unit with the tick \
         length (a whole number of {} s, say), a shorter job, or leave the omniscient \
         policies out",
        crate::model::short(gap_s),
        job.changeover_s / 3600.0,
        job.work_s / 3600.0,
        job.horizon_ticks(gap_s),
        job.deadline_s / 3600.0,
        suggested_unit_s(gap_s),
    ))
}

/// A changeover unit that keeps the DP small at tick length `gap_s`: a twentieth of the
/// tick (30 s at the paper's 600-s ticks), in whole seconds.
fn suggested_unit_s(gap_s: f64) -> f64 {
    (gap_s / 20.0).round().max(1.0)
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
    spot_cost: &[f64],
    start: (usize, usize),
    target: usize,
) -> Result<Solved, SpotError> {
    let (m_count, w) = (grid.modes(), grid.width);
    let states = avail.len().saturating_mul(m_count).saturating_mul(w);
    if states > MAX_STATES {
        return Err(SpotError::Input(format!(
            "the omniscient DP would need {states} states (more than {MAX_STATES})"
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
            let cost = if kind == 0 {
                spot_cost[t]
            } else {
                grid.on_demand_tick_cost
            };
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
    omniscient_priced(job, prices, &[], window, gap_s)
}

/// [`omniscient`] with the spot price of each tick of the window, $/h (tick 0 = the job's
/// start; the flat [`Prices::spot_per_h`] past the series' end), as [`crate::sim::run`]
/// bills it.
///
/// # Errors
/// As [`omniscient`].
pub fn omniscient_priced(
    job: &Job,
    prices: &Prices,
    spot_per_h: &[f64],
    window: &[bool],
    gap_s: f64,
) -> Result<Option<(f64, Vec<Mode>)>, SpotError> {
    let grid = Grid::new(job, prices, gap_s)?;
    check_size(job, &grid, gap_s)?;
    let avail = horizon(window, job.horizon_ticks(gap_s));
    let spot_cost = grid.spot_costs(prices, spot_per_h, avail.len());
    let solved = solve(&grid, &avail, &spot_cost, (0, 0), grid.work)?;
    Ok(solved
        .best_done(&grid, grid.work)
        .map(|(m, p, cost)| (cost, solved.plan(&grid, (m, p)))))
}

/// The partial-lookahead optimum (§5.3.2): the horizon cut into `slices` slices of whole
/// ticks (as Time Sliced); each slice sees only its own availability and, from the state the
/// last one ended in, takes the plan that minimises its cost per unit of progress among
/// those whose progress by the slice's end is at least C(0)·(slice end)/T (and at most C(0));
/// the last slice must finish. Progress already ahead of a slice's share may be kept at no
/// cost (ratio 0). A slice that cannot reach its share takes its largest progress.
///
/// Every slice's end state must leave the job able to finish on on-demand alone in the
/// ticks after it (a new on-demand run pays d; an on-demand run goes on without): on-demand
/// is always there, so this is no knowledge of the future, and without it a slice that
/// idles cheaply can leave the last one unable to finish (the paper's per-slice ILP would
/// then have no solution). With it the last slice always finishes. Returns the bill and the
/// modes; `None` only for a job that on-demand from the start cannot finish either.
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
    lookahead_priced(job, prices, &[], window, gap_s, slices)
}

/// [`lookahead`] with the spot price of each tick of the window, $/h, as
/// [`omniscient_priced`] takes it.
///
/// # Errors
/// As [`omniscient`].
pub fn lookahead_priced(
    job: &Job,
    prices: &Prices,
    spot_per_h: &[f64],
    window: &[bool],
    gap_s: f64,
    slices: u32,
) -> Result<Option<(f64, Vec<Mode>)>, SpotError> {
    let grid = Grid::new(job, prices, gap_s)?;
    check_size(job, &grid, gap_s)?;
    let horizon_ticks = job.horizon_ticks(gap_s);
    let avail = horizon(window, horizon_ticks);
    let spot_cost = grid.spot_costs(prices, spot_per_h, avail.len());
    let mut modes = Vec::with_capacity(horizon_ticks);
    let (mut state, mut total) = ((0usize, 0usize), 0.0);
    let mut begin = 0;
    for end in slice_ends(horizon_ticks, slices) {
        let share = if end == horizon_ticks {
            grid.work
        } else {
            (grid.work * end).div_ceil(horizon_ticks)
        };
        let after = horizon_ticks - end;
        let finishable = |m: usize, p: usize| grid.on_demand_ticks(m, p) <= after;
        let solved = solve(
            &grid,
            &avail[begin..end],
            &spot_cost[begin..end],
            state,
            share,
        )?;
        let mut pick = best_ratio(&grid, &solved, state.1, share, &finishable)
            .filter(|&(_, p, _)| p.min(grid.work) >= share);
        let mut solved = solved;
        if pick.is_none() {
            // The share cannot be reached (or not finishably): expand every state to take
            // the furthest finishable one.
            solved = solve(&grid, &avail[begin..end], &spot_cost[begin..end], state, 0)?;
            pick = best_ratio(&grid, &solved, state.1, share, &finishable);
        }
        let Some((m, p, cost)) = pick else {
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
    finishable: &dyn Fn(usize, usize) -> bool,
) -> Option<(usize, usize, f64)> {
    let w = grid.width;
    let mut best: Option<(f64, usize, usize, usize, f64)> = None; // ratio, progress, m, p, cost
    let mut furthest: Option<(usize, f64, usize, usize)> = None;
    for m in 0..grid.modes() {
        for p in 0..w {
            let cost = solved.last[m * w + p];
            if !cost.is_finite() || !finishable(m, p) {
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

/// Refuses, naming the settings, a job whose DP over its whole horizon would exceed
/// [`MAX_STATES`] (the lookahead's slices are smaller, but it is held to the same limit so
/// that both refuse the same settings).
///
/// # Errors
/// [`SpotError::Input`] from [`too_large`].
fn check_size(job: &Job, grid: &Grid, gap_s: f64) -> Result<(), SpotError> {
    let states = job.horizon_ticks(gap_s) as f64 * grid.modes() as f64 * grid.width as f64;
    if states > MAX_STATES as f64 {
        return Err(too_large(
            job,
            gap_s,
            grid.unit_ms,
            grid.work as f64,
            states,
        ));
    }
    Ok(())
}

/// Whether the exact optimum of `job` at tick length `gap_s` can be computed: `Ok` or the
/// refusal [`omniscient`] would give, without solving anything (what a run checks before
/// its first window).
///
/// # Errors
/// As [`omniscient`].
pub fn check_solvable(job: &Job, gap_s: f64) -> Result<(), SpotError> {
    let grid = Grid::new(job, &Prices::PAPER, gap_s)?;
    check_size(job, &grid, gap_s)
}

/// The first `ticks` entries of `window`, unavailable past its end.
fn horizon(window: &[bool], ticks: usize) -> Vec<bool> {
    (0..ticks)
        .map(|t| window.get(t).copied().unwrap_or(false))
        .collect()
}

/// The refusal of a job that no plan finishes within its T = ⌊R(0)/g⌋ ticks (a job that
/// passed [`Job::check`] always has one: on-demand from the start).
fn no_plan(job: &Job, gap_s: f64, policy: &str) -> SpotError {
    SpotError::Input(format!(
        "{policy}: no plan finishes work_h {} h within the {} ticks of {gap_s} s before \
         deadline_h {} h",
        job.work_s / 3600.0,
        job.horizon_ticks(gap_s),
        job.deadline_s / 3600.0
    ))
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
    spot_per_h: Vec<f64>,
    plan: Replay,
}

impl OptimumPlan {
    /// The optimum at `prices`.
    pub fn new(prices: Prices) -> OptimumPlan {
        OptimumPlan {
            prices,
            spot_per_h: Vec::new(),
            plan: Replay { modes: Vec::new() },
        }
    }
}

impl SpotPolicy for OptimumPlan {
    fn name(&self) -> String {
        "omniscient".into()
    }

    fn spot_prices(&mut self, per_tick: &[f64]) {
        self.spot_per_h = per_tick.to_vec();
    }

    fn reset(&mut self, job: &Job, window: &[bool], gap_s: f64) -> Result<(), SpotError> {
        // Never a substitute plan: an optimum that cannot be computed refuses the run, so
        // no row labelled `omniscient` holds anything but the optimum.
        let (_, modes) = omniscient_priced(job, &self.prices, &self.spot_per_h, window, gap_s)?
            .ok_or_else(|| no_plan(job, gap_s, "omniscient"))?;
        self.plan = Replay { modes };
        Ok(())
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        self.plan.mode(o.tick)
    }
}

/// The partial-lookahead optimum as a policy ([`lookahead`]).
#[derive(Clone, Debug)]
pub struct LookaheadPlan {
    prices: Prices,
    spot_per_h: Vec<f64>,
    slices: u32,
    plan: Replay,
}

impl LookaheadPlan {
    /// `slices` slices at `prices`.
    pub fn new(prices: Prices, slices: u32) -> LookaheadPlan {
        LookaheadPlan {
            prices,
            spot_per_h: Vec::new(),
            slices,
            plan: Replay { modes: Vec::new() },
        }
    }
}

impl SpotPolicy for LookaheadPlan {
    fn name(&self) -> String {
        format!("omniscient-lookahead:{}", self.slices)
    }

    fn spot_prices(&mut self, per_tick: &[f64]) {
        self.spot_per_h = per_tick.to_vec();
    }

    fn reset(&mut self, job: &Job, window: &[bool], gap_s: f64) -> Result<(), SpotError> {
        let (_, modes) = lookahead_priced(
            job,
            &self.prices,
            &self.spot_per_h,
            window,
            gap_s,
            self.slices,
        )?
        .ok_or_else(|| no_plan(job, gap_s, &self.name()))?;
        self.plan = Replay { modes };
        Ok(())
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        self.plan.mode(o.tick)
    }
}
