//! The discrete-event simulation engine: an event heap and a virtual clock around the
//! controller of `frugal-core` ([`Controller`]), which holds the jobs' lifecycle, the
//! cluster, the scheduler and the fleet's bill — the same code the service runs under the
//! wall clock.
//!
//! Events are ordered by (time, kind, sequence number), so runs are fully deterministic.
//! At one instant t, in this order: boots, keep-alive expiries and returns to service due
//! by t take effect ([`Controller::wake`]); jobs that end at t free their executors; VMs
//! lost or refused at t go out of service (their jobs' executors are placed again at
//! once); arrivals join the queue; then the driver (the scheduler, or an RL agent)
//! decides. The controller's module doc states the marginal-cost rule at one instant and
//! the billing rules.
//!
//! [`Simulation`] is the event core shared by every driver: [`simulate`] drives it with a
//! [`Scheduler`]; the RL environment drives it one executor at a time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::{Cluster, VmId};
use frugal_core::control::{ControlConfig, Controller, DriverConfig, Effect, Event};
use frugal_core::fleet::KeepAlive;
use frugal_core::job::Job;
use frugal_core::lifecycle::JobState;
use frugal_core::placement::Placement;
use frugal_core::policy::PlacementPolicy;
use frugal_core::queue::OrdF64;
use frugal_core::scheduler::{Scheduler, SchedulerConfig};

use crate::metrics::{JobResult, RunResult, VmRecord};

/// Settings of one simulation run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// Queue discipline, admission control, RUT, duration model and VM boot latency.
    pub scheduler: SchedulerConfig,
    /// Billing granularity of VM on-time.
    pub billing: BillingGranularity,
    /// How long an idle VM stays on before it is turned off.
    pub keep_alive: KeepAlive,
    /// Cap on the fleet's price, dollars per hour ([`Scheduler::set_budget_per_hour`]).
    pub budget_per_hour: Option<f64>,
}

impl SimConfig {
    /// `cluster` prepared for `policy` and the scheduler running it, as every run of
    /// this configuration uses them (the simulator's, and a live shell's that is to be
    /// replayed by it).
    pub fn scheduler(
        &self,
        cluster: &Cluster,
        policy: Box<dyn PlacementPolicy>,
    ) -> (Cluster, Scheduler) {
        let mut cluster = cluster.clone();
        cluster.keep_busy_groups(policy.ranks_by_remaining_time());
        let mut scheduler = Scheduler::new(policy, self.scheduler);
        scheduler.set_budget_per_hour(self.budget_per_hour);
        (cluster, scheduler)
    }

    /// The controller's billing and keep-alive.
    pub fn control(&self) -> ControlConfig {
        ControlConfig {
            billing: self.billing,
            keep_alive: self.keep_alive,
            ..ControlConfig::default()
        }
    }
}

/// Something that happens to a VM during a run, as the service can suffer it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum VmEventKind {
    /// The VM's host stopped answering: its executors are lost, its bill stops.
    Lost,
    /// The provider refused the VM's last power-on: it never ran and costs nothing.
    Refused,
}

/// A VM event at a time (seconds from the run's start).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VmEvent {
    /// When.
    pub at_s: f64,
    /// Which VM.
    pub vm: VmId,
    /// What.
    pub event: VmEventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Finish(usize),
    Cancel(usize),
    Vm(VmId, VmEventKind),
    Arrival(usize),
    /// The controller has something to do on its own (a keep-alive runs out, a boot
    /// completes, a lost VM returns): a pass, as the service's loop wakes for one.
    Wake,
}

impl EventKind {
    fn priority(&self) -> u8 {
        match self {
            EventKind::Finish(_) => 0,
            EventKind::Cancel(_) => 1,
            EventKind::Vm(..) => 2,
            EventKind::Arrival(_) => 3,
            EventKind::Wake => 4,
        }
    }
}

/// How long a job really runs, when a replay knows it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RunTime {
    /// This many seconds from its start, wherever it runs.
    Seconds(f64),
    /// This multiple of the model's estimate for the placement it gets (a run time
    /// measured under one placement, carried to another).
    Factor(f64),
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

