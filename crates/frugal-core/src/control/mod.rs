//! The controller: jobs through their lifecycle on a cluster, the scheduler's decisions,
//! and the fleet's power record and bill — sans-I/O, one model under two clocks. The
//! simulator drives it from an event heap on a virtual clock; the service drives it from
//! the wall clock with a durable store and a backend, acting on the [`Effect`]s it
//! returns. Same calls, same bill.
//!
//! Every driver speaks to it in one type, [`Event`], through [`Controller::handle`].
//! What happens at one instant t, as both drivers send it: jobs that ended at t free their
//! executors ([`Event::Finish`]); arrivals join the queue ([`Event::Arrive`]); then
//! [`Event::Schedule`] completes the boots due by t, turns off the idle VMs whose
//! keep-alive has run out by t (and lost VMs whose time out of service is over return to
//! the off pool), and offers the queue to the policy.
//!
//! The marginal-cost rule: a VM that hosts no executor and whose keep-alive ran out by t
//! is off for the decisions at t, so a policy that prefers VMs already on does not keep an
//! expensive VM that just emptied instead of turning on a cheaper one. Turning it back on
//! at t costs no boot latency and continues its interval ([`crate::fleet`]: no power
//! cycle), and no effect goes out for that off and on: a VM turned off during an instant
//! is reported off ([`Effect::VmOff`]) only at the end of the pass, if it is still off.
//!
//! A lost VM (its host stopped answering) releases its executors, is billed up to the
//! loss and is held out of service for [`ControlConfig::out_of_service_s`] by a
//! reservation of its whole capacity; each running job's lost executors are placed again
//! at once, or the job fails. A refused power-on is the same, except that the VM never
//! ran: it costs nothing.
//!
//! With a contention model ([`crate::DurationModel::contention`], frugal's extension) the
//! controller also keeps the running jobs' remaining work in a fluid
//! ([`crate::contention`]): at every start and end it re-predicts each running job's
//! end, writes it to the job's record and reports the job changed, so a driver that ends
//! jobs at their predicted end (the simulator) moves them. Without one, a job's end is
//! the scheduler's estimate and never moves.

mod event;

pub use event::Event;

use crate::DecisionCost;
use crate::billing::BillingGranularity;
use crate::cluster::{Cluster, Vm, VmId};
use crate::fleet::{Fleet, KeepAlive};
use crate::job::Job;
use crate::lifecycle::JobState;
use crate::placement::Placement;
use crate::resources::{RESOURCE_DIMS, Resources};
use crate::scheduler::{Decision, Scheduler};

/// Seconds a lost VM stays out of service by default before the policy may turn it on
/// again: long enough that a flapping host is not handed work at once, short enough that
/// a cloud VM slot (whose next power-on is a new instance) comes back within the hour.
pub const OUT_OF_SERVICE_S: f64 = 600.0;

/// How the controller bills and keeps VMs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControlConfig {
    /// Billing granularity of VM on-time.
    pub billing: BillingGranularity,
    /// How long an idle VM stays on.
    pub keep_alive: KeepAlive,
    /// Seconds a lost VM is out of service.
    pub out_of_service_s: f64,
}

/// What a controller without a scheduler needs of one: the completion-time model (for a
/// placement's hybrid and kind-mismatch flags) and the boot latency.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DriverConfig {
    /// The completion-time model.
    pub duration: crate::duration::DurationModel,
    /// Seconds from turning a VM on until it can run executors.
    pub boot_latency_s: f64,
}

impl Default for ControlConfig {
    fn default() -> ControlConfig {
        ControlConfig {
            billing: BillingGranularity::PerSecond,
            keep_alive: KeepAlive::default(),
            out_of_service_s: OUT_OF_SERVICE_S,
        }
    }
}

/// What happened to one job in the controller (the job itself is
/// [`Controller::job`]). Times in seconds on the driver's clock.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRecord {
    /// Where it is in its lifecycle.
    pub state: JobState,
    /// When the policy first had it in a pass (its arrival for the scheduler: a service
    /// takes a submission and passes the queue at slightly different instants).
    pub offered_at: Option<f64>,
    /// Where its executors run (once placed).
    pub placement: Option<Placement>,
    /// When its executors start (after any boot).
    pub start: Option<f64>,
    /// When it ended, or its estimated end while running.
    pub finish: Option<f64>,
    /// Why it is in its state (re-placed executors, a hold, a failure…).
    pub reason: Option<String>,
    /// The dollar limit holding it back while it is queued, if one does (its `reason`
    /// says it in words); cleared when it starts.
    pub hold: Option<crate::scheduler::Hold>,
    /// What its placement cost and what the optimum would have (paper 000 Eq. 16).
    pub cost: Option<DecisionCost>,
    /// True if its placement spans both sites (it runs at T_C^H).
    pub hybrid: bool,
    /// True if its placement ignored its kind's spread/consolidate preference.
    pub kind_mismatch: bool,
}

impl JobRecord {
    /// A job in `state` with nothing else known yet.
    pub fn new(state: JobState) -> JobRecord {
        JobRecord {
            state,
            offered_at: None,
            placement: None,
            start: None,
            finish: None,
            reason: None,
            hold: None,
            cost: None,
            hybrid: false,
            kind_mismatch: false,
        }
    }
}

/// A change for the driver to persist and act on.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Job `idx` was placed: launch it.
    Launch(usize),
    /// Running job `idx` gets executors on `placement` (replacing lost ones).
    AddExecutors {
        /// Job index.
        idx: usize,
        /// Where the new executors go.
        placement: Placement,
    },
    /// Stop running job `idx`.
    Stop(usize),
    /// Job `idx` changed (persist it).
    Changed(usize),
    /// VM turned on at the time given.
    VmOn(VmId, f64),
    /// VM turned off at the time given.
    VmOff(VmId, f64),
    /// VM lost at the time given (`refused`: its power-on was refused): a record for the
    /// driver's history, no action.
    VmLost {
        /// The VM.
        vm: VmId,
        /// When.
        at: f64,
        /// The provider refused its power-on (it never ran).
        refused: bool,
    },
}

