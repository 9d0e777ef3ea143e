//! One configuration → one tidy row: schedule a bag with a policy and measure it with the
//! metrics of paper 003 §4.1.
//!
//! Metric definitions (the paper names them; the formulas marked [frugal] are ours where
//! it is silent — `../shared/notes/paper003-spec.md` §1.10):
//!
//! - **rent** Σ_f p_f · ⌈τ_f⌉ h (Eq. 5–6), τ_f the VM's latest core finish; dollars
//!   rounded to a millionth.
//! - **local load** seconds of task runtime on PM cores, reported in core-hours, and the
//!   same work in GHz·h.
//! - **makespan** the latest task finish, seconds.
//! - **utilisation** [frugal]: the unweighted mean over used machines of busy core-time /
//!   (cores × time), time = τ_k for a PM and the billed hours for a VM; the pooled variant
//!   divides total busy core-time by total (cores × time).
//! - **energy** of the used PMs (Eq. 10) with u(τ) = busy cores / N [frugal]: cores are
//!   busy from 0 without gaps, so E_k = (P_idle·τ_k + (P_peak − P_idle)·B_k/N_k) J,
//!   B_k = Σ_cores F; reported in kWh. Unused PMs draw nothing; VMs are not counted.
//! - **overhead** CPU seconds of the scheduling algorithm alone (RA included; trace
//!   parsing and measuring excluded), the median of `repeats` runs.
//! - **deadline misses**, checked on the schedule itself (must be 0 for every policy).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bound::RentBound;
use crate::model::{Machine, Origin, Schedule, ScheduleError, Setup};
use crate::optimal::OptimalError;
use crate::tasks::Task;
use crate::{ffd, ha, optimal, ra};

/// A bag-of-tasks policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// First Fit Decreasing (§4.1).
    Ffd,
    /// FFD, then RA (§3.3).
    FfdRa,
    /// The heuristic algorithm HA (§3.2).
    Ha,
    /// HA, then RA.
    HaRa,
    /// The exact minimum rent ([`optimal`]), for bags of at most [`optimal::MAX_TASKS`].
    Optimal,
}

impl Policy {
    /// The four policies the paper compares, in its order.
    pub const PAPER: [Policy; 4] = [Policy::Ffd, Policy::FfdRa, Policy::Ha, Policy::HaRa];

    /// Every policy.
    pub const ALL: [Policy; 5] = [
        Policy::Ffd,
        Policy::FfdRa,
        Policy::Ha,
        Policy::HaRa,
        Policy::Optimal,
    ];

    /// What it is, in a line (the CLI's list of choices).
    pub fn help(&self) -> &'static str {
        match self {
            Policy::Ffd => "First Fit Decreasing (the paper's baseline)",
            Policy::FfdRa => "FFD, then the reassignment algorithm RA",
            Policy::Ha => "The heuristic algorithm HA (least slack first)",
            Policy::HaRa => "HA, then RA",
            Policy::Optimal => {
                "The exact minimum rent by integer programming (bags of at most 12 tasks)"
            }
        }
    }

    /// `ffd`, `ffd-ra`, `ha`, `ha-ra` or `optimal`.
    pub fn name(&self) -> &'static str {
        match self {
            Policy::Ffd => "ffd",
            Policy::FfdRa => "ffd-ra",
            Policy::Ha => "ha",
            Policy::HaRa => "ha-ra",
            Policy::Optimal => "optimal",
        }
    }
}

/// Which implementation of HA and FFD runs: the same schedules, different speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Implementation {
    /// [`ha::schedule`] (ordered set) and [`ffd::schedule`] (one pointer).
    #[default]
    Fast,
    /// [`ha::schedule_naive`] (all pairs) and [`ffd::schedule_naive`] (scan from the
    /// first core): the complexities the paper states, for its CPU-time figures.
    Reference,
}

impl Implementation {
    /// Both, in the CLI's order.
    pub const ALL: [Implementation; 2] = [Implementation::Fast, Implementation::Reference];

    /// `fast` or `reference`.
    pub fn name(&self) -> &'static str {
        match self {
            Implementation::Fast => "fast",
            Implementation::Reference => "reference",
        }
    }

    /// What it is, in a line (the CLI's list of choices).
    pub fn help(&self) -> &'static str {
        match self {
            Implementation::Fast => "Ordered-set HA and one-pointer FFD",
            Implementation::Reference => "The paper's all-pairs HA and scanning FFD",
        }
    }
}

