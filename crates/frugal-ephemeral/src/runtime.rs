//! The simulator: MapReduce jobs on the ephemeral part of a data centre's hosts while
//! the primary workload's utilisation is injected every 3 minutes (paper 001 §IV-A).
//!
//! **Model** (a fluid model; the paper used SimGrid with MRA++, spec §2.4):
//! - A running task on host k progresses at min(v_k, L_k/n_k) FLOP/s: v_k is a slot's
//!   speed, n_k the tasks running on k, and L_k the CPU the tasks may use — C(k)·(1 − u −
//!   S) when the controller throttles ([`Qos::Throttle`], Alg. 3), the physical residue
//!   C(k)·(1 − u) when it does not ([`Qos::KillOnAnyViolation`], Cuckoo's original).
//! - Transfers share links max-min fairly ([`crate::network`]): a map's chunk fetched
//!   from another host, a reduce's share of every map output (the shuffle, from every host
//!   that ran maps, starting when the last map ends), and, with `upload`, the client's
//!   upload of every chunk, one chunk at a time through an HDFS write pipeline (client →
//!   1st holder → 2nd → 3rd). A task holds no CPU or RAM while its input moves.
//! - Without `upload` (the default, see [`RunConfig::upload`]) every chunk is on its
//!   holders at t₀.
//!
//! **QoS controller** (Alg. 3, spec §1.10): it acts on each host when the primary load is
//! injected (every 180 s). RAM: with ramLimit = C_ram(1 − u_ram − S) and sm = S·C_ram, if
//! ramLimit > sm, kill the latest-started task while the tasks' RAM exceeds ramLimit +
//! sm/2; otherwise kill every task. Cuckoo's original controller also kills, the same
//! way, while the tasks' CPU demand n_k·v_k exceeds C(1 − u − S) + S·C/2. The paper's
//! controller polls every 100 ms; frugal checks at injections only because with 20 fixed
//! slots a check at every task start would kill and relaunch a task at every 3-s
//! heartbeat, thousands of relaunches per job, against the 59–127 % of Table III. Kills
//! lose the task's progress, not its data (chunks live on reserved storage, §III-C).
//!
//! With [`RunConfig::control_step_s`] the controller also checks every host at that
//! period from t₀ (`frugal ephemeral --control-step`), after the injection when both fall
//! at one instant.
//!
//! **Order at one instant**: transfers that end, then tasks that end (a job's shuffle
//! starts when its last map ends), then the injection and the controller (hosts in index
//! order), then task starts (Salamander: planned starts whose input is in place; Cuckoo:
//! heartbeats).
//!
//! **Drivers**: [`Driver::Plan`] (Salamander) starts each task on its planned node at
//! max(planned start, input in place); a killed task is re-planned alone by Alg. 1's rule
//! from the current second on the forecast (other tasks keep their slots, §V "we only
//! shift the plan") and becomes remote if it moves off its chunk. [`Driver::Slots`]
//! (Cuckoo) gives every host 20 map and 20 reduce slots and a heartbeat every 3 s (host k
//! at offset 3k/N s); at a heartbeat a host whose current primary load leaves room, u + S
//! < 1 for CPU and RAM (§IV-B1), fills its free slots with [`crate::cuckoo::pick_task`] —
//! all of them (`fixed`, the paper's Cuckoo) or up to Hadoop 1's load cap, one reduce per
//! heartbeat.
//! Reduces become pending when every map of their job has ended; killed tasks return to
//! pending.
//!
//! **Several jobs** (submitted together at t₀): tasks are numbered job by job, maps then
//! reduces. Each job's shuffle starts when its own last map ends; a job's time is from t₀
//! to the end of its last reduce. Cuckoo serves jobs first in, first out as Hadoop 1's
//! `JobQueueTaskScheduler` does: a free slot takes a task of the earliest job with a
//! pending task of the slot's kind (local first within that job), map and reduce slots
//! being filled at the same heartbeat; its load cap counts the unfinished tasks of all
//! jobs.

