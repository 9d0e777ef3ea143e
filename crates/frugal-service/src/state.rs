//! The service's live state: the cluster, the scheduler (the simulator's queues,
//! admission control and policy — the same code) and every accepted job.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use frugal_core::DecisionCost;
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::{Cluster, Site, VmId};
use frugal_core::job::Job;
use frugal_core::placement::Placement;
use frugal_core::scheduler::{Decision, Scheduler};

use crate::ledger::{DecisionRecord, Ledger};
use crate::store::JobUpdate;
use crate::submission::Submission;

/// Lifecycle of an accepted job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for resources.
    Queued,
    /// Executors placed and running.
    Running,
    /// Finished successfully.
    Completed,
    /// Ended unsuccessfully on the backend (see its reason).
    Failed,
    /// Cancelled by the user.
    Cancelled,
    /// Dropped by admission control: it could not meet its deadline.
    Dropped,
}

impl JobState {
    /// The name stored in the database.
    pub fn as_str(&self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
            JobState::Dropped => "dropped",
        }
    }

    /// Every state, in lifecycle order.
    pub const ALL: [JobState; 6] = [
        JobState::Queued,
        JobState::Running,
        JobState::Completed,
        JobState::Failed,
        JobState::Cancelled,
        JobState::Dropped,
    ];

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// True for the final states.
    pub fn has_ended(&self) -> bool {
        !matches!(self, JobState::Queued | JobState::Running)
    }
}

/// One accepted job.
#[derive(Clone, Debug)]
pub struct Entry {
    /// As submitted.
    pub submission: Submission,
    /// The scheduler's view.
    pub job: Job,
    /// Current state.
    pub state: JobState,
    /// Where its executors run (once started).
    pub placement: Option<Placement>,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Finish (estimated while running), service seconds.
    pub finish: Option<f64>,
    /// Why it was re-queued, dropped or failed.
    pub reason: Option<String>,
    /// Executors per VM as the backend last reported them.
    pub observed: Option<Vec<(VmId, u32)>>,
    /// What its placement cost and what the optimum would have (Eq. 16), once placed.
    pub cost: Option<DecisionCost>,
}

/// A change to persist and act on, produced by the state machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Job `idx` was placed: launch it on the backend.
    Launch(usize),
    /// Running job `idx` gets executors on `placement` (a replacement for lost ones).
    AddExecutors {
        /// Job index.
        idx: usize,
        /// Where the new executors go.
        placement: Placement,
    },
    /// Stop running job `idx` on the backend.
    Stop(usize),
    /// Job `idx` changed (persist it).
    Changed(usize),
    /// VM turned on at the time given.
    VmOn(VmId, f64),
    /// VM turned off at the time given.
    VmOff(VmId, f64),
}

/// What the store says about a job that was running when the service stopped.
#[derive(Clone, Debug)]
pub struct Restored {
    /// Its placement.
    pub placement: Placement,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Estimated finish, service seconds.
    pub finish: Option<f64>,
    /// Last observed executors per VM.
    pub observed: Option<Vec<(VmId, u32)>>,
}

/// `n` executors on `vm`.
fn single(vm: VmId, n: u32) -> Placement {
    Placement {
        executors_per_vm: vec![(vm, n)],
    }
}

/// How [`frugal_core::Hold::reason`] begins for each limit.
const HOLD_BUDGET: &str = "budget:";
const HOLD_MAX_COST: &str = "max_cost_usd:";

/// Service seconds a lost VM stays out of service before the policy may turn it on
/// again: long enough that a flapping host is not handed work at once, short enough that
/// a cloud VM slot (whose next power-on is a new instance) comes back within the hour.
pub const LOST_VM_QUARANTINE_S: f64 = 600.0;

/// The live state. Accepted jobs live in slots: a job that ended is kept in memory for a
/// retention period (see [`State::evict`]) and then only in the database, and its slot
/// is reused.
pub struct State {
    /// The cluster.
    pub cluster: Cluster,
    empty: Cluster,
    scheduler: Scheduler,
    /// Job slots (the index is the scheduler's job index); `None` for a free slot.
    entries: Vec<Option<Entry>>,
    jobs: Vec<Job>,
    free: Vec<usize>,
    by_id: HashMap<String, usize>,
    /// Jobs that ended, by end time (service seconds), oldest first.
    ended: VecDeque<(f64, usize)>,
    /// Open power-on time of each VM.
    on_since: Vec<Option<f64>>,
    /// Dollars billed for each VM's closed power-on intervals.
    closed_cost: Vec<f64>,
    /// Lost VMs out of service, until when (service seconds).
    out_of_service: Vec<Option<f64>>,
    /// Billing granularity.
    pub billing: BillingGranularity,
    /// The decisions' costs against the optimum.
    pub ledger: Ledger,
    /// Cap on the fleet's price, dollars per hour.
    pub budget_per_hour: Option<f64>,
    /// The exact optimum, for estimates at submission.
    estimator: frugal_core::policy::Optimal,
}

