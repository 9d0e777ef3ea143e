//! Closed sets of a comparison's values as [`Choice`]s (each name with its source, which
//! `--help` lists and a spec reads), and the open ones (`cluster`: a preset or a file;
//! policies: a name or `rl:CHECKPOINT`), shared by every face of frugal that takes
//! simulation options (the CLI, experiment files, Python, the service).

use std::path::{Path, PathBuf};

use frugal_core::PolicySpec;
use frugal_core::choice;
use frugal_core::job::JobKind;
use frugal_core::policy::{MilpBackend, PlacementPolicy, PolicyParams};
use frugal_core::spec::{Choice, SpecError};
use frugal_core::{BillingGranularity, Cluster, HybridRule, Preset, PricingModel};
use frugal_core::{ClusterConfig, QueueDiscipline, Reading};

/// Builds the policy `spec` names, fresh, for `cluster`; `agents` loads the trained agents
/// (`rl:`), which this crate does not know (`frugal_agents::load_policy`).
///
/// # Errors
/// The loader's (an unreadable checkpoint, or one trained on a cluster of another shape);
/// `offline`, which is a search over whole runs, not a policy.
pub fn build_policy(
    spec: &PolicySpec,
    params: &PolicyParams,
    cluster: &Cluster,
    agents: &AgentLoader,
) -> anyhow::Result<Box<dyn PlacementPolicy>> {
    match spec {
        PolicySpec::Builtin(k) => Ok(k.build(params)),
        PolicySpec::Rl(p) => agents(p, cluster),
        PolicySpec::Offline => {
            anyhow::bail!("offline searches over whole runs; it is not an online policy")
        }
    }
}

/// Loads a trained agent's checkpoint as a placement policy for a cluster (the `rl:`
/// policies): given by the callers, which know the agents (`frugal_agents::load_policy`).
pub type AgentLoader = dyn Fn(&Path, &Cluster) -> anyhow::Result<Box<dyn PlacementPolicy>> + Sync;

/// An [`AgentLoader`] for front-ends without agents: every `rl:` policy is an error.
pub fn no_agents(path: &Path, _: &Cluster) -> anyhow::Result<Box<dyn PlacementPolicy>> {
    anyhow::bail!(
        "{}: this build runs no trained agents",
        PolicySpec::Rl(path.to_path_buf())
    )
}

/// The checkpoints an `rl:` path names: the path itself, or, with `*`, `?` or `[`, every
/// file it matches but the `.json` sidecars, in name order (so an experiment can name every
/// training seed of an agent at once).
///
/// # Errors
/// A malformed pattern, an unreadable folder, or a pattern that matches nothing.
pub fn checkpoints_matching(pattern: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let text = pattern.display().to_string();
    if !text.contains(['*', '?', '[']) {
        return Ok(vec![pattern.to_path_buf()]);
    }
    let mut found: Vec<PathBuf> = glob::glob(&text)?.collect::<Result<_, _>>()?;
    found.retain(|f| f.extension().is_none_or(|e| e != "json"));
    found.sort();
    if found.is_empty() {
        anyhow::bail!("{text}: no checkpoint matches");
    }
    Ok(found)
}

choice! {
    /// Cluster presets.
    pub enum PresetName => fn preset() -> Preset {
        SmallHybrid = "small-hybrid": "Paper 000 Table 2 small scale: 9 VMs, 1 local + 2 cloud per instance type" => Preset::SmallHybrid,
        LargeHybrid = "large-hybrid": "Paper 000 Table 2 large scale: 180 VMs, 10 local + 50 cloud per instance type" => Preset::LargeHybrid,
        Paper004Cloud = "paper004-cloud": "Paper 004 Table 3: 14 cloud VMs at AWS hourly prices" => Preset::Paper004Cloud,
        Paper002Cloud = "paper002-cloud": "Paper 002 Table 4: 12 cloud VMs at AWS hourly prices" => Preset::Paper002Cloud,
        AlibabaGpu2023 = "alibaba-gpu-2023": "The Alibaba GPU cluster of 2023: 1,523 nodes (6,212 GPUs) as cloud VMs at equivalent on-demand prices (data/alibaba-gpu-2023/cluster.toml)" => Preset::AlibabaGpu2023,
    }
}

