//! The online scheduler: queues, admission control and one placement policy.
//!
//! Shared by the simulator and the service. Jobs live in a caller-owned slice and are
//! referred to by index; the scheduler keeps only their queue keys.

use std::time::Instant;

use crate::cluster::{Cluster, VmId};
use crate::duration::DurationModel;
use crate::job::Job;
use crate::placement::Placement;
use crate::policy::objective::placement_cost;
use crate::policy::{Optimal, PlacementPolicy};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::queue::{
    JobShape, OrdF64, OrderedJobs, QueueDiscipline, QueueKey, ShapeJobKey, ShapeQueue,
};
use crate::resources::Resources;
use crate::rut::{Rut, scarce_share};

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
    /// What the blocking queues (FCFS, EDF, the deadline queue of deadline-first) do
    /// behind a head job that cannot be placed.
    pub backfill: Backfill,
}

/// Head-of-line blocking in the blocking queue disciplines. Named `none` and `easy`
/// everywhere: flags, experiment files, the service's store, rows and Python.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backfill {
    /// `none`: the head blocks every job behind it, as the papers' schedulers do (the
    /// default of the simulator, so its numbers are the papers'). One long job on the
    /// cluster and a head that needs the whole cluster then hold the queue until the long
    /// job ends.
    #[default]
    None,
    /// `easy`: EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6) 2001), with a
    /// conservative availability profile: the head gets a reservation at the *shadow
    /// time*, the earliest time at which the cluster has free slots for all its executors
    /// if every VM frees only when its last executor's estimated finish (`busy_until`)
    /// has passed; a job behind it (at most [`BACKFILL_DEPTH`] of them) starts now if it
    /// fits now and its longest possible run time (T_C^H or T_C^L, with the kind penalty)
    /// ends by the shadow time. Backfilled jobs are done before the head's reservation,
    /// so the head starts at its shadow time at the latest (with accurate estimates) and
    /// no job waits forever behind it.
    Easy,
}

crate::choice! {
    impl Choice for Backfill {
        None = "none": "The head blocks the jobs behind it (the papers' schedulers)",
        Easy = "easy": "EASY backfilling: jobs that fit now and end before the head's reservation start",
    }
}

/// Jobs behind a blocked head that one pass considers for backfilling (Slurm's
/// `bf_max_job_test` plays the same role), so a pass stays O(depth) however long the
/// queue.
pub const BACKFILL_DEPTH: usize = 100;

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
        /// The decision's cost and the optimum's, when the scheduler measures the gap
        /// ([`Scheduler::measure_gap`]).
        cost: Option<DecisionCost>,
    },
    /// Admission control dropped the job: it cannot meet its deadline.
    Dropped {
        /// Job index.
        job: usize,
    },
    /// The job could be placed but waits: its placement would break a dollar limit. It
    /// stays queued and is offered again once resources are freed.
    Held {
        /// Job index.
        job: usize,
        /// Which limit.
        hold: Hold,
    },
}

/// The cost of one placement decision under the per-job objective of paper 000 Eq. 16
/// ([`placement_cost`]: Σ P_j · max(0, T_C − T_j) over the VMs used), dollars.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecisionCost {
    /// Of the placement made.
    pub chosen: f64,
    /// Of the exact optimum ([`Optimal`]) on the same cluster state at the same instant;
    /// never above `chosen`.
    pub optimal: f64,
}

/// A dollar limit that holds a placeable job back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hold {
    /// Turning on the placement's off VMs would raise the fleet's price above the budget.
    Budget {
        /// The fleet's price with the placement, dollars per hour.
        fleet_per_hour: f64,
        /// The budget, dollars per hour.
        budget_per_hour: f64,
    },
    /// The job waits behind an earlier job held by the budget: placing it now would turn
    /// on a VM or keep one on longer, and so could delay that job.
    BehindBudget {
        /// The budget, dollars per hour.
        budget_per_hour: f64,
    },
    /// Even the cheapest placement now costs more than the job's cap.
    CostCap {
        /// The cheapest placement's cost now (Eq. 16), dollars.
        cheapest: f64,
        /// The job's cap, dollars.
        cap: f64,
    },
}

