//! Uniform Progress with the next-spot-lifetime oracle (paper §5.4; the authors' code
//! `rc_next_spot_threshold`, spec §2.9).

use crate::model::Mode;
use crate::policy::{Observation, SpotPolicy, safety_net};

/// UP whose hysteresis is replaced by knowing o(t), how long the spot obtainable now will
/// last ([`Observation::spot_lifetime_s`]): spot is worth a changeover from idle only if
/// o > k·d/(k − 1) (it is then cheaper per unit of progress than on-demand) and from
/// on-demand only if o > 2k·d/(k − 1) (two changeovers). With k = 3.1446 and d = 0.2 h the
/// thresholds are 0.293 h and 0.587 h; both strict (spec §5 item 14). Otherwise as UP:
/// behind ep(t) it runs (spot if worth it, else on-demand), it never goes from on-demand to
/// idle, and it ends with the safety net.
#[derive(Clone, Copy, Debug)]
pub struct UniformProgressOracle {
    /// k: on-demand price / spot price.
    pub k: f64,
}

impl SpotPolicy for UniformProgressOracle {
    fn name(&self) -> String {
        "uniform-progress-oracle".into()
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        if o.done() {
            return Mode::Idle;
        }
        let d = o.job.changeover_s;
        let threshold = match o.mode {
            Mode::Spot => 0.0,
            Mode::Idle => self.k * d / (self.k - 1.0),
            Mode::OnDemand => 2.0 * self.k * d / (self.k - 1.0),
        };
        let worth_it =
            o.spot_available && (o.mode == Mode::Spot || o.spot_lifetime_s() > threshold);
        let t = o.elapsed_s();
        let behind = o.work_done_s - o.expected_progress_s(t) < 0.0;
        let pick = match (worth_it, behind || o.mode == Mode::OnDemand) {
            (true, _) => Mode::Spot,
            (false, true) => Mode::OnDemand,
            (false, false) => Mode::Idle,
        };
        safety_net(o, o.work_left_s(), o.job.deadline_s - t, pick)
    }
}
