//! Local search with tabu and late acceptance (paper 001 §III-B2 and §III-E, the strategy
//! the paper runs in OptaPlanner with entityTabuRatio 0.2 and lateAcceptanceSize 500).
//!
//! It starts from a feasible plan (Alg. 1's) and moves the tasks of the jobs that plan
//! scheduled; a move may break constraints, which the hard score counts (spec §1.7, A16,
//! A17 — the paper states the framework and its parameters, frugal states the rest):
//!
//! - **Moves**, drawn uniformly among: (a) give one random task a random node, or a random
//!   start in [from, makespan − Te]; (b) swap the starts, or the nodes, of two random
//!   tasks; (c) give one random task a random earlier start, no earlier than `from`. Here
//!   `from` is 0 for a map and the current end of its job's maps for a reduce: frugal's
//!   bounds (a later start only lengthens the plan, an earlier one only breaks Eq. 5), so
//!   that drawn moves are not mostly infeasible.
//! - **Score** ([`Score`]): hard = violated (node, metric, 3-minute step) triples, where
//!   reservations exceed the forecast capacity at some second of the step (Eq. 6), plus
//!   tasks ending after T (Eq. 4) plus reduces starting before their job's maps end
//!   (Eq. 5); medium = scheduled tasks (constant here: jobs Alg. 1 rejected stay rejected,
//!   and moves keep every task of a scheduled job scheduled); soft = makespan, then the
//!   sum of task ends ([`Score`] says why).
//! - **Step**: evaluate up to `moves_per_step` moves and take the best *accepted* one. A
//!   move is accepted when (tabu) none of its tasks is among the last
//!   ⌈tabu_ratio · tasks⌉ moved tasks, unless it beats the best plan so far (aspiration),
//!   and (late acceptance) its score is at least the current one or the one
//!   `late_acceptance` steps ago. With no accepted move the step changes nothing.
//! - **Result**: the best feasible plan seen.
//!
//! Capacity usage is summed from integer task counts (CPU) and per-task RAM at every
//! evaluation, never kept as a running float, so no rounding drifts over millions of moves.

use std::cmp::{Ordering, Reverse};
use std::collections::BTreeMap;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::job::TaskKind;
use crate::plan::{Assignment, Plan, Problem, TaskId, within};
use crate::search::{Budget, Meter, SearchStats, Stop};
use crate::trace::STEP_S;

/// The parameters of the local search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalSearch {
    /// Share of the tasks that stay tabu after they move (OptaPlanner's entityTabuRatio).
    pub tabu_ratio: f64,
    /// Late-acceptance list length (OptaPlanner's lateAcceptanceSize).
    pub late_acceptance: usize,
    /// Moves evaluated per step (frugal's forager, spec §1.7).
    pub moves_per_step: usize,
}

impl LocalSearch {
    /// The paper's parameters (§III-E) and frugal's forager.
    pub const PAPER: LocalSearch = LocalSearch {
        tabu_ratio: 0.2,
        late_acceptance: 500,
        moves_per_step: 1000,
    };

    /// Improves `start` (a feasible plan of `problem`) within `budget`; random draws from
    /// `rng`. Returns the best feasible plan seen and how the search went.
    pub fn solve(
        &self,
        problem: &Problem,
        start: &Plan,
        budget: Budget,
        rng: &mut ChaCha8Rng,
    ) -> (Plan, SearchStats) {
        let mut meter = Meter::new(budget);
        let mut s = State::new(problem, start);
        if s.tasks.is_empty() {
            return (start.clone(), meter.stats(Stop::Nothing));
        }
        let n = s.tasks.len();
        let tabu = ((self.tabu_ratio * n as f64).ceil() as u64).min(n as u64 - 1);
        let late_len = self.late_acceptance.max(1);
        let mut current = s.score();
        let mut late = vec![current; late_len];
        let mut best = (current, s.assign.clone());
        let mut moved_at = vec![None::<u64>; n];
        let mut moves_made = 0u64;
        let stop = loop {
            if let Some(stop) = meter.stop() {
                break stop;
            }
            let late_score = late[(meter.iterations % late_len as u64) as usize];
            let mut chosen: Option<(Score, Move)> = None;
            for _ in 0..self.moves_per_step {
                if !meter.can_evaluate() {
                    break;
                }
                let mv = s.draw(rng, current.makespan);
                let score = s.evaluate(&mv);
                meter.evaluations += 1;
                let is_tabu = mv
                    .tasks()
                    .any(|f| moved_at[f].is_some_and(|at| moves_made - at < tabu));
                let accepted =
                    (!is_tabu || score > best.0) && (score >= current || score >= late_score);
                if accepted && chosen.as_ref().is_none_or(|(c, _)| score > *c) {
                    chosen = Some((score, mv));
                }
            }
            let mut improved = false;
            if let Some((score, mv)) = chosen {
                s.apply(&mv);
                for f in mv.tasks() {
                    moved_at[f] = Some(moves_made);
                    moves_made += 1;
                }
                current = score;
                if score.hard == 0 && score > best.0 {
                    best = (score, s.assign.clone());
                    improved = true;
                }
            }
            late[(meter.iterations % late_len as u64) as usize] = current;
            meter.iterate(improved);
        };
        let mut plan = start.clone();
        for (f, &(j, i)) in s.tasks.iter().enumerate() {
            plan.0[j][i] = Some(best.1[f]);
        }
        (plan, meter.stats(stop))
    }
}

