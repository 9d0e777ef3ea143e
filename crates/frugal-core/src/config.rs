//! Cluster configuration: TOML files and the papers' built-in presets.
//!
//! ```toml
//! billing = "per-second"          # or "per-hour"
//!
//! [[instance_type]]
//! name = "m1.large"
//! cores = 4
//! memory_gib = 16
//! gpus = 0                        # optional: whole GPUs per VM
//!
//! [[vms]]
//! instance_type = "m1.large"
//! site = "local"                  # or "cloud"
//! count = 1
//! price_per_hour = 0.12           # or price_per_second
//! capacity = "on-demand"          # optional: or "spot", or "reserved"
//! ```

use serde::{Deserialize, Serialize};

use crate::billing::BillingGranularity;
use crate::cluster::{Cluster, InstanceType, Site, VmGroup};
use crate::resources::{DIM_UNITS, MIB_PER_GIB, MILLI_PER_GPU, Resources};

/// Most VMs a cluster may hold (the sum of every `[[vms]] count`): ten times the
/// largest published cluster a user is likely to bring (a Borg cell is about 10,000
/// machines), and small enough that the per-VM state stays under a few hundred MiB.
pub const MAX_VMS: u64 = 1_000_000;

/// A cluster description as read from TOML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    /// Billing granularity (default per second).
    #[serde(default)]
    pub billing: BillingGranularity,
    /// Instance types.
    pub instance_type: Vec<InstanceTypeConfig>,
    /// VM groups.
    pub vms: Vec<VmGroupConfig>,
}

/// One `[[instance_type]]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceTypeConfig {
    /// Name, referenced by `[[vms]] instance_type`.
    pub name: String,
    /// CPU cores (≥ 1).
    pub cores: u32,
    /// Memory in GiB (> 0; fractions allowed, rounded down to whole MiB).
    pub memory_gib: f64,
    /// Whole GPUs per VM (default 0), offered as 1,000 milli-GPUs each.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gpus: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One `[[vms]]` table: `count` VMs of one instance type at one site and price.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmGroupConfig {
    /// Name of an `[[instance_type]]`.
    pub instance_type: String,
    /// `local` or `cloud`.
    pub site: Site,
    /// Number of VMs (≥ 1).
    pub count: u32,
    /// Price in dollars per second of on-time (give this or `price_per_hour`).
    pub price_per_second: Option<f64>,
    /// Price in dollars per hour of on-time (give this or `price_per_second`).
    pub price_per_hour: Option<f64>,
    /// How the provider sells the capacity (default on-demand). Placement sees only the
    /// price; the EC2 provisioner launches `spot` VMs on the spot market.
    #[serde(default, skip_serializing_if = "Capacity::is_on_demand")]
    pub capacity: Capacity,
}

/// How a cloud sells a VM's capacity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capacity {
    /// Pay as you go, no interruption.
    #[default]
    OnDemand,
    /// Spare capacity at a lower price, reclaimed with two minutes' notice (EC2 spot).
    Spot,
    /// Committed capacity (reserved instances, savings plans): paid whether used or not,
    /// so cheap per used hour — paper 000's "local" site is the same idea, and a cluster
    /// file can model it as such.
    Reserved,
}

impl Capacity {
    fn is_on_demand(&self) -> bool {
        *self == Capacity::OnDemand
    }

    /// `on-demand`, `spot` or `reserved`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Capacity::OnDemand => "on-demand",
            Capacity::Spot => "spot",
            Capacity::Reserved => "reserved",
        }
    }
}

/// Invalid cluster configuration.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{source_name}: {message}")]
pub struct ConfigError {
    /// File name or preset name.
    pub source_name: String,
    /// What is wrong, naming the table and field (and line for syntax errors).
    pub message: String,
}