use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::cuckoo::{pick_task, tracker_capacity};
use crate::hosts::Host;
use crate::job::Task;
use crate::job::{Job, SLOTS, TaskKind, slot_flops};
use crate::network::{link_bytes_per_s, max_min};
use crate::plan::{Assignment, Plan, Problem, TaskId};
use crate::rffd::Reservations;
use crate::trace::{Metric, STEP_S, Utilisation};

/// Which run-time controller acts on violations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Qos {
    /// Salamander's Alg. 3: throttle CPU, kill only on RAM pressure.
    Throttle,
    /// Cuckoo's original: no throttling; kill on CPU or RAM violations.
    KillOnAnyViolation,
}

/// Seconds between a Cuckoo TaskTracker's heartbeats (§II-B).
pub const HEARTBEAT_S: f64 = 3.0;

/// How tasks get their host and start.
pub enum Driver<'a> {
    /// Salamander: the plan, repaired after kills with `rng`.
    Plan {
        /// The problem the plan solves (its nodes are the run's hosts, in order).
        problem: &'a Problem,
        /// A plan of `problem` with every job scheduled.
        plan: Plan,
        /// Random choices of re-planning (boxed: the generator's state is large).
        rng: Box<ChaCha8Rng>,
    },
    /// Cuckoo: Hadoop's slots and heartbeats.
    Slots {
        /// Every heartbeat fills all 20 map and 20 reduce slots of an admitting host, as
        /// the paper describes Cuckoo (§II-C, §IV-A); otherwise Hadoop 1's
        /// `JobQueueTaskScheduler` caps a tracker at ⌈load × slots⌉ and hands out one
        /// reduce per heartbeat ([`tracker_capacity`]).
        fixed: bool,
    },
}

/// One run's fixed inputs.
pub struct RunConfig<'a> {
    /// The hosts (capacities), in the order of the plan's nodes.
    pub hosts: &'a [Host],
    /// The primary workload (indexed by `Host::host`).
    pub util: &'a Utilisation,
    /// t₀ as a 3-minute step from day 1 00:00.
    pub t0_step: usize,
    /// The safety margin S (fraction, both metrics).
    pub margin: f64,
    /// The jobs, in submission order; job j's tasks are `jobs[j].tasks`.
    pub jobs: &'a [Job],
    /// Per job, per map, the hosts holding its chunk (first = where it was first placed).
    pub holders: Vec<Vec<Vec<usize>>>,
    /// Whether the client's upload of the chunks is simulated (spec A10). Off by default
    /// because one 50 Mbit/s client link needs 3.8 h for 80 GiB, which would dominate the
    /// job time of every strategy alike.
    pub upload: bool,
    /// The controller.
    pub qos: Qos,
    /// Seconds between the controller's checks of every host besides the ones at each
    /// injection of the primary load; `None`: at injections only (every 180 s, the
    /// default). The paper's controller polls every 100 ms (§IV-B2); `Some(3.0)` checks
    /// at every heartbeat period, to measure what the coarser clock hides.
    pub control_step_s: Option<f64>,
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMetrics {
    /// Mean over the jobs of [`RunMetrics::job_times_s`], seconds.
    pub job_time_s: f64,
    /// Per job, from t₀ to the end of its last reduce, seconds.
    pub job_times_s: Vec<f64>,
    /// Kills (each followed by a relaunch).
    pub kills: usize,
    /// Maps whose successful run was on a host without their chunk.
    pub remote_maps: usize,
    /// Kills after which re-planning found no room in the forecast (the task then restarts
    /// on its host at once).
    pub replan_failures: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Not yet assigned (Cuckoo) or waiting for its input / planned start.
    Waiting,
    /// Running on its host.
    Running,
    Done,
}

