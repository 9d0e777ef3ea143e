//! Uniform Progress with probes (spec §2.5, §2.6): UP(A) ranks zones by recent spot
//! availability, UP(AP) by availability per dollar (paper §5.2.1; the artifact's
//! `multi_region_availability_probe_simple` and `multi_region_probe_cost_ratio`).
//!
//! Both keep a main zone (the spot zone they launched), record a sample per spot try, per
//! probe, a 0 when the main zone's spot is gone and a heartbeat 1 while it runs, and probe
//! zones that are due. Their probe interval in ticks is round(minutes·60/g), half to even
//! as Python rounds (UP(A): 120 min → 12 ticks at 600 s, 37 at 195 s; UP(AP): 60 min → 6,
//! 18).

use std::collections::VecDeque;

use crate::SpotError;
use crate::model::{Mode, POLICY_DONE_S};
use crate::zones::env::{Env, ZonePolicy};
use crate::zones::model::Setting;
use crate::zones::policy::uniform::core;

/// Ticks between samples of one zone: max(1, round(minutes·60/g)), half to even.
fn interval_ticks(minutes: f64, gap_s: f64) -> usize {
    ((minutes * 60.0 / gap_s.max(1.0)).round_ties_even() as usize).max(1)
}

/// How UP(A) and UP(AP) differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    /// UP(A): the success fraction of the last 5 samples; keeps the running spot while
    /// within 10⁻⁶ of the best; probes the one due zone with the fewest samples; without
    /// spot, on-demand where the checkpoint is (unless leaving on-demand by hysteresis).
    Availability,
    /// UP(AP): successes/samples over the whole run divided by the spot price; keeps the
    /// running spot while its score is ≥ 0.9 × the best; probes every due zone; without
    /// spot, on-demand in zone 0.
    AvailabilityPerPrice,
}

/// UP(A) or UP(AP).
#[derive(Clone, Debug)]
pub struct UniformProbing {
    variant: Variant,
    /// Per zone: the samples (UP(A): the last 5; UP(AP): successes, total).
    window: Vec<VecDeque<bool>>,
    successes: Vec<u32>,
    total: Vec<u32>,
    next_probe: Vec<usize>,
    next_sample: Vec<usize>,
    /// The tick whose spot price each zone last showed the policy (UP(AP)'s score reads
    /// the price of the zone's last try or probe, as the artifact's per-zone environment
    /// keeps the tick it was last queried at).
    price_tick: Vec<usize>,
    main: Option<usize>,
    interval: usize,
}

impl UniformProbing {
    /// UP(A) (spec §2.5).
    pub fn availability() -> UniformProbing {
        UniformProbing::new(Variant::Availability)
    }

    /// UP(AP) (spec §2.6).
    pub fn availability_per_price() -> UniformProbing {
        UniformProbing::new(Variant::AvailabilityPerPrice)
    }

    fn new(variant: Variant) -> UniformProbing {
        UniformProbing {
            variant,
            window: Vec::new(),
            successes: Vec::new(),
            total: Vec::new(),
            next_probe: Vec::new(),
            next_sample: Vec::new(),
            price_tick: Vec::new(),
            main: None,
            interval: 1,
        }
    }

    fn record(&mut self, z: usize, ok: bool) {
        let w = &mut self.window[z];
        if w.len() == 5 {
            w.pop_front();
        }
        w.push_back(ok);
        self.total[z] += 1;
        self.successes[z] += u32::from(ok);
    }

    fn score(&self, env: &Env<'_>, z: usize) -> f64 {
        match self.variant {
            Variant::Availability => {
                let w = &self.window[z];
                if w.is_empty() {
                    0.5
                } else {
                    w.iter().filter(|&&x| x).count() as f64 / w.len() as f64
                }
            }
            Variant::AvailabilityPerPrice => {
                let rate = if self.total[z] == 0 {
                    0.5
                } else {
                    f64::from(self.successes[z]) / f64::from(self.total[z])
                };
                let price = env.setting().zones[z].price(Mode::Spot, self.price_tick[z]);
                if price <= 0.0 {
                    if rate > 0.0 { f64::INFINITY } else { 0.0 }
                } else {
                    rate / price
                }
            }
        }
    }

    /// Zones by score, best first, ties to the lower index.
    fn ranked(&self, env: &Env<'_>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.window.len()).collect();
        let scores: Vec<f64> = order.iter().map(|&z| self.score(env, z)).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        order
    }

    fn try_spot(&mut self, env: &mut Env<'_>, z: usize) -> bool {
        self.price_tick[z] = env.tick();
        env.try_launch(z, Mode::Spot)
    }

    fn probe(&mut self, env: &mut Env<'_>, z: usize) {
        self.price_tick[z] = env.tick();
        let ok = env.probe(z);
        self.record(z, ok);
        self.next_probe[z] = env.tick() + self.interval;
    }

