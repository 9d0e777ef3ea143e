//! The genetic strategy: NSGA-III over task orders and node choices (paper 001 §III-B2 and
//! §III-E, run in jMetal with population 50, mutation rate 1, crossover rate 0.5 and
//! tournament size 2).
//!
//! - **Chromosome** (spec §1.8, A15): a priority order of all tasks and a node per task.
//!   It is decoded by Alg. 1's serial scheme: tasks in order (a reduce waits until its
//!   job's maps are placed), each at its earliest start on its own node, or, if it does
//!   not fit there within the window, at Alg. 1's earliest start on any node (the lowest
//!   index on ties; its gene takes that node). A job with a task that fits nowhere is
//!   withdrawn (Eq. 5). Decoded plans are always feasible, so the paper's "take the
//!   constraint-satisfying solutions" is automatic.
//! - **Objectives** (Eq. 2, 3): maximise scheduled tasks, minimise makespan.
//! - **Initial population**: Alg. 1's plans with different random draws.
//! - **Selection**: tournaments of two, won by the lower non-domination rank, then the
//!   lexicographically better plan.
//! - **Crossover** (rate 0.5), OX2 (order-based, Syswerda): each position of parent B is
//!   picked with probability ½; the picked tasks keep parent A's other tasks in place and
//!   take A's positions of the picked tasks in B's order, with B's nodes.
//! - **Mutation** (rate 1, Alg. 2): max(1, 5 % of the tasks) random tasks get a random
//!   node, and each, with probability ½, swaps its place in the order with a random task;
//!   decoding then starts every task as early as it can (Alg. 2's
//!   tryReduceScheduleMakespan).
//! - **Survival**: NSGA-III (Deb and Jain, IEEE TEVC 18(4), 2014): non-dominated fronts,
//!   then the last front by niching on Das–Dennis reference directions (12 divisions on
//!   2 objectives), with objectives translated by the ideal point and scaled by the
//!   population's extent (the intercepts of the extreme points, which coincide with it for
//!   two objectives unless the front degenerates).
//!
//! The `moors` crate implements NSGA-III, but on real-valued genes with random (not
//! tournament) selection, over `faer`/`ndarray` and a second `rand`: the paper's
//! chromosome, operators and tournament would all be custom code around it.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::job::TaskKind;
use crate::plan::{Assignment, Plan, Problem, TaskId};
use crate::rffd::{self, Reservations};
use crate::search::{Budget, Meter, SearchStats};

/// The parameters of the genetic strategy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nsga3 {
    /// Individuals per generation.
    pub population: usize,
    /// Probability that a child is a crossover of two parents (else a copy of one).
    pub crossover: f64,
    /// Probability that a child is mutated.
    pub mutation: f64,
    /// Das–Dennis divisions of the reference directions.
    pub divisions: usize,
    /// Share of tasks Alg. 2 moves.
    pub mutated_share: f64,
}

impl Nsga3 {
    /// The paper's parameters (§III-E) and frugal's (spec A15).
    pub const PAPER: Nsga3 = Nsga3 {
        population: 50,
        crossover: 0.5,
        mutation: 1.0,
        divisions: 12,
        mutated_share: 0.05,
    };