#[derive(Clone, Debug)]
struct TaskRt {
    phase: Phase,
    host: Option<usize>,
    planned: f64,
    /// Input transfers still moving to `host`.
    fetching: usize,
    /// Whether its input is on `host` (or moving there).
    input_ready: bool,
    left: f64,
    started: f64,
    remote: bool,
}

struct Flow {
    links: Vec<usize>,
    left: f64,
    rate: f64,
    carries: Carries,
}

/// What a transfer moves.
enum Carries {
    /// The client's upload of a map's chunk to its holders.
    Upload(usize),
    /// Input of a task to its host (a chunk or a shuffle share).
    Input(usize),
}

const EPS: f64 = 1e-9;

/// The simulator's state. Tasks are indexed job by job ([`RunConfig::jobs`]); `ids` maps
/// that flat index to (job, index in the job).
struct Sim<'a, 'b> {
    c: &'b RunConfig<'a>,
    now: f64,
    step: usize,
    ids: Vec<TaskId>,
    tasks: Vec<TaskRt>,
    flows: Vec<Flow>,
    rates_stale: bool,
    /// Per task: whether its chunk is on its holders (reduces: always).
    uploaded: Vec<bool>,
    next_upload: usize,
    upload_order: Vec<usize>,
    /// Per job, bytes of map output on each host.
    map_output: Vec<Vec<f64>>,
    maps_left: Vec<usize>,
    reduces_left: Vec<usize>,
    pending: Vec<usize>,
    /// Per host, the last heartbeat at which Cuckoo's driver served it.
    served: Vec<f64>,
    /// The next check of [`RunConfig::control_step_s`] (∞ without it).
    next_check: f64,
    out: RunMetrics,
}

/// Simulates the jobs and returns what it measured; `None` if they have not all ended
/// after 30 simulated days (a plan or configuration that cannot make progress).
pub fn run(c: &RunConfig<'_>, mut driver: Driver<'_>) -> Option<RunMetrics> {
    let t0 = f64::from(STEP_S) * c.t0_step as f64;
    let ids: Vec<TaskId> = c
        .jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| (0..job.tasks.len()).map(move |i| (j, i)))
        .collect();
    let flat = |id: TaskId| ids.partition_point(|&x| x < id);
    let mut tasks = vec![
        TaskRt {
            phase: Phase::Waiting,
            host: None,
            planned: t0,
            fetching: 0,
            input_ready: false,
            left: 0.0,
            started: 0.0,
            remote: false,
        };
        ids.len()
    ];
    if let Driver::Plan { plan, .. } = &driver {
        for (id, a) in plan.tasks() {
            let i = flat(id);
            tasks[i].host = Some(a.node);
            tasks[i].planned = t0 + f64::from(a.start);
        }
    }
    let is_map = |i: usize| c.jobs[ids[i].0].tasks[ids[i].1].kind == TaskKind::Map;
    let maps: Vec<usize> = (0..ids.len()).filter(|&i| is_map(i)).collect();
    let mut upload_order = maps.clone();
    upload_order.sort_by(|&a, &b| {
        tasks[a]
            .planned
            .total_cmp(&tasks[b].planned)
            .then(a.cmp(&b))
    });
    let uploaded = (0..ids.len()).map(|i| !(c.upload && is_map(i))).collect();
    let mut sim = Sim {
        c,
        now: t0,
        step: c.t0_step,
        tasks,
        flows: Vec::new(),
        rates_stale: true,
        uploaded,
        next_upload: 0,
        upload_order,
        map_output: vec![vec![0.0; c.hosts.len()]; c.jobs.len()],
        maps_left: c.jobs.iter().map(|j| j.spec.maps).collect(),
        reduces_left: c.jobs.iter().map(|j| j.spec.reduces).collect(),
        pending: Vec::new(),
        served: vec![f64::NEG_INFINITY; c.hosts.len()],
        next_check: c.control_step_s.map_or(f64::INFINITY, |dt| t0 + dt),
        out: RunMetrics {
            job_time_s: 0.0,
            job_times_s: vec![f64::NAN; c.jobs.len()],
            kills: 0,
            remote_maps: 0,
            replan_failures: 0,
        },
        ids,
    };
    sim.start_upload();
    let maps: Vec<usize> = maps.into_iter().filter(|&i| sim.uploaded[i]).collect();
    if matches!(driver, Driver::Slots { .. }) {
        sim.pending = maps;
    } else {
        for i in maps {
            sim.place_input(i);
        }
    }
    let deadline = t0 + 30.0 * 86_400.0;
    while sim.out.job_times_s.iter().any(|t| t.is_nan()) {
        if sim.now > deadline {
            return None;
        }
        sim.advance(&driver);
        sim.finish_flows(&driver);
        sim.finish_tasks(&driver);
        if sim.now >= f64::from(STEP_S) * (sim.step + 1) as f64 - EPS {
            sim.step += 1;
            sim.control(&mut driver);
        }
        if sim.now >= sim.next_check - EPS {
            let dt = c.control_step_s.expect("a finite next check has a step");
            while sim.next_check <= sim.now + EPS {
                sim.next_check += dt;
            }
            sim.control(&mut driver);
        }
        sim.start_tasks(&driver);
    }
    let times = &sim.out.job_times_s;
    sim.out.job_time_s = times.iter().sum::<f64>() / times.len().max(1) as f64;
    Some(sim.out)
}

