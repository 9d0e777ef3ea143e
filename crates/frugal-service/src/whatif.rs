//! `frugal whatif`: the service's own history replayed in the simulator under other
//! policies — what the same jobs would have cost.
//!
//! From the store it rebuilds the workload that was really submitted (arrival,
//! executors, cores, memory, estimated run times, deadline) and the bill that was really
//! paid (every stored power-on interval × its VM's price, under the recorded billing
//! granularity), then runs the same jobs through the simulator — the service's own
//! `Scheduler`, so one policy name means one behaviour — on the recorded cluster and
//! settings ([`StartRecord`]), once per policy.
//!
//! Modelling choices, each changing a number:
//! - **The window** `[since, until)` (wall-clock Unix seconds; default: from the first
//!   submission to now) selects jobs by submission time. Times are moved so the window
//!   (or the first submission) starts at 0. The actual bill counts each power-on interval
//!   clipped to the window, an open one up to `until`, each clipped interval billed on its
//!   own. A replay runs its jobs to the end and is billed whole — unless some job was
//!   unfinished at `until`: then the actual bill is partial, and each replay is clipped
//!   at `until` the same way. Jobs that arrived before the window are not replayed, so a
//!   window that starts while VMs are busy compares the actual bill of their work with a
//!   replay without it: whole histories compare exactly.
//! - **Actual run times replace estimates** for jobs that ran and ended (completed,
//!   failed, or cancelled while running): the job's T_C^L and T_C^H are scaled by the
//!   same factor, so that the duration model gives its measured run time under the
//!   placement it really had; another placement then runs for what the model says of it
//!   relative to that one (e.g. T_C^H / T_C^L longer when it spans the sites).
//! - **Unfinished jobs** (queued or running at `until`) are replayed with their estimates
//!   and counted; **jobs cancelled before they started** are left out and counted.
//! - Deadline-met is the share of the window's deadline jobs that completed by their
//!   deadline (unfinished ones have not); mean JCT is over completed jobs.
//! - **Several starts** in the window must share the cluster, billing and speed-up
//!   (otherwise: an error naming the field); the newest start's policy and settings are
//!   "the service's", and a change of policy inside the window is reported.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use frugal_core::placement::Placement;
use frugal_core::policy::PolicyParams;
use frugal_core::{BillingGranularity, Cluster, Job, QueueDiscipline};
use frugal_sim::experiment::Setup;
use frugal_sim::metrics::{JobStatus, RunResult};
use frugal_sim::options::choices::{AgentLoader, PolicyChoice};
use frugal_sim::workload::write_jobs_csv;

use crate::clock::Clock;
use crate::store::{StartRecord, Store, StoredJob};
use crate::{Durability, StoreLimits};

/// What to replay and how.
#[derive(Clone, Debug, Default)]
pub struct WhatIf {
    /// Jobs submitted from this instant on, wall-clock Unix seconds (default: all).
    pub since: Option<f64>,
    /// Jobs submitted before this instant, and the bill up to it, wall-clock Unix
    /// seconds (default: now).
    pub until: Option<f64>,
    /// Policies to replay under (default: the service's own).
    pub policies: Vec<PolicyChoice>,
    /// Replay on this cluster and billing instead of the recorded one.
    pub cluster: Option<(Cluster, BillingGranularity)>,
    /// Queue discipline of the replays (default: the recorded one).
    pub queue: Option<QueueDiscipline>,
    /// Admission control in the replays (default: as recorded).
    pub admission_control: Option<bool>,
}

/// One line of the answer: what happened, or one replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIfRow {
    /// `actual` (what the service did) or `replay`.
    pub run: String,
    /// The policy.
    pub policy: String,
    /// Queue discipline.
    pub queue: String,
    /// Admission control on.
    pub admission_control: bool,
    /// The bill in the window, dollars.
    pub cost_usd: f64,
    /// Against the actual bill, dollars (0 on the actual row).
    pub delta_usd: f64,
    /// Against the actual bill, percent (empty if it was 0).
    pub delta_pct: Option<f64>,
    /// Jobs replayed.
    pub jobs: usize,
    /// Jobs that completed (by `until` for the actual row).
    pub completed: usize,
    /// Jobs dropped by admission control.
    pub dropped: usize,
    /// Jobs with a deadline.
    pub deadline_jobs: usize,
    /// Share of deadline jobs that completed by it, percent.
    pub deadline_met_pct: Option<f64>,
    /// Mean job completion time of completed jobs, service seconds.
    pub mean_jct_s: Option<f64>,
}

