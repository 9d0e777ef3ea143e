//! The online scheduler: queues, admission control and one placement policy.
//!
//! Shared by the simulator and the service. Jobs live in a caller-owned slice and are
//! referred to by index; the scheduler keeps only their queue keys.

use std::time::Instant;

use crate::cluster::{Cluster, PowerState, VmId};
use crate::duration::DurationModel;
use crate::job::Job;
use crate::placement::Placement;
use crate::policy::PlacementPolicy;
use crate::queue::{OrdF64, OrderedJobs, QueueDiscipline, QueueKey};
use crate::rut::{Rut, scarce_resource_demand};

/// Settings of a [`Scheduler`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchedulerConfig {
    /// Queue discipline.
    pub discipline: QueueDiscipline,
    /// Deadline admission control (paper 000 Eq. 15): drop a job whose predicted
    /// completion misses its deadline, T_C ≥ T_D − T_W.
    pub admission_control: bool,
    /// Thresholds for RD (Eq. 9) in [`QueueDiscipline::DeadlineFirst`].
    pub rut: Rut,
    /// Completion-time model used for estimates (finish times, T_vm, admission).
    pub duration: DurationModel,
    /// Seconds from turning a VM on until it can run executors.
    pub boot_latency_s: f64,
    /// Delay each job's start by the wall-clock time the scheduler spent deciding in this
    /// pass up to and including its decision, as a real scheduler would (paper 000 §7;
    /// §6.3.1 excluded it). Makes runs depend on machine speed: off by default.
    pub charge_decision_time: bool,
}

/// What the scheduler did with a job during a pass.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// The job was placed and its resources reserved.
    Started {
        /// Job index.
        job: usize,
        /// Where its executors run.
        placement: Placement,
        /// When it starts (seconds): now, or when the last VM it needs finishes booting.
        start: f64,
        /// Estimated finish (seconds): start + duration under the placement.
        finish: f64,
        /// VMs this placement turned on.
        powered_on: Vec<VmId>,
    },
    /// Admission control dropped the job: it cannot meet its deadline.
    Dropped {
        /// Job index.
        job: usize,
    },
}

/// Wall-clock latency of every policy call, in seconds.
#[derive(Clone, Debug, Default)]
pub struct DecisionTimes {
    /// One entry per `PlacementPolicy::place` call, successful or not.
    pub seconds: Vec<f64>,
}

/// Online scheduler of paper 004 Alg. 1 generalised over queue disciplines.
pub struct Scheduler {
    config: SchedulerConfig,
    policy: Box<dyn PlacementPolicy>,
    /// FCFS, EDF and Morpheus jobs; the deadline queue of DeadlineFirst.
    main: OrderedJobs,
    /// The RD-ordered regular queue of DeadlineFirst.
    regular: OrderedJobs,
    /// Bumped whenever resources are freed: a job that failed in the current epoch would
    /// fail again, since placements are monotone in free capacity.
    epoch: u64,
    times: DecisionTimes,
    /// Wall-clock seconds spent deciding in the current pass.
    pass_elapsed: f64,
    morpheus_scratch: Vec<(f64, QueueKey, u64)>,
}

enum Outcome {
    Done,
    Failed,
}

impl Scheduler {
    /// A scheduler driving `policy`.
    pub fn new(policy: Box<dyn PlacementPolicy>, config: SchedulerConfig) -> Self {
        Scheduler {
            config,
            policy,
            main: OrderedJobs::default(),
            regular: OrderedJobs::default(),
            epoch: 0,
            times: DecisionTimes::default(),
            pass_elapsed: 0.0,
            morpheus_scratch: Vec::new(),
        }
    }