/// `n` executors on `vm`.
fn single(vm: VmId, n: u32) -> Placement {
    Placement {
        executors_per_vm: vec![(vm, n)],
    }
}

/// The controller; see the module doc. `J` is its job table, indexed by slot: a table it
/// fills as jobs come (`Vec<Job>`, a service: [`Controller::add`]), or a workload known in
/// advance that it reads in place (a simulation's `&[Job]`: [`Event::Arrive`]), so a
/// run of a million jobs keeps no second copy of them.
pub struct Controller<J = Vec<Job>> {
    cluster: Cluster,
    empty: Cluster,
    /// None for a driver that places executors itself ([`Controller::reserve`]).
    scheduler: Option<Scheduler>,
    cfg: ControlConfig,
    /// The scheduler's job table (slot-indexed).
    jobs: J,
    records: Vec<Option<JobRecord>>,
    /// How many records are running (kept at each change of state into or out of
    /// running, so that reading it costs no scan of the records).
    running: usize,
    free: Vec<usize>,
    fleet: Fleet,
    /// Idle VMs on keep-alive: when each is to be turned off. (A booting VM's end of
    /// boot is the cluster's [`PowerState::Booting`](crate::cluster::PowerState), the
    /// one record of a VM's power the controller reads.)
    off_at: Vec<Option<f64>>,
    /// A time no later than any pending keep-alive expiry, boot completion or return to
    /// service (+∞: none pending), so that an instant with nothing due costs no scan of
    /// the VMs (a large cluster with keep-alive 0 and no boot latency never scans).
    soonest: f64,
    /// VMs turned off during the current instant, reported at the end of the pass.
    turned_off: Vec<(VmId, f64)>,
    /// Restored idle VMs whose keep-alive ran out while the driver was down: turned off
    /// at the instant of the next pass, so a pass that uses them again makes no power
    /// cycle ([`Event::PowerRestored`]).
    off_next_pass: Vec<VmId>,
    /// Jobs queued since the last pass.
    fresh: Vec<usize>,
    /// The pass's decisions (a buffer kept between passes).
    decisions: Vec<Decision>,
    now: f64,
    duration: crate::duration::DurationModel,
    /// The running jobs' remaining work under contention (`None`: the model is off).
    fluid: Option<crate::contention::Fluid>,
    /// Scratch: the fluid's predicted ends.
    ends: Vec<(usize, f64)>,
    /// Scratch of [`Controller::reserve`]: the VMs it turned on, and their effects.
    scratch_on: Vec<VmId>,
    scratch_effects: Vec<Effect>,
    boot_latency_s: f64,
    /// Reserved capacity and capacity of VMs on, per dimension, and their integrals.
    used: [u64; RESOURCE_DIMS],
    on_capacity: [u64; RESOURCE_DIMS],
    used_integral: [f64; RESOURCE_DIMS],
    capacity_integral: [f64; RESOURCE_DIMS],
}

impl Controller {
    /// A controller of `cluster` (emptied: every VM off and free) scheduled by
    /// `scheduler` — or, without one, by a driver that places executors itself
    /// ([`Controller::reserve`], [`Event::Start`]; [`Controller::over`] gives such a
    /// driver's completion-time model and boot latency).
    pub fn new(cluster: &Cluster, scheduler: Option<Scheduler>, cfg: ControlConfig) -> Controller {
        Controller::over(Vec::new(), cluster, scheduler, cfg, DriverConfig::default())
    }

    /// A free slot for `job` (the lowest freed one, or a new one).
    fn slot(&mut self, job: Job) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.jobs[i] = job;
                i
            }
            None => {
                self.jobs.push(job);
                self.records.push(None);
                self.jobs.len() - 1
            }
        }
    }

    /// Adds `job` at `now`, queued — or unschedulable, if the policy cannot place it even
    /// on the empty cluster (with a reason and a change to persist). `max_cost_usd` caps
    /// what its placement may cost. Returns its index.
    pub fn add(&mut self, job: Job, max_cost_usd: Option<f64>, now: f64) -> (usize, Vec<Effect>) {
        let idx = self.slot(job);
        let effects = self.queue(idx, max_cost_usd, now);
        (idx, effects)
    }

    /// Adds a job that had already ended (a service restarting from its store).
    pub fn add_ended(&mut self, job: Job, record: JobRecord) -> usize {
        let idx = self.slot(job);
        self.running += usize::from(record.state == JobState::Running);
        self.records[idx] = Some(record);
        idx
    }

    /// Adds a job whose executors still run on `placement` (a service restarting),
    /// reserving them; its start and estimated finish as stored. A start after `now`
    /// means its VMs were still booting: they are ready at its start.
    pub fn add_running(
        &mut self,
        job: Job,
        mut record: JobRecord,
        placement: Placement,
        now: f64,
    ) -> usize {
        self.advance(now);
        let idx = self.slot(job);
        let demand = self.jobs[idx].executor_demand;
        let mut on = Vec::new();
        let boot = record.start.map_or(0.0, |s| (s - now).max(0.0));
        self.cluster
            .reserve(&placement, &demand, now, boot, &mut on)
            .expect("a restored placement fits the cluster it was made on");
        for &vm in &on {
            self.arm_boot(vm);
            self.count_on(vm, true);
        }
        self.add_used(demand.times(placement.executors()), true);
        if let Some(f) = record.finish {
            self.cluster.extend_busy(&placement, f);
        }
        if let Some(fluid) = &mut self.fluid {
            let load = fluid.model().load_of(&self.cluster, &placement, &demand);
            let start = record.start.unwrap_or(now);
            fluid.advance(now);
            fluid.add_restored(idx, start, record.finish.unwrap_or(now), load);
        }
        record.state = JobState::Running;
        self.running += 1;
        record.placement = Some(placement);
        self.records[idx] = Some(record);
        idx
    }
}