/// The answer.
#[derive(Clone, Debug)]
pub struct WhatIfReport {
    /// The actual row first, then one per policy.
    pub rows: Vec<WhatIfRow>,
    /// Window start and end, wall-clock Unix seconds.
    pub window: (f64, f64),
    /// Jobs queued or running at the window's end (replayed with their estimates).
    pub unfinished: usize,
    /// Jobs cancelled before they started (not replayed).
    pub cancelled_unstarted: usize,
    /// Jobs whose measured run time replaced their estimate.
    pub measured: usize,
    /// Other policies the service ran in the window, before its newest start.
    pub earlier_policies: Vec<String>,
    /// The replayed workload (times in service seconds from the window's start).
    pub jobs: Vec<Job>,
    /// The replayed cluster and billing.
    pub cluster: (Cluster, BillingGranularity),
    /// The service's settings (its newest start in the window).
    pub record: StartRecord,
}

/// Replays the store at `url` (`sqlite:PATH` or `postgres://…`; it is opened as `frugal
/// serve` opens it, an older schema brought up to date) as `w` says; `agents` loads
/// `rl:` policies.
///
/// # Errors
/// A store that does not exist, cannot be read, or has a newer schema; a store without a
/// recorded start (written before frugal recorded its configuration); starts in the
/// window with different clusters, billing or speed-ups; an empty window; a policy that
/// cannot run on the cluster (named).
pub async fn whatif(url: &str, w: &WhatIf, agents: &AgentLoader) -> Result<WhatIfReport> {
    if let Some(path) = url.strip_prefix("sqlite:")
        && !path.starts_with(":memory:")
        && !Path::new(path.split('?').next().unwrap_or(path)).exists()
    {
        bail!("database {path}: no such file");
    }
    // Wall-clock seconds throughout; the recorded speed-up converts below.
    let clock = Clock::new(1.0);
    let store = Store::open(url, Durability::Process, clock, StoreLimits::default()).await?;
    let now = clock.now();
    let (since, until) = (w.since.unwrap_or(f64::NEG_INFINITY), w.until.unwrap_or(now));
    if since >= until {
        bail!("--since must be before --until");
    }
    let starts = store.starts().await?;
    let jobs: Vec<StoredJob> = store
        .jobs()
        .await?
        .into_iter()
        .filter(|j| j.arrival >= since && j.arrival < until)
        .collect();
    let intervals = store.vm_intervals().await?;
    let Some(first) = jobs.first() else {
        bail!("no job was submitted in the window");
    };
    let origin = if since.is_finite() {
        since
    } else {
        first.arrival
    };
    let (record, earlier_policies) = settings(&starts, origin, until)?;
    let speedup = record.speedup;
    let recorded = record.cluster.build("the recorded cluster")?;
    let cluster = match &w.cluster {
        Some((c, b)) => (c.clone(), *b),
        None => (recorded.clone(), record.cluster.billing),
    };
    // Service seconds from the window's start.
    let t = |wall: f64| (wall - origin) * speedup;
    let end = t(until);
    let scheduler = record.scheduler().map_err(anyhow::Error::msg)?;

    let mut replayed = Vec::new();
    let (mut unfinished, mut cancelled_unstarted, mut measured) = (0, 0, 0);
    let mut actual = Tally::default();
    for j in &jobs {
        let arrival = t(j.arrival);
        let mut job = j.submission.job(arrival);
        let placement: Option<Placement> = j
            .placement
            .as_deref()
            .and_then(|p| serde_json::from_str(p).ok())
            .map(|executors_per_vm| Placement { executors_per_vm });
        match (j.state.as_str(), j.start, j.finish, &placement) {
            ("queued" | "running", ..) => unfinished += 1,
            ("cancelled", None, ..) => {
                cancelled_unstarted += 1;
                continue;
            }
            ("completed" | "failed" | "cancelled", Some(s), Some(f), Some(p)) => {
                let model = scheduler.duration.duration(&job, &recorded, p);
                if model > 0.0 && f > s {
                    let factor = (f - s) * speedup / model;
                    job.t_local *= factor;
                    job.t_hybrid *= factor;
                    measured += 1;
                }
            }
            _ => {}
        }
        actual.add(&job, j, &t);
        replayed.push(job);
    }
    let actual_cost: f64 = intervals
        .iter()
        .map(|&(vm, on, off)| {
            let price = recorded
                .vms
                .get(vm as usize)
                .map_or(0.0, |v| v.price_per_second);
            let (a, b) = (t(on).max(0.0), t(off.unwrap_or(until)).min(end));
            if b > a {
                record.cluster.billing.cost(b - a, price)
            } else {
                0.0
            }
        })
        .sum();

    let queue = w.queue.unwrap_or(scheduler.discipline);
    let admission_control = w.admission_control.unwrap_or(scheduler.admission_control);
    let setup = Setup {
        cluster: cluster.0.clone(),
        billing: cluster.1,
        queue: Some(queue),
        admission_control,
        policy: PolicyParams {
            rut: scheduler.rut,
            ..PolicyParams::default()
        },
        charge_decision_time: false,
        backfill: scheduler.backfill,
        duration: scheduler.duration,
        boot_latency_s: scheduler.boot_latency_s,
        keep_alive_s: 0.0,
        budget_per_hour: record.budget_per_hour,
    };
    let policies = if w.policies.is_empty() {
        vec![parse_policy(&record.policy)?]
    } else {
        w.policies.clone()
    };
    let mut rows = vec![actual.row(
        "actual",
        &record.policy,
        scheduler.discipline,
        scheduler.admission_control,
        actual_cost,
        actual_cost,
    )];
    for p in &policies {
        let policy = p
            .build(&setup.policy, &setup.cluster, agents)
            .with_context(|| format!("policy {}", p.label()))?;
        if let Some(j) = replayed
            .iter()
            .find(|j| !policy.can_ever_place(j, &setup.cluster))
        {
            bail!(
                "policy {} cannot place job {} ({} executors of {} cores, {} GiB) on this \
                 cluster",
                p.label(),
                j.id,
                j.executors,
                j.executor_demand.cores(),
                j.executor_demand.memory_gib()
            );
        }
        let run = setup.run_with(policy, &replayed);
        let mut tally = Tally::default();
        tally.add_run(&run);
        rows.push(tally.row(
            "replay",
            &p.label(),
            queue,
            admission_control,
            if unfinished > 0 {
                cost_until(&run, end)
            } else {
                run.summary.total_cost
            },
            actual_cost,
        ));
    }
    Ok(WhatIfReport {
        rows,
        window: (origin, until),
        unfinished,
        cancelled_unstarted,
        measured,
        earlier_policies,
        jobs: replayed,
        cluster,
        record,
    })
}

