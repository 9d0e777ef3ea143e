//! [`SimulateSpec`]: what a policy comparison runs, as plain data with serde. Its keys are
//! the command line's flag names without `--` (`cluster-scale`), so an experiment file's
//! `[args]` table deserialises straight into it; [`SimulateSpec::check`] is the one place
//! where ranges and which fields go together are decided, for every face.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use frugal_core::spec::{SpecError, each_in, from_text, one_or_many};
use frugal_core::{KeepAlive, PolicyKind, PolicySpec};

use super::Loads;
use super::choices::{Application, ClusterSource};
use crate::workload::Pattern;
use frugal_core::policy::MilpBackend;
use frugal_core::{BillingGranularity, HybridRule, Preset, PricingModel, QueueDiscipline, Reading};

/// One hour of the trace or the whole day (`hour`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceHour {
    /// Hour 0–23.
    Hour(u32),
    /// The whole day (replayed day after day when `jobs` asks for more).
    Day,
}

impl std::str::FromStr for TraceHour {
    type Err = String;

    /// `0`–`23` or `day`.
    fn from_str(s: &str) -> Result<TraceHour, String> {
        match s {
            "day" => Ok(TraceHour::Day),
            _ => match s.parse::<u32>() {
                Ok(h) if h < 24 => Ok(TraceHour::Hour(h)),
                _ => Err(format!("expected an hour 0–23 or `day`, got {s:?}")),
            },
        }
    }
}

impl std::fmt::Display for TraceHour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceHour::Hour(h) => write!(f, "{h}"),
            TraceHour::Day => f.write_str("day"),
        }
    }
}

frugal_core::serde_as_text!(TraceHour);

/// Largest workload `jobs` accepts.
pub const MAX_JOBS: usize = 10_000_000;

