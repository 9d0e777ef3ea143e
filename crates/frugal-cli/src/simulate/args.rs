//! The flags of `frugal simulate` that describe the comparison: each sets the
//! [`SimulateSpec`] field of its name, which checks them (ranges, fields that cannot go
//! together), so the command line, experiment files and Python refuse the same things.

use std::path::PathBuf;

use clap::{ArgMatches, Args};

use frugal_core::PolicySpec;
use frugal_core::policy::MilpBackend;
use frugal_core::{BillingGranularity, HybridRule, PricingModel, QueueDiscipline, Reading};
use frugal_sim::options::choices::{Application, ClusterSource};
use frugal_sim::options::{Loads, SimulateSpec, TraceHour};
use frugal_sim::workload::Pattern;

use crate::values::{ClusterParser, PolicyParser, choice, given};

/// The comparison's flags (`SimulateSpec`'s fields).
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ComparisonArgs {
    /// Cluster: a preset or a TOML file (format in the README).
    #[arg(long, value_name = "PRESET|FILE", default_value = "small-hybrid", value_parser = ClusterParser)]
    pub cluster: ClusterSource,
    /// The K-fold cluster: every VM group of the preset or file K times (same types,
    /// sites and prices; at most 1,000,000 VMs). With --job-copies K the load per VM stays
    /// that of the original pair.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub cluster_scale: u32,
    /// K copies of every job at its arrival (ids `x#1`, `x#2`, …): the K-fold arrival rate,
    /// for scaled clusters. Jobs in all at most 10,000,000.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub job_copies: u32,
    /// Pricing model of the hybrid presets (paper 000 Table 3) [default: 1].
    #[arg(long, value_parser = choice::<PricingModel>())]
    pub pricing: Option<PricingModel>,
    /// Billing granularity; overrides the cluster's.
    #[arg(long, value_parser = choice::<BillingGranularity>())]
    pub billing: Option<BillingGranularity>,
    /// Load level(s) of the default trace replay or of --synthetic.
    #[arg(long, value_parser = choice::<Loads>(), default_value = "both")]
    pub load: Loads,
    /// SWIM trace file (TSV) instead of the embedded FB-2009 day.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Replay this hour (0–23) or `day` of the trace instead of the --load hours.
    #[arg(long)]
    pub hour: Option<TraceHour>,
    /// With --hour: the first N jobs (default: all; with `day`, more than the day holds
    /// replays it day after day); with --synthetic: N jobs (default 1000); with --swf:
    /// the first N jobs (default: all).
    #[arg(long, value_name = "N")]
    pub jobs: Option<u64>,
    /// The synthetic workload of paper 000 §6.1 at the --load level(s).
    #[arg(long)]
    pub synthetic: bool,
    /// Which reading of paper 000 §6.1 --synthetic follows: the paper's text or the
    /// workloads the authors published with their simulator (RM-Simulator); they differ in
    /// arrival gaps, deadline slack and memory (model chapter).
    #[arg(long, value_parser = choice::<Reading>(), default_value = "paper-text")]
    pub synthetic_reading: Reading,
    /// An SWF log instead of the SWIM trace: `nasa` or `kth` (shipped) or an SWF file,
    /// plain or gzip; each record becomes a job of one 1-core executor per processor
    /// (mapping in the README). With --jobs: the first N jobs.
    #[arg(long, value_name = "nasa|kth|FILE")]
    pub swf: Option<String>,
    /// The Alibaba GPU cluster trace of 2023 instead of the SWIM trace: `default` (the
    /// shipped task list) or a task-list CSV, plain or gzip; each scheduled task becomes a
    /// job of one executor with its CPU (rounded up to whole cores), memory and GPUs
    /// (mapping in the README). Its cluster is `--cluster alibaba-gpu-2023`. With --jobs:
    /// the first N tasks.
    #[arg(long, value_name = "default|FILE")]
    pub alibaba: Option<String>,
    /// Paper 002 §7.1's generated jobs instead of the trace's: `normal` (50 jobs) or
    /// `burst` (100 jobs) at the arrivals of FB-2009 hour 0 or 6 (`--hour` picks another
    /// hour), uniform kinds, executor sizes and counts, drawn with each run's seed (mapping
    /// in the README).
    #[arg(long, value_parser = choice::<Pattern>(), value_name = "PATTERN")]
    pub paper002: Option<Pattern>,
    /// Jobs from a CSV file (format in the README) instead of a trace.
    #[arg(long, value_name = "FILE")]
    pub jobs_csv: Option<PathBuf>,
    /// VM losses and refused power-ons every run suffers: a CSV `time_s,vm,event` (event
    /// `lost` or `refused`), as the service can suffer them.
    #[arg(long, value_name = "FILE")]
    pub vm_events: Option<PathBuf>,
    /// Comma-separated policies [default: every built-in one].
    #[arg(long, value_delimiter = ',', value_parser = PolicyParser)]
    pub policies: Option<Vec<PolicySpec>>,
    /// Simulations the `offline` search may run per workload and repetition, in
    /// [1, 10,000,000] [default: 20,000].
    #[arg(long, value_name = "N")]
    pub offline_budget: Option<u64>,
    /// Policy the "vs" column compares with; run as well if not among --policies.
    #[arg(long, default_value = "round-robin", value_parser = PolicyParser)]
    pub baseline: PolicySpec,
    /// Queue discipline for every policy [default: each policy's published one].
    #[arg(long, value_parser = choice::<QueueDiscipline>())]
    pub queue: Option<QueueDiscipline>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[arg(long)]
    pub admission_control: bool,
    /// Behind a head job that cannot be placed (FCFS, EDF, deadline-first's deadline
    /// queue): block (the papers') or EASY backfilling.
    #[arg(long, value_parser = choice::<frugal_core::Backfill>(), default_value = "none")]
    pub backfill: frugal_core::Backfill,
    /// RUT alpha, the CPU weight of best-fit-decreasing and the deadline-first queue
    /// (paper 004 Eq. 5), in [0, 1]; beta = 1 − alpha [default: 0.8].
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Slowdown of a job placed across sites, T_C^H = (1 + p)·T_C^L, for trace and
    /// synthetic jobs and CSV rows without t_hybrid_s, in [0, 100] [default: 0.3].
    #[arg(long)]
    pub hybrid_penalty: Option<f64>,
    /// Which placements run at T_C^H.
    #[arg(long, value_parser = choice::<HybridRule>(), default_value = "any-remote")]
    pub hybrid_rule: HybridRule,
    /// Slowdown of a placement against the job kind's spread/consolidate preference
    /// (paper 002 §7.1), in [0, 100].
    #[arg(long, default_value_t = 0.3)]
    pub kind_penalty: f64,
    /// Jobs slow each other: a contention model file (TOML `scope`, `load`, `capacity`;
    /// `frugal contention` fits one on live runs). frugal's extension, off by
    /// default; the model chapter states it.
    #[arg(long, value_name = "FILE")]
    pub contention: Option<PathBuf>,
    /// Which reading of the policies whose paper text and authors' code differ:
    /// round-robin, round-robin-consolidate, first-fit, gio, asq and milp (paper 000's
    /// authors' simulator), best-fit-decreasing, morpheus and milp (paper 004's authors'
    /// prototype; model chapter).
    #[arg(long, value_parser = choice::<Reading>(), default_value = "paper-text")]
    pub policy_reading: Reading,
    /// SWIM jobs: the application every job runs (paper 004 §6.1.2's one-application
    /// workloads), or `mixed`: each job's from its shuffle/input ratio (mapping in the
    /// README).
    #[arg(long, value_parser = choice::<Application>(), default_value = "mixed")]
    pub application: Application,
    /// Trace jobs: share given a deadline, in [0, 1] [default: 0.5].
    #[arg(long)]
    pub deadline_share: Option<f64>,
    /// Trace jobs: relative deadline as a multiple of T_C^L, in [1, 1000] [default: 2].
    #[arg(long)]
    pub deadline_factor: Option<f64>,
    /// Solver of the `milp` policy [default: microlp].
    #[arg(long, value_parser = choice::<MilpBackend>())]
    pub milp_backend: Option<MilpBackend>,
    /// Per-decision time limit of the `milp` policy in seconds, in (0, 3600]; past it the
    /// decision falls back to GIO [default: 1].
    #[arg(long)]
    pub milp_time_limit: Option<f64>,
    /// Delay each start by the measured wall-clock decision time (results then depend on
    /// machine speed).
    #[arg(long)]
    pub charge_decision_time: bool,
    /// Seconds from turning a VM on until it runs executors, in [0, 86400].
    #[arg(long, default_value_t = 0.0)]
    pub boot_latency: f64,
    /// How long an idle VM stays on before it is turned off: seconds, or `paid-hour`
    /// (until the hour it has paid for ends, under per-hour billing).
    #[arg(long, default_value = "0", value_name = "SECONDS|paid-hour")]
    pub keep_alive: frugal_core::KeepAlive,
    /// Cap on the fleet's price, dollars per hour (> 0): a placement that would turn VMs
    /// on beyond it waits (as `frugal serve --budget-per-hour`).
    #[arg(long, value_name = "DOLLARS")]
    pub budget_per_hour: Option<f64>,
    /// Seed of every random choice; repetition r uses seed + r.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Repetitions with seeds seed, seed + 1, …; tables show mean ± 95 % confidence
    /// interval (Student t).
    #[arg(long, default_value_t = 1)]
    pub repetitions: u64,
    /// Report wall-clock decision times (mean / p99 / max µs); they differ from run to
    /// run, so they are left out otherwise and outputs are byte-reproducible.
    #[arg(long)]
    pub timings: bool,
}

