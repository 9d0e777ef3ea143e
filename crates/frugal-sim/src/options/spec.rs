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
/// each field's meaning under its flag (`--cluster-scale` for `cluster-scale`).
///
/// `load`, `application` and `synthetic-reading` are `None` when not given, so that giving
/// one where it cannot apply is an error rather than ignored; [`SimulateSpec::load`] and
/// the like give the value in effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename_all(deserialize = "kebab-case"))]
pub struct SimulateSpec {
    /// A preset or a cluster TOML file.
    pub cluster: ClusterSource,
    /// Every VM group of the cluster K times, K in 1..=1,000,000.
    pub cluster_scale: u32,
    /// K copies of every job at its arrival, K in 1..=1,000,000.
    pub job_copies: u32,
    /// Pricing model of the hybrid presets (paper 000 Table 3); `None`: model 1.
    pub pricing: Option<PricingModel>,
    /// Billing granularity; overrides the cluster's.
    pub billing: Option<BillingGranularity>,
    /// Load level(s) of the trace replay or of `synthetic`; `None`: both.
    #[serde(serialize_with = "effective::<Loads, _>")]
    pub load: Option<Loads>,
    /// SWIM trace file (TSV) instead of the embedded FB-2009 day.
    pub trace: Option<PathBuf>,
    /// One hour (0–23) or `day` of the trace instead of the `load` hours.
    pub hour: Option<TraceHour>,
    /// How many jobs (1 to [`MAX_JOBS`]) of `hour`, `synthetic`, `swf` or `alibaba`.
    pub jobs: Option<u64>,
    /// The synthetic workload of paper 000 §6.1 at the `load` level(s).
    pub synthetic: bool,
    /// Which reading of paper 000 §6.1 `synthetic` follows; `None`: the paper's text.
    #[serde(serialize_with = "effective::<Reading, _>")]
    pub synthetic_reading: Option<Reading>,
    /// An SWF log: `nasa`, `kth` or a file.
    pub swf: Option<String>,
    /// The Alibaba GPU trace of 2023: `default` or a task-list CSV.
    pub alibaba: Option<String>,
    /// Paper 002 §7.1's generated jobs at this arrival pattern.
    pub paper002: Option<Pattern>,
    /// Jobs from a CSV file.
    pub jobs_csv: Option<PathBuf>,
    /// VM losses and refused power-ons (CSV `time_s,vm,event`).
    pub vm_events: Option<PathBuf>,
    /// Policies to compare; `None`: every built-in one.
    #[serde(default, deserialize_with = "some_of_one_or_many")]
    pub policies: Option<Vec<PolicySpec>>,
    /// Simulations the `offline` search may run, 1 to 10,000,000; `None`: 20,000.
    pub offline_budget: Option<u64>,
    /// The policy the "vs" column compares with.
    pub baseline: PolicySpec,
    /// Queue discipline for every policy; `None`: each policy's published one.
    pub queue: Option<QueueDiscipline>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    pub admission_control: bool,
    /// Behind a head job that cannot be placed: block or EASY backfilling.
    pub backfill: frugal_core::Backfill,
    /// RUT α in [0, 1] (paper 004 Eq. 5); `None`: 0.8.
    pub alpha: Option<f64>,
    /// p in [0, 100]: T_C^H = (1 + p)·T_C^L; `None`: 0.3.
    pub hybrid_penalty: Option<f64>,
    /// Which placements run at T_C^H.
    pub hybrid_rule: HybridRule,
    /// Slowdown in [0, 100] against the job kind's preference (paper 002 §7.1).
    pub kind_penalty: f64,
    /// A contention model file (frugal's extension: jobs slowing each other; book: Model
    /// and semantics); `None`: the papers' model, no contention.
    pub contention: Option<PathBuf>,
    /// Paper text or authors' code for the policies where they differ.
    pub policy_reading: Reading,
    /// SWIM jobs' application; `None`: mixed.
    #[serde(serialize_with = "effective::<Application, _>")]
    pub application: Option<Application>,
    /// Share of trace jobs given a deadline, in [0, 1]; `None`: 0.5.
    pub deadline_share: Option<f64>,
    /// Trace jobs' relative deadline as a multiple of T_C^L, in [1, 1000]; `None`: 2.
    pub deadline_factor: Option<f64>,
    /// Solver of the `milp` policy; `None`: microlp.
    pub milp_backend: Option<MilpBackend>,
    /// Per-decision time limit of `milp`, seconds in (0, 3600]; `None`: 1.
    pub milp_time_limit: Option<f64>,
    /// Delay each start by the measured decision time.
    pub charge_decision_time: bool,
    /// Seconds from power-on until a VM runs executors, in [0, 86,400].
    pub boot_latency: f64,
    /// How long an idle VM stays on: seconds or `paid-hour`.
    #[serde(deserialize_with = "from_text")]
    pub keep_alive: KeepAlive,
    /// Cap on the fleet's price, dollars per hour (> 0).
    pub budget_per_hour: Option<f64>,
    /// Seed of every random choice; repetition r uses seed + r.
    pub seed: u64,
    /// Repetitions, 1 to 10,000.
    pub repetitions: u64,
    /// Report wall-clock decision times (not byte-reproducible).
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