    /// The best plan found within `budget` (most scheduled tasks, then least makespan);
    /// random draws from `rng`.
    pub fn solve(
        &self,
        problem: &Problem,
        budget: Budget,
        rng: &mut ChaCha8Rng,
    ) -> (Plan, SearchStats) {
        let mut meter = Meter::new(budget);
        let decoder = Decoder::new(problem);
        let mut pop: Vec<Individual> = Vec::with_capacity(self.population);
        // Alg. 1's plan is always evaluated, even on an empty budget.
        while pop.len() < self.population && (pop.is_empty() || meter.can_evaluate()) {
            let plan = rffd::plan(problem, rng);
            let node = decoder
                .tasks
                .iter()
                .map(|&(j, i)| {
                    plan.0[j][i]
                        .map_or_else(|| rng.random_range(0..problem.nodes.len()), |a| a.node)
                })
                .collect();
            pop.push(decoder.individual(decoder.alg1_order(), node));
            meter.evaluations += 1;
        }
        let mut best = pop
            .iter()
            .max_by_key(|i| i.key())
            .expect("one individual")
            .clone();
        let mut rank = ranks(&pop);
        let stop = loop {
            if let Some(stop) = meter.stop() {
                break stop;
            }
            let mut children = Vec::with_capacity(self.population);
            while children.len() < self.population && meter.can_evaluate() {
                let a = tournament(&pop, &rank, rng);
                let (mut order, mut node) = (pop[a].order.clone(), pop[a].node.clone());
                if rng.random_bool(self.crossover) {
                    let b = tournament(&pop, &rank, rng);
                    ox2(&mut order, &mut node, &pop[b], rng);
                }
                if rng.random_bool(self.mutation) {
                    self.mutate(&mut order, &mut node, problem.nodes.len(), rng);
                }
                children.push(decoder.individual(order, node));
                meter.evaluations += 1;
            }
            let gen_best = children.iter().max_by_key(|i| i.key());
            let improved = gen_best.is_some_and(|c| c.key() > best.key());
            if let Some(c) = gen_best.filter(|_| improved) {
                best = c.clone();
            }
            pop.extend(children);
            pop = self.survive(pop, rng);
            rank = ranks(&pop);
            meter.iterate(improved);
        };
        (best.plan, meter.stats(stop))
    }

    /// Alg. 2 (module docs).
    fn mutate(&self, order: &mut [usize], node: &mut [usize], nodes: usize, rng: &mut ChaCha8Rng) {
        let n = order.len();
        let m = ((self.mutated_share * n as f64).round() as usize).max(1);
        for _ in 0..m {
            let p = rng.random_range(0..n);
            node[order[p]] = rng.random_range(0..nodes);
            if rng.random_bool(0.5) {
                order.swap(p, rng.random_range(0..n));
            }
        }
    }

    /// NSGA-III's environmental selection of `self.population` from `pop`.
    fn survive(&self, pop: Vec<Individual>, rng: &mut ChaCha8Rng) -> Vec<Individual> {
        let n = self.population.min(pop.len());
        let mut chosen: Vec<usize> = Vec::with_capacity(n);
        let mut last = Vec::new();
        for front in fronts(&pop) {
            if chosen.len() + front.len() <= n {
                chosen.extend(front);
            } else {
                last = front;
                break;
            }
        }
        if chosen.len() < n {
            let considered: Vec<usize> = chosen.iter().chain(&last).copied().collect();
            let obj = |i: usize| pop[i].objectives();
            let mut ideal = [f64::INFINITY; 2];
            let mut nadir = [f64::NEG_INFINITY; 2];
            for &i in &considered {
                for m in 0..2 {
                    ideal[m] = ideal[m].min(obj(i)[m]);
                    nadir[m] = nadir[m].max(obj(i)[m]);
                }
            }
            let refs: Vec<[f64; 2]> = (0..=self.divisions)
                .map(|d| {
                    let w = d as f64 / self.divisions as f64;
                    [w, 1.0 - w]
                })
                .collect();
            // (reference direction, perpendicular distance) of an individual.
            let niche = |i: usize| {
                let f: Vec<f64> = (0..2)
                    .map(|m| {
                        let extent = nadir[m] - ideal[m];
                        (obj(i)[m] - ideal[m]) / if extent > 0.0 { extent } else { 1.0 }
                    })
                    .collect();
                refs.iter()
                    .enumerate()
                    .map(|(r, w)| {
                        let along = (f[0] * w[0] + f[1] * w[1]) / (w[0] * w[0] + w[1] * w[1]);
                        let d =
                            ((f[0] - along * w[0]).powi(2) + (f[1] - along * w[1]).powi(2)).sqrt();
                        (r, d)
                    })
                    .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
                    .expect("at least one reference direction")
            };
            let mut count = vec![0usize; refs.len()];
            for &i in &chosen {
                count[niche(i).0] += 1;
            }
            let mut open: Vec<(usize, usize, f64)> = last
                .iter()
                .map(|&i| {
                    let (r, d) = niche(i);
                    (i, r, d)
                })
                .collect();
            let mut excluded = vec![false; refs.len()];
            while chosen.len() < n {
                let min = (0..refs.len())
                    .filter(|&r| !excluded[r])
                    .map(|r| count[r])
                    .min()
                    .expect("a reference direction with members left");
                let least: Vec<usize> = (0..refs.len())
                    .filter(|&r| !excluded[r] && count[r] == min)
                    .collect();
                let r = least[rng.random_range(0..least.len())];
                let members: Vec<usize> = (0..open.len()).filter(|&m| open[m].1 == r).collect();
                if members.is_empty() {
                    excluded[r] = true;
                    continue;
                }
                let m = if count[r] == 0 {
                    *members
                        .iter()
                        .min_by(|&&a, &&b| open[a].2.total_cmp(&open[b].2).then(a.cmp(&b)))
                        .expect("members")
                } else {
                    members[rng.random_range(0..members.len())]
                };
                chosen.push(open.remove(m).0);
                count[r] += 1;
            }
        }
        let mut pop: Vec<Option<Individual>> = pop.into_iter().map(Some).collect();
        chosen
            .into_iter()
            .map(|i| pop[i].take().expect("chosen once"))
            .collect()
    }
}

