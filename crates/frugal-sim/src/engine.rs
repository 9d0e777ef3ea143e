//! The discrete-event simulation engine.
//!
//! Events are ordered by (time, kind priority, sequence number), so runs are fully
//! deterministic. At one instant t, in this order: job completions free resources, VM
//! boots complete, arrivals join the queue, VMs idle whose keep-alive has run out by t
//! are turned off; then the driver (the scheduler, or an RL agent) decides.
//!
//! The marginal-cost rule at one instant: a VM that hosts no executor and whose
//! keep-alive expired by t is *off* for the decisions at t, like any other off VM, so a
//! policy that prefers VMs already on does not keep an expensive VM that just emptied
//! instead of turning on a cheaper one — keeping it costs exactly as much as turning the
//! other on. Turning it back on at t is free of boot latency (it never went down) and
//! continues its billing interval (no second started hour). A VM inside its keep-alive
//! is on.
//!
//! [`Simulation`] is the event core shared by every driver: [`simulate`] drives it with a
//! [`Scheduler`]; the RL environment drives it one executor at a time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::{Cluster, VmId};
use frugal_core::job::Job;
use frugal_core::placement::Placement;
use frugal_core::policy::PlacementPolicy;
use frugal_core::queue::OrdF64;
use frugal_core::resources::{RESOURCE_DIMS, Resources};
use frugal_core::scheduler::{Decision, Scheduler, SchedulerConfig};

use crate::metrics::{JobRecord, JobStatus, RunResult, VmRecord};

/// Settings of one simulation run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// Queue discipline, admission control, RUT, duration model and VM boot latency.
    pub scheduler: SchedulerConfig,
    /// Billing granularity of VM on-time.
    pub billing: BillingGranularity,
    /// Seconds an idle VM stays on before it is turned off (0: at once).
    pub keep_alive_s: f64,
    /// Cap on the fleet's price, dollars per hour ([`Scheduler::set_budget_per_hour`]).
    pub budget_per_hour: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Finish(usize),
    BootDone(VmId),
    Arrival(usize),
    /// Turn the VM off if it is still idle and no placement used it since (generation).
    IdleCheck(VmId, u64),
}

const IDLE_PRIORITY: u8 = 3;

impl EventKind {
    fn priority(&self) -> u8 {
        match self {
            EventKind::Finish(_) => 0,
            EventKind::BootDone(_) => 1,
            EventKind::Arrival(_) => 2,
            EventKind::IdleCheck(..) => IDLE_PRIORITY,
        }
    }
}

type EventKey = Reverse<(OrdF64, u8, u64, EventKind)>;

/// What happened at one instant, for the driver to act on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// Jobs that arrived, in arrival order.
    pub arrived: Vec<usize>,
    /// Jobs that finished (their resources are free again).
    pub finished: Vec<usize>,
}

/// The event core: clock, event queue, cluster state, billing and records of one run of
/// `jobs` on a cluster. Drivers call [`Simulation::advance`] to move to the next instant,
/// reserve resources and start jobs, and [`Simulation::finish`] for the results.
pub struct Simulation<J: AsRef<[Job]>> {
    jobs: J,
    cfg: SimConfig,
    cluster: Cluster,
    empty: Cluster,
    events: BinaryHeap<EventKey>,
    running: usize,
    seq: u64,
    now: f64,
    records: Vec<JobRecord>,
    placements: Vec<Option<Placement>>,
    vm_generation: Vec<u64>,
    vm_on_since: Vec<Option<f64>>,
    vm_intervals: Vec<Vec<(f64, f64)>>,
    /// Reserved and powered-on capacity over active VMs, per dimension.
    used: [u64; RESOURCE_DIMS],
    on_capacity: [u64; RESOURCE_DIMS],
    /// ∫ used dt and ∫ on-capacity dt, per dimension.
    used_integral: [f64; RESOURCE_DIMS],
    capacity_integral: [f64; RESOURCE_DIMS],
}