/// A move: one or two tasks (flat indices) and their new assignments, kept inline so that
/// evaluating a move allocates nothing.
#[derive(Clone, Copy, Debug)]
struct Move {
    changes: [(usize, Assignment); 2],
    len: usize,
}

impl Move {
    fn one(f: usize, a: Assignment) -> Move {
        Move {
            changes: [(f, a); 2],
            len: 1,
        }
    }

    fn two(f: usize, a: Assignment, g: usize, b: Assignment) -> Move {
        Move {
            changes: [(f, a), (g, b)],
            len: 2,
        }
    }

    fn changes(&self) -> &[(usize, Assignment)] {
        &self.changes[..self.len]
    }

    fn tasks(&self) -> impl Iterator<Item = usize> + '_ {
        self.changes().iter().map(|c| c.0)
    }
}

/// The search state: the moved tasks' assignments and what the score needs.
struct State<'a> {
    problem: &'a Problem,
    /// Flat index → task.
    tasks: Vec<TaskId>,
    assign: Vec<Assignment>,
    /// Te(f, k), row-major by task.
    duration: Vec<u32>,
    ram: Vec<f64>,
    is_map: Vec<bool>,
    /// Per node, its tasks (flat indices).
    on_node: Vec<Vec<usize>>,
    /// Per node, violated (metric, step) pairs.
    node_hard: Vec<u64>,
    /// Per job (index into `jobs`), its reduces and the multiset of its maps' ends.
    job_of: Vec<usize>,
    jobs: Vec<JobState>,
    ends: BTreeMap<u32, u32>,
    total_end: u64,
    after_window: u64,
    events: Vec<(u32, i32, f64)>,
}

struct JobState {
    reduces: Vec<usize>,
    map_ends: BTreeMap<u32, u32>,
    hard: u64,
}

fn bump(m: &mut BTreeMap<u32, u32>, key: u32, up: bool) {
    if up {
        *m.entry(key).or_default() += 1;
    } else if let Some(c) = m.get_mut(&key) {
        *c -= 1;
        if *c == 0 {
            m.remove(&key);
        }
    }
}

