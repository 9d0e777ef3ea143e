//! The joint plan of several jobs through a MILP solver: Eq. 2–6 with every job scheduled
//! and Eq. 3's one makespan over all jobs minimised — the objective [`crate::exact`]'s
//! construction (each job's optimum given the jobs before it) does not prove.
//!
//! The model is time-indexed on a grid of [`GRID_S`] = 60 seconds and needs plan slots
//! that are multiples of it (`--plan-slot-s 60` or Table I's 180): every duration is then a
//! whole number of grid pieces and the capacity is constant over each 3-minute step, so
//! moving each start down to the grid keeps a plan feasible (the tasks running during a
//! piece are those that ran at its last instant, and a reduce still starts after its maps
//! end). Restricted to the grid, the MILP is therefore exact. With 1-s plan slots (the
//! default) it would plan a different problem, so [`solve`] refuses them.
//!
//! Tasks of one job and kind are identical, so the integer y(g, n, q) counts the tasks of
//! group g (job, kind) that start on node n in piece q, and S(g, n, q) = Σ_{q' ≤ q} y(g,
//! n, q') keeps every constraint short: tasks of g running on n in piece q are
//! S(q) − S(q − d), those ended by q are S(q − d) (d = the group's duration on n in
//! pieces). Binary w(j, q): every map of job j has ended by piece q, and a reduce of j
//! starts at q only then (Eq. 6's precedence); binary v(q): every task has ended by q.
//! Maximising Σ v minimises the makespan 60 · (H + 1 − Σ v). The horizon H is the
//! incumbent plan's makespan (the construction's), so the model only searches for
//! something at least as short, and it stays small: a few thousand integers for three
//! paper-sized jobs instead of one per second of the 24-hour window.

#[cfg(feature = "highs")]
use good_lp::WithInitialSolution;
use good_lp::{
    Expression, ProblemVariables, ResolutionError, Solution, SolverModel, Variable, constraint,
    variable,
};
use thiserror::Error;

use crate::exact;
use crate::job::TaskKind;
use crate::plan::{Assignment, Plan, Problem, violations};
use crate::trace::STEP_S;

/// The model's grid, seconds.
pub const GRID_S: u32 = 60;

/// The MILP solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `microlp` (pure Rust, no time limit: for small problems).
    Microlp,
    /// HiGHS, with a time limit (feature `highs`).
    #[cfg(feature = "highs")]
    Highs,
}

impl Backend {
    /// HiGHS when built in, else `microlp`.
    #[cfg(feature = "highs")]
    pub const BEST: Backend = Backend::Highs;
    /// HiGHS when built in, else `microlp`.
    #[cfg(not(feature = "highs"))]
    pub const BEST: Backend = Backend::Microlp;
}

/// Why [`solve`] could not run.
#[derive(Debug, Error)]
pub enum JointError {
    /// The plan slot is not a multiple of the grid.
    #[error(
        "the joint MILP plans on a {GRID_S}-s grid: plan slots of {0} s are not a multiple of it"
    )]
    Grid(u32),
    /// The incumbent does not schedule every job, or breaks Eq. 4–6.
    #[error("the incumbent plan must schedule every job within the constraints")]
    Incumbent,
    /// The solver failed.
    #[error("MILP solver: {0}")]
    Solver(String),
}

/// What [`solve`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// The best plan found (the incumbent when the solver found nothing shorter).
    pub plan: Plan,
    /// Its makespan (Eq. 3), seconds.
    pub makespan_s: u32,
    /// Whether the solver proved no plan is shorter.
    pub proven_optimal: bool,
    /// 100 × (makespan / [`exact::lower_bound`] − 1): 0 when proven optimal.
    pub gap_pct: f64,
}

/// One group of identical tasks: its job, kind and task indices.
struct Group {
    job: usize,
    kind: TaskKind,
    ram_gib: f64,
    tasks: Vec<usize>,
}