/// The newest start at or before `until` (or the first one, for a window that begins
/// before it) and the policies of the earlier starts inside the window.
fn settings(
    starts: &[(f64, StartRecord)],
    origin: f64,
    until: f64,
) -> Result<(StartRecord, Vec<String>)> {
    if starts.is_empty() {
        bail!(
            "the database records no start of the service: it was written by a frugal \
             older than schema version 3, which did not record its cluster and policy"
        );
    }
    let last_before = starts.iter().rposition(|(at, _)| *at <= until).unwrap_or(0);
    let first_in = starts
        .iter()
        .rposition(|(at, _)| *at <= origin)
        .unwrap_or(0);
    let window = &starts[first_in..=last_before.max(first_in)];
    let newest = window.last().expect("at least one start").1.clone();
    for (at, r) in window {
        for (field, same) in [
            ("cluster", r.cluster == newest.cluster),
            ("speed-up", r.speedup == newest.speedup),
        ] {
            if !same {
                bail!(
                    "the service restarted at {at:.0} with another {field} inside the \
                     window: give --since after that start, or --until before it"
                );
            }
        }
    }
    let mut earlier: Vec<String> = window
        .iter()
        .map(|(_, r)| r.policy.clone())
        .filter(|p| *p != newest.policy)
        .collect();
    earlier.dedup();
    Ok((newest, earlier))
}

/// The policy a start recorded, as the command line named it.
fn parse_policy(label: &str) -> Result<PolicyChoice> {
    if let Some(path) = label.strip_prefix("rl:") {
        return Ok(PolicyChoice::Rl(path.into()));
    }
    frugal_core::PolicyKind::parse(label)
        .map(PolicyChoice::Builtin)
        .ok_or_else(|| anyhow::anyhow!("the recorded policy {label:?} is unknown to this frugal"))
}

