//! Closed sets of option values as clap `ValueEnum`s (so `--help` lists them with their
//! source and a typo gets a suggestion), and the parsers of the open ones
//! (`--cluster <PRESET|FILE>`, `--policies <POLICY|rl:CHECKPOINT>`), shared by every face
//! of frugal that takes simulation options (the CLI, experiment files, Python, the
//! service).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::{Arg, Command, ValueEnum};
use serde::Serialize;

use frugal_core::PolicySpec;
use frugal_core::job::JobKind;
use frugal_core::policy::{MilpBackend, PlacementPolicy, PolicyParams, PolicySpecError};
use frugal_core::{BillingGranularity, Cluster, HybridRule, PolicyKind, Preset, PricingModel};
use frugal_core::{ClusterConfig, QueueDiscipline, Reading};

/// A built-in policy as a clap value: its name and description come from
/// [`PolicyKind::ALL`], the one list of built-in policies, so `--help` lists them and a typo
/// gets clap's suggestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinPolicy(pub PolicyKind);

static BUILTIN: std::sync::LazyLock<Vec<BuiltinPolicy>> =
    std::sync::LazyLock::new(|| PolicyKind::ALL.map(BuiltinPolicy).to_vec());

impl ValueEnum for BuiltinPolicy {
    fn value_variants<'a>() -> &'a [Self] {
        &BUILTIN
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.0.description()))
    }
}

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

/// Parses a [`PolicySpec`] (its [`FromStr`](std::str::FromStr)); a built-in name that is
/// not one gets clap's error, with its possible values and suggestion.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyParser;

impl TypedValueParser for PolicyParser {
    type Value = PolicySpec;

    fn parse_ref(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<PolicySpec, clap::Error> {
        let text = value.to_str().unwrap_or_default();
        match text.parse::<PolicySpec>() {
            Ok(spec) => Ok(spec),
            Err(e @ PolicySpecError::NoCheckpoint) => Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("{e}\n"),
            )
            .with_cmd(cmd)),
            Err(PolicySpecError::Unknown { .. }) => {
                let name = EnumValueParser::<BuiltinPolicy>::new().parse_ref(cmd, arg, value)?;
                Ok(PolicySpec::Builtin(name.0))
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let builtin = BuiltinPolicy::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value);
        let rl = PossibleValue::new("rl:<checkpoint>")
            .help("A DQN or REINFORCE agent trained with `frugal train` (paper 002 §5)");
        let offline = PossibleValue::new("offline").help(
            "Not online: the cheapest schedule a search over per-job policy choices finds \
             knowing every job, and a proven lower bound on any schedule's bill",
        );
        Some(Box::new(builtin.chain([rl, offline])))
    }
}

/// Cluster presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PresetName {
    /// Paper 000 Table 2 small scale: 9 VMs, 1 local + 2 cloud per instance type
    SmallHybrid,
    /// Paper 000 Table 2 large scale: 180 VMs, 10 local + 50 cloud per instance type
    LargeHybrid,
    /// Paper 004 Table 3: 14 cloud VMs at AWS hourly prices
    Paper004Cloud,
    /// Paper 002 Table 4: 12 cloud VMs at AWS hourly prices
    Paper002Cloud,
    /// The Alibaba GPU cluster of 2023: 1,523 nodes (6,212 GPUs) as cloud VMs at
    /// equivalent on-demand prices (data/alibaba-gpu-2023/cluster.toml)
    #[value(name = "alibaba-gpu-2023")]
    #[serde(rename = "alibaba-gpu-2023")]
    AlibabaGpu2023,
}

impl PresetName {
    /// The core preset.
    pub fn preset(self) -> Preset {
        match self {
            PresetName::SmallHybrid => Preset::SmallHybrid,
            PresetName::LargeHybrid => Preset::LargeHybrid,
            PresetName::Paper004Cloud => Preset::Paper004Cloud,
            PresetName::Paper002Cloud => Preset::Paper002Cloud,
            PresetName::AlibabaGpu2023 => Preset::AlibabaGpu2023,
        }
    }

