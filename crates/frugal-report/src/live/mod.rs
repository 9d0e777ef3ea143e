//! Live runs: a workload replayed on a real Spark standalone cluster under `frugal serve`,
//! on the hybrid testbed of `frugal_service::provision::testbed` (papers 004 §6 and 000 §7
//! measured real clusters), each run's measured bill beside what the simulator predicted.
//!
//! One run ([`run`]): whatever an earlier run of the same prefix left is purged; the
//! service starts on a fresh database with the run's policy (`--backend spark-standalone
//! --provisioner netns --testbed`); each job is submitted at its arrival instant times the
//! time scale; the driver waits until every job has ended, stops the service and purges the
//! testbed — also when the run fails or is interrupted (SIGINT, SIGTERM) — and checks that
//! nothing of it is left. The stored history then gives three bills of the run:
//!
//! - **measured**: each VM's stored on/off record under the cluster's billing (paper 004
//!   Eq. 11), and each job's submission, start, finish and deadline outcome — `frugal
//!   whatif`'s actual row, so the bill and a met deadline follow `frugal_core::fleet` and
//!   `frugal_core::lifecycle` as everywhere else;
//! - **replayed**: the simulator replaying that history with the measured run times
//!   (`whatif`'s replay of the service's own policy), which must give the measured bill;
//! - **predicted**: the simulator on the same cluster and jobs with the submitted (profiled)
//!   estimates alone (`whatif --estimates-only`): what frugal predicted before the run.
//!
//! Choices that change a number: arrivals are the workload's times × the time scale, in
//! wall-clock seconds from the instant the service is ready; a deadline is relative to the
//! job's submission; a job's application follows its kind (paper 004 §6.1.2: WordCount is
//! CPU-bound, Sort memory-bound, PageRank network-bound).

mod driver;

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use frugal_core::{Job, JobKind, PolicySpec};

pub use driver::{preflight, run};

/// How often the driver reads the jobs' states.
pub const POLL: Duration = Duration::from_secs(2);

/// The bundled application (`spark/` in the repository) a job of a kind runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Application {
    /// `wordcount.py` on `words.txt` (CPU-bound).
    WordCount,
    /// `sort.py` on `records.txt` (memory-bound).
    Sort,
    /// `pagerank.py` on `graph.txt`, 5 iterations (network-bound; paper 004 runs 5–15).
    PageRank,
}

impl Application {
    /// The application of a job of `kind`.
    pub fn of(kind: JobKind) -> Application {
        match kind {
            JobKind::CpuBound => Application::WordCount,
            JobKind::MemoryBound => Application::Sort,
            JobKind::NetworkBound => Application::PageRank,
        }
    }

    /// Its name in rows.
    pub fn name(self) -> &'static str {
        match self {
            Application::WordCount => "wordcount",
            Application::Sort => "sort",
            Application::PageRank => "pagerank",
        }
    }

    /// Its file in the applications directory.
    pub fn file(self) -> &'static str {
        match self {
            Application::WordCount => "wordcount.py",
            Application::Sort => "sort.py",
            Application::PageRank => "pagerank.py",
        }
    }

    /// Its input file, as `spark/generate_inputs.py` names it.
    pub fn input(self) -> &'static str {
        match self {
            Application::WordCount => "words.txt",
            Application::Sort => "records.txt",
            Application::PageRank => "graph.txt",
        }
    }

    /// Arguments after input and output.
    pub fn arguments(self) -> &'static [&'static str] {
        match self {
            Application::PageRank => &["5"],
            _ => &[],
        }
    }
}

/// Scale and links of the testbed (`frugal serve --testbed-…`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestbedScale {
    /// Share of one physical core per VM core.
    pub core_share: f64,
    /// MiB of this machine's memory per GiB of an instance type.
    pub mib_per_gib: u32,
    /// Each VM's link within its site, Mbit/s.
    pub in_site_mbit: f64,
    /// The link between the sites, Mbit/s.
    pub cross_site_mbit: f64,
}

/// Where and how live runs run.
#[derive(Clone, Debug)]
pub struct LiveSettings {
    /// The `frugal` executable (`serve`, and the hosts' agents).
    pub frugal: PathBuf,
    /// Python with pyspark (drivers and executors).
    pub python: PathBuf,
    /// The applications' directory (`spark/` of the repository).
    pub apps_dir: PathBuf,
    /// The cluster, a TOML file.
    pub cluster: PathBuf,
    /// The testbed.
    pub testbed: TestbedScale,
    /// Wall-clock seconds per second of the workload's arrival times.
    pub time_scale: f64,
    /// Scale of the generated inputs (`generate_inputs.py --scale`).
    pub input_scale: f64,
    /// Prefix of the testbed's namespaces, links and cgroups (1–8 letters or digits).
    pub prefix: String,
    /// The hosts' subnet is `10.78.<subnet>.0/24`.
    pub subnet: u8,
    /// Working directory: `input/`, and one folder per run (database, logs).
    pub dir: PathBuf,
    /// Longest a run may take, from the service's start to its last job's end.
    pub timeout: Duration,
}

/// One live run: a policy and the jobs (arrival, kind, executors, estimates, deadline).
#[derive(Clone, Debug)]
pub struct LiveRun {
    /// The policy `frugal serve` runs.
    pub policy: PolicySpec,
    /// The jobs; their estimates are the submitted ones.
    pub jobs: Vec<Job>,
}

/// One run's bills and outcomes, measured, replayed and predicted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveRow {
    /// The policy.
    pub policy: String,
    /// Jobs submitted.
    pub jobs: usize,
    /// Jobs completed.
    pub completed: usize,
    /// The measured bill, dollars.
    pub cost_usd: f64,
    /// The simulator's replay with the measured run times, dollars (equals the bill).
    pub replayed_cost_usd: f64,
    /// The simulator's prediction from the estimates, dollars.
    pub predicted_cost_usd: f64,
    /// (predicted − measured) / measured, percent.
    pub cost_error_pct: Option<f64>,
    /// Deadline jobs that met their deadline, percent (measured).
    pub deadline_met_pct: Option<f64>,
    /// The same, predicted.
    pub predicted_deadline_met_pct: Option<f64>,
    /// Mean JCT of completed jobs, seconds (measured).
    pub mean_jct_s: Option<f64>,
    /// The same, predicted.
    pub predicted_mean_jct_s: Option<f64>,
    /// Wall-clock seconds from the service's start to the last job's end.
    pub wall_s: f64,
}

/// One job of a live run, as measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveJobRow {
    /// The policy.
    pub policy: String,
    /// Job id.
    pub job: String,
    /// Its application.
    pub application: String,
    /// Its final state.
    pub state: String,
    /// Executors.
    pub executors: u32,
    /// Submission, seconds from the first job's.
    pub submitted_s: f64,
    /// Wait from submission to start, seconds.
    pub wait_s: Option<f64>,
    /// Run time from start to finish, seconds.
    pub run_s: Option<f64>,
    /// Completion time from submission to finish, seconds.
    pub jct_s: Option<f64>,
    /// The submitted estimate T_C^L, seconds.
    pub estimated_s: f64,
    /// Whether it met its deadline (empty without one).
    pub deadline_met: Option<bool>,
    /// Executors per VM, `vm:executors` separated by spaces.
    pub placement: String,
}
