//! The specs of paper 001's experiments as plain data with serde: [`EphemeralSpec`] (the
//! Salamander–Cuckoo comparison) and [`PlannersSpec`] (the planners against the problem
//! size). Their keys are the command line's flag names without `--` (`chunk-mib`), so an
//! experiment file's `[args]` deserialises straight into them; `check` is the one place
//! where ranges and which fields go together are decided, for every face.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use frugal_core::spec::{SpecError, each_in, one_or_many};

use super::choices::Stop;
use crate::joint;
use crate::planner::Effort;
use crate::planner::Planner;
use crate::{DataCentre, ForecasterKind, PrimaryWorkload, Strategy};

/// The Salamander–Cuckoo comparison: volatility × data centre × chunk size × margin ×
/// start hour × forecaster × strategy. Every field has a default (the paper's comparison on
/// the University data centre); the command reference gives each field's meaning under its
/// flag (`--chunk-mib` for `chunk-mib`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename_all(deserialize = "kebab-case"))]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[cfg_attr(feature = "clap", command(allow_negative_numbers = true))]
pub struct EphemeralSpec {
    /// Data centres.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<DataCentre>(), value_delimiter = ',', default_value = "university"))]
    pub dc: Vec<DataCentre>,
    /// Chunk sizes, MiB (the paper: 128 and 256; RAM per task is 3 GiB up to 128 MiB, 4
    /// GiB above).
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', default_value = "256")
    )]
    pub chunk_mib: Vec<u32>,
    /// Safety margins S, percent of each host's CPU and RAM.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', default_value = "0,5,10,15,20,25,30")
    )]
    pub margins: Vec<u32>,
    /// Runs per configuration: the job is submitted at day 5 00:00 + h hours for h = 0 …
    /// N − 1.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", default_value_t = 48))]
    pub start_hours: u32,
    /// Strategies to compare.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(feature = "clap", arg( long, value_parser = frugal_core::flags::choice::<Strategy>(), value_delimiter = ',', default_value = "cuckoo,salamander-rffd,salamander-exact,salamander-exact-network" ))]
    pub strategies: Vec<Strategy>,
    /// Forecasters of the primary workload (each run plans with one; the rows name it).
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(feature = "clap", arg( long, value_parser = frugal_core::flags::choice::<ForecasterKind>(), value_delimiter = ',', default_value = "seasonal-quantile" ))]
    pub forecaster: Vec<ForecasterKind>,
    /// Volatility factors of the primary workload, each in [0, 4]: every host's load
    /// becomes its mean + factor × its deviation from the mean (clipped to [0, 1]); 1 is
    /// the trace as recorded, 0 a constant load, 2 twice every swing.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', default_value = "1")
    )]
    pub volatility: Vec<f64>,
    /// Tasks in the job, split 16:1 between maps and reduces [default: 640 maps + 40
    /// reduces].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub tasks: Option<u32>,
    /// Jobs of that shape submitted together at each start hour, every strategy planning
    /// and running all of them on the same hosts (the paper's experiments: 1); job time
    /// is then the mean over the jobs.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", default_value_t = 1))]
    pub jobs: u32,
    /// Map output bytes per input byte (the shuffle volume; not stated in the paper).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1.0))]
    pub map_output_ratio: f64,
    /// Simulate the client's upload of the input over its 50 Mbit/s link (one chunk at a
    /// time) instead of starting with every chunk in place.
    #[cfg_attr(feature = "clap", arg(long))]
    pub upload: bool,
    /// Seconds between extra checks of every host by the run-time controller, in
    /// [0.1, 180] [default: none: it checks when the primary load is injected, every 180 s].
    /// The paper's controller polls every 100 ms.
    #[cfg_attr(feature = "clap", arg(long, value_name = "S"))]
    pub control_step: Option<f64>,
    /// Round plan durations up to a multiple of this many seconds (180 = Table I's
    /// 3-minute grid) [default: 1]. Applies to Salamander strategies only.
    #[cfg_attr(feature = "clap", arg(long, value_name = "S"))]
    pub plan_slot_s: Option<u32>,
    /// Search effort of salamander-ga and salamander-ls: `full` (about 30 s per plan of 680
    /// tasks on one core, the paper's budget), `quick` (about 1 s) or a number of evaluated
    /// candidates. Counted, not timed, so results are reproducible [default: full].
    #[cfg_attr(feature = "clap", arg(long, value_name = "EFFORT"))]
    pub budget: Option<Effort>,
    /// Stop salamander-ga and salamander-ls after this many seconds as well (the paper's
    /// 30 s wall-clock limit); results then depend on the machine.
    #[cfg_attr(feature = "clap", arg(long, value_name = "S"))]
    pub wall_clock_s: Option<f64>,
    /// Seed of every random choice.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Host capacities (CSV `host,dc,configuration,cpu_gflops,ram_gib`) [default: the
    /// shipped data/ephemeral/hosts.csv].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub hosts: Option<PathBuf>,
    /// Which shipped primary workload to replay [default: gcd].
    #[serde(serialize_with = "workload_in_effect")]
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<PrimaryWorkload>()))]
    pub primary_workload: Option<PrimaryWorkload>,
    /// Primary-workload utilisation (CSV, plain or gzip, `host,day,sample,cpu_pct,mem_pct`
    /// with 7 days × 288 five-minute samples per host) instead of a shipped one; an error
    /// with --primary-workload.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub utilisation: Option<PathBuf>,
}

