//! `frugal bench`: the flags of `frugal_report::bench`'s [`BenchSpec`], one per field.

use clap::Args;

use frugal_core::PolicyKind;
use frugal_report::bench::{BenchSpec, Section};

use crate::values::choice;

/// Options of `frugal bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Policy calls timed per policy and cluster (the `milp` policy makes 1/100 of them).
    #[arg(long, default_value_t = 200_000)]
    pub decisions: usize,
    /// Jobs in the whole-simulation benchmark (synthetic high load, large-scale cluster).
    #[arg(long, default_value_t = 10_000)]
    pub jobs: usize,
    /// Comma-separated policies (default all; the whole-simulation benchmark skips `milp`
    /// unless it is named).
    #[arg(long, value_delimiter = ',', value_parser = choice::<PolicyKind>())]
    pub policies: Option<Vec<PolicyKind>>,
    /// Environment steps timed (random valid actions, paper 002 Table 4 cluster, burst
    /// training hours).
    #[arg(long, default_value_t = 2_000_000)]
    pub env_steps: usize,
    /// Seed of the cluster state and the jobs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Sections to run [default: all].
    #[arg(long, value_parser = choice::<Section>(), value_delimiter = ',', conflicts_with = "scale")]
    pub sections: Option<Vec<Section>>,
    /// Run only section (f), scale: per-job simulation time on the 180-VM large-scale
    /// cluster against its 56-fold copy (10,080 VMs, 56 copies of every job), then
    /// SWIM-derived jobs with first fit on 10,080 VMs (several minutes).
    #[arg(long)]
    pub scale: bool,
    /// With --scale: synthetic high-load jobs per 180 VMs.
    #[arg(long, default_value_t = 2_000, requires = "scale",
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub scale_jobs: u64,
    /// With --scale: SWIM-derived jobs on 10,080 VMs with first fit (0 skips the run).
    #[arg(long, default_value_t = 1_000_000, requires = "scale",
          value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub scale_million: u64,
}

impl BenchArgs {
    /// The spec these flags set.
    pub fn spec(&self) -> BenchSpec {
        BenchSpec {
            decisions: self.decisions,
            jobs: self.jobs,
            policies: self.policies.clone(),
            env_steps: self.env_steps,
            seed: self.seed,
            sections: self.sections.clone(),
            scale: self.scale,
            scale_jobs: self.scale_jobs,
            scale_million: self.scale_million,
        }
    }
}
