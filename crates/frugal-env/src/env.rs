//! The stepping environment.

use std::collections::VecDeque;
use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_core::cluster::Cluster;
use frugal_core::job::Job;
use frugal_core::placement::Placement;
use frugal_core::{BillingGranularity, DurationModel, QueueDiscipline, Rut, SchedulerConfig};
use frugal_sim::{Batch, RunResult, SimConfig, Simulation};

use crate::observation::{ObservationScale, encode, observation_len};
use crate::reward::{EpisodeKpis, episodic_reward, mean_duration};

/// How invalid actions are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Paper 002 Table 3: an invalid action (a VM without room, an executor of a job the
    /// cluster cannot hold whole now — the authors' environment ends such an episode too,
    /// for the "resource shortage" it would cause — a wait after placing part of a job, a
    /// wait while no job runs, which nothing could end) ends the episode with the invalid
    /// reward.
    Paper,
    /// An action mask marks the feasible actions (the same rules); an action outside it is
    /// ignored and earns the invalid reward without ending the episode.
    Masked,
}

frugal_core::choice! {
    impl Choice for Mode {
        Masked = "masked": "Action masks; an infeasible action is ignored with the invalid reward",
        Paper = "paper": "An infeasible action ends the episode with −200 (paper 002 Table 3)",
    }
}

/// Settings of [`SparkPlacementEnv`].
#[derive(Clone, Debug)]
pub struct EnvConfig {
    /// The cluster (N VMs: actions 1..=N).
    pub cluster: Cluster,
    /// Job lists; each episode replays one, drawn with the reset seed.
    pub workloads: Vec<Arc<[Job]>>,
    /// Invalid-action handling.
    pub mode: Mode,
    /// Weight of cost against run time in the episodic reward, β ∈ [0, 1] (Eq. 6, 14).
    pub beta: f64,
    /// R_fixed of Eq. 14 (paper: 10,000).
    pub r_fixed: f64,
    /// Reward of an invalid action (paper: −200).
    pub invalid_reward: f64,
    /// Reward of a valid wait (paper: −1).
    pub wait_reward: f64,
    /// Reward of a valid executor placement (paper: +1).
    pub place_reward: f64,
    /// Billing, keep-alive, boot latency and duration model (queue settings are unused:
    /// the agent decides).
    pub sim: SimConfig,
}

impl EnvConfig {
    /// Paper 002 settings (Table 3 rewards, Table 5 R_fixed = 10,000) on `cluster` and
    /// `workloads`, per-second billing, VMs off as soon as idle, the default duration model
    /// (30 % slowdown for a placement against the job kind).
    pub fn paper002(
        cluster: Cluster,
        workloads: Vec<Arc<[Job]>>,
        mode: Mode,
        beta: f64,
    ) -> EnvConfig {
        EnvConfig {
            cluster,
            workloads,
            mode,
            beta,
            r_fixed: 10_000.0,
            invalid_reward: -200.0,
            wait_reward: -1.0,
            place_reward: 1.0,
            sim: SimConfig {
                scheduler: SchedulerConfig {
                    discipline: QueueDiscipline::Fcfs,
                    admission_control: false,
                    rut: Rut::default(),
                    duration: DurationModel::default(),
                    boot_latency_s: 0.0,
                    charge_decision_time: false,
                    backfill: frugal_core::Backfill::None,
                },
                billing: BillingGranularity::PerSecond,
                keep_alive: Default::default(),
                budget_per_hour: None,
            },
        }
    }
}

/// Misuse of the environment.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EnvError {
    /// `step` after the episode ended; call `reset`.
    #[error("the episode is over: call reset")]
    EpisodeOver,
    /// The action is not in 0..=N.
    #[error("action {action} is outside 0..={max}")]
    ActionOutOfRange {
        /// The action.
        action: usize,
        /// N, the number of VMs.
        max: usize,
    },
    /// The configuration cannot run an episode.
    #[error("invalid configuration: {0}")]
    Config(String),
}

/// Outcome of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Immediate reward (plus R_epi on the last placement of a successful episode).
    pub reward: f64,
    /// The episode ended: every job scheduled, or an invalid action in paper mode.
    pub terminated: bool,
    /// Always false: episodes are bounded by the events of the workload.
    pub truncated: bool,
}

