//! The holistic plan of paper 001 §III-B1 (Table I, Eq. 2–6): a node and a start time for
//! every task, inside the forecast capacity, over a 24-hour window.
//!
//! Time is planned in whole seconds from the window start t₀ (spec A4: a 128 MiB map lasts
//! tens of seconds, so Table I's 3-minute grid would round every task up to 180 s); the
//! forecast capacity A(k, m, t) of Eq. 1 is constant over each 3-minute step. A task's
//! plan duration is Te(i, k) = ⌈work/v_k⌉ seconds, rounded up to a multiple of
//! [`Problem::plan_slot_s`] (1 s by default; 180 s reproduces Table I literally).
//!
//! Capacity comparisons allow a relative slack of 10⁻⁹ so that, e.g., ten tasks of
//! C/20 fit exactly into A = C/2 despite floating-point rounding.

use serde::Serialize;

use crate::job::{Job, TaskKind, slot_flops};
use crate::network::LinkQueues;
use crate::trace::STEP_S;

/// One node as the planner sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeCapacity {
    /// Speed of one slot v_k, FLOP/s; also the CPU a task holds, Rq(i, CPU).
    pub slot_flops: f64,
    /// A(k, CPU, ·) per 3-minute step from t₀, FLOP/s.
    pub cpu: Vec<f64>,
    /// A(k, RAM, ·) per 3-minute step from t₀, GiB.
    pub ram: Vec<f64>,
}

impl NodeCapacity {
    /// A node of `cpu_gflops` whose available CPU and RAM per step are `cpu` (GFLOP/s) and
    /// `ram` (GiB).
    pub fn new(cpu_gflops: f64, cpu: Vec<f64>, ram: Vec<f64>) -> NodeCapacity {
        NodeCapacity {
            slot_flops: slot_flops(cpu_gflops),
            cpu: cpu.into_iter().map(|c| c * 1e9).collect(),
            ram,
        }
    }

    /// Seconds of forecast this node has (past it nothing fits).
    pub fn horizon_s(&self) -> u32 {
        self.cpu.len() as u32 * STEP_S
    }
}

/// What the holistic scheduler plans: nodes with forecast capacity, jobs, and the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The nodes.
    pub nodes: Vec<NodeCapacity>,
    /// The jobs (all-or-nothing each, Eq. 5).
    pub jobs: Vec<Job>,
    /// T of Eq. 4: every scheduled task ends by it, seconds from t₀.
    pub window_s: u32,
    /// Durations are rounded up to a multiple of this many seconds (≥ 1).
    pub plan_slot_s: u32,
}

/// A task's identity: (job, index in the job).
pub type TaskId = (usize, usize);

/// Where and when one task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// The node n(i) (0-based; the paper's 0 = unassigned is `None`).
    pub node: usize,
    /// ts(i), seconds from t₀.
    pub start: u32,
}

/// A plan: per job, per task, its assignment or `None` (p(i) = 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan(pub Vec<Vec<Option<Assignment>>>);

impl Problem {
    /// Te(i, k) in seconds (module docs).
    pub fn duration(&self, task: TaskId, node: usize) -> u32 {
        let t = &self.jobs[task.0].tasks[task.1];
        let secs = (t.work_flop / self.nodes[node].slot_flops).ceil().max(1.0) as u32;
        secs.div_ceil(self.plan_slot_s) * self.plan_slot_s
    }

    /// The empty plan.
    pub fn empty_plan(&self) -> Plan {
        Plan(
            self.jobs
                .iter()
                .map(|j| vec![None; j.tasks.len()])
                .collect(),
        )
    }
}

impl Plan {
    /// Σ p(i): scheduled tasks (Eq. 2, maximised first).
    pub fn scheduled(&self) -> usize {
        self.0.iter().flatten().filter(|a| a.is_some()).count()
    }

    /// max (ts(i) + Te(i, n(i))) over scheduled tasks (Eq. 3, minimised second), seconds.
    pub fn makespan(&self, problem: &Problem) -> u32 {
        self.tasks()
            .map(|(id, a)| a.start + problem.duration(id, a.node))
            .max()
            .unwrap_or(0)
    }

    /// Each job's [`job_time_with_shuffle`], in job order, seconds from t₀; the jobs'
    /// shuffles share the links ([`LinkQueues`]) in the order their maps end (ties: job
    /// order).
    pub fn job_times_with_shuffle(&self, problem: &Problem) -> Vec<u32> {
        let layouts: Vec<ShuffleLayout> = (0..self.0.len())
            .map(|j| ShuffleLayout::of(problem, j, &self.0[j]))
            .collect();
        let mut order: Vec<usize> = (0..layouts.len()).collect();
        order.sort_by_key(|&j| (layouts[j].maps_end, j));
        let mut links = LinkQueues::new(problem.nodes.len());
        let mut times = vec![0; layouts.len()];
        for j in order {
            times[j] = job_time_with_shuffle(problem, j, &self.0[j], &links);
            links.add(
                f64::from(layouts[j].maps_end),
                &layouts[j].output,
                &layouts[j].reduces,
            );
        }
        times
    }

