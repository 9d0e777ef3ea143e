//! One configuration of paper 001's experiments → one tidy row (the function every
//! output of `frugal ephemeral` is built from).
//!
//! A run is (data centre, chunk size, safety margin S, start hour h, strategy): the job of
//! [`JobSpec::paper`] is submitted at t₀ = day 5 00:00 + h hours (h = 0 … 47, spec §2.2),
//! planned over the 24-hour window from t₀ on forecasts made from the days before t₀, and
//! simulated on the actual utilisation ([`crate::runtime`]).

use frugal_core::spec::Choice;
use std::time::Duration;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::cuckoo::{REPLICAS, place_chunks};
use crate::forecast::{Coverage, Forecaster, ForecasterKind, PAPER_TAU, available};
use crate::hosts::{DataCentre, Host, Hosts};
use crate::job::{Job, JobSpec};
use crate::plan;
use crate::planner::{self, Effort, Planner};
use crate::runtime::{self, Driver, Qos, RunConfig};
use crate::trace::{DAY_S, FIRST_TEST_DAY, Metric, STEP_S, STEPS_PER_DAY, Utilisation};

/// A scheduling strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Cuckoo with its original controller (kill on any violation).
    Cuckoo,
    /// Cuckoo with Salamander's controller (RQ3's "new QoS").
    CuckooNewQos,
    /// Cuckoo as the paper describes it: every heartbeat fills all 20 map and 20 reduce
    /// slots, no load cap; kill on any violation.
    CuckooFixedSlots,
    /// Salamander with the plan of this planner.
    Salamander(Planner),
}

impl frugal_core::spec::Choice for Strategy {
    /// The strategies a spec names; the MILP planners run under `frugal ephemeral
    /// planners`, not as strategies (their names, `salamander-milp` and
    /// `salamander-milp-cold`, are outputs only).
    const ALL: &'static [Strategy] = &[
        Strategy::Cuckoo,
        Strategy::CuckooNewQos,
        Strategy::CuckooFixedSlots,
        Strategy::Salamander(Planner::Rffd),
        Strategy::Salamander(Planner::Exact),
        Strategy::Salamander(Planner::ExactNetwork),
        Strategy::Salamander(Planner::Ga),
        Strategy::Salamander(Planner::Ls),
    ];

    fn name(self) -> &'static str {
        match self {
            Strategy::Cuckoo => "cuckoo",
            Strategy::CuckooNewQos => "cuckoo-newqos",
            Strategy::CuckooFixedSlots => "cuckoo-fixed-slots",
            Strategy::Salamander(Planner::Rffd) => "salamander-rffd",
            Strategy::Salamander(Planner::Exact) => "salamander-exact",
            Strategy::Salamander(Planner::ExactNetwork) => "salamander-exact-network",
            Strategy::Salamander(Planner::Ga) => "salamander-ga",
            Strategy::Salamander(Planner::Ls) => "salamander-ls",
            Strategy::Salamander(Planner::Milp) => "salamander-milp",
            Strategy::Salamander(Planner::MilpCold) => "salamander-milp-cold",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Strategy::Cuckoo => {
                "Cuckoo: weighted round-robin placement with 3 replicas, Hadoop's slot scheduler, kill on any violation (paper 001 §II-C)"
            }
            Strategy::CuckooNewQos => "Cuckoo with Salamander's QoS controller (RQ3, Fig. 5)",
            Strategy::CuckooFixedSlots => {
                "Cuckoo as the paper describes it: every heartbeat fills all 20 map and 20 reduce slots, no load cap (`cuckoo` caps a tracker as Hadoop 1 does)"
            }
            Strategy::Salamander(Planner::Rffd) => {
                "Salamander with the plan of Alg. 1 (Random First Fit Decreasing)"
            }
            Strategy::Salamander(Planner::Exact) => {
                "Salamander with the proven-optimal plan (exact; milliseconds)"
            }
            Strategy::Salamander(Planner::ExactNetwork) => {
                "Salamander with the exact construction that also pays for the shuffle over the hosts' links (per-node caps; milliseconds)"
            }
            Strategy::Salamander(Planner::Ga) => "Salamander with NSGA-III's plan (--budget)",
            Strategy::Salamander(Planner::Ls) => {
                "Salamander with tabu + late-acceptance local search's plan (--budget)"
            }
            Strategy::Salamander(Planner::Milp | Planner::MilpCold) => {
                "Salamander with the joint MILP's plan"
            }
        }
    }
}

impl Strategy {
    /// Whether the strategy plans (Salamander's).
    pub fn plans(self) -> bool {
        matches!(self, Strategy::Salamander(_))
    }