impl State {
    /// A fresh state on the all-off `cluster`. The scheduler measures every decision
    /// against the optimum; `budget_per_hour` caps the fleet's price.
    pub fn new(
        cluster: Cluster,
        mut scheduler: Scheduler,
        billing: BillingGranularity,
        budget_per_hour: Option<f64>,
    ) -> State {
        let n = cluster.len();
        scheduler.measure_gap(true);
        scheduler.set_budget_per_hour(budget_per_hour);
        State {
            empty: cluster.emptied(),
            cluster,
            scheduler,
            entries: Vec::new(),
            jobs: Vec::new(),
            free: Vec::new(),
            by_id: HashMap::new(),
            ended: VecDeque::new(),
            on_since: vec![None; n],
            closed_cost: vec![0.0; n],
            out_of_service: vec![None; n],
            billing,
            ledger: Ledger::default(),
            budget_per_hour,
            estimator: Default::default(),
        }
    }

    /// The index of job `id`, if it is in memory.
    pub fn find(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The job in slot `idx`.
    ///
    /// # Panics
    /// If the slot is free (indices come from [`State::find`] and backend events of
    /// running jobs, which are never evicted).
    pub fn entry(&self, idx: usize) -> &Entry {
        self.entries[idx].as_ref().expect("a live job slot")
    }

    fn entry_mut(&mut self, idx: usize) -> &mut Entry {
        self.entries[idx].as_mut().expect("a live job slot")
    }

    /// Every job in memory.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().flatten()
    }

    /// Jobs waiting in the queue.
    pub fn queued(&self) -> usize {
        self.scheduler.queued()
    }

    /// Jobs in memory (queued, running, and ended within the retention).
    pub fn in_memory(&self) -> usize {
        self.by_id.len()
    }

    /// The row to store for job `idx`.
    pub fn update_of(&self, idx: usize) -> JobUpdate {
        let e = self.entry(idx);
        let json = |v: &Vec<(VmId, u32)>| serde_json::to_string(v).expect("placements serialise");
        JobUpdate {
            id: e.submission.id.clone(),
            state: e.state.as_str(),
            placement: e.placement.as_ref().map(|p| json(&p.executors_per_vm)),
            start: e.start,
            finish: e.finish,
            reason: e.reason.clone(),
            observed: e.observed.as_ref().map(json),
            chosen_cost: e.cost.map(|c| c.chosen),
            optimal_cost: e.cost.map(|c| c.optimal),
        }
    }

    /// Takes the decision times (seconds) recorded since the last call.
    pub fn take_decision_times(&mut self) -> Vec<f64> {
        self.scheduler.take_decision_times()
    }

    /// Adds an accepted job in `state` (restored jobs may have ended already) at `now`.
    /// A queued job the policy can never place is dropped with a reason (and a change to
    /// persist). Returns its index and the effects.
    pub fn add(
        &mut self,
        submission: Submission,
        job: Job,
        state: JobState,
        now: f64,
    ) -> (usize, Vec<Effect>) {
        let idx = match self.free.pop() {
            Some(i) => {
                self.jobs[i] = job.clone();
                i
            }
            None => {
                self.jobs.push(job.clone());
                self.entries.push(None);
                self.jobs.len() - 1
            }
        };
        self.by_id.insert(submission.id.clone(), idx);
        let mut entry = Entry {
            submission,
            job,
            state,
            placement: None,
            start: None,
            finish: None,
            reason: None,
            observed: None,
            cost: None,
        };
        let mut effects = Vec::new();
        self.scheduler.cap_cost(idx, entry.submission.max_cost_usd);
        if state == JobState::Queued {
            if self.scheduler.can_ever_place(&entry.job, &self.empty) {
                self.scheduler.enqueue(idx, &entry.job, &self.cluster);
            } else {
                entry.state = JobState::Dropped;
                entry.reason = Some("the policy cannot place it even on the empty cluster".into());
                effects.push(Effect::Changed(idx));
            }
        }
        let ended = entry.state.has_ended();
        self.entries[idx] = Some(entry);
        if ended {
            self.ended.push_back((now, idx));
        }
        (idx, effects)
    }

