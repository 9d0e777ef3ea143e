//! The service's live state: the cluster, the scheduler (the simulator's queues,
//! admission control and policy — the same code) and every accepted job.

use std::collections::HashMap;

use serde::Serialize;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::{Cluster, Site, VmId};
use frugal_core::job::Job;
use frugal_core::placement::Placement;
use frugal_core::scheduler::{Decision, Scheduler};

use crate::submission::Submission;

/// Lifecycle of an accepted job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for resources.
    Queued,
    /// Executors placed and running.
    Running,
    /// Finished.
    Completed,
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
            JobState::Cancelled => "cancelled",
            JobState::Dropped => "dropped",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<JobState> {
        [
            JobState::Queued,
            JobState::Running,
            JobState::Completed,
            JobState::Cancelled,
            JobState::Dropped,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
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
    /// Why it was re-queued or dropped.
    pub reason: Option<String>,
}

/// A change to persist and act on, produced by the state machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Job `idx` started: launch it on the backend for `duration` seconds.
    Started {
        /// Job index.
        idx: usize,
        /// Service seconds it should run.
        duration: f64,
    },
    /// Job `idx` changed state (persist it).
    Changed(usize),
    /// VM turned on at the time given.
    VmOn(VmId, f64),
    /// VM turned off at the time given.
    VmOff(VmId, f64),
}

/// The live state.
pub struct State {
    /// The cluster.
    pub cluster: Cluster,
    empty: Cluster,
    scheduler: Scheduler,
    /// Accepted jobs, in submission order (their index is the scheduler's job index).
    pub entries: Vec<Entry>,
    jobs: Vec<Job>,
    by_id: HashMap<String, usize>,
    /// Open power-on time of each VM.
    on_since: Vec<Option<f64>>,
    /// Closed power-on intervals of each VM.
    intervals: Vec<Vec<(f64, f64)>>,
    /// Billing granularity.
    pub billing: BillingGranularity,
}

impl State {
    /// A fresh state on the all-off `cluster`.
    pub fn new(cluster: Cluster, scheduler: Scheduler, billing: BillingGranularity) -> State {
        let n = cluster.len();
        State {
            empty: cluster.emptied(),
            cluster,
            scheduler,
            entries: Vec::new(),
            jobs: Vec::new(),
            by_id: HashMap::new(),
            on_since: vec![None; n],
            intervals: vec![Vec::new(); n],
            billing,
        }
    }

    /// The index of job `id`.
    pub fn find(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// Jobs waiting in the queue.
    pub fn queued(&self) -> usize {
        self.scheduler.queued()
    }

    /// The scheduler (for its decision times).
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    /// Adds an accepted job in `state` (restored jobs may be finished already); queued
    /// jobs the policy can never place are dropped with a reason. Returns its index.
    pub fn add(&mut self, submission: Submission, job: Job, state: JobState) -> usize {
        let idx = self.entries.len();
        self.by_id.insert(submission.id.clone(), idx);
        self.jobs.push(job.clone());
        let mut entry = Entry {
            submission,
            job,
            state,
            placement: None,
            start: None,
            finish: None,
            reason: None,
        };
        if state == JobState::Queued {
            if self.scheduler.can_ever_place(&entry.job, &self.empty) {
                self.scheduler.enqueue(idx, &entry.job, &self.cluster);
            } else {
                entry.state = JobState::Dropped;
                entry.reason = Some("the policy cannot place it even on the empty cluster".into());
            }
        }
        self.entries.push(entry);
        idx
    }

    /// Restores closed and open VM power intervals from the database (open ones are
    /// closed at `now`: the backend does not survive a restart).
    pub fn restore_power(
        &mut self,
        intervals: &[(u32, f64, Option<f64>)],
        now: f64,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        for &(vm, on, off) in intervals {
            if let Some(v) = self.intervals.get_mut(vm as usize) {
                let off = off.unwrap_or_else(|| {
                    effects.push(Effect::VmOff(vm, now));
                    now
                });
                v.push((on, off));
            }
        }
        effects
    }

    /// Offers the queue to the policy at `now`, returning what to persist and launch.
    pub fn schedule(&mut self, now: f64) -> Vec<Effect> {
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
                } => {
                    for vm in powered_on {
                        self.on_since[vm as usize] = Some(now);
                        effects.push(Effect::VmOn(vm, now));
                    }
                    let e = &mut self.entries[job];
                    e.state = JobState::Running;
                    e.placement = Some(placement);
                    e.start = Some(start);
                    e.finish = Some(finish);
                    effects.push(Effect::Started {
                        idx: job,
                        duration: finish - start,
                    });
                    effects.push(Effect::Changed(job));
                }
                Decision::Dropped { job } => {
                    let e = &mut self.entries[job];
                    e.state = JobState::Dropped;
                    e.reason = Some("admission control: it would miss its deadline".into());
                    effects.push(Effect::Changed(job));
                }
            }
        }
        effects
    }

    /// Job `idx` ended at `now` (completed or cancelled while running): frees its
    /// executors and turns idle VMs off.
    pub fn finish(&mut self, idx: usize, now: f64, state: JobState) -> Vec<Effect> {
        let mut effects = Vec::new();
        let e = &mut self.entries[idx];
        if e.state != JobState::Running {
            return effects;
        }
        e.state = state;
        e.finish = Some(now);
        let placement = e.placement.clone().expect("running jobs are placed");
        let demand = e.job.executor_demand;
        self.cluster.release(&placement, &demand);
        self.scheduler.resources_freed();
        effects.push(Effect::Changed(idx));
        for &(vm, _) in &placement.executors_per_vm {
            if self.cluster.power_off(vm) {
                if let Some(on) = self.on_since[vm as usize].take() {
                    self.intervals[vm as usize].push((on, now));
                }
                effects.push(Effect::VmOff(vm, now));
            }
        }
        effects
    }

    /// Cancels job `idx` at `now`; returns the effects, or None if it had already ended.
    pub fn cancel(&mut self, idx: usize, now: f64) -> Option<Vec<Effect>> {
        match self.entries[idx].state {
            JobState::Queued => {
                self.scheduler.cancel(idx, &self.jobs[idx], &self.cluster);
                self.entries[idx].state = JobState::Cancelled;
                Some(vec![Effect::Changed(idx)])
            }
            JobState::Running => Some(self.finish(idx, now, JobState::Cancelled)),
            _ => None,
        }
    }

    /// Dollars accrued by `vm` up to `now`.
    pub fn vm_cost(&self, vm: VmId, now: f64) -> f64 {
        let i = vm as usize;
        self.billing.accrued(
            &self.intervals[i],
            self.on_since[i],
            now,
            self.cluster.vm(vm).price_per_second,
        )
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