    /// Whether the strategy searches (and so takes --budget and --wall-clock-s).
    pub fn searches(self) -> bool {
        matches!(self, Strategy::Salamander(Planner::Ga | Planner::Ls))
    }
}

frugal_core::choice! { impl Text for Strategy }
frugal_core::serde_as_text!(Strategy);

/// The inputs of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSpec {
    /// The data centre.
    pub dc: DataCentre,
    /// The shape of each job.
    pub job: JobSpec,
    /// Jobs of that shape submitted together at t₀ (≥ 1; the paper's experiments: 1).
    pub jobs: usize,
    /// Safety margin S, percent (0–100), for CPU and RAM alike (spec A24).
    pub margin_pct: u32,
    /// Hours after day 5 00:00 at which the job is submitted (0–47).
    pub start_hour: u32,
    /// The strategy.
    pub strategy: Strategy,
    /// The forecaster.
    pub forecaster: ForecasterKind,
    /// The primary workload's volatility factor ([`Utilisation::with_volatility`]; 1: as
    /// recorded). The runs use the scaled workload, forecasts and runtime alike.
    pub volatility: f64,
    /// Whether the client's upload of the input is simulated ([`RunConfig::upload`]).
    pub upload: bool,
    /// The controller's extra check period ([`RunConfig::control_step_s`]).
    pub control_step_s: Option<f64>,
    /// Plan durations are rounded up to a multiple of this many seconds.
    pub plan_slot_s: u32,
    /// The metaheuristics' effort (GA and LS only).
    pub effort: Effort,
    /// Their wall-clock limit, if any (results then depend on the machine).
    pub wall_clock: Option<Duration>,
    /// The seed of every random choice (Alg. 1's node draws, the metaheuristics).
    pub seed: u64,
}

/// One run's result: inputs and metrics with units.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EphemeralRow {
    /// Data centre (`PC-1`, `PC-2`, `University`).
    pub dc: DataCentre,
    /// Chunk size, MiB.
    pub chunk_mib: u32,
    /// Safety margin, percent.
    pub safety_margin_pct: u32,
    /// Start hour after day 5 00:00.
    pub start_hour: u32,
    /// Strategy name.
    pub strategy: &'static str,
    /// Forecaster of the primary workload.
    pub forecaster: ForecasterKind,
    /// Volatility factor of the primary workload (1: as recorded).
    pub volatility: f64,
    /// Seed.
    pub seed: u64,
    /// Jobs submitted together.
    pub jobs: usize,
    /// Tasks of all the jobs.
    pub tasks: usize,
    /// Whether the plan rejected a job (it does not fit the window; spec A26); the run is
    /// then not simulated.
    pub rejected: bool,
    /// From submission to the end of a job's last reduce, mean over the jobs, seconds (NaN
    /// when rejected or when the jobs did not end within 30 simulated days).
    pub job_time_s: f64,
    /// 100 × kills / tasks (can exceed 100; spec A19).
    pub relaunched_pct: f64,
    /// 100 × maps run on a host without their chunk / maps (spec A20).
    pub remote_pct: f64,
    /// Makespan of the plan (Eq. 3), seconds; 0 for Cuckoo.
    pub plan_makespan_s: u32,
    /// The plan's job time with the shuffle's estimate ([`plan::Plan::job_times_with_shuffle`]),
    /// mean over the jobs, seconds; 0 for Cuckoo. Set beside `job_time_s` it shows how far
    /// a plan holds.
    pub plan_job_time_s: f64,
    /// Kills whose re-plan found no room in the forecast.
    pub replan_failures: usize,
    /// How the run's CPU forecasts fit the actual load over its 24-hour window, on the
    /// data centre's hosts: share of samples covered, percent (target 99).
    pub cpu_covered_pct: f64,
    /// The same window's mean CPU pinball loss at τ = 0.99, percentage points.
    pub cpu_pinball_pp: f64,
    /// RAM samples covered, percent.
    pub ram_covered_pct: f64,
    /// RAM pinball loss, percentage points.
    pub ram_pinball_pp: f64,
}

/// A primary workload and the forecasters fitted on it, shared by the runs that replay it.
pub struct Workload {
    /// The utilisation, scaled to `volatility`.
    pub util: Utilisation,
    /// Its volatility factor ([`Utilisation::with_volatility`]).
    pub volatility: f64,
    forecasters: Vec<(ForecasterKind, Box<dyn Forecaster>)>,
}