    /// The index the next added job gets.
    pub fn next_index(&self) -> usize {
        self.free.last().copied().unwrap_or(self.jobs.len())
    }

    /// Sets why job `idx` is in its state.
    pub fn set_reason(&mut self, idx: usize, reason: &str) {
        self.entry_mut(idx).reason = Some(reason.to_string());
    }

    /// Job `idx`, added in a final state, ended at `now` for `reason`.
    pub fn set_ended(&mut self, idx: usize, now: f64, reason: String) {
        let e = self.entry_mut(idx);
        e.finish = Some(now);
        e.reason = Some(reason);
    }

    /// The stored cost of job `idx`'s placement (a job restored after a restart).
    pub fn restore_cost(&mut self, idx: usize, cost: DecisionCost) {
        self.entry_mut(idx).cost = Some(cost);
    }

    /// The stored details of a job restored in a final state.
    pub fn restore_ended(
        &mut self,
        idx: usize,
        start: Option<f64>,
        finish: Option<f64>,
        reason: Option<String>,
        placement: Option<Placement>,
        observed: Option<Vec<(VmId, u32)>>,
    ) {
        let e = self.entry_mut(idx);
        e.start = start;
        e.finish = finish;
        e.reason = reason;
        e.placement = placement;
        e.observed = observed;
    }

    /// Forgets jobs that ended before `before` (service seconds), and the oldest ended
    /// jobs beyond the newest `keep`: they stay in the database (and the API reads them
    /// from there) but no longer take memory. Returns how many were evicted.
    pub fn evict(&mut self, before: f64, keep: usize) -> usize {
        let mut n = 0;
        while let Some(&(at, idx)) = self.ended.front() {
            if at >= before && self.ended.len() <= keep {
                break;
            }
            self.ended.pop_front();
            if let Some(e) = self.entries[idx].take() {
                self.by_id.remove(&e.submission.id);
                self.free.push(idx);
                n += 1;
            }
        }
        n
    }

    /// Records that job `idx` reached a final state at `now`.
    fn ended_at(&mut self, idx: usize, now: f64) {
        self.ended.push_back((now, idx));
    }

    /// Adds a job the backend still runs after a restart, reserving its executors.
    pub fn add_running(
        &mut self,
        submission: Submission,
        job: Job,
        restored: Restored,
        now: f64,
    ) -> usize {
        let (idx, _) = self.add(submission, job, JobState::Running, now);
        let e = self.entry_mut(idx);
        e.start = restored.start;
        e.finish = restored.finish;
        e.observed = restored.observed;
        let at = restored.start.unwrap_or(e.job.arrival);
        let demand = e.job.executor_demand;
        e.placement = Some(restored.placement.clone());
        self.cluster
            .reserve(&restored.placement, &demand, at, 0.0, &mut Vec::new())
            .expect("a restored placement fits the cluster it was made on");
        idx
    }

    /// Restores VM power intervals from the database. An open interval stays open if the
    /// VM hosts a job the backend still runs, and is closed at `now` otherwise.
    pub fn restore_power(
        &mut self,
        intervals: &[(u32, f64, Option<f64>)],
        now: f64,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        for &(vm, on, off) in intervals {
            let i = vm as usize;
            if i >= self.closed_cost.len() {
                continue;
            }
            let price = self.cluster.vm(vm).price_per_second;
            match off {
                Some(off) => self.closed_cost[i] += self.billing.cost(off - on, price),
                None if self.cluster.vm(vm).executors > 0 => self.on_since[i] = Some(on),
                None => {
                    self.closed_cost[i] += self.billing.cost(now - on, price);
                    effects.push(Effect::VmOff(vm, now));
                }
            }
        }
        effects
    }

