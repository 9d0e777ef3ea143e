//! V, the value of an hour of progress in dollars per hour (paper §3.3; spec §2.7 "V
//! variants"): the price SkyNomad is willing to pay for progress now. Two forms reproduce
//! the published figures, and the artifact's code, not eq. 8, defines both.

use crate::zones::env::Env;

/// Which V a SkyNomad arm scores with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeValue {
    /// The H100 figures' arm (`unified_cost_model_risk`): V = 1.2 × the reference cost of
    /// finishing the work left on a mix of on-demand and the zones' spot (see
    /// [`ReferenceInputs`]).
    ReferenceCost,
    /// Fig. 9b's arm (`unified_cost_model_rate_ratio`; Table 2's "log-barrier (default)"):
    /// V = max(c_od·T·(P − p)/((T − t)·P), min_z s_z), the required rate over the planned one.
    RateRatio,
    /// One of Table 2's other closed forms (§A.7), floored at min_z s_z as the ablation
    /// runs them.
    Shape(VShape),
}

/// The closed forms of V that Table 2 (§A.7, the progress-value ablation) compares with
/// the log-barrier default, as the artifact's `_v_candidates.py` computes them. With t and
/// T the time elapsed and the deadline, p and P the work done and the work (seconds),
/// r = T·(P − p)/((T − t)·P) the required rate over the planned one:
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VShape {
    /// "α = 0.5": c_od·r^0.5.
    Alpha05,
    /// "Quadratic surrogate": c_od·t/(T − t)·(P − p)/P (0 at the start: the job idles
    /// until the surrogate grows).
    Quadratic,
    /// "HJB exponential": c_od·exp(r − 1), the exponent clipped to [−20, 20].
    HjbExp,
    /// "Time-only": c_od·t/(T − t), blind to progress.
    TimeOnly,
    /// "Neely DPP": c_od·(1 + q/(P − p)) with the virtual backlog q = max(0, P·t/T − p).
    NeelyDpp,
}

/// The artifact's "essentially infinite" V (`_v_candidates.BIG`): every shape is capped
/// at it and a non-finite value becomes ±it.
const BIG: f64 = 1e9;
/// The artifact's `_v_candidates.EPS`.
const EPS: f64 = 1e-9;

fn safe(x: f64) -> f64 {
    if !x.is_finite() {
        if x > 0.0 { BIG } else { -BIG }
    } else {
        x.min(BIG)
    }
}

impl VShape {
    /// V before the spot floor ($/h), from t, T, p, P in seconds and c_od in $/h.
    pub fn value(self, t: f64, t_total: f64, p: f64, p_total: f64, c_od: f64) -> f64 {
        let rem_t = t_total - t;
        let planned_ratio = || {
            if rem_t <= EPS || p_total <= EPS {
                BIG
            } else {
                (t_total * (p_total - p)) / (rem_t * p_total)
            }
        };
        match self {
            VShape::Alpha05 => {
                let r = planned_ratio();
                if r >= BIG {
                    return BIG;
                }
                safe(c_od * r.max(0.0).powf(0.5))
            }
            VShape::HjbExp => {
                let r = planned_ratio();
                if r >= BIG {
                    return BIG;
                }
                safe(c_od * (r - 1.0).clamp(-20.0, 20.0).exp())
            }
            VShape::Quadratic | VShape::TimeOnly if rem_t <= EPS => BIG,
            VShape::Quadratic => safe(c_od * (t / rem_t) * ((p_total - p) / p_total)),
            VShape::TimeOnly => safe(c_od * (t / rem_t)),
            VShape::NeelyDpp => {
                if t_total <= EPS {
                    return BIG;
                }
                let q = ((p_total / t_total) * t - p).max(0.0);
                let rem_work = p_total - p;
                if rem_work <= EPS {
                    return 0.0;
                }
                safe(c_od * (1.0 + q / rem_work))
            }
        }
    }
}