/// A policy comparison: workload(s) × policies × repetitions on one cluster. Every field
/// has a default (`frugal simulate` with no flags: the embedded FB-2009 hours 0 and 6 on
/// paper 000's small hybrid cluster, every built-in policy). The command reference gives
/// each field's meaning under its flag (`--cluster-scale` for `cluster-scale`): the flags
/// are derived on this struct (feature `clap`), each field's doc its help.
///
/// `load`, `application` and `synthetic-reading` are `None` when not given, so that giving
/// one where it cannot apply is an error rather than ignored; [`SimulateSpec::load`] and
/// the like give the value in effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[cfg_attr(feature = "clap", command(allow_negative_numbers = true))]
#[serde(deny_unknown_fields, default, rename_all(deserialize = "kebab-case"))]
pub struct SimulateSpec {
    /// Cluster: a preset or a TOML file (format in the README).
    #[cfg_attr(feature = "clap", arg(long, value_name = "PRESET|FILE", default_value = "small-hybrid", value_parser = super::choices::ClusterParser))]
    pub cluster: ClusterSource,
    /// The K-fold cluster: every VM group of the preset or file K times (same types,
    /// sites and prices; at most 1,000,000 VMs). With --job-copies K the load per VM stays
    /// that of the original pair.
    #[cfg_attr(feature = "clap", arg(long, value_name = "K", default_value_t = 1))]
    pub cluster_scale: u32,
    /// K copies of every job at its arrival (ids `x#1`, `x#2`, …): the K-fold arrival rate,
    /// for scaled clusters. Jobs in all at most 10,000,000.
    #[cfg_attr(feature = "clap", arg(long, value_name = "K", default_value_t = 1))]
    pub job_copies: u32,
    /// Pricing model of the hybrid presets (paper 000 Table 3) [default: 1].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<PricingModel>()))]
    pub pricing: Option<PricingModel>,
    /// Billing granularity; overrides the cluster's.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<BillingGranularity>()))]
    pub billing: Option<BillingGranularity>,
    /// Load level(s) of the default trace replay or of --synthetic [default: both].
    #[serde(serialize_with = "effective::<Loads, _>")]
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Loads>()))]
    pub load: Option<Loads>,
    /// SWIM trace file (TSV) instead of the embedded FB-2009 day.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub trace: Option<PathBuf>,
    /// Replay this hour (0–23) or `day` of the trace instead of the --load hours.
    #[cfg_attr(feature = "clap", arg(long))]
    pub hour: Option<TraceHour>,
    /// With --hour: the first N jobs (default: all; with `day`, more than the day holds
    /// replays it day after day); with --synthetic: N jobs (default 1000); with --swf:
    /// the first N jobs (default: all).
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub jobs: Option<u64>,
    /// The synthetic workload of paper 000 §6.1 at the --load level(s).
    #[cfg_attr(feature = "clap", arg(long))]
    pub synthetic: bool,
    /// Which reading of paper 000 §6.1 --synthetic follows: the paper's text or the
    /// workloads the authors published with their simulator (RM-Simulator); they differ in
    /// arrival gaps, deadline slack and memory (model chapter) [default: paper-text].
    #[serde(serialize_with = "effective::<Reading, _>")]
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Reading>()))]
    pub synthetic_reading: Option<Reading>,
    /// An SWF log instead of the SWIM trace: `nasa` or `kth` (shipped) or an SWF file,
    /// plain or gzip; each record becomes a job of one 1-core executor per processor
    /// (mapping in the README). With --jobs: the first N jobs.
    #[cfg_attr(feature = "clap", arg(long, value_name = "nasa|kth|FILE"))]
    pub swf: Option<String>,
    /// The Alibaba GPU cluster trace of 2023 instead of the SWIM trace: `default` (the
    /// shipped task list) or a task-list CSV, plain or gzip; each scheduled task becomes a
    /// job of one executor with its CPU (rounded up to whole cores), memory and GPUs
    /// (mapping in the README). Its cluster is `--cluster alibaba-gpu-2023`. With --jobs:
    /// the first N tasks.
    #[cfg_attr(feature = "clap", arg(long, value_name = "default|FILE"))]
    pub alibaba: Option<String>,
    /// Paper 002 §7.1's generated jobs instead of the trace's: `normal` (50 jobs) or
    /// `burst` (100 jobs) at the arrivals of FB-2009 hour 0 or 6 (`--hour` picks another
    /// hour), uniform kinds, executor sizes and counts, drawn with each run's seed (mapping
    /// in the README).
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Pattern>(), value_name = "PATTERN"))]
    pub paper002: Option<Pattern>,
    /// Jobs from a CSV file (format in the README) instead of a trace.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub jobs_csv: Option<PathBuf>,
    /// VM losses and refused power-ons every run suffers: a CSV `time_s,vm,event` (event
    /// `lost` or `refused`), as the service can suffer them.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub vm_events: Option<PathBuf>,
    /// Comma-separated policies [default: every built-in one].
    #[serde(default, deserialize_with = "some_of_one_or_many")]
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', value_parser = frugal_core::flags::PolicyParser))]
    pub policies: Option<Vec<PolicySpec>>,
    /// Simulations the `offline` search may run per workload and repetition, in
    /// [1, 10,000,000] [default: 20,000].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub offline_budget: Option<u64>,
    /// Policy the "vs" column compares with; run as well if not among --policies.
    #[cfg_attr(feature = "clap", arg(long, default_value = "round-robin", value_parser = frugal_core::flags::PolicyParser))]
    pub baseline: PolicySpec,
    /// Queue discipline for every policy [default: each policy's published one].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<QueueDiscipline>()))]
    pub queue: Option<QueueDiscipline>,
    /// Comma-separated `<policy>=<queue>`: a built-in policy behind another queue than its
    /// published one (and than --queue), e.g. `milp=deadline-first` for paper 004's ILP
    /// behind Alg. 1's queue as BFD.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', value_name = "POLICY=QUEUE")
    )]
    pub policy_queue: Vec<frugal_core::PolicyQueue>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[cfg_attr(feature = "clap", arg(long))]
    pub admission_control: bool,
    /// Behind a head job that cannot be placed (FCFS, EDF, deadline-first's deadline
    /// queue): block (the papers') or EASY backfilling.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<frugal_core::Backfill>(), default_value = "none"))]
    pub backfill: frugal_core::Backfill,
    /// RUT alpha, the CPU weight of best-fit-decreasing and the deadline-first queue
    /// (paper 004 Eq. 5), in [0, 1]; beta = 1 − alpha [default: 0.8].
    #[cfg_attr(feature = "clap", arg(long))]
    pub alpha: Option<f64>,
    /// Slowdown of a job placed across sites, T_C^H = (1 + p)·T_C^L, for trace and
    /// synthetic jobs and CSV rows without t_hybrid_s, in [0, 100] [default: 0.3].
    #[cfg_attr(feature = "clap", arg(long))]
    pub hybrid_penalty: Option<f64>,
    /// Which placements run at T_C^H.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<HybridRule>(), default_value = "any-remote"))]
    pub hybrid_rule: HybridRule,
    /// Slowdown of a placement against the job kind's spread/consolidate preference
    /// (paper 002 §7.1), in [0, 100].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.3))]
    pub kind_penalty: f64,
    /// Jobs slow each other: a contention model file (TOML `scope`, `load`, `capacity`;
    /// `frugal contention` fits one on live runs). frugal's extension, off by
    /// default; the model chapter states it.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub contention: Option<PathBuf>,
    /// Which reading of the policies whose paper text and authors' code differ:
    /// round-robin, round-robin-consolidate, first-fit, gio, asq and milp (paper 000's
    /// authors' simulator), best-fit-decreasing, morpheus and milp (paper 004's authors'
    /// prototype; model chapter).
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Reading>(), default_value = "paper-text"))]
    pub policy_reading: Reading,
    /// SWIM jobs: the application every job runs (paper 004 §6.1.2's one-application
    /// workloads), or `mixed`: each job's from its shuffle/input ratio (mapping in the
    /// README) [default: mixed].
    #[serde(serialize_with = "effective::<Application, _>")]
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Application>()))]
    pub application: Option<Application>,
    /// Trace jobs: share given a deadline, in [0, 1] [default: 0.5].
    #[cfg_attr(feature = "clap", arg(long))]
    pub deadline_share: Option<f64>,
    /// Trace jobs: relative deadline as a multiple of T_C^L, in [1, 1000] [default: 2].
    #[cfg_attr(feature = "clap", arg(long))]
    pub deadline_factor: Option<f64>,
    /// Solver of the `milp` policy [default: microlp].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<MilpBackend>()))]
    pub milp_backend: Option<MilpBackend>,
    /// Per-decision time limit of the `milp` policy in seconds, in (0, 3600]; past it the
    /// decision falls back to GIO [default: 1].
    #[cfg_attr(feature = "clap", arg(long))]
    pub milp_time_limit: Option<f64>,
    /// Delay each start by the measured wall-clock decision time (results then depend on
    /// machine speed).
    #[cfg_attr(feature = "clap", arg(long))]
    pub charge_decision_time: bool,
    /// Seconds from turning a VM on until it runs executors, in [0, 86400].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.0))]
    pub boot_latency: f64,
    /// How long an idle VM stays on before it is turned off: seconds, or `paid-hour`
    /// (until the hour it has paid for ends, under per-hour billing).
    #[serde(deserialize_with = "from_text")]
    #[cfg_attr(
        feature = "clap",
        arg(long, default_value = "0", value_name = "SECONDS|paid-hour")
    )]
    pub keep_alive: KeepAlive,
    /// Cap on the fleet's price, dollars per hour (> 0): a placement that would turn VMs
    /// on beyond it waits (as `frugal serve --budget-per-hour`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DOLLARS"))]
    pub budget_per_hour: Option<f64>,
    /// Seed of every random choice; repetition r uses seed + r.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Repetitions with seeds seed, seed + 1, …; tables show mean ± 95 % confidence
    /// interval (Student t).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub repetitions: u64,
    /// Report wall-clock decision times (mean / p99 / max µs); they differ from run to
    /// run, so they are left out otherwise and outputs are byte-reproducible.
    #[cfg_attr(feature = "clap", arg(long))]
    pub timings: bool,
}

