//! Closed sets of a comparison's values as [`Choice`]s (each name with its source, which
//! `--help` lists and a spec reads), and the open ones (`cluster`: a preset or a file;
//! policies: a name or `rl:CHECKPOINT`), shared by every face of frugal that takes
//! simulation options (the CLI, experiment files, Python, the service).

use std::path::{Path, PathBuf};

use frugal_core::PolicySpec;
use frugal_core::choice;
use frugal_core::job::JobKind;
use frugal_core::policy::{PlacementPolicy, PolicyParams};
use frugal_core::spec::{Choice, SpecError};
use frugal_core::{BillingGranularity, Cluster, ClusterConfig, Preset, PricingModel};

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

/// `cluster`: a preset or a TOML file.
#[derive(Clone, Debug, PartialEq)]
pub enum ClusterSource {
    /// A built-in cluster.
    Preset(Preset),
    /// A cluster file (format in the book's configuration reference).
    File(PathBuf),
}

frugal_core::serde_as_text!(ClusterSource);

impl std::fmt::Display for ClusterSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterSource::Preset(p) => f.write_str(p.name()),
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
    pub fn config(&self, pricing: Option<PricingModel>) -> anyhow::Result<ClusterConfig> {
        Ok(match self {
            ClusterSource::Preset(p) => {
                if pricing.is_some() && !p.takes_pricing() {
                    return Err(SpecError::new(
                        "pricing",
                        format!(
                            "applies to the hybrid presets (small-hybrid, large-hybrid); {} has \
                             the paper's AWS prices",
                            p.name()
                        ),
                    )
                    .into());
                }
                p.config(pricing.unwrap_or(PricingModel::Model1))
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
                            Preset::ALL
                                .iter()
                                .map(|p| p.name())
                                .collect::<Vec<_>>()
                                .join(", ")
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
        pricing: Option<PricingModel>,
        billing: Option<BillingGranularity>,
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
        let billing = billing.unwrap_or(cfg.billing);
        Ok((cluster, billing))
    }
}

impl std::str::FromStr for ClusterSource {
    type Err = std::convert::Infallible;

    /// A preset's name, else a file's path.
    fn from_str(s: &str) -> Result<ClusterSource, Self::Err> {
        Ok(Preset::from_name(s).map_or_else(
            |_| ClusterSource::File(PathBuf::from(s)),
            ClusterSource::Preset,
        ))
    }
}

choice! {
    /// The application of every SWIM job (paper 004 §6.1.2).
    pub enum Application => fn kind() -> Option<JobKind> {
        Mixed = "mixed": "Each job's kind from its shuffle/input ratio (the mixed workload)" => None,
        Wordcount = "wordcount": "Every job is WordCount (cpu_bound)" => Some(JobKind::CpuBound),
        Sort = "sort": "Every job is Sort (memory_bound)" => Some(JobKind::MemoryBound),
        Pagerank = "pagerank": "Every job is PageRank (network_bound)" => Some(JobKind::NetworkBound),
    }
}

/// Parses a cluster flag, a preset name or a path (feature `clap`).
#[cfg(feature = "clap")]
#[derive(Clone, Copy, Debug, Default)]
pub struct ClusterParser;

#[cfg(feature = "clap")]
impl clap::builder::TypedValueParser for ClusterParser {
    type Value = ClusterSource;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ClusterSource, clap::Error> {
        Ok(match value.to_str() {
            Some(s) => s.parse().unwrap_or_else(|never| match never {}),
            None => ClusterSource::File(value.into()),
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let file = clap::builder::PossibleValue::new("<file.toml>")
            .help("A cluster file (format in the book's configuration reference)");
        Some(Box::new(
            frugal_core::flags::possible::<Preset>().chain(std::iter::once(file)),
        ))
    }
}