impl Hold {
    /// Why the job waits, in words (beginning `budget:` or `max_cost_usd:`).
    pub fn reason(&self) -> String {
        match self {
            Hold::Budget {
                fleet_per_hour,
                budget_per_hour,
            } => format!(
                "budget: placing it now would raise the fleet's price to ${fleet_per_hour:.4}/h, \
                 over the ${budget_per_hour:.4}/h budget"
            ),
            Hold::BehindBudget { budget_per_hour } => format!(
                "budget: waits behind a job held by the ${budget_per_hour:.4}/h budget: \
                 placing it now would turn on a VM or keep one on longer"
            ),
            Hold::CostCap { cheapest, cap } => format!(
                "max_cost_usd: the cheapest placement now costs ${cheapest:.4}, over its ${cap:.4} cap"
            ),
        }
    }
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
    /// FCFS and EDF jobs; the deadline queue of DeadlineFirst.
    main: OrderedJobs,
    /// Morpheus jobs; the RD-ordered regular queue of DeadlineFirst.
    shaped: ShapeQueue,
    /// Morpheus jobs with a deadline under admission control, by latest start
    /// (deadline − T_C^L), so a pass drops the late ones without visiting the others.
    latest_start: BTreeSet<(OrdF64, usize)>,
    /// An upper bound on the deadlines in `latest_start` (for the rounding tolerance).
    max_deadline: f64,
    /// Bumped whenever resources are freed: a job that failed in the current epoch would
    /// fail again, since placements are monotone in free capacity.
    epoch: u64,
    times: DecisionTimes,
    /// Wall-clock seconds spent deciding in the current pass.
    pass_elapsed: f64,
    shape_order: Vec<(f64, usize)>,
    shape_group: BinaryHeap<Reverse<(ShapeJobKey, usize)>>,
    /// The exact optimum, run beside the policy when the gap is measured or a job has a
    /// cost cap.
    optimum: Optimal,
    measure_gap: bool,
    /// Fleet price cap, dollars per second.
    budget_per_s: Option<f64>,
    /// Cost cap of each job index, dollars (infinite: none).
    caps: Vec<f64>,
    /// The contention domains' load, kept during a pass for a policy that prices with
    /// it ([`Scheduler::set_load`]).
    load: Option<crate::contention::Load>,
}

enum Outcome {
    Done,
    Failed,
    /// Placeable, but held by a dollar limit ([`Decision::Held`]): the queue walks on.
    Held,
}

impl Scheduler {
    /// A scheduler driving `policy`.
    pub fn new(policy: Box<dyn PlacementPolicy>, config: SchedulerConfig) -> Self {
        Scheduler {
            config,
            policy,
            main: OrderedJobs::default(),
            shaped: ShapeQueue::default(),
            latest_start: BTreeSet::new(),
            max_deadline: 0.0,
            epoch: 0,
            times: DecisionTimes::default(),
            pass_elapsed: 0.0,
            shape_order: Vec::new(),
            shape_group: BinaryHeap::new(),
            optimum: Optimal::default(),
            measure_gap: false,
            budget_per_s: None,
            caps: Vec::new(),
            load: None,
        }
    }

    /// True if the policy prices placements with the contention domains' load
    /// ([`PlacementPolicy::uses_load`]).
    pub fn uses_load(&self) -> bool {
        self.policy.uses_load()
    }

    /// The contention domains' load before the next pass or placement (the running
    /// jobs'); each placement the scheduler makes adds to it until the next call. `None`:
    /// no contention model, the policy sees no load.
    pub fn set_load(&mut self, load: Option<crate::contention::Load>) {
        self.load = load;
    }

    /// Calls the policy, telling it the load first if it prices with it.
    fn ask(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        if self.policy.uses_load() {
            self.policy.observe_load(self.load.as_ref());
        }
        self.policy.place(job, cluster, now)
    }

    /// Measures every placement against the exact optimum: each [`Decision::Started`]
    /// then carries its [`DecisionCost`]. The optimum is computed at the same instant on
    /// the same cluster state, after the policy's call and outside its decision time
    /// ([`Scheduler::decision_times`] stays the policy's own); with the `optimal` policy
    /// itself, its placement is the optimum and nothing more is computed.
    pub fn measure_gap(&mut self, on: bool) {
        self.measure_gap = on;
    }