/// An individual: its chromosome and its decoded plan.
#[derive(Clone, Debug)]
struct Individual {
    /// Flat task indices in priority order.
    order: Vec<usize>,
    /// Node per flat task.
    node: Vec<usize>,
    plan: Plan,
    scheduled: usize,
    makespan: u32,
}

impl Individual {
    /// Both objectives, to minimise.
    fn objectives(&self) -> [f64; 2] {
        [-(self.scheduled as f64), f64::from(self.makespan)]
    }

    /// The lexicographic order of Eq. 2–3 (greater is better).
    fn key(&self) -> (usize, std::cmp::Reverse<u32>) {
        (self.scheduled, std::cmp::Reverse(self.makespan))
    }

    fn dominates(&self, other: &Individual) -> bool {
        let (a, b) = (self.objectives(), other.objectives());
        a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
    }
}

/// Non-dominated fronts of `pop` (indices), best first.
fn fronts(pop: &[Individual]) -> Vec<Vec<usize>> {
    let n = pop.len();
    let mut dominated_by = vec![0usize; n];
    let mut dominates: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in 0..n {
            if pop[i].dominates(&pop[j]) {
                dominates[i].push(j);
                dominated_by[j] += 1;
            }
        }
    }
    let mut out = Vec::new();
    let mut front: Vec<usize> = (0..n).filter(|&i| dominated_by[i] == 0).collect();
    while !front.is_empty() {
        let mut next = Vec::new();
        for &i in &front {
            for &j in &dominates[i] {
                dominated_by[j] -= 1;
                if dominated_by[j] == 0 {
                    next.push(j);
                }
            }
        }
        next.sort_unstable();
        out.push(std::mem::replace(&mut front, next));
    }
    out
}

/// Each individual's non-domination rank (0 = the first front).
fn ranks(pop: &[Individual]) -> Vec<usize> {
    let mut rank = vec![0; pop.len()];
    for (r, front) in fronts(pop).into_iter().enumerate() {
        for i in front {
            rank[i] = r;
        }
    }
    rank
}

/// A tournament of two: lower rank, then the better plan, then the first drawn.
fn tournament(pop: &[Individual], rank: &[usize], rng: &mut ChaCha8Rng) -> usize {
    let a = rng.random_range(0..pop.len());
    let b = rng.random_range(0..pop.len());
    let better = |x: usize, y: usize| {
        (std::cmp::Reverse(rank[x]), pop[x].key()) >= (std::cmp::Reverse(rank[y]), pop[y].key())
    };
    if better(a, b) { a } else { b }
}

/// OX2 (module docs): `order`/`node` start as parent A and become the child.
fn ox2(order: &mut [usize], node: &mut [usize], b: &Individual, rng: &mut ChaCha8Rng) {
    let mut picked = vec![false; order.len()];
    let in_b: Vec<usize> = b
        .order
        .iter()
        .copied()
        .filter(|_| rng.random_bool(0.5))
        .collect();
    for &f in &in_b {
        picked[f] = true;
        node[f] = b.node[f];
    }
    let mut next = in_b.into_iter();
    for slot in order.iter_mut().filter(|f| picked[**f]) {
        *slot = next.next().expect("as many picked tasks as slots");
    }
}