/// The replay's bill up to `end` (service seconds): every on-interval clipped to it.
fn cost_until(run: &RunResult, end: f64) -> f64 {
    run.vms
        .iter()
        .map(|v| {
            let clipped: Vec<(f64, f64)> = v
                .intervals
                .iter()
                .filter(|(a, _)| *a < end)
                .map(|&(a, b)| (a, b.min(end)))
                .collect();
            run.billing.accrued(&clipped, None, 0.0, v.price_per_second)
        })
        .sum()
}

/// Job outcomes of one row.
#[derive(Default)]
struct Tally {
    jobs: usize,
    completed: usize,
    dropped: usize,
    deadline_jobs: usize,
    met: usize,
    jct: Vec<f64>,
}

impl Tally {
    /// A stored job of the actual history.
    fn add(&mut self, job: &Job, stored: &StoredJob, t: &impl Fn(f64) -> f64) {
        self.jobs += 1;
        self.deadline_jobs += usize::from(job.deadline.is_some());
        match (stored.state.as_str(), stored.finish) {
            ("completed", Some(f)) => {
                self.completed += 1;
                let finish = t(f);
                self.jct.push(finish - job.arrival);
                if job.deadline.is_some_and(|d| finish <= d + 1e-9) {
                    self.met += 1;
                }
            }
            ("dropped", _) => self.dropped += 1,
            _ => {}
        }
    }

    /// A simulated run.
    fn add_run(&mut self, run: &RunResult) {
        for r in &run.jobs {
            self.jobs += 1;
            self.deadline_jobs += usize::from(r.deadline.is_some());
            self.met += usize::from(r.met_deadline());
            if let Some(j) = r.jct() {
                self.completed += 1;
                self.jct.push(j);
            }
            self.dropped += usize::from(r.status == JobStatus::Dropped);
        }
    }

    fn row(
        &self,
        run: &str,
        policy: &str,
        queue: QueueDiscipline,
        admission_control: bool,
        cost: f64,
        actual: f64,
    ) -> WhatIfRow {
        WhatIfRow {
            run: run.to_string(),
            policy: policy.to_string(),
            queue: queue.name().to_string(),
            admission_control,
            cost_usd: cost,
            delta_usd: cost - actual,
            delta_pct: (actual > 0.0).then(|| 100.0 * (cost - actual) / actual),
            jobs: self.jobs,
            completed: self.completed,
            dropped: self.dropped,
            deadline_jobs: self.deadline_jobs,
            deadline_met_pct: (self.deadline_jobs > 0)
                .then(|| 100.0 * self.met as f64 / self.deadline_jobs as f64),
            mean_jct_s: (!self.jct.is_empty())
                .then(|| self.jct.iter().sum::<f64>() / self.jct.len() as f64),
        }
    }
}

impl WhatIfReport {
    /// Writes the replayed workload (`jobs.csv`) and cluster (`cluster.toml`) to `dir`,
    /// and returns the `frugal simulate` command that replays them as this report did.
    ///
    /// # Errors
    /// The directory cannot be written.
    pub fn export(&self, dir: &Path) -> Result<String> {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
        let jobs = dir.join("jobs.csv");
        std::fs::write(&jobs, write_jobs_csv(&self.jobs))
            .with_context(|| format!("{}", jobs.display()))?;
        let cluster = dir.join("cluster.toml");
        let cfg = frugal_core::ClusterConfig::of(&self.cluster.0, self.cluster.1);
        std::fs::write(&cluster, toml::to_string(&cfg)?)
            .with_context(|| format!("{}", cluster.display()))?;
        let replay = &self.rows[self.rows.len().min(2) - 1];
        let policies: Vec<&str> = self.rows[1..].iter().map(|r| r.policy.as_str()).collect();
        let mut cmd = format!(
            "frugal simulate --jobs-csv {} --cluster {} --policies {} --queue {} --backfill {}",
            jobs.display(),
            cluster.display(),
            policies.join(","),
            replay.queue,
            self.record.backfill,
        );
        if replay.admission_control {
            cmd.push_str(" --admission-control");
        }
        if let Some(b) = self.record.budget_per_hour {
            cmd.push_str(&format!(" --budget-per-hour {b}"));
        }
        Ok(cmd)
    }
}
