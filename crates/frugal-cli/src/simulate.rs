//! `frugal simulate`: the policy comparison (the main job).

use std::path::PathBuf;

use std::io::Write;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use frugal_agents::RlPolicy;
use frugal_core::policy::{MilpBackend, PlacementPolicy, PolicyParams};
use frugal_core::{
    BillingGranularity, Cluster, ClusterConfig, DurationModel, HybridRule, Job, PolicyKind, Preset,
    PricingModel, QueueDiscipline, Rut,
};
use frugal_sim::experiment::{Setup, average};
use frugal_sim::output::write_run;
use frugal_sim::workload::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, Load, SwimHour, SwimMapping, SyntheticConfig, map_swim,
    parse_swim, read_jobs_csv, select_hour, synthetic,
};

/// Load levels of the default SWIM replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LoadArg {
    /// Light load: first 50 jobs of hour 0 (or the synthetic light load).
    Light,
    /// High load: first 100 jobs of hour 6 (or the synthetic high load).
    High,
    /// Both, one table each.
    Both,
}

/// Options of `frugal simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Cluster: a preset (small-hybrid, large-hybrid, paper004-cloud, paper002-cloud) or
    /// a TOML file (format in the README).
    #[arg(long, default_value = "small-hybrid")]
    pub cluster: String,
    /// Pricing model of the hybrid presets (paper 000 Table 3): 1, 2, 3, 4 or real.
    #[arg(long, default_value = "1")]
    pub pricing: String,
    /// Billing granularity; overrides the cluster's.
    #[arg(long, value_parser = ["per-second", "per-hour"])]
    pub billing: Option<String>,
    /// Load level(s) to run: light = first 50 jobs of hour 0, high = first 100 jobs of
    /// hour 6 of the trace (with --synthetic: the paper 000 light/high generators).
    #[arg(long, value_enum, default_value = "both")]
    pub load: LoadArg,
    /// SWIM trace file (TSV); default: the embedded FB-2009 day.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Replay this hour (0–23) or `day` of the trace instead of --load.
    #[arg(long)]
    pub hour: Option<String>,
    /// With --hour or --synthetic: number of jobs (default: all of the hour; 1000
    /// synthetic).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Use the synthetic workload of paper 000 §6.1 at the --load level(s).
    #[arg(long, conflicts_with_all = ["trace", "hour", "jobs_csv"])]
    pub synthetic: bool,
    /// Read jobs from a CSV file (format in the README) instead of a trace.
    #[arg(long, conflicts_with_all = ["trace", "hour"])]
    pub jobs_csv: Option<PathBuf>,
    /// Comma-separated policies; default all built-in ones: round-robin,
    /// round-robin-consolidate, first-fit, best-fit-decreasing, gio, asq, morpheus, aep,
    /// optimal, milp. `rl:<checkpoint>` adds an agent trained with `frugal train`.
    #[arg(long, value_delimiter = ',')]
    pub policies: Option<Vec<String>>,
    /// Queue discipline for every policy: fcfs, edf, deadline-first, morpheus; default:
    /// each policy's published one.
    #[arg(long)]
    pub queue: Option<String>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[arg(long)]
    pub admission_control: bool,
    /// RUT alpha (CPU weight) for BFD and the RD order; beta = 1 − alpha.
    #[arg(long, default_value_t = 0.8)]
    pub alpha: f64,
    /// Slowdown of a job placed across sites: T_C^H = (1 + p)·T_C^L.
    #[arg(long, default_value_t = 0.3)]
    pub hybrid_penalty: f64,
    /// Which placements run at T_C^H: any-remote (paper 000 Eq. 5) or spanning.
    #[arg(long, default_value = "any-remote", value_parser = ["any-remote", "spanning"])]
    pub hybrid_rule: String,
    /// Slowdown for a placement against the job kind's spread/consolidate preference.
    #[arg(long, default_value_t = 0.3)]
    pub kind_penalty: f64,
    /// SWIM: share of jobs given a deadline.
    #[arg(long, default_value_t = 0.5)]
    pub deadline_share: f64,
    /// SWIM: relative deadline as a multiple of T_C^L.
    #[arg(long, default_value_t = 2.0)]
    pub deadline_factor: f64,
    /// Solver of the `milp` policy: microlp (pure Rust) or highs (built with the `highs`
    /// feature).
    #[arg(long, default_value = "microlp")]
    pub milp_backend: String,
    /// Per-decision time limit of the `milp` policy in seconds; past it the decision
    /// falls back to GIO.
    #[arg(long, default_value_t = 1.0)]
    pub milp_time_limit: f64,
    /// Delay each job's start by the policy's measured wall-clock decision time (as the
    /// papers' real runs did); results then depend on machine speed.
    #[arg(long)]
    pub charge_decision_time: bool,
    /// Seconds from turning a VM on until it runs executors.
    #[arg(long, default_value_t = 0.0)]
    pub boot_latency: f64,
    /// Seconds an idle VM stays on before it is turned off.
    #[arg(long, default_value_t = 0.0)]
    pub keep_alive: f64,
    /// Seed of every random choice (repetition r uses seed + r).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Repetitions (different seeds); the table shows means.
    #[arg(long, default_value_t = 1)]
    pub repetitions: u64,
    /// Policy whose cost the "vs" column compares against.
    #[arg(long, default_value = "round-robin")]
    pub baseline: String,
    /// Write per-job, per-VM, cumulative-cost and summary files here.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Builds the cluster named by `--cluster`/`--pricing`/`--billing`.
