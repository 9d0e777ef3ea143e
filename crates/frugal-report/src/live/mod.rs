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

pub mod contention;
mod driver;
pub mod profile;
mod spec;

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use frugal_core::{Job, JobKind, PolicySpec};
use frugal_sim::stats::Estimate;

pub use driver::{preflight, run};
pub use spec::LiveSpec;

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
    /// The service's kind penalty (`frugal serve --kind-penalty`): 0 in papers 000's and
    /// 004's setting, whose duration model has none.
    pub kind_penalty: f64,
    /// Seconds without a heartbeat after which the service takes a host for lost
    /// (`frugal serve --host-timeout`).
    pub host_timeout_s: f64,
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
    /// A contention model the rows' second prediction uses (`contended_cost_usd`;
    /// frugal's extension), or none.
    pub contention: Option<frugal_core::ContentionModel>,
}

/// One live run: a policy and the jobs (arrival, kind, executors, estimates, deadline).
#[derive(Clone, Debug)]
pub struct LiveRun {
    /// The workload's name (rows' `workload`; the run's folder is `<dir>/<workload>/<policy>`,
    /// `<policy>-r<k>` for repetition k ≥ 2).
    pub workload: String,
    /// Which repetition of the workload and policy this is, from 1.
    pub repetition: u32,
    /// The policy `frugal serve` runs.
    pub policy: PolicySpec,
    /// The jobs; their estimates are the submitted ones.
    pub jobs: Vec<Job>,
    /// Submit each job only once the one before it has ended (arrival times ignored):
    /// every job runs alone, as profiling needs.
    pub one_at_a_time: bool,
}

/// One run's bills and outcomes, measured, replayed and predicted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveRow {
    /// The workload.
    pub workload: String,
    /// The policy.
    pub policy: String,
    /// Which repetition of the workload and policy, from 1.
    pub repetition: u32,
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
    /// The prediction with the contention model (`frugal live --contention`), dollars.
    pub contended_cost_usd: Option<f64>,
    /// (contended − measured) / measured, percent.
    pub contended_error_pct: Option<f64>,
    /// Deadline jobs that met their deadline, percent (measured).
    pub deadline_met_pct: Option<f64>,
    /// The same, predicted.
    pub predicted_deadline_met_pct: Option<f64>,
    /// Mean JCT of completed jobs, seconds (measured).
    pub mean_jct_s: Option<f64>,
    /// The same, predicted.
    pub predicted_mean_jct_s: Option<f64>,
    /// Mean JCT of completed WordCount jobs, seconds (measured; paper 000 Fig. 10).
    pub wordcount_mean_jct_s: Option<f64>,
    /// Mean JCT of completed Sort jobs, seconds (measured).
    pub sort_mean_jct_s: Option<f64>,
    /// Mean JCT of completed PageRank jobs, seconds (measured).
    pub pagerank_mean_jct_s: Option<f64>,
    /// Wall-clock seconds from the service's start to the last job's end.
    pub wall_s: f64,
    /// CPU seconds the testbed's control plane (the service, the Spark master, the
    /// drivers) used over the run, from its `cpuacct` group; `None` if unreadable.
    pub control_cpu_s: Option<f64>,
    /// CPU seconds the VMs (agents, workers, executors) used over the run.
    pub vm_cpu_s: Option<f64>,
}