/// Executor placement as a sequential decision problem (paper 002 §4).
///
/// Observation (length `3N + 6`, every value in [0, 1]): for each VM its free cores and
/// free memory over the largest VM's, and its price over the highest price; then the
/// current job's kind one-hot (cpu, memory, network bound), executor cores and memory over
/// the largest VM's, and executors left to place over the largest E of the workloads.
pub struct SparkPlacementEnv {
    cfg: EnvConfig,
    rng: ChaCha8Rng,
    sim: Option<Simulation<Arc<[Job]>>>,
    episode_jobs: Arc<[Job]>,
    queue: VecDeque<usize>,
    /// Current job and the executors placed so far, with the latest VM ready time.
    current: Option<(usize, Placement, f64)>,
    scheduled: usize,
    done: bool,
    result: Option<RunResult>,
    obs: Vec<f32>,
    mask: Vec<bool>,
    scale: ObservationScale,
}

impl SparkPlacementEnv {
    /// A new environment; call [`SparkPlacementEnv::reset`] before stepping.
    ///
    /// # Errors
    /// [`EnvError::Config`] for no workload, an empty workload, β outside [0, 1], or a
    /// cluster without VMs.
    pub fn new(cfg: EnvConfig) -> Result<Self, EnvError> {
        if cfg.workloads.is_empty() || cfg.workloads.iter().any(|w| w.is_empty()) {
            return Err(EnvError::Config("no jobs to schedule".into()));
        }
        if !(0.0..=1.0).contains(&cfg.beta) {
            return Err(EnvError::Config(format!(
                "beta must be in [0, 1], got {}",
                cfg.beta
            )));
        }
        if cfg.cluster.is_empty() {
            return Err(EnvError::Config("the cluster has no VM".into()));
        }
        let max_e = cfg
            .workloads
            .iter()
            .flat_map(|w| w.iter().map(|j| j.executors))
            .max()
            .unwrap_or(1);
        let scale = ObservationScale::new(&cfg.cluster, max_e);
        let c = &cfg.cluster;
        let n = c.len();
        let episode_jobs = Arc::clone(&cfg.workloads[0]);
        Ok(SparkPlacementEnv {
            cfg,
            rng: ChaCha8Rng::seed_from_u64(0),
            sim: None,
            episode_jobs,
            queue: VecDeque::new(),
            current: None,
            scheduled: 0,
            done: true,
            result: None,
            obs: vec![0.0; observation_len(n)],
            mask: vec![false; n + 1],
            scale,
        })
    }

    /// Number of actions, N + 1.
    pub fn action_count(&self) -> usize {
        self.cfg.cluster.len() + 1
    }

    /// Length of the observation vector, 3N + 6.
    pub fn observation_len(&self) -> usize {
        self.obs.len()
    }

    /// The settings.
    pub fn config(&self) -> &EnvConfig {
        &self.cfg
    }

    /// Starts an episode: the workload is drawn with `seed` (when given; otherwise the
    /// environment's own generator continues), the cluster is all off, time is at the
    /// first arrival. Returns the first observation.
    pub fn reset(&mut self, seed: Option<u64>) -> &[f32] {
        if let Some(s) = seed {
            self.rng = ChaCha8Rng::seed_from_u64(s);
        }
        let w = self.rng.random_range(0..self.cfg.workloads.len());
        self.episode_jobs = Arc::clone(&self.cfg.workloads[w]);
        self.sim = Some(Simulation::new(
            &self.cfg.cluster,
            Arc::clone(&self.episode_jobs),
            self.cfg.sim,
        ));
        self.queue.clear();
        self.current = None;
        self.scheduled = 0;
        self.done = false;
        self.result = None;
        self.settle();
        self.refresh();
        &self.obs
    }

    /// The live cluster (None before the first reset).
    pub fn cluster(&self) -> Option<&Cluster> {
        self.sim.as_ref().map(|s| s.cluster())
    }

    /// The job being placed and how many of its executors are still to place.
    pub fn current_job(&self) -> Option<(&Job, u32)> {
        let sim = self.sim.as_ref()?;
        let (j, placement, _) = self.current.as_ref()?;
        let job = &sim.jobs()[*j];
        Some((job, job.executors - placement.executors()))
    }

