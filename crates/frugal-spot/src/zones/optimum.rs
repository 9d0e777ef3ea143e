//! The exact multi-zone offline optimum (spec §3.3): a shortest path over (tick, mode,
//! progress) under the environment's own rules ([`crate::zones::env`]), generalising the
//! single-zone DP of [`crate::optimum`].
//!
//! - Progress is counted in units u = gcd(g, d) (every tick's progress is a multiple of u);
//!   the job is done at P_u = ⌈(P − 10⁻³ s)/u⌉ units (the environment's done test).
//! - The mode after a tick is START (nothing has run), IDLE(z) (the checkpoint is in z), or
//!   the j-th tick of a spot or on-demand run in z, j capped at K + 1, K = ⌈d/g⌉.
//! - A tick idles (free: START stays START, anything else becomes IDLE of its zone),
//!   continues a run (spot only if the zone has spot in that tick), or starts a run in any
//!   zone z′ (spot only if available) from any mode but that same run, paying the tick's
//!   price and the egress E(location → z′) (0 from START or inside a cloud region).
//! - Only ticks i with i·g < T exist (⌈T/g⌉ of them); the answer is the cheapest way to
//!   reach P_u in them. With [`FinalTick::Omit`] the tick that completes the job costs
//!   nothing (neither its instance nor the egress of a start in it), as the artifact's
//!   figures report; with [`FinalTick::Bill`] it is billed whole.
//!
//! Ties go to the first candidate in the order examined: ticks ascending; within a tick,
//! source progress ascending, source modes in index order (START, IDLE by zone, then runs
//! by zone, spot before on-demand, shorter runs first), and per source: idle, continue,
//! then starts by zone, spot before on-demand. The DP's cost equals the environment's bill
//! for its plan, and no plan pays less (both tested, the second against brute force).

use crate::SpotError;
use crate::model::{Mode, POLICY_DONE_S, ceil_ticks};
use crate::optimum::{gcd, whole_ms};
use crate::zones::env::{Plan, ZonePolicy};
use crate::zones::model::{FinalTick, Setting};

/// Beyond this many (tick, mode, progress) states the DP refuses, naming the settings that
/// made it so large (its back-pointers take one byte each: this is also its memory in bytes).
pub const MAX_STATES: usize = 600_000_000;

/// The most modes a one-byte back-pointer can name.
const MAX_MODES: usize = 255;
const NONE: u8 = u8::MAX;

/// A solved optimum: its cost, its plan and the size of the problem.
#[derive(Clone, Debug)]
pub struct Optimum {
    /// The cost as the setting's [`FinalTick`] reports it, dollars.
    pub cost_usd: f64,
    /// Per tick: idle or the (zone, mode) that runs, up to the completing tick.
    pub plan: Plan,
    /// (tick, mode, progress) states in the slack band that the DP examined.
    pub states: usize,
}

struct Grid {
    zones: usize,
    /// K + 1: run lengths tracked.
    runs: usize,
    /// Progress of the j-th tick of a run, in units (index j − 1).
    gains: Vec<usize>,
    /// P_u.
    work: usize,
    /// The most progress one tick can make, g/u.
    full: usize,
    /// ⌈T/g⌉.
    ticks: usize,
}

impl Grid {
    fn modes(&self) -> usize {
        1 + self.zones + 2 * self.zones * self.runs
    }
    fn run(&self, z: usize, kind: usize, j: usize) -> usize {
        1 + self.zones + (2 * z + kind) * self.runs + (j - 1)
    }
    /// (zone, kind, j) of a run mode.
    fn decode(&self, m: usize) -> Option<(usize, usize, usize)> {
        let r = m.checked_sub(1 + self.zones)?;
        Some((r / (2 * self.runs), (r / self.runs) % 2, r % self.runs + 1))
    }
    /// The zone the checkpoint is in after mode `m` (None for START).
    fn location(&self, m: usize) -> Option<usize> {
        match m {
            0 => None,
            m if m <= self.zones => Some(m - 1),
            m => self.decode(m).map(|(z, _, _)| z),
        }
    }
}

fn kind_mode(kind: usize) -> Mode {
    if kind == 0 {
        Mode::Spot
    } else {
        Mode::OnDemand
    }
}

/// The exact optimum of `setting`.
///
/// # Errors
/// [`SpotError::Input`] from [`Setting::check`]; a tick length or cold start that is not a
/// whole number of milliseconds; a problem past [`MAX_STATES`] states or with more modes
/// than a byte names (refused naming the settings, never answered with a worse plan).
pub fn exact(setting: &Setting) -> Result<Optimum, SpotError> {
    setting.check()?;
    let grid = grid(setting)?;
    solve(setting, &grid)
}