/// The event core: clock, event queue and the controller of one run of `jobs` on a
/// cluster. Drivers call [`Simulation::advance`] to move to the next instant, reserve
/// resources and start jobs (or [`Simulation::schedule`] with a scheduler), and
/// [`Simulation::finish`] for the results. Job `j` lives in the controller's slot `j`.
pub struct Simulation<J: AsRef<[Job]>> {
    cfg: SimConfig,
    /// The controller over the run's jobs (read in place, not copied).
    ctl: Controller<J>,
    /// The controller's effects of one event (a buffer kept between events).
    effects: Vec<Effect>,
    events: BinaryHeap<EventKey>,
    seq: u64,
    now: f64,
    /// Measured run times replacing the estimates, per job.
    run_times: Option<Vec<Option<RunTime>>>,
    /// A cancellation or VM event happened at the current instant (the driver decides
    /// again).
    changed_now: bool,
    /// Jobs that end failed.
    failed: Vec<bool>,
    /// The pending wake event's time, if one is queued.
    wake_at: Option<f64>,
}

/// Simulates `jobs` (indexed by position) on `cluster` (which must be all off) with
/// `policy`, returning per-job and per-VM records and the summary metrics.
pub fn simulate(
    cluster: &Cluster,
    jobs: &[Job],
    policy: Box<dyn PlacementPolicy>,
    cfg: SimConfig,
) -> RunResult {
    simulate_with(cluster, jobs, policy, cfg, &Inputs::default())
}

/// What a replay adds to a workload: measured run times, cancellations and what the VMs
/// suffered. At one instant, in order: jobs end, cancellations, VM events, arrivals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    /// Per job, how long it really runs (replacing the model's estimate for when it ends,
    /// not the scheduler's estimate); `None` for the estimate.
    pub run_times: Option<Vec<Option<RunTime>>>,
    /// Per job, when the scheduler first had it (seconds), if later than its arrival (a
    /// service's pass after its submission); the job keeps its arrival for ordering,
    /// waits and deadlines.
    pub offered_at: Option<Vec<Option<f64>>>,
    /// Per job, when its user cancelled it (seconds): a queued job leaves the queue, a
    /// running one stops.
    pub cancels: Vec<(usize, f64)>,
    /// Jobs that end failed (at their run time) rather than completed.
    pub failures: Vec<usize>,
    /// VM losses and refused power-ons.
    pub vm_events: Vec<VmEvent>,
}

/// [`simulate`] with a replay's [`Inputs`].
pub fn simulate_with(
    cluster: &Cluster,
    jobs: &[Job],
    policy: Box<dyn PlacementPolicy>,
    cfg: SimConfig,
    inputs: &Inputs,
) -> RunResult {
    let (cluster, scheduler) = cfg.scheduler(cluster, policy);
    let ctl = Controller::over(
        jobs,
        &cluster,
        Some(scheduler),
        cfg.control(),
        DriverConfig::default(),
    );
    let mut sim = Simulation::arriving(ctl, cfg, inputs.offered_at.as_deref());
    sim.run_times = inputs.run_times.clone();
    sim.failed = vec![false; jobs.len()];
    for &j in &inputs.failures {
        sim.failed[j] = true;
    }
    for e in &inputs.vm_events {
        sim.push(e.at_s, EventKind::Vm(e.vm, e.event));
    }
    for &(j, at) in &inputs.cancels {
        sim.push(at, EventKind::Cancel(j));
    }
    while let Some(batch) = sim.advance() {
        if batch.arrived.is_empty() && batch.finished.is_empty() && !sim.changed_now {
            continue;
        }
        sim.schedule();
    }
    let name = sim.ctl.scheduler().policy_name();
    let times = sim.ctl.scheduler().decision_times().seconds.clone();
    sim.finish(name, times)
}

impl<J: AsRef<[Job]>> Simulation<J> {
    /// A run of `jobs` on `cluster` (its VMs are turned off and emptied first) driven
    /// one executor at a time ([`Simulation::reserve`], [`Simulation::start`]), with
    /// every arrival queued as an event.
    pub fn new(cluster: &Cluster, jobs: J, cfg: SimConfig) -> Self {
        let driver = DriverConfig {
            duration: cfg.scheduler.duration,
            boot_latency_s: cfg.scheduler.boot_latency_s,
        };
        let ctl = Controller::over(jobs, cluster, None, cfg.control(), driver);
        Simulation::arriving(ctl, cfg, None)
    }

    /// A run driven by `scheduler` ([`Simulation::schedule`]).
    pub fn with_scheduler(
        cluster: &Cluster,
        jobs: J,
        cfg: SimConfig,
        scheduler: Scheduler,
    ) -> Self {
        let driver = DriverConfig::default();
        let ctl = Controller::over(jobs, cluster, Some(scheduler), cfg.control(), driver);
        Simulation::arriving(ctl, cfg, None)
    }