/// Kendall's τ_b between the measured and the predicted bills, one `(measured,
/// predicted)` pair per policy: +1 when the simulator orders the policies as the testbed
/// does, −1 when it reverses them; ties (equal bills on either side) count as neither
/// concordant nor discordant and shrink the denominator (the τ_b correction). `None` for
/// fewer than two policies or if every bill ties on one side.
pub fn kendall_tau(bills: &[(f64, f64)]) -> Option<f64> {
    use std::cmp::Ordering::Equal;
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for (i, a) in bills.iter().enumerate() {
        for b in &bills[i + 1..] {
            let x = a.0.total_cmp(&b.0);
            let y = a.1.total_cmp(&b.1);
            match (x, y) {
                (Equal, Equal) => {}
                (Equal, _) => tied_x += 1,
                (_, Equal) => tied_y += 1,
                _ if x == y => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let n0 = concordant + discordant;
    let denominator = (((n0 + tied_x) * (n0 + tied_y)) as f64).sqrt();
    (bills.len() >= 2 && denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// The simulator against the testbed in a live experiment's rows (columns `workload`,
/// `policy`, `cost_usd`, `predicted_cost_usd`; optional `contended_cost_usd`), per
/// workload, as one sentence for the report; `None` if a column is missing.
///
/// A policy's rows are its repetitions. Per policy the sentence gives the measured bill's
/// mean with its 95 % interval over repetitions (Student t, [`Estimate`]) and its
/// run-to-run standard deviation in percent of the mean; then, for the papers' model and
/// (where the rows have it) the contention model, Kendall's τ between the policies' mean
/// measured and mean predicted bills ([`kendall_tau`]) and the errors (mean predicted −
/// mean measured) / mean measured: their range and their median |error| over policies.
pub fn prediction_summary(table: &crate::table::Table) -> Option<String> {
    let col = |name: &str| table.column(name).ok();
    let (w, pol, m, p) = (
        col("workload")?,
        col("policy")?,
        col("cost_usd")?,
        col("predicted_cost_usd")?,
    );
    let c = col("contended_cost_usd");
    let num = |r: &Vec<String>, i: usize| r[i].parse::<f64>().unwrap_or(f64::NAN);
    let mut workloads: Vec<&str> = Vec::new();
    for r in &table.rows {
        if !workloads.contains(&r[w].as_str()) {
            workloads.push(&r[w]);
        }
    }
    let parts: Vec<String> = workloads
        .iter()
        .map(|name| {
            let rows: Vec<&Vec<String>> = table.rows.iter().filter(|r| r[w] == *name).collect();
            let mut policies: Vec<&str> = Vec::new();
            for r in &rows {
                if !policies.contains(&r[pol].as_str()) {
                    policies.push(&r[pol]);
                }
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let mut measured = Vec::new();
            let mut shown = Vec::new();
            let mut predicted = Vec::new();
            let mut contended = Vec::new();
            let mut repetitions = Vec::new();
            for policy in &policies {
                let runs: Vec<&&Vec<String>> = rows.iter().filter(|r| r[pol] == *policy).collect();
                let bills: Vec<f64> = runs.iter().map(|r| num(r, m)).collect();
                let e = Estimate::of(&bills).expect("a policy has a row");
                let sd = spread_pct(&bills);
                shown.push(match (e.ci95, sd) {
                    (Some(h), Some(sd)) => {
                        format!("{policy} ${:.5} ± {h:.5} (sd {sd:.1} %)", e.mean)
                    }
                    _ => format!("{policy} ${:.5}", e.mean),
                });
                measured.push(e.mean);
                repetitions.push(bills.len());
                predicted.push(mean(&runs.iter().map(|r| num(r, p)).collect::<Vec<_>>()));
                let with: Vec<f64> = c
                    .map(|c| runs.iter().filter_map(|r| r[c].parse().ok()).collect())
                    .unwrap_or_default();
                contended.push((with.len() == runs.len()).then(|| mean(&with)));
            }
            let runs = match (repetitions.iter().min(), repetitions.iter().max()) {
                (Some(1), Some(1)) => "one run per policy".to_string(),
                (Some(a), Some(b)) if a == b => format!("{a} repetitions per policy"),
                (Some(a), Some(b)) => format!("{a}–{b} repetitions per policy"),
                _ => String::new(),
            };
            let mut text = format!(
                "{name} ({runs}): measured {}; the papers' model {}",
                shown.join(", "),
                fit(&measured, &predicted)
            );
            if let Some(with) = contended.iter().copied().collect::<Option<Vec<f64>>>() {
                text += &format!("; with the contention model {}", fit(&measured, &with));
            }
            text
        })
        .collect();
    Some(format!(
        "the simulator against the testbed (bills: mean ± 95 % interval over repetitions; τ: Kendall's τ between measured and predicted bills, +1: the same order of policies; error = (predicted − measured) / measured) — {}.",
        parts.join("; ")
    ))
}

/// The sample standard deviation of `values` in percent of their mean; `None` for fewer
/// than two values.
fn spread_pct(values: &[f64]) -> Option<f64> {
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    frugal_sim::stats::sample_sd(values).map(|sd| 100.0 * sd / mean)
}

/// "τ +0.33, errors −13.1 % to +9.3 % (median |error| 8.0 %)" for the policies' mean
/// measured and predicted bills.
fn fit(measured: &[f64], predicted: &[f64]) -> String {
    let pairs: Vec<(f64, f64)> = measured
        .iter()
        .copied()
        .zip(predicted.iter().copied())
        .collect();
    let errors: Vec<f64> = pairs.iter().map(|(m, p)| 100.0 * (p - m) / m).collect();
    let (lo, hi) = errors
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let median = match abs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => abs[n / 2],
        n => (abs[n / 2 - 1] + abs[n / 2]) / 2.0,
    };
    let tau = kendall_tau(&pairs).map_or_else(|| "undefined".into(), |t| format!("{t:+.2}"));
    format!("τ {tau}, errors {lo:+.1} % to {hi:+.1} % (median |error| {median:.1} %)")
}

/// One job of a live run, as measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveJobRow {
    /// The workload.
    pub workload: String,
    /// The policy.
    pub policy: String,
    /// Which repetition of the workload and policy, from 1.
    pub repetition: u32,
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
    /// Executors per VM as the policy placed them, `vm:executors` separated by spaces.
    pub placement: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed on three policies: the same order gives 1, the reverse −1; one
    /// swapped pair (2 concordant, 1 discordant) gives (2 − 1) / 3.
    #[test]
    fn kendall_tau_counts_concordant_and_discordant_pairs() {
        let t = |r: &[(f64, f64)]| kendall_tau(r).unwrap();
        let same = [(1.0, 10.0), (2.0, 20.0), (3.0, 30.0)];
        assert_eq!(t(&same), 1.0);
        assert_eq!(t(&[(1.0, 30.0), (2.0, 20.0), (3.0, 10.0)]), -1.0);
        let one_swap = [(1.0, 10.0), (2.0, 30.0), (3.0, 20.0)];
        assert!((t(&one_swap) - 1.0 / 3.0).abs() < 1e-12);
        // b and c tie in the prediction: pairs (a,b) and (a,c) concordant, (b,c) tied in
        // y only: τ_b = 2 / √(3 · 2).
        let tie = [(1.0, 10.0), (2.0, 20.0), (3.0, 20.0)];
        assert!((t(&tie) - 2.0 / 6f64.sqrt()).abs() < 1e-12);
        assert_eq!(kendall_tau(&same[..1]), None);
    }

    /// Two workloads of two policies: one ordered alike (τ +1), one reversed (τ −1), each
    /// one's errors; the light hour repeated: a policy's bill is the mean of its runs with
    /// its interval (bills 1 and 3: mean 2, s = √2, t₀.₉₇₅,₁ = 12.706, half-width 12.706 ·
    /// √2 / √2 = 12.706; sd 70.7 % of the mean) and the error is the mean prediction's.
    #[test]
    fn the_prediction_summary_gives_tau_and_the_errors_per_workload() {
        let csv = "workload,policy,cost_usd,predicted_cost_usd,cost_error_pct\n\
                   light,a,1,1.1,10\nlight,b,2,2.1,5\nloaded,a,1,2,100\nloaded,b,2,1,-50\n";
        let table = crate::table::Table::from_csv(csv.as_bytes()).unwrap();
        let s = prediction_summary(&table).unwrap();
        assert!(
            s.ends_with(
                "light (one run per policy): measured a $1.00000, b $2.00000; the papers' \
                 model τ +1.00, errors +5.0 % to +10.0 % (median |error| 7.5 %); \
                 loaded (one run per policy): measured a $1.00000, b $2.00000; the papers' \
                 model τ -1.00, errors -50.0 % to +100.0 % (median |error| 75.0 %)."
            ),
            "{s}"
        );
        let csv = "workload,policy,cost_usd,predicted_cost_usd,contended_cost_usd\n\
                   light,a,1,1.5,1.8\nlight,a,3,1.5,1.8\nlight,b,4,3,4.4\nlight,b,4,3,4.4\n";
        let table = crate::table::Table::from_csv(csv.as_bytes()).unwrap();
        let s = prediction_summary(&table).unwrap();
        assert!(
            s.ends_with(
                "light (2 repetitions per policy): measured a $2.00000 ± 12.70620 (sd 70.7 %), \
                 b $4.00000 ± 0.00000 (sd 0.0 %); the papers' model τ +1.00, errors -25.0 % \
                 to -25.0 % (median |error| 25.0 %); with the contention model τ +1.00, \
                 errors -10.0 % to +10.0 % (median |error| 10.0 %)."
            ),
            "{s}"
        );
        let without = crate::table::Table::from_csv(b"workload,cost_usd\nlight,1\n").unwrap();
        assert_eq!(prediction_summary(&without), None);
    }
}
