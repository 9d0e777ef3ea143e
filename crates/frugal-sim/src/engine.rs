//! The discrete-event simulation engine.
//!
//! Events are ordered by (time, kind priority, sequence number), so runs are fully
//! deterministic: at one instant, job completions free resources first, then VM boots
//! complete, then arrivals join the queue; the scheduler then makes one pass; only after
//! it are idle VMs turned off, so a VM freed and reused at the same instant stays on.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::{Cluster, VmId};
use frugal_core::job::Job;
use frugal_core::placement::Placement;
use frugal_core::policy::PlacementPolicy;
use frugal_core::queue::OrdF64;
use frugal_core::resources::RESOURCE_DIMS;
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Finish(usize),
    BootDone(VmId),
    Arrival(usize),
    /// Turn the VM off if it is still idle and no placement used it since (generation).
    IdleCheck(VmId, u64),
}

impl EventKind {
    fn priority(&self) -> u8 {
        match self {
            EventKind::Finish(_) => 0,
            EventKind::BootDone(_) => 1,
            EventKind::Arrival(_) => 2,
            EventKind::IdleCheck(..) => 3,
        }
    }
}

type EventKey = Reverse<(OrdF64, u8, u64, EventKind)>;

/// One run of one policy over one workload on one cluster.
struct Engine<'a> {
    jobs: &'a [Job],
    cfg: SimConfig,
    cluster: Cluster,
    empty: Cluster,
    scheduler: Scheduler,
    events: BinaryHeap<EventKey>,
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
    decisions: Vec<Decision>,
}

/// Simulates `jobs` (indexed by position) on `cluster` (which must be all off) with
/// `policy`, returning per-job and per-VM records and the summary metrics.
pub fn simulate(
    cluster: &Cluster,
    jobs: &[Job],
    policy: Box<dyn PlacementPolicy>,
    cfg: SimConfig,
) -> RunResult {
    let empty = cluster.emptied();
    let n = cluster.len();
    let mut engine = Engine {
        jobs,
        cfg,
        cluster: empty.clone(),
        empty,
        scheduler: Scheduler::new(policy, cfg.scheduler),
        events: BinaryHeap::with_capacity(jobs.len() * 2),
        seq: 0,
        now: 0.0,
        records: jobs.iter().map(JobRecord::waiting).collect(),
        placements: vec![None; jobs.len()],
        vm_generation: vec![0; n],
        vm_on_since: vec![None; n],
        vm_intervals: vec![Vec::new(); n],
        used: [0; RESOURCE_DIMS],
        on_capacity: [0; RESOURCE_DIMS],
        used_integral: [0.0; RESOURCE_DIMS],
        capacity_integral: [0.0; RESOURCE_DIMS],
        decisions: Vec::new(),
    };
    for (i, j) in jobs.iter().enumerate() {
        engine.push(j.arrival, EventKind::Arrival(i));
    }
    engine.run();
    engine.finish()
}

impl Engine<'_> {
    fn push(&mut self, time: f64, kind: EventKind) {
        self.seq += 1;
        self.events
            .push(Reverse((OrdF64(time), kind.priority(), self.seq, kind)));
    }

    fn run(&mut self) {
        let mut pass_pending = false;
        loop {
            let next = self.events.peek().map(|Reverse((t, p, ..))| (t.0, *p));
            let pass_due = match next {
                None => true,
                Some((t, p)) => t > self.now || p >= EventKind::IdleCheck(0, 0).priority(),
            };
            if pass_pending && pass_due {
                pass_pending = false;
                self.pass();
                continue;
            }
            let Some(Reverse((OrdF64(t), _, _, kind))) = self.events.pop() else {
                break;
            };
            self.advance(t);
            match kind {
                EventKind::Arrival(j) => {
                    if self.scheduler.can_ever_place(&self.jobs[j], &self.empty) {
                        self.scheduler.enqueue(j, &self.jobs[j], &self.cluster);
                        pass_pending = true;
                    } else {
                        self.records[j].status = JobStatus::Unschedulable;
                    }
                }
                EventKind::Finish(j) => {
                    self.job_finished(j);
                    pass_pending = true;
                }
                EventKind::BootDone(vm) => self.cluster.mark_ready(vm),
                EventKind::IdleCheck(vm, generation) => {
                    if self.vm_generation[vm as usize] == generation && self.cluster.power_off(vm) {
                        self.vm_turned_off(vm);
                    }
                }
            }
        }
    }

    /// Accumulates utilisation integrals up to `t` and moves the clock.
    fn advance(&mut self, t: f64) {
        let dt = t - self.now;
        if dt > 0.0 {
            for d in 0..RESOURCE_DIMS {
                self.used_integral[d] += dt * self.used[d] as f64;
                self.capacity_integral[d] += dt * self.on_capacity[d] as f64;
            }
        }
        self.now = t;
    }

    fn pass(&mut self) {
        let mut decisions = std::mem::take(&mut self.decisions);
        decisions.clear();
        self.scheduler
            .run_pass(self.jobs, &mut self.cluster, self.now, &mut decisions);
        for d in decisions.drain(..) {
            match d {
                Decision::Started {
                    job,
                    placement,
                    start,
                    finish,
                    powered_on,
                } => {
                    for &vm in &powered_on {
                        self.vm_on_since[vm as usize] = Some(self.now);
                        for (dim, c) in self.cluster.vm(vm).capacity.0.iter().enumerate() {
                            self.on_capacity[dim] += u64::from(*c);
                        }
                        if start > self.now {
                            self.push(start, EventKind::BootDone(vm));
                        }
                    }
                    self.reserve_totals(&self.jobs[job], &placement, true);
                    for &(vm, _) in &placement.executors_per_vm {
                        self.vm_generation[vm as usize] += 1;
                    }
                    let r = &mut self.records[job];
                    r.status = JobStatus::Running;
                    r.start = Some(start);
                    r.finish = Some(finish);
                    r.hybrid = self
                        .cfg
                        .scheduler
                        .duration
                        .is_hybrid(&self.cluster, &placement);
                    r.kind_mismatch = self
                        .cfg
                        .scheduler
                        .duration
                        .is_kind_mismatch(&self.jobs[job], &placement);
                    self.placements[job] = Some(placement);
                    self.push(finish, EventKind::Finish(job));
                }
                Decision::Dropped { job } => self.records[job].status = JobStatus::Dropped,
            }
        }
        self.decisions = decisions;
    }

    fn reserve_totals(&mut self, job: &Job, placement: &Placement, reserve: bool) {
        let total = job.executor_demand.times(placement.executors());
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
        let job = &self.jobs[j];
        self.cluster.release(&placement, &job.executor_demand);
        self.reserve_totals(job, &placement, false);
        self.scheduler.resources_freed();
        self.records[j].status = JobStatus::Completed;
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

    fn finish(mut self) -> RunResult {
        // VMs still on (never idle-checked, e.g. jobs left queued) are billed to the end.
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
            self.scheduler.policy_name(),
            self.cfg,
            self.records,
            vms,
            utilisation,
            self.scheduler.decision_times().seconds.clone(),
        )
    }
}