    /// A text picture of the state (Gymnasium's `render_mode="ansi"`): the clock, the
    /// bill so far, the job being placed and each VM's power state and free capacity.
    pub fn render_text(&self) -> String {
        use std::fmt::Write;
        let Some(cluster) = self.cluster() else {
            return "not started: call reset()\n".to_string();
        };
        let k = self.kpis();
        let mut s = format!(
            "t = {:.1} s, cost ${:.4}, jobs scheduled {}/{}\n",
            k.time_s, k.cost, k.jobs_scheduled, k.jobs_total
        );
        match self.current_job() {
            Some((job, left)) => writeln!(
                s,
                "job {} ({}): {left} of {} executors of {} to place",
                job.id,
                job.kind.as_str(),
                job.executors,
                job.executor_demand
            ),
            None => writeln!(s, "no job to place"),
        }
        .expect("writing to a String");
        for v in &cluster.vms {
            let state = if v.is_active() { "on " } else { "off" };
            writeln!(
                s,
                "vm {:>3} {:<10} {:<5} {state} free {:>3}/{:<3} cores {:>7.1}/{:<7.1} GiB  {} executors",
                v.id,
                cluster.instance_types[v.instance_type].name,
                v.site.as_str(),
                v.free.cores(),
                v.capacity.cores(),
                v.free.memory_gib(),
                v.capacity.memory_gib(),
                v.executors
            )
            .expect("writing to a String");
        }
        s
    }

    /// Current simulated time, seconds.
    pub fn now(&self) -> f64 {
        self.sim.as_ref().map_or(0.0, |s| s.now())
    }

    /// The current observation.
    pub fn observation(&self) -> &[f32] {
        &self.obs
    }

    /// Feasible actions (index 0: wait; i: a VM i − 1 with room for one more executor).
    pub fn action_mask(&self) -> &[bool] {
        &self.mask
    }

    /// True once the episode has ended.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The results of the finished episode (None while running or after an invalid end).
    pub fn result(&self) -> Option<&RunResult> {
        self.result.as_ref()
    }

    /// KPIs so far (complete once the episode has ended successfully).
    pub fn kpis(&self) -> EpisodeKpis {
        let total = self.episode_jobs.len();
        match (&self.result, &self.sim) {
            (Some(r), _) => EpisodeKpis {
                time_s: r.jobs.iter().filter_map(|j| j.finish).fold(0.0, f64::max),
                cost: r.summary.total_cost,
                jobs_scheduled: self.scheduled,
                jobs_total: total,
                mean_duration_s: mean_duration(r),
                mean_jct_s: r.summary.mean_jct_s,
                deadline_met_pct: r.summary.deadline_met_pct,
            },
            (None, Some(s)) => EpisodeKpis {
                time_s: s.now(),
                cost: s.accrued_cost(),
                jobs_scheduled: self.scheduled,
                jobs_total: total,
                ..EpisodeKpis::default()
            },
            (None, None) => EpisodeKpis::default(),
        }
    }

