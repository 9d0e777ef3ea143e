//! SkyNomad (Li et al., NSDI '27, §3.2–3.5, Algorithm 1; spec §2.7–2.8): each tick it scores
//! every option — idle, spot in zone z, on-demand in zone z — by its net value per hour
//! U = V·(L̄ − d)/L̄ − price − E(L → z)/L̄ (on-demand: V − o_z − d·V − E, the move not
//! amortised), and tries them best first, switching only when an option beats what runs by
//! the VOI margin Δ = 0.5 + 0.0002·S + 0.05·V $/h. L̄_z is the zone's expected spot lifetime
//! ([`survival`]), learned from its own runs and from probes; V the value of progress
//! ([`value`]).
//!
//! **Follows the authors' code** (`unified_cost_model.py` and its `_rate_ratio` and
//! `_oracle` arms), which produced every published number, where it differs from the
//! paper's text (spec §2.7 (a)–(e)): V is not eq. 8; on-demand moves are not amortised; the
//! lifetime is the code's; a zone is probed every 6 ticks until its first successful probe,
//! then never again; idle is never entered from a running instance. Its state machine is
//! kept as written, including two consequences: a run we end by moving to another spot zone
//! stays open in the old zone's log (the next end event there closes it); and a zone's spot
//! price is the one of the tick the policy last tried or probed it (the artifact's per-zone
//! environment keeps that tick).

pub mod survival;
pub mod value;

use crate::SpotError;
use crate::model::Mode;
use crate::zones::env::{Env, PROBE_S, ZonePolicy};
use crate::zones::model::Setting;
use survival::{Hazard, Source, Volatility, ZoneLog};
use value::ReferenceInputs;
pub use value::TimeValue;

/// Where a SkyNomad arm's lifetimes come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lifetime {
    /// Estimated from the zone's runs and probes, capped at this many hours (and by the
    /// time left).
    Estimated {
        /// The cap, h (2 in the H100 figures; none, 10⁹, in Fig. 9b).
        cap_h: f64,
        /// Virtual availability (spec §2.7 "VA"; Fig. 9b and Table 2): probes and failed
        /// tries keep a zone's availability as a run even with nothing launched there.
        virtual_availability: bool,
    },
    /// SkyNomad(o) (spec §2.8): the true length of the zone's spot run from this tick
    /// (0 without spot now), uncapped; no probes.
    Oracle,
}

/// One of SkyNomad's published arms.
#[derive(Clone, Debug)]
pub struct SkyNomad {
    value: TimeValue,
    lifetime: Lifetime,
    name: &'static str,
    st: State,
}

/// The run's state (reset per run).
#[derive(Clone, Debug, Default)]
struct State {
    logs: Vec<ZoneLog>,
    hazards: Vec<Hazard>,
    volatility: Vec<Volatility>,
    /// The spot zone we track, and whether we ended its run ourselves.
    active_spot: Option<usize>,
    terminated_by_us: bool,
    /// The zone of the last launch (the origin of moves when nothing runs).
    last_zone: Option<usize>,
    next_probe: Vec<usize>,
    probing: Vec<bool>,
    failed_now: Vec<bool>,
    /// Per zone: the tick whose spot price the policy sees.
    price_tick: Vec<usize>,
    /// Virtual availability: per-zone state, probed age (h), probe dollars seen.
    virt: Vec<Option<bool>>,
    probe_age_h: Vec<f64>,
    probe_usd: Vec<f64>,
    probe_usd_seen: Vec<f64>,
    /// The volatility factor's per-tick inputs.
    last_real_age: Vec<Option<f64>>,
    last_virtual_age: Vec<Option<f64>>,
    tick_failures: Vec<u32>,
    /// Progress settled at each tick the policy acted (entry k: tick k).
    progress: Vec<f64>,
    /// Per zone, this tick's expected lifetime before any cap, h (set by `observe`).
    expected_h: Vec<f64>,
    /// Per zone, the count of closed segments its hazard was estimated from.
    hazard_of: Vec<Option<usize>>,
    /// SkyNomad(o): per zone and tick, the ticks of spot from that tick on (the whole
    /// trace's, not the window's).
    spot_run: Vec<Vec<u32>>,
}

