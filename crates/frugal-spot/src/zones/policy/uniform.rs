//! Uniform Progress across zones (spec §2.2, §2.4; the artifact's
//! `multi_region_rc_cr_threshold` and `…_eager_failover`).
//!
//! The core decides the kind of capacity as paper 005's Uniform Progress does, assuming
//! spot can be had, with the multi-zone code's rules (one differs from the single-zone
//! policy: leaving on-demand needs ⌈(C + 2d)/g⌉·g > rem, strictly, where single-zone UP
//! uses ≥). The variants differ in where they look for it.

use crate::SpotError;
use crate::model::{Mode, POLICY_DONE_S};
use crate::zones::env::{Env, ZonePolicy};
use crate::zones::model::Setting;

/// The core's pick for the current tick: the kind of capacity (idle, spot, on-demand) and
/// whether it is the hysteresis exit from on-demand (ahead of uniform progress by 2d with
/// spot assumed: the caller stays idle rather than fall back to on-demand when no spot is
/// found). Spec §2.2; the artifact's `_compute_request_type`, its floating-point order kept.
pub fn core(env: &Env<'_>, current: Mode, has_spot: bool) -> (Mode, bool) {
    let s = env.setting();
    let (g, d) = (s.gap_s, s.job.changeover_s);
    let (c0, r0, t) = (s.job.work_s, s.job.deadline_s, env.elapsed_s());
    let ct = s.job.work_s - env.work_done_s();
    let behind = c0 - ct - t * c0 / r0; // cp − ep(t)
    let ahead_2d = (t + 2.0 * d) * c0 / r0 - (c0 - ct); // ep(t + 2d) − cp
    let rem = ((r0 - t) / g).floor() * g;
    let need1 = ((ct + d) / g).ceil() * g;
    let need2 = ((ct + 2.0 * d) / g).ceil() * g;
    let mut pick = if has_spot { Mode::Spot } else { Mode::Idle };
    if behind < 0.0 {
        pick = if has_spot { Mode::Spot } else { Mode::OnDemand };
    }
    if current == Mode::OnDemand && (!has_spot || ahead_2d >= 0.0) {
        pick = Mode::OnDemand;
    }
    if need2 > rem && matches!(current, Mode::Idle | Mode::OnDemand) {
        pick = Mode::OnDemand;
    }
    if need1 >= rem {
        pick = if current == Mode::Spot && env.overhead_left_s() < POLICY_DONE_S {
            Mode::Spot
        } else {
            Mode::OnDemand
        };
        if d == 0.0 && has_spot {
            pick = Mode::Spot;
        }
    }
    let mut exit = false;
    if current == Mode::OnDemand && has_spot && pick == Mode::OnDemand && ahead_2d < 0.0 {
        pick = Mode::Spot;
        exit = true;
    }
    (pick, exit)
}

/// UP(S), eager failover (paper §5.1: SkyPilot's failover; the artifact's
/// `multi_region_rc_cr_threshold_eager_failover`, spec §2.4). Keeps what runs while the
/// core agrees; looks for spot in order of the tick's spot price (stable), the zones of the
/// last zone that ran an instance moved to the end with their whole cloud region; without
/// spot, on-demand where the instance ran at the tick's start, else where the checkpoint
/// is, else in zone 0.
#[derive(Clone, Debug, Default)]
pub struct UniformFailover {
    /// The zone of the last instance seen running at a tick's start.
    last_zone: Option<usize>,
}

impl UniformFailover {
    fn spot_order(&self, env: &Env<'_>) -> Vec<usize> {
        let s = env.setting();
        let mut order: Vec<usize> = (0..s.zones.len()).collect();
        let price = |z: usize| s.zones[z].price(Mode::Spot, env.tick());
        order.sort_by(|&a, &b| price(a).total_cmp(&price(b)));
        if let Some(last) = self.last_zone {
            let region = s.zones[last].region();
            let (mut keep, moved): (Vec<usize>, Vec<usize>) = order
                .into_iter()
                .partition(|&z| s.zones[z].region() != region);
            keep.extend(moved);
            order = keep;
        }
        order
    }
}

impl ZonePolicy for UniformFailover {
    fn name(&self) -> String {
        super::ZonePolicyName::UpS.to_string()
    }

    fn reset(&mut self, _: &Setting) -> Result<(), SpotError> {
        self.last_zone = None;
        Ok(())
    }

    fn act(&mut self, env: &mut Env<'_>) {
        let active = env.active();
        if let Some(a) = active {
            self.last_zone = Some(a.zone);
        }
        if env.work_left_s() <= POLICY_DONE_S {
            env.terminate();
            return;
        }
        let current = active.map_or(Mode::Idle, |a| a.mode);
        let (pick, exit) = core(env, current, true);
        if active.is_some() {
            if pick == Mode::Idle || pick != current {
                env.terminate();
                if pick == Mode::Idle {
                    return;
                }
            } else {
                return;
            }
        }
        let fallback = active.map(|a| a.zone).or(env.location()).unwrap_or(0);
        match pick {
            Mode::Spot => {
                for z in self.spot_order(env) {
                    if env.try_launch(z, Mode::Spot) {
                        return;
                    }
                }
                if exit {
                    return;
                }
                if core(env, Mode::Idle, false).0 == Mode::OnDemand {
                    env.try_launch(fallback, Mode::OnDemand);
                }
            }
            Mode::OnDemand => {
                env.try_launch(fallback, Mode::OnDemand);
            }
            Mode::Idle => {}
        }
    }
}