impl ClusterConfig {
    /// Parses TOML text; `source_name` (usually the file path) prefixes errors.
    ///
    /// # Errors
    /// [`ConfigError`] naming the line and field of a syntax or type error, or the
    /// table and field of an invalid value.
    pub fn from_toml(text: &str, source_name: &str) -> Result<ClusterConfig, ConfigError> {
        let cfg: ClusterConfig = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            ConfigError {
                source_name: source_name.to_string(),
                message: match line {
                    Some(l) => format!("line {l}: {}", e.message()),
                    None => e.message().to_string(),
                },
            }
        })?;
        cfg.build(source_name)?;
        Ok(cfg)
    }

    /// The `k`-fold cluster: every `[[vms]]` count multiplied by `k`, with the same
    /// instance types, sites, prices and billing — the documented way to build clusters
    /// of 10⁴–10⁶ VMs from a preset or a file (`frugal simulate --cluster-scale`). VM ids
    /// follow the groups in order, so the copies of a group are adjacent and keep the
    /// group's place in every id-based tie-break. A product beyond [`MAX_VMS`] is
    /// refused by [`ClusterConfig::build`].
    pub fn scaled(&self, k: u32) -> ClusterConfig {
        let mut c = self.clone();
        for g in &mut c.vms {
            g.count = g.count.saturating_mul(k);
        }
        c
    }

    /// Per VM, in id order: its instance type's name and its capacity type.
    pub fn vm_capacities(&self) -> Vec<(&str, Capacity)> {
        self.vms
            .iter()
            .flat_map(|g| (0..g.count).map(move |_| (g.instance_type.as_str(), g.capacity)))
            .collect()
    }

    /// The description of a built `cluster` billed at `billing`: its instance types, and
    /// each run of consecutive VMs of one type, site and price as one `[[vms]]` group, so
    /// that [`ClusterConfig::build`] gives the same VMs with the same ids and prices (the
    /// prices per second, exactly). What the cluster does not keep — the capacity kind of
    /// a group (spot, reserved) — comes back as on-demand.
    pub fn of(cluster: &Cluster, billing: BillingGranularity) -> ClusterConfig {
        let instance_type = cluster
            .instance_types
            .iter()
            .map(|t| InstanceTypeConfig {
                name: t.name.clone(),
                cores: t.capacity.cores(),
                memory_gib: f64::from(t.capacity.memory_mib()) / f64::from(MIB_PER_GIB),
                gpus: t.capacity.gpu_milli() / MILLI_PER_GPU,
            })
            .collect();
        let mut vms: Vec<VmGroupConfig> = Vec::new();
        let mut last: Option<(usize, Site, u64)> = None;
        for v in &cluster.vms {
            let key = (v.instance_type, v.site, v.price_per_second.to_bits());
            match vms.last_mut() {
                Some(g) if last == Some(key) => g.count += 1,
                _ => vms.push(VmGroupConfig {
                    instance_type: cluster.instance_types[v.instance_type].name.clone(),
                    site: v.site,
                    count: 1,
                    price_per_second: Some(v.price_per_second),
                    price_per_hour: None,
                    capacity: Capacity::OnDemand,
                }),
            }
            last = Some(key);
        }
        ClusterConfig {
            billing,
            instance_type,
            vms,
        }
    }

    /// Builds the all-off cluster.
    ///
    /// # Errors
    /// [`ConfigError`] for an unknown instance type, a zero count or capacity, a missing,
    /// doubled, negative or non-finite price, duplicate instance-type names, or more than
    /// [`MAX_VMS`] VMs in all.
    pub fn build(&self, source_name: &str) -> Result<Cluster, ConfigError> {
        let err = |message: String| ConfigError {
            source_name: source_name.to_string(),
            message,
        };
        let mut types = Vec::with_capacity(self.instance_type.len());
        for (i, t) in self.instance_type.iter().enumerate() {
            if types.iter().any(|x: &InstanceType| x.name == t.name) {
                return Err(err(format!(
                    "instance_type[{i}].name: duplicate name {:?}",
                    t.name
                )));
            }
            if t.cores == 0 {
                return Err(err(format!("instance_type[{i}].cores: must be ≥ 1")));
            }
            if !(t.memory_gib.is_finite() && t.memory_gib > 0.0) {
                return Err(err(format!("instance_type[{i}].memory_gib: must be > 0")));
            }
            let gpu_milli = t.gpus.checked_mul(MILLI_PER_GPU).ok_or_else(|| {
                err(format!(
                    "instance_type[{i}].gpus: {} is more than a VM can hold",
                    t.gpus
                ))
            })?;
            types.push(InstanceType {
                name: t.name.clone(),
                capacity: Resources::new(t.cores, (t.memory_gib * f64::from(MIB_PER_GIB)) as u32)
                    .with_gpu_milli(gpu_milli),
            });
        }
        let mut groups = Vec::with_capacity(self.vms.len());
        for (i, g) in self.vms.iter().enumerate() {
            let instance_type = types
                .iter()
                .position(|t| t.name == g.instance_type)
                .ok_or_else(|| {
                    err(format!(
                        "vms[{i}].instance_type: unknown instance type {:?}",
                        g.instance_type
                    ))
                })?;
            if g.count == 0 {
                return Err(err(format!("vms[{i}].count: must be ≥ 1")));
            }
            let price_per_second = match (g.price_per_second, g.price_per_hour) {
                (Some(p), None) => p,
                (None, Some(p)) => p / 3600.0,
                _ => {
                    return Err(err(format!(
                        "vms[{i}]: give exactly one of price_per_second and price_per_hour"
                    )));
                }
            };
            if !(price_per_second.is_finite() && price_per_second >= 0.0) {
                return Err(err(format!("vms[{i}]: price must be finite and ≥ 0")));
            }
            if g.capacity == Capacity::Spot && g.site == Site::Local {
                return Err(err(format!(
                    "vms[{i}].capacity: spot capacity is a cloud's; this group is local"
                )));
            }
            groups.push(VmGroup {
                instance_type,
                site: g.site,
                count: g.count,
                price_per_second,
            });
        }
        if groups.is_empty() {
            return Err(err("vms: the cluster has no VM".to_string()));
        }
        let total: u64 = groups.iter().map(|g| u64::from(g.count)).sum();
        if total > MAX_VMS {
            return Err(err(format!(
                "vms: {total} VMs in all; a cluster holds at most {MAX_VMS}"
            )));
        }
        // The cluster's totals are `Resources` too (RUT normalises by them), so each
        // dimension's sum must fit its u32 unit rather than saturate.
        for (d, unit) in DIM_UNITS.iter().enumerate() {
            let sum: u64 = groups
                .iter()
                .map(|g| u64::from(g.count) * u64::from(types[g.instance_type].capacity.0[d]))
                .sum();
            if sum > u64::from(u32::MAX) {
                return Err(err(format!(
                    "vms: {sum} {unit} in all; a cluster holds at most {} (4 PiB of memory)",
                    u32::MAX
                )));
            }
        }
        Ok(Cluster::new(types, &groups))
    }
}