impl<J: AsRef<[Job]>> Controller<J> {
    /// [`Controller::new`] over the job table `jobs` (a workload known in advance: each
    /// job joins at [`Event::Arrive`]); without a scheduler, `driver` gives the
    /// completion-time model and boot latency.
    pub fn over(
        jobs: J,
        cluster: &Cluster,
        scheduler: Option<Scheduler>,
        cfg: ControlConfig,
        driver: DriverConfig,
    ) -> Controller<J> {
        let records = std::iter::repeat_with(|| None)
            .take(jobs.as_ref().len())
            .collect();
        let empty = cluster.emptied();
        let n = empty.len();
        let driver = scheduler.as_ref().map_or(driver, |s| DriverConfig {
            duration: s.config().duration,
            boot_latency_s: s.config().boot_latency_s,
        });
        Controller {
            fluid: driver
                .duration
                .contention
                .map(crate::contention::Fluid::new),
            ends: Vec::new(),
            scratch_on: Vec::new(),
            scratch_effects: Vec::new(),
            duration: driver.duration,
            boot_latency_s: driver.boot_latency_s,
            fleet: Fleet::new(&empty, cfg.billing, cfg.keep_alive),
            cluster: empty.clone(),
            empty,
            scheduler,
            cfg,
            jobs,
            records,
            running: 0,
            free: Vec::new(),
            off_at: vec![None; n],
            soonest: f64::INFINITY,
            turned_off: Vec::new(),
            off_next_pass: Vec::new(),
            fresh: Vec::new(),
            decisions: Vec::new(),
            now: f64::NEG_INFINITY,
            used: [0; RESOURCE_DIMS],
            on_capacity: [0; RESOURCE_DIMS],
            used_integral: [0.0; RESOURCE_DIMS],
            capacity_integral: [0.0; RESOURCE_DIMS],
        }
    }

    // ---- Reading. ---------------------------------------------------------------------

    /// The live cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The cluster as built: every VM off and free.
    pub fn empty_cluster(&self) -> &Cluster {
        &self.empty
    }

    /// The fleet's power record and bill.
    pub fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    /// The scheduler.
    ///
    /// # Panics
    /// For a controller without one.
    pub fn scheduler(&self) -> &Scheduler {
        self.scheduler
            .as_ref()
            .expect("a controller with a scheduler")
    }

    /// The scheduler, to change its settings (budget, cost caps) or take its times.
    ///
    /// # Panics
    /// For a controller without one.
    pub fn scheduler_mut(&mut self) -> &mut Scheduler {
        self.scheduler
            .as_mut()
            .expect("a controller with a scheduler")
    }

    /// True if a scheduler places the jobs (false: the driver does).
    pub fn has_scheduler(&self) -> bool {
        self.scheduler.is_some()
    }

    /// The job in slot `idx`.
    pub fn job(&self, idx: usize) -> &Job {
        &self.jobs.as_ref()[idx]
    }

    /// The job table, by slot.
    pub fn jobs(&self) -> &[Job] {
        self.jobs.as_ref()
    }

    /// The settings.
    pub fn config(&self) -> &ControlConfig {
        &self.cfg
    }

    /// The job in slot `idx`, if the slot is in use.
    pub fn get(&self, idx: usize) -> Option<&JobRecord> {
        self.records.get(idx).and_then(Option::as_ref)
    }

    /// The job in slot `idx`.
    ///
    /// # Panics
    /// If the slot is free.
    pub fn record(&self, idx: usize) -> &JobRecord {
        self.get(idx).expect("a live job slot")
    }

    fn record_mut(&mut self, idx: usize) -> &mut JobRecord {
        self.records[idx].as_mut().expect("a live job slot")
    }