fn groups(problem: &Problem) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for (j, job) in problem.jobs.iter().enumerate() {
        let first = out.len();
        for (i, t) in job.tasks.iter().enumerate() {
            let same = |g: &&mut Group| {
                let r = &job.tasks[g.tasks[0]];
                g.kind == t.kind && r.ram_gib == t.ram_gib && r.work_flop == t.work_flop
            };
            match out[first..].iter_mut().find(|g| same(g)) {
                Some(g) => g.tasks.push(i),
                None => out.push(Group {
                    job: j,
                    kind: t.kind,
                    ram_gib: t.ram_gib,
                    tasks: vec![i],
                }),
            }
        }
    }
    out
}

/// The shortest joint plan of every job of `problem`, searched by `backend` within
/// `time_limit_s` (HiGHS only; `microlp` runs to the end), starting from `incumbent`.
///
/// # Errors
/// [`JointError`]: plan slots off the grid, an incumbent that is not a whole feasible
/// plan, or a solver failure other than running out of time.
pub fn solve(
    problem: &Problem,
    incumbent: &Plan,
    backend: Backend,
    time_limit_s: f64,
    warm: bool,
) -> Result<Joint, JointError> {
    if !problem.plan_slot_s.is_multiple_of(GRID_S) {
        return Err(JointError::Grid(problem.plan_slot_s));
    }
    if incumbent.jobs_scheduled() < problem.jobs.len() || !violations(problem, incumbent).is_empty()
    {
        return Err(JointError::Incumbent);
    }
    let all: Vec<usize> = (0..problem.jobs.len()).collect();
    let bound = exact::lower_bound(problem, &all);
    let best = incumbent.makespan(problem);
    let result = |plan: Plan, proven: bool| {
        let makespan_s = plan.makespan(problem);
        let gap_pct = match (proven, bound) {
            (true, _) | (false, 0) => 0.0,
            (false, b) => 100.0 * (f64::from(makespan_s) / f64::from(b) - 1.0),
        };
        Joint {
            plan,
            makespan_s,
            proven_optimal: proven || makespan_s <= bound,
            gap_pct,
        }
    };
    if warm && best <= bound {
        return Ok(result(incumbent.clone(), true));
    }
    let model = Model::new(problem, best / GRID_S);
    let (found, proven) = model.solve(backend, time_limit_s, warm.then_some(incumbent))?;
    Ok(match found {
        Some(plan) if plan.makespan(problem) < best => result(plan, proven),
        _ => result(incumbent.clone(), proven),
    })
}

/// The MILP's variables and constraints.
struct Model<'a> {
    problem: &'a Problem,
    groups: Vec<Group>,
    /// Pieces in the horizon H.
    pieces: u32,
    vars: ProblemVariables,
    /// y[g][n][q], only where a task started at q ends by H.
    y: Vec<Vec<Vec<Variable>>>,
    /// S[g][n][q], cumulative starts, same shape as y.
    s: Vec<Vec<Vec<Variable>>>,
    /// w[j][q], q = 0 … H.
    w: Vec<Vec<Variable>>,
    /// v[q], q = 0 … H.
    v: Vec<Variable>,
}

impl<'a> Model<'a> {
    fn new(problem: &'a Problem, pieces: u32) -> Self {
        let groups = groups(problem);
        let mut vars = ProblemVariables::new();
        let (mut y, mut s) = (Vec::new(), Vec::new());
        for g in &groups {
            let count = g.tasks.len() as f64;
            let (mut yg, mut sg) = (Vec::new(), Vec::new());
            for n in 0..problem.nodes.len() {
                let d = problem.duration((g.job, g.tasks[0]), n) / GRID_S;
                // Starts q with q + d ≤ H.
                let starts = if d <= pieces {
                    (pieces - d + 1) as usize
                } else {
                    0
                };
                yg.push(vars.add_vector(variable().integer().min(0).max(count), starts));
                sg.push(vars.add_vector(variable().min(0).max(count), starts));
            }
            y.push(yg);
            s.push(sg);
        }
        let w = problem
            .jobs
            .iter()
            .map(|_| vars.add_vector(variable().binary(), pieces as usize + 1))
            .collect();
        let v = vars.add_vector(variable().binary(), pieces as usize + 1);
        Model {
            problem,
            groups,
            pieces,
            vars,
            y,
            s,
            w,
            v,
        }
    }