impl Sim<'_, '_> {
    fn host_count(&self) -> usize {
        self.c.hosts.len()
    }

    fn task(&self, i: usize) -> &Task {
        let (j, l) = self.ids[i];
        &self.c.jobs[j].tasks[l]
    }

    /// The flat indices of job `j`'s tasks.
    fn of_job(&self, j: usize) -> std::ops::Range<usize> {
        let first = self.ids.partition_point(|&(x, _)| x < j);
        first..first + self.c.jobs[j].tasks.len()
    }

    fn u(&self, k: usize, m: Metric) -> f64 {
        self.c.util.at(self.c.hosts[k].host, m, self.step)
    }

    fn v(&self, k: usize) -> f64 {
        slot_flops(self.c.hosts[k].cpu_gflops)
    }

    fn running(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.tasks.len()).filter(move |&i| {
            self.tasks[i].phase == Phase::Running && self.tasks[i].host == Some(k)
        })
    }

    /// Per host: tasks running, and tasks of `kind` holding a slot (assigned, not done).
    fn counts(&self, kind: TaskKind) -> (Vec<usize>, Vec<usize>) {
        let mut running = vec![0; self.host_count()];
        let mut held = vec![0; self.host_count()];
        for (i, t) in self.tasks.iter().enumerate() {
            let Some(k) = t.host else { continue };
            running[k] += usize::from(t.phase == Phase::Running);
            held[k] += usize::from(t.phase != Phase::Done && self.task(i).kind == kind);
        }
        (running, held)
    }

    /// The kinds of the pending tasks (a map slot and a reduce slot are filled alike).
    fn pending_kinds(&self) -> impl Iterator<Item = TaskKind> + '_ {
        [TaskKind::Map, TaskKind::Reduce]
            .into_iter()
            .filter(|&kind| self.pending.iter().any(|&i| self.task(i).kind == kind))
    }

    /// FLOP/s of each task running on host k.
    fn task_rate(&self, k: usize, n: usize) -> f64 {
        let cap = self.c.hosts[k].cpu_gflops * 1e9;
        let slack = match self.c.qos {
            Qos::Throttle => self.c.margin,
            Qos::KillOnAnyViolation => 0.0,
        };
        let limit = cap * (1.0 - self.u(k, Metric::Cpu) - slack).max(0.0);
        self.v(k).min(limit / n.max(1) as f64)
    }

    fn recompute_rates(&mut self) {
        let links: Vec<&[usize]> = self.flows.iter().map(|f| f.links.as_slice()).collect();
        let cap = vec![link_bytes_per_s(); 2 * self.host_count() + 1];
        let rates = max_min(&links, &cap);
        for (f, r) in self.flows.iter_mut().zip(rates) {
            f.rate = r;
        }
        self.rates_stale = false;
    }

    /// Moves time to the next event and progresses tasks and transfers to it.
    fn advance(&mut self, driver: &Driver<'_>) {
        if self.rates_stale {
            self.recompute_rates();
        }
        let mut next = (f64::from(STEP_S) * (self.step + 1) as f64).min(self.next_check);
        for f in &self.flows {
            next = next.min(self.now + f.left / f.rate);
        }
        let (running, _) = self.counts(TaskKind::Map);
        let rates: Vec<f64> = (0..self.host_count())
            .map(|k| self.task_rate(k, running[k]))
            .collect();
        for t in &self.tasks {
            if t.phase == Phase::Running {
                let r = rates[t.host.expect("running tasks have a host")];
                if r > 0.0 {
                    next = next.min(self.now + t.left / r);
                }
            }
        }
        next = next.min(self.next_start(driver));
        let dt = (next - self.now).max(0.0);
        for f in &mut self.flows {
            f.left -= f.rate * dt;
        }
        for t in &mut self.tasks {
            if t.phase == Phase::Running {
                t.left -= rates[t.host.expect("running")] * dt;
            }
        }
        self.now = next;
    }

    /// The next time a driver may start a task without any other event (`INFINITY` if
    /// only another event can make a start possible).
    fn next_start(&self, driver: &Driver<'_>) -> f64 {
        match driver {
            Driver::Plan { .. } => self
                .tasks
                .iter()
                .filter(|t| t.phase == Phase::Waiting && t.input_ready && t.fetching == 0)
                .map(|t| t.planned.max(self.now))
                .fold(f64::INFINITY, f64::min),
            Driver::Slots { .. } => self
                .pending_kinds()
                .flat_map(|kind| {
                    let (_, held) = self.counts(kind);
                    let cap = self.tracker_cap(kind, driver);
                    (0..self.host_count())
                        .filter(move |&k| self.admits(k) && held[k] < cap)
                        .map(|k| self.next_heartbeat(k))
                })
                .fold(f64::INFINITY, f64::min),
        }
    }

    /// The tasks of `kind` one tracker may hold now: all its slots (`fixed`), else
    /// Hadoop's cap ([`tracker_capacity`]).
    fn tracker_cap(&self, kind: TaskKind, driver: &Driver<'_>) -> usize {
        let slots = SLOTS as usize;
        if matches!(driver, Driver::Slots { fixed: true }) {
            return slots;
        }
        let unfinished = match kind {
            TaskKind::Map => self.maps_left.iter().sum(),
            TaskKind::Reduce => self.reduces_left.iter().sum(),
        };
        tracker_capacity(unfinished, slots * self.host_count(), slots)
    }

    /// Host k's next heartbeat at or after now that it has not yet been served at: one
    /// heartbeat, one pass (so "one reduce per heartbeat" holds even when the loop visits
    /// the same instant again).
    fn next_heartbeat(&self, k: usize) -> f64 {
        let base = f64::from(STEP_S) * self.c.t0_step as f64
            + HEARTBEAT_S * k as f64 / self.host_count() as f64;
        let m = ((self.now - base) / HEARTBEAT_S - EPS).ceil().max(0.0);
        let beat = base + m * HEARTBEAT_S;
        if (beat - self.served[k]).abs() <= 1e-6 {
            beat + HEARTBEAT_S
        } else {
            beat
        }
    }

    /// Cuckoo's admission check: the current primary load leaves room (§IV-B1).
    fn admits(&self, k: usize) -> bool {
        Metric::ALL
            .iter()
            .all(|&m| self.u(k, m) + self.c.margin < 1.0)
    }

    fn start_upload(&mut self) {
        if !self.c.upload || self.next_upload >= self.upload_order.len() {
            return;
        }
        let chunk = self.upload_order[self.next_upload];
        self.next_upload += 1;
        let client = 2 * self.host_count();
        let mut links = vec![client];
        let (j, l) = self.ids[chunk];
        let holders = &self.c.holders[j][l];
        for (r, &h) in holders.iter().enumerate() {
            links.push(2 * h + 1);
            if r + 1 < holders.len() {
                links.push(2 * h);
            }
        }
        self.flows.push(Flow {
            links,
            left: self.task(chunk).input_bytes,
            rate: 0.0,
            carries: Carries::Upload(chunk),
        });
        self.rates_stale = true;
    }

    /// Starts moving task `i`'s input to its host: a map's chunk if the host does not hold
    /// it (the map is then remote), a reduce's share of every map output. Does nothing
    /// while the chunk is still being uploaded or maps are still running.
    fn place_input(&mut self, i: usize) {
        let k = self.tasks[i].host.expect("placed tasks have a host");
        let (job, l) = self.ids[i];
        let t = self.task(i);
        match t.kind {
            TaskKind::Map => {
                if !self.uploaded[i] {
                    return;
                }
                let holders = &self.c.holders[job][l];
                let remote = !holders.contains(&k);
                if remote {
                    self.fetch(i, holders[0], k, t.input_bytes);
                }
                self.tasks[i].remote = remote;
            }
            TaskKind::Reduce => {
                if self.maps_left[job] > 0 {
                    return;
                }
                let output = &self.map_output[job];
                let total: f64 = output.iter().sum();
                let shares: Vec<(usize, f64)> = (0..self.host_count())
                    .filter(|&h| h != k && output[h] > 0.0)
                    .map(|h| (h, t.input_bytes * output[h] / total))
                    .collect();
                for (h, bytes) in shares {
                    self.fetch(i, h, k, bytes);
                }
            }
        }
        self.tasks[i].input_ready = true;
    }

    fn fetch(&mut self, task: usize, from: usize, to: usize, bytes: f64) {
        self.flows.push(Flow {
            links: vec![2 * from, 2 * to + 1],
            left: bytes,
            rate: 0.0,
            carries: Carries::Input(task),
        });
        self.tasks[task].fetching += 1;
        self.rates_stale = true;
    }

    fn finish_flows(&mut self, driver: &Driver<'_>) {
        let mut i = 0;
        while i < self.flows.len() {
            let f = &self.flows[i];
            if f.left > EPS * f.rate.max(1.0) {
                i += 1;
                continue;
            }
            let f = self.flows.remove(i);
            self.rates_stale = true;
            match f.carries {
                Carries::Input(t) => self.tasks[t].fetching -= 1,
                Carries::Upload(chunk) => {
                    self.uploaded[chunk] = true;
                    self.start_upload();
                    match driver {
                        Driver::Slots { .. } => {
                            let at = self.pending.partition_point(|&p| p < chunk);
                            self.pending.insert(at, chunk);
                        }
                        Driver::Plan { .. } => self.place_input(chunk),
                    }
                }
            }
        }
    }

    fn finish_tasks(&mut self, driver: &Driver<'_>) {
        for i in 0..self.tasks.len() {
            let t = &self.tasks[i];
            if t.phase != Phase::Running || t.left > EPS * self.task(i).work_flop {
                continue;
            }
            self.tasks[i].phase = Phase::Done;
            let k = self.tasks[i].host.expect("running");
            let j = self.ids[i].0;
            match self.task(i).kind {
                TaskKind::Map => {
                    self.map_output[j][k] +=
                        self.task(i).input_bytes * self.c.jobs[j].spec.map_output_ratio;
                    self.out.remote_maps += usize::from(self.tasks[i].remote);
                    self.maps_left[j] -= 1;
                    if self.maps_left[j] == 0 {
                        self.release_reduces(j, driver);
                    }
                }
                TaskKind::Reduce => self.reduces_left[j] -= 1,
            }
            if self.maps_left[j] == 0 && self.reduces_left[j] == 0 {
                let t0 = f64::from(STEP_S) * self.c.t0_step as f64;
                self.out.job_times_s[j] = self.now - t0;
            }
        }
    }

    fn release_reduces(&mut self, j: usize, driver: &Driver<'_>) {
        let reduces = self.c.jobs[j].reduces();
        let first = self.of_job(j).start;
        for i in reduces.map(|l| first + l) {
            match driver {
                Driver::Slots { .. } => self.pending.push(i),
                Driver::Plan { .. } => self.place_input(i),
            }
        }
    }

    /// The QoS controller on every host (module docs).
    fn control(&mut self, driver: &mut Driver<'_>) {
        for k in 0..self.host_count() {
            let mut running: Vec<usize> = self.running(k).collect();
            // Start order; ties: lower index first, so the higher index is "later".
            running.sort_by(|&a, &b| {
                self.tasks[a]
                    .started
                    .total_cmp(&self.tasks[b].started)
                    .then(a.cmp(&b))
            });
            let ram: Vec<f64> = running.iter().map(|&i| self.task(i).ram_gib).collect();
            let u = (self.u(k, Metric::Cpu), self.u(k, Metric::Ram));
            let n = kills(self.c.qos, &self.c.hosts[k], u, self.c.margin, &ram);
            for i in running.into_iter().rev().take(n) {
                self.kill(i, driver);
            }
        }
    }

    fn kill(&mut self, i: usize, driver: &mut Driver<'_>) {
        self.out.kills += 1;
        let t = &mut self.tasks[i];
        t.phase = Phase::Waiting;
        match driver {
            Driver::Slots { .. } => {
                t.host = None;
                t.input_ready = false;
                let at = self.pending.partition_point(|&p| p < i);
                self.pending.insert(at, i);
            }
            Driver::Plan { problem, plan, rng } => {
                let t0 = f64::from(STEP_S) * self.c.t0_step as f64;
                let id = self.ids[i];
                let old = plan.0[id.0][id.1].expect("running tasks were planned");
                let mut res = Reservations::of(problem, plan);
                res.reserve(id, old, -1.0);
                let from = (self.now - t0).ceil() as u32;
                let horizon = problem
                    .nodes
                    .iter()
                    .map(|n| n.horizon_s())
                    .min()
                    .unwrap_or(0);
                let new = res.first_fit(id, from, horizon, rng).unwrap_or_else(|| {
                    self.out.replan_failures += 1;
                    Assignment {
                        node: old.node,
                        start: from,
                    }
                });
                plan.0[id.0][id.1] = Some(new);
                let t = &mut self.tasks[i];
                t.planned = t0 + f64::from(new.start);
                if new.node != old.node {
                    t.host = Some(new.node);
                    t.input_ready = false;
                    self.place_input(i);
                }
            }
        }
    }

    fn start(&mut self, i: usize, k: usize) {
        let work = self.task(i).work_flop;
        let t = &mut self.tasks[i];
        t.phase = Phase::Running;
        t.host = Some(k);
        t.left = work;
        t.started = self.now;
    }

    /// Hadoop's pick for a free `kind` slot of host `k` (module docs): among the pending
    /// tasks of `kind` of the earliest job that has one, [`pick_task`]'s.
    fn fifo_pick(&self, kind: TaskKind, k: usize) -> Option<usize> {
        let first = self.pending.iter().find(|&&i| self.task(i).kind == kind)?;
        let job = self.ids[*first].0;
        let of_kind: Vec<usize> = self
            .pending
            .iter()
            .copied()
            .filter(|&i| self.ids[i].0 == job && self.task(i).kind == kind)
            .collect();
        let local = |i: usize| match kind {
            TaskKind::Map => self.c.holders[job][self.ids[i].1].contains(&k),
            TaskKind::Reduce => true,
        };
        pick_task(&of_kind, local).map(|pos| of_kind[pos])
    }

    fn start_tasks(&mut self, driver: &Driver<'_>) {
        match driver {
            Driver::Plan { .. } => {
                for i in 0..self.tasks.len() {
                    let t = &self.tasks[i];
                    if t.phase == Phase::Waiting
                        && t.input_ready
                        && t.fetching == 0
                        && t.planned <= self.now + EPS
                    {
                        let k = t.host.expect("planned");
                        self.start(i, k);
                    }
                }
            }
            Driver::Slots { fixed } => {
                for k in 0..self.host_count() {
                    if (self.next_heartbeat(k) - self.now).abs() > 1e-6 || !self.admits(k) {
                        continue;
                    }
                    self.served[k] = self.now;
                    let kinds: Vec<TaskKind> = self.pending_kinds().collect();
                    for kind in kinds {
                        let (_, held) = self.counts(kind);
                        let mut free = self.tracker_cap(kind, driver).saturating_sub(held[k]);
                        if kind == TaskKind::Reduce && !fixed {
                            free = free.min(1);
                        }
                        for _ in 0..free {
                            let Some(i) = self.fifo_pick(kind, k) else {
                                break;
                            };
                            self.pending.retain(|&p| p != i);
                            self.tasks[i].host = Some(k);
                            self.place_input(i);
                        }
                    }
                }
                // Tasks whose input is in place start at once.
                for i in 0..self.tasks.len() {
                    let t = &self.tasks[i];
                    if t.phase == Phase::Waiting && t.input_ready && t.fetching == 0 {
                        let k = t.host.expect("assigned");
                        self.start(i, k);
                    }
                }
            }
        }
    }
}