fn grid(s: &Setting) -> Result<Grid, SpotError> {
    let g = whole_ms(s.gap_s, "gap_seconds")?;
    let d = whole_ms(s.job.changeover_s, "changeover_h")?;
    let unit = if d == 0 { g } else { gcd(g, d) };
    let (g_u, d_u) = ((g / unit) as usize, (d / unit) as usize);
    let k = ceil_ticks(s.job.changeover_s, s.gap_s);
    let gains = (1..=k + 1)
        .map(|j| g_u.saturating_sub(d_u.saturating_sub((j - 1) * g_u)))
        .collect();
    let work = (((s.job.work_s - POLICY_DONE_S) * 1000.0 / unit as f64) - 1e-9)
        .ceil()
        .max(1.0);
    let grid = Grid {
        zones: s.zones.len(),
        runs: k + 1,
        gains,
        work: work.min(usize::MAX as f64) as usize,
        full: g_u,
        ticks: s.horizon_ticks(),
    };
    let band = (grid.ticks as f64) * (grid.ticks as f64 * g_u as f64 - work + 1.0).max(1.0);
    let states = band * grid.modes() as f64;
    if grid.modes() > MAX_MODES || states.is_nan() || states > MAX_STATES as f64 {
        return Err(SpotError::Input(format!(
            "optimum: the exact multi-zone optimum would need {states:.0} states over {} modes \
             (limits {MAX_STATES} and {MAX_MODES}): {} zones, runs tracked to K + 1 = {} ticks \
             (changeover_h {} h at ticks of {} s), progress in units of {} s over {} ticks; \
             give fewer zones, a changeover sharing a larger unit with the tick, or a shorter \
             deadline",
            grid.modes(),
            grid.zones,
            grid.runs,
            s.job.changeover_s / 3600.0,
            s.gap_s,
            unit as f64 / 1000.0,
            grid.ticks
        )));
    }
    Ok(grid)
}

/// The best way found to finish: at `tick`, from (`from`, `p`) into `to`.
#[derive(Clone, Copy)]
struct Finish {
    cost: f64,
    tick: usize,
    from: usize,
    p: usize,
    to: usize,
}