pub fn build_cluster(
    name: &str,
    pricing: &str,
    billing: Option<&str>,
) -> Result<(Cluster, BillingGranularity)> {
    let pricing = PricingModel::parse(pricing).with_context(|| {
        format!("--pricing: unknown pricing model {pricing:?} (1, 2, 3, 4, real)")
    })?;
    let cfg = match Preset::parse(name) {
        Some(p) => p.config(pricing),
        None => {
            let text = std::fs::read_to_string(name).with_context(|| {
                format!(
                    "--cluster: {name:?} is neither a preset ({}) nor a readable file",
                    Preset::NAMES.join(", ")
                )
            })?;
            ClusterConfig::from_toml(&text, name)?
        }
    };
    let cluster = cfg.build(name)?;
    let billing = match billing {
        Some("per-hour") => BillingGranularity::PerHour,
        Some(_) => BillingGranularity::PerSecond,
        None => cfg.billing,
    };
    Ok((cluster, billing))
}

fn loads(arg: LoadArg) -> Vec<Load> {
    match arg {
        LoadArg::Light => vec![Load::Light],
        LoadArg::High => vec![Load::High],
        LoadArg::Both => vec![Load::Light, Load::High],
    }
}

/// Workloads to compare: label and a job list per repetition.
fn workloads(a: &SimulateArgs) -> Result<Vec<(String, Vec<Vec<Job>>)>> {
    let seeds: Vec<u64> = (0..a.repetitions.max(1)).map(|r| a.seed + r).collect();
    if let Some(path) = &a.jobs_csv {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let jobs = read_jobs_csv(&text, &path.display().to_string())?;
        return Ok(vec![(path.display().to_string(), vec![jobs; seeds.len()])]);
    }
    let hybrid_penalty = a.hybrid_penalty;
    if a.synthetic {
        let n = a.jobs.unwrap_or(1000);
        return Ok(loads(a.load)
            .into_iter()
            .map(|load| {
                let runs = seeds
                    .iter()
                    .map(|&seed| {
                        synthetic(&SyntheticConfig {
                            load,
                            jobs: n,
                            hybrid_penalty,
                            seed,
                        })
                    })
                    .collect();
                (
                    format!("synthetic {load:?} load, {n} jobs (paper 000 §6.1)"),
                    runs,
                )
            })
            .collect());
    }
    let (text, name) = match &a.trace {
        Some(p) => (
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
            p.display().to_string(),
        ),
        None => (
            EMBEDDED_FB2009.to_string(),
            EMBEDDED_FB2009_NAME.to_string(),
        ),
    };
    let records = parse_swim(&text, &name)?;
    let selections: Vec<(SwimHour, Option<usize>, String)> = match &a.hour {
        Some(h) => {
            let hour = if h == "day" {
                SwimHour::Day
            } else {
                match h.parse::<u32>() {
                    Ok(x) if x < 24 => SwimHour::Hour(x),
                    _ => bail!("--hour: expected 0–23 or `day`, got {h:?}"),
                }
            };
            vec![(hour, a.jobs, format!("{name} hour {h}"))]
        }
        None => loads(a.load)
            .into_iter()
            .map(|l| match l {
                Load::Light => (
                    SwimHour::Hour(0),
                    Some(50),
                    format!("light load: {name} hour 0, first 50 jobs"),
                ),
                Load::High => (
                    SwimHour::Hour(6),
                    Some(100),
                    format!("high load: {name} hour 6, first 100 jobs"),
                ),
            })
            .collect(),
    };
    let mut out = Vec::new();
    for (hour, n, label) in selections {
        let selected = select_hour(&records, hour, n);
        if selected.is_empty() {
            bail!("{label}: the trace has no job there");
        }
        let runs = seeds
            .iter()
            .map(|&seed| {
                let m = SwimMapping {
                    hybrid_penalty,
                    deadline_share: a.deadline_share,
                    deadline_factor: a.deadline_factor,
                    seed,
                };
                map_swim(&selected, &m)
            })
            .collect();
        out.push((label, runs));
    }
    Ok(out)
}

/// Parses `--milp-backend`.
pub fn parse_milp_backend(name: &str) -> Result<MilpBackend> {
    match name {
        "microlp" => Ok(MilpBackend::Microlp),
        #[cfg(feature = "highs")]
        "highs" => Ok(MilpBackend::Highs),
        #[cfg(not(feature = "highs"))]
        "highs" => bail!("--milp-backend: highs needs a build with `--features highs`"),
        other => bail!("--milp-backend: unknown backend {other:?} (microlp, highs)"),
    }
}

/// A policy named on the command line: built in, or a trained agent (`rl:<checkpoint>`).
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyChoice {
    /// One of the built-in policies.
    Builtin(PolicyKind),
    /// A checkpoint written by `frugal train`.
    Rl(PathBuf),
}