/// Ticks between probes of a zone (until its first success).
const PROBE_EVERY: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Idle,
    Spot(usize),
    OnDemand(usize),
}

impl SkyNomad {
    /// The H100 figures' arm (Figs 9a, 10, 12, 15; `unified_cost_model_risk`): reference-cost
    /// V, lifetimes capped at 2 h, no virtual availability.
    pub fn reference_cost() -> SkyNomad {
        SkyNomad::new(
            "skynomad",
            TimeValue::ReferenceCost,
            Lifetime::Estimated {
                cap_h: 2.0,
                virtual_availability: false,
            },
        )
    }

    /// Fig. 9b's arm (V100; `unified_cost_model_rate_ratio --max-prediction-hours 1e9
    /// --virtual-availability`).
    pub fn rate_ratio() -> SkyNomad {
        SkyNomad::new(
            "skynomad-rate",
            TimeValue::RateRatio,
            Lifetime::Estimated {
                cap_h: 1e9,
                virtual_availability: true,
            },
        )
    }

    /// Table 2's arm with another closed form of V (§A.7): Fig. 9b's configuration
    /// (uncapped lifetimes, virtual availability) with `shape` in place of the rate ratio.
    pub fn shaped(name: &'static str, shape: value::VShape) -> SkyNomad {
        SkyNomad::new(
            name,
            TimeValue::Shape(shape),
            Lifetime::Estimated {
                cap_h: 1e9,
                virtual_availability: true,
            },
        )
    }

    /// SkyNomad(o) as the H100 figures ran it (reference-cost V).
    pub fn oracle_reference_cost() -> SkyNomad {
        SkyNomad::new("skynomad-o", TimeValue::ReferenceCost, Lifetime::Oracle)
    }

    /// SkyNomad(o) as Fig. 9b ran it (`--oracle-v rate_ratio`).
    pub fn oracle_rate_ratio() -> SkyNomad {
        SkyNomad::new("skynomad-o-rate", TimeValue::RateRatio, Lifetime::Oracle)
    }

    fn new(name: &'static str, value: TimeValue, lifetime: Lifetime) -> SkyNomad {
        SkyNomad {
            value,
            lifetime,
            name,
            st: State::default(),
        }
    }

    fn virtual_availability(&self) -> bool {
        matches!(
            self.lifetime,
            Lifetime::Estimated {
                virtual_availability: true,
                ..
            }
        )
    }

    fn spot_price(&self, env: &Env<'_>, z: usize) -> f64 {
        env.setting().zones[z].price(Mode::Spot, self.st.price_tick[z])
    }

    /// L̄_z in hours, capped by `remaining_s` of time left when that is positive.
    fn lifetime_h(&mut self, env: &Env<'_>, z: usize, remaining_s: Option<f64>) -> f64 {
        let s = env.setting();
        match self.lifetime {
            Lifetime::Oracle => {
                self.st.price_tick[z] = env.tick();
                let run = self.st.spot_run[z].get(env.tick()).copied().unwrap_or(0);
                let mut h = f64::from(run) * s.gap_s / 3600.0;
                if let Some(r) = remaining_s.filter(|&r| r > 0.0) {
                    h = h.min(r / 3600.0);
                }
                h
            }
            Lifetime::Estimated { cap_h, .. } => {
                let mut pred = self.st.expected_h[z];
                if pred > cap_h {
                    pred = cap_h;
                }
                let remaining = remaining_s.unwrap_or(s.job.deadline_s - env.elapsed_s());
                if remaining > 0.0 && pred > remaining / 3600.0 {
                    pred = remaining / 3600.0;
                }
                pred
            }
        }
    }

