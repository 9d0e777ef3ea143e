//! A single-zone policy of paper 005 in one zone of a multi-zone setting: the figures' "UP"
//! bar (spec §2.3), Uniform Progress run in each zone alone with that zone's on-demand
//! price and per-tick spot prices.
//!
//! The policy sees what the single-zone simulator shows it ([`Observation`]: the mode after
//! any preemption, whether the zone has spot in this tick, progress, the cold start left)
//! and its pick is carried out in the environment: idle terminates, a new mode terminates
//! and launches. It runs without the environment's safety net, as the artifact's
//! single-zone loop does (the policy has its own). On one zone with constant prices its
//! bill is the single-zone simulator's (tested).

use crate::SpotError;
use crate::model::Mode;
use crate::policy::{Observation, SpotPolicy};
use crate::zones::env::{Env, ZonePolicy};
use crate::zones::model::Setting;

/// A [`SpotPolicy`] acting on zone 0 of a one-zone setting.
pub struct SingleZone {
    inner: Box<dyn SpotPolicy + Send>,
    window: Vec<bool>,
}

impl SingleZone {
    /// Wraps `policy`.
    pub fn new(policy: Box<dyn SpotPolicy + Send>) -> SingleZone {
        SingleZone {
            inner: policy,
            window: Vec::new(),
        }
    }
}

impl ZonePolicy for SingleZone {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn reset(&mut self, s: &Setting) -> Result<(), SpotError> {
        if s.zones.len() != 1 {
            return Err(SpotError::Input(format!(
                "{}: a single-zone policy runs on one zone, not {}",
                self.inner.name(),
                s.zones.len()
            )));
        }
        let horizon = s.horizon_ticks().min(s.zones[0].available.len());
        self.window = s.zones[0].available[..horizon].to_vec();
        self.inner.reset(&s.job, &self.window, s.gap_s)
    }

    fn act(&mut self, env: &mut Env<'_>) {
        let s = env.setting();
        let mode = env.active().map_or(Mode::Idle, |a| a.mode);
        let o = Observation {
            tick: env.tick(),
            gap_s: s.gap_s,
            mode,
            spot_available: self.window.get(env.tick()).copied().unwrap_or(false),
            work_done_s: env.work_done_s(),
            overhead_left_s: env.overhead_left_s(),
            job: &s.job,
            window: &self.window,
        };
        match self.inner.decide(&o) {
            Mode::Idle => env.terminate(),
            pick if pick != mode => {
                env.terminate();
                env.try_launch(0, pick);
            }
            _ => {}
        }
    }

    fn safety_net(&self) -> bool {
        false
    }
}
