//! `frugal whatif`: the service's own history replayed under other policies
//! (`frugal_service::whatif`).

use frugal_core::PolicySpec;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use crate::values::{ClusterParser, PolicyParser, choice};
use frugal_core::{PricingModel, QueueDiscipline};
use frugal_service::whatif::{WhatIf, WhatIfReport, WhatIfRow, whatif};
use frugal_sim::options::choices::ClusterSource;

use crate::Usage;
use crate::table::{self, Column, FormatArg, fixed, opt};

/// Options of `frugal whatif`.
#[derive(Args, Debug)]
pub struct WhatifArgs {
    /// The service's SQLite database file.
    #[arg(long, default_value = "frugal.db")]
    pub db: PathBuf,
    /// Database URL instead of --db, e.g. postgres://user:password@localhost/frugal.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Only jobs submitted at or after this instant: RFC 3339 (2026-11-25T10:00:00Z) or
    /// Unix seconds [default: the first submission].
    #[arg(long, value_parser = instant)]
    pub since: Option<f64>,
    /// Only jobs submitted before this instant, and the bill up to it: RFC 3339 or Unix
    /// seconds [default: now].
    #[arg(long, value_parser = instant)]
    pub until: Option<f64>,
    /// Comma-separated policies to replay under [default: the service's own].
    #[arg(long, value_delimiter = ',', value_parser = PolicyParser)]
    pub policies: Vec<PolicySpec>,
    /// Replay on this cluster (preset or TOML file) [default: the service's].
    #[arg(long, value_name = "PRESET|FILE", value_parser = ClusterParser)]
    pub cluster: Option<ClusterSource>,
    /// Pricing model of a hybrid preset given with --cluster [default: 1].
    #[arg(long, value_parser = choice::<PricingModel>(), requires = "cluster")]
    pub pricing: Option<PricingModel>,
    /// Queue discipline of the replays [default: the service's].
    #[arg(long, value_parser = choice::<QueueDiscipline>())]
    pub queue: Option<QueueDiscipline>,
    /// Admission control in the replays: on or off [default: as the service ran].
    #[arg(long, value_name = "on|off", value_parser = on_off)]
    pub admission_control: Option<bool>,
    /// Replay the submitted estimates alone (no measured run times, failures,
    /// cancellations or lost VMs): what the simulator predicted before the run.
    #[arg(long)]
    pub estimates_only: bool,
    /// Replay with jobs slowing each other: a contention model file (as `frugal simulate
    /// --contention`) [default: the service's].
    #[arg(long, value_name = "FILE", value_parser = crate::simulate::contention_file)]
    pub contention: Option<frugal_core::ContentionModel>,
    /// Also write the replayed jobs (jobs.csv, with what the replays carried: measured run
    /// times, first passes, cancellations, failures), VM events (vm-events.csv) and cluster
    /// (cluster.toml) here, and print the `frugal simulate` command whose rows are the
    /// replay rows.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
}

fn instant(s: &str) -> Result<f64, String> {
    if let Ok(v) = s.parse::<f64>() {
        return if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(format!("{s}: Unix seconds must be ≥ 0"))
        };
    }
    let t = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
        .map_err(|e| {
            format!("{s}: neither RFC 3339 (2026-11-25T10:00:00Z) nor Unix seconds: {e}")
        })?;
    Ok(t.unix_timestamp_nanos() as f64 / 1e9)
}

fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{s}: on or off")),
    }
}

/// Replays and prints.
pub fn run(a: &WhatifArgs) -> Result<()> {
    let url = a
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", a.db.display()));
    let cluster = match &a.cluster {
        Some(c) => Some(c.build(a.pricing, None, 1)?),
        None => None,
    };
    if a.policies.contains(&PolicySpec::Offline) {
        anyhow::bail!(Usage(anyhow::anyhow!(
            "--policies: offline is a search over whole runs, not a policy to replay"
        )));
    }
    let w = WhatIf {
        since: a.since,
        until: a.until,
        policies: a.policies.clone(),
        cluster,
        queue: a.queue,
        admission_control: a.admission_control,
        estimates_only: a.estimates_only,
        contention: a.contention,
    };
    let rt = tokio::runtime::Runtime::new()?;
    let report = rt
        .block_on(whatif(&url, &w, &frugal_agents::load_policy))
        .with_context(|| format!("whatif on {}", describe(&url)))?;
    let export = match &a.export {
        Some(dir) => Some(report.export(dir)?),
        None => None,
    };
    print(a, &report, export.as_deref())
}

fn describe(url: &str) -> String {
    url.strip_prefix("sqlite:")
        .unwrap_or("the database")
        .to_string()
}

fn print(a: &WhatifArgs, r: &WhatIfReport, export: Option<&str>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match a.format {
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            for row in &r.rows {
                w.serialize(row).map_err(std::io::Error::from)?;
            }
            w.flush()?;
            return Ok(());
        }
        FormatArg::Json => {
            writeln!(out, "{}", serde_json::to_string_pretty(&r.rows)?)?;
            return Ok(());
        }
        FormatArg::Table | FormatArg::Markdown => {}
    }
    let clock = frugal_service::clock::Clock::new(1.0);
    writeln!(
        out,
        "The service's history from {} to {}: {} jobs on {} VMs, replayed in the simulator \
         (service seconds at ×{} speed-up).",
        clock.rfc3339(r.window.0),
        clock.rfc3339(r.window.1),
        r.jobs.len(),
        r.setup.cluster.len(),
        r.record.speedup,
    )?;
    let clipped = if a.estimates_only {
        "the actual bill is clipped there; the predictions run to their own end"
    } else {
        "every bill is clipped there, actual and replays alike"
    };
    writeln!(
        out,
        "Measured run times replace the estimates of {} jobs; {} were unfinished at the \
         window's end ({clipped}); {} were cancelled before they started (replayed as \
         cancelled).",
        r.measured, r.unfinished, r.cancelled_unstarted
    )?;
    if !r.earlier_policies.is_empty() {
        writeln!(
            out,
            "The service also ran {} in this window; `actual` is all of it, the service's \
             own replay uses {}.",
            r.earlier_policies.join(", "),
            r.record.policy
        )?;
    }
    let cols = vec![
        Column::new(["", "run"], |x: &WhatIfRow| {
            if x.run == "actual" {
                "actual ←".into()
            } else {
                x.run.clone()
            }
        }),
        Column::new(["", "policy"], |x| x.policy.clone()),
        Column::new(["", "queue"], |x| x.queue.clone()),
        Column::new(["bill", "$"], |x| fixed(x.cost_usd, 4)),
        Column::new(["Δ bill", "$"], |x| fixed(x.delta_usd, 4)),
        Column::new(["Δ bill", "%"], |x| opt(x.delta_pct, 2)),
        Column::new(["", "completed"], |x| format!("{}/{}", x.completed, x.jobs)),
        Column::new(["", "dropped"], |x| x.dropped.to_string()),
        Column::new(["deadline", "met %"], |x| opt(x.deadline_met_pct, 1)),
        Column::new(["mean", "JCT s"], |x| opt(x.mean_jct_s, 1)),
    ];
    let md = a.format == FormatArg::Markdown;
    let text = if md {
        table::markdown(cols, &r.rows, 3)
    } else {
        table::render(cols, &r.rows, true, 3)
    };
    writeln!(out, "\n{text}")?;
    if let Some(cmd) = export {
        writeln!(out, "\nThe same jobs in the simulator:\n  {cmd}")?;
    }
    Ok(())
}