impl PolicyChoice {
    /// Name in tables and output directories.
    pub fn label(&self) -> String {
        match self {
            PolicyChoice::Builtin(k) => k.name().to_string(),
            PolicyChoice::Rl(p) => format!("rl:{}", p.display()),
        }
    }

    /// A fresh instance.
    pub fn build(&self, params: &PolicyParams) -> Result<Box<dyn PlacementPolicy>> {
        match self {
            PolicyChoice::Builtin(k) => Ok(k.build(params)),
            PolicyChoice::Rl(p) => Ok(Box::new(RlPolicy::load(p)?)),
        }
    }
}

/// Parses `--policies` (default every built-in policy).
pub fn parse_policies(names: Option<&[String]>) -> Result<Vec<PolicyChoice>> {
    match names {
        None => Ok(PolicyKind::ALL
            .iter()
            .map(|&k| PolicyChoice::Builtin(k))
            .collect()),
        Some(list) => list
            .iter()
            .map(|n| {
                let n = n.trim();
                if let Some(path) = n.strip_prefix("rl:") {
                    return Ok(PolicyChoice::Rl(PathBuf::from(path)));
                }
                PolicyKind::parse(n)
                    .map(PolicyChoice::Builtin)
                    .with_context(|| {
                        let all: Vec<&str> = PolicyKind::ALL.iter().map(|k| k.name()).collect();
                        format!(
                            "--policies: unknown policy {n:?} (one of {}, or rl:<checkpoint>)",
                            all.join(", ")
                        )
                    })
            })
            .collect(),
    }
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// Runs the comparison and prints one table per workload.
pub fn run(a: &SimulateArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let (cluster, billing) = build_cluster(&a.cluster, &a.pricing, a.billing.as_deref())?;
    let rut = Rut::with_alpha(a.alpha)
        .map_err(anyhow::Error::msg)
        .context("--alpha")?;
    let queue = match &a.queue {
        None => None,
        Some(q) => Some(QueueDiscipline::parse(q).with_context(|| {
            format!("--queue: unknown discipline {q:?} (fcfs, edf, deadline-first, morpheus)")
        })?),
    };
    for (flag, v) in [
        ("--hybrid-penalty", a.hybrid_penalty),
        ("--kind-penalty", a.kind_penalty),
        ("--boot-latency", a.boot_latency),
        ("--keep-alive", a.keep_alive),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            bail!("{flag}: must be a finite number ≥ 0, got {v}");
        }
    }
    if !(0.0..=1.0).contains(&a.deadline_share) {
        bail!("--deadline-share: must be in [0, 1]");
    }
    let policies = parse_policies(a.policies.as_deref())?;
    let milp_backend = parse_milp_backend(&a.milp_backend)?;
    if !(a.milp_time_limit.is_finite() && a.milp_time_limit > 0.0) {
        bail!("--milp-time-limit: must be a positive number of seconds");
    }
    let setup = Setup {
        cluster,
        billing,
        queue,
        admission_control: a.admission_control,
        policy: PolicyParams {
            rut,
            milp_backend,
            milp_time_limit: std::time::Duration::from_secs_f64(a.milp_time_limit),
        },
        charge_decision_time: a.charge_decision_time,
        duration: DurationModel {
            hybrid_rule: if a.hybrid_rule == "spanning" {
                HybridRule::Spanning
            } else {
                HybridRule::AnyRemote
            },
            kind_penalty: a.kind_penalty,
        },
        boot_latency_s: a.boot_latency,
        keep_alive_s: a.keep_alive,
    };
    writeln!(
        out,
        "cluster {} ({} VMs, {}), {}, {} billing, admission control {}, seed {}, {} repetition(s)",
        a.cluster,
        setup.cluster.len(),
        setup.cluster.total_capacity,
        match Preset::parse(&a.cluster) {
            Some(Preset::SmallHybrid | Preset::LargeHybrid) =>
                format!("pricing model {}", a.pricing),
            Some(_) => "AWS hourly prices".to_string(),
            None => "prices from the file".to_string(),
        },
        billing.name(),
        if a.admission_control { "on" } else { "off" },
        a.seed,
        a.repetitions.max(1)
    )?;
    for (label, runs) in workloads(a)? {
        let mut rows = Vec::new();
        for policy in &policies {
            let mut summaries = Vec::new();
            for (r, jobs) in runs.iter().enumerate() {
                let mut result = setup.run_with(policy.build(&setup.policy)?, jobs);
                result.summary.policy = policy.label();
                if let Some(dir) = &a.out {
                    let dir = dir.join(slug(&label)).join(format!(
                        "{}-seed{}",
                        slug(&policy.label()),
                        a.seed + r as u64
                    ));
                    write_run(&result, &dir)?;
                }
                summaries.push(result.summary);
            }
            rows.extend(average(&summaries));
        }
        writeln!(out, "\n{label} ({} jobs)", runs[0].len())?;
        writeln!(out, "{}", crate::table::render(&rows, &a.baseline))?;
    }
    Ok(())
}