impl PresetName {
    /// True for the presets whose prices follow `pricing` (paper 000 Table 3).
    pub fn takes_pricing(self) -> bool {
        matches!(self, PresetName::SmallHybrid | PresetName::LargeHybrid)
    }
}

/// `cluster`: a preset or a TOML file.
#[derive(Clone, Debug, PartialEq)]
pub enum ClusterSource {
    /// A built-in cluster.
    Preset(PresetName),
    /// A cluster file (format in the book's configuration reference).
    File(PathBuf),
}

frugal_core::serde_as_text!(ClusterSource);

impl std::fmt::Display for ClusterSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterSource::Preset(p) => f.write_str(p.preset().name()),
            ClusterSource::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl ClusterSource {
    /// The configuration (a preset's at `pricing`, or the file's).
    ///
    /// # Errors
    /// [`SpecError`] for `pricing` given where it cannot apply or an unreadable cluster
    /// file; an invalid cluster file (the message names the file, line and field).
    pub fn config(&self, pricing: Option<PricingArg>) -> anyhow::Result<ClusterConfig> {
        Ok(match self {
            ClusterSource::Preset(p) => {
                if pricing.is_some() && !p.takes_pricing() {
                    return Err(SpecError::new(
                        "pricing",
                        format!(
                            "applies to the hybrid presets (small-hybrid, large-hybrid); {} has \
                             the paper's AWS prices",
                            p.preset().name()
                        ),
                    )
                    .into());
                }
                p.preset()
                    .config(pricing.map_or(PricingModel::Model1, PricingArg::model))
            }
            ClusterSource::File(path) => {
                if pricing.is_some() {
                    return Err(SpecError::new(
                        "pricing",
                        format!(
                            "applies to the hybrid presets; the cluster file {} sets its own \
                             prices",
                            path.display()
                        ),
                    )
                    .into());
                }
                let text = std::fs::read_to_string(path).map_err(|e| {
                    SpecError::new(
                        "cluster",
                        format!(
                            "{}: {e} (presets: {})",
                            path.display(),
                            Preset::NAMES.join(", ")
                        ),
                    )
                })?;
                ClusterConfig::from_toml(&text, &path.display().to_string())?
            }
        })
    }

    /// Builds the cluster; `pricing` applies to the hybrid presets only (`None`:
    /// model 1), `billing` overrides the cluster's.
    ///
    /// # Errors
    /// `pricing` given where it cannot apply; an unreadable or invalid cluster file
    /// (the message names the file, line and field).
    pub fn build(
        &self,
        pricing: Option<PricingArg>,
        billing: Option<BillingArg>,
        scale: u32,
    ) -> anyhow::Result<(Cluster, BillingGranularity)> {
        let cfg = self.config(pricing)?;
        let cluster = if scale == 1 {
            cfg.build(&self.to_string())?
        } else {
            cfg.scaled(scale)
                .build(&format!("{self} × {scale}"))
                .map_err(|e| SpecError::new("cluster-scale", format!("{scale}: {e}")))?
        };
        let billing = billing.map_or(cfg.billing, BillingArg::granularity);
        Ok((cluster, billing))
    }
}

impl std::str::FromStr for ClusterSource {
    type Err = std::convert::Infallible;

    /// A preset's name, else a file's path.
    fn from_str(s: &str) -> Result<ClusterSource, Self::Err> {
        Ok(PresetName::from_name(s).map_or_else(
            |_| ClusterSource::File(PathBuf::from(s)),
            ClusterSource::Preset,
        ))
    }
}