impl Default for EphemeralSpec {
    fn default() -> EphemeralSpec {
        EphemeralSpec {
            dc: vec![DataCentre::University],
            chunk_mib: vec![256],
            margins: vec![0, 5, 10, 15, 20, 25, 30],
            start_hours: 48,
            strategies: vec![
                Strategy::Cuckoo,
                Strategy::Salamander(Planner::Rffd),
                Strategy::Salamander(Planner::Exact),
                Strategy::Salamander(Planner::ExactNetwork),
            ],
            forecaster: vec![ForecasterKind::SeasonalQuantile],
            volatility: vec![1.0],
            tasks: None,
            jobs: 1,
            map_output_ratio: 1.0,
            upload: false,
            control_step: None,
            plan_slot_s: None,
            budget: None,
            wall_clock_s: None,
            seed: 1,
            hosts: None,
            primary_workload: None,
            utilisation: None,
        }
    }
}

/// The primary workload in effect, for the provenance.
fn workload_in_effect<S: serde::Serializer>(
    v: &Option<PrimaryWorkload>,
    s: S,
) -> Result<S::Ok, S::Error> {
    v.unwrap_or(PrimaryWorkload::Gcd).serialize(s)
}

/// An error for each of `fields` that is empty.
fn non_empty(fields: &[(&str, bool)]) -> Result<(), SpecError> {
    match fields.iter().find(|(_, empty)| *empty) {
        Some((field, _)) => Err(SpecError::new(*field, "give at least one")),
        None => Ok(()),
    }
}

/// An error unless the optional `value` is in `[lo, hi]`.
fn in_range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &str,
    value: Option<T>,
    lo: T,
    hi: T,
) -> Result<(), SpecError> {
    each_in(field, value.as_slice(), lo, hi)
}

impl EphemeralSpec {
    /// The shipped primary workload in effect.
    pub fn primary_workload(&self) -> PrimaryWorkload {
        self.primary_workload.unwrap_or(PrimaryWorkload::Gcd)
    }

    /// Checks the ranges and which fields go together; reading the inputs checks the rest.
    ///
    /// # Errors
    /// [`SpecError`] naming the field (as the spec names it: `plan-slot-s`).
    pub fn check(&self) -> Result<(), SpecError> {
        non_empty(&[
            ("dc", self.dc.is_empty()),
            ("chunk-mib", self.chunk_mib.is_empty()),
            ("margins", self.margins.is_empty()),
            ("strategies", self.strategies.is_empty()),
            ("forecaster", self.forecaster.is_empty()),
            ("volatility", self.volatility.is_empty()),
        ])?;
        each_in("chunk-mib", &self.chunk_mib, 1, 4096)?;
        each_in("margins", &self.margins, 0, 99)?;
        each_in("start-hours", &[self.start_hours], 1, 48)?;
        if self.volatility.iter().any(|v| v.is_nan()) {
            return Err(SpecError::new("volatility", "not a number: NaN"));
        }
        each_in("volatility", &self.volatility, 0.0, 4.0)?;
        in_range("tasks", self.tasks, 2, 100_000)?;
        each_in("jobs", &[self.jobs], 1, 20)?;
        each_in("map-output-ratio", &[self.map_output_ratio], 0.0, 100.0)?;
        in_range("control-step", self.control_step, 0.1, 180.0)?;
        in_range("plan-slot-s", self.plan_slot_s, 1, 3600)?;
        in_range("wall-clock-s", self.wall_clock_s, 0.001, 86_400.0)?;
        if self.primary_workload.is_some() && self.utilisation.is_some() {
            return Err(SpecError::conflict("primary-workload", "utilisation"));
        }
        let planned = self.strategies.iter().any(|s| s.plans());
        if self.plan_slot_s.is_some() && !planned {
            return Err(SpecError::new(
                "plan-slot-s",
                "applies to Salamander's plans; {strategies} has no salamander-* strategy",
            ));
        }
        let searches = self.strategies.iter().any(|s| s.searches());
        for (field, given) in [
            ("budget", self.budget.is_some()),
            ("wall-clock-s", self.wall_clock_s.is_some()),
        ] {
            if given && !searches {
                return Err(SpecError::new(
                    field,
                    "applies to salamander-ga and salamander-ls; {strategies} has neither",
                ));
            }
        }
        Ok(())
    }
}