fn solve(s: &Setting, grid: &Grid) -> Result<Optimum, SpotError> {
    let (m_count, z_count, runs) = (grid.modes(), grid.zones, grid.runs);
    let work = grid.work;
    let g = s.gap_s;
    let omit = s.final_tick == FinalTick::Omit;
    // cost[m * work + p]: the cheapest way to be in mode m with p < P_u units done.
    let mut cost = vec![f64::INFINITY; m_count * work];
    cost[0] = 0.0;
    let mut next = vec![f64::INFINITY; m_count * work];
    // Per tick: the band [lo, hi] of progress after it and, per (mode, p), the predecessor.
    let mut back: Vec<(usize, usize, Vec<u8>)> = Vec::with_capacity(grid.ticks);
    let (mut lo_prev, mut hi_prev) = (0usize, 0usize);
    let mut best: Option<Finish> = None;
    let mut states = 0usize;
    let egress: Vec<Vec<f64>> = (0..z_count)
        .map(|a| (0..z_count).map(|b| s.egress(a, b)).collect())
        .collect();
    for t in 0..grid.ticks {
        let lo = work.saturating_sub((grid.ticks - t - 1).saturating_mul(grid.full));
        let hi = (work - 1).min((t + 1).saturating_mul(grid.full));
        let width = (hi + 1).saturating_sub(lo);
        let mut bp = vec![NONE; m_count * width];
        for m in 0..m_count {
            next[m * work + lo.min(work)..m * work + (hi + 1).min(work)].fill(f64::INFINITY);
        }
        let tick_price = |z: usize, kind: usize| s.zones[z].price(kind_mode(kind), t) * g / 3600.0;
        let spot = |z: usize| s.zones[z].spot_at(t);
        let relax = |to: usize,
                     p: usize,
                     c: f64,
                     from: usize,
                     src_p: usize,
                     extra: f64,
                     next: &mut Vec<f64>,
                     bp: &mut Vec<u8>,
                     best: &mut Option<Finish>| {
            if p >= work {
                let c = if omit { c } else { c + extra };
                if best.is_none_or(|b| c < b.cost) {
                    *best = Some(Finish {
                        cost: c,
                        tick: t,
                        from,
                        p: src_p,
                        to,
                    });
                }
            } else if p >= lo && p <= hi {
                let c = c + extra;
                let i = to * work + p;
                if c < next[i] {
                    next[i] = c;
                    bp[to * width + (p - lo)] = from as u8;
                }
            }
        };
        for p in lo_prev..=hi_prev.min(work - 1) {
            if t == 0 && p > 0 {
                break;
            }
            // The cheapest source per location, by class: 0 idle (START/IDLE), 1 spot run,
            // 2 on-demand run; index 0 is START's location, z + 1 is zone z.
            let mut loc_best = vec![[(f64::INFINITY, usize::MAX); 3]; z_count + 1];
            for m in 0..m_count {
                let c = cost[m * work + p];
                if !c.is_finite() {
                    continue;
                }
                states += 1;
                let loc = grid.location(m).map_or(0, |z| z + 1);
                let class = grid.decode(m).map_or(0, |(_, kind, _)| kind + 1);
                if c < loc_best[loc][class].0 {
                    loc_best[loc][class] = (c, m);
                }
                // Idle.
                let idle = match grid.location(m) {
                    None => 0,
                    Some(z) => 1 + z,
                };
                relax(idle, p, c, m, p, 0.0, &mut next, &mut bp, &mut best);
                // Continue a run.
                if let Some((z, kind, j)) = grid.decode(m)
                    && (kind == 1 || spot(z))
                {
                    let j2 = (j + 1).min(runs);
                    let to = grid.run(z, kind, j2);
                    let gain = grid.gains[j2 - 1];
                    relax(
                        to,
                        p + gain,
                        c,
                        m,
                        p,
                        tick_price(z, kind),
                        &mut next,
                        &mut bp,
                        &mut best,
                    );
                }
            }
            // Start a run in z′ of `kind` from the cheapest allowed source of each location.
            // z′ indexes the zones, their egress column and the run modes alike.
            #[allow(clippy::needless_range_loop)]
            for z2 in 0..z_count {
                for kind in 0..2 {
                    if kind == 0 && !spot(z2) {
                        continue;
                    }
                    let mut pick = (f64::INFINITY, usize::MAX, 0.0);
                    for (loc, classes) in loc_best.iter().enumerate() {
                        let e = if loc == 0 { 0.0 } else { egress[loc - 1][z2] };
                        for (class, &(c, m)) in classes.iter().enumerate() {
                            // The run itself cannot be started again from itself.
                            if m == usize::MAX || (loc == z2 + 1 && class == kind + 1) {
                                continue;
                            }
                            if c + e < pick.0 || (c + e == pick.0 && m < pick.1) {
                                pick = (c + e, m, e);
                            }
                        }
                    }
                    if pick.1 == usize::MAX {
                        continue;
                    }
                    let (c, m, e) = pick;
                    let to = grid.run(z2, kind, 1);
                    let gain = grid.gains[0];
                    relax(
                        to,
                        p + gain,
                        c - e,
                        m,
                        p,
                        tick_price(z2, kind) + e,
                        &mut next,
                        &mut bp,
                        &mut best,
                    );
                }
            }
        }
        std::mem::swap(&mut cost, &mut next);
        back.push((lo, hi, bp));
        (lo_prev, hi_prev) = (lo, hi);
        if lo > hi {
            break;
        }
    }
    let Some(fin) = best else {
        return Err(SpotError::Input(format!(
            "optimum: no plan finishes {} h of work in the {} ticks before the deadline",
            s.job.work_s / 3600.0,
            grid.ticks
        )));
    };
    // The plan, rebuilt backwards from the finishing tick.
    let as_step = |m: usize| grid.decode(m).map(|(z, kind, _)| (z, kind_mode(kind)));
    let mut plan = vec![None; fin.tick + 1];
    plan[fin.tick] = as_step(fin.to);
    let (mut m, mut p) = (fin.from, fin.p);
    for t in (0..fin.tick).rev() {
        plan[t] = as_step(m);
        let (lo, _, bp) = &back[t];
        let width = bp.len() / m_count;
        let from = bp[m * width + (p - lo)] as usize;
        if let Some((_, _, j)) = grid.decode(m) {
            p -= grid.gains[j - 1];
        }
        m = from;
    }
    debug_assert_eq!((m, p), (0, 0));
    Ok(Optimum {
        cost_usd: fin.cost,
        plan: Plan(plan),
        states,
    })
}

/// The exact optimum as a policy: solves at reset, then plays its plan.
#[derive(Clone, Debug, Default)]
pub struct Exact {
    plan: Option<Plan>,
}

impl ZonePolicy for Exact {
    fn name(&self) -> String {
        crate::zones::policy::ZonePolicyName::Optimal.to_string()
    }

    fn reset(&mut self, setting: &Setting) -> Result<(), SpotError> {
        self.plan = Some(exact(setting)?.plan);
        Ok(())
    }

    fn act(&mut self, env: &mut crate::zones::env::Env<'_>) {
        if let Some(plan) = &mut self.plan {
            plan.act(env);
        }
    }

    /// The offline optimum plans its own finish (the artifact exempts its oracle too).
    fn safety_net(&self) -> bool {
        false
    }
}