    /// The probes after a spot pick: UP(A) the one due zone with the fewest samples (then
    /// the lowest index), UP(AP) every due zone; never the main zone or a zone running spot.
    fn probes(&mut self, env: &mut Env<'_>) {
        let now = env.tick();
        let running_spot = env
            .active()
            .filter(|a| a.mode == Mode::Spot)
            .map(|a| a.zone);
        let due: Vec<usize> = (0..self.window.len())
            .filter(|&z| {
                Some(z) != self.main && Some(z) != running_spot && now >= self.next_probe[z]
            })
            .collect();
        match self.variant {
            Variant::Availability => {
                if let Some(&z) = due.iter().min_by_key(|&&z| (self.window[z].len(), z)) {
                    self.probe(env, z);
                }
            }
            Variant::AvailabilityPerPrice => {
                for z in due {
                    self.probe(env, z);
                }
            }
        }
    }
}

impl ZonePolicy for UniformProbing {
    fn name(&self) -> String {
        match self.variant {
            Variant::Availability => super::ZonePolicyName::UpA.to_string(),
            Variant::AvailabilityPerPrice => super::ZonePolicyName::UpAp.to_string(),
        }
    }

    fn reset(&mut self, s: &Setting) -> Result<(), SpotError> {
        let n = s.zones.len();
        *self = UniformProbing::new(self.variant);
        self.window = vec![VecDeque::with_capacity(5); n];
        self.successes = vec![0; n];
        self.total = vec![0; n];
        self.next_probe = vec![0; n];
        self.next_sample = vec![0; n];
        self.price_tick = vec![0; n];
        let minutes = match self.variant {
            Variant::Availability => 120.0,
            Variant::AvailabilityPerPrice => 60.0,
        };
        self.interval = interval_ticks(minutes, s.gap_s);
        Ok(())
    }

    fn act(&mut self, env: &mut Env<'_>) {
        let now = env.tick();
        let active = env.active();
        let spot_in = |z: usize| active.is_some_and(|a| a.zone == z && a.mode == Mode::Spot);
        // The main zone's spot is gone: a failure sample.
        if let Some(m) = self.main
            && !spot_in(m)
        {
            self.record(m, false);
            self.main = None;
        }
        // Adopt a running spot as the main zone (UP(A)); heartbeat while it runs.
        if self.variant == Variant::Availability
            && self.main.is_none()
            && let Some(a) = active.filter(|a| a.mode == Mode::Spot)
        {
            self.main = Some(a.zone);
        }
        if let Some(m) = self.main {
            let due = match self.variant {
                Variant::Availability => &mut self.next_sample[m],
                Variant::AvailabilityPerPrice => &mut self.next_probe[m],
            };
            if now >= *due {
                *due = now + self.interval;
                self.record(m, true);
            }
        }
        if env.work_left_s() <= POLICY_DONE_S {
            env.terminate();
            self.main = None;
            return;
        }
        let mut current = active.map(|a| (a.zone, a.mode));
        let (pick, exit) = core(env, current.map_or(Mode::Idle, |c| c.1), true);
        match pick {
            Mode::Spot => {
                let ranked = self.ranked(env);
                if let Some((_, Mode::OnDemand)) = current {
                    env.terminate();
                    current = None;
                    self.main = None;
                }
                if let Some((z, Mode::Spot)) = current {
                    let best = ranked[0];
                    let keep = match self.variant {
                        Variant::Availability => {
                            z == best || self.score(env, z) >= self.score(env, best) - 1e-6
                        }
                        Variant::AvailabilityPerPrice => {
                            z == best || self.score(env, z) >= self.score(env, best) * 0.9
                        }
                    };
                    if keep {
                        self.main = Some(z);
                    } else {
                        env.terminate();
                        self.main = None;
                        current = None;
                    }
                }
                if current.is_none() {
                    let mut launched = false;
                    for z in ranked {
                        let ok = self.try_spot(env, z);
                        self.record(z, ok);
                        if ok {
                            self.main = Some(z);
                            match self.variant {
                                Variant::Availability => self.next_sample[z] = now + self.interval,
                                Variant::AvailabilityPerPrice => {
                                    self.next_probe[z] = now + self.interval
                                }
                            }
                            launched = true;
                            break;
                        }
                    }
                    if !launched {
                        if self.variant == Variant::Availability && exit {
                            return;
                        }
                        if core(env, Mode::Idle, false).0 == Mode::OnDemand {
                            let z = match self.variant {
                                Variant::Availability => env.location().unwrap_or(0),
                                Variant::AvailabilityPerPrice => 0,
                            };
                            env.try_launch(z, Mode::OnDemand);
                            self.main = None;
                        }
                        if self.variant == Variant::Availability {
                            return;
                        }
                    }
                }
                self.probes(env);
            }
            Mode::OnDemand => {
                if current.map(|c| c.1) != Some(Mode::OnDemand) {
                    env.terminate();
                    let z = match (self.variant, current) {
                        (_, Some((z, _))) => z,
                        (Variant::Availability, None) => env.location().unwrap_or(0),
                        (Variant::AvailabilityPerPrice, None) => 0,
                    };
                    env.try_launch(z, Mode::OnDemand);
                    self.main = None;
                }
            }
            Mode::Idle => {
                env.terminate();
                self.main = None;
            }
        }
    }
}