/// Pricing models of paper 000 Table 3: price per instance type at each site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PricingModel {
    /// Cloud 4× local ($0.004/0.001 per s for m1.large).
    Model1,
    /// Cloud 2× local.
    Model2,
    /// Local VMs free.
    Model3,
    /// Same price at both sites.
    Model4,
    /// AWS-like hourly prices, local half of cloud ($0.24/0.12 per h for m1.large).
    Real,
}

crate::choice! {
    impl Choice for PricingModel {
        Model1 = "1": "Cloud 4× local",
        Model2 = "2": "Cloud 2× local",
        Model3 = "3": "Local VMs free",
        Model4 = "4": "The same price at both sites",
        Real = "real": "AWS-like hourly prices, local half of cloud",
    }
}

impl PricingModel {
    /// `(cloud, local)` price in dollars per second for the paper's instance type index
    /// `t` (0 = m1.large, 1 = m1.xlarge, 2 = m2.xlarge), whose sizes are 1:2:3.
    pub fn prices_per_second(&self, t: usize) -> (f64, f64) {
        let scale = (t + 1) as f64;
        let (cloud, local) = match self {
            PricingModel::Model1 => (0.004, 0.001),
            PricingModel::Model2 => (0.002, 0.001),
            PricingModel::Model3 => (0.002, 0.0),
            PricingModel::Model4 => (0.002, 0.002),
            PricingModel::Real => (0.24 / 3600.0, 0.12 / 3600.0),
        };
        (cloud * scale, local * scale)
    }
}

/// Built-in clusters of the papers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// Paper 000 Table 2 small scale: per instance type 1 local + 2 cloud VMs (9 VMs).
    SmallHybrid,
    /// Paper 000 Table 2 large scale: per instance type 10 local + 50 cloud (180 VMs).
    LargeHybrid,
    /// Paper 004 Table 3: 6 m1.large, 5 m1.xlarge, 3 m2.xlarge in the cloud, $0.24/h per
    /// 4 cores.
    Paper004Cloud,
    /// Paper 002 Table 4: 4 VMs of each type in the cloud, $0.24/h per 4 cores.
    Paper002Cloud,
    /// The 1,523 nodes of the Alibaba GPU cluster trace of 2023 (Weng et al., USENIX ATC
    /// 2023) as cloud VMs at equivalent on-demand prices: `data/alibaba-gpu-2023/
    /// cluster.toml`, built from the node list by `frugal_sim::workload::alibaba_cluster`.
    AlibabaGpu2023,
}

