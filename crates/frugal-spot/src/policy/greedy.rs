//! The baseline and greedy (paper §3.4, §6.1).

use crate::model::Mode;
use crate::policy::{Observation, SpotPolicy, safety_net, spot_or_idle};

/// On-demand from the start until done: the baseline every saving is measured against
/// (paper §6.1; [code] `on_demand`). Its bill is ⌈(C(0) + d)/g⌉ on-demand ticks.
#[derive(Clone, Copy, Debug, Default)]
pub struct OnDemandOnly;

impl SpotPolicy for OnDemandOnly {
    fn name(&self) -> String {
        "on-demand".into()
    }

    fn decide(&mut self, _: &Observation<'_>) -> Mode {
        Mode::OnDemand
    }
}

/// Greedy (paper §3.4; the authors' code, `strawman`): spot whenever it is available, idle
/// otherwise, and on-demand for good from the last safe moment ([`safety_net`]). Once on
/// on-demand, R(t) − C(t) stays constant, so greedy never leaves it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl SpotPolicy for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        if o.done() {
            return Mode::Idle;
        }
        let time_left = o.job.deadline_s - o.elapsed_s();
        safety_net(o, o.work_left_s(), time_left, spot_or_idle(o))
    }
}