impl frugal_core::spec::Choice for Policy {
    const ALL: &'static [Policy] = &Policy::ALL;

    fn name(self) -> &'static str {
        Policy::name(&self)
    }

    fn help(self) -> &'static str {
        Policy::help(&self)
    }
}

impl frugal_core::spec::Choice for Implementation {
    const ALL: &'static [Implementation] = &Implementation::ALL;

    fn name(self) -> &'static str {
        Implementation::name(&self)
    }

    fn help(self) -> &'static str {
        Implementation::help(&self)
    }
}

/// A policy could not schedule the bag.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RunError {
    /// The heuristics' error.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// The exact solver's error.
    #[error(transparent)]
    Optimal(#[from] OptimalError),
}

/// Schedules `tasks` with `policy`; returns the schedule and the tasks RA moved.
///
/// # Errors
/// [`RunError`] when no VM type can meet the deadlines at `alpha` and the PMs do not
/// suffice, or (for [`Policy::Optimal`]) the bag is too large or the solver timed out.
pub fn schedule(
    policy: Policy,
    setup: &Setup,
    tasks: &[Task],
    alpha: u32,
    implementation: Implementation,
) -> Result<(Schedule, u64), RunError> {
    use Implementation::{Fast, Reference};
    let mut s = match (policy, implementation) {
        (Policy::Ffd | Policy::FfdRa, Fast) => ffd::schedule(setup, tasks, alpha)?,
        (Policy::Ffd | Policy::FfdRa, Reference) => ffd::schedule_naive(setup, tasks, alpha)?,
        (Policy::Ha | Policy::HaRa, Fast) => ha::schedule(setup, tasks, alpha)?,
        (Policy::Ha | Policy::HaRa, Reference) => ha::schedule_naive(setup, tasks, alpha)?,
        (Policy::Optimal, _) => optimal::schedule(setup, tasks, alpha, Duration::from_secs(60))?,
    };
    let moves = match policy {
        Policy::FfdRa | Policy::HaRa => ra::rebalance(&mut s, tasks),
        _ => 0,
    };
    Ok((s, moves))
}

/// The measured configuration and metrics of one run (one CSV row). Units are in the
/// field names; `local_load_core_h` is in core-hours, `utilisation_pct` in percent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotRow {
    /// Trace name (`nasa`, `kth`, or the file's name).
    pub trace: String,
    /// Deadline factor α: each task's deadline is α × its run time on a 2 GHz core.
    pub alpha: u32,
    /// PM scale factor s: 5·s PMs of each Table 3 type (or the machine file × s).
    pub scale: u32,
    /// Tasks in the bag.
    pub tasks: usize,
    /// Policy name.
    pub policy: &'static str,
    /// Cloud rent, dollars (the paper's "cost", Eq. 6).
    pub rent_cost_usd: f64,
    /// VMs rented (N_RV, Fig. 9).
    pub vms_rented: usize,
    /// VM-hours billed.
    pub vm_hours: u64,
    /// Task runtime on PM cores, core-hours (Fig. 4's local load).
    pub local_load_core_h: f64,
    /// Work run on PMs, GHz·h.
    pub local_work_ghz_h: f64,
    /// PMs that ran at least one task.
    pub pms_used: usize,
    /// Latest task finish, seconds (Fig. 5).
    pub makespan_s: f64,
    /// Mean utilisation of the used PMs and VMs (Fig. 6), percent.
    pub utilisation_pct: f64,
    /// Pooled utilisation (total busy core-time over total core-time), percent.
    pub utilisation_pooled_pct: f64,
    /// Energy of the used PMs, kWh (Eq. 10, Fig. 7).
    pub energy_kwh: f64,
    /// Energy × the electricity price, dollars (0 unless a price is set; not in the
    /// paper's objective).
    pub energy_cost_usd: f64,
    /// Rent plus energy cost, dollars.
    pub total_cost_usd: f64,
    /// CPU seconds of the algorithm, median of the timed repeats (Fig. 8); empty when
    /// not timed. The only column that varies between runs.
    pub overhead_s: Option<f64>,
    /// The implementation timed (`fast` or `reference`; both give the same schedule).
    pub implementation: Implementation,
    /// Tasks RA moved (0 without RA).
    pub ra_moves: u64,
    /// Tasks finishing after their deadline (0 for every policy here).
    pub deadline_misses: usize,
    /// Share of tasks meeting their deadline, percent.
    pub deadline_met_pct: f64,
    /// A rent no schedule can undercut ([`crate::bound`]), dollars.
    pub lower_bound_usd: f64,
    /// (rent − bound) / bound, percent; empty when the bound is 0 (then any rent above 0
    /// has no finite gap).
    pub gap_pct: Option<f64>,
}