    /// The placement policy's name.
    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    /// The settings.
    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }

    /// Wall-clock time of every policy call so far.
    pub fn decision_times(&self) -> &DecisionTimes {
        &self.times
    }

    /// Jobs waiting.
    pub fn queued(&self) -> usize {
        self.main.len() + self.regular.len()
    }

    /// True if the policy could place `job` on the empty version of the cluster.
    pub fn can_ever_place(&self, job: &Job, empty: &Cluster) -> bool {
        self.policy.can_ever_place(job, empty)
    }

    /// The queue and key job `idx` is filed under.
    fn key(&self, idx: usize, job: &Job, cluster: &Cluster) -> (Which, QueueKey) {
        let deadline = OrdF64(job.deadline.unwrap_or(f64::INFINITY));
        let arrival = OrdF64(job.arrival);
        match self.config.discipline {
            QueueDiscipline::Fcfs | QueueDiscipline::Morpheus => {
                (Which::Main, (arrival, OrdF64(0.0), idx))
            }
            QueueDiscipline::Edf => (Which::Main, (deadline, arrival, idx)),
            QueueDiscipline::DeadlineFirst if job.deadline.is_some() => {
                (Which::Main, (deadline, arrival, idx))
            }
            QueueDiscipline::DeadlineFirst => {
                let rd = self.config.rut.resource_demand(job, cluster);
                (Which::Regular, (OrdF64(-rd), arrival, idx))
            }
        }
    }

    /// Adds job `idx` (= `jobs[idx]`) to the queue.
    pub fn enqueue(&mut self, idx: usize, job: &Job, cluster: &Cluster) {
        let (which, key) = self.key(idx, job, cluster);
        self.queue(which).insert(key);
    }

    /// Removes job `idx` from the queue (a cancellation); returns false if it was not
    /// queued.
    pub fn cancel(&mut self, idx: usize, job: &Job, cluster: &Cluster) -> bool {
        let (which, key) = self.key(idx, job, cluster);
        self.queue(which).remove(&key)
    }

    /// Takes the decision times recorded so far, leaving none (a long-running service
    /// moves them into a histogram instead of keeping them all).
    pub fn take_decision_times(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.times.seconds)
    }

    /// Places `job` at `now` outside the queue and admission control — to replace
    /// executors a running job lost — and reserves them until `busy_until` (seconds).
    /// Returns the placement and the VMs it turned on, or None if the policy cannot place
    /// it now.
    pub fn place_now(
        &mut self,
        job: &Job,
        cluster: &mut Cluster,
        now: f64,
        busy_until: f64,
    ) -> Option<(Placement, Vec<VmId>)> {
        let t0 = Instant::now();
        let placed = self.policy.place(job, cluster, now);
        self.times.seconds.push(t0.elapsed().as_secs_f64());
        let placement = placed?;
        let powered_on = self.reserve(job, &placement, cluster, now, busy_until);
        Some((placement, powered_on))
    }

    /// Reserves `placement` for `job` at `now` until `busy_until`; returns the VMs it
    /// turned on.
    fn reserve(
        &self,
        job: &Job,
        placement: &Placement,
        cluster: &mut Cluster,
        now: f64,
        busy_until: f64,
    ) -> Vec<VmId> {
        let mut powered_on = Vec::new();
        cluster
            .reserve(
                placement,
                &job.executor_demand,
                now,
                self.config.boot_latency_s,
                &mut powered_on,
            )
            .expect("a policy returned a placement over a VM's free capacity");
        cluster.extend_busy(placement, busy_until);
        powered_on
    }

    /// Tells the scheduler that resources were freed (a job ended), so jobs that failed
    /// before are worth trying again.
    pub fn resources_freed(&mut self) {
        self.epoch += 1;
    }

    /// Offers waiting jobs to the policy in queue order at time `now` (seconds),
    /// reserving resources in `cluster` for each job placed; appends what happened to
    /// `out`.
    pub fn run_pass(
        &mut self,
        jobs: &[Job],
        cluster: &mut Cluster,
        now: f64,
        out: &mut Vec<Decision>,
    ) {
        match self.config.discipline {
            QueueDiscipline::Fcfs | QueueDiscipline::Edf => {
                self.walk(Which::Main, true, jobs, cluster, now, out);
            }
            QueueDiscipline::DeadlineFirst => {
                self.walk(Which::Main, true, jobs, cluster, now, out);
                if self.main.is_empty() {
                    self.walk(Which::Regular, false, jobs, cluster, now, out);
                }
            }
            QueueDiscipline::Morpheus => self.morpheus_pass(jobs, cluster, now, out),
        }
    }

    fn queue(&mut self, which: Which) -> &mut OrderedJobs {
        match which {
            Which::Main => &mut self.main,
            Which::Regular => &mut self.regular,
        }
    }

    /// Walks one ordered queue; `blocking` stops at the first job that cannot be placed.
    fn walk(
        &mut self,
        which: Which,
        blocking: bool,
        jobs: &[Job],
        cluster: &mut Cluster,
        now: f64,
        out: &mut Vec<Decision>,
    ) {
        let mut after: Option<QueueKey> = None;
        while let Some((key, tried)) = self.queue(which).next_after(after.as_ref()) {
            match self.try_job(key.2, tried, jobs, cluster, now, out) {
                Outcome::Done => {
                    self.queue(which).remove(&key);
                }
                Outcome::Failed => {
                    let epoch = self.epoch;
                    self.queue(which).mark_tried(&key, epoch);
                    if blocking {
                        return;
                    }
                }
            }
            after = Some(key);
        }
    }

    fn morpheus_pass(
        &mut self,
        jobs: &[Job],
        cluster: &mut Cluster,
        now: f64,
        out: &mut Vec<Decision>,
    ) {
        let mut order = std::mem::take(&mut self.morpheus_scratch);
        order.clear();
        let (used, total) = (cluster.used(), cluster.total_capacity);
        order.extend(
            self.main
                .iter()
                .map(|(k, t)| (scarce_resource_demand(&jobs[k.2], &used, &total), *k, *t)),
        );
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, key, tried) in &order {
            match self.try_job(key.2, tried, jobs, cluster, now, out) {
                Outcome::Done => {
                    self.main.remove(&key);
                }
                Outcome::Failed => self.main.mark_tried(&key, self.epoch),
            }
        }
        self.morpheus_scratch = order;
    }

    /// Admission, then placement of one job.
    fn try_job(
        &mut self,
        idx: usize,
        tried: u64,
        jobs: &[Job],
        cluster: &mut Cluster,
        now: f64,
        out: &mut Vec<Decision>,
    ) -> Outcome {
        let job = &jobs[idx];
        let cfg = self.config;
        if cfg.admission_control && job.deadline.is_some_and(|d| now + job.t_local > d) {
            out.push(Decision::Dropped { job: idx });
            return Outcome::Done;
        }
        if tried == self.epoch {
            return Outcome::Failed;
        }
        let t0 = Instant::now();
        let placed = self.policy.place(job, cluster, now);
        let elapsed = t0.elapsed().as_secs_f64();
        self.times.seconds.push(elapsed);
        self.pass_elapsed += elapsed;
        let Some(placement) = placed else {
            return Outcome::Failed;
        };
        let mut start = ready_time(cluster, &placement, now, cfg.boot_latency_s);
        if cfg.charge_decision_time {
            start = start.max(now + self.pass_elapsed);
        }
        let finish = start + cfg.duration.duration(job, cluster, &placement);
        if cfg.admission_control && job.deadline.is_some_and(|d| finish > d) {
            out.push(Decision::Dropped { job: idx });
            return Outcome::Done;
        }
        let powered_on = self.reserve(job, &placement, cluster, now, finish);
        out.push(Decision::Started {
            job: idx,
            placement,
            start,
            finish,
            powered_on,
        });
        Outcome::Done
    }
}

#[derive(Clone, Copy)]
enum Which {
    Main,
    Regular,
}

/// When every VM of `placement` can run executors, if it were reserved at `now`.
pub fn ready_time(cluster: &Cluster, placement: &Placement, now: f64, boot_latency_s: f64) -> f64 {
    placement
        .executors_per_vm
        .iter()
        .map(|&(id, _)| match cluster.vm(id).power {
            PowerState::Off => now + boot_latency_s,
            PowerState::Booting { ready_at } => ready_at.max(now),
            PowerState::On => now,
        })
        .fold(now, f64::max)
}
