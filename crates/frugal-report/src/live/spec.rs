//! [`LiveSpec`]: every setting of `frugal live` — its flags (derived here, feature `clap`)
//! and a live experiment's configuration table (`system = "live"`, keys as the flags) are
//! the same struct, checked by one [`LiveSpec::check`] and run by one [`LiveSpec::run`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use serde::{Deserialize, Serialize};

use frugal_core::spec::{SpecError, each_in};
use frugal_core::{Job, PolicySpec};
use frugal_sim::workload::{jobs_csv_label, read_jobs_csv, write_jobs_csv};

use super::{LiveJobRow, LiveRow, LiveRun, LiveSettings, TestbedScale, kendall_tau, profile};
use crate::runner::InputError;

/// The settings of `frugal live`: the workloads, the testbed and the runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LiveSpec {
    /// The jobs: a job CSV (the format of `frugal simulate --jobs-csv`); each job runs the
    /// bundled application of its kind (cpu_bound: WordCount, memory_bound: Sort,
    /// network_bound: PageRank) with its estimates submitted as they are.
    /// Several comma-separated files are several workloads (rows' `workload`: the file
    /// name without `.csv`), profiled together and each run under every policy.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FILE", value_delimiter = ',', required = true)
    )]
    pub jobs_csv: Vec<PathBuf>,
    /// The cluster: a TOML file whose VMs become the testbed's hosts (at most 253).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", required = true))]
    pub cluster: PathBuf,
    /// Comma-separated built-in policies, one live run each.
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', required = true,
        value_parser = frugal_core::flags::PolicyParser))]
    pub policies: Vec<PolicySpec>,
    /// Wall-clock seconds per second of the jobs' arrival times, in [0.001, 1000].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().time_scale))]
    pub time_scale: f64,
    /// The service's kind penalty (frugal serve --kind-penalty), which its policies and
    /// the prediction use, in [0, 100]: 0 is papers 000's and 004's setting (their runs
    /// are real; their model has no such slowdown), 0.3 paper 002's.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().kind_penalty))]
    pub kind_penalty: f64,
    /// Seconds without a heartbeat after which the service takes a host for lost (frugal
    /// serve --host-timeout), in [2, 3600]. 75 is the papers' Mesos default (an agent is
    /// removed after 5 missed pings 15 s apart); the service's own 10 s took cloud VMs for
    /// lost when the one-machine testbed's cross-site link stalled their heartbeats for
    /// 10 s while their Spark traffic went on.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().host_timeout))]
    pub host_timeout: f64,
    /// Scale of the generated inputs (spark/generate_inputs.py --scale), in [0.001, 1000].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().input_scale))]
    pub input_scale: f64,
    /// Share of one physical core each VM core gets, in [0.001, 64].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().core_share))]
    pub core_share: f64,
    /// MiB of this machine's memory per GiB of an instance type, in [64, 65,536].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().mib_per_gib))]
    pub mib_per_gib: u32,
    /// Each VM's link within its site, Mbit/s in [1, 100,000].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().in_site_mbit))]
    pub in_site_mbit: f64,
    /// The link between the sites, Mbit/s in [1, 100,000] (paper 000 §7.1: 2 Gbit/s within
    /// a region, 600 Mbit/s across).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().cross_site_mbit))]
    pub cross_site_mbit: f64,
    /// Python with pyspark.
    #[cfg_attr(feature = "clap", arg(long, default_value_os_t = LiveSpec::default().python))]
    pub python: PathBuf,
    /// The applications' directory.
    #[cfg_attr(feature = "clap", arg(long, default_value_os_t = LiveSpec::default().apps_dir))]
    pub apps_dir: PathBuf,
    /// Prefix of the testbed's namespaces, links and cgroups (1–8 letters or digits).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().prefix))]
    pub prefix: String,
    /// The hosts' subnet is 10.78.N.0/24.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", default_value_t = LiveSpec::default().subnet))]
    pub subnet: u8,
    /// Profile first, as paper 000 §7.3 did: every job class of the CSV runs alone N
    /// times on one site (first fit) and N times across sites (round robin over the first
    /// VM of each site), N in [0, 1000]; the means replace the CSV's estimates
    /// (profile.csv: means, spreads, run counts; <workload>-submitted.csv: the jobs as
    /// submitted); 0 submits the CSV's estimates as they are.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", default_value_t = LiveSpec::default().profile))]
    pub profile: u32,
    /// Deadlines as paper 004 §6.1.2 sets them: every job with a deadline in the CSV gets
    /// F × its estimate T_C^L (the profiled one with --profile; F = 1: "each job's average
    /// completion time is used as a hard deadline"), F in [0.01, 1000] [default: the CSV's
    /// deadlines].
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub deadline_factor: Option<f64>,
    /// Longest one run may take, seconds in [1, 604,800].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiveSpec::default().timeout))]
    pub timeout: f64,
    /// Runs of each workload under each policy, in [1, 100]: repetition k runs the
    /// policies in the order given for odd k and reversed for even k, so no policy always
    /// runs first on a cold machine; rows carry `repetition`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", default_value_t = LiveSpec::default().repetitions))]
    pub repetitions: u32,
    /// A contention model file (as `frugal simulate --contention`): each row also gets
    /// the prediction with it (`contended_cost_usd`, `contended_error_pct`).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FILE", conflicts_with = "contention_levels")
    )]
    pub contention: Option<PathBuf>,
    /// Calibrate the contention model after profiling: one run per level of K jobs
    /// submitted at once (comma-separated, each in [1, 64], e.g. 2,4; classes mixed, each
    /// with its profiled estimate, or the CSV's with --profile 0), fitted as `frugal
    /// contention` does (contention-jobs.csv, contention.toml); the rows' contended
    /// prediction uses it.
    #[cfg_attr(feature = "clap", arg(long, value_name = "K", value_delimiter = ','))]
    pub contention_levels: Vec<u32>,
    /// Output directory: live.csv (one row per workload, policy and repetition),
    /// live-jobs.csv (one per job) and each run's folder <workload>/<policy> (database,
    /// service and Spark logs; <policy>-r<k> for repetition k ≥ 2).
    #[cfg_attr(feature = "clap", arg(long, required = true))]
    pub out: PathBuf,
}