choice! {
    /// Pricing models of paper 000 Table 3 for the hybrid presets.
    pub enum PricingArg => fn model() -> PricingModel {
        Model1 = "1": "Cloud 4× local" => PricingModel::Model1,
        Model2 = "2": "Cloud 2× local" => PricingModel::Model2,
        Model3 = "3": "Local VMs free" => PricingModel::Model3,
        Model4 = "4": "The same price at both sites" => PricingModel::Model4,
        Real = "real": "AWS-like hourly prices, local half of cloud" => PricingModel::Real,
    }
}

choice! {
    /// Billing granularity of VM on-time.
    pub enum BillingArg => fn granularity() -> BillingGranularity {
        PerSecond = "per-second": "Each second of on-time" => BillingGranularity::PerSecond,
        PerHour = "per-hour": "Each started hour of every power-on interval" => BillingGranularity::PerHour,
    }
}

choice! {
    /// Queue disciplines.
    pub enum QueueArg => fn discipline() -> QueueDiscipline {
        Fcfs = "fcfs": "First come, first served; the head blocks (Spark FIFO)" => QueueDiscipline::Fcfs,
        Edf = "edf": "Earliest deadline first; the head blocks (paper 000 §5)" => QueueDiscipline::Edf,
        DeadlineFirst = "deadline-first": "Deadline jobs EDF, then regular jobs by resource demand (paper 004 Alg. 1)" => QueueDiscipline::DeadlineFirst,
        Morpheus = "morpheus": "Ascending scarce-resource demand, skipping (paper 004 Eq. 10)" => QueueDiscipline::Morpheus,
    }
}

choice! {
    /// The application of every SWIM job (paper 004 §6.1.2).
    pub enum ApplicationArg => fn kind() -> Option<JobKind> {
        Mixed = "mixed": "Each job's kind from its shuffle/input ratio (the mixed workload)" => None,
        Wordcount = "wordcount": "Every job is WordCount (cpu_bound)" => Some(JobKind::CpuBound),
        Sort = "sort": "Every job is Sort (memory_bound)" => Some(JobKind::MemoryBound),
        Pagerank = "pagerank": "Every job is PageRank (network_bound)" => Some(JobKind::NetworkBound),
    }
}

choice! {
    /// The paper's text or the authors' published code (`synthetic-reading`,
    /// `policy-reading`).
    pub enum ReadingArg => fn reading() -> Reading {
        PaperText = "paper-text": "The paper's text" => Reading::PaperText,
        AuthorsCode = "authors-code": "The authors' published code (RM-Simulator for paper 000, SLA-Scheduler for 004)" => Reading::AuthorsCode,
    }
}

choice! {
    /// Which placements run at T_C^H.
    pub enum HybridRuleArg => fn rule() -> HybridRule {
        AnyRemote = "any-remote": "Any executor away from the data's site (paper 000 Eq. 5)" => HybridRule::AnyRemote,
        Spanning = "spanning": "Only placements that span both sites" => HybridRule::Spanning,
    }
}

choice! {
    /// MILP solvers of the `milp` policy.
    pub enum MilpBackendArg {
        Microlp = "microlp": "microlp, pure Rust",
        Highs = "highs": "HiGHS (a build with `--features highs`)",
    }
}

impl MilpBackendArg {
    /// The core backend.
    ///
    /// # Errors
    /// `highs` in a build without the `highs` feature.
    pub fn backend(self) -> anyhow::Result<MilpBackend> {
        match self {
            MilpBackendArg::Microlp => Ok(MilpBackend::Microlp),
            #[cfg(feature = "highs")]
            MilpBackendArg::Highs => Ok(MilpBackend::Highs),
            #[cfg(not(feature = "highs"))]
            MilpBackendArg::Highs => {
                anyhow::bail!("highs: this build lacks the `highs` feature")
            }
        }
    }
}
