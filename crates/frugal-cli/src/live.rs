//! `frugal live`: a workload replayed on a real Spark cluster on this machine's hybrid
//! testbed, once per policy (`frugal_report::live`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use clap::Args;

use crate::values::PolicyParser;
use crate::values::number_in;
use frugal_core::{Job, PolicySpec};
use frugal_report::live::{
    LiveJobRow, LiveRow, LiveRun, LiveSettings, TestbedScale, kendall_tau, preflight, profile, run,
};
use frugal_service::provision::check_prefix;
use frugal_sim::workload::{jobs_csv_label, read_jobs_csv, write_jobs_csv};

use crate::Usage;

/// Options of `frugal live`.
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// The jobs: a job CSV (the format of `frugal simulate --jobs-csv`); each job runs the
    /// bundled application of its kind (cpu_bound: WordCount, memory_bound: Sort,
    /// network_bound: PageRank) with its estimates submitted as they are.
    /// Several comma-separated files are several workloads (rows' `workload`: the file
    /// name without `.csv`), profiled together and each run under every policy.
    #[arg(long, value_name = "FILE", value_delimiter = ',', required = true)]
    pub jobs_csv: Vec<PathBuf>,
    /// The cluster: a TOML file whose VMs become the testbed's hosts (at most 253).
    #[arg(long, value_name = "FILE")]
    pub cluster: PathBuf,
    /// Comma-separated built-in policies, one live run each.
    #[arg(long, value_delimiter = ',', value_parser = PolicyParser, required = true)]
    pub policies: Vec<PolicySpec>,
    /// Wall-clock seconds per second of the jobs' arrival times.
    #[arg(long, default_value_t = 1.0, value_parser = number_in(1e-3, 1e3))]
    pub time_scale: f64,
    /// The service's kind penalty (frugal serve --kind-penalty), which its policies and
    /// the prediction use: 0 is papers 000's and 004's setting (their runs are real; their
    /// model has no such slowdown), 0.3 paper 002's.
    #[arg(long, default_value_t = 0.0, value_parser = number_in(0.0, 100.0))]
    pub kind_penalty: f64,
    /// Seconds without a heartbeat after which the service takes a host for lost (frugal
    /// serve --host-timeout). 75 is the papers' Mesos default (an agent is removed after 5
    /// missed pings 15 s apart); the service's own 10 s took cloud VMs for lost when the
    /// one-machine testbed's cross-site link stalled their heartbeats for 10 s while their
    /// Spark traffic went on.
    #[arg(long, default_value_t = 75.0, value_parser = number_in(2.0, 3600.0))]
    pub host_timeout: f64,
    /// Scale of the generated inputs (spark/generate_inputs.py --scale).
    #[arg(long, default_value_t = 1.0, value_parser = number_in(1e-3, 1e3))]
    pub input_scale: f64,
    /// Share of one physical core each VM core gets.
    #[arg(long, default_value_t = 0.25, value_parser = number_in(1e-3, 64.0))]
    pub core_share: f64,
    /// MiB of this machine's memory per GiB of an instance type.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(64..=65_536))]
    pub mib_per_gib: u32,
    /// Each VM's link within its site, Mbit/s.
    #[arg(long, default_value_t = 1000.0, value_parser = number_in(1.0, 100_000.0))]
    pub in_site_mbit: f64,
    /// The link between the sites, Mbit/s (paper 000 §7.1: 2 Gbit/s within a region, 600
    /// Mbit/s across).
    #[arg(long, default_value_t = 300.0, value_parser = number_in(1.0, 100_000.0))]
    pub cross_site_mbit: f64,
    /// Python with pyspark.
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// The applications' directory.
    #[arg(long, default_value = "spark")]
    pub apps_dir: PathBuf,
    /// Prefix of the testbed's namespaces, links and cgroups (1–8 letters or digits).
    #[arg(long, default_value = "fglive", value_parser = prefix)]
    pub prefix: String,
    /// The hosts' subnet is 10.78.N.0/24.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub subnet: u8,
    /// Profile first, as paper 000 §7.3 did: every job class of the CSV runs alone N
    /// times on one site (first fit) and N times across sites (round robin over the first
    /// VM of each site); the means
    /// replace the CSV's estimates (profile.csv: means, spreads, run counts;
    /// <workload>-submitted.csv: the jobs as submitted); 0 submits the CSV's estimates
    /// as they are.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub profile: u32,
    /// Deadlines as paper 004 §6.1.2 sets them: every job with a deadline in the CSV gets
    /// F × its estimate T_C^L (the profiled one with --profile; F = 1: "each job's average
    /// completion time is used as a hard deadline") [default: the CSV's deadlines].
    #[arg(long, value_name = "F", value_parser = number_in(0.01, 1000.0))]
    pub deadline_factor: Option<f64>,
    /// Longest one run may take, seconds.
    #[arg(long, default_value_t = 3600.0, value_parser = number_in(1.0, 7.0 * 86_400.0))]
    pub timeout: f64,
    /// Runs of each workload under each policy, in [1, 100]: repetition k runs the
    /// policies in the order given for odd k and reversed for even k, so no policy always
    /// runs first on a cold machine; rows carry `repetition`.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repetitions: u32,
    /// A contention model file (as `frugal simulate --contention`): each row also gets
    /// the prediction with it (`contended_cost_usd`, `contended_error_pct`).
    #[arg(long, value_name = "FILE", value_parser = crate::simulate::contention_file,
          conflicts_with = "contention_levels")]
    pub contention: Option<frugal_core::ContentionModel>,
    /// Calibrate the contention model after profiling: one run per level of K jobs
    /// submitted at once (comma-separated, e.g. 2,4; classes mixed, each with its profiled
    /// estimate, or the CSV's with --profile 0), fitted as `frugal contention` does
    /// (contention-jobs.csv, contention.toml); the rows' contended prediction uses it.
    #[arg(long, value_name = "K", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub contention_levels: Vec<u32>,
    /// Output directory: live.csv (one row per workload, policy and repetition),
    /// live-jobs.csv (one per job) and each run's folder <workload>/<policy> (database,
    /// service and Spark logs; <policy>-r<k> for repetition k ≥ 2).
    #[arg(long)]
    pub out: PathBuf,
}