impl ComparisonArgs {
    /// The spec these flags set; `matches` (the subcommand's) tells which flags were given,
    /// so a default is not taken for a value asked for (none: the defaults only).
    pub fn spec(&self, matches: Option<&ArgMatches>) -> SimulateSpec {
        let given = |id: &str| given(matches, id);
        SimulateSpec {
            cluster: self.cluster.clone(),
            cluster_scale: self.cluster_scale,
            job_copies: self.job_copies,
            pricing: self.pricing,
            billing: self.billing,
            load: given("load").then_some(self.load),
            trace: self.trace.clone(),
            hour: self.hour,
            jobs: self.jobs,
            synthetic: self.synthetic,
            synthetic_reading: given("synthetic_reading").then_some(self.synthetic_reading),
            swf: self.swf.clone(),
            alibaba: self.alibaba.clone(),
            paper002: self.paper002,
            jobs_csv: self.jobs_csv.clone(),
            vm_events: self.vm_events.clone(),
            policies: self.policies.clone(),
            offline_budget: self.offline_budget,
            baseline: self.baseline.clone(),
            queue: self.queue,
            admission_control: self.admission_control,
            backfill: self.backfill,
            alpha: self.alpha,
            hybrid_penalty: self.hybrid_penalty,
            hybrid_rule: self.hybrid_rule,
            kind_penalty: self.kind_penalty,
            contention: self.contention.clone(),
            policy_reading: self.policy_reading,
            application: given("application").then_some(self.application),
            deadline_share: self.deadline_share,
            deadline_factor: self.deadline_factor,
            milp_backend: self.milp_backend,
            milp_time_limit: self.milp_time_limit,
            charge_decision_time: self.charge_decision_time,
            boot_latency: self.boot_latency,
            keep_alive: self.keep_alive,
            budget_per_hour: self.budget_per_hour,
            seed: self.seed,
            repetitions: self.repetitions,
            timings: self.timings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;

    fn spec(argv: &[&str]) -> SimulateSpec {
        let (a, m) = parsed::<ComparisonArgs>(argv);
        a.spec(Some(&m))
    }

    /// The flags' defaults are the spec's, and a flag given with its default value is
    /// given (so `--load both --hour 3` is refused as `load = "both"` with `hour` is).
    #[test]
    fn the_flags_map_onto_the_spec() {
        assert_eq!(spec(&["simulate"]), SimulateSpec::default());
        let s = spec(&[
            "simulate", "--load", "both", "--queue", "edf", "--hour", "3",
        ]);
        assert_eq!(
            (s.load, s.queue),
            (Some(Loads::Both), Some(QueueDiscipline::Edf))
        );
        assert_eq!(
            s.check().unwrap_err().to_string(),
            "load: cannot be used with hour"
        );
    }
}