/// Simulates `jobs` (indexed by position) on `cluster` (which must be all off) with
/// `policy`, returning per-job and per-VM records and the summary metrics.
pub fn simulate(
    cluster: &Cluster,
    jobs: &[Job],
    policy: Box<dyn PlacementPolicy>,
    cfg: SimConfig,
) -> RunResult {
    let mut sim = Simulation::new(cluster, jobs, cfg);
    sim.cluster
        .keep_busy_groups(policy.ranks_by_remaining_time());
    let mut scheduler = Scheduler::new(policy, cfg.scheduler);
    scheduler.set_budget_per_hour(cfg.budget_per_hour);
    let mut decisions = Vec::new();
    while let Some(batch) = sim.advance() {
        if !batch.finished.is_empty() {
            scheduler.resources_freed();
        }
        for &j in &batch.arrived {
            if scheduler.can_ever_place(&jobs[j], sim.empty_cluster()) {
                scheduler.enqueue(j, &jobs[j], sim.cluster());
            } else {
                sim.reject(j);
            }
        }
        if batch.arrived.is_empty() && batch.finished.is_empty() {
            continue;
        }
        decisions.clear();
        let now = sim.now();
        scheduler.run_pass(jobs, &mut sim.cluster, now, &mut decisions);
        for d in decisions.drain(..) {
            match d {
                Decision::Started {
                    job,
                    placement,
                    start,
                    finish,
                    powered_on,
                    ..
                } => {
                    sim.note_reserved(job, &placement, &powered_on, start);
                    sim.start(job, placement, start, finish);
                }
                Decision::Dropped { job } => sim.drop_job(job),
                Decision::Held { .. } => {}
            }
        }
    }
    let times = scheduler.decision_times().seconds.clone();
    sim.finish(scheduler.policy_name(), times)
}

impl<J: AsRef<[Job]>> Simulation<J> {
    /// A run of `jobs` on `cluster` (its VMs are turned off and emptied first), with every
    /// arrival queued as an event.
    pub fn new(cluster: &Cluster, jobs: J, cfg: SimConfig) -> Self {
        let empty = cluster.emptied();
        let n = cluster.len();
        let list = jobs.as_ref();
        let records = list.iter().map(JobRecord::waiting).collect();
        let arrivals: Vec<f64> = list.iter().map(|j| j.arrival).collect();
        let mut sim = Simulation {
            jobs,
            cfg,
            cluster: empty.clone(),
            empty,
            events: BinaryHeap::with_capacity(arrivals.len() * 2),
            running: 0,
            seq: 0,
            now: 0.0,
            records,
            placements: vec![None; arrivals.len()],
            vm_generation: vec![0; n],
            vm_on_since: vec![None; n],
            vm_intervals: vec![Vec::new(); n],
            used: [0; RESOURCE_DIMS],
            on_capacity: [0; RESOURCE_DIMS],
            used_integral: [0.0; RESOURCE_DIMS],
            capacity_integral: [0.0; RESOURCE_DIMS],
        };
        for (i, t) in arrivals.into_iter().enumerate() {
            sim.push(t, EventKind::Arrival(i));
        }
        sim
    }

    /// Current simulated time, seconds.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The live cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The cluster as built: every VM off and free.
    pub fn empty_cluster(&self) -> &Cluster {
        &self.empty
    }

    /// The jobs of this run.
    pub fn jobs(&self) -> &[Job] {
        self.jobs.as_ref()
    }

    /// Dollars billed so far: closed power-on intervals plus VMs on since their power-on,
    /// up to now.
    pub fn accrued_cost(&self) -> f64 {
        let billing = self.cfg.billing;
        self.cluster
            .vms
            .iter()
            .map(|v| {
                let i = v.id as usize;
                billing.accrued(
                    &self.vm_intervals[i],
                    self.vm_on_since[i],
                    self.now,
                    v.price_per_second,
                )
            })
            .sum()
    }

    /// The settings of this run.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// True if no event is left (every VM is off and every started job has finished).
    pub fn is_idle(&self) -> bool {
        self.events.is_empty()
    }

    /// Jobs started and not yet finished.
    pub fn running_jobs(&self) -> usize {
        self.running
    }