impl Default for SimulateSpec {
    fn default() -> SimulateSpec {
        SimulateSpec {
            cluster: ClusterSource::Preset(Preset::SmallHybrid),
            cluster_scale: 1,
            job_copies: 1,
            pricing: None,
            billing: None,
            load: None,
            trace: None,
            hour: None,
            jobs: None,
            synthetic: false,
            synthetic_reading: None,
            swf: None,
            alibaba: None,
            paper002: None,
            jobs_csv: None,
            vm_events: None,
            policies: None,
            offline_budget: None,
            baseline: PolicySpec::Builtin(PolicyKind::RoundRobin),
            queue: None,
            policy_queue: Vec::new(),
            admission_control: false,
            backfill: frugal_core::Backfill::None,
            alpha: None,
            hybrid_penalty: None,
            hybrid_rule: HybridRule::AnyRemote,
            kind_penalty: 0.3,
            contention: None,
            policy_reading: Reading::PaperText,
            application: None,
            deadline_share: None,
            deadline_factor: None,
            milp_backend: None,
            milp_time_limit: None,
            charge_decision_time: false,
            boot_latency: 0.0,
            keep_alive: KeepAlive::default(),
            budget_per_hour: None,
            seed: 1,
            repetitions: 1,
            timings: false,
        }
    }
}

