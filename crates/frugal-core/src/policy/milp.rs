//! The per-job MILP of papers 004 (Eq. 1–4, Alg. 2) and 000 (Eq. 16) through a real solver.

use std::time::Duration;

use good_lp::{
    Expression, ProblemVariables, ResolutionError, Solution, SolutionStatus, SolverModel, Variable,
    WithMipGap, WithTimeLimit, constraint, variable,
};

use super::objective::{placement_cost, vm_cost};
use super::{Gio, PlacementPolicy, Reading};
use crate::cluster::{Cluster, Site};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;
use crate::resources::RESOURCE_DIMS;

/// MILP solver behind the `milp` policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MilpBackend {
    /// microlp: pure Rust, always available.
    Microlp,
    /// HiGHS (C++), in a build with the `highs` cargo feature ([`MilpBackend::available`]).
    Highs,
}

crate::choice! {
    impl Choice for MilpBackend {
        Microlp = "microlp": "microlp, pure Rust",
        Highs = "highs": "HiGHS (a build with `--features highs`)",
    }
}

impl MilpBackend {
    /// The backend, if this build has it (every face checks before it runs a policy).
    ///
    /// # Errors
    /// `highs` in a build without the `highs` feature.
    pub fn available(self) -> Result<MilpBackend, String> {
        match self {
            #[cfg(not(feature = "highs"))]
            MilpBackend::Highs => Err("highs: this build lacks the `highs` feature".to_string()),
            b => Ok(b),
        }
    }
}

/// Per-job MILP placement (paper 004 Alg. 2 with the time-aware hybrid objective of paper
/// 000 Eq. 16), one integer executor count per VM instead of one binary per executor.
///
/// Variables, for every VM j with room for an executor: n_j ∈ ℤ, 0 ≤ n_j (executors),
/// y_j ∈ {0,1} (VM used by this job, paper 004 y_jk / paper 000 x_j, y_j); if the cluster
/// has a local site, h ∈ {0,1} (some executor in the cloud) and z_j ∈ [0,1] (= y_j ∧ h).
/// Constraints: Σ n_j = E (Eq. 2/14); n_j·τ_d ≤ ω_{j,d}·y_j in every dimension d (Eq. 3–4,
/// 6–7, 12–13); n_j ≤ k_j·h for cloud VMs; z_j ≥ y_j + h − 1.
/// Objective: Σ a_j·y_j + Σ b_j·z_j with a_j = P_j·max(0, T_C^L − T_j) and
/// b_j = P_j·max(0, T_C^H − T_j) − a_j ≥ 0, i.e. Σ over used VMs of P_j·max(0, T_C − T_j)
/// with T_C from Eq. 5 — the same objective as [`super::Optimal`].
///
/// Paper 004 forces y = 1 for VMs already on because its Eq. 1 charges a VM by the time
/// unit; with remaining active times T_j that sunk cost is already priced in (an on VM
/// with T_j ≥ T_C costs 0), and forcing y would charge VMs the job does not use.
///
/// Which objective depends on the [`Reading`]:
///
/// - [`Reading::PaperText`] (default): the objective above.
/// - [`Reading::AuthorsCode`], RM-Simulator `Policy/ILPScheduler.java` (commit 8c959db):
///   every VM's term is P_j·max(0, T_C^L − T_j) whatever the site (no T_C^H), and every
///   running VM is forced to y_j = 1. A forced term is a constant, so a running VM costs
///   this job nothing however far it extends the VM's active time: the optimum uses
///   running VMs first, in whatever order the solver lands on, and pays only for the off
///   VMs it turns on (P_j·T_C^L each). Here that is a_j = 0 for running VMs and no h, z;
///   ties between running VMs fall to the solver, as in the authors' code. Paper 004's
///   prototype (SLA-Scheduler `Scheduler/LPSolver.java`) builds the same model with
///   Σ P_j·y_j (no T_C, the same optimum: T_C^L is common to every term) and used agents
///   forced to 1, so this reading is both papers' code.
///
/// A solve that hits the time limit falls back to [`Gio`] (paper 004 §6.7 recommends the
/// best heuristic; GIO minimises this objective greedily), keeping the solver's incumbent
/// if it is cheaper. A solver error also falls back.
pub struct Milp {
    backend: MilpBackend,
    time_limit: Duration,
    reading: Reading,
    fallback: Gio,
    fallbacks: u64,
}

impl Milp {
    /// A MILP policy on `backend` with a per-decision `time_limit`, following `reading`
    /// (its fallback, GIO, follows the same reading).
    pub fn new(backend: MilpBackend, time_limit: Duration, reading: Reading) -> Self {
        Milp {
            backend,
            time_limit,
            reading,
            fallback: Gio::new(reading),
            fallbacks: 0,
        }
    }