impl<'a> State<'a> {
    fn new(problem: &'a Problem, plan: &Plan) -> State<'a> {
        let k = problem.nodes.len();
        let mut s = State {
            problem,
            tasks: Vec::new(),
            assign: Vec::new(),
            duration: Vec::new(),
            ram: Vec::new(),
            is_map: Vec::new(),
            on_node: vec![Vec::new(); k],
            node_hard: vec![0; k],
            job_of: Vec::new(),
            jobs: Vec::new(),
            ends: BTreeMap::new(),
            total_end: 0,
            after_window: 0,
            events: Vec::new(),
        };
        for (j, tasks) in plan.0.iter().enumerate() {
            if tasks.is_empty() || tasks.iter().any(Option::is_none) {
                continue;
            }
            let js = s.jobs.len();
            s.jobs.push(JobState {
                reduces: Vec::new(),
                map_ends: BTreeMap::new(),
                hard: 0,
            });
            for (i, a) in tasks.iter().enumerate() {
                let f = s.tasks.len();
                let task = &problem.jobs[j].tasks[i];
                s.tasks.push((j, i));
                s.assign.push(a.expect("whole job"));
                s.duration
                    .extend((0..k).map(|node| problem.duration((j, i), node)));
                s.ram.push(task.ram_gib);
                s.is_map.push(task.kind == TaskKind::Map);
                s.job_of.push(js);
                if task.kind == TaskKind::Reduce {
                    s.jobs[js].reduces.push(f);
                }
            }
        }
        for f in 0..s.tasks.len() {
            s.attach(f);
        }
        for node in 0..k {
            s.node_hard[node] = s.node_overflow(node);
        }
        for js in 0..s.jobs.len() {
            s.jobs[js].hard = s.precedence(js);
        }
        s
    }

    fn end(&self, f: usize) -> u32 {
        let a = self.assign[f];
        a.start + self.duration[f * self.problem.nodes.len() + a.node]
    }

    /// Adds task `f`'s current assignment to the node lists and end multisets.
    fn attach(&mut self, f: usize) {
        let end = self.end(f);
        self.on_node[self.assign[f].node].push(f);
        bump(&mut self.ends, end, true);
        self.total_end += u64::from(end);
        if self.is_map[f] {
            bump(&mut self.jobs[self.job_of[f]].map_ends, end, true);
        }
        self.after_window += u64::from(end > self.problem.window_s);
    }

    fn detach(&mut self, f: usize) {
        let end = self.end(f);
        let list = &mut self.on_node[self.assign[f].node];
        let at = list.iter().position(|&g| g == f).expect("task on its node");
        list.swap_remove(at);
        bump(&mut self.ends, end, false);
        self.total_end -= u64::from(end);
        if self.is_map[f] {
            bump(&mut self.jobs[self.job_of[f]].map_ends, end, false);
        }
        self.after_window -= u64::from(end > self.problem.window_s);
    }

    /// Violated (metric, 3-minute step) pairs on `node` (module docs).
    fn node_overflow(&mut self, node: usize) -> u64 {
        let cap = &self.problem.nodes[node];
        let k = self.problem.nodes.len();
        self.events.clear();
        for &f in &self.on_node[node] {
            let a = self.assign[f];
            let end = a.start + self.duration[f * k + node];
            self.events.push((a.start, 1, self.ram[f]));
            self.events.push((end, -1, -self.ram[f]));
        }
        self.events.sort_unstable_by_key(|e| e.0);
        let (mut count, mut ram) = (0i32, 0.0f64);
        let (mut cpu_step, mut ram_step) = (None, None);
        let mut hard = 0;
        let mut i = 0;
        while i < self.events.len() {
            let t = self.events[i].0;
            while i < self.events.len() && self.events[i].0 == t {
                count += self.events[i].1;
                ram += self.events[i].2;
                i += 1;
            }
            let Some(&(next, _, _)) = self.events.get(i) else {
                break;
            };
            if count == 0 || next == t {
                continue;
            }
            let cpu = f64::from(count) * cap.slot_flops;
            for step in (t / STEP_S) as usize..=((next - 1) / STEP_S) as usize {
                let over = |used: f64, c: Option<&f64>| !c.is_some_and(|&c| within(used, c));
                if over(cpu, cap.cpu.get(step)) && cpu_step != Some(step) {
                    cpu_step = Some(step);
                    hard += 1;
                }
                if over(ram, cap.ram.get(step)) && ram_step != Some(step) {
                    ram_step = Some(step);
                    hard += 1;
                }
            }
        }
        hard
    }

    /// Reduces of job state `js` that start before its maps end.
    fn precedence(&self, js: usize) -> u64 {
        let job = &self.jobs[js];
        let maps_end = job.map_ends.keys().next_back().copied().unwrap_or(0);
        job.reduces
            .iter()
            .filter(|&&f| self.assign[f].start < maps_end)
            .count() as u64
    }

    fn score(&self) -> Score {
        Score {
            hard: self.node_hard.iter().sum::<u64>()
                + self.after_window
                + self.jobs.iter().map(|j| j.hard).sum::<u64>(),
            scheduled: self.tasks.len(),
            makespan: self.ends.keys().next_back().copied().unwrap_or(0),
            total_end: self.total_end,
        }
    }

    /// Sets the assignments of `mv` and updates the affected nodes and jobs.
    fn apply(&mut self, mv: &Move) {
        let mut nodes = [0; 4];
        let mut jobs = [0; 2];
        for (c, &(f, a)) in mv.changes().iter().enumerate() {
            nodes[2 * c] = self.assign[f].node;
            nodes[2 * c + 1] = a.node;
            jobs[c] = self.job_of[f];
            self.detach(f);
            self.assign[f] = a;
            self.attach(f);
        }
        let (nodes, jobs) = (&nodes[..2 * mv.len], &jobs[..mv.len]);
        for (i, &node) in nodes.iter().enumerate() {
            if !nodes[..i].contains(&node) {
                self.node_hard[node] = self.node_overflow(node);
            }
        }
        for (i, &js) in jobs.iter().enumerate() {
            if !jobs[..i].contains(&js) {
                self.jobs[js].hard = self.precedence(js);
            }
        }
    }

    /// The score after `mv`, leaving the state as it was.
    fn evaluate(&mut self, mv: &Move) -> Score {
        let mut undo = *mv;
        for c in &mut undo.changes[..mv.len] {
            c.1 = self.assign[c.0];
        }
        self.apply(mv);
        let score = self.score();
        self.apply(&undo);
        score
    }

    /// A random move (module docs).
    fn draw(&self, rng: &mut ChaCha8Rng, makespan: u32) -> Move {
        let n = self.tasks.len();
        let k = self.problem.nodes.len();
        let f = rng.random_range(0..n);
        let a = self.assign[f];
        // The earliest start precedence allows: a reduce's maps' current end.
        let from = if self.is_map[f] {
            0
        } else {
            let ends = &self.jobs[self.job_of[f]].map_ends;
            ends.keys().next_back().copied().unwrap_or(0)
        };
        let start = |rng: &mut ChaCha8Rng, hi: u32| rng.random_range(from.min(hi)..=hi);
        match rng.random_range(0..3) {
            0 if rng.random_bool(0.5) => Move::one(
                f,
                Assignment {
                    node: rng.random_range(0..k),
                    ..a
                },
            ),
            0 => {
                let d = self.duration[f * k + a.node];
                let hi = makespan.min(self.problem.window_s).saturating_sub(d);
                Move::one(
                    f,
                    Assignment {
                        start: start(rng, hi),
                        ..a
                    },
                )
            }
            1 => {
                let g = rng.random_range(0..n);
                let b = self.assign[g];
                if rng.random_bool(0.5) {
                    Move::two(
                        f,
                        Assignment {
                            start: b.start,
                            ..a
                        },
                        g,
                        Assignment {
                            start: a.start,
                            ..b
                        },
                    )
                } else {
                    Move::two(
                        f,
                        Assignment { node: b.node, ..a },
                        g,
                        Assignment { node: a.node, ..b },
                    )
                }
            }
            _ => Move::one(
                f,
                Assignment {
                    start: start(rng, a.start.saturating_sub(1)),
                    ..a
                },
            ),
        }
    }
}

/// A plan's score, compared lexicographically as in OptaPlanner's hard/medium/soft scores
/// (spec §1.7): fewer violated constraints, then more scheduled tasks (Eq. 2), then a
/// shorter makespan (Eq. 3), then a smaller sum of task ends. `Greater` is better.
///
/// The last term is frugal's: with the makespan alone, every move of a task that does not
/// end last scores the same, and a plan whose makespan is set by several tasks (all the
/// reduces of a wave end together) has no improving single move — the search never left
/// Alg. 1's plan in 1,000,000 evaluations on 680 tasks. Rewarding earlier ends compacts the
/// plan until the last tasks can move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// Violated constraints (0 = feasible).
    pub hard: u64,
    /// Scheduled tasks.
    pub scheduled: usize,
    /// Makespan, seconds.
    pub makespan: u32,
    /// Σ (ts(i) + Te(i, n(i))), seconds.
    pub total_end: u64,
}

impl Score {
    fn key(&self) -> (Reverse<u64>, usize, Reverse<u32>, Reverse<u64>) {
        (
            Reverse(self.hard),
            self.scheduled,
            Reverse(self.makespan),
            Reverse(self.total_end),
        )
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