    fn arriving(ctl: Controller<J>, cfg: SimConfig, offered: Option<&[Option<f64>]>) -> Self {
        let arrivals: Vec<f64> = ctl
            .jobs()
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let late = offered.and_then(|o| o.get(i).copied().flatten());
                late.map_or(j.arrival, |t| t.max(j.arrival))
            })
            .collect();
        let mut sim = Simulation {
            cfg,
            ctl,
            effects: Vec::new(),
            events: BinaryHeap::with_capacity(arrivals.len() * 2),
            seq: 0,
            now: 0.0,
            run_times: None,
            changed_now: false,
            failed: Vec::new(),
            wake_at: None,
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
        self.ctl.cluster()
    }

    /// The cluster as built: every VM off and free.
    pub fn empty_cluster(&self) -> &Cluster {
        self.ctl.empty_cluster()
    }

    /// The jobs of this run.
    pub fn jobs(&self) -> &[Job] {
        self.ctl.jobs()
    }

    /// The controller (the jobs' states, the fleet's bill).
    pub fn controller(&self) -> &Controller<J> {
        &self.ctl
    }

    /// Dollars billed so far: closed power-on intervals plus VMs on, up to now.
    pub fn accrued_cost(&self) -> f64 {
        self.ctl.fleet().cost(self.now)
    }

    /// The settings of this run.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// True if no event is left.
    pub fn is_idle(&self) -> bool {
        self.events.is_empty()
    }

    /// Jobs started and not yet finished.
    pub fn running_jobs(&self) -> usize {
        self.ctl.running()
    }

    fn push(&mut self, time: f64, kind: EventKind) {
        self.seq += 1;
        self.events
            .push(Reverse((OrdF64(time), kind.priority(), self.seq, kind)));
    }

    /// Moves to the next instant with an event and processes its events; returns the jobs
    /// that arrived and finished, or `None` when no event is left.
    pub fn advance(&mut self) -> Option<Batch> {
        let &Reverse((OrdF64(t), ..)) = self.events.peek()?;
        self.now = t;
        self.ctl.handle(Event::Tick, t);
        self.changed_now = false;
        let mut batch = Batch::default();
        while let Some(&Reverse((OrdF64(u), ..))) = self.events.peek() {
            if u != t {
                break;
            }
            let Some(Reverse((.., kind))) = self.events.pop() else {
                break;
            };
            match kind {
                EventKind::Finish(j) => {
                    if self.ctl.get(j).is_some_and(|r| {
                        r.state == JobState::Running
                            // Under contention an end the controller has moved since is
                            // stale: the job ends at its new one.
                            && (!self.ends_move() || r.finish == Some(t))
                    }) {
                        let end = if self.failed.get(j).copied().unwrap_or(false) {
                            JobState::Failed
                        } else {
                            JobState::Completed
                        };
                        let event = Event::Finish {
                            job: j,
                            state: end,
                            reason: None,
                        };
                        self.handle(event, t);
                        batch.finished.push(j);
                    }
                }
                EventKind::Cancel(j) => {
                    if self.ctl.get(j).is_some() {
                        self.changed_now = true;
                        self.handle(Event::Cancel { job: j }, t);
                    }
                }
                EventKind::Vm(vm, what) => {
                    self.changed_now = true;
                    let effects = match what {
                        VmEventKind::Lost => {
                            let reason = "lost (replayed)".to_string();
                            self.ctl.handle(Event::VmLost { vm, reason }, t)
                        }
                        VmEventKind::Refused => {
                            if !self.ctl.fleet().is_on(vm) {
                                continue;
                            }
                            let reason = "power-on refused (replayed)".to_string();
                            self.ctl.handle(Event::PowerOnRefused { vm, reason }, t)
                        }
                    };
                    self.follow(&effects);
                }
                EventKind::Wake => {
                    self.wake_at = None;
                    self.changed_now = true;
                }
                EventKind::Arrival(j) => {
                    let event = if self.ctl.has_scheduler() {
                        Event::Arrive {
                            job: j,
                            max_cost_usd: None,
                        }
                    } else {
                        Event::ArriveUnqueued { job: j }
                    };
                    self.ctl.handle(event, t);
                    batch.arrived.push(j);
                }
            }
        }
        Some(batch)
    }

    /// Runs the scheduler's pass at the current instant and books what it started; queues
    /// a wake-up for the next instant the controller has something to do on its own.
    pub fn schedule(&mut self) {
        self.handle(Event::Schedule, self.now);
        if let Some(t) = self.ctl.next_wake().filter(|&t| t > self.now)
            && self.wake_at.is_none_or(|w| t < w)
        {
            self.wake_at = Some(t);
            self.push(t, EventKind::Wake);
        }
    }

    /// Hands `event` at `t` to the controller and follows its effects.
    fn handle(&mut self, event: Event, t: f64) {
        let mut effects = std::mem::take(&mut self.effects);
        effects.clear();
        self.ctl.handle_into(event, t, &mut effects);
        self.follow(&effects);
        self.effects = effects;
    }

    /// Books the ends of jobs the controller started (at their estimated finish, or their
    /// measured run time after their start).
    fn follow(&mut self, effects: &[Effect]) {
        let ends_move = self.ends_move();
        for e in effects {
            if let Effect::Changed(j) = *e
                && ends_move
                && !effects.contains(&Effect::Launch(j))
                && let Some(r) = self.ctl.get(j).filter(|r| r.state == JobState::Running)
            {
                // A running job's end moved (contention): it ends at the new one.
                let end = r.finish.expect("a running job has an estimated end");
                self.push(end, EventKind::Finish(j));
            }
            if let Effect::Launch(j) = *e {
                let r = self.ctl.record(j);
                let start = r.start.expect("a launched job has started");
                let estimate = r.finish.expect("a launched job has an estimated end");
                let end = match self
                    .run_times
                    .as_ref()
                    .and_then(|m| m.get(j).copied().flatten())
                {
                    None => estimate,
                    Some(RunTime::Seconds(d)) => start + d,
                    Some(RunTime::Factor(f)) => start + f * (estimate - start),
                };
                self.push(end, EventKind::Finish(j));
            }
        }
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
        self.ctl.reserve(job, placement, self.now)
    }

    /// Records that `job` can never be placed (a driver that places executors itself).
    pub fn reject(&mut self, job: usize) {
        self.ctl.handle(Event::Reject { job }, self.now);
    }

    /// Starts `job`, whose executors are reserved as `placement`, running from `start`
    /// to `finish` (seconds).
    pub fn start(&mut self, job: usize, placement: Placement, start: f64, finish: f64) {
        let event = Event::Start {
            job,
            placement,
            start,
            finish,
        };
        let mut effects = std::mem::take(&mut self.effects);
        effects.clear();
        self.ctl.handle_into(event, self.now, &mut effects);
        let end = self.ctl.record(job).finish.unwrap_or(finish);
        self.push(end, EventKind::Finish(job));
        self.follow(&effects);
        self.effects = effects;
    }

    /// True if jobs end at their predicted ends and those move: a contention model with
    /// no measured run times.
    fn ends_move(&self) -> bool {
        self.cfg.scheduler.duration.contention.is_some() && self.run_times.is_none()
    }

    /// Ends the run: boots, keep-alives and VMs still on are settled at the last event's
    /// time (or the last keep-alive expiry). `policy` names the run; `decision_seconds`
    /// are the driver's decision times.
    pub fn finish(mut self, policy: &str, decision_seconds: Vec<f64>) -> RunResult {
        let end = self.ctl.next_wake().map_or(self.now, |w| w.max(self.now));
        self.ctl.handle(Event::Close, end);
        let cluster = self.ctl.cluster();
        let vms = cluster
            .vms
            .iter()
            .map(|v| VmRecord {
                id: v.id,
                instance_type: cluster.instance_types[v.instance_type].name.clone(),
                site: v.site,
                price_per_second: v.price_per_second,
                intervals: self.ctl.fleet().intervals(v.id, end),
            })
            .collect();
        // Moved out of the controller, which the run no longer needs; the collect reuses
        // the records' buffer (a metrics record is no larger, which the assertion below
        // keeps true), so a run of a million jobs does not hold both tables at once.
        const _: () = assert!(
            std::mem::size_of::<JobResult>()
                <= std::mem::size_of::<Option<frugal_core::control::JobRecord>>()
        );
        let records = self
            .ctl
            .take_records()
            .into_iter()
            .enumerate()
            .map(|(j, c)| {
                let mut r = JobResult::waiting(self.ctl.job(j));
                if let Some(c) = c {
                    r.status = c.state;
                    r.start = c.start;
                    // Only a started job has a finish in the records (a drop has none).
                    r.finish = c.start.and(c.finish);
                    r.hybrid = c.hybrid;
                    r.kind_mismatch = c.kind_mismatch;
                    if let Some(p) = c.placement {
                        r.placement = p.executors_per_vm;
                    }
                }
                r
            })
            .collect();
        let u = self.ctl.utilisation();
        RunResult::new(
            policy,
            self.cfg,
            records,
            vms,
            [u[0], u[1]],
            decision_seconds,
        )
    }
}