    /// Takes `action` (0: wait; i ≥ 1: one executor of the current job on VM i − 1).
    ///
    /// # Errors
    /// [`EnvError::EpisodeOver`] after the end of an episode (or before the first reset),
    /// [`EnvError::ActionOutOfRange`] for an action above N.
    pub fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        if self.done {
            return Err(EnvError::EpisodeOver);
        }
        let n = self.cfg.cluster.len();
        if action > n {
            return Err(EnvError::ActionOutOfRange { action, max: n });
        }
        if !self.mask[action] {
            return Ok(self.invalid());
        }
        let reward = if action == 0 {
            self.wait();
            self.cfg.wait_reward
        } else {
            self.place(action - 1);
            self.cfg.place_reward
        };
        let mut step = Step {
            reward,
            terminated: false,
            truncated: false,
        };
        if self.current.is_none() && self.queue.is_empty() && self.all_arrived_and_scheduled() {
            step.reward += self.finish_episode();
            step.terminated = true;
        }
        self.refresh();
        Ok(step)
    }

    fn invalid(&mut self) -> Step {
        let terminated = self.cfg.mode == Mode::Paper;
        if terminated {
            self.done = true;
            self.refresh();
        }
        Step {
            reward: self.cfg.invalid_reward,
            terminated,
            truncated: false,
        }
    }

    fn sim(&mut self) -> &mut Simulation<Arc<[Job]>> {
        self.sim.as_mut().expect("reset was called")
    }

    /// Advances to the next instant with an event and takes in its arrivals.
    fn wait(&mut self) {
        if let Some(batch) = self.sim().advance() {
            self.take_in(batch);
        }
        self.settle();
    }

    fn take_in(&mut self, batch: Batch) {
        for j in batch.arrived {
            let sim = self.sim.as_ref().expect("reset was called");
            let job = &sim.jobs()[j];
            if sim
                .empty_cluster()
                .capacity_slots(&job.executor_demand, |_| true)
                >= u64::from(job.executors)
            {
                self.queue.push_back(j);
            } else {
                self.sim().reject(j);
                self.scheduled += 1;
            }
        }
    }

    /// Makes sure a job is offered, moving time to the next arrival when none waits.
    fn settle(&mut self) {
        while self.current.is_none() {
            if let Some(j) = self.queue.pop_front() {
                let now = self.sim.as_ref().expect("reset was called").now();
                self.current = Some((j, Placement::default(), now));
                return;
            }
            match self.sim().advance() {
                Some(batch) => self.take_in(batch),
                None => return,
            }
        }
    }

    fn place(&mut self, vm: usize) {
        let (j, mut placement, ready) = self.current.take().expect("a job is offered");
        let mut one = Placement::default();
        one.add(vm as u32, 1);
        let vm_ready = self
            .sim()
            .reserve(j, &one)
            .expect("the mask admits only VMs with room");
        placement.add(vm as u32, 1);
        let ready = ready.max(vm_ready);
        let sim = self.sim.as_mut().expect("reset was called");
        let job = &sim.jobs()[j];
        if placement.executors() < job.executors {
            self.current = Some((j, placement, ready));
            return;
        }
        let duration = sim
            .config()
            .scheduler
            .duration
            .duration(job, sim.cluster(), &placement);
        sim.start(j, placement, ready, ready + duration);
        self.scheduled += 1;
        self.settle();
    }

    fn all_arrived_and_scheduled(&self) -> bool {
        self.sim
            .as_ref()
            .is_some_and(|s| self.scheduled == s.jobs().len())
    }

    /// Runs the simulation to its end and returns R_epi.
    fn finish_episode(&mut self) -> f64 {
        let mut sim = self.sim.take().expect("reset was called");
        while sim.advance().is_some() {}
        let result = sim.finish("rl", Vec::new());
        self.done = true;
        let reward = episodic_reward(
            &result,
            &self.episode_jobs,
            &self.cfg.cluster,
            self.cfg.sim.scheduler.duration.kind_penalty,
            self.cfg.beta,
            self.cfg.r_fixed,
        );
        self.result = Some(result);
        reward
    }

    /// The observation normalisers (saved with trained agents).
    pub fn observation_scale(&self) -> &ObservationScale {
        &self.scale
    }

    /// Recomputes the observation and the action mask.
    fn refresh(&mut self) {
        self.mask.iter_mut().for_each(|m| *m = false);
        let Some(sim) = self.sim.as_ref() else {
            self.obs.iter_mut().for_each(|x| *x = 0.0);
            return;
        };
        let cluster = sim.cluster();
        let current = if self.done {
            None
        } else {
            self.current.as_ref()
        };
        let offered = current.map(|(j, placement, _)| {
            let job = &sim.jobs()[*j];
            (job, job.executors - placement.executors())
        });
        encode(cluster, offered, &self.scale, &mut self.obs);
        let Some((job, _)) = offered else {
            return;
        };
        let (placed, left) = current
            .map(|(j, p, _)| (p.executors(), sim.jobs()[*j].executors - p.executors()))
            .unwrap_or((0, 0));
        // A job's first executor may go only where the whole job fits now (every executor
        // of it, all or nothing, as the scheduler places jobs); once started, each
        // placement keeps the rest placeable (placing one executor takes exactly one of the
        // slots), so a job is never left half placed. RlPolicy applies the same rule.
        // One pass: a VM is placeable if one executor fits (one copy of the demand), and
        // the copies summed are the cluster's free slots (`Cluster::slots`).
        let mut slots: u64 = 0;
        for (i, v) in cluster.vms.iter().enumerate() {
            let copies = v.free.copies_of(&job.executor_demand);
            slots += u64::from(copies);
            self.mask[i + 1] = copies > 0;
        }
        if placed == 0 && slots < u64::from(left) {
            self.mask[1..].iter_mut().for_each(|m| *m = false);
        }
        // Under FCFS only a completion can make room for the offered job, so waiting is
        // feasible only before its first executor and while some job runs.
        self.mask[0] = placed == 0 && sim.running_jobs() > 0;
    }
}