/// The defaults of the fields that are `None` when not given.
trait Unset {
    const UNSET: Self;
}

impl Unset for Loads {
    const UNSET: Loads = Loads::Both;
}

impl Unset for Reading {
    const UNSET: Reading = Reading::PaperText;
}

impl Unset for Application {
    const UNSET: Application = Application::Mixed;
}

/// Serialises a field that is `None` when not given as the value in effect (the
/// provenance records what ran).
fn effective<T: Unset + Copy + Serialize, S: serde::Serializer>(
    v: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    v.unwrap_or(T::UNSET).serialize(s)
}

fn some_of_one_or_many<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<PolicySpec>>, D::Error> {
    one_or_many(d).map(Some)
}

/// Fields that cannot be given with each other: the workload sources, and the fields that
/// apply to some sources only. A field is given when it is not its unset value.
const CONFLICTS: [(&str, &[&str]); 7] = [
    ("load", &["hour", "jobs-csv"]),
    ("synthetic", &["trace", "hour", "jobs-csv"]),
    ("swf", &["trace", "hour", "jobs-csv", "synthetic", "load"]),
    (
        "alibaba",
        &["trace", "hour", "jobs-csv", "synthetic", "load", "swf"],
    ),
    (
        "paper002",
        &[
            "trace",
            "jobs-csv",
            "synthetic",
            "load",
            "swf",
            "alibaba",
            "jobs",
        ],
    ),
    ("jobs-csv", &["trace", "hour"]),
    (
        "application",
        &["synthetic", "swf", "alibaba", "paper002", "jobs-csv"],
    ),
];

impl SimulateSpec {
    /// The load level(s) in effect.
    pub fn load(&self) -> Loads {
        self.load.unwrap_or(Loads::UNSET)
    }

    /// The reading of paper 000 §6.1 in effect for `synthetic`.
    pub fn synthetic_reading(&self) -> Reading {
        self.synthetic_reading.unwrap_or(Reading::UNSET)
    }

    /// The application of SWIM jobs in effect.
    pub fn application(&self) -> Application {
        self.application.unwrap_or(Application::UNSET)
    }

    /// Whether the field named `key` (as the spec names it) is given.
    fn given(&self, key: &str) -> bool {
        match key {
            "load" => self.load.is_some(),
            "hour" => self.hour.is_some(),
            "jobs-csv" => self.jobs_csv.is_some(),
            "synthetic" => self.synthetic,
            "trace" => self.trace.is_some(),
            "swf" => self.swf.is_some(),
            "alibaba" => self.alibaba.is_some(),
            "paper002" => self.paper002.is_some(),
            "jobs" => self.jobs.is_some(),
            "application" => self.application.is_some(),
            _ => unreachable!("{key} is not a workload field"),
        }
    }