    fn push(&mut self, time: f64, kind: EventKind) {
        self.seq += 1;
        self.events
            .push(Reverse((OrdF64(time), kind.priority(), self.seq, kind)));
    }

    /// Moves to the next instant with a completion, boot or arrival, processing them (and
    /// any idle-VM turn-offs due before); returns what happened, or `None` when no such
    /// event is left (remaining idle VMs are then turned off).
    pub fn advance(&mut self) -> Option<Batch> {
        loop {
            let &Reverse((OrdF64(t), prio, ..)) = self.events.peek()?;
            if prio == IDLE_PRIORITY {
                let Some(Reverse((_, _, _, EventKind::IdleCheck(vm, generation)))) =
                    self.events.pop()
                else {
                    unreachable!("idle priority is only used by idle checks");
                };
                self.advance_clock(t);
                self.idle_check(vm, generation);
                continue;
            }
            self.advance_clock(t);
            let mut batch = Batch::default();
            // Idle checks come last at t (priority), including those that completions at
            // t schedule for t itself (keep-alive 0): every VM due off is off before the
            // driver decides.
            while let Some(&Reverse((OrdF64(u), ..))) = self.events.peek() {
                if u != t {
                    break;
                }
                let Some(Reverse((.., kind))) = self.events.pop() else {
                    break;
                };
                match kind {
                    EventKind::Arrival(j) => batch.arrived.push(j),
                    EventKind::Finish(j) => {
                        self.job_finished(j);
                        batch.finished.push(j);
                    }
                    EventKind::BootDone(vm) => self.cluster.mark_ready(vm),
                    EventKind::IdleCheck(vm, generation) => self.idle_check(vm, generation),
                }
            }
            return Some(batch);
        }
    }

    /// Turns `vm` off if no placement used it since the check was scheduled.
    fn idle_check(&mut self, vm: VmId, generation: u64) {
        if self.vm_generation[vm as usize] == generation && self.cluster.power_off(vm, self.now) {
            self.vm_turned_off(vm);
        }
    }

    /// Accumulates utilisation integrals up to `t` and moves the clock.
    fn advance_clock(&mut self, t: f64) {
        let dt = t - self.now;
        if dt > 0.0 {
            for d in 0..RESOURCE_DIMS {
                self.used_integral[d] += dt * self.used[d] as f64;
                self.capacity_integral[d] += dt * self.on_capacity[d] as f64;
            }
        }
        self.now = t;
    }

    /// Reserves `placement` for `job` in the cluster now (turning off VMs on) and records
    /// it; returns when its VMs are ready (seconds).
    ///
    /// # Errors
    /// [`frugal_core::cluster::ClusterError`] if a VM lacks room; nothing changes then.
    pub fn reserve(
        &mut self,
        job: usize,
        placement: &Placement,
    ) -> Result<f64, frugal_core::cluster::ClusterError> {
        let mut powered_on = Vec::new();
        let demand = self.jobs.as_ref()[job].executor_demand;
        let ready = self.cluster.reserve(
            placement,
            &demand,
            self.now,
            self.cfg.scheduler.boot_latency_s,
            &mut powered_on,
        )?;
        self.note_reserved(job, placement, &powered_on, ready);
        Ok(ready)
    }

    /// Bookkeeping for resources already reserved in the cluster: billing of VMs turned
    /// on, utilisation totals, idle-check generations.
    fn note_reserved(
        &mut self,
        job: usize,
        placement: &Placement,
        powered_on: &[VmId],
        ready: f64,
    ) {
        for &vm in powered_on {
            let i = vm as usize;
            // Turned off at this instant and on again: one uninterrupted interval.
            let resumed = match self.vm_intervals[i].last() {
                Some(&(on, off)) if off == self.now => {
                    self.vm_intervals[i].pop();
                    on
                }
                _ => self.now,
            };
            self.vm_on_since[i] = Some(resumed);
            for (dim, c) in self.cluster.vm(vm).capacity.0.iter().enumerate() {
                self.on_capacity[dim] += u64::from(*c);
            }
            if ready > self.now {
                self.push(ready, EventKind::BootDone(vm));
            }
        }
        let total = self.jobs.as_ref()[job]
            .executor_demand
            .times(placement.executors());
        self.add_used(total, true);
        for &(vm, _) in &placement.executors_per_vm {
            self.vm_generation[vm as usize] += 1;
        }
    }