/// The `alibaba-gpu-2023` preset's file.
const ALIBABA_GPU_2023: &str = include_str!("../../../data/alibaba-gpu-2023/cluster.toml");

crate::choice! {
    impl Choice for Preset {
        SmallHybrid = "small-hybrid": "Paper 000 Table 2 small scale: 9 VMs, 1 local + 2 cloud per instance type",
        LargeHybrid = "large-hybrid": "Paper 000 Table 2 large scale: 180 VMs, 10 local + 50 cloud per instance type",
        Paper004Cloud = "paper004-cloud": "Paper 004 Table 3: 14 cloud VMs at AWS hourly prices",
        Paper002Cloud = "paper002-cloud": "Paper 002 Table 4: 12 cloud VMs at AWS hourly prices",
        AlibabaGpu2023 = "alibaba-gpu-2023": "The Alibaba GPU cluster of 2023: 1,523 nodes (6,212 GPUs) as cloud VMs at equivalent on-demand prices (data/alibaba-gpu-2023/cluster.toml)",
    }
}

impl Preset {
    /// True for the presets whose prices follow a [`PricingModel`] (paper 000 Table 3);
    /// the papers' cloud presets use their AWS hourly prices, the Alibaba one its own table.
    pub fn takes_pricing(self) -> bool {
        matches!(self, Preset::SmallHybrid | Preset::LargeHybrid)
    }

