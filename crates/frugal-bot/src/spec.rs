//! The spec of a bag-of-tasks comparison (paper 003): which logs, machines, deadline
//! factors and policies. Every face builds one — `frugal bag-of-tasks` from its flags, an
//! experiment file from its keys, Python from its keywords — and [`crate::comparison`]
//! runs it; an error names the field (`SpecError`), which each face renders its own way.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use frugal_core::spec::{SpecError, each_in, one_or_many};

use crate::{Implementation, Policy};

/// A bag-of-tasks comparison: trace × scale × task count × α × policy. Every field has a
/// default (the paper's comparison on the NASA log); an experiment file names a field as
/// the command line's flag without `--` (`vm-usd-per-hour`), Python as written here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename_all(deserialize = "kebab-case"))]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct BagOfTasksSpec {
    /// SWF logs: `nasa` or `kth` (shipped inside frugal) or the path of an SWF file,
    /// plain or gzip (write `./nasa` for a file of that name); `a+b` concatenates the
    /// tasks of logs a and b.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "nasa|kth|FILE",
            value_delimiter = ',',
            default_value = "nasa"
        )
    )]
    pub trace: Vec<String>,
    /// Deadline factors: each task's deadline is α × its run time on a 2 GHz core.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', default_value = "1,2,3,4")
    )]
    pub alpha: Vec<u32>,
    /// Policies to compare.
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(feature = "clap", arg( long, value_parser = frugal_core::flags::choice::<Policy>(), value_delimiter = ',', default_value = "ffd,ffd-ra,ha,ha-ra" ))]
    pub policies: Vec<Policy>,
    /// PM scale factors s: s × every PM count (the paper's Fig. 10–11 use 1..10).
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', default_value = "1")
    )]
    pub scale: Vec<u32>,
    /// Run on the first N tasks of each log (log order; Fig. 12), for each N listed
    /// [default: all].
    #[serde(deserialize_with = "one_or_many")]
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub tasks: Vec<u64>,
    /// Repeat each log until the bag holds N tasks (numbered 1..N), for scale tests.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub replicate: Option<u64>,
    /// Machine file (TOML: [[pm]] and [[vm]] entries; format in the book) [default:
    /// the paper's 15 PMs and EC2 c3.large].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub machines: Option<PathBuf>,
    /// Rent of the VM type, dollars per started hour (the machine set must have one
    /// VM type).
    #[cfg_attr(feature = "clap", arg(long, value_name = "USD"))]
    pub vm_usd_per_hour: Option<f64>,
    /// Electricity price for the PMs' energy, dollars per kWh; reported as energy cost
    /// and total cost beside the rent (the paper prices only rent).
    #[cfg_attr(feature = "clap", arg(long, value_name = "USD", default_value_t = 0.0))]
    pub electricity_usd_per_kwh: f64,
    /// Timed repeats per run for the decision overhead (median, CPU seconds); 0 leaves
    /// overhead_s empty and makes the output byte-reproducible.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 5))]
    pub repeats: u32,
    /// Implementation of HA and FFD to run and time: `fast` (O(T·N·log T) HA, linear
    /// FFD) or `reference` (the paper's all-pairs HA and scanning FFD, for the shape of
    /// its CPU-time figures). Both give the same schedules.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Implementation>(), default_value = "fast"))]
    pub implementation: Implementation,
}

impl Default for BagOfTasksSpec {
    fn default() -> BagOfTasksSpec {
        BagOfTasksSpec {
            trace: vec!["nasa".into()],
            alpha: vec![1, 2, 3, 4],
            policies: Policy::PAPER.to_vec(),
            scale: vec![1],
            tasks: Vec::new(),
            replicate: None,
            machines: None,
            vm_usd_per_hour: None,
            electricity_usd_per_kwh: 0.0,
            repeats: 5,
            implementation: Implementation::Fast,
        }
    }
}

/// Most tasks a bag may hold (`tasks`, `replicate`).
pub const MAX_TASKS: u64 = 50_000_000;

impl BagOfTasksSpec {
    /// Checks every field that reading the inputs does not check.
    ///
    /// # Errors
    /// [`SpecError`] naming the field.
    pub fn check(&self) -> Result<(), SpecError> {
        for (field, empty) in [
            ("trace", self.trace.is_empty()),
            ("alpha", self.alpha.is_empty()),
            ("policies", self.policies.is_empty()),
            ("scale", self.scale.is_empty()),
        ] {
            if empty {
                return Err(SpecError::new(field, "give at least one"));
            }
        }
        each_in("alpha", &self.alpha, 1, 1000)?;
        each_in("scale", &self.scale, 1, 1000)?;
        each_in("tasks", &self.tasks, 1, MAX_TASKS)?;
        if let Some(n) = self.replicate {
            each_in("replicate", &[n], 1, MAX_TASKS)?;
            if !self.tasks.is_empty() {
                return Err(SpecError::new(
                    "replicate",
                    "cannot be used with tasks: give one",
                ));
            }
        }
        if let Some(p) = self.vm_usd_per_hour {
            each_in("vm-usd-per-hour", &[p], 1e-6, 10_000.0)?;
        }
        each_in(
            "electricity-usd-per-kwh",
            &[self.electricity_usd_per_kwh],
            0.0,
            100.0,
        )?;
        each_in("repeats", &[self.repeats], 0, 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An experiment file's keys: one value or a list, defaults for the rest; bad keys and
    /// values are named.
    #[test]
    fn specs_read_from_toml_with_defaults_and_named_errors() {
        let s: BagOfTasksSpec =
            toml::from_str("trace = \"kth\"\nalpha = [1, 3]\npolicies = \"ha-ra\"").unwrap();
        assert_eq!(s.trace, ["kth"]);
        assert_eq!(s.alpha, [1, 3]);
        assert_eq!(s.policies, [Policy::HaRa]);
        assert_eq!(s.repeats, BagOfTasksSpec::default().repeats);
        let e = toml::from_str::<BagOfTasksSpec>("polices = [\"ha\"]").unwrap_err();
        assert!(e.to_string().contains("polices"), "{e}");
        let e = toml::from_str::<BagOfTasksSpec>("policies = [\"fastest\"]").unwrap_err();
        assert!(e.to_string().contains("ffd-ra"), "{e}");
    }

    #[test]
    fn checks_name_the_field() {
        let bad = |s: BagOfTasksSpec| s.check().unwrap_err().field;
        let d = BagOfTasksSpec::default;
        assert_eq!(
            bad(BagOfTasksSpec {
                alpha: vec![0],
                ..d()
            }),
            "alpha"
        );
        assert_eq!(
            bad(BagOfTasksSpec {
                scale: vec![1001],
                ..d()
            }),
            "scale"
        );
        assert_eq!(
            bad(BagOfTasksSpec {
                policies: vec![],
                ..d()
            }),
            "policies"
        );
        assert_eq!(
            bad(BagOfTasksSpec {
                tasks: vec![10],
                replicate: Some(100),
                ..d()
            }),
            "replicate"
        );
        assert_eq!(
            bad(BagOfTasksSpec {
                electricity_usd_per_kwh: -1.0,
                ..d()
            }),
            "electricity-usd-per-kwh"
        );
        assert!(d().check().is_ok());
    }
}