    /// Decisions that fell back to the heuristic so far.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks
    }

    /// Solves the model; `Ok(None)` if infeasible, `Err` on time limit or solver error
    /// (with the incumbent, if any).
    fn solve(
        &self,
        job: &Job,
        cluster: &Cluster,
        now: f64,
    ) -> Result<Option<Placement>, Option<Placement>> {
        let d = &job.executor_demand;
        let mut vars = ProblemVariables::new();
        let paper_text = self.reading == Reading::PaperText;
        let hybrid = (cluster.has_local_site && paper_text).then(|| vars.add(variable().binary()));
        struct VmVars {
            id: u32,
            n: Variable,
            y: Variable,
            z: Option<Variable>,
            a: f64,
            b: f64,
        }
        let mut vms = Vec::new();
        for v in &cluster.vms {
            let k = v.free.copies_of(d);
            if k == 0 {
                continue;
            }
            let a = vm_cost(v, job.t_local, now);
            let (a, b) = match (paper_text, hybrid.is_some()) {
                (true, true) => (a, vm_cost(v, job.t_hybrid, now) - a),
                (true, false) => (a, 0.0),
                (false, _) => (if v.is_active() { 0.0 } else { a }, 0.0),
            };
            vms.push(VmVars {
                id: v.id,
                n: vars.add(variable().integer().min(0).max(k)),
                y: vars.add(variable().binary()),
                z: hybrid.map(|_| vars.add(variable().min(0).max(1))),
                a,
                b,
            });
        }
        if (vms.len() as u64) == 0 {
            return Ok(None);
        }
        let objective: Expression = vms
            .iter()
            .map(|v| v.a * v.y + v.z.map_or(Expression::from(0.0), |z| v.b * z))
            .sum();
        let total: Expression = vms.iter().map(|v| v.n).sum();
        let mut constraints = vec![constraint!(total == job.executors)];
        for v in &vms {
            let vm = cluster.vm(v.id);
            for dim in 0..RESOURCE_DIMS {
                if d.0[dim] > 0 {
                    constraints.push(constraint!(
                        f64::from(d.0[dim]) * v.n <= f64::from(vm.free.0[dim]) * v.y
                    ));
                }
            }
            if let (Some(h), Some(z)) = (hybrid, v.z) {
                if vm.site == Site::Cloud {
                    constraints.push(constraint!(v.n <= f64::from(vm.free.copies_of(d)) * h));
                }
                constraints.push(constraint!(z >= v.y + h - 1));
            }
        }
        let read = |s: &dyn Solution| {
            let mut p = Placement::default();
            for v in &vms {
                p.add(v.id, s.value(v.n).round() as u32);
            }
            p
        };
        let limit = self.time_limit.as_secs_f64();
        let problem = vars.minimise(objective);
        macro_rules! run {
            ($solver:expr) => {{
                let mut m = problem
                    .using($solver)
                    .with_time_limit(limit)
                    .with_mip_gap(0.0)
                    .expect("a zero MIP gap is valid");
                for c in constraints {
                    m.add_constraint(c);
                }
                match m.solve() {
                    // With a zero gap requested, GapLimit is the solver's own optimality
                    // tolerance (HiGHS reports any positive final gap that way).
                    Ok(s)
                        if matches!(
                            s.status(),
                            SolutionStatus::Optimal | SolutionStatus::GapLimit
                        ) =>
                    {
                        Ok(Some(read(&s)))
                    }
                    Ok(s) => Err(Some(read(&s))),
                    Err(ResolutionError::Infeasible) => Ok(None),
                    Err(_) => Err(None),
                }
            }};
        }
        match self.backend {
            MilpBackend::Microlp => run!(good_lp::solvers::microlp::microlp),
            #[cfg(feature = "highs")]
            MilpBackend::Highs => run!(good_lp::solvers::highs::highs),
            // Refused before any run by `MilpBackend::available`; unsolved if reached.
            #[cfg(not(feature = "highs"))]
            MilpBackend::Highs => Err(None),
        }
    }
}

impl PlacementPolicy for Milp {
    fn name(&self) -> &'static str {
        "milp"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        match self.solve(job, cluster, now) {
            Ok(p) => p,
            Err(incumbent) => {
                self.fallbacks += 1;
                let heuristic = self.fallback.place(job, cluster, now);
                let valid = incumbent.filter(|p| p.executors() == job.executors);
                match (valid, heuristic) {
                    (Some(i), Some(h)) => Some(
                        if placement_cost(job, cluster, now, &i)
                            <= placement_cost(job, cluster, now, &h)
                        {
                            i
                        } else {
                            h
                        },
                    ),
                    (i, h) => i.or(h),
                }
            }
        }
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }
}