/// A Table 2 shape's V from the job's state: infinite past the deadline, 0 once the work is
/// done, else the shape's value floored at the cheapest spot price seen (the ablation's
/// default floor).
pub fn shape(env: &Env<'_>, shape: VShape, c_od: f64, c_spot_min: f64) -> f64 {
    let job = &env.setting().job;
    let (p_total, t_total) = (job.work_s, job.deadline_s);
    let (p, t) = (env.work_done_s(), env.elapsed_s());
    if t_total - t <= 0.0 {
        return f64::INFINITY;
    }
    if p_total - p <= 0.0 {
        return 0.0;
    }
    shape.value(t, t_total, p, p_total, c_od).max(c_spot_min)
}

/// Per zone, what the reference cost needs: its spot price as the policy last saw it, its
/// availability A_z over the last 12 h and its lifetime L̄_z (h, capped by the time left).
#[derive(Clone, Copy, Debug)]
pub struct ReferenceInputs {
    /// s_z as last seen, $/h.
    pub spot_per_h: f64,
    /// A_z ∈ [0, 1].
    pub availability: f64,
    /// L̄_z, h.
    pub lifetime_h: f64,
}

/// The rate-ratio V from the job's state, c_od = min o_z and the cheapest spot price seen.
pub fn rate_ratio(env: &Env<'_>, c_od: f64, c_spot_min: f64) -> f64 {
    let job = &env.setting().job;
    let (d, t_total) = (job.work_s, job.deadline_s);
    let remaining_work = d - env.work_done_s();
    let remaining_time = t_total - env.elapsed_s();
    if remaining_time <= 0.0 {
        return f64::INFINITY;
    }
    if remaining_work <= 0.0 {
        return 0.0;
    }
    let ratio = (remaining_work * t_total) / (remaining_time * d);
    (c_od * ratio).max(c_spot_min)
}

/// The reference cost's on-demand weight w (the artifact's "geometry"): where the line of
/// the recent progress rate ρ from (t, p) meets the line that finishes P at T with 2d to
/// spare, as a fraction of the time left.
fn on_demand_weight(env: &Env<'_>, rate: f64) -> f64 {
    let job = &env.setting().job;
    let (d_total, t_total) = (job.work_s, job.deadline_s);
    let p = env.work_done_s();
    let t = env.elapsed_s();
    let d = 2.0 * job.changeover_s;
    if t <= 0.0 {
        return 0.0;
    }
    if (p - t).abs() < 1e-6 {
        return 0.5;
    }
    if (rate - 1.0).abs() < 1e-6 {
        return 0.0;
    }
    let x = (rate * t - p + (d_total + d - t_total)) / (rate - 1.0);
    if x >= t_total {
        0.0
    } else if x <= 0.0 {
        1.0
    } else {
        ((t_total - x) / (t_total - t)).clamp(0.0, 1.0)
    }
}

/// ρ: progress over the last `window_h` hours per second of that window, in [0, 1]
/// (p/t, unclamped, before 600 s). `progress[k]` is the progress settled at tick k.
fn recent_rate(env: &Env<'_>, progress: &[f64], window_h: f64) -> f64 {
    let now = env.elapsed_s();
    if now < 600.0 {
        let p = env.work_done_s();
        return if now > 0.0 { p / now } else { 0.0 };
    }
    let start = (now - window_h * 3600.0).max(0.0);
    let start_tick = (start / env.setting().gap_s) as usize;
    let (mut before, mut all) = (0.0, 0.0);
    for (i, &w) in progress.iter().enumerate() {
        if i < start_tick {
            before += w;
        }
        all += w;
    }
    let span = now - start;
    let rate = if span > 0.0 {
        (all - before) / span
    } else {
        0.0
    };
    rate.clamp(0.0, 1.0)
}

