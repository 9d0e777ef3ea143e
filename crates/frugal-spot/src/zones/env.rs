//! The multi-zone tick environment (spec §1.2, the artifact's simulator's semantics,
//! implemented exactly): one instance anywhere at a time, launch feedback, probes, and the
//! checkpoint's location.
//!
//! Tick i covers [i·g, (i+1)·g). [`Env::begin`] opens tick i:
//! 1. **settle tick i−1**: the instance active at the end of tick i−1's actions is billed
//!    for the whole tick at its price *of tick i−1*, and so are the probes made in it;
//! 2. **progress of tick i−1**: if that instance was launched in tick i−1, the cold start
//!    r := d, and if the checkpoint is in another zone it moves (a migration; egress
//!    E(L → zone), 0 inside a cloud region); progress = min(max(0, g − r), work left);
//!    r := max(0, r − g); the checkpoint is now in that zone;
//! 3. **preemption**: an active spot instance whose zone has no spot in tick i is removed;
//! 4. **done** when at most [`POLICY_DONE_S`] of work is left;
//! 5. **missed** when tick i starts at or after the deadline T and the job is not done.
//!
//! Then the policy acts on tick i, any number of times: [`Env::try_launch`] (on-demand always
//! succeeds, spot iff available; a failed try is free and changes nothing; launching what
//! already runs is a no-op; a launch replaces whatever ran), [`Env::terminate`],
//! [`Env::probe`]. A new instance is billed from tick i and makes progress from tick i on.
//! Spot is never available at or after tick ⌈T/g⌉ (the window bound).
//!
//! A probe (paper §3.4, "one minute of spot") reveals a_z(i); it is billed 60 s of spot at
//! s_z(i) when the zone has spot, nothing otherwise, and changes nothing else.

use crate::SpotError;
use crate::model::{Mode, POLICY_DONE_S};
use crate::zones::model::{FinalTick, Setting};

/// Seconds of spot a successful probe is billed (paper §3.4: "one minute of spot").
pub const PROBE_S: f64 = 60.0;

/// The instance that runs: its zone, its kind and the tick it was launched in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The zone's index in the setting.
    pub zone: usize,
    /// [`Mode::Spot`] or [`Mode::OnDemand`].
    pub mode: Mode,
    /// The tick it was launched in.
    pub launched: usize,
}

/// Where a tick leaves the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Work is left and the deadline is ahead: the policy acts.
    Running,
    /// The job is done.
    Done,
    /// The tick starts at or after the deadline with work left.
    Missed,
}

/// What a run cost and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ZoneOutcome {
    /// The cost as the setting's [`FinalTick`] reports it, dollars.
    pub cost_usd: f64,
    /// The true bill (instances + probes + egress), dollars.
    pub bill_usd: f64,
    /// Instance ticks, dollars.
    pub instance_usd: f64,
    /// Probes, dollars.
    pub probe_usd: f64,
    /// Egress of checkpoint moves between cloud regions, dollars.
    pub egress_usd: f64,
    /// Billed spot hours.
    pub spot_h: f64,
    /// Billed on-demand hours.
    pub on_demand_h: f64,
    /// Launches (each paid a cold start).
    pub starts: u32,
    /// Starts in another zone than the checkpoint's.
    pub migrations: u32,
    /// Spot instances lost to their zone's capacity.
    pub preemptions: u32,
    /// Probes made.
    pub probes: u32,
    /// When the job finished (the end of its last tick's used seconds), hours.
    pub finish_h: f64,
    /// Whether it finished by the deadline T.
    pub deadline_met: bool,
}

/// The environment of one run.
#[derive(Debug)]
pub struct Env<'a> {
    setting: &'a Setting,
    tick: usize,
    active: Option<Instance>,
    overhead_s: f64,
    location: Option<usize>,
    done_s: f64,
    settled_s: f64,
    probes_usd_now: f64,
    /// With `artifact_probe_billing`: this tick probed the zone of the running instance.
    own_zone_probe: Option<usize>,
    out: ZoneOutcome,
    status: Status,
    latched: bool,
    preempted_now: bool,
    probes_at_begin: u32,
    history: Option<Vec<TickRecord>>,
}

/// One tick of a run as [`run_recorded`] keeps it: the state after the policy (or the
/// safety net) acted on it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TickRecord {
    /// The tick i.
    pub tick: usize,
    /// The zone of the instance that runs through the tick (its index), if any.
    pub zone: Option<usize>,
    /// What runs: `idle`, `spot` or `on-demand`.
    pub mode: Mode,
    /// Whether a spot instance was preempted at the tick's start.
    pub preempted: bool,
    /// Probes made in the tick.
    pub probes: u32,
    /// Whether the safety net has the tick.
    pub safety_net: bool,
    /// Work done by the tick's start, seconds.
    pub work_done_s: f64,
    /// The bill settled by the tick's start (ticks before it), dollars.
    pub bill_usd: f64,
}