/// How many of the tasks running on `host` the controller kills, latest-started first
/// (module docs; Alg. 3). `u` is the primary load (CPU, RAM) as fractions, `margin` is S,
/// and `ram_gib` lists the running tasks' RAM in start order; each task demands one slot,
/// v = C(CPU)/20.
pub fn kills(qos: Qos, host: &Host, u: (f64, f64), margin: f64, ram_gib: &[f64]) -> usize {
    let ram_limit = host.ram_gib * (1.0 - u.1 - margin);
    let sm = margin * host.ram_gib;
    let mut keep = ram_gib.len();
    if ram_limit > sm {
        while keep > 0 && ram_gib[..keep].iter().sum::<f64>() > ram_limit + 0.5 * sm + EPS {
            keep -= 1;
        }
    } else {
        keep = 0;
    }
    if qos == Qos::KillOnAnyViolation {
        let cap = host.cpu_gflops * 1e9;
        let limit = cap * (1.0 - u.0 - margin).max(0.0) + 0.5 * margin * cap;
        let v = slot_flops(host.cpu_gflops);
        while keep > 0 && keep as f64 * v > limit * (1.0 + EPS) {
            keep -= 1;
        }
    }
    ram_gib.len() - keep
}

/// The plan driver's problem for `hosts`: Eq. 1 capacities from `forecast` (per host:
/// CPU and RAM U per 3-minute step) over `steps` steps, for `jobs`, window T = `window_s`.
pub fn problem(
    hosts: &[Host],
    forecast: &[(Vec<f64>, Vec<f64>)],
    margin: f64,
    jobs: Vec<Job>,
    window_s: u32,
    plan_slot_s: u32,
) -> Problem {
    use crate::forecast::available;
    let nodes = hosts
        .iter()
        .zip(forecast)
        .map(|(h, (cpu, ram))| {
            crate::plan::NodeCapacity::new(
                h.cpu_gflops,
                cpu.iter()
                    .map(|&u| available(h.cpu_gflops, u, margin))
                    .collect(),
                ram.iter()
                    .map(|&u| available(h.ram_gib, u, margin))
                    .collect(),
            )
        })
        .collect();
    Problem {
        nodes,
        jobs,
        window_s,
        plan_slot_s,
    }
}