    /// Caps the fleet's running price at `dollars_per_hour` (None: no cap). A placement
    /// whose off VMs would take the summed price of the powered-on VMs above the cap is
    /// not made as the policy chose it: the placement that turns on the cheapest VMs
    /// ([`crate::budget::cheapest_price_placement`]) is taken instead when it is within
    /// the cap (and within the job's cost cap, if any), as for a cost cap; otherwise the
    /// job waits ([`Decision::Held`]) and is offered again at every pass.
    ///
    /// A held job blocks no one who cannot delay it: in a blocking queue (FCFS, EDF, the
    /// deadline queue) the walk goes on past it, and a job behind it starts only if its
    /// placement turns on no VM and ends by the time every VM it uses is busy until
    /// anyway — it neither raises the fleet's price nor keeps a VM on longer, so the held
    /// job is admitted as soon as it would have been. Others behind it wait, held with
    /// the same reason kind ([`Hold::BehindBudget`]). A job that the cap can never admit
    /// (even turning on the cheapest VMs of an idle cluster exceeds it) is for the
    /// caller to refuse at submission. Replacements for executors a running job lost
    /// ([`Scheduler::place_now`]) are never held. The comparison allows a relative
    /// rounding of 1e-9.
    pub fn set_budget_per_hour(&mut self, dollars_per_hour: Option<f64>) {
        self.budget_per_s = dollars_per_hour.map(|b| b / 3600.0);
    }

    /// Caps the cost of job `idx`'s placement at `dollars` (None: no cap), measured as
    /// [`DecisionCost`]: if the policy's placement costs more, the exact optimum's is
    /// taken instead when it is within the cap; otherwise the job waits
    /// ([`Decision::Held`]) until resources are freed. A cost falls as busy VMs gain
    /// remaining time and rises as it runs out, so a held job may become placeable
    /// without resources being freed; it is offered again only when they are.
    pub fn cap_cost(&mut self, idx: usize, dollars: Option<f64>) {
        if self.caps.len() <= idx {
            if dollars.is_none() {
                return;
            }
            self.caps.resize(idx + 1, f64::INFINITY);
        }
        self.caps[idx] = dollars.unwrap_or(f64::INFINITY);
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
        self.main.len() + self.shaped.len()
    }

    /// True if the policy could place `job` on the empty version of the cluster.
    pub fn can_ever_place(&self, job: &Job, empty: &Cluster) -> bool {
        self.policy.can_ever_place(job, empty)
    }

    /// True if job `idx` waits in the shape queue (Morpheus, regular jobs of
    /// deadline-first) rather than the ordered main queue.
    fn shaped(&self, job: &Job) -> bool {
        match self.config.discipline {
            QueueDiscipline::Fcfs | QueueDiscipline::Edf => false,
            QueueDiscipline::DeadlineFirst => job.deadline.is_none(),
            QueueDiscipline::Morpheus => true,
        }
    }

    /// The main-queue key of job `idx`: arrival (FCFS), else deadline then arrival (EDF
    /// and the deadline jobs of deadline-first; jobs without one last).
    fn key(&self, idx: usize, job: &Job) -> QueueKey {
        let deadline = OrdF64(job.deadline.unwrap_or(f64::INFINITY));
        let arrival = OrdF64(job.arrival);
        match self.config.discipline {
            QueueDiscipline::Fcfs => (arrival, OrdF64(0.0), idx),
            _ => (deadline, arrival, idx),
        }
    }

    /// Adds job `idx` (= `jobs[idx]`) to the queue.
    pub fn enqueue(&mut self, idx: usize, job: &Job, _cluster: &Cluster) {
        if self.shaped(job) {
            self.shaped.insert(JobShape::of(job), job.arrival, idx);
            if let (true, Some(d)) = (self.config.admission_control, job.deadline) {
                self.latest_start.insert((OrdF64(d - job.t_local), idx));
                self.max_deadline = self.max_deadline.max(d.abs());
            }
        } else {
            let key = self.key(idx, job);
            self.main.insert(key);
        }
    }

    /// Removes job `idx` from the queue (a cancellation); returns false if it was not
    /// queued.
    pub fn cancel(&mut self, idx: usize, job: &Job, _cluster: &Cluster) -> bool {
        if self.shaped(job) {
            self.forget_latest_start(idx, job);
            self.shaped.remove(JobShape::of(job), job.arrival, idx)
        } else {
            let key = self.key(idx, job);
            self.main.remove(&key)
        }
    }