/// What a run is: the trace's name and the experiment's parameters.
#[derive(Clone, Debug)]
pub struct RunSpec<'a> {
    /// Trace name for the row.
    pub trace: &'a str,
    /// Deadline factor α.
    pub alpha: u32,
    /// PM scale factor the setup was built with.
    pub scale: u32,
    /// The machines.
    pub setup: &'a Setup,
    /// Timed repeats for the overhead (0: not timed).
    pub repeats: usize,
    /// The implementation of HA and FFD to run and time.
    pub implementation: Implementation,
    /// Electricity price, dollars per kWh (0: energy not priced).
    pub usd_per_kwh: f64,
}

/// Runs `policy` on `tasks` and measures it; `bound` is [`crate::bound::rent_lower_bound`]
/// for the same bag, setup and α (computed once per configuration by the caller).
///
/// # Errors
/// As [`schedule`].
pub fn run(
    spec: &RunSpec<'_>,
    tasks: &[Task],
    policy: Policy,
    bound: &RentBound,
) -> Result<BotRow, RunError> {
    let (s, moves) = schedule(policy, spec.setup, tasks, spec.alpha, spec.implementation)?;
    let overhead_s = (spec.repeats > 0).then(|| {
        let mut times = Vec::with_capacity(spec.repeats);
        for _ in 0..spec.repeats {
            let start = cpu_time::ThreadTime::now();
            let out = schedule(policy, spec.setup, tasks, spec.alpha, spec.implementation);
            times.push(start.elapsed().as_secs_f64());
            drop(std::hint::black_box(out));
        }
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    });
    let m = Measures::of(&s, spec.setup, tasks, spec.alpha);
    let energy_cost_usd = micro(m.energy_kwh * spec.usd_per_kwh);
    let rent = m.rent_usd;
    Ok(BotRow {
        trace: spec.trace.to_string(),
        alpha: spec.alpha,
        scale: spec.scale,
        tasks: tasks.len(),
        policy: policy.name(),
        rent_cost_usd: rent,
        vms_rented: m.vms,
        vm_hours: m.vm_hours,
        local_load_core_h: m.local_core_s / 3600.0,
        local_work_ghz_h: m.local_work as f64 / 3600.0,
        pms_used: m.pms,
        makespan_s: m.makespan_s,
        utilisation_pct: 100.0 * m.utilisation,
        utilisation_pooled_pct: 100.0 * m.utilisation_pooled,
        energy_kwh: m.energy_kwh,
        energy_cost_usd,
        total_cost_usd: micro(rent + energy_cost_usd),
        overhead_s,
        implementation: spec.implementation,
        ra_moves: moves,
        deadline_misses: m.deadline_misses,
        deadline_met_pct: if tasks.is_empty() {
            100.0
        } else {
            100.0 * (tasks.len() - m.deadline_misses) as f64 / tasks.len() as f64
        },
        lower_bound_usd: micro(bound.rent_usd),
        gap_pct: (bound.rent_usd > 0.0).then(|| 100.0 * (rent - bound.rent_usd) / bound.rent_usd),
    })
}

/// The metrics of a schedule (definitions in the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measures {
    /// Rent, dollars.
    pub rent_usd: f64,
    /// VMs rented.
    pub vms: usize,
    /// VM-hours billed.
    pub vm_hours: u64,
    /// PMs used.
    pub pms: usize,
    /// Task runtime on PM cores, seconds.
    pub local_core_s: f64,
    /// Work on PM cores, GHz·s.
    pub local_work: u64,
    /// Latest finish, seconds.
    pub makespan_s: f64,
    /// Mean per-machine utilisation.
    pub utilisation: f64,
    /// Pooled utilisation.
    pub utilisation_pooled: f64,
    /// PM energy, kWh.
    pub energy_kwh: f64,
    /// Tasks ending after their deadline.
    pub deadline_misses: usize,
}

