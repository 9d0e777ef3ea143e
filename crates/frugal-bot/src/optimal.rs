//! The exact minimum rent of a small bag: paper 003's binary program (Eq. 1–9) as an
//! integer linear program on good_lp's pure-Rust microlp solver.
//!
//! Variables: x_{t,k} = 1 if task t runs on core k (PM cores, and the cores of up to
//! ⌈T / N_v⌉ VMs of every type that can meet the deadlines — enough for every task to
//! have a core of its own); h_v ≥ 0 integer, the hours VM v is billed. Constraints:
//!
//! - every task on exactly one core (Eq. 7);
//! - deadlines (Eq. 1–2) with each core's tasks in deadline order, which meets every
//!   deadline that any order meets (EDF on one machine): for task t on core k,
//!   2000 · Σ_{j ⪯ t} w_j x_{j,k} ≤ α·w_t·r_k + M_t·(1 − x_{t,k}), ⪯ the order by work,
//!   then index, M_t = 2000 · Σ_{j ⪯ t} w_j;
//! - a VM is billed for its latest core (Eq. 4–5): 1000 · Σ_t w_t x_{t,k} ≤ 3600·r·h_v;
//! - symmetry: VMs of a type are billed in non-increasing hours.
//!
//! Objective: Σ p_v h_v (Eq. 6). Identical PMs are interchangeable, so at most T of
//! each (cores, speed) kind enter the model. The schedule returned keeps every core's
//! tasks in deadline order.

use std::time::Duration;

use good_lp::{
    Expression, ResolutionError, Solution, SolutionStatus, SolverModel, Variable, WithTimeLimit,
    constraint, variable, variables,
};

use crate::ha::pm_order;
use crate::model::{Machine, Origin, Schedule, ScheduleError, Setup};
use crate::tasks::Task;

/// Largest bag [`schedule`] accepts.
pub const MAX_TASKS: usize = 12;

/// Why the optimum is not available.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OptimalError {
    /// The bag is too large for an exact solution.
    #[error("the exact optimum is limited to {MAX_TASKS} tasks; this bag has {0}")]
    TooManyTasks(usize),
    /// The solver did not prove optimality in time.
    #[error("the solver did not prove an optimum within {0:?}")]
    TimeLimit(Duration),
    /// No schedule exists.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
}

/// A core of the model: its machine (index into the machine list) and speed.
struct ModelCore {
    machine: usize,
    core: usize,
    mhz: u64,
}

/// The minimum-rent schedule of `tasks` at deadline factor `alpha`.
///
/// # Errors
/// [`OptimalError::TooManyTasks`] above [`MAX_TASKS`]; [`OptimalError::TimeLimit`] if
/// microlp does not finish within `time_limit`; [`ScheduleError::NoVmType`] if the PMs
/// cannot hold the bag and no VM type can meet deadlines.
pub fn schedule(
    setup: &Setup,
    tasks: &[Task],
    alpha: u32,
    time_limit: Duration,
) -> Result<Schedule, OptimalError> {
    if tasks.len() > MAX_TASKS {
        return Err(OptimalError::TooManyTasks(tasks.len()));
    }
    let t_count = tasks.len();
    // Machines: at most T PMs of each kind, then ⌈T/N⌉ VMs of each rentable type.
    let mut machines = Vec::new();
    let mut kinds: Vec<((u32, u64), usize)> = Vec::new();
    for i in pm_order(setup, alpha) {
        let p = &setup.pms[i];
        let kind = (p.cores, p.mhz);
        let n = match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => n,
            None => {
                kinds.push((kind, 0));
                &mut kinds.last_mut().expect("just pushed").1
            }
        };
        if *n < t_count {
            *n += 1;
            machines.push(Machine::new(Origin::Pm(i), p));
        }
    }
    let pm_count = machines.len();
    for (v, t) in setup.vm_types.iter().enumerate() {
        if t.can_meet_deadlines(alpha) && t.price_per_hour.is_some() && t.cores > 0 {
            for _ in 0..t_count.div_ceil(t.cores as usize) {
                machines.push(Machine::new(Origin::Vm(v), t));
            }
        }
    }
    let cores: Vec<ModelCore> = (machines.iter().enumerate())
        .flat_map(|(m, machine)| {
            (0..machine.cores.len()).map(move |c| ModelCore {
                machine: m,
                core: c,
                mhz: machine.mhz,
            })
        })
        .collect();
    // Tasks in deadline order (work, then index): rank[t] is t's position.
    let mut order: Vec<usize> = (0..t_count).collect();
    order.sort_by_key(|&t| (tasks[t].work, t));

    let mut vars = variables!();
    let x: Vec<Vec<Variable>> = (0..t_count)
        .map(|_| {
            cores
                .iter()
                .map(|_| vars.add(variable().binary()))
                .collect()
        })
        .collect();
    let hours: Vec<Option<Variable>> = (machines.iter())
        .map(|m| matches!(m.origin, Origin::Vm(_)).then(|| vars.add(variable().integer().min(0))))
        .collect();
    let price = |m: &Machine| match m.origin {
        Origin::Vm(v) => setup.vm_types[v].price_per_hour.unwrap_or(0.0),
        Origin::Pm(_) => 0.0,
    };
    let objective: Expression = (machines.iter().zip(&hours))
        .filter_map(|(m, h)| h.map(|h| price(m) * h))
        .sum();
    let mut problem = vars
        .minimise(objective)
        .using(good_lp::solvers::microlp::microlp);
    for xt in &x {
        problem.add_constraint(constraint!(xt.iter().sum::<Expression>() == 1));
    }
    for (k, core) in cores.iter().enumerate() {
        let mut prefix = Expression::from(0.0);
        let mut prefix_work = 0.0;
        for &t in &order {
            let w = tasks[t].work as f64;
            prefix += 2000.0 * w * x[t][k];
            prefix_work += 2000.0 * w;
            let bound = f64::from(alpha) * w * core.mhz as f64;
            if prefix_work > bound {
                problem.add_constraint(constraint!(
                    prefix.clone() <= bound + prefix_work * (1 - x[t][k])
                ));
            }
        }
        if let Some(h) = hours[core.machine] {
            let load: Expression = (0..t_count)
                .map(|t| 1000.0 * tasks[t].work as f64 * x[t][k])
                .sum();
            problem.add_constraint(constraint!(load <= 3600.0 * core.mhz as f64 * h));
        }
    }
    for m in pm_count + 1..machines.len() {
        if let (Some(a), Some(b)) = (hours[m - 1], hours[m])
            && machines[m - 1].origin == machines[m].origin
        {
            problem.add_constraint(constraint!(a >= b));
        }
    }
    let solution = match problem.with_time_limit(time_limit.as_secs_f64()).solve() {
        Ok(s) if matches!(s.status(), SolutionStatus::Optimal) => s,
        Ok(_) | Err(ResolutionError::Other(_)) => return Err(OptimalError::TimeLimit(time_limit)),
        Err(ResolutionError::Infeasible) => return Err(ScheduleError::NoVmType { alpha }.into()),
        Err(_) => return Err(OptimalError::TimeLimit(time_limit)),
    };
    for &t in &order {
        let k = (0..cores.len())
            .max_by(|&a, &b| solution.value(x[t][a]).total_cmp(&solution.value(x[t][b])))
            .expect("a task has a core");
        let core = &mut machines[cores[k].machine].cores[cores[k].core];
        core.tasks.push(t as u32);
        core.work += tasks[t].work;
    }
    machines.retain(|m| m.cores.iter().any(|c| !c.tasks.is_empty()));
    Ok(Schedule { machines })
}