    fn forget_latest_start(&mut self, idx: usize, job: &Job) {
        if let Some(d) = job.deadline {
            self.latest_start.remove(&(OrdF64(d - job.t_local), idx));
        }
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
        let placed = self.ask(job, cluster, now);
        self.times.seconds.push(t0.elapsed().as_secs_f64());
        let placement = placed?;
        let powered_on = self.reserve(job, &placement, cluster, now, busy_until);
        Some((placement, powered_on))
    }

    /// Reserves `placement` for `job` at `now` until `busy_until`; returns the VMs it
    /// turned on.
    fn reserve(
        &mut self,
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
        if let Some(l) = &mut self.load {
            l.add(cluster, placement, &job.executor_demand);
        }
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
                self.walk(jobs, cluster, now, out);
            }
            QueueDiscipline::DeadlineFirst => {
                self.walk(jobs, cluster, now, out);
                if self.main.is_empty() {
                    // Regular jobs by Resource Demand RD (Eq. 9), largest first.
                    let (rut, total) = (self.config.rut, cluster.total_capacity);
                    let score =
                        |s: &JobShape| -(rut.unify(&s.demand, &total) * f64::from(s.executors));
                    self.shaped_pass(score, jobs, cluster, now, out);
                }
            }
            QueueDiscipline::Morpheus => {
                self.drop_late(jobs, now, out);
                // c_job (Eq. 10) against the usage at the start of the pass.
                let (used, total) = (cluster.used(), cluster.total_capacity);
                let score =
                    |s: &JobShape| scarce_share(&s.demand.times(s.executors), &used, &total);
                self.shaped_pass(score, jobs, cluster, now, out);
            }
        }
    }

    /// Walks the main queue in order, stopping at the first job that cannot be placed
    /// (head-of-line blocking), then backfilling behind it if configured.
    fn walk(&mut self, jobs: &[Job], cluster: &mut Cluster, now: f64, out: &mut Vec<Decision>) {
        let mut after: Option<QueueKey> = None;
        let mut behind_hold = false;
        // Past a held job the walk looks at most as deep as EASY backfilling does.
        let mut depth = 0;
        while let Some((key, tried)) = self.main.next_after(after.as_ref()) {
            if behind_hold {
                depth += 1;
                if depth > BACKFILL_DEPTH {
                    return;
                }
            }
            match self.try_job(key.2, tried, behind_hold, jobs, cluster, now, out) {
                Outcome::Done => {
                    self.main.remove(&key);
                }
                Outcome::Held => {
                    // Not marked as tried: a dollar hold can lift without resources being
                    // freed (a VM turning off), so it is offered again at the next pass.
                    behind_hold = true;
                }
                Outcome::Failed => {
                    self.main.mark_tried(&key, self.epoch);
                    if self.config.backfill == Backfill::Easy {
                        self.backfill(&jobs[key.2], key, jobs, cluster, now, out);
                    }
                    return;
                }
            }
            after = Some(key);
        }
    }

    /// EASY backfilling behind `head` (see [`Backfill::Easy`]).
    fn backfill(
        &mut self,
        head: &Job,
        head_key: QueueKey,
        jobs: &[Job],
        cluster: &mut Cluster,
        now: f64,
        out: &mut Vec<Decision>,
    ) {
        let shadow = shadow_time(cluster, head, now);
        let mut after = head_key;
        for _ in 0..BACKFILL_DEPTH {
            let Some((key, tried)) = self.main.next_after(Some(&after)) else {
                return;
            };
            after = key;
            let job = &jobs[key.2];
            if now + self.config.duration.longest(job) > shadow {
                // It could still run when the head's reservation starts.
                continue;
            }
            match self.try_job(key.2, tried, false, jobs, cluster, now, out) {
                Outcome::Done => {
                    self.main.remove(&key);
                }
                Outcome::Failed => self.main.mark_tried(&key, self.epoch),
                Outcome::Held => {}
            }
        }
    }

    /// Offers the shape queue's jobs by ascending `score` of their shape (ties: arrival,
    /// then index), skipping jobs that cannot be placed. After one job of a shape fails,
    /// the rest of that shape is skipped until resources are freed: they would fail too.
    fn shaped_pass(
        &mut self,
        score: impl Fn(&JobShape) -> f64,
        jobs: &[Job],
        cluster: &mut Cluster,
        now: f64,
        out: &mut Vec<Decision>,
    ) {
        let mut order = std::mem::take(&mut self.shape_order);
        let mut group = std::mem::take(&mut self.shape_group);
        // No policy can place more executors than the cluster has free slots for: on a
        // saturated cluster most shapes fail here, without a policy call (free capacity
        // only shrinks during a pass, so the test holds for the whole pass). The total
        // free capacity answers most shapes in O(1), the slots count (stopping once it
        // has enough) the rest.
        let free = cluster
            .total_capacity
            .minus(&cluster.used())
            .unwrap_or(Resources::ZERO);
        let may_fit = |s: &JobShape| {
            free.fits(&s.demand.times(s.executors)) && cluster.has_slots(&s.demand, s.executors)
        };
        self.shaped
            .pass_order(self.epoch, score, may_fit, &mut order);
        let mut i = 0;
        while i < order.len() {
            // One group: the classes of equal score, merged by their first job's key.
            group.clear();
            let s = order[i].0;
            while i < order.len() && order[i].0.total_cmp(&s).is_eq() {
                let class = order[i].1;
                group.extend(self.shaped.first(class).map(|k| Reverse((k, class))));
                i += 1;
            }
            while let Some(Reverse((key, class))) = group.pop() {
                // Placements earlier in the pass may have used the room the shape needs.
                let shape = JobShape::of(&jobs[key.1]);
                let outcome = if cluster.has_slots(&shape.demand, shape.executors) {
                    self.try_job(key.1, u64::MAX, false, jobs, cluster, now, out)
                } else {
                    Outcome::Failed
                };
                match outcome {
                    Outcome::Done => {
                        self.shaped.take(class, &key);
                        self.forget_latest_start(key.1, &jobs[key.1]);
                        group.extend(self.shaped.first(class).map(|k| Reverse((k, class))));
                    }
                    Outcome::Failed | Outcome::Held => self.shaped.mark_failed(class, self.epoch),
                }
            }
        }
        self.shape_order = order;
        self.shape_group = group;
    }

    /// Admission control of the shape queue before a pass: drops every job that can no
    /// longer meet its deadline, now + T_C^L > deadline (the first test of `try_job`),
    /// visiting only jobs whose latest start is due (up to a rounding tolerance).
    fn drop_late(&mut self, jobs: &[Job], now: f64, out: &mut Vec<Decision>) {
        let tol = 4.0 * f64::EPSILON * (1.0 + now.abs() + self.max_deadline);
        let late: Vec<usize> = self
            .latest_start
            .iter()
            .take_while(|(ls, _)| ls.0 <= now + tol)
            .map(|&(_, idx)| idx)
            .filter(|&idx| {
                jobs[idx]
                    .deadline
                    .is_some_and(|d| now + jobs[idx].t_local > d)
            })
            .collect();
        for idx in late {
            let job = &jobs[idx];
            self.forget_latest_start(idx, job);
            self.shaped.remove(JobShape::of(job), job.arrival, idx);
            out.push(Decision::Dropped { job: idx });
        }
    }

    /// Admission, then placement of one job; `behind_hold`: an earlier job of this walk is
    /// held by the budget (see [`Scheduler::set_budget_per_hour`]).
    #[allow(clippy::too_many_arguments)]
    fn try_job(
        &mut self,
        idx: usize,
        tried: u64,
        behind_hold: bool,
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
        let placed = self.ask(job, cluster, now);
        let elapsed = t0.elapsed().as_secs_f64();
        self.times.seconds.push(elapsed);
        self.pass_elapsed += elapsed;
        let Some(mut placement) = placed else {
            return Outcome::Failed;
        };
        let cap = self.caps.get(idx).copied().unwrap_or(f64::INFINITY);
        let mut cost = None;
        if self.measure_gap || cap.is_finite() {
            let chosen = placement_cost(job, cluster, now, &placement);
            let optimum = if self.policy.name() == self.optimum.name() {
                None
            } else {
                self.optimum.place(job, cluster, now)
            };
            let optimal = optimum
                .as_ref()
                .map_or(chosen, |p| placement_cost(job, cluster, now, p).min(chosen));
            let mut taken = chosen;
            if chosen > cap {
                match optimum {
                    Some(p) if optimal <= cap => {
                        placement = p;
                        taken = optimal;
                    }
                    _ => {
                        let hold = Hold::CostCap {
                            cheapest: optimal,
                            cap,
                        };
                        out.push(Decision::Held { job: idx, hold });
                        return Outcome::Held;
                    }
                }
            }
            if self.measure_gap {
                cost = Some(DecisionCost {
                    chosen: taken,
                    optimal,
                });
            }
        }
        if let Some(budget) = self.budget_per_s {
            let over =
                |added: f64| added > 0.0 && fleet_with(cluster, added) > budget * (1.0 + 1e-9);
            let added = added_price(cluster, &placement);
            if over(added) {
                // The placement that turns on the cheapest VMs, if it is within the
                // budget (and the job's cost cap).
                let cheapest = crate::budget::cheapest_price_placement(job, cluster);
                let least = cheapest.as_ref().map_or(added, |c| c.1.min(added));
                let cheaper = cheapest.filter(|(p, a)| {
                    !over(*a) && (cap.is_infinite() || placement_cost(job, cluster, now, p) <= cap)
                });
                match cheaper {
                    Some((p, _)) => {
                        // The gap is measured on the placement taken, not the policy's.
                        if let Some(c) = &mut cost {
                            c.chosen = placement_cost(job, cluster, now, &p);
                            c.optimal = c.optimal.min(c.chosen);
                        }
                        placement = p;
                    }
                    None => {
                        // The reason gives the least the fleet would cost with the job.
                        let hold = Hold::Budget {
                            fleet_per_hour: fleet_with(cluster, least) * 3600.0,
                            budget_per_hour: budget * 3600.0,
                        };
                        out.push(Decision::Held { job: idx, hold });
                        return Outcome::Held;
                    }
                }
            }
        }
        let mut start = ready_time(cluster, &placement, now, cfg.boot_latency_s);
        if cfg.charge_decision_time {
            start = start.max(now + self.pass_elapsed);
        }
        let finish = start + cfg.duration.duration(job, cluster, &placement);
        if behind_hold && let Some(budget) = self.budget_per_s {
            // Behind a held job: only what turns on no VM and keeps none on longer.
            let delays = placement.executors_per_vm.iter().any(|&(id, _)| {
                let v = cluster.vm(id);
                !v.is_active() || finish > v.busy_until
            });
            if delays {
                let hold = Hold::BehindBudget {
                    budget_per_hour: budget * 3600.0,
                };
                out.push(Decision::Held { job: idx, hold });
                return Outcome::Held;
            }
        }
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
            cost,
        });
        Outcome::Done
    }
}