impl Default for LiveSpec {
    /// Every flag's default; the required ones (`jobs-csv`, `cluster`, `policies`, `out`)
    /// empty, which [`LiveSpec::check`] (and for `out`, [`LiveSpec::run`]) refuses: a live
    /// experiment's configuration names no `out`, `frugal reproduce --live` gives it.
    fn default() -> LiveSpec {
        LiveSpec {
            jobs_csv: Vec::new(),
            cluster: PathBuf::new(),
            policies: Vec::new(),
            time_scale: 1.0,
            kind_penalty: 0.0,
            host_timeout: 75.0,
            input_scale: 1.0,
            core_share: 0.25,
            mib_per_gib: 1024,
            in_site_mbit: 1000.0,
            cross_site_mbit: 300.0,
            python: PathBuf::from("python3"),
            apps_dir: PathBuf::from("spark"),
            prefix: "fglive".to_string(),
            subnet: 0,
            profile: 10,
            deadline_factor: None,
            timeout: 3600.0,
            repetitions: 1,
            contention: None,
            contention_levels: Vec::new(),
            out: PathBuf::new(),
        }
    }
}

impl LiveSpec {
    /// Checks the ranges and the settings that go together.
    ///
    /// # Errors
    /// A [`SpecError`] naming the field (as its flag's name).
    pub fn check(&self) -> Result<(), SpecError> {
        let required = |field: &str, empty: bool| {
            if empty {
                Err(SpecError::new(field, "is required"))
            } else {
                Ok(())
            }
        };
        required("jobs-csv", self.jobs_csv.is_empty())?;
        required("cluster", self.cluster.as_os_str().is_empty())?;
        required("policies", self.policies.is_empty())?;
        each_in("time-scale", &[self.time_scale], 1e-3, 1e3)?;
        each_in("kind-penalty", &[self.kind_penalty], 0.0, 100.0)?;
        each_in("host-timeout", &[self.host_timeout], 2.0, 3600.0)?;
        each_in("input-scale", &[self.input_scale], 1e-3, 1e3)?;
        each_in("core-share", &[self.core_share], 1e-3, 64.0)?;
        each_in("mib-per-gib", &[self.mib_per_gib], 64, 65_536)?;
        each_in("in-site-mbit", &[self.in_site_mbit], 1.0, 1e5)?;
        each_in("cross-site-mbit", &[self.cross_site_mbit], 1.0, 1e5)?;
        frugal_service::provision::check_prefix(&self.prefix)
            .map_err(|m| SpecError::new("prefix", m))?;
        each_in("profile", &[self.profile], 0, 1000)?;
        each_in(
            "deadline-factor",
            self.deadline_factor.as_slice(),
            0.01,
            1e3,
        )?;
        each_in("timeout", &[self.timeout], 1.0, 7.0 * 86_400.0)?;
        each_in("repetitions", &[self.repetitions], 1, 100)?;
        each_in("contention-levels", &self.contention_levels, 1, 64)?;
        if self.contention.is_some() && !self.contention_levels.is_empty() {
            return Err(SpecError::conflict("contention", "contention-levels"));
        }
        if self.contention.is_none()
            && self.contention_levels.is_empty()
            && let Some(why) = PolicySpec::missing_contention(&self.policies)
        {
            return Err(SpecError::new(
                "contention",
                format!("{why}, or contention-levels to calibrate it"),
            ));
        }
        Ok(())
    }