impl<'a> Env<'a> {
    /// A run of `setting` before its first tick.
    pub fn new(setting: &'a Setting) -> Env<'a> {
        Env {
            setting,
            tick: 0,
            active: None,
            overhead_s: 0.0,
            location: None,
            done_s: 0.0,
            settled_s: 0.0,
            probes_usd_now: 0.0,
            own_zone_probe: None,
            out: ZoneOutcome::default(),
            status: Status::Running,
            latched: false,
            preempted_now: false,
            probes_at_begin: 0,
            history: None,
        }
    }

    /// The setting (zones, job, checkpoint). Online policies learn spot availability only
    /// through [`Env::try_launch`] and [`Env::probe`]; oracles read it here.
    pub fn setting(&self) -> &'a Setting {
        self.setting
    }

    /// The current tick i.
    pub fn tick(&self) -> usize {
        self.tick
    }

    /// t = i·g, seconds since the start.
    pub fn elapsed_s(&self) -> f64 {
        self.tick as f64 * self.setting.gap_s
    }

    /// C: work left, seconds.
    pub fn work_left_s(&self) -> f64 {
        (self.setting.job.work_s - self.done_s).max(0.0)
    }

    /// Work done, seconds (the sum of every settled tick's progress, in order).
    pub fn work_done_s(&self) -> f64 {
        self.done_s
    }

    /// The progress the last [`Env::begin`] settled (of the tick before this one; 0 at tick
    /// 0 and after a tick with nothing running), seconds.
    pub fn settled_s(&self) -> f64 {
        self.settled_s
    }

    /// r: cold start left after the last settled tick, seconds.
    pub fn overhead_left_s(&self) -> f64 {
        self.overhead_s
    }

    /// The instance that runs now.
    pub fn active(&self) -> Option<Instance> {
        self.active
    }

    /// L: the zone of the checkpoint (the last instance that ran), if any.
    pub fn location(&self) -> Option<usize> {
        self.location
    }

    /// The bill so far (instances settled, probes settled, egress).
    pub fn bill_usd(&self) -> f64 {
        self.out.instance_usd + self.out.probe_usd + self.out.egress_usd
    }

    /// Whether zone `z` has spot in the current tick (the window bound included).
    fn spot_now(&self, z: usize) -> bool {
        self.tick < self.setting.horizon_ticks() && self.setting.zones[z].spot_at(self.tick)
    }

    /// Opens the current tick: settles the last one, preempts, tests done and the deadline.
    pub fn begin(&mut self) -> Status {
        if self.status != Status::Running {
            return self.status;
        }
        let s = self.setting;
        let g = s.gap_s;
        let before = self.bill_usd();
        self.settled_s = 0.0;
        if self.tick > 0 {
            let last = self.tick - 1;
            self.out.probe_usd += self.probes_usd_now;
            self.probes_usd_now = 0.0;
            let own_zone_probe = self.own_zone_probe.take();
            if let Some(inst) = self.active {
                let price = s.zones[inst.zone].price(inst.mode, last);
                // The artifact bills a spot tick its zone was probed in as the probe's 60 s.
                let billed_s = if own_zone_probe == Some(inst.zone) && inst.mode == Mode::Spot {
                    PROBE_S
                } else {
                    g
                };
                self.out.instance_usd += price * billed_s / 3600.0;
                match inst.mode {
                    Mode::Spot => self.out.spot_h += billed_s / 3600.0,
                    _ => self.out.on_demand_h += g / 3600.0,
                }
                if inst.launched == last {
                    self.overhead_s = s.job.changeover_s;
                    if let Some(l) = self.location
                        && l != inst.zone
                    {
                        self.out.migrations += 1;
                        self.out.egress_usd += s.egress(l, inst.zone);
                    }
                }
                let left = self.work_left_s();
                let progress = (g - self.overhead_s).max(0.0).min(left);
                let used = self.overhead_s.min(g) + progress;
                self.overhead_s = (self.overhead_s - g).max(0.0);
                self.done_s += progress;
                self.settled_s = progress;
                self.location = Some(inst.zone);
                if self.work_left_s() <= POLICY_DONE_S {
                    self.out.finish_h = (last as f64 * g + used) / 3600.0;
                }
            }
        }
        if self.work_left_s() <= POLICY_DONE_S {
            self.status = Status::Done;
            self.out.bill_usd = self.bill_usd();
            self.out.cost_usd = match s.final_tick {
                FinalTick::Bill => self.out.bill_usd,
                FinalTick::Omit => before,
            };
            self.out.deadline_met = self.out.finish_h * 3600.0 <= s.job.deadline_s + 1e-6;
            self.active = None;
            return self.status;
        }
        if let Some(inst) = self.active
            && inst.mode == Mode::Spot
            && !self.spot_now(inst.zone)
        {
            self.active = None;
            self.out.preemptions += 1;
            self.preempted_now = true;
        }
        if self.elapsed_s() >= s.job.deadline_s - 1e-9 {
            self.status = Status::Missed;
            self.out.bill_usd = self.bill_usd();
            self.out.cost_usd = self.out.bill_usd;
        }
        self.status
    }