    fn d(&self, g: usize, n: usize) -> u32 {
        let group = &self.groups[g];
        self.problem.duration((group.job, group.tasks[0]), n) / GRID_S
    }

    /// Tasks of g started on n in pieces ≤ q (0 before the first piece).
    fn started(&self, g: usize, n: usize, q: i64) -> Expression {
        let sg = &self.s[g][n];
        if q < 0 || sg.is_empty() {
            return Expression::from(0.0);
        }
        Expression::from(sg[(q as usize).min(sg.len() - 1)])
    }

    /// Tasks of g ended by piece q, over every node.
    fn ended(&self, g: usize, q: u32) -> Expression {
        (0..self.problem.nodes.len())
            .map(|n| self.started(g, n, i64::from(q) - i64::from(self.d(g, n))))
            .sum()
    }

    fn constraints(&self) -> Vec<good_lp::Constraint> {
        let p = self.problem;
        let mut out = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            let mut total = Expression::from(0.0);
            for n in 0..p.nodes.len() {
                for (q, (&y, &s)) in self.y[g][n].iter().zip(&self.s[g][n]).enumerate() {
                    let before = self.started(g, n, q as i64 - 1);
                    out.push(constraint!(s == before + y));
                }
                total += self.started(g, n, i64::from(self.pieces));
            }
            out.push(constraint!(total == group.tasks.len() as f64));
        }
        for (n, node) in p.nodes.iter().enumerate() {
            for q in 0..self.pieces {
                let step = (q * GRID_S / STEP_S) as usize;
                let cpu = node.cpu.get(step).copied().unwrap_or(0.0) / node.slot_flops;
                let ram = node.ram.get(step).copied().unwrap_or(0.0);
                let (mut slots, mut gib) = (Expression::from(0.0), Expression::from(0.0));
                for (g, group) in self.groups.iter().enumerate() {
                    let running = self.started(g, n, i64::from(q))
                        - self.started(g, n, i64::from(q) - i64::from(self.d(g, n)));
                    gib += group.ram_gib * running.clone();
                    slots += running;
                }
                // The plan checker's relative slack of 10⁻⁹ (crate::plan).
                out.push(constraint!(slots <= cpu * (1.0 + 1e-9)));
                out.push(constraint!(gib <= ram * (1.0 + 1e-9)));
            }
        }
        for (j, job) in p.jobs.iter().enumerate() {
            let of = |kind| {
                (0..self.groups.len())
                    .filter(move |&g| self.groups[g].job == j && self.groups[g].kind == kind)
            };
            let (maps, reduces) = (job.maps().len() as f64, job.reduces().len() as f64);
            for q in 0..=self.pieces {
                let w = self.w[j][q as usize];
                let maps_ended: Expression = of(TaskKind::Map).map(|g| self.ended(g, q)).sum();
                out.push(constraint!(maps_ended >= maps * w));
                let starting: Expression = of(TaskKind::Reduce)
                    .flat_map(|g| {
                        (0..p.nodes.len()).filter_map(move |n| self.y[g][n].get(q as usize))
                    })
                    .map(|&y| Expression::from(y))
                    .sum();
                out.push(constraint!(starting <= reduces * w));
                if q < self.pieces {
                    out.push(constraint!(w <= self.w[j][q as usize + 1]));
                }
            }
        }
        let tasks: usize = self.groups.iter().map(|g| g.tasks.len()).sum();
        for q in 0..=self.pieces {
            let done: Expression = (0..self.groups.len()).map(|g| self.ended(g, q)).sum();
            let v = self.v[q as usize];
            out.push(constraint!(done >= tasks as f64 * v));
            if q < self.pieces {
                out.push(constraint!(v <= self.v[q as usize + 1]));
            }
        }
        out
    }

    /// The best plan the solver found (if any) and whether it is proven optimal.
    fn solve(
        mut self,
        backend: Backend,
        time_limit_s: f64,
        incumbent: Option<&Plan>,
    ) -> Result<(Option<Plan>, bool), JointError> {
        let constraints = self.constraints();
        let vars = std::mem::replace(&mut self.vars, ProblemVariables::new());
        let objective: Expression = self.v.iter().sum();
        let problem = vars.maximise(objective);
        let solution = match backend {
            Backend::Microlp => {
                let _ = (time_limit_s, incumbent);
                problem
                    .using(good_lp::microlp)
                    .with_all(constraints)
                    .solve()
                    .map(|s| {
                        let plan = self.plan_of(&s);
                        (plan, true)
                    })
            }
            #[cfg(feature = "highs")]
            Backend::Highs => {
                // One thread: the runs around it use the other cores, and the search
                // repeats.
                let mut model = problem
                    .using(good_lp::highs)
                    .set_time_limit(time_limit_s)
                    .set_threads(1);
                if let Some(plan) = incumbent {
                    model = model.with_initial_solution(self.values_of(plan));
                }
                model.with_all(constraints).solve().map(|s| {
                    let proven = matches!(s.status(), good_lp::SolutionStatus::Optimal);
                    (self.plan_of(&s), proven)
                })
            }
        };
        match solution {
            Ok(found) => Ok(found),
            // Out of time before a solution (HiGHS): the incumbent stands.
            Err(ResolutionError::Infeasible | ResolutionError::Other("NoSolutionFound")) => {
                Ok((None, false))
            }
            Err(e) => Err(JointError::Solver(e.to_string())),
        }
    }

    /// The variables' values for `plan` (a whole feasible plan within the horizon), its
    /// starts moved down to the grid: the solver's starting solution.
    #[cfg(feature = "highs")]
    fn values_of(&self, plan: &Plan) -> Vec<(Variable, f64)> {
        let nodes = self.problem.nodes.len();
        let mut out = Vec::new();
        let mut ended = vec![vec![0usize; self.pieces as usize + 1]; self.groups.len()];
        for (g, group) in self.groups.iter().enumerate() {
            let mut counts = vec![vec![0usize; self.pieces as usize + 1]; nodes];
            for &i in &group.tasks {
                let a = plan.0[group.job][i].expect("a whole plan");
                let q = (a.start / GRID_S) as usize;
                counts[a.node][q] += 1;
                let end = q + self.d(g, a.node) as usize;
                for e in &mut ended[g][end.min(self.pieces as usize)..] {
                    *e += 1;
                }
            }
            for (n, count) in counts.iter().enumerate() {
                let mut total = 0;
                for (q, (&y, &s)) in self.y[g][n].iter().zip(&self.s[g][n]).enumerate() {
                    total += count[q];
                    out.push((y, count[q] as f64));
                    out.push((s, total as f64));
                }
            }
        }
        // 1 when every task of the groups `of` has ended by piece q.
        let all_ended = |of: &dyn Fn(&Group) -> bool, q: usize| {
            let done = (0..self.groups.len())
                .filter(|&g| of(&self.groups[g]))
                .all(|g| ended[g][q] == self.groups[g].tasks.len());
            f64::from(u8::from(done))
        };
        for (j, w) in self.w.iter().enumerate() {
            let maps = |g: &Group| g.job == j && g.kind == TaskKind::Map;
            for (q, &var) in w.iter().enumerate() {
                out.push((var, all_ended(&maps, q)));
            }
        }
        for (q, &var) in self.v.iter().enumerate() {
            out.push((var, all_ended(&|_| true, q)));
        }
        out
    }

    /// The plan of a solution, if it is a whole feasible plan.
    fn plan_of(&self, solution: &impl Solution) -> Option<Plan> {
        let mut plan = self.problem.empty_plan();
        for (g, group) in self.groups.iter().enumerate() {
            let mut tasks = group.tasks.iter();
            for (n, ys) in self.y[g].iter().enumerate() {
                for (q, &y) in ys.iter().enumerate() {
                    for _ in 0..solution.value(y).round() as usize {
                        let i = *tasks.next()?;
                        plan.0[group.job][i] = Some(Assignment {
                            node: n,
                            start: q as u32 * GRID_S,
                        });
                    }
                }
            }
        }
        let whole = plan.jobs_scheduled() == self.problem.jobs.len();
        (whole && violations(self.problem, &plan).is_empty()).then_some(plan)
    }
}