/// Decodes chromosomes into plans (module docs).
struct Decoder<'a> {
    problem: &'a Problem,
    /// Flat index → task.
    tasks: Vec<TaskId>,
}

impl<'a> Decoder<'a> {
    fn new(problem: &'a Problem) -> Decoder<'a> {
        let tasks = problem
            .jobs
            .iter()
            .enumerate()
            .flat_map(|(j, job)| (0..job.tasks.len()).map(move |i| (j, i)))
            .collect();
        Decoder { problem, tasks }
    }

    /// Alg. 1's order: jobs by decreasing work, maps before reduces.
    fn alg1_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.tasks.len()).collect();
        let p = self.problem;
        order.sort_by(|&a, &b| {
            let (ta, tb) = (self.tasks[a], self.tasks[b]);
            let (wa, wb) = (p.jobs[ta.0].work_flop(), p.jobs[tb.0].work_flop());
            let kind = |t: TaskId| p.jobs[t.0].tasks[t.1].kind == TaskKind::Reduce;
            wb.total_cmp(&wa)
                .then(ta.0.cmp(&tb.0))
                .then(kind(ta).cmp(&kind(tb)))
                .then(ta.1.cmp(&tb.1))
        });
        order
    }

    fn individual(&self, order: Vec<usize>, mut node: Vec<usize>) -> Individual {
        let plan = self.decode(&order, &mut node);
        Individual {
            scheduled: plan.scheduled(),
            makespan: plan.makespan(self.problem),
            order,
            node,
            plan,
        }
    }

    fn decode(&self, order: &[usize], node: &mut [usize]) -> Plan {
        let p = self.problem;
        let mut res = Reservations::new(p);
        let jobs = p.jobs.len();
        let mut maps_left: Vec<usize> = p.jobs.iter().map(|j| j.spec.maps).collect();
        let mut maps_end = vec![0u32; jobs];
        let mut placed: Vec<Vec<(TaskId, Assignment)>> = vec![Vec::new(); jobs];
        let mut pending: Vec<Vec<usize>> = vec![Vec::new(); jobs];
        let mut dead = vec![false; jobs];
        for &f in order {
            let j = self.tasks[f].0;
            if dead[j] {
                continue;
            }
            if p.jobs[j].tasks[self.tasks[f].1].kind == TaskKind::Reduce && maps_left[j] > 0 {
                pending[j].push(f);
                continue;
            }
            let mut queue = vec![f];
            while let Some(f) = queue.pop() {
                let (j, i) = self.tasks[f];
                let is_map = p.jobs[j].tasks[i].kind == TaskKind::Map;
                let from = if is_map { 0 } else { maps_end[j] };
                let a = match res.earliest_on((j, i), node[f], from, p.window_s) {
                    Some(start) => Some(Assignment {
                        node: node[f],
                        start,
                    }),
                    None => res
                        .earliest((j, i), from, p.window_s)
                        .map(|(start, nodes)| Assignment {
                            node: nodes[0],
                            start,
                        }),
                };
                let Some(a) = a else {
                    for (id, a) in placed[j].drain(..) {
                        res.reserve(id, a, -1.0);
                    }
                    dead[j] = true;
                    break;
                };
                node[f] = a.node;
                res.reserve((j, i), a, 1.0);
                placed[j].push(((j, i), a));
                if is_map {
                    maps_end[j] = maps_end[j].max(a.start + p.duration((j, i), a.node));
                    maps_left[j] -= 1;
                    if maps_left[j] == 0 {
                        // Pending reduces in their order (popped from the back).
                        queue.extend(pending[j].drain(..).rev());
                    }
                }
            }
        }
        let mut plan = p.empty_plan();
        for (id, a) in placed.into_iter().flatten() {
            plan.0[id.0][id.1] = Some(a);
        }
        plan
    }
}
