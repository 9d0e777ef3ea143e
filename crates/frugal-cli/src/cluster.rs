//! `frugal cluster ec2`: a cluster file from a cloud's catalogue — cores and memory from
//! `DescribeInstanceTypes`, on-demand prices from a price file, spot prices from
//! `DescribeSpotPriceHistory`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use frugal_core::Capacity;
use frugal_core::cluster::Site;
use frugal_core::config::{ClusterConfig, InstanceTypeConfig, VmGroupConfig};
use frugal_service::provision::ec2::prices::on_demand_prices;

use crate::Usage;

/// `frugal cluster`.
#[derive(Args, Debug)]
pub struct ClusterArgs {
    /// Where the catalogue comes from.
    #[command(subcommand)]
    pub command: ClusterCommand,
}

/// The clouds `frugal cluster` reads.
#[derive(Subcommand, Debug)]
pub enum ClusterCommand {
    /// EC2 (a frugal built with `--features ec2`): the standard credential chain and
    /// region, or --region and --endpoint.
    Ec2(Ec2Args),
}

/// Options of `frugal cluster ec2`.
#[derive(Args, Debug)]
pub struct Ec2Args {
    /// Comma-separated instance types, e.g. m5.xlarge,c5.2xlarge.
    #[arg(long, value_delimiter = ',', required = true)]
    pub types: Vec<String>,
    /// VMs of each type (and of each capacity type with --spot), in [1, 10,000].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub count: u32,
    /// On-demand prices: a CSV `instance_type,price_per_hour` or the region's AWS
    /// price-list offer file (index.json).
    #[arg(long, value_name = "FILE")]
    pub prices: PathBuf,
    /// Also a spot group of each type, priced at its latest spot price (the cheapest
    /// zone's): the placement policies see both prices and choose.
    #[arg(long)]
    pub spot: bool,
    /// Region [default: the standard chain].
    #[arg(long)]
    pub region: Option<String>,
    /// Endpoint of the EC2 API [default: AWS's, or AWS_ENDPOINT_URL].
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// Write the cluster file here instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Writes the cluster file.
///
/// # Errors
/// An unreadable or malformed price file, a type it does not price, EC2's or the
/// credential chain's reason, or a frugal built without EC2 support.
pub fn run(a: &ClusterArgs) -> Result<()> {
    let ClusterCommand::Ec2(e) = &a.command;
    let text = std::fs::read_to_string(&e.prices)
        .with_context(|| format!("--prices {}", e.prices.display()))
        .map_err(Usage)?;
    let prices = on_demand_prices(&text, &e.prices.display().to_string())
        .map_err(|m| Usage(anyhow::anyhow!(m)))?;
    for t in &e.types {
        if !prices.contains_key(t) {
            return Err(Usage(anyhow::anyhow!(
                "--types {t}: {} has no on-demand price for it",
                e.prices.display()
            ))
            .into());
        }
    }
    let (specs, spot) = catalogue(e)?;
    let mut cfg = ClusterConfig {
        billing: frugal_core::BillingGranularity::PerSecond,
        instance_type: Vec::new(),
        vms: Vec::new(),
    };
    for (name, cores, memory_gib) in specs {
        cfg.instance_type.push(InstanceTypeConfig {
            name: name.clone(),
            cores,
            memory_gib,
            gpus: 0,
        });
        let group = |price: f64, capacity| VmGroupConfig {
            instance_type: name.clone(),
            site: Site::Cloud,
            count: e.count,
            price_per_second: None,
            price_per_hour: Some(price),
            capacity,
        };
        cfg.vms.push(group(prices[&name], Capacity::OnDemand));
        if e.spot {
            let cheapest = spot
                .iter()
                .filter(|(t, _, _)| *t == name)
                .map(|(_, _, p)| *p)
                .fold(f64::INFINITY, f64::min);
            if !cheapest.is_finite() {
                anyhow::bail!("--spot: EC2 gives no spot price for {name}");
            }
            cfg.vms.push(group(cheapest, Capacity::Spot));
        }
    }
    cfg.build("frugal cluster ec2")?;
    let toml = format!(
        "# Written by frugal cluster ec2 --types {} --count {}{}: cores and memory from\n\
         # DescribeInstanceTypes, on-demand prices from {}{}.\n{}",
        e.types.join(","),
        e.count,
        if e.spot { " --spot" } else { "" },
        e.prices.display(),
        if e.spot {
            ", spot prices the latest of DescribeSpotPriceHistory (cheapest zone)"
        } else {
            ""
        },
        toml::to_string(&cfg)?
    );
    match &e.out {
        Some(path) => {
            std::fs::write(path, toml).with_context(|| format!("--out {}", path.display()))?
        }
        None => print!("{toml}"),
    }
    Ok(())
}

type Catalogue = (Vec<(String, u32, f64)>, Vec<(String, String, f64)>);

/// The types' cores and memory, and (with --spot) their latest spot prices per zone.
#[cfg(feature = "ec2")]
fn catalogue(e: &Ec2Args) -> Result<Catalogue> {
    use frugal_service::provision::ec2::{describe_instance_types, latest_spot_prices};
    let (region, endpoint) = (e.region.as_deref(), e.endpoint.as_deref());
    let specs = describe_instance_types(region, endpoint, &e.types)?;
    let spot = if e.spot {
        latest_spot_prices(region, endpoint, &e.types)?
    } else {
        Vec::new()
    };
    Ok((specs, spot))
}

#[cfg(not(feature = "ec2"))]
fn catalogue(_: &Ec2Args) -> Result<Catalogue> {
    Err(Usage(anyhow::anyhow!(
        "this frugal was built without EC2 support: build it with `--features ec2`"
    ))
    .into())
}