    /// Every job in a slot, with its index.
    pub fn records(&self) -> impl Iterator<Item = (usize, &JobRecord)> {
        self.records
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().map(|r| (i, r)))
    }

    /// The index the next added job gets.
    pub fn next_index(&self) -> usize {
        self.free
            .last()
            .copied()
            .unwrap_or(self.jobs.as_ref().len())
    }

    /// Jobs started and not ended.
    pub fn running(&self) -> usize {
        self.running
    }

    /// The latest instant the controller was told of.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The next instant at which the controller has something to do on its own: a boot
    /// completes, an idle VM's keep-alive runs out, or a lost VM returns to service.
    pub fn next_wake(&self) -> Option<f64> {
        if self.soonest == f64::INFINITY {
            return None;
        }
        self.next_wake_scan()
    }

    fn next_wake_scan(&self) -> Option<f64> {
        let quarantine =
            (0..self.cluster.len()).filter_map(|v| self.fleet.out_of_service(v as VmId));
        let boots = self.cluster.vms.iter().filter_map(Vm::booting_until);
        self.off_at
            .iter()
            .flatten()
            .copied()
            .chain(boots)
            .chain(quarantine)
            .reduce(f64::min)
    }

    /// Mean utilisation of the capacity that was on, per resource dimension (∫ reserved
    /// dt / ∫ on-capacity dt), so far.
    pub fn utilisation(&self) -> [f64; RESOURCE_DIMS] {
        std::array::from_fn(|d| {
            if self.capacity_integral[d] > 0.0 {
                self.used_integral[d] / self.capacity_integral[d]
            } else {
                0.0
            }
        })
    }

    // ---- The clock. -------------------------------------------------------------------

    /// Moves the controller's clock to `t` (never back), accumulating utilisation.
    #[inline]
    fn advance(&mut self, t: f64) {
        // NaN never moves the clock either.
        if t.partial_cmp(&self.now) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        if self.now.is_finite() {
            let dt = t - self.now;
            for d in 0..RESOURCE_DIMS {
                self.used_integral[d] += dt * self.used[d] as f64;
                self.capacity_integral[d] += dt * self.on_capacity[d] as f64;
            }
        }
        if self.scheduler.is_none() {
            // No pass reports the VMs turned off (a self-placing driver reads the fleet):
            // only this instant's matter, for an off and on again within it.
            self.turned_off.clear();
        }
        self.now = t;
    }

    /// Counts VM `vm`'s capacity in (`on`) or out of the capacity of VMs on: the one
    /// place the utilisation's denominator changes.
    fn count_on(&mut self, vm: VmId, on: bool) {
        for (d, c) in self.cluster.vm(vm).capacity.0.iter().enumerate() {
            if on {
                self.on_capacity[d] += u64::from(*c);
            } else {
                self.on_capacity[d] -= u64::from(*c);
            }
        }
    }

    fn add_used(&mut self, r: Resources, reserve: bool) {
        for d in 0..RESOURCE_DIMS {
            if reserve {
                self.used[d] += u64::from(r.0[d]);
            } else {
                self.used[d] -= u64::from(r.0[d]);
            }
        }
    }

    // ---- Power. -----------------------------------------------------------------------

    /// Books the VMs a reservation turned on at `now` (the cluster holds when each is
    /// ready: its boot's end is a wake-up).
    fn powered_on(&mut self, vms: &[VmId], effects: &mut Vec<Effect>) {
        let now = self.now;
        for &vm in vms {
            self.off_at[vm as usize] = None;
            self.arm_boot(vm);
            self.count_on(vm, true);
            // Off and on again in this instant: no power cycle, no effect either way.
            match self
                .turned_off
                .iter()
                .position(|&(v, t)| v == vm && t == now)
            {
                Some(k) => {
                    self.turned_off.swap_remove(k);
                    self.fleet.reopen(vm, now);
                }
                None => {
                    self.fleet.power_on(vm, now);
                    effects.push(Effect::VmOn(vm, now));
                }
            }
        }
    }

    /// The VMs of `placement` host executors: an idle one kept on is in use again, its
    /// keep-alive no longer runs.
    fn busy(&mut self, placement: &Placement) {
        for &(vm, _) in &placement.executors_per_vm {
            self.off_at[vm as usize] = None;
        }
    }

    /// Turns `vm` off at `t` in the cluster and the bill (if it is idle and on); the effect
    /// waits for the end of the pass.
    fn turn_off(&mut self, vm: VmId, t: f64) {
        let i = vm as usize;
        self.off_at[i] = None;
        if !self.cluster.power_off(vm, t) {
            return;
        }
        self.count_on(vm, false);
        self.fleet.power_off(vm, t);
        self.turned_off.push((vm, t));
    }

    /// `vm` hosts no executor since `t`: turned off now if its keep-alive is over by then,
    /// otherwise when it runs out.
    fn idle(&mut self, vm: VmId, t: f64) {
        if self.cluster.vm(vm).executors > 0 || !self.cluster.vm(vm).is_active() {
            return;
        }
        let at = self.fleet.off_at(vm, t);
        if at <= t {
            self.turn_off(vm, t);
        } else {
            self.off_at[vm as usize] = Some(at);
            self.arm(at);
        }
    }

    /// Completes the boots due by `now`, turns off idle VMs whose keep-alive ran out by
    /// `now` (at that time), and returns lost VMs whose time out of service is over.
    /// [`Event::Schedule`] does this first; a driver calls it before the events of
    /// an instant so the bill and utilisation follow each change at its own time.
    #[inline]
    fn wake(&mut self, now: f64) {
        if now < self.soonest {
            self.advance(now);
            return;
        }
        self.wake_due(now);
    }

    /// [`Controller::wake`] when something is due by `now`.
    fn wake_due(&mut self, now: f64) {
        for vm in 0..self.cluster.len() as VmId {
            if self
                .cluster
                .vm(vm)
                .booting_until()
                .is_some_and(|t| t <= now)
            {
                self.cluster.mark_ready(vm);
            }
        }
        for vm in std::mem::take(&mut self.off_next_pass) {
            if self.cluster.vm(vm).executors == 0 && self.off_at[vm as usize].is_none() {
                self.turn_off(vm, now);
            }
        }
        let mut due: Vec<(f64, VmId)> = (0..self.cluster.len())
            .filter_map(|v| self.off_at[v].filter(|&t| t <= now).map(|t| (t, v as VmId)))
            .collect();
        due.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (t, vm) in due {
            self.advance(t);
            self.turn_off(vm, t);
        }
        for vm in 0..self.cluster.len() as VmId {
            if self
                .fleet
                .out_of_service(vm)
                .is_some_and(|until| until <= now)
            {
                self.fleet.return_to_service(vm);
                let whole = self.cluster.vm(vm).capacity;
                self.cluster.release(&single(vm, 1), &whole);
                self.cluster.power_off(vm, now);
                self.freed();
            }
        }
        self.advance(now);
        self.soonest = self.next_wake_scan().unwrap_or(f64::INFINITY);
    }

    /// A keep-alive expiry, boot completion or return to service is due at `t`.
    fn arm(&mut self, t: f64) {
        self.soonest = self.soonest.min(t);
    }

    /// `vm`'s boot's end, if it is booting, is due.
    fn arm_boot(&mut self, vm: VmId) {
        if let Some(t) = self.cluster.vm(vm).booting_until() {
            self.arm(t);
        }
    }

    fn freed(&mut self) {
        if let Some(s) = &mut self.scheduler {
            s.resources_freed();
        }
    }

    fn boot_latency_s(&self) -> f64 {
        self.scheduler
            .as_ref()
            .map_or(self.boot_latency_s, |s| s.config().boot_latency_s)
    }

    // ---- Contention. ------------------------------------------------------------------

    /// Accounts the running jobs' work up to `now`, before the running set changes.
    fn fluid_to(&mut self, now: f64) {
        if let Some(f) = &mut self.fluid {
            f.advance(now);
        }
    }

    /// Re-predicts each running job's end under contention: a moved end is written to
    /// the job's record (and its VMs' busy-until, which only grows) and the job changed.
    fn contend(&mut self, effects: &mut Vec<Effect>) {
        let Some(f) = &mut self.fluid else {
            return;
        };
        let mut ends = std::mem::take(&mut self.ends);
        f.project(&mut ends);
        for &(idx, end) in &ends {
            let Some(r) = self.records.get_mut(idx).and_then(Option::as_mut) else {
                continue;
            };
            if r.finish != Some(end) {
                r.finish = Some(end);
                if let Some(p) = &r.placement {
                    self.cluster.extend_busy(p, end);
                }
                if !effects.contains(&Effect::Changed(idx)) {
                    effects.push(Effect::Changed(idx));
                }
            }
        }
        self.ends = ends;
    }

    /// Executors moved (lost, placed again): every running job's load is read again from
    /// its placement, and the ends re-predicted.
    fn reload(&mut self, effects: &mut Vec<Effect>) {
        let Some(f) = &mut self.fluid else {
            return;
        };
        let running: Vec<usize> = f.jobs().collect();
        for idx in running {
            if let Some(p) = self.records[idx]
                .as_ref()
                .and_then(|r| r.placement.as_ref())
            {
                let demand = self.jobs.as_ref()[idx].executor_demand;
                f.set_load(idx, f.model().load_of(&self.cluster, p, &demand));
            }
        }
        self.contend(effects);
    }

    // ---- Jobs. ------------------------------------------------------------------------

    /// Job `idx` of the table arrives at `now`, queued for a driver that places executors
    /// itself.
    fn arrive_unqueued(&mut self, idx: usize, now: f64) {
        self.advance(now);
        self.records[idx] = Some(JobRecord::new(JobState::Queued));
    }

    /// A driver that places executors itself found that job `idx` can never be placed.
    fn reject(&mut self, idx: usize, now: f64) {
        self.advance(now);
        let r = self.record_mut(idx);
        r.state = JobState::Unschedulable;
        r.finish = Some(now);
    }

    fn queue(&mut self, idx: usize, max_cost_usd: Option<f64>, now: f64) -> Vec<Effect> {
        self.advance(now);
        let s = self
            .scheduler
            .as_mut()
            .expect("a controller with a scheduler");
        s.cap_cost(idx, max_cost_usd);
        let mut r = JobRecord::new(JobState::Queued);
        let mut effects = Vec::new();
        if s.can_ever_place(&self.jobs.as_ref()[idx], &self.empty) {
            s.enqueue(idx, &self.jobs.as_ref()[idx], &self.cluster);
            self.fresh.push(idx);
        } else {
            r.state = JobState::Unschedulable;
            r.finish = Some(now);
            r.reason = Some("the policy cannot place it even on the empty cluster".into());
            effects.push(Effect::Changed(idx));
        }
        self.records[idx] = Some(r);
        effects
    }

    /// Restores a VM's stored power interval `(on, off)` (`off` = `None`: still open) at
    /// `now`, after the jobs still running ([`Controller::add_running`]). An open interval
    /// of a VM that hosts executors stays open. An open interval of an idle VM — kept
    /// alive when the service stopped, idle since `idle_since` — stays open until its
    /// keep-alive runs out, as if the service had never stopped (booting until `on` + the
    /// boot latency if that is still ahead).
    ///
    /// If the keep-alive ran out by `now`, the VM is turned off at the instant of the next
    /// scheduling pass ([`Event::Schedule`]), not at `now`: nobody turned it off
    /// before, so it is billed until then, and a pass that places a re-queued job on it
    /// again makes no power cycle — the restart's off and the pass's on are one instant,
    /// one interval, however much wall-clock time the restart took between the two (per-
    /// hour billing charges no second started hour). Unused by that pass, it goes off at
    /// the pass's instant ([`Effect::VmOff`] at the end of the pass).
    fn restore_power(
        &mut self,
        vm: VmId,
        (on, off): (f64, Option<f64>),
        idle_since: f64,
        now: f64,
    ) -> Vec<Effect> {
        if vm as usize >= self.cluster.len() {
            return Vec::new();
        }
        self.advance(now);
        self.fleet.power_on(vm, on);
        match off {
            Some(off) => {
                self.fleet.power_off(vm, off);
                Vec::new()
            }
            None if self.cluster.vm(vm).executors > 0 => Vec::new(),
            None => {
                let ready = on + self.boot_latency_s();
                self.cluster.power_on_idle(vm, now, ready);
                self.arm_boot(vm);
                self.count_on(vm, true);
                match self.fleet.off_at(vm, idle_since) {
                    at if at > now => {
                        self.off_at[vm as usize] = Some(at);
                        self.arm(at);
                    }
                    _ => {
                        self.off_next_pass.push(vm);
                        self.arm(now);
                    }
                }
                Vec::new()
            }
        }
    }

    /// Every slot's record, taken out (the slots are left empty): for a driver that is
    /// done with the controller and keeps the records in another form.
    pub fn take_records(&mut self) -> Vec<Option<JobRecord>> {
        self.running = 0;
        std::mem::take(&mut self.records)
    }

    /// Frees slot `idx` of an ended job (the service keeps it in its store only).
    pub fn remove(&mut self, idx: usize) -> Option<JobRecord> {
        let r = self.records.get_mut(idx)?.take()?;
        self.running -= usize::from(r.state == JobState::Running);
        if let Some(f) = &mut self.fluid {
            f.remove(idx);
        }
        self.free.push(idx);
        Some(r)
    }

    /// Offers the queue to the policy at `now` (after the boots, keep-alive expiries and
    /// returns to service due by then): the changes to persist and act on.
    ///
    /// # Panics
    /// For a controller without a scheduler.
    fn schedule(&mut self, now: f64) -> Vec<Effect> {
        self.wake(now);
        self.fluid_to(now);
        // VMs that went off before this instant are off: say so before anything turns
        // them on again. Those turned off at this instant wait for the end of the pass.
        let mut effects = Vec::new();
        self.turned_off.retain(|&(vm, t)| {
            if t < now {
                effects.push(Effect::VmOff(vm, t));
            }
            t >= now
        });
        for idx in std::mem::take(&mut self.fresh) {
            if let Some(r) = self.records.get_mut(idx).and_then(Option::as_mut) {
                r.offered_at.get_or_insert(now);
            }
        }
        let mut decisions = std::mem::take(&mut self.decisions);
        let scheduler = self
            .scheduler
            .as_mut()
            .expect("a controller with a scheduler");
        if scheduler.uses_load() {
            scheduler.set_load(self.fluid.as_ref().map(crate::contention::Fluid::load));
        }
        scheduler.run_pass(self.jobs.as_ref(), &mut self.cluster, now, &mut decisions);
        let duration = scheduler.config().duration;
        for d in decisions.drain(..) {
            match d {
                Decision::Started {
                    job,
                    placement,
                    start,
                    finish,
                    powered_on,
                    cost,
                } => {
                    self.powered_on(&powered_on, &mut effects);
                    self.busy(&placement);
                    let demand = self.jobs.as_ref()[job].executor_demand;
                    self.add_used(demand.times(placement.executors()), true);
                    if let Some(f) = &mut self.fluid {
                        let load = f.model().load_of(&self.cluster, &placement, &demand);
                        f.add(job, start, finish - start, load);
                    }
                    let hybrid = duration.is_hybrid(&self.cluster, &placement);
                    let mismatch = duration.is_kind_mismatch(&self.jobs.as_ref()[job], &placement);
                    self.running += 1;
                    let r = self.record_mut(job);
                    r.state = JobState::Running;
                    r.placement = Some(placement);
                    r.start = Some(start);
                    r.finish = Some(finish);
                    r.cost = cost;
                    r.hybrid = hybrid;
                    r.kind_mismatch = mismatch;
                    if r.hold.take().is_some() {
                        // It waited on a dollar limit; it no longer does.
                        r.reason = None;
                    }
                    effects.push(Effect::Changed(job));
                    effects.push(Effect::Launch(job));
                }
                Decision::Held { job, hold } => {
                    let reason = hold.reason();
                    let r = self.record_mut(job);
                    r.hold = Some(hold);
                    // Changed when its words change (not every cent of the fleet's
                    // price that they round).
                    if r.reason.as_deref() != Some(reason.as_str()) {
                        r.reason = Some(reason);
                        effects.push(Effect::Changed(job));
                    }
                }
                Decision::Dropped { job } => {
                    let r = self.record_mut(job);
                    r.state = JobState::Dropped;
                    r.finish = Some(now);
                    r.reason = Some("admission control: it would miss its deadline".into());
                    effects.push(Effect::Changed(job));
                }
            }
        }
        self.decisions = decisions;
        self.contend(&mut effects);
        for (vm, t) in std::mem::take(&mut self.turned_off) {
            effects.push(Effect::VmOff(vm, t));
        }
        effects
    }

    /// Reserves `placement` for job `idx` at `now` outside the scheduler (a driver that
    /// places executors itself, e.g. an RL agent), turning VMs on; returns when they are
    /// ready.
    ///
    /// # Errors
    /// [`crate::cluster::ClusterError`] if a VM lacks room; nothing changes then.
    pub fn reserve(
        &mut self,
        idx: usize,
        placement: &Placement,
        now: f64,
    ) -> Result<f64, crate::cluster::ClusterError> {
        self.wake(now);
        let demand = self.jobs.as_ref()[idx].executor_demand;
        // Scratch buffers kept between calls: a self-placing driver reserves once per
        // executor, and it has no use for the effects.
        let mut on = std::mem::take(&mut self.scratch_on);
        on.clear();
        let boot = self.boot_latency_s();
        let reserved = self.cluster.reserve(placement, &demand, now, boot, &mut on);
        let ready = match reserved {
            Ok(ready) => ready,
            Err(e) => {
                self.scratch_on = on;
                return Err(e);
            }
        };
        let mut ignored = std::mem::take(&mut self.scratch_effects);
        self.powered_on(&on, &mut ignored);
        ignored.clear();
        self.scratch_effects = ignored;
        self.scratch_on = on;
        self.busy(placement);
        self.add_used(demand.times(placement.executors()), true);
        Ok(ready)
    }

    /// Job `idx`, whose executors are reserved as `placement`, runs from `start` to
    /// `finish` (a driver that placed it itself): under contention `finish − start` is its
    /// solo run time, and the jobs whose end moved are changed (the effects).
    fn start(&mut self, idx: usize, placement: Placement, start: f64, finish: f64) -> Vec<Effect> {
        let mut effects = Vec::new();
        let now = self.now;
        self.fluid_to(now);
        if let Some(f) = &mut self.fluid {
            let demand = self.jobs.as_ref()[idx].executor_demand;
            let load = f.model().load_of(&self.cluster, &placement, &demand);
            f.add(idx, start, finish - start, load);
        }
        self.cluster.extend_busy(&placement, finish);
        let duration = self.duration;
        let hybrid = duration.is_hybrid(&self.cluster, &placement);
        let mismatch = duration.is_kind_mismatch(&self.jobs.as_ref()[idx], &placement);
        self.running += 1;
        let r = self.record_mut(idx);
        r.state = JobState::Running;
        r.start = Some(start);
        r.finish = Some(finish);
        r.hybrid = hybrid;
        r.kind_mismatch = mismatch;
        r.placement = Some(placement);
        self.contend(&mut effects);
        effects
    }

    /// Running job `idx` ended at `now` in `state` (completed, failed or cancelled): its
    /// executors are freed and VMs left idle turned off (or kept alive). Nothing for a job
    /// that is not running.
    fn finish(
        &mut self,
        idx: usize,
        now: f64,
        state: JobState,
        reason: Option<String>,
        effects: &mut Vec<Effect>,
    ) {
        if self.get(idx).is_none_or(|r| r.state != JobState::Running) {
            return;
        }
        self.advance(now);
        self.fluid_to(now);
        self.running -= 1;
        let r = self.record_mut(idx);
        r.state = state;
        r.finish = Some(now);
        if reason.is_some() {
            r.reason = reason;
        }
        // Taken and put back: no copy of the placement per job end.
        let placement = r.placement.take().expect("running jobs are placed");
        self.release(idx, &placement, now);
        self.record_mut(idx).placement = Some(placement);
        effects.push(Effect::Changed(idx));
        if let Some(f) = &mut self.fluid {
            f.remove(idx);
        }
        self.contend(effects);
    }

    /// Frees `part` of job `idx`'s executors at `now`; VMs left idle go idle.
    fn release(&mut self, idx: usize, part: &Placement, now: f64) {
        let demand = self.jobs.as_ref()[idx].executor_demand;
        self.cluster.release(part, &demand);
        self.add_used(demand.times(part.executors()), false);
        self.freed();
        for &(vm, _) in &part.executors_per_vm {
            self.idle(vm, now);
        }
    }

    /// Running job `idx` lost `executors` (`None`: all) of its executors on `vm` at `now`
    /// (a worker died): they are released and placed again at once, or the job fails.
    fn lose_executors(
        &mut self,
        idx: usize,
        vm: VmId,
        executors: Option<u32>,
        now: f64,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.advance(now);
        self.fluid_to(now);
        if let Some(n) = self.take_executors(idx, vm, executors) {
            self.release(idx, &single(vm, n), now);
            let why = format!("{n} executor(s) lost on VM {vm} at {now:.0} s");
            self.replace(idx, n, &why, now, &mut effects);
            self.reload(&mut effects);
        }
        effects
    }

    fn lose(&mut self, vm: VmId, reason: &str, now: f64, ran: bool) -> Vec<Effect> {
        let mut effects = Vec::new();
        if vm as usize >= self.cluster.len() || self.fleet.out_of_service(vm).is_some() {
            return effects;
        }
        self.advance(now);
        self.fluid_to(now);
        let hit: Vec<usize> = self
            .records()
            .filter(|(_, r)| {
                r.state == JobState::Running
                    && r.placement
                        .as_ref()
                        .is_some_and(|p| p.executors_per_vm.iter().any(|q| q.0 == vm))
            })
            .map(|(i, _)| i)
            .collect();
        let mut lost = Vec::new();
        for idx in hit {
            let n = self
                .take_executors(idx, vm, None)
                .expect("the job has executors on vm");
            let demand = self.jobs.as_ref()[idx].executor_demand;
            self.cluster.release(&single(vm, n), &demand);
            self.add_used(demand.times(n), false);
            lost.push((idx, n));
        }
        let i = vm as usize;
        let was_on = self.cluster.vm(vm).is_active();
        if was_on {
            self.count_on(vm, false);
        }
        // A refused power-on never ran: its interval closes where it opened.
        let off = if ran {
            now
        } else {
            self.fleet.power_on_refused(vm).unwrap_or(now)
        };
        self.fleet.lose(vm, off, now + self.cfg.out_of_service_s);
        self.arm(now + self.cfg.out_of_service_s);
        self.off_at[i] = None;
        // Held out of service, it boots no more: no boot's end is due.
        self.cluster.mark_ready(vm);
        self.turned_off.retain(|&(v, _)| v != vm);
        effects.push(Effect::VmLost {
            vm,
            at: now,
            refused: !ran,
        });
        effects.push(Effect::VmOff(vm, off));
        // Held out of service by a reservation of its whole capacity.
        let whole = self.cluster.vm(vm).capacity;
        self.cluster
            .reserve(&single(vm, 1), &whole, now, 0.0, &mut Vec::new())
            .expect("a VM with no executors holds its own capacity");
        self.freed();
        for (idx, n) in lost {
            let why = format!("{n} executor(s) lost with VM {vm} at {now:.0} s ({reason})");
            self.replace(idx, n, &why, now, &mut effects);
        }
        self.reload(&mut effects);
        effects
    }

    /// Restores a stored loss (or refused power-on) of `vm` at `at` after a restart at
    /// `now`, after its power intervals ([`Event::PowerRestored`]): the VM is out of
    /// service until `at` + [`ControlConfig::out_of_service_s`] if that is still ahead, as
    /// if the service had never stopped.
    fn restore_loss(&mut self, vm: VmId, at: f64, now: f64) {
        let until = at + self.cfg.out_of_service_s;
        if vm as usize >= self.cluster.len()
            || until <= now
            || self.cluster.vm(vm).is_active()
            || self.fleet.out_of_service(vm).is_some()
        {
            return;
        }
        self.advance(now);
        self.fleet.lose(vm, at, until);
        self.arm(until);
        let whole = self.cluster.vm(vm).capacity;
        self.cluster
            .reserve(&single(vm, 1), &whole, now, 0.0, &mut Vec::new())
            .expect("a VM with no executors holds its own capacity");
    }

    /// Removes up to `executors` (`None`: all) of running job `idx`'s executors on `vm`
    /// from its placement; how many it removed.
    fn take_executors(&mut self, idx: usize, vm: VmId, executors: Option<u32>) -> Option<u32> {
        let r = self.records.get_mut(idx)?.as_mut()?;
        if r.state != JobState::Running {
            return None;
        }
        let placement = r.placement.as_mut()?;
        let at = placement.executors_per_vm.iter().position(|p| p.0 == vm)?;
        let on_vm = placement.executors_per_vm[at].1;
        let n = executors.map_or(on_vm, |k| k.min(on_vm));
        if n == 0 {
            return None;
        }
        if n == on_vm {
            placement.executors_per_vm.remove(at);
        } else {
            placement.executors_per_vm[at].1 -= n;
        }
        Some(n)
    }

    /// Places `n` replacement executors for running job `idx` at `now`; fails the job if
    /// the policy cannot.
    fn replace(&mut self, idx: usize, n: u32, why: &str, now: f64, effects: &mut Vec<Effect>) {
        let mut part = self.jobs.as_ref()[idx].clone();
        part.executors = n;
        let until = self.record(idx).finish.unwrap_or(now).max(now);
        let placed = match &mut self.scheduler {
            Some(s) => {
                // A running job already counts in the load: its replacements are placed
                // without it (PlacementPolicy::observe_load).
                s.set_load(None);
                s.place_now(&part, &mut self.cluster, now, until)
            }
            None => None,
        };
        match placed {
            Some((replacement, powered_on)) => {
                // The VMs it turned on boot as any others: ready (and marked so by a
                // wake-up) when their boot ends. The replacement executors are the job's
                // at once, as before; only the VMs' state waits for the boot.
                self.powered_on(&powered_on, effects);
                self.busy(&replacement);
                self.add_used(part.executor_demand.times(n), true);
                let r = self.record_mut(idx);
                let merged = r.placement.get_or_insert_with(Placement::default);
                for &(v, k) in &replacement.executors_per_vm {
                    match merged.executors_per_vm.iter_mut().find(|p| p.0 == v) {
                        Some(p) => p.1 += k,
                        None => merged.executors_per_vm.push((v, k)),
                    }
                }
                merged.executors_per_vm.sort_unstable();
                let on: Vec<String> = replacement
                    .executors_per_vm
                    .iter()
                    .map(|(v, k)| format!("{k} on VM {v}"))
                    .collect();
                r.reason = Some(format!("{why}; replaced by {}", on.join(", ")));
                effects.push(Effect::Changed(idx));
                effects.push(Effect::AddExecutors {
                    idx,
                    placement: replacement,
                });
            }
            None => {
                let reason = format!("{why}; no capacity to replace them");
                self.finish(idx, now, JobState::Failed, Some(reason), effects);
                effects.push(Effect::Stop(idx));
            }
        }
    }

    /// Changes job `idx`'s record as a restarting driver restores it from its store.
    pub fn restore(&mut self, idx: usize, f: impl FnOnce(&mut JobRecord)) {
        let was = self.record(idx).state == JobState::Running;
        f(self.record_mut(idx));
        let is = self.record(idx).state == JobState::Running;
        self.running = self.running + usize::from(is) - usize::from(was);
    }

    /// Sets why job `idx` is in its state.
    pub fn set_reason(&mut self, idx: usize, reason: &str) {
        self.record_mut(idx).reason = Some(reason.to_string());
    }

    /// Whether job `idx` may be cancelled: queued, running, or cancelled already (a
    /// second cancel does nothing); not once it ended otherwise.
    pub fn cancellable(&self, idx: usize) -> bool {
        matches!(
            self.record(idx).state,
            JobState::Queued | JobState::Running | JobState::Cancelled
        )
    }

    /// Cancels job `idx` at `now`; the effects (none if it was cancelled already or ended
    /// otherwise: [`Controller::cancellable`]).
    fn cancel(&mut self, idx: usize, now: f64) -> Vec<Effect> {
        match self.record(idx).state {
            JobState::Queued => {
                self.advance(now);
                if let Some(s) = &mut self.scheduler {
                    s.cancel(idx, &self.jobs.as_ref()[idx], &self.cluster);
                }
                let r = self.record_mut(idx);
                r.state = JobState::Cancelled;
                r.finish = Some(now);
                vec![Effect::Changed(idx)]
            }
            JobState::Running => {
                let mut effects = Vec::new();
                self.finish(idx, now, JobState::Cancelled, None, &mut effects);
                effects.push(Effect::Stop(idx));
                effects
            }
            _ => Vec::new(),
        }
    }

    /// Ends a run at `now`: boots, keep-alives and times out of service due by then run
    /// out, and VMs still on are billed up to `now`.
    fn close(&mut self, now: f64) {
        self.wake(now);
        self.fleet.close_all(now);
    }
}