    /// Runs every workload under every policy live with the `frugal` executable `frugal`
    /// (profiling and calibrating first when asked), writes live.csv, live-jobs.csv and the
    /// profile into `out`, and returns the rows of live.csv.
    ///
    /// # Errors
    /// [`SpecError`] or [`InputError`] for settings or a job CSV that cannot be used; what
    /// this machine lacks (before anything runs); a run's error.
    pub fn run(&self, frugal: &Path) -> Result<Vec<LiveRow>> {
        self.check()?;
        if self.out.as_os_str().is_empty() {
            return Err(SpecError::new("out", "is required").into());
        }
        let mut workloads = self.workloads()?;
        let settings = LiveSettings {
            frugal: frugal.to_path_buf(),
            python: self.python.clone(),
            apps_dir: std::path::absolute(&self.apps_dir)?,
            cluster: std::path::absolute(&self.cluster)?,
            testbed: TestbedScale {
                core_share: self.core_share,
                mib_per_gib: self.mib_per_gib,
                in_site_mbit: self.in_site_mbit,
                cross_site_mbit: self.cross_site_mbit,
            },
            time_scale: self.time_scale,
            kind_penalty: self.kind_penalty,
            host_timeout_s: self.host_timeout,
            input_scale: self.input_scale,
            prefix: self.prefix.clone(),
            subnet: self.subnet,
            dir: self.out.clone(),
            timeout: Duration::from_secs_f64(self.timeout),
            contention: match &self.contention {
                Some(path) => Some(
                    frugal_core::ContentionModel::read(path)
                        .map_err(|m| InputError(anyhow!("--contention: {m}")))?,
                ),
                None => None,
            },
        };
        super::preflight(&settings)?;
        let out = &self.out;
        std::fs::create_dir_all(out).with_context(|| out.display().to_string())?;
        if self.profile > 0 {
            let profiling = LiveSettings {
                dir: out.join("profile"),
                ..settings.clone()
            };
            let every: Vec<Job> = workloads.iter().flat_map(|(_, j)| j.clone()).collect();
            let rows =
                profile::profile(&profiling, &every, self.profile as usize).context("profiling")?;
            write_csv(&out.join("profile.csv"), &rows)?;
            for (_, jobs) in &mut workloads {
                *jobs = profile::apply(jobs, &rows);
            }
        }
        let mut settings = settings;
        if !self.contention_levels.is_empty() {
            let calibrating = LiveSettings {
                dir: out.join("contention"),
                ..settings.clone()
            };
            let every: Vec<Job> = workloads.iter().flat_map(|(_, j)| j.clone()).collect();
            let rows = profile::at_once(&calibrating, &every, &self.contention_levels)
                .context("calibrating contention")?;
            let jobs = out.join("contention-jobs.csv");
            write_csv(&jobs, &rows)?;
            let fitted = super::contention::fit_files(std::slice::from_ref(&jobs))
                .map_err(|e| anyhow!("calibrating contention: {e}"))?;
            eprint!("{}", super::contention::summary(&fitted));
            let path = out.join("contention.toml");
            std::fs::write(&path, super::contention::file_text(&fitted, &[jobs]))
                .with_context(|| path.display().to_string())?;
            settings.contention = Some(fitted.model);
        }
        if let Some(factor) = self.deadline_factor {
            for (_, jobs) in &mut workloads {
                for j in jobs.iter_mut().filter(|j| j.deadline.is_some()) {
                    j.deadline = Some(j.arrival + factor * j.t_local);
                }
            }
        }
        if self.profile > 0 || self.deadline_factor.is_some() {
            for (name, jobs) in &workloads {
                let path = out.join(format!("{name}-submitted.csv"));
                std::fs::write(&path, write_jobs_csv(jobs))
                    .with_context(|| path.display().to_string())?;
            }
        }
        let mut rows: Vec<LiveRow> = Vec::new();
        let mut job_rows: Vec<LiveJobRow> = Vec::new();
        for (name, jobs) in &workloads {
            let of_workload = self.repeat(&settings, name, jobs, &mut job_rows)?;
            rows.extend(of_workload);
        }
        write_csv(&out.join("live.csv"), &rows)?;
        write_csv(&out.join("live-jobs.csv"), &job_rows)?;
        Ok(rows)
    }