/// The reference-cost V: 1.2 × c_ref, where c_ref ($/h of work) prices the work left C as
/// w·C on on-demand at c_od plus (1 − w)·C filled from the zones in order of their
/// lifetime-adjusted spot price s_z·L̄_z/(L̄_z − d), each up to A_z·(T − t)·(L̄_z − d)/L̄_z
/// seconds, the rest on on-demand; plus 0.02 $/GB of egress per extra zone used.
pub fn reference_cost(
    env: &Env<'_>,
    c_od: f64,
    zones: &[ReferenceInputs],
    progress: &[f64],
) -> f64 {
    let s = env.setting();
    let remaining_task = s.job.work_s - env.work_done_s();
    let remaining_time = s.job.deadline_s - env.elapsed_s();
    if remaining_time <= 0.0 {
        return f64::INFINITY;
    }
    if remaining_task <= 0.0 {
        return 0.0;
    }
    let restart_h = s.job.changeover_s / 3600.0;
    // (adjusted price, contribution s), in zone order, then sorted stably by price.
    let mut offers: Vec<(f64, f64)> = Vec::new();
    for z in zones {
        let l = z.lifetime_h;
        let rate = if l > restart_h {
            (l - restart_h) / l
        } else {
            0.0
        };
        let contribution = z.availability * remaining_time * rate;
        if contribution > 0.0 {
            let effective = (l - restart_h).max(1e-6);
            offers.push((z.spot_per_h * l / effective, contribution));
        }
    }
    offers.sort_by(|a, b| a.0.total_cmp(&b.0));
    let w = on_demand_weight(env, recent_rate(env, progress, 10.0)).clamp(0.0, 1.0);
    let od_assigned = w * remaining_task;
    let mut od_total = od_assigned;
    let spot_target = (remaining_task - od_assigned).max(0.0);
    let mut total = od_assigned / 3600.0 * c_od;
    let (mut spot_assigned, mut spot_cost, mut used) = (0.0, 0.0, 0_usize);
    for &(price, contribution) in &offers {
        if spot_assigned >= spot_target {
            break;
        }
        let take = contribution.min(spot_target - spot_assigned);
        if take <= 0.0 {
            continue;
        }
        used += 1;
        spot_cost += (take / 3600.0) * price;
        spot_assigned += take;
    }
    if spot_assigned < spot_target {
        let deficit = spot_target - spot_assigned;
        od_total += deficit;
        total += (deficit / 3600.0) * c_od;
    }
    total += spot_cost;
    let mut c_ref = total / (remaining_task / 3600.0).max(1e-6);
    let gb = s.checkpoint_gb;
    if (used > 0 || od_total > 0.0) && gb > 0.0 {
        let n = used + usize::from(od_total > 0.0);
        if n > 1 {
            let egress = (n - 1) as f64 * gb * 0.02;
            c_ref += egress / (remaining_task / 3600.0).max(1e-6);
        }
    }
    c_ref * 1.2
}

#[cfg(test)]
mod tests {
    use super::VShape::{self, *};

    /// Each Table 2 shape at a hand-computed point: T = 2 h, P = 1 h, c_od = $3/h, t = 1 h.
    #[test]
    fn the_table_2_shapes_by_hand() {
        let at = |s: VShape, p: f64| s.value(3600.0, 7200.0, p, 3600.0, 3.0);
        // On schedule (p = 0.5 h): r = T(P − p)/((T − t)P) = 1, q = 0.
        for (s, v) in [
            (Alpha05, 3.0),
            (HjbExp, 3.0),
            (Quadratic, 1.5),
            (TimeOnly, 3.0),
            (NeelyDpp, 3.0),
        ] {
            assert!((at(s, 1800.0) - v).abs() < 1e-12, "{s:?}");
        }
        // Behind (p = 0.25 h): r = 1.5, q = P·t/T − p = 900 s of 2,700 s left.
        for (s, v) in [
            (Alpha05, 3.0 * 1.5f64.sqrt()),
            (HjbExp, 3.0 * 0.5f64.exp()),
            (Quadratic, 2.25),
            (TimeOnly, 3.0),
            (NeelyDpp, 4.0),
        ] {
            assert!((at(s, 900.0) - v).abs() < 1e-12, "{s:?}");
        }
        // At the deadline every shape but Neely's is the artifact's "infinite" 1e9; past
        // the work Neely's is 0.
        assert_eq!(Quadratic.value(7200.0, 7200.0, 0.0, 3600.0, 3.0), 1e9);
        assert_eq!(Alpha05.value(7200.0, 7200.0, 0.0, 3600.0, 3.0), 1e9);
        assert_eq!(NeelyDpp.value(3600.0, 7200.0, 3600.0, 3600.0, 3.0), 0.0);
        // The exponent is clipped at 20.
        let far = HjbExp.value(7199.0, 7200.0, 0.0, 3600.0, 1.0);
        assert!((far - 20f64.exp()).abs() < 1e-6);
    }
}
