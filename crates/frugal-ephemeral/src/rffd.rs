//! Random First Fit Decreasing, paper 001 Alg. 1: the holistic scheduler's initial plan,
//! and the rule Salamander re-plans a killed task with.
//!
//! Jobs go longest first (by total work; the paper's "execution time" is not defined,
//! spec §1.5); a job's maps go before its reduces, each task to the earliest start `t ≥
//! tsMin` at which some node can hold it for its whole run inside the forecast capacity
//! and the window (Eq. 4, 6), and among the nodes that can at that `t`, to one drawn
//! uniformly at random. tsMin is 0 for maps and the latest end of the job's maps for
//! reduces. The paper scans t one time unit at a time; frugal jumps to the end of the
//! first overflowing piece (see [`crate::plan::Profile::fits`]), which finds the same `t`.
//! If a task finds no place, the job's tasks are withdrawn and the job is rejected (Eq. 5).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::job::TaskKind;
use crate::plan::{Assignment, Plan, Problem, Profile, TaskId};

/// Reservations per node while a plan is built or repaired.
#[derive(Clone, Debug)]
pub struct Reservations<'a> {
    problem: &'a Problem,
    profiles: Vec<Profile>,
}

impl<'a> Reservations<'a> {
    /// No reservations.
    pub fn new(problem: &'a Problem) -> Reservations<'a> {
        Reservations {
            problem,
            profiles: vec![Profile::default(); problem.nodes.len()],
        }
    }

    /// The reservations of `plan`.
    pub fn of(problem: &'a Problem, plan: &Plan) -> Reservations<'a> {
        let mut r = Reservations::new(problem);
        for (id, a) in plan.tasks() {
            r.reserve(id, a, 1.0);
        }
        r
    }

    /// Adds (`sign` 1) or withdraws (`sign` −1) `task`'s reservation at `a`.
    pub fn reserve(&mut self, task: TaskId, a: Assignment, sign: f64) {
        let p = self.problem;
        let d = p.duration(task, a.node);
        let t = &p.jobs[task.0].tasks[task.1];
        let cpu = p.nodes[a.node].slot_flops;
        self.profiles[a.node].add(a.start, a.start + d, sign * cpu, sign * t.ram_gib);
    }

    /// The earliest start of `task` on `node` in [`from`, `until` − Te], if any.
    pub fn earliest_on(&self, task: TaskId, node: usize, from: u32, until: u32) -> Option<u32> {
        let p = self.problem;
        let d = p.duration(task, node);
        let latest = until.checked_sub(d)?;
        let cap = &p.nodes[node];
        let ram = p.jobs[task.0].tasks[task.1].ram_gib;
        self.profiles[node].earliest_fit(cap, from, latest, d, cap.slot_flops, ram)
    }

    /// The earliest start of `task` in [`from`, `until` − Te] over all nodes and the nodes
    /// (in increasing index) that offer it; `None` if no node has room.
    pub fn earliest(&self, task: TaskId, from: u32, until: u32) -> Option<(u32, Vec<usize>)> {
        let starts: Vec<Option<u32>> = (0..self.problem.nodes.len())
            .map(|k| self.earliest_on(task, k, from, until))
            .collect();
        let best = starts.iter().flatten().min().copied()?;
        let nodes = (0..starts.len())
            .filter(|&k| starts[k] == Some(best))
            .collect();
        Some((best, nodes))
    }

    /// Alg. 1's choice for one task: the earliest start in [`from`, `until` − Te] on any
    /// node, ties drawn uniformly with `rng`; `None` if no node has room.
    pub fn first_fit(
        &self,
        task: TaskId,
        from: u32,
        until: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<Assignment> {
        let (start, nodes) = self.earliest(task, from, until)?;
        let node = nodes[rng.random_range(0..nodes.len())];
        Some(Assignment { node, start })
    }
}

/// Alg. 1 on `problem` with random choices from `rng`.
pub fn plan(problem: &Problem, rng: &mut ChaCha8Rng) -> Plan {
    let mut order: Vec<usize> = (0..problem.jobs.len()).collect();
    order.sort_by(|&a, &b| {
        let (wa, wb) = (problem.jobs[a].work_flop(), problem.jobs[b].work_flop());
        wb.total_cmp(&wa).then(a.cmp(&b))
    });
    let mut plan = problem.empty_plan();
    let mut res = Reservations::new(problem);
    for j in order {
        let job = &problem.jobs[j];
        let mut placed: Vec<(TaskId, Assignment)> = Vec::new();
        let mut maps_end = 0;
        for i in job.maps().chain(job.reduces()) {
            let from = match job.tasks[i].kind {
                TaskKind::Map => 0,
                TaskKind::Reduce => maps_end,
            };
            let Some(a) = res.first_fit((j, i), from, problem.window_s, rng) else {
                break;
            };
            res.reserve((j, i), a, 1.0);
            if job.tasks[i].kind == TaskKind::Map {
                maps_end = maps_end.max(a.start + problem.duration((j, i), a.node));
            }
            placed.push(((j, i), a));
        }
        if placed.len() == job.tasks.len() {
            for (id, a) in placed {
                plan.0[id.0][id.1] = Some(a);
            }
        } else {
            for (id, a) in placed {
                res.reserve(id, a, -1.0);
            }
        }
    }
    plan
}