    /// Scheduled tasks with their assignments.
    pub fn tasks(&self) -> impl Iterator<Item = (TaskId, Assignment)> + '_ {
        self.0.iter().enumerate().flat_map(|(j, tasks)| {
            tasks
                .iter()
                .enumerate()
                .filter_map(move |(i, a)| a.map(|a| ((j, i), a)))
        })
    }

    /// Jobs scheduled whole.
    pub fn jobs_scheduled(&self) -> usize {
        self.0
            .iter()
            .filter(|t| !t.is_empty() && t.iter().all(Option::is_some))
            .count()
    }
}

/// What one job's shuffle moves, from its tasks' assignments: its maps' end M (seconds
/// from t₀), the bytes of map output on each node and the reduces on each node.
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleLayout {
    /// M: the end of the job's last scheduled map (0 without maps).
    pub maps_end: u32,
    /// Bytes of map output per node.
    pub output: Vec<f64>,
    /// Reduces per node.
    pub reduces: Vec<usize>,
}

impl ShuffleLayout {
    /// The layout of job `j` under `tasks` (its assignments, in task order).
    pub fn of(problem: &Problem, j: usize, tasks: &[Option<Assignment>]) -> ShuffleLayout {
        let job = &problem.jobs[j];
        let mut l = ShuffleLayout {
            maps_end: 0,
            output: vec![0.0; problem.nodes.len()],
            reduces: vec![0; problem.nodes.len()],
        };
        for (i, a) in tasks.iter().enumerate() {
            let Some(a) = a else { continue };
            let t = &job.tasks[i];
            match t.kind {
                TaskKind::Map => {
                    l.output[a.node] += t.input_bytes * job.spec.map_output_ratio;
                    l.maps_end = l.maps_end.max(a.start + problem.duration((j, i), a.node));
                }
                TaskKind::Reduce => l.reduces[a.node] += 1,
            }
        }
        l
    }
}

/// Job `j`'s time once the shuffle is paid for, given its tasks' assignments `tasks` and
/// the shuffles already on the links, seconds from t₀: each reduce starts at its planned
/// start or, if later, when the job's last map ends (M) plus the shuffle's estimate
/// ⌈[`LinkQueues::shuffle_s`]⌉ for the plan's layout ([`ShuffleLayout`]), and runs its
/// planned duration; the job's last end (its maps' end when it has no reduce; 0 when
/// nothing is scheduled). With idle links and a single node it is the job's makespan,
/// and never below it. This is what `salamander-exact-network` minimises; for every
/// Salamander strategy its mean over jobs ([`Plan::job_times_with_shuffle`]) is the
/// `plan_job_time_s` that `frugal ephemeral` sets beside the realised job time.
pub fn job_time_with_shuffle(
    problem: &Problem,
    j: usize,
    tasks: &[Option<Assignment>],
    links: &LinkQueues,
) -> u32 {
    let l = ShuffleLayout::of(problem, j, tasks);
    let shuffle = links.shuffle_s(f64::from(l.maps_end), &l.output, &l.reduces);
    let ready = l.maps_end + shuffle.ceil() as u32;
    problem.jobs[j]
        .reduces()
        .filter_map(|i| tasks[i].map(|a| a.start.max(ready) + problem.duration((j, i), a.node)))
        .fold(l.maps_end, u32::max)
}

/// A node's reserved CPU (FLOP/s) and RAM (GiB) over time: a step function kept as
/// breakpoints `(from second, cpu, ram)`, each value holding until the next breakpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile(Vec<(u32, f64, f64)>);

impl Default for Profile {
    fn default() -> Self {
        Profile(vec![(0, 0.0, 0.0)])
    }
}

pub(crate) fn within(used: f64, cap: f64) -> bool {
    used <= cap + 1e-9 * cap.abs().max(1.0)
}

impl Profile {
    fn split(&mut self, t: u32) -> usize {
        match self.0.binary_search_by_key(&t, |p| p.0) {
            Ok(i) => i,
            Err(i) => {
                let (_, c, r) = self.0[i - 1];
                self.0.insert(i, (t, c, r));
                i
            }
        }
    }

    /// Adds (or, with negative amounts, removes) `cpu` and `ram` over [start, end).
    pub fn add(&mut self, start: u32, end: u32, cpu: f64, ram: f64) {
        let a = self.split(start);
        let b = self.split(end);
        for p in &mut self.0[a..b] {
            p.1 += cpu;
            p.2 += ram;
        }
    }