    /// The workloads: each job CSV's name and jobs.
    fn workloads(&self) -> Result<Vec<(String, Vec<Job>)>> {
        let mut workloads: Vec<(String, Vec<Job>)> = Vec::new();
        for path in &self.jobs_csv {
            let file = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| InputError(anyhow!("--jobs-csv {file}: {e}")))?;
            let jobs = read_jobs_csv(&text, &file, 0.3)
                .map_err(|e| InputError(anyhow!(e)))?
                .jobs;
            let name = jobs_csv_label(path);
            if workloads.iter().any(|(n, _)| *n == name) {
                let m = anyhow!("--jobs-csv {file}: a second workload named {name}");
                return Err(InputError(m).into());
            }
            workloads.push((name, jobs));
        }
        Ok(workloads)
    }

    /// Every repetition of one workload under every policy (the order reversed in even
    /// repetitions); prints Kendall's τ between the mean measured and the predicted bills.
    fn repeat(
        &self,
        settings: &LiveSettings,
        name: &str,
        jobs: &[Job],
        job_rows: &mut Vec<LiveJobRow>,
    ) -> Result<Vec<LiveRow>> {
        let mut rows = Vec::new();
        for repetition in 1..=self.repetitions {
            let mut order: Vec<&PolicySpec> = self.policies.iter().collect();
            if repetition % 2 == 0 {
                order.reverse();
            }
            for policy in order {
                let run = LiveRun {
                    workload: name.to_string(),
                    repetition,
                    policy: policy.clone(),
                    jobs: jobs.to_vec(),
                    one_at_a_time: false,
                };
                let (row, jobs) = super::run(settings, &run)
                    .with_context(|| format!("live run {repetition} of {policy} on {name}"))?;
                rows.push(row);
                job_rows.extend(jobs);
            }
        }
        // Per policy: the mean measured bill over the repetitions against the prediction
        // (the same in every repetition: the estimates do not change).
        let bills: Vec<(f64, f64)> = self
            .policies
            .iter()
            .map(|p| {
                let mine: Vec<&LiveRow> =
                    rows.iter().filter(|r| r.policy == p.to_string()).collect();
                let mean = mine.iter().map(|r| r.cost_usd).sum::<f64>() / mine.len() as f64;
                (mean, mine[0].predicted_cost_usd)
            })
            .collect();
        if let Some(tau) = kendall_tau(&bills) {
            eprintln!(
                "{name}: Kendall's τ between the measured and the predicted bills of {} \
                 policies: {tau:+.2} (+1: the simulator orders them as the testbed does)",
                rows.len()
            );
        }
        Ok(rows)
    }
}

/// Writes `rows` as a CSV file at `path`.
fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let mut w = csv::Writer::from_path(path).with_context(|| path.display().to_string())?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> LiveSpec {
        toml::from_str(text).unwrap()
    }

    const REQUIRED: &str =
        "jobs-csv = [\"a.csv\"]\ncluster = \"c.toml\"\npolicies = [\"first-fit\"]\nout = \"o\"\n";

    #[test]
    fn a_configuration_table_is_the_spec_and_its_check_names_the_key() {
        let s = spec(REQUIRED);
        assert_eq!(
            s.policies,
            vec![PolicySpec::Builtin(frugal_core::PolicyKind::FirstFit)]
        );
        assert_eq!(s.time_scale, 1.0);
        s.check().unwrap();
        let e = spec("cluster = \"c.toml\"").check().unwrap_err();
        assert_eq!(e.field, "jobs-csv");
        let e = spec(&format!("{REQUIRED}repetitions = 0"))
            .check()
            .unwrap_err();
        assert_eq!(e.field, "repetitions");
        let e = spec(&format!("{REQUIRED}prefix = \"a-b\""))
            .check()
            .unwrap_err();
        assert_eq!(e.field, "prefix");
        let e = spec(&format!(
            "{REQUIRED}contention = \"m.toml\"\ncontention-levels = [2]"
        ))
        .check()
        .unwrap_err();
        assert_eq!(e.field, "contention");
        let bad = toml::from_str::<LiveSpec>(&format!("{REQUIRED}repetition = 3")).unwrap_err();
        assert!(bad.message().contains("repetition"), "{bad}");
    }
}