    /// A_z: the share of the last min(12 h, t) covered by the zone's runs (0 without any).
    fn availability(&self, z: usize, now: f64) -> f64 {
        let window = 12.0 * 3600.0;
        let start = (now - window).max(0.0);
        let log = &self.st.logs[z];
        let mut covered = 0.0;
        for seg in &log.segments {
            let (a, b) = (seg.start_s.max(start), seg.end_s.min(now));
            if b > a {
                covered += b - a;
            }
        }
        if let Some((open_start, _, _)) = log.open {
            let a = open_start.max(start);
            if now > a {
                covered += now - a;
            }
        }
        let denom = window.min(now);
        if denom <= 0.0 || (log.segments.is_empty() && log.open.is_none()) {
            return 0.0;
        }
        (covered / denom).clamp(0.0, 1.0)
    }

    /// V for this tick.
    fn time_value(&mut self, env: &Env<'_>) -> f64 {
        let s = env.setting();
        let c_od = s
            .zones
            .iter()
            .map(|z| z.on_demand_per_h)
            .fold(f64::INFINITY, f64::min);
        match self.value {
            TimeValue::RateRatio | TimeValue::Shape(_) => {
                let c_spot = (0..s.zones.len())
                    .map(|z| self.spot_price(env, z))
                    .fold(f64::INFINITY, f64::min);
                match self.value {
                    TimeValue::Shape(v) => value::shape(env, v, c_od, c_spot),
                    _ => value::rate_ratio(env, c_od, c_spot),
                }
            }
            TimeValue::ReferenceCost => {
                let remaining = s.job.deadline_s - env.elapsed_s();
                let mut zones = Vec::with_capacity(s.zones.len());
                for z in 0..s.zones.len() {
                    let spot_per_h = self.spot_price(env, z);
                    let availability = self.availability(z, env.elapsed_s());
                    let lifetime_h = self.lifetime_h(env, z, Some(remaining));
                    zones.push(ReferenceInputs {
                        spot_per_h,
                        availability,
                        lifetime_h,
                    });
                }
                value::reference_cost(env, c_od, &zones, &self.st.progress)
            }
        }
    }

    /// Net value per hour of spot in `z` (the cold start not paid when it already runs).
    fn spot_value(&mut self, env: &Env<'_>, z: usize, v: f64, running: bool) -> f64 {
        let duration = self.lifetime_h(env, z, None);
        let restart_h = env.setting().job.changeover_s / 3600.0;
        let effective = if running {
            duration.max(0.0)
        } else {
            (duration - restart_h).max(0.0)
        };
        if effective <= 0.0 {
            return f64::NEG_INFINITY;
        }
        let price = self.spot_price(env, z);
        (v * effective - price * duration) / duration
    }

    // ---- the run log's events (the artifact's `_on_*` handlers) ----

    fn virtual_signal(&mut self, z: usize, up: bool, now: f64) {
        if !self.virtual_availability() || self.st.active_spot == Some(z) {
            return;
        }
        match self.st.virt[z] {
            None => {
                if up {
                    self.st.logs[z].start(now, Source::Probe);
                }
            }
            Some(prev) if prev == up => return,
            Some(true) => self.end(z, true, now),
            Some(false) => self.st.logs[z].start(now, Source::Probe),
        }
        self.st.virt[z] = Some(up);
    }

    fn end(&mut self, z: usize, failed: bool, now: f64) {
        self.st.logs[z].end(now, failed);
        if failed {
            self.st.tick_failures[z] += 1;
        }
    }

    fn before_spot_launch(&mut self, z: usize, now: f64) {
        if self.st.probing[z] {
            self.end(z, false, now);
            self.st.probing[z] = false;
            self.st.last_virtual_age[z] = None;
        }
    }