/// The planners against the problem size (paper 001 Fig. 4): tasks × planner. Every field
/// has a default (the paper's figure on PC-1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename_all(deserialize = "kebab-case"))]
pub struct PlannersSpec {
    /// Data centre.
    pub dc: DataCentre,
    /// Problem sizes: tasks planned (over `jobs` jobs), each in 2..=100,000.
    #[serde(deserialize_with = "one_or_many")]
    pub tasks: Vec<u32>,
    /// Jobs per problem (1..=20): each size split into this many equal jobs.
    pub jobs: u32,
    /// Planners to compare.
    #[serde(deserialize_with = "one_or_many")]
    pub planners: Vec<Planner>,
    /// Metaheuristics' effort; `None`: full.
    pub budget: Option<Effort>,
    /// Stop rule of the metaheuristics; `None`: patience.
    pub stop: Option<Stop>,
    /// Plan durations rounded up to a multiple of this many seconds, 1..=3600.
    pub plan_slot_s: u32,
    /// The milp planner's time limit, seconds per problem in [1, 86,400]; `None`: 60.
    pub milp_time_limit_s: Option<f64>,
    /// Seed of the random choices.
    pub seed: u64,
}

impl Default for PlannersSpec {
    fn default() -> PlannersSpec {
        PlannersSpec {
            dc: DataCentre::Pc1,
            tasks: vec![500, 1000, 1500, 2000, 2500],
            jobs: 1,
            planners: vec![Planner::Rffd, Planner::Exact, Planner::Ga, Planner::Ls],
            budget: None,
            stop: None,
            plan_slot_s: 1,
            milp_time_limit_s: None,
            seed: 1,
        }
    }
}

impl PlannersSpec {
    /// Checks the ranges and which fields go together.
    ///
    /// # Errors
    /// [`SpecError`] naming the field.
    pub fn check(&self) -> Result<(), SpecError> {
        non_empty(&[
            ("tasks", self.tasks.is_empty()),
            ("planners", self.planners.is_empty()),
        ])?;
        each_in("tasks", &self.tasks, 2, 100_000)?;
        each_in("jobs", &[self.jobs], 1, 20)?;
        each_in("plan-slot-s", &[self.plan_slot_s], 1, 3600)?;
        in_range("milp-time-limit-s", self.milp_time_limit_s, 1.0, 86_400.0)?;
        let searches = self
            .planners
            .iter()
            .any(|p| matches!(p, Planner::Ga | Planner::Ls));
        for (field, given) in [
            ("budget", self.budget.is_some()),
            ("stop", self.stop.is_some()),
        ] {
            if given && !searches {
                return Err(SpecError::new(
                    field,
                    "applies to the ga and ls planners; {planners} has neither",
                ));
            }
        }
        let milp =
            self.planners.contains(&Planner::Milp) || self.planners.contains(&Planner::MilpCold);
        if self.milp_time_limit_s.is_some() && !milp {
            return Err(SpecError::new(
                "milp-time-limit-s",
                "applies to the milp planner; {planners} has none",
            ));
        }
        if milp && !cfg!(feature = "highs") {
            return Err(SpecError::new(
                "planners",
                "milp needs HiGHS: build frugal with --features highs (microlp, the solver \
                 built in, has no time limit and stalls on these sizes)",
            ));
        }
        if milp && !self.plan_slot_s.is_multiple_of(joint::GRID_S) {
            return Err(SpecError::new(
                "plan-slot-s",
                format!(
                    "milp plans on a {}-s grid: {} is not a multiple of it (try 60, or Table \
                     I's 180)",
                    joint::GRID_S,
                    self.plan_slot_s
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_experiment_table_deserialises_and_checks() {
        let s: EphemeralSpec = toml::from_str(
            "dc = [\"pc-1\", \"pc-2\"]\nchunk-mib = 128\nbudget = 500\n\
             strategies = [\"salamander-ga\"]",
        )
        .unwrap();
        assert_eq!(s.dc, vec![DataCentre::Pc1, DataCentre::Pc2]);
        assert_eq!(
            (&s.chunk_mib, s.budget),
            (&vec![128], Some(Effort::Evaluations(500)))
        );
        assert!(s.check().is_ok());
        let e = toml::from_str::<EphemeralSpec>("margin = 5").unwrap_err();
        assert!(e.to_string().contains("unknown field `margin`"), "{e}");
    }

    #[test]
    fn check_names_the_field() {
        let err = |t: &str| {
            toml::from_str::<EphemeralSpec>(t)
                .unwrap()
                .check()
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err("margins = [5, 100]"), "margins: 100 is outside [0, 99]");
        assert_eq!(
            err("primary-workload = \"gcd\"\nutilisation = \"u.csv\""),
            "primary-workload: cannot be used with utilisation"
        );
        assert!(err("budget = \"quick\"").starts_with("budget: applies to salamander-ga"));
        assert!(err("strategies = [\"cuckoo\"]\nplan-slot-s = 180").starts_with("plan-slot-s:"));
        let p: PlannersSpec = toml::from_str("stop = \"budget\"\nplanners = \"rffd\"").unwrap();
        assert!(
            p.check()
                .unwrap_err()
                .to_string()
                .starts_with("stop: applies to the ga")
        );
    }
}