    /// Offers the queue to the policy at `now`, returning what to persist and launch.
    pub fn schedule(&mut self, now: f64) -> Vec<Effect> {
        self.end_quarantines(now);
        let mut decisions = Vec::new();
        self.scheduler
            .run_pass(&self.jobs, &mut self.cluster, now, &mut decisions);
        let mut effects = Vec::new();
        for d in decisions {
            match d {
                Decision::Started {
                    job,
                    placement,
                    start,
                    finish,
                    powered_on,
                    cost,
                } => {
                    for &vm in &powered_on {
                        self.on_since[vm as usize] = Some(now);
                        effects.push(Effect::VmOn(vm, now));
                    }
                    let e = self.entries[job].as_mut().expect("a live job slot");
                    if let Some(c) = cost {
                        self.ledger.record(DecisionRecord {
                            at: now,
                            job: e.submission.id.clone(),
                            executors_per_vm: placement.executors_per_vm.clone(),
                            powered_on,
                            chosen_usd: c.chosen,
                            optimal_usd: c.optimal,
                        });
                    }
                    e.state = JobState::Running;
                    e.placement = Some(placement);
                    e.start = Some(start);
                    e.finish = Some(finish);
                    e.cost = cost;
                    if e.reason
                        .as_deref()
                        .is_some_and(|r| r.starts_with(HOLD_BUDGET) || r.starts_with(HOLD_MAX_COST))
                    {
                        // It waited on a dollar limit; it no longer does.
                        e.reason = None;
                    }
                    effects.push(Effect::Changed(job));
                    effects.push(Effect::Launch(job));
                }
                Decision::Held { job, hold } => {
                    let reason = hold.reason();
                    let e = self.entry_mut(job);
                    if e.reason.as_deref() != Some(reason.as_str()) {
                        e.reason = Some(reason);
                        effects.push(Effect::Changed(job));
                    }
                }
                Decision::Dropped { job } => {
                    let e = self.entry_mut(job);
                    e.state = JobState::Dropped;
                    e.reason = Some("admission control: it would miss its deadline".into());
                    self.ended_at(job, now);
                    effects.push(Effect::Changed(job));
                }
            }
        }
        effects
    }

    /// Running job `idx` ended at `now` in `state` (completed, failed or cancelled):
    /// frees its executors and turns idle VMs off. Does nothing for other jobs.
    pub fn finish(
        &mut self,
        idx: usize,
        now: f64,
        state: JobState,
        reason: Option<String>,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        let Some(e) = self.entries[idx].as_mut() else {
            return effects;
        };
        if e.state != JobState::Running {
            return effects;
        }
        e.state = state;
        e.finish = Some(now);
        if reason.is_some() {
            e.reason = reason;
        }
        let placement = e.placement.clone().expect("running jobs are placed");
        self.release(idx, &placement, now, &mut effects);
        self.ended_at(idx, now);
        effects.push(Effect::Changed(idx));
        effects
    }

    /// Frees `part` of job `idx`'s executors at `now` and turns the VMs left idle off.
    fn release(&mut self, idx: usize, part: &Placement, now: f64, effects: &mut Vec<Effect>) {
        let demand = self.entry(idx).job.executor_demand;
        self.cluster.release(part, &demand);
        self.scheduler.resources_freed();
        for &(vm, _) in &part.executors_per_vm {
            if self.cluster.power_off(vm, now) {
                if let Some(on) = self.on_since[vm as usize].take() {
                    let price = self.cluster.vm(vm).price_per_second;
                    self.closed_cost[vm as usize] += self.billing.cost(now - on, price);
                }
                effects.push(Effect::VmOff(vm, now));
            }
        }
    }

    /// Running job `idx` lost `executors` of its executors on `vm` at `now` (a worker
    /// died; `None` or more than it has there: all of them). They are released (the VM
    /// is turned off if that leaves it idle) and the policy places replacements at once;
    /// if it cannot, the job fails with a reason.
    pub fn lost(&mut self, idx: usize, vm: VmId, executors: Option<u32>, now: f64) -> Vec<Effect> {
        let mut effects = Vec::new();
        if let Some(n) = self.take_executors(idx, vm, executors) {
            let demand = self.entry(idx).job.executor_demand;
            self.cluster.release(&single(vm, n), &demand);
            self.power_off_idle(vm, now, &mut effects);
            let why = format!("{n} executor(s) lost on VM {vm} at {now:.0} s");
            self.replace(idx, n, &why, now, &mut effects);
        }
        effects
    }

    /// VM `vm` was lost at `now` (its host stopped heartbeating): every running job's
    /// executors on it are released, its billing stops (a `VmOff`, which also has the
    /// backend remove what is left of it), and it is kept **out of service** for
    /// [`LOST_VM_QUARANTINE_S`] — held in the cluster by a reservation of its whole
    /// capacity, so no policy places anything on it — before it may be turned on again
    /// (as a new host). Then each job's executors are replaced as in [`State::lost`].
    pub fn vm_lost(&mut self, vm: VmId, reason: &str, now: f64) -> Vec<Effect> {
        self.lose(vm, reason, now, true)
    }

    /// VM `vm`'s power-on failed at `now` (the provider refused the machine): as
    /// [`State::vm_lost`], except that the VM never ran, so its interval is closed at its
    /// start and costs nothing — a refused launch is not billed by the provider either.
    pub fn power_on_failed(&mut self, vm: VmId, reason: &str, now: f64) -> Vec<Effect> {
        self.lose(vm, reason, now, false)
    }