    /// Whether a task needing `cpu` and `ram` fits on `node` over [start, start + d)
    /// (Eq. 6 for that task). `Err(t)`: it does not, and no start before `t` can fit —
    /// `t` ends the first constant piece (of reservations and of forecast steps) where it
    /// overflows.
    pub fn fits(
        &self,
        node: &NodeCapacity,
        start: u32,
        d: u32,
        cpu: f64,
        ram: f64,
    ) -> Result<(), u32> {
        let end = start + d;
        if end > node.horizon_s() {
            return Err(u32::MAX);
        }
        let mut i = self.0.partition_point(|p| p.0 <= start) - 1;
        let mut t = start;
        while t < end {
            let step = (t / STEP_S) as usize;
            let next_step = (step as u32 + 1) * STEP_S;
            let next_bp = self.0.get(i + 1).map_or(u32::MAX, |p| p.0);
            let piece_end = next_step.min(next_bp);
            let (_, c, r) = self.0[i];
            if !within(c + cpu, node.cpu[step]) || !within(r + ram, node.ram[step]) {
                return Err(piece_end);
            }
            if next_bp <= next_step {
                i += 1;
            }
            t = piece_end;
        }
        Ok(())
    }

    /// The earliest start in [from, latest] at which the task fits (module docs), if any.
    pub fn earliest_fit(
        &self,
        node: &NodeCapacity,
        from: u32,
        latest: u32,
        d: u32,
        cpu: f64,
        ram: f64,
    ) -> Option<u32> {
        let mut t = from;
        while t <= latest {
            match self.fits(node, t, d, cpu, ram) {
                Ok(()) => return Some(t),
                Err(next) => t = next,
            }
        }
        None
    }
}

/// A broken constraint of Eq. 4–6 or of all-or-nothing jobs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Violation {
    /// Eq. 4: the task ends after T.
    EndsAfterWindow {
        /// The task.
        task: TaskId,
    },
    /// Eq. 6: reservations exceed the forecast capacity on a node during a second.
    Capacity {
        /// The node.
        node: usize,
        /// The first second of the overflow.
        at: u32,
    },
    /// Eq. 5: a reduce starts before a map of its job ends.
    Precedence {
        /// The reduce.
        task: TaskId,
    },
    /// Eq. 5 (spec A6): a job is partly scheduled.
    PartialJob {
        /// The job.
        job: usize,
    },
}

/// Every violation of `plan` (empty iff the plan is feasible), in a fixed order: jobs,
/// then tasks, then nodes.
pub fn violations(problem: &Problem, plan: &Plan) -> Vec<Violation> {
    let mut out = Vec::new();
    for (j, tasks) in plan.0.iter().enumerate() {
        let n = tasks.iter().filter(|a| a.is_some()).count();
        if n != 0 && n != tasks.len() {
            out.push(Violation::PartialJob { job: j });
        }
        let job = &problem.jobs[j];
        let maps_end = job
            .maps()
            .filter_map(|i| tasks[i].map(|a| a.start + problem.duration((j, i), a.node)))
            .max()
            .unwrap_or(0);
        for (i, a) in tasks.iter().enumerate() {
            let Some(a) = a else { continue };
            if a.start + problem.duration((j, i), a.node) > problem.window_s {
                out.push(Violation::EndsAfterWindow { task: (j, i) });
            }
            if job.tasks[i].kind == TaskKind::Reduce && a.start < maps_end {
                out.push(Violation::Precedence { task: (j, i) });
            }
        }
    }
    for (k, node) in problem.nodes.iter().enumerate() {
        let mut profile = Profile::default();
        for (id, a) in plan.tasks().filter(|(_, a)| a.node == k) {
            let end = a.start + problem.duration(id, k);
            let ram = problem.jobs[id.0].tasks[id.1].ram_gib;
            profile.add(a.start, end, node.slot_flops, ram);
        }
        // The usage is constant between breakpoints and the capacity between step
        // boundaries: checking both sets of points checks every second.
        let last = profile.0.last().map_or(0, |p| p.0);
        let mut points: Vec<u32> = profile.0.iter().map(|p| p.0).collect();
        points.extend((0..=last / STEP_S).map(|s| s * STEP_S));
        points.sort_unstable();
        points.dedup();
        for at in points {
            let (_, c, r) = profile.0[profile.0.partition_point(|p| p.0 <= at) - 1];
            let step = (at / STEP_S) as usize;
            let over =
                |used: f64, cap: Option<&f64>| used > 0.0 && !cap.is_some_and(|&a| within(used, a));
            if over(c, node.cpu.get(step)) || over(r, node.ram.get(step)) {
                out.push(Violation::Capacity { node: k, at });
            }
        }
    }
    out
}