    /// True for the presets whose prices follow `--pricing` (paper 000 Table 3).
    pub fn takes_pricing(self) -> bool {
        matches!(self, PresetName::SmallHybrid | PresetName::LargeHybrid)
    }
}

/// `--cluster`: a preset or a TOML file.
#[derive(Clone, Debug, PartialEq)]
pub enum ClusterSource {
    /// A built-in cluster.
    Preset(PresetName),
    /// A cluster file (format in the book's configuration reference).
    File(PathBuf),
}

impl Serialize for ClusterSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

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
    /// `--pricing` given where it cannot apply; an unreadable or invalid cluster file.
    pub fn config(&self, pricing: Option<PricingArg>) -> anyhow::Result<ClusterConfig> {
        Ok(match self {
            ClusterSource::Preset(p) => {
                if pricing.is_some() && !p.takes_pricing() {
                    anyhow::bail!(
                        "--pricing applies to the hybrid presets (small-hybrid, large-hybrid); \
                         {} has the paper's AWS prices",
                        p.preset().name()
                    );
                }
                p.preset()
                    .config(pricing.map_or(PricingModel::Model1, PricingArg::model))
            }
            ClusterSource::File(path) => {
                if pricing.is_some() {
                    anyhow::bail!(
                        "--pricing applies to the hybrid presets; the cluster file {} sets its own prices",
                        path.display()
                    );
                }
                let text = std::fs::read_to_string(path).map_err(|e| {
                    anyhow::anyhow!("--cluster: {}: {e} (presets: {})", path.display(), {
                        let names: Vec<&str> = Preset::NAMES.to_vec();
                        names.join(", ")
                    })
                })?;
                ClusterConfig::from_toml(&text, &path.display().to_string())?
            }
        })
    }

    /// Builds the cluster; `pricing` applies to the hybrid presets only (`None`:
    /// model 1), `billing` overrides the cluster's.
    ///
    /// # Errors
    /// `--pricing` given where it cannot apply; an unreadable or invalid cluster file
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
                .map_err(|e| anyhow::anyhow!("--cluster-scale {scale}: {e}"))?
        };
        let billing = billing.map_or(cfg.billing, BillingArg::granularity);
        Ok((cluster, billing))
    }
}

/// Parses a preset name or a path.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClusterParser;

impl TypedValueParser for ClusterParser {
    type Value = ClusterSource;

    fn parse_ref(
        &self,
        _cmd: &Command,
        _arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<ClusterSource, clap::Error> {
        Ok(value
            .to_str()
            .and_then(|s| PresetName::from_str(s, false).ok())
            .map_or_else(
                || ClusterSource::File(PathBuf::from(value)),
                ClusterSource::Preset,
            ))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let presets = PresetName::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value);
        let file = PossibleValue::new("<file.toml>")
            .help("A cluster file (format in the book's configuration reference)");
        Some(Box::new(presets.chain(std::iter::once(file))))
    }
}

/// Pricing models of paper 000 Table 3 for the hybrid presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum PricingArg {
    /// Cloud 4× local
    #[value(name = "1")]
    #[serde(rename = "1")]
    Model1,
    /// Cloud 2× local
    #[value(name = "2")]
    #[serde(rename = "2")]
    Model2,
    /// Local VMs free
    #[value(name = "3")]
    #[serde(rename = "3")]
    Model3,
    /// The same price at both sites
    #[value(name = "4")]
    #[serde(rename = "4")]
    Model4,
    /// AWS-like hourly prices, local half of cloud
    #[serde(rename = "real")]
    Real,
}

impl PricingArg {
    /// The core pricing model.
    pub fn model(self) -> PricingModel {
        match self {
            PricingArg::Model1 => PricingModel::Model1,
            PricingArg::Model2 => PricingModel::Model2,
            PricingArg::Model3 => PricingModel::Model3,
            PricingArg::Model4 => PricingModel::Model4,
            PricingArg::Real => PricingModel::Real,
        }
    }
}