    fn on_spot_launched(&mut self, z: usize, now: f64) {
        self.st.logs[z].start(now, Source::Spot);
        self.st.active_spot = Some(z);
        self.st.terminated_by_us = false;
        self.st.last_zone = Some(z);
        self.st.failed_now[z] = false;
        self.st.last_real_age[z] = Some(0.0);
        self.st.last_virtual_age[z] = None;
        self.virtual_signal(z, false, now);
    }

    fn on_spot_refused(&mut self, z: usize, now: f64) {
        self.st.failed_now[z] = true;
        self.st.tick_failures[z] += 1;
        self.virtual_signal(z, false, now);
    }

    fn probes(&mut self, env: &mut Env<'_>, primary: Option<usize>) {
        if matches!(self.lifetime, Lifetime::Oracle) {
            self.st.failed_now.fill(false);
            return;
        }
        let (tick, now) = (env.tick(), env.elapsed_s());
        for z in 0..env.setting().zones.len() {
            if Some(z) == primary
                || self.st.probing[z]
                || self.st.failed_now[z]
                || tick < self.st.next_probe[z]
            {
                continue;
            }
            self.st.price_tick[z] = tick;
            let ok = env.probe(z);
            self.st.next_probe[z] = tick + PROBE_EVERY;
            if ok {
                // The dollars the artifact's environment books as this probe's: 60 s of spot,
                // but the instance's whole tick when the probe is of the zone where it runs
                // (the idle option "won" over an instance worth less than nothing; the
                // probed age then jumps by g·o_z/s_z).
                let zone = &env.setting().zones[z];
                self.st.probe_usd[z] += match env.active() {
                    Some(i) if i.zone == z && i.mode == Mode::OnDemand => {
                        zone.on_demand_per_h * env.setting().gap_s / 3600.0
                    }
                    _ => zone.price(Mode::Spot, tick) * PROBE_S / 3600.0,
                };
                self.st.logs[z].start(now, Source::Probe);
                self.st.probing[z] = true;
                self.st.last_virtual_age[z] = Some(0.0);
                self.virtual_signal(z, true, now);
            } else {
                if self.st.probing[z] {
                    self.end(z, true, now);
                }
                self.st.probing[z] = false;
                self.st.tick_failures[z] += 1;
                self.st.last_virtual_age[z] = None;
                self.virtual_signal(z, false, now);
            }
        }
        self.st.failed_now.fill(false);
    }