    /// Tries to run `mode` in zone `z` from this tick on: on-demand always succeeds, spot
    /// iff the zone has spot now; on success whatever ran before is replaced. Launching
    /// what already runs is a no-op that succeeds.
    ///
    /// # Panics
    /// On an unknown zone or [`Mode::Idle`] (a policy's bug).
    pub fn try_launch(&mut self, z: usize, mode: Mode) -> bool {
        assert!(z < self.setting.zones.len(), "zone {z} out of range");
        assert!(mode != Mode::Idle, "launch of idle");
        if let Some(inst) = self.active
            && inst.zone == z
            && inst.mode == mode
        {
            return true;
        }
        if mode == Mode::Spot && !self.spot_now(z) {
            return false;
        }
        self.active = Some(Instance {
            zone: z,
            mode,
            launched: self.tick,
        });
        self.out.starts += 1;
        true
    }

    /// Stops the instance that runs (its tick is not billed if it was launched in this one).
    pub fn terminate(&mut self) {
        self.active = None;
    }

    /// Probes zone `z`: whether it has spot now, billed [`PROBE_S`] of spot if it has.
    ///
    /// With the setting's `artifact_probe_billing`, a successful probe of the zone where the
    /// job's own instance runs is billed as the artifact's environment bills it (one charge
    /// per zone and tick): beside on-demand not at all; beside spot, the instance's tick is
    /// billed [`PROBE_S`] instead of g and the probe nothing. If that instance is gone by the
    /// tick's end, neither is billed (the artifact's terminate drops the zone's charge).
    pub fn probe(&mut self, z: usize) -> bool {
        self.out.probes += 1;
        let ok = self.spot_now(z);
        if ok && self.setting.artifact_probe_billing && self.active.is_some_and(|i| i.zone == z) {
            self.own_zone_probe = Some(z);
        } else if ok {
            self.probes_usd_now +=
                self.setting.zones[z].price(Mode::Spot, self.tick) * PROBE_S / 3600.0;
        }
        ok
    }

    /// The safety net every online policy runs under (spec §2.1, the artifact's
    /// `maybe_trigger_safety_net`), before the policy acts. With C the work left,
    /// rem = ⌊(T − t)/g⌋·g and need = ⌈(C + d)/g⌉·g, it latches the first time
    /// need ≥ rem: an on-demand instance is kept, a spot one is replaced by on-demand in its
    /// zone (a cold start, no egress), and with nothing running on-demand starts in the zone
    /// minimising o_z·C/3600 + E(L → z) (first minimum). Once latched the policy is never
    /// consulted again; if its instance is lost, on-demand starts again the same way.
    ///
    /// Returns whether the net has the tick (the policy must not act).
    ///
    /// # Errors
    /// [`SpotError::Policy`] when the whole ticks left are fewer than the work left (the
    /// deadline cannot be met even without a cold start: a policy's bug).
    pub fn safety_net(&mut self) -> Result<bool, SpotError> {
        let s = self.setting;
        let (g, d) = (s.gap_s, s.job.changeover_s);
        let left = self.work_left_s();
        if left <= POLICY_DONE_S {
            return Ok(false);
        }
        let rem = ((s.job.deadline_s - self.elapsed_s()) / g).floor() * g;
        if rem < left {
            return Err(SpotError::Policy(format!(
                "the deadline cannot be met: {rem} s of whole ticks left for {left} s of work"
            )));
        }
        let need = ((left + d) / g).ceil() * g;
        if self.latched || need >= rem {
            match self.active {
                Some(inst) if inst.mode == Mode::OnDemand => {}
                Some(inst) if !self.latched => {
                    self.terminate();
                    self.try_launch(inst.zone, Mode::OnDemand);
                }
                Some(_) => {}
                None => {
                    let z = self.cheapest_on_demand(left);
                    self.try_launch(z, Mode::OnDemand);
                }
            }
            self.latched = true;
            return Ok(true);
        }
        Ok(false)
    }

