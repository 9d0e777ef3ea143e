//! Uniform Progress (paper §5.2; the authors' code `rc_cr_threshold`, spec §2.6).

use crate::model::Mode;
use crate::policy::{Observation, SpotPolicy, safety_net, spot_or_idle};

/// Uniform Progress: keep progress cp(t) at or above the straight line ep(t) = C(0)·t/R(0),
/// take spot whenever it is available, and leave on-demand only for spot and only when
/// ahead of ep(t + 2d). Per tick, as the authors' code:
///
/// 1. spot if available, else idle;
/// 2. behind (cp − ep(t) < 0): spot if available, else on-demand;
/// 3. on on-demand and (spot unavailable, or ep(t + 2d) − cp ≥ 0): stay on on-demand — so
///    UP never goes from on-demand to idle, and leaves it for spot only strictly ahead of
///    ep(t + 2d) (spec §5 item 4);
/// 4. the safety net and end game of greedy ([`safety_net`]).
///
/// `hysteresis: false` is "plain" UP ([code] `rc_cr_threshold_no_condition2`): rule 3
/// without its ep(t + 2d) test, so on-demand is left for any spot, and short spot runs each
/// burn up to 2d.
#[derive(Clone, Copy, Debug)]
pub struct UniformProgress {
    /// Rule 3's 2d hysteresis before leaving on-demand.
    pub hysteresis: bool,
}

impl SpotPolicy for UniformProgress {
    fn name(&self) -> String {
        if self.hysteresis {
            "uniform-progress".into()
        } else {
            "uniform-progress-plain".into()
        }
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        if o.done() {
            return Mode::Idle;
        }
        let t = o.elapsed_s();
        let cp = o.work_done_s;
        let mut pick = spot_or_idle(o);
        if cp - o.expected_progress_s(t) < 0.0 {
            pick = if o.spot_available {
                Mode::Spot
            } else {
                Mode::OnDemand
            };
        }
        let ahead_enough =
            o.expected_progress_s(t + 2.0 * o.job.changeover_s) - cp < 0.0 || !self.hysteresis;
        if o.mode == Mode::OnDemand && (!o.spot_available || !ahead_enough) {
            pick = Mode::OnDemand;
        }
        safety_net(o, o.work_left_s(), o.job.deadline_s - t, pick)
    }
}