    /// Steps 2–3: the logs, the hazards and the volatility factors at this tick.
    fn observe(&mut self, env: &Env<'_>) {
        let s = env.setting();
        let now = env.elapsed_s();
        let va = self.virtual_availability();
        for z in 0..s.zones.len() {
            if va {
                let delta = self.st.probe_usd[z] - self.st.probe_usd_seen[z];
                if delta > 1e-9 {
                    let price = self.spot_price(env, z);
                    if price > 0.0 {
                        self.st.probe_age_h[z] += delta / price;
                    }
                }
                self.st.probe_usd_seen[z] = self.st.probe_usd[z];
            }
            self.st.logs[z].rebuild(now);
            // Without virtual availability the estimate depends on the closed segments
            // alone, which only ever grow: it changes only when one more has closed.
            let closed = self.st.logs[z].segments.len();
            if va || self.st.hazard_of[z] != Some(closed) {
                self.st.hazards[z] = Hazard::estimate(&self.st.logs[z], va);
                self.st.hazard_of[z] = Some(closed);
            }
        }
        let dt = s.gap_s / 3600.0;
        for z in 0..s.zones.len() {
            let hazard = &self.st.hazards[z];
            let log = &self.st.logs[z];
            let (mut age_now, mut age_prev, mut active) = (None, None, false);
            match log.source() {
                Some(source) => {
                    active = true;
                    let now_h = log.age_h().unwrap_or(dt);
                    let last = match source {
                        Source::Spot => &mut self.st.last_real_age[z],
                        Source::Probe => &mut self.st.last_virtual_age[z],
                    };
                    age_prev = Some(last.unwrap_or((now_h - dt).max(0.0)));
                    *last = Some(now_h);
                    age_now = Some(now_h);
                    match source {
                        Source::Spot if !va => self.st.last_virtual_age[z] = None,
                        Source::Probe => self.st.last_real_age[z] = None,
                        Source::Spot => {}
                    }
                }
                None => {
                    self.st.last_real_age[z] = None;
                    if !va {
                        self.st.last_virtual_age[z] = None;
                    }
                }
            }
            let mut delta = 0.0;
            if let (Some(a), Some(b)) = (age_now, age_prev) {
                delta = (hazard.cumulative(a) - hazard.cumulative(b)).max(0.0);
            }
            let failures = self.st.tick_failures[z];
            if delta <= 0.0 && (active || failures > 0) {
                match hazard.knots.last() {
                    None => delta = delta.max(hazard.tail * dt),
                    Some(&(last_tau, _)) => {
                        if let (Some(a), Some(b)) = (age_now, age_prev)
                            && b >= last_tau
                        {
                            delta = delta.max(hazard.tail * (a - b).max(0.0));
                        }
                    }
                }
            }
            let mut risk = delta.max(0.0);
            if failures > 0 && risk <= 0.0 {
                risk = risk.max(if hazard.tail > 0.0 {
                    hazard.tail * dt
                } else {
                    1e-6
                });
            }
            if risk > 0.0 || failures > 0 {
                self.st.volatility[z].push(risk, failures);
            }
            self.st.tick_failures[z] = 0;
        }
        // Every lifetime this tick reads these (nothing changes the logs before it acts).
        for z in 0..s.zones.len() {
            let mut age = self.st.logs[z].age_h().unwrap_or(0.0);
            if va {
                age = age.max(self.st.probe_age_h[z]);
            }
            let g = self.st.volatility[z].g;
            self.st.expected_h[z] = self.st.hazards[z].expected_h(g, age, dt);
        }
    }
}

impl ZonePolicy for SkyNomad {
    fn name(&self) -> String {
        self.name.into()
    }

    fn reset(&mut self, setting: &Setting) -> Result<(), SpotError> {
        let n = setting.zones.len();
        self.st = State {
            logs: vec![ZoneLog::default(); n],
            hazards: vec![Hazard::default(); n],
            volatility: vec![Volatility::default(); n],
            next_probe: vec![0; n],
            probing: vec![false; n],
            failed_now: vec![false; n],
            price_tick: vec![0; n],
            virt: vec![None; n],
            probe_age_h: vec![0.0; n],
            probe_usd: vec![0.0; n],
            probe_usd_seen: vec![0.0; n],
            last_real_age: vec![None; n],
            last_virtual_age: vec![None; n],
            tick_failures: vec![0; n],
            expected_h: vec![0.0; n],
            hazard_of: vec![None; n],
            spot_run: match self.lifetime {
                Lifetime::Oracle => setting
                    .zones
                    .iter()
                    .map(|zone| {
                        let mut run = vec![0_u32; zone.available.len()];
                        for i in (0..run.len()).rev() {
                            if zone.available[i] {
                                run[i] = 1 + run.get(i + 1).copied().unwrap_or(0);
                            }
                        }
                        run
                    })
                    .collect(),
                Lifetime::Estimated { .. } => Vec::new(),
            },
            ..State::default()
        };
        Ok(())
    }