    /// The preset as a [`ClusterConfig`]; `pricing` applies to the hybrid presets (the
    /// papers' cloud presets use their AWS hourly prices, the Alibaba one its own table).
    pub fn config(&self, pricing: PricingModel) -> ClusterConfig {
        const TYPES: [(&str, u32, f64); 3] = [
            ("m1.large", 4, 16.0),
            ("m1.xlarge", 8, 32.0),
            ("m2.xlarge", 12, 48.0),
        ];
        let instance_type = TYPES
            .iter()
            .map(|&(name, cores, memory_gib)| InstanceTypeConfig {
                name: name.to_string(),
                cores,
                memory_gib,
                gpus: 0,
            })
            .collect();
        let mut vms = Vec::new();
        let mut group = |t: usize, site: Site, count: u32, price_per_second: f64| {
            vms.push(VmGroupConfig {
                instance_type: TYPES[t].0.to_string(),
                site,
                count,
                price_per_second: Some(price_per_second),
                price_per_hour: None,
                capacity: Capacity::default(),
            })
        };
        match self {
            Preset::SmallHybrid | Preset::LargeHybrid => {
                let (local, cloud) = if *self == Preset::SmallHybrid {
                    (1, 2)
                } else {
                    (10, 50)
                };
                for t in 0..3 {
                    group(t, Site::Local, local, pricing.prices_per_second(t).1);
                }
                for t in 0..3 {
                    group(t, Site::Cloud, cloud, pricing.prices_per_second(t).0);
                }
            }
            Preset::AlibabaGpu2023 => {
                return toml::from_str(ALIBABA_GPU_2023)
                    .expect("the shipped Alibaba cluster is valid (tested)");
            }
            Preset::Paper004Cloud | Preset::Paper002Cloud => {
                let counts = if *self == Preset::Paper004Cloud {
                    [6, 5, 3]
                } else {
                    [4, 4, 4]
                };
                for (t, count) in counts.into_iter().enumerate() {
                    group(
                        t,
                        Site::Cloud,
                        count,
                        PricingModel::Real.prices_per_second(t).0,
                    );
                }
            }
        }
        ClusterConfig {
            billing: BillingGranularity::PerSecond,
            instance_type,
            vms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Choice;

    /// A built cluster's description builds the same cluster, for every preset and
    /// pricing model, also through TOML.
    #[test]
    fn a_built_cluster_describes_itself() {
        for &preset in Preset::ALL {
            for pricing in [PricingModel::Model1, PricingModel::Real] {
                let cfg = preset.config(pricing);
                let cluster = cfg.build("preset").unwrap();
                let back = ClusterConfig::of(&cluster, BillingGranularity::PerHour);
                assert_eq!(back.billing, BillingGranularity::PerHour);
                assert_eq!(back.build("back").unwrap(), cluster, "{}", preset.name());
                let toml_text = toml::to_string(&back).unwrap();
                let parsed = ClusterConfig::from_toml(&toml_text, "toml").unwrap();
                assert_eq!(parsed.build("toml").unwrap(), cluster);
            }
        }
    }

    #[test]
    fn scaled_multiplies_every_group_and_is_bounded() {
        let cfg = Preset::LargeHybrid.config(PricingModel::Model1);
        let big = cfg.scaled(56).build("large×56").unwrap();
        assert_eq!(big.len(), 180 * 56);
        assert_eq!(
            big.total_capacity,
            Resources::from_gib(1440 * 56, 5760 * 56)
        );
        // The copies of a group are adjacent: the first 560 VMs are the local m1.large.
        let small = cfg.build("large").unwrap();
        assert_eq!(big.vm(559).price_per_second, small.vm(0).price_per_second);
        assert_eq!(big.vm(560).price_per_second, small.vm(10).price_per_second);
        let e = cfg.scaled(5_556).build("large×5556").unwrap_err();
        assert_eq!(
            e.message,
            "vms: 1000080 VMs in all; a cluster holds at most 1000000"
        );
        assert!(cfg.scaled(u32::MAX).build("huge").is_err());
        // 180,000 VMs are allowed by count but hold 5.76 M GiB > 4 PiB of memory.
        let e = cfg.scaled(1_000).build("large×1000").unwrap_err();
        assert!(
            e.message.starts_with("vms: 5898240000 memory MiB in all"),
            "{}",
            e.message
        );
    }

    #[test]
    fn presets_match_the_papers_tables() {
        let small = Preset::SmallHybrid
            .config(PricingModel::Model1)
            .build("small")
            .unwrap();
        assert_eq!(small.len(), 9);
        assert_eq!(small.total_capacity, Resources::from_gib(72, 288));
        let large = Preset::LargeHybrid
            .config(PricingModel::Model1)
            .build("large")
            .unwrap();
        assert_eq!(large.len(), 180);
        let p004 = Preset::Paper004Cloud
            .config(PricingModel::Real)
            .build("p004")
            .unwrap();
        assert_eq!(p004.total_capacity, Resources::from_gib(100, 400));
        assert!((p004.vms[0].price_per_second * 3600.0 - 0.24).abs() < 1e-12);
        let alibaba = Preset::AlibabaGpu2023
            .config(PricingModel::Model1)
            .build("alibaba")
            .unwrap();
        assert_eq!(alibaba.len(), 1523);
        assert_eq!(alibaba.total_capacity.gpu_milli(), 6_212_000);
    }

    #[test]
    fn gpus_are_offered_in_milli_gpus() {
        let toml = "[[instance_type]]\nname = \"g\"\ncores = 8\nmemory_gib = 32\ngpus = 2\n\
                    [[vms]]\ninstance_type = \"g\"\nsite = \"cloud\"\ncount = 3\nprice_per_hour = 1\n";
        let c = ClusterConfig::from_toml(toml, "g.toml")
            .unwrap()
            .build("g")
            .unwrap();
        assert_eq!(c.vm(0).capacity.gpu_milli(), 2000);
        assert_eq!(c.total_capacity.gpu_milli(), 6000);
        let huge = toml.replace("gpus = 2", "gpus = 5000000");
        let e = ClusterConfig::from_toml(&huge, "g.toml").unwrap_err();
        assert_eq!(
            e.message,
            "instance_type[0].gpus: 5000000 is more than a VM can hold"
        );
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let bad = "[[instance_type]]\nname = \"a\"\ncores = \"four\"\nmemory_gib = 1\n[[vms]]\n";
        let e = ClusterConfig::from_toml(bad, "c.toml").unwrap_err();
        assert!(e.to_string().starts_with("c.toml: line 3"), "{e}");
        let unknown = "[[instance_type]]\nname = \"a\"\ncores = 1\nmemory_gib = 1\n\
                       [[vms]]\ninstance_type = \"b\"\nsite = \"local\"\ncount = 1\nprice_per_hour = 1\n";
        let e = ClusterConfig::from_toml(unknown, "c.toml").unwrap_err();
        assert!(e.message.contains("vms[0].instance_type"), "{e}");
        let two_prices = unknown.replace("\"b\"", "\"a\"") + "price_per_second = 1\n";
        let e = ClusterConfig::from_toml(&two_prices, "c.toml").unwrap_err();
        assert!(e.message.contains("exactly one"), "{e}");
    }
}