    /// The zone where finishing `left` seconds on on-demand costs least, egress from the
    /// checkpoint's zone included (first minimum).
    fn cheapest_on_demand(&self, left: f64) -> usize {
        let s = self.setting;
        let mut best = (f64::INFINITY, 0);
        for (z, zone) in s.zones.iter().enumerate() {
            let egress = match self.location {
                Some(l) if l != z => s.egress(l, z),
                _ => 0.0,
            };
            let c = zone.on_demand_per_h * left / 3600.0 + egress;
            if c < best.0 {
                best = (c, z);
            }
        }
        best.1
    }

    /// Closes the current tick.
    pub fn end(&mut self) {
        if let Some(h) = self.history.as_mut() {
            h.push(TickRecord {
                tick: self.tick,
                zone: self.active.map(|i| i.zone),
                mode: self.active.map_or(Mode::Idle, |i| i.mode),
                preempted: self.preempted_now,
                probes: self.out.probes - self.probes_at_begin,
                safety_net: self.latched,
                work_done_s: self.done_s,
                bill_usd: self.out.instance_usd + self.out.probe_usd + self.out.egress_usd,
            });
        }
        self.preempted_now = false;
        self.probes_at_begin = self.out.probes;
        self.tick += 1;
    }

    /// The outcome once [`Env::begin`] said done or missed.
    pub fn outcome(&self) -> ZoneOutcome {
        self.out
    }
}

/// A multi-zone policy: acts on the environment once per tick.
pub trait ZonePolicy {
    /// Its name in rows and tables.
    fn name(&self) -> String;
    /// Prepares for a run of `setting`.
    ///
    /// # Errors
    /// The policy cannot run on this setting (an optimum too large to compute, say).
    fn reset(&mut self, setting: &Setting) -> Result<(), SpotError>;
    /// Acts on the current tick.
    fn act(&mut self, env: &mut Env<'_>);
    /// Whether it runs under the [`Env::safety_net`] (every online policy; not a plan).
    fn safety_net(&self) -> bool {
        true
    }
}

/// Runs `policy` on `setting` until the job is done or its deadline passes.
///
/// # Errors
/// The policy's own from [`ZonePolicy::reset`]; [`SpotError::Policy`] if it misses the
/// deadline.
pub fn run(policy: &mut dyn ZonePolicy, setting: &Setting) -> Result<ZoneOutcome, SpotError> {
    run_inner(policy, setting, false).map(|(o, _)| o)
}

/// As [`run`], keeping a [`TickRecord`] of every tick the job ran (the per-tick history).
///
/// # Errors
/// As [`run`].
pub fn run_recorded(
    policy: &mut dyn ZonePolicy,
    setting: &Setting,
) -> Result<(ZoneOutcome, Vec<TickRecord>), SpotError> {
    run_inner(policy, setting, true)
}

fn run_inner(
    policy: &mut dyn ZonePolicy,
    setting: &Setting,
    record: bool,
) -> Result<(ZoneOutcome, Vec<TickRecord>), SpotError> {
    policy.reset(setting)?;
    let mut env = Env::new(setting);
    if record {
        env.history = Some(Vec::new());
    }
    loop {
        match env.begin() {
            Status::Running => {
                if !(policy.safety_net() && env.safety_net()?) {
                    policy.act(&mut env);
                }
            }
            Status::Done => return Ok((env.outcome(), env.history.take().unwrap_or_default())),
            Status::Missed => {
                return Err(SpotError::Policy(format!(
                    "{}: missed the deadline of {} h with {:.3} h of work left",
                    policy.name(),
                    setting.job.deadline_s / 3600.0,
                    env.work_left_s() / 3600.0
                )));
            }
        }
        env.end();
    }
}

/// A fixed plan: per tick, idle (`None`) or the (zone, mode) that runs. Each tick it keeps
/// what runs if the plan says so, else terminates it and launches the plan's instance;
/// past its end it idles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan(pub Vec<Option<(usize, Mode)>>);

impl ZonePolicy for Plan {
    fn name(&self) -> String {
        "plan".into()
    }

    fn reset(&mut self, _: &Setting) -> Result<(), SpotError> {
        Ok(())
    }

    fn safety_net(&self) -> bool {
        false
    }

    fn act(&mut self, env: &mut Env<'_>) {
        match self.0.get(env.tick()).copied().flatten() {
            None => env.terminate(),
            Some((z, mode)) => {
                if env.active().map(|i| (i.zone, i.mode)) != Some((z, mode)) {
                    env.terminate();
                    env.try_launch(z, mode);
                }
            }
        }
    }
}