    fn act(&mut self, env: &mut Env<'_>) {
        let now = env.elapsed_s();
        self.st.progress.push(env.settled_s());
        // 1: the tracked spot run ended (preempted, or ended by us a tick ago).
        if let Some(z) = self.st.active_spot {
            let still = env
                .active()
                .is_some_and(|i| i.zone == z && i.mode == Mode::Spot);
            if !still {
                let failed = !self.st.terminated_by_us;
                self.end(z, failed, now);
                self.virtual_signal(z, false, now);
                self.st.active_spot = None;
                self.st.terminated_by_us = false;
            }
        }
        // 2–3.
        self.observe(env);
        // 5–6.
        let v = self.time_value(env);
        let zones = env.setting().zones.len();
        let od_value: Vec<f64> = env
            .setting()
            .zones
            .iter()
            .map(|z| v - z.on_demand_per_h)
            .collect();
        let current = env.active();
        let mut current_value = 0.0;
        if let Some(inst) = current {
            current_value = match inst.mode {
                Mode::Spot => self.spot_value(env, inst.zone, v, true),
                _ => od_value[inst.zone],
            };
            self.st.last_zone = Some(inst.zone);
        }
        let current_zone = current.map(|i| i.zone);
        let origin = current_zone.or(self.st.last_zone);
        let s = env.setting();
        let delta = 0.5 + 0.0002 * s.checkpoint_gb + 0.05 * v;
        // 7: the options.
        let mut options: Vec<(f64, Choice)> = vec![(0.0, Choice::Idle)];
        for z in 0..zones {
            let running = current.is_some_and(|i| i.mode == Mode::Spot && i.zone == z);
            let base = self.spot_value(env, z, v, running);
            let mut penalty = 0.0;
            if let Some(o) = origin {
                let duration = self.lifetime_h(env, z, None);
                if o != z {
                    let p = s.egress(o, z) / duration.max(1e-6);
                    if p > 0.0 {
                        penalty = p;
                    }
                }
            }
            let u = base - penalty;
            if u < 0.0 {
                continue;
            }
            if current_zone.is_some_and(|c| c != z) && u <= current_value + delta {
                continue;
            }
            options.push((u, Choice::Spot(z)));
        }
        for (z, &od) in od_value.iter().enumerate() {
            let mut penalty = 0.0;
            if let Some(o) = origin
                && o != z
            {
                let p = s.job.changeover_s / 3600.0 * v + s.egress(o, z);
                if p > 0.0 {
                    penalty = p;
                }
            }
            let u = od - penalty;
            if u < 0.0 {
                continue;
            }
            if current.is_some_and(|i| i.mode == Mode::OnDemand && i.zone == z) {
                continue;
            }
            if current.is_some() && u <= current_value + delta {
                continue;
            }
            options.push((u, Choice::OnDemand(z)));
        }
        // 8: best first (stable).
        options.sort_by(|a, b| b.0.total_cmp(&a.0));
        let current_choice = match current {
            None => Choice::Idle,
            Some(i) if i.mode == Mode::Spot => Choice::Spot(i.zone),
            Some(i) => Choice::OnDemand(i.zone),
        };
        // 9: first success wins.
        for (u, choice) in options {
            if u < 0.0 || u <= current_value {
                break;
            }
            if choice == current_choice {
                continue;
            }
            let ok = match choice {
                Choice::Spot(z) => {
                    self.before_spot_launch(z, now);
                    self.st.price_tick[z] = env.tick();
                    let ok = env.try_launch(z, Mode::Spot);
                    if ok {
                        self.on_spot_launched(z, now);
                    } else {
                        self.on_spot_refused(z, now);
                    }
                    ok
                }
                Choice::OnDemand(z) => env.try_launch(z, Mode::OnDemand),
                Choice::Idle => true,
            };

            if ok {
                let primary = match choice {
                    Choice::Idle => None,
                    Choice::Spot(z) | Choice::OnDemand(z) => Some(z),
                };
                self.st.last_zone = primary;
                if let Some(zc) = current_zone
                    && choice != Choice::Idle
                {
                    // The launch replaced it in the environment.
                    if self.st.active_spot == Some(zc) {
                        self.st.terminated_by_us = true;
                    }
                    self.virtual_signal(zc, false, now);
                }
                self.probes(env, primary);
                return;
            }
        }
        // 10: keep what runs.
        self.probes(env, current_zone);
    }
}