    /// Checks the ranges and which fields go together; reading the inputs checks the rest.
    ///
    /// # Errors
    /// [`SpecError`] naming the field (as the spec names it: `jobs-csv`).
    pub fn check(&self) -> Result<(), SpecError> {
        for (key, others) in CONFLICTS {
            if let Some(other) = others.iter().find(|o| self.given(key) && self.given(o)) {
                return Err(SpecError::conflict(key, other));
            }
        }
        if self.jobs.is_some()
            && !["hour", "synthetic", "swf", "alibaba"]
                .iter()
                .any(|k| self.given(k))
        {
            return Err(SpecError::new(
                "jobs",
                "counts the jobs of {hour}, {synthetic}, {swf} or {alibaba}: give one of them",
            ));
        }
        if self.synthetic_reading.is_some() && !self.synthetic {
            return Err(SpecError::new(
                "synthetic-reading",
                "applies to synthetic workloads: give {synthetic}",
            ));
        }
        if self.policies.as_ref().is_some_and(Vec::is_empty) {
            return Err(SpecError::new("policies", "give at least one"));
        }
        each_in("cluster-scale", &[self.cluster_scale], 1, 1_000_000)?;
        each_in("job-copies", &[self.job_copies], 1, 1_000_000)?;
        each_in(
            "jobs",
            &self.jobs.into_iter().collect::<Vec<_>>(),
            1,
            MAX_JOBS as u64,
        )?;
        let offline: Vec<u64> = self.offline_budget.into_iter().collect();
        each_in("offline-budget", &offline, 1, 10_000_000)?;
        each_in("repetitions", &[self.repetitions], 1, 10_000)?;
        for (key, value, lo, hi) in [
            ("alpha", self.alpha, 0.0, 1.0),
            ("hybrid-penalty", self.hybrid_penalty, 0.0, 100.0),
            ("kind-penalty", Some(self.kind_penalty), 0.0, 100.0),
            ("deadline-share", self.deadline_share, 0.0, 1.0),
            ("deadline-factor", self.deadline_factor, 1.0, 1000.0),
            ("milp-time-limit", self.milp_time_limit, 1e-6, 3600.0),
            ("boot-latency", Some(self.boot_latency), 0.0, 86_400.0),
            ("budget-per-hour", self.budget_per_hour, 1e-9, 1e12),
        ] {
            match value {
                Some(v) if v.is_nan() => {
                    return Err(SpecError::new(key, "not a number: NaN"));
                }
                Some(v) => each_in(key, &[v], lo, hi)?,
                None => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> SimulateSpec {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn an_experiment_table_deserialises_into_the_spec() {
        let s = spec(
            "cluster = \"large-hybrid\"\nhour = 10\njobs = 30\npricing = 2\n\
             policies = [\"gio\", \"rl:agents/a.pt\"]\nkeep-alive = \"paid-hour\"\n\
             kind-penalty = 0",
        );
        assert_eq!(s.cluster, ClusterSource::Preset(Preset::LargeHybrid));
        assert_eq!(
            (s.hour, s.jobs, s.pricing),
            (
                Some(TraceHour::Hour(10)),
                Some(30),
                Some(PricingModel::Model2)
            )
        );
        assert_eq!(s.policies.as_ref().map(Vec::len), Some(2));
        assert_eq!(s.keep_alive, KeepAlive::UntilPaidHourEnds);
        assert_eq!(s.kind_penalty, 0.0);
        assert_eq!(s.load(), Loads::Both);
        assert!(s.check().is_ok());
        let one = spec("policies = \"first-fit\"\ncluster = \"my/cluster.toml\"");
        assert_eq!(one.policies.map(|p| p.len()), Some(1));
        assert_eq!(one.cluster, ClusterSource::File("my/cluster.toml".into()));
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let e = toml::from_str::<SimulateSpec>("polices = [\"gio\"]").unwrap_err();
        assert!(e.to_string().contains("unknown field `polices`"), "{e}");
        let e = toml::from_str::<SimulateSpec>("queue = \"fifo\"").unwrap_err();
        assert!(
            e.to_string().contains(
                "invalid value \"fifo\" [possible values: fcfs, edf, deadline-first, morpheus]"
            ),
            "{e}"
        );
        let e = toml::from_str::<SimulateSpec>("hour = 24").unwrap_err();
        assert!(e.to_string().contains("hour 0–23"), "{e}");
    }

    #[test]
    fn check_names_the_field_for_ranges_and_conflicts() {
        let err = |t: &str| spec(t).check().unwrap_err().to_string();
        assert_eq!(
            err("load = \"both\"\nhour = 3"),
            "load: cannot be used with hour"
        );
        assert_eq!(
            err("synthetic = true\nhour = 3"),
            "synthetic: cannot be used with hour"
        );
        assert_eq!(
            err("paper002 = \"burst\"\njobs = 3"),
            "paper002: cannot be used with jobs"
        );
        assert_eq!(
            err("application = \"sort\"\njobs-csv = \"j.csv\""),
            "application: cannot be used with jobs-csv"
        );
        assert!(err("jobs = 3").starts_with("jobs: counts the jobs of hour"));
        assert!(err("synthetic-reading = \"authors-code\"").starts_with("synthetic-reading:"));
        assert_eq!(err("alpha = 1.5"), "alpha: 1.5 is outside [0, 1]");
        assert_eq!(
            err("repetitions = 0"),
            "repetitions: 0 is outside [1, 10000]"
        );
        assert_eq!(err("policies = []"), "policies: give at least one");
        // The unset defaults do not conflict; the hour's own load is not asked for.
        assert!(spec("hour = 3\njobs = 5").check().is_ok());
        assert!(
            spec("synthetic = true\nload = \"high\"\njobs = 5")
                .check()
                .is_ok()
        );
    }
}
