//! The multi-zone greedy (paper 005's greedy across zones; the baseline the issue's
//! policy researchers start from): keep a running spot instance; without one, take spot in
//! the zone where it is cheapest this tick (ties to the lower index, then the zone of the
//! checkpoint first, so a move is never chosen for nothing); with spot nowhere, idle, and
//! leave the deadline to the safety net.

use crate::SpotError;
use crate::model::Mode;
use crate::zones::env::{Env, ZonePolicy};
use crate::zones::model::Setting;

/// The multi-zone greedy.
#[derive(Clone, Debug, Default)]
pub struct Greedy;

impl ZonePolicy for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn reset(&mut self, _: &Setting) -> Result<(), SpotError> {
        Ok(())
    }

    fn act(&mut self, env: &mut Env<'_>) {
        if env.active().is_some_and(|i| i.mode == Mode::Spot) {
            return;
        }
        let s = env.setting();
        let tick = env.tick();
        let here = env.location();
        let mut order: Vec<usize> = (0..s.zones.len()).collect();
        // Cheapest spot first; at equal prices the checkpoint's zone, then the lower index.
        order.sort_by(|&a, &b| {
            let (pa, pb) = (
                s.zones[a].price(Mode::Spot, tick),
                s.zones[b].price(Mode::Spot, tick),
            );
            pa.total_cmp(&pb)
                .then((Some(b) == here).cmp(&(Some(a) == here)))
                .then(a.cmp(&b))
        });
        for z in order {
            if env.try_launch(z, Mode::Spot) {
                return;
            }
        }
        env.terminate();
    }
}