impl Workload {
    /// `util` scaled to `volatility`, with `kinds` built for `hosts` on the scaled trace
    /// (quantile regression is fitted here, so it learns the scaled swings).
    ///
    /// # Errors
    /// When a forecaster cannot be fitted ([`ForecasterKind::build`]).
    pub fn new(
        util: &Utilisation,
        volatility: f64,
        hosts: &[usize],
        kinds: &[ForecasterKind],
    ) -> anyhow::Result<Self> {
        let util = util.with_volatility(volatility);
        let forecasters = kinds
            .iter()
            .map(|&k| Ok((k, k.build(&util, hosts)?)))
            .collect::<anyhow::Result<_>>()?;
        Ok(Workload {
            util,
            volatility,
            forecasters,
        })
    }

    /// The forecaster of `kind`.
    ///
    /// # Panics
    /// When `kind` was not built with the workload (a programming error).
    pub fn forecaster(&self, kind: ForecasterKind) -> &dyn Forecaster {
        let (_, f) = self
            .forecasters
            .iter()
            .find(|(k, _)| *k == kind)
            .unwrap_or_else(|| panic!("forecaster {} not built", kind.name()));
        f.as_ref()
    }
}

/// Runs one configuration on `workload`, already scaled to `spec.volatility` and with
/// `spec.forecaster` built for the data centre's hosts.
pub fn run(spec: &RunSpec, hosts: &Hosts, workload: &Workload) -> EphemeralRow {
    let util = &workload.util;
    let dc_hosts = hosts.of(spec.dc);
    let jobs: Vec<Job> = (0..spec.jobs).map(|j| Job::new(j, spec.job)).collect();
    let tasks: usize = jobs.iter().map(|j| j.tasks.len()).sum();
    let margin = f64::from(spec.margin_pct) / 100.0;
    let t0_step = start_step(spec.start_hour);
    let forecast = forecasts(
        &dc_hosts,
        util,
        workload.forecaster(spec.forecaster),
        t0_step,
    );
    let fit = |metric: Metric| {
        let actual: Vec<Vec<f64>> = dc_hosts
            .iter()
            .map(|h| {
                (0..STEPS_PER_DAY)
                    .map(|i| util.at(h.host, metric, t0_step + i))
                    .collect()
            })
            .collect();
        let forecast = forecast.iter().map(|(cpu, ram)| match metric {
            Metric::Cpu => &cpu[..STEPS_PER_DAY],
            Metric::Ram => &ram[..STEPS_PER_DAY],
        });
        Coverage::of(PAPER_TAU, forecast.zip(actual.iter().map(Vec::as_slice)))
    };
    let (cpu_fit, ram_fit) = (fit(Metric::Cpu), fit(Metric::Ram));
    let mut row = EphemeralRow {
        dc: spec.dc,
        chunk_mib: spec.job.chunk_mib,
        safety_margin_pct: spec.margin_pct,
        start_hour: spec.start_hour,
        strategy: spec.strategy.name(),
        forecaster: spec.forecaster,
        volatility: spec.volatility,
        seed: spec.seed,
        jobs: spec.jobs,
        tasks,
        rejected: false,
        job_time_s: f64::NAN,
        relaunched_pct: 0.0,
        remote_pct: 0.0,
        plan_makespan_s: 0,
        plan_job_time_s: 0.0,
        replan_failures: 0,
        cpu_covered_pct: 100.0 * cpu_fit.covered,
        cpu_pinball_pp: cpu_fit.pinball_pp,
        ram_covered_pct: 100.0 * ram_fit.covered,
        ram_pinball_pp: ram_fit.pinball_pp,
    };
    let config = |holders, qos| RunConfig {
        hosts: &dc_hosts,
        util,
        t0_step,
        margin,
        jobs: &jobs,
        holders,
        upload: spec.upload,
        qos,
        control_step_s: spec.control_step_s,
    };
    let outcome = match spec.strategy {
        Strategy::Cuckoo | Strategy::CuckooNewQos | Strategy::CuckooFixedSlots => {
            let weight: Vec<f64> = dc_hosts
                .iter()
                .zip(&forecast)
                .map(|(h, (cpu, _))| {
                    cpu[..STEPS_PER_DAY]
                        .iter()
                        .map(|&u| available(h.cpu_gflops, u, margin))
                        .sum()
                })
                .collect();
            let qos = if spec.strategy == Strategy::CuckooNewQos {
                Qos::Throttle
            } else {
                Qos::KillOnAnyViolation
            };
            let fixed = spec.strategy == Strategy::CuckooFixedSlots;
            // Each job's chunks are placed as if it were alone (the same layout).
            let holders = jobs
                .iter()
                .map(|job| place_chunks(job, &weight, REPLICAS))
                .collect();
            runtime::run(&config(holders, qos), Driver::Slots { fixed })
        }
        Strategy::Salamander(planner) => {
            let problem = runtime::problem(
                &dc_hosts,
                &forecast,
                margin,
                jobs.clone(),
                DAY_S,
                spec.plan_slot_s,
            );
            let mut rng = ChaCha8Rng::seed_from_u64(run_seed(spec));
            let budget = spec.effort.budget(planner, spec.wall_clock, None);
            let plan = planner::solve(planner, &problem, budget, &mut rng).plan;
            debug_assert!(plan::violations(&problem, &plan).is_empty());
            if plan.jobs_scheduled() < jobs.len() {
                row.rejected = true;
                return row;
            }
            row.plan_makespan_s = plan.makespan(&problem);
            let times = plan.job_times_with_shuffle(&problem);
            row.plan_job_time_s =
                times.iter().map(|&t| f64::from(t)).sum::<f64>() / times.len() as f64;
            let holders = jobs
                .iter()
                .enumerate()
                .map(|(j, job)| {
                    job.maps()
                        .map(|i| vec![plan.0[j][i].expect("whole jobs").node])
                        .collect()
                })
                .collect();
            let driver = Driver::Plan {
                problem: &problem,
                plan,
                rng: Box::new(rng),
            };
            runtime::run(&config(holders, Qos::Throttle), driver)
        }
    };
    if let Some(o) = outcome {
        row.job_time_s = o.job_time_s;
        row.relaunched_pct = 100.0 * o.kills as f64 / tasks as f64;
        row.remote_pct = 100.0 * o.remote_maps as f64 / (spec.job.maps * spec.jobs) as f64;
        row.replan_failures = o.replan_failures;
    }
    row
}