/// The price the off VMs of `placement` would add to the fleet's, dollars per second.
fn added_price(cluster: &Cluster, placement: &Placement) -> f64 {
    placement
        .executors_per_vm
        .iter()
        .map(|&(id, _)| cluster.vm(id))
        .filter(|v| !v.is_active())
        .map(|v| v.price_per_second)
        .sum()
}

/// The fleet's price with `added` more, dollars per second.
fn fleet_with(cluster: &Cluster, added: f64) -> f64 {
    cluster.fleet_price_per_second() + added
}

/// The head's reservation for EASY backfilling: the earliest time ≥ `now` at which the
/// cluster has free slots for all of `head`'s executors, counting a busy VM as fully
/// free from its `busy_until` on (and not before: a conservative profile, so jobs that
/// end by this time cannot delay the head). Infinite if the cluster never has the room.
pub fn shadow_time(cluster: &Cluster, head: &Job, now: f64) -> f64 {
    let d = &head.executor_demand;
    let need = u64::from(head.executors);
    let mut slots: u64 = cluster
        .vms
        .iter()
        .map(|v| u64::from(v.free.copies_of(d)))
        .sum();
    if slots >= need {
        return now;
    }
    let mut frees: Vec<(f64, u64)> = cluster
        .vms
        .iter()
        .filter(|v| v.executors > 0)
        .map(|v| {
            let gain = u64::from(v.capacity.copies_of(d)) - u64::from(v.free.copies_of(d));
            (v.busy_until.max(now), gain)
        })
        .collect();
    frees.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (t, gain) in frees {
        slots += gain;
        if slots >= need {
            return t;
        }
    }
    f64::INFINITY
}

/// When every VM of `placement` can run executors, if it were reserved at `now`
/// ([`crate::cluster::Vm::ready_if_reserved`]).
pub fn ready_time(cluster: &Cluster, placement: &Placement, now: f64, boot_latency_s: f64) -> f64 {
    placement
        .executors_per_vm
        .iter()
        .map(|&(id, _)| cluster.vm(id).ready_if_reserved(now, boot_latency_s))
        .fold(now, f64::max)
}