    /// Starts `job`, whose executors are reserved as `placement`, running from `start`
    /// to `finish` (seconds).
    pub fn start(&mut self, job: usize, placement: Placement, start: f64, finish: f64) {
        self.cluster.extend_busy(&placement, finish);
        let duration = self.cfg.scheduler.duration;
        let r = &mut self.records[job];
        r.status = JobStatus::Running;
        r.start = Some(start);
        r.finish = Some(finish);
        r.hybrid = duration.is_hybrid(&self.cluster, &placement);
        r.kind_mismatch = duration.is_kind_mismatch(&self.jobs.as_ref()[job], &placement);
        self.placements[job] = Some(placement);
        self.running += 1;
        self.push(finish, EventKind::Finish(job));
    }

    /// Records that admission control dropped `job`.
    pub fn drop_job(&mut self, job: usize) {
        self.records[job].status = JobStatus::Dropped;
    }

    /// Records that `job` can never be placed.
    pub fn reject(&mut self, job: usize) {
        self.records[job].status = JobStatus::Unschedulable;
    }

    fn add_used(&mut self, total: Resources, reserve: bool) {
        for d in 0..RESOURCE_DIMS {
            if reserve {
                self.used[d] += u64::from(total.0[d]);
            } else {
                self.used[d] -= u64::from(total.0[d]);
            }
        }
    }

    fn job_finished(&mut self, j: usize) {
        let placement = self.placements[j]
            .take()
            .expect("a finishing job was placed");
        let demand = self.jobs.as_ref()[j].executor_demand;
        self.cluster.release(&placement, &demand);
        self.add_used(demand.times(placement.executors()), false);
        self.records[j].status = JobStatus::Completed;
        self.running -= 1;
        let at = self.now + self.cfg.keep_alive_s;
        for &(vm, _) in &placement.executors_per_vm {
            if self.cluster.vm(vm).executors == 0 {
                let generation = self.vm_generation[vm as usize];
                self.push(at, EventKind::IdleCheck(vm, generation));
            }
        }
        self.placements[j] = Some(placement);
    }

    fn vm_turned_off(&mut self, vm: VmId) {
        let since = self.vm_on_since[vm as usize]
            .take()
            .expect("a VM turned off was on");
        self.vm_intervals[vm as usize].push((since, self.now));
        for (dim, c) in self.cluster.vm(vm).capacity.0.iter().enumerate() {
            self.on_capacity[dim] -= u64::from(*c);
        }
    }

    /// Ends the run: VMs still on (e.g. holding a reservation of a job that never
    /// started) are billed up to now. `policy` names the run; `decision_seconds` are the
    /// driver's decision times.
    pub fn finish(mut self, policy: &str, decision_seconds: Vec<f64>) -> RunResult {
        for vm in 0..self.cluster.len() as VmId {
            if self.vm_on_since[vm as usize].is_some() {
                self.vm_turned_off(vm);
            }
        }
        let vms = self
            .cluster
            .vms
            .iter()
            .map(|v| VmRecord {
                id: v.id,
                instance_type: self.cluster.instance_types[v.instance_type].name.clone(),
                site: v.site,
                price_per_second: v.price_per_second,
                intervals: std::mem::take(&mut self.vm_intervals[v.id as usize]),
            })
            .collect();
        for (r, p) in self.records.iter_mut().zip(self.placements.iter()) {
            if let Some(p) = p {
                r.placement = p.executors_per_vm.clone();
            }
        }
        let utilisation = std::array::from_fn(|d| {
            if self.capacity_integral[d] > 0.0 {
                self.used_integral[d] / self.capacity_integral[d]
            } else {
                0.0
            }
        });
        RunResult::new(
            policy,
            self.cfg,
            self.records,
            vms,
            utilisation,
            decision_seconds,
        )
    }
}