/// A namespace prefix, as the netns provisioner accepts it.
fn prefix(s: &str) -> Result<String, String> {
    check_prefix(s).map(|()| s.to_string())
}

/// Runs every workload under every policy live, writes the rows and prints them.
pub fn run_live(a: &LiveArgs) -> Result<()> {
    let rows = live_rows(a)?;
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    for r in &rows {
        out.serialize(r)?;
    }
    out.flush()?;
    Ok(())
}

/// Runs every workload under every policy live, writes live.csv, live-jobs.csv and the
/// profile into `--out`, and returns the rows of live.csv.
///
/// # Errors
/// What this machine lacks (before anything runs), a bad job CSV, a run's error.
pub fn live_rows(a: &LiveArgs) -> Result<Vec<LiveRow>> {
    let mut workloads: Vec<(String, Vec<Job>)> = Vec::new();
    for path in &a.jobs_csv {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| file.clone())?;
        let jobs = read_jobs_csv(&text, &file, 0.3)
            .map_err(|e| Usage(e.into()))?
            .jobs;
        let name = jobs_csv_label(path);
        if workloads.iter().any(|(n, _)| *n == name) {
            return Err(Usage(anyhow!("--jobs-csv {file}: a second workload named {name}")).into());
        }
        workloads.push((name, jobs));
    }
    let settings = LiveSettings {
        frugal: std::env::current_exe()?,
        python: a.python.clone(),
        apps_dir: std::path::absolute(&a.apps_dir)?,
        cluster: std::path::absolute(&a.cluster)?,
        testbed: TestbedScale {
            core_share: a.core_share,
            mib_per_gib: a.mib_per_gib,
            in_site_mbit: a.in_site_mbit,
            cross_site_mbit: a.cross_site_mbit,
        },
        time_scale: a.time_scale,
        kind_penalty: a.kind_penalty,
        host_timeout_s: a.host_timeout,
        input_scale: a.input_scale,
        prefix: a.prefix.clone(),
        subnet: a.subnet,
        dir: a.out.clone(),
        timeout: Duration::from_secs_f64(a.timeout),
        contention: a.contention,
    };
    preflight(&settings)?;
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    if a.profile > 0 {
        let profiling = LiveSettings {
            dir: a.out.join("profile"),
            ..settings.clone()
        };
        let every: Vec<Job> = workloads.iter().flat_map(|(_, j)| j.clone()).collect();
        let rows = profile::profile(&profiling, &every, a.profile as usize).context("profiling")?;
        write_csv(&a.out.join("profile.csv"), &rows)?;
        for (_, jobs) in &mut workloads {
            *jobs = profile::apply(jobs, &rows);
        }
    }
    let mut settings = settings;
    if !a.contention_levels.is_empty() {
        let calibrating = LiveSettings {
            dir: a.out.join("contention"),
            ..settings.clone()
        };
        let every: Vec<Job> = workloads.iter().flat_map(|(_, j)| j.clone()).collect();
        let rows = profile::at_once(&calibrating, &every, &a.contention_levels)
            .context("calibrating contention")?;
        let jobs = a.out.join("contention-jobs.csv");
        write_csv(&jobs, &rows)?;
        let fitted = crate::contention::fit_files(std::slice::from_ref(&jobs))
            .map_err(|e| anyhow!("calibrating contention: {e}"))?;
        crate::contention::report(&fitted, &[jobs], Some(&a.out.join("contention.toml")))?;
        settings.contention = Some(fitted.model);
    }
    if let Some(factor) = a.deadline_factor {
        for (_, jobs) in &mut workloads {
            for j in jobs.iter_mut().filter(|j| j.deadline.is_some()) {
                j.deadline = Some(j.arrival + factor * j.t_local);
            }
        }
    }
    if a.profile > 0 || a.deadline_factor.is_some() {
        for (name, jobs) in &workloads {
            let path = a.out.join(format!("{name}-submitted.csv"));
            std::fs::write(&path, write_jobs_csv(jobs))
                .with_context(|| path.display().to_string())?;
        }
    }
    let mut rows: Vec<LiveRow> = Vec::new();
    let mut job_rows: Vec<LiveJobRow> = Vec::new();
    for (name, jobs) in &workloads {
        let mut of_workload = Vec::new();
        for repetition in 1..=a.repetitions {
            let mut order: Vec<&PolicySpec> = a.policies.iter().collect();
            if repetition % 2 == 0 {
                order.reverse();
            }
            for policy in order {
                let (row, jobs) = run(
                    &settings,
                    &LiveRun {
                        workload: name.clone(),
                        repetition,
                        policy: policy.clone(),
                        jobs: jobs.clone(),
                        one_at_a_time: false,
                    },
                )
                .with_context(|| format!("live run {repetition} of {policy} on {name}"))?;
                of_workload.push(row);
                job_rows.extend(jobs);
            }
        }
        // Per policy: the mean measured bill over the repetitions against the prediction
        // (the same in every repetition: the estimates do not change).
        let bills: Vec<(f64, f64)> = a
            .policies
            .iter()
            .map(|p| {
                let mine: Vec<&LiveRow> = of_workload
                    .iter()
                    .filter(|r| r.policy == p.to_string())
                    .collect();
                let mean = mine.iter().map(|r| r.cost_usd).sum::<f64>() / mine.len() as f64;
                (mean, mine[0].predicted_cost_usd)
            })
            .collect();
        if let Some(tau) = kendall_tau(&bills) {
            eprintln!(
                "{name}: Kendall's τ between the measured and the predicted bills of {} \
                 policies: {tau:+.2} (+1: the simulator orders them as the testbed does)",
                of_workload.len()
            );
        }
        rows.extend(of_workload);
    }
    write_csv(&a.out.join("live.csv"), &rows)?;
    write_csv(&a.out.join("live-jobs.csv"), &job_rows)?;
    Ok(rows)
}

fn write_csv<T: serde::Serialize>(path: &std::path::Path, rows: &[T]) -> Result<()> {
    let mut w = csv::Writer::from_path(path).with_context(|| path.display().to_string())?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}