    fn lose(&mut self, vm: VmId, reason: &str, now: f64, ran: bool) -> Vec<Effect> {
        let mut effects = Vec::new();
        if vm as usize >= self.out_of_service.len() || self.out_of_service[vm as usize].is_some() {
            return effects;
        }
        let hit: Vec<usize> = (0..self.entries.len())
            .filter(|&i| {
                self.entries[i].as_ref().is_some_and(|e| {
                    e.state == JobState::Running
                        && e.placement
                            .as_ref()
                            .is_some_and(|p| p.executors_per_vm.iter().any(|q| q.0 == vm))
                })
            })
            .collect();
        let mut lost = Vec::new();
        for idx in hit {
            let n = self
                .take_executors(idx, vm, None)
                .expect("the job has executors on vm");
            let demand = self.entry(idx).job.executor_demand;
            self.cluster.release(&single(vm, n), &demand);
            lost.push((idx, n));
        }
        let mut off = now;
        if let Some(on) = self.on_since[vm as usize].take() {
            if !ran {
                off = on;
            }
            let price = self.cluster.vm(vm).price_per_second;
            self.closed_cost[vm as usize] += self.billing.cost(off - on, price);
        }
        effects.push(Effect::VmOff(vm, off));
        let whole = self.cluster.vm(vm).capacity;
        self.cluster
            .reserve(&single(vm, 1), &whole, now, 0.0, &mut Vec::new())
            .expect("a VM with no executors holds its own capacity");
        self.out_of_service[vm as usize] = Some(now + LOST_VM_QUARANTINE_S);
        self.scheduler.resources_freed();
        for (idx, n) in lost {
            let why = format!("{n} executor(s) lost with VM {vm} at {now:.0} s ({reason})");
            self.replace(idx, n, &why, now, &mut effects);
        }
        effects
    }

    /// Until when (service seconds) lost VM `vm` is out of service, if it is.
    pub fn out_of_service(&self, vm: VmId) -> Option<f64> {
        self.out_of_service.get(vm as usize).copied().flatten()
    }

    /// Returns the lost VMs whose time out of service has passed to the off pool.
    fn end_quarantines(&mut self, now: f64) {
        for vm in 0..self.out_of_service.len() {
            if self.out_of_service[vm].is_some_and(|until| until <= now) {
                self.out_of_service[vm] = None;
                let id = vm as VmId;
                let whole = self.cluster.vm(id).capacity;
                self.cluster.release(&single(id, 1), &whole);
                self.cluster.power_off(id, now);
                self.scheduler.resources_freed();
            }
        }
    }