/// Billing granularity of VM on-time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BillingArg {
    /// Each second of on-time
    PerSecond,
    /// Each started hour of every power-on interval
    PerHour,
}

impl BillingArg {
    /// The core granularity.
    pub fn granularity(self) -> BillingGranularity {
        match self {
            BillingArg::PerSecond => BillingGranularity::PerSecond,
            BillingArg::PerHour => BillingGranularity::PerHour,
        }
    }
}

/// Queue disciplines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueArg {
    /// First come, first served; the head blocks (Spark FIFO)
    Fcfs,
    /// Earliest deadline first; the head blocks (paper 000 §5)
    Edf,
    /// Deadline jobs EDF, then regular jobs by resource demand (paper 004 Alg. 1)
    DeadlineFirst,
    /// Ascending scarce-resource demand, skipping (paper 004 Eq. 10)
    Morpheus,
}

impl QueueArg {
    /// The core discipline.
    pub fn discipline(self) -> QueueDiscipline {
        match self {
            QueueArg::Fcfs => QueueDiscipline::Fcfs,
            QueueArg::Edf => QueueDiscipline::Edf,
            QueueArg::DeadlineFirst => QueueDiscipline::DeadlineFirst,
            QueueArg::Morpheus => QueueDiscipline::Morpheus,
        }
    }
}

/// The application of every SWIM job (paper 004 §6.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApplicationArg {
    /// Each job's kind from its shuffle/input ratio (the mixed workload)
    Mixed,
    /// Every job is WordCount (cpu_bound)
    Wordcount,
    /// Every job is Sort (memory_bound)
    Sort,
    /// Every job is PageRank (network_bound)
    Pagerank,
}

impl ApplicationArg {
    /// The forced job kind, `None` for the mixed workload.
    pub fn kind(self) -> Option<JobKind> {
        match self {
            ApplicationArg::Mixed => None,
            ApplicationArg::Wordcount => Some(JobKind::CpuBound),
            ApplicationArg::Sort => Some(JobKind::MemoryBound),
            ApplicationArg::Pagerank => Some(JobKind::NetworkBound),
        }
    }
}

/// The paper's text or the authors' published code (`--synthetic-reading`,
/// `--policy-reading`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadingArg {
    /// The paper's text
    PaperText,
    /// The authors' published code (RM-Simulator for paper 000, SLA-Scheduler for 004)
    AuthorsCode,
}

impl ReadingArg {
    /// The generator's reading.
    pub fn reading(self) -> Reading {
        match self {
            ReadingArg::PaperText => Reading::PaperText,
            ReadingArg::AuthorsCode => Reading::AuthorsCode,
        }
    }
}

/// Which placements run at T_C^H.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HybridRuleArg {
    /// Any executor away from the data's site (paper 000 Eq. 5)
    AnyRemote,
    /// Only placements that span both sites
    Spanning,
}

impl HybridRuleArg {
    /// The core rule.
    pub fn rule(self) -> HybridRule {
        match self {
            HybridRuleArg::AnyRemote => HybridRule::AnyRemote,
            HybridRuleArg::Spanning => HybridRule::Spanning,
        }
    }
}

/// MILP solvers of the `milp` policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MilpBackendArg {
    /// microlp, pure Rust
    Microlp,
    /// HiGHS (a build with `--features highs`)
    Highs,
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
                anyhow::bail!("--milp-backend highs: this build lacks the `highs` feature")
            }
        }
    }
}

pub use frugal_core::options::number_in;

/// Backfilling behind a blocked head job in the blocking queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackfillArg {
    /// The head blocks the jobs behind it (the papers' schedulers)
    None,
    /// EASY backfilling: jobs that fit now and end before the head's reservation start
    Easy,
}

impl BackfillArg {
    /// The core setting.
    pub fn mode(self) -> frugal_core::Backfill {
        match self {
            BackfillArg::None => frugal_core::Backfill::Off,
            BackfillArg::Easy => frugal_core::Backfill::Easy,
        }
    }
}