/// Per host, the CPU and RAM forecasts from `t0_step` over the 24-hour window and one
/// more day (so that a task killed late can be re-planned).
pub fn forecasts(
    hosts: &[Host],
    util: &Utilisation,
    forecaster: &dyn Forecaster,
    t0_step: usize,
) -> Vec<(Vec<f64>, Vec<f64>)> {
    let steps = 2 * STEPS_PER_DAY;
    hosts
        .iter()
        .map(|h| {
            (
                forecaster.forecast(util, h.host, Metric::Cpu, t0_step, steps),
                forecaster.forecast(util, h.host, Metric::Ram, t0_step, steps),
            )
        })
        .collect()
}

/// The seed of one run: `seed` mixed with the configuration, so that runs differ but each
/// is reproducible on its own.
fn run_seed(spec: &RunSpec) -> u64 {
    spec.seed
        ^ (u64::from(spec.start_hour) << 40)
        ^ (u64::from(spec.margin_pct) << 32)
        ^ (u64::from(spec.job.chunk_mib) << 16)
        ^ spec.dc as u64
        ^ ((spec.jobs as u64 - 1) << 48)
}

/// Forecast coverage of one data centre's hosts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DcCoverage {
    /// The data centre.
    pub dc: DataCentre,
    /// The forecaster.
    pub forecaster: ForecasterKind,
    /// The primary workload's volatility factor.
    pub volatility: f64,
    /// CPU coverage.
    pub cpu: Coverage,
    /// RAM coverage.
    pub ram: Coverage,
}

/// Forecast coverage over the 24-hour windows of start hours 0 … `start_hours` − 1 on the
/// hosts of `dc`, averaged over the windows (spec §5 item 6: the paper's reading of Fig. 3
/// rests on CPU errors exceeding RAM errors and on RAM over-estimation).
pub fn coverage(
    dc: DataCentre,
    hosts: &Hosts,
    workload: &Workload,
    forecaster: ForecasterKind,
    start_hours: u32,
) -> DcCoverage {
    let f = workload.forecaster(forecaster);
    let ids: Vec<usize> = hosts.of(dc).iter().map(|h| h.host).collect();
    let per_metric = |m| {
        let all: Vec<Coverage> = (0..start_hours)
            .map(|h| {
                let from = start_step(h);
                crate::forecast::coverage(f, &workload.util, &ids, m, from, STEPS_PER_DAY)
            })
            .collect();
        Coverage::mean(&all)
    };
    DcCoverage {
        dc,
        forecaster,
        volatility: workload.volatility,
        cpu: per_metric(Metric::Cpu),
        ram: per_metric(Metric::Ram),
    }
}

/// The 3-minute step of day 5 00:00 + `hour` hours.
pub fn start_step(hour: u32) -> usize {
    (FIRST_TEST_DAY - 1) * STEPS_PER_DAY + hour as usize * 3600 / STEP_S as usize
}