impl Measures {
    /// Measures `schedule` of `tasks` on `setup` at deadline factor `alpha`.
    pub fn of(schedule: &Schedule, setup: &Setup, tasks: &[Task], alpha: u32) -> Measures {
        let mut m = Measures::default();
        let (mut busy_all, mut capacity_all, mut util_sum) = (0.0, 0.0, 0.0);
        let mut hours_by_type = vec![0u64; setup.vm_types.len()];
        for machine in &schedule.machines {
            let busy: f64 = machine.cores.iter().map(|c| machine.seconds(c.work)).sum();
            let n = machine.cores.len() as f64;
            let time = match machine.origin {
                Origin::Pm(i) => {
                    let tau = machine.usage_s();
                    let (idle, peak) = setup.pms[i].watts;
                    m.pms += 1;
                    m.local_core_s += busy;
                    m.local_work += machine.cores.iter().map(|c| c.work).sum::<u64>();
                    m.energy_kwh += (idle * tau + (peak - idle) * busy / n) / 3.6e6;
                    tau
                }
                Origin::Vm(v) => {
                    let hours = machine.billed_hours();
                    m.vms += 1;
                    m.vm_hours += hours as u64;
                    hours_by_type[v] += hours as u64;
                    hours * 3600.0
                }
            };
            m.makespan_s = m.makespan_s.max(machine.usage_s());
            if time > 0.0 {
                util_sum += busy / (n * time);
                busy_all += busy;
                capacity_all += n * time;
            }
            m.deadline_misses += misses(machine, tasks, alpha);
        }
        // Whole hours × price per type, rounded to micro-dollars: no float residue from
        // summing thousands of leases ($56.28, not $56.279999999999376).
        let rent: f64 = (hours_by_type.iter().zip(&setup.vm_types))
            .map(|(&h, t)| h as f64 * t.price_per_hour.unwrap_or(0.0))
            .sum();
        m.rent_usd = micro(rent);
        let used = schedule.machines.len();
        m.utilisation = if used == 0 {
            0.0
        } else {
            util_sum / used as f64
        };
        m.utilisation_pooled = if capacity_all > 0.0 {
            busy_all / capacity_all
        } else {
            0.0
        };
        m
    }
}

/// `usd` rounded to a millionth of a dollar.
fn micro(usd: f64) -> f64 {
    (usd * 1e6).round() / 1e6
}

/// Tasks on `machine` that end after their deadline (cores run their tasks in order).
fn misses(machine: &Machine, tasks: &[Task], alpha: u32) -> usize {
    let mut late = 0;
    for core in &machine.cores {
        let mut done = 0u64;
        for &t in &core.tasks {
            let w = tasks[t as usize].work;
            done += w;
            if !crate::model::fits(done - w, w, alpha, machine.mhz) {
                late += 1;
            }
        }
    }
    late
}

/// Checks that every task of the bag is on exactly one core and each core's work is the
/// sum of its tasks; returns the first violation.
pub fn validate(schedule: &Schedule, tasks: &[Task]) -> Result<(), String> {
    let mut seen = vec![false; tasks.len()];
    for (m, machine) in schedule.machines.iter().enumerate() {
        for (c, core) in machine.cores.iter().enumerate() {
            let mut work = 0;
            for &t in &core.tasks {
                let slot = seen.get_mut(t as usize).ok_or_else(|| {
                    format!("machine {m} core {c}: task index {t} is not in the bag")
                })?;
                if std::mem::replace(slot, true) {
                    return Err(format!("task index {t} runs twice"));
                }
                work += tasks[t as usize].work;
            }
            if work != core.work {
                return Err(format!(
                    "machine {m} core {c}: work {} but its tasks sum to {work}",
                    core.work
                ));
            }
        }
    }
    match seen.iter().position(|s| !s) {
        Some(t) => Err(format!("task index {t} is not scheduled")),
        None => Ok(()),
    }
}