    /// Removes up to `executors` (`None`: all) of running job `idx`'s executors on `vm`
    /// from its placement; how many it removed.
    fn take_executors(&mut self, idx: usize, vm: VmId, executors: Option<u32>) -> Option<u32> {
        let e = self.entries.get_mut(idx)?.as_mut()?;
        if e.state != JobState::Running {
            return None;
        }
        let placement = e.placement.as_mut()?;
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

    /// Turns `vm` off at `now` if it is idle, closing its billing interval.
    fn power_off_idle(&mut self, vm: VmId, now: f64, effects: &mut Vec<Effect>) {
        if self.cluster.power_off(vm, now) {
            if let Some(on) = self.on_since[vm as usize].take() {
                let price = self.cluster.vm(vm).price_per_second;
                self.closed_cost[vm as usize] += self.billing.cost(now - on, price);
            }
            effects.push(Effect::VmOff(vm, now));
        }
    }

    /// Places `n` replacement executors for running job `idx` at `now` (its reason
    /// starts with `why`); fails the job if the policy cannot.
    fn replace(&mut self, idx: usize, n: u32, why: &str, now: f64, effects: &mut Vec<Effect>) {
        let mut lost_part = self.entry(idx).job.clone();
        lost_part.executors = n;
        let until = self.entry(idx).finish.unwrap_or(now).max(now);
        match self
            .scheduler
            .place_now(&lost_part, &mut self.cluster, now, until)
        {
            Some((replacement, powered_on)) => {
                for on in powered_on {
                    self.on_since[on as usize] = Some(now);
                    effects.push(Effect::VmOn(on, now));
                }
                let e = self.entry_mut(idx);
                let merged = e.placement.get_or_insert_with(Placement::default);
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
                e.reason = Some(format!("{why}; replaced by {}", on.join(", ")));
                effects.push(Effect::Changed(idx));
                effects.push(Effect::AddExecutors {
                    idx,
                    placement: replacement,
                });
            }
            None => {
                let reason = format!("{why}; no capacity to replace them");
                effects.extend(self.finish(idx, now, JobState::Failed, Some(reason)));
                effects.push(Effect::Stop(idx));
            }
        }
    }

    /// Records the executors per VM the backend reports for job `idx`.
    pub fn observed(&mut self, idx: usize, executors_per_vm: Vec<(VmId, u32)>) -> Vec<Effect> {
        let Some(e) = self.entries[idx].as_mut() else {
            return Vec::new();
        };
        if e.state != JobState::Running || e.observed.as_ref() == Some(&executors_per_vm) {
            return Vec::new();
        }
        e.observed = Some(executors_per_vm);
        vec![Effect::Changed(idx)]
    }

    /// Cancels job `idx` at `now`; returns the effects (none if it was cancelled
    /// already), or None if it had ended otherwise.
    pub fn cancel(&mut self, idx: usize, now: f64) -> Option<Vec<Effect>> {
        match self.entry(idx).state {
            JobState::Queued => {
                self.scheduler.cancel(idx, &self.jobs[idx], &self.cluster);
                let e = self.entry_mut(idx);
                e.state = JobState::Cancelled;
                e.finish = Some(now);
                self.ended_at(idx, now);
                Some(vec![Effect::Changed(idx)])
            }
            JobState::Cancelled => Some(Vec::new()),
            JobState::Running => {
                let mut effects = self.finish(idx, now, JobState::Cancelled, None);
                effects.push(Effect::Stop(idx));
                Some(effects)
            }
            _ => None,
        }
    }

    /// Dollars accrued by `vm` up to `now`.
    pub fn vm_cost(&self, vm: VmId, now: f64) -> f64 {
        let i = vm as usize;
        self.closed_cost[i]
            + self.billing.accrued(
                &[],
                self.on_since[i],
                now,
                self.cluster.vm(vm).price_per_second,
            )
    }

    /// The cost (paper 000 Eq. 16) of the cheapest placement of `job` on the idle
    /// cluster, dollars: Σ price × T_C over the VMs of the exact optimum. Infinite if no
    /// placement can hold it.
    pub fn cheapest_usd(&mut self, job: &Job) -> f64 {
        use frugal_core::PlacementPolicy;
        use frugal_core::policy::objective::placement_cost;
        self.estimator
            .place(job, &self.empty, 0.0)
            .map_or(f64::INFINITY, |p| placement_cost(job, &self.empty, 0.0, &p))
    }

    /// Dollars accrued by every VM up to `now`.
    pub fn spend(&self, now: f64) -> f64 {
        (0..self.cluster.len())
            .map(|v| self.vm_cost(v as VmId, now))
            .sum()
    }

    /// The fleet's price now, dollars per hour: the summed price of the VMs being billed.
    /// (The budget sees a lost VM held out of service as on, and so counts its price
    /// until it returns: the cap errs on the safe side.)
    pub fn fleet_price_per_hour(&self) -> f64 {
        self.on_since
            .iter()
            .zip(&self.cluster.vms)
            .filter(|(on, _)| on.is_some())
            .map(|(_, v)| v.price_per_second)
            .fold(0.0, |a, p| a + p)
            * 3600.0
    }

    /// Dollars accrued by the VMs of `site` up to `now`.
    pub fn site_cost(&self, site: Site, now: f64) -> f64 {
        self.cluster
            .vms
            .iter()
            .filter(|v| v.site == site)
            .map(|v| self.vm_cost(v.id, now))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_core::{DurationModel, PolicyKind, PolicyParams, Preset, PricingModel};
    use frugal_core::{QueueDiscipline, Rut, SchedulerConfig};
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Submit { executors: u32, cores: u32 },
        Finish(usize),
        Fail(usize),
        Lost(usize, usize, Option<u32>),
        VmLost(usize),
        Cancel(usize),
        Evict,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1u32..6, 1u32..5).prop_map(|(executors, cores)| Op::Submit { executors, cores }),
            any::<usize>().prop_map(Op::Finish),
            any::<usize>().prop_map(Op::Fail),
            (any::<usize>(), any::<usize>(), prop::option::of(0u32..4))
                .prop_map(|(j, v, n)| Op::Lost(j, v, n)),
            any::<usize>().prop_map(Op::VmLost),
            any::<usize>().prop_map(Op::Cancel),
            Just(Op::Evict),
        ]
    }

    fn state() -> State {
        let cluster = Preset::SmallHybrid
            .config(PricingModel::Model1)
            .build("small")
            .unwrap();
        let cfg = SchedulerConfig {
            discipline: QueueDiscipline::Edf,
            admission_control: false,
            rut: Rut::default(),
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            charge_decision_time: false,
            backfill: frugal_core::Backfill::Off,
        };
        let policy = PolicyKind::FirstFit.build(&PolicyParams::default());
        State::new(
            cluster,
            Scheduler::new(policy, cfg),
            BillingGranularity::PerSecond,
            None,
        )
    }

    /// The `i % n`-th running job, if any runs.
    fn running(st: &State, i: usize) -> Option<usize> {
        let r: Vec<usize> = (0..st.entries.len())
            .filter(|&j| {
                st.entries[j]
                    .as_ref()
                    .is_some_and(|e| e.state == JobState::Running)
            })
            .collect();
        (!r.is_empty()).then(|| r[i % r.len()])
    }

    proptest! {
        /// Whatever happens, each VM's free resources and executor count are exactly
        /// what its running jobs' placements leave, a VM is on iff it hosts executors,
        /// and its open power interval matches.
        #[test]
        fn reservations_and_power_stay_consistent(ops in prop::collection::vec(op(), 1..60)) {
            let mut st = state();
            let mut now = 0.0;
            for (k, op) in ops.into_iter().enumerate() {
                now += 10.0;
                match op {
                    Op::Submit { executors, cores } => {
                        let body = format!(
                            r#"{{"id":"j{k}","executors":{executors},"executor_cores":{cores},
                                "executor_memory_gib":2,"estimated_duration_s":100}}"#
                        );
                        let s = Submission::parse(body.as_bytes()).unwrap();
                        let job = s.job(now);
                        st.add(s, job, JobState::Queued, now);
                    }
                    Op::Finish(i) => if let Some(j) = running(&st, i) {
                        st.finish(j, now, JobState::Completed, None);
                    },
                    Op::Fail(i) => if let Some(j) = running(&st, i) {
                        st.finish(j, now, JobState::Failed, Some("test".into()));
                    },
                    Op::Lost(i, v, n) => if let Some(j) = running(&st, i) {
                        let p = st.entry(j).placement.clone().unwrap();
                        let vm = p.executors_per_vm[v % p.executors_per_vm.len()].0;
                        st.lost(j, vm, n, now);
                    },
                    Op::VmLost(v) => {
                        st.vm_lost((v % st.cluster.len()) as VmId, "test", now);
                    }
                    Op::Cancel(i) => {
                        let live: Vec<usize> = (0..st.entries.len())
                            .filter(|&j| st.entries[j].is_some())
                            .collect();
                        if !live.is_empty() {
                            st.cancel(live[i % live.len()], now);
                        }
                    }
                    Op::Evict => {
                        st.evict(now - 15.0, 3);
                    }
                }
                st.schedule(now);
                let mut executors = vec![0u32; st.cluster.len()];
                let mut used = vec![frugal_core::Resources::default(); st.cluster.len()];
                for e in st.entries().filter(|e| e.state == JobState::Running) {
                    for &(vm, n) in &e.placement.as_ref().unwrap().executors_per_vm {
                        executors[vm as usize] += n;
                        used[vm as usize] = used[vm as usize].plus(&e.job.executor_demand.times(n));
                    }
                }
                for v in &st.cluster.vms {
                    let i = v.id as usize;
                    if st.out_of_service(v.id).is_some() {
                        // Held by one reservation of its whole capacity, not billed.
                        prop_assert_eq!(executors[i], 0);
                        prop_assert_eq!(v.executors, 1);
                        prop_assert_eq!(v.free, frugal_core::Resources::default());
                        prop_assert!(st.on_since[i].is_none());
                        continue;
                    }
                    prop_assert_eq!(v.executors, executors[i]);
                    prop_assert_eq!(v.free.plus(&used[i]), v.capacity);
                    prop_assert_eq!(v.is_active(), executors[i] > 0);
                    prop_assert_eq!(st.on_since[i].is_some(), executors[i] > 0);
                }
                // Only ended jobs leave memory, and an id maps to its own slot.
                for (id, &j) in &st.by_id {
                    prop_assert_eq!(&st.entry(j).submission.id, id);
                }
                prop_assert_eq!(st.in_memory(), st.entries().count());
            }
        }
    }

    /// A state running one job "j" (index 0) of `executors` executors of 1 core and
    /// `gib` GiB, placed at t = 0 s.
    fn running_job(executors: u32, gib: f64) -> State {
        let mut st = state();
        let body = format!(
            r#"{{"id":"j","executors":{executors},"executor_cores":1,
                "executor_memory_gib":{gib},"estimated_duration_s":1000}}"#
        );
        let s = Submission::parse(body.as_bytes()).unwrap();
        let job = s.job(0.0);
        st.add(s, job, JobState::Queued, 0.0);
        st.schedule(0.0);
        st
    }

    /// Hand-computed: a job on VM v loses v at t = 100 s. v's bill is closed at 100 s of
    /// per-second billing, its executors are re-placed elsewhere at once (the reason
    /// says where), and v is out of service until 100 + 600 s, then off and free.
    #[test]
    fn a_lost_vm_is_billed_to_the_loss_replaced_and_out_of_service_for_600_s() {
        let mut st = running_job(2, 2.0);
        let before = st.entry(0).placement.clone().unwrap();
        let (v, n) = before.executors_per_vm[0];
        let price = st.cluster.vm(v).price_per_second;

        let effects = st.vm_lost(v, "no heartbeat from host vm for 10 s", 100.0);
        assert!(effects.contains(&Effect::VmOff(v, 100.0)));
        assert!((st.vm_cost(v, 500.0) - 100.0 * price).abs() < 1e-12);
        let after = st.entry(0).placement.clone().unwrap();
        assert!(after.executors_per_vm.iter().all(|p| p.0 != v));
        let total = |p: &Placement| p.executors_per_vm.iter().map(|q| q.1).sum::<u32>();
        assert_eq!(total(&after), total(&before));
        let reason = st.entry(0).reason.clone().unwrap();
        assert!(
            reason.starts_with(&format!(
                "{n} executor(s) lost with VM {v} at 100 s (no heartbeat from host vm for 10 s); replaced by "
            )),
            "{reason}"
        );
        assert_eq!(st.out_of_service(v), Some(700.0));
        assert_eq!(st.cluster.vm(v).free, frugal_core::Resources::default());
        assert!(st.vm_lost(v, "again", 200.0).is_empty(), "lost once");

        st.schedule(699.0);
        assert_eq!(st.out_of_service(v), Some(700.0));
        st.schedule(700.0);
        assert_eq!(st.out_of_service(v), None);
        assert!(!st.cluster.vm(v).is_active());
        assert_eq!(st.cluster.vm(v).free, st.cluster.vm(v).capacity);
        assert!(
            (st.vm_cost(v, 800.0) - 100.0 * price).abs() < 1e-12,
            "not billed while lost"
        );
    }

    /// A refused power-on costs nothing: the VM's interval closes at its own start (the
    /// VM was turned on at 0), and the executors are re-placed as for a lost VM.
    #[test]
    fn a_vm_whose_power_on_failed_costs_nothing_and_is_replaced() {
        let mut st = running_job(2, 2.0);
        let (v, _) = st.entry(0).placement.clone().unwrap().executors_per_vm[0];
        let effects = st.power_on_failed(v, "power-on failed: InsufficientInstanceCapacity", 3.0);
        assert!(effects.contains(&Effect::VmOff(v, 0.0)), "{effects:?}");
        assert_eq!(st.vm_cost(v, 500.0), 0.0);
        let after = st.entry(0).placement.clone().unwrap();
        assert!(after.executors_per_vm.iter().all(|p| p.0 != v));
        assert!(
            st.entry(0)
                .reason
                .clone()
                .unwrap()
                .contains("InsufficientInstanceCapacity")
        );
        assert_eq!(st.out_of_service(v), Some(603.0));
    }

    /// Hand-computed: one dead worker of two executors out of a job's three on VM v
    /// releases exactly those two; the third stays where it is.
    #[test]
    fn a_lost_worker_releases_only_its_own_executors() {
        let mut st = running_job(3, 1.0);
        let before = st.entry(0).placement.clone().unwrap();
        assert_eq!(
            before.executors_per_vm.len(),
            1,
            "first fit packs {before:?}"
        );
        let (v, n) = before.executors_per_vm[0];
        assert_eq!(n, 3);
        st.lost(0, v, Some(2), 100.0);
        let after = st.entry(0).placement.clone().unwrap();
        let total: u32 = after.executors_per_vm.iter().map(|p| p.1).sum();
        assert_eq!(total, 3);
        assert!(
            after.on(v) >= 1,
            "the surviving executor stays on VM {v}: {after:?}"
        );
        let reason = st.entry(0).reason.clone().unwrap();
        assert!(
            reason.starts_with(&format!(
                "2 executor(s) lost on VM {v} at 100 s; replaced by "
            )),
            "{reason}"
        );
        assert_eq!(st.cluster.vm(v).executors, after.on(v));
    }
}
