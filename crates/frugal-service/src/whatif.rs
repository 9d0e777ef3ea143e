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
//!   submission to now) selects the jobs counted, by submission time. Every bill of a row
//!   is the bill *of the window* — `billed_at(until) − billed_at(since)` over the VMs'
//!   power intervals (`frugal_core::fleet::billed_at`: the fleet's rules, per-hour billing
//!   charging each started hour at its start) — for the actual history and each replay
//!   alike, so a job unfinished at `until` is clipped on both sides.
//! - **Each replay runs the history from its beginning** (the first submission since the
//!   last start with another cluster or speed-up) to `until`, so the state at the
//!   window's start is each policy's own; the service's own policy replays it as it
//!   happened.
//! - **Measured run times** carry to any placement: a job that ran and ended (completed or
//!   failed) runs for its measured time × (the model's estimate for its placement / the
//!   model's estimate for the placement it really had). The scheduler still sees the
//!   estimate, as the service did. A job still running when the store was read has run
//!   past `until` at least. Failed jobs fail again at their run time.
//! - **Cancellations** are replayed at their time (a queued job leaves the queue, a
//!   running one stops); **VM losses and refused power-ons** (the store's `vm_events`) at
//!   theirs, through the same controller.
//! - **Counts** are as they stood at `until` (`frugal_core::lifecycle`): deadline-met is
//!   the share of the window's decided deadline jobs that completed by their deadline
//!   (cancelled ones left out; a job still running at `until` past its deadline missed
//!   it); a job the policy cannot place even on the empty cluster is `unschedulable` in
//!   its row; mean JCT is over jobs completed by `until`.
//! - **Several starts** in the window must share the cluster, billing and speed-up
//!   (otherwise: an error naming the field); the newest start's policy and settings are
//!   "the service's", and a change of policy inside the window is reported.

use frugal_core::spec::Choice;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use frugal_core::PolicySpec;
use frugal_core::fleet::{Fleet, billed_at};
use frugal_core::lifecycle::{DeadlineCount, JobState, deadline_outcome};
use frugal_core::placement::Placement;
use frugal_core::policy::PolicyParams;
use frugal_core::{BillingGranularity, Cluster, Job, QueueDiscipline};
use frugal_sim::experiment::Setup;
use frugal_sim::options::choices::{AgentLoader, build_policy};
use frugal_sim::workload::{write_replay_csv, write_vm_events};
use frugal_sim::{Inputs, RunTime, VmEvent, VmEventKind};

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
    pub policies: Vec<PolicySpec>,
    /// Replay on this cluster and billing instead of the recorded one.
    pub cluster: Option<(Cluster, BillingGranularity)>,
    /// Queue discipline of the replays (default: the recorded one).
    pub queue: Option<QueueDiscipline>,
    /// Admission control in the replays (default: as recorded).
    pub admission_control: Option<bool>,
    /// Replays run on the submitted estimates alone — no measured run times, failures,
    /// cancellations, VM events or queueing instants, each job offered at its submission
    /// — and each runs to its own end (its last job's finish or VM's power-off), not to
    /// `until`: what the simulator predicted before the run (the live experiments'
    /// prediction), `frugal simulate` on the exported jobs. The actual row is unchanged.
    pub estimates_only: bool,
    /// Replay under this contention model instead of the recorded one (frugal's
    /// extension: what the bill would be with jobs slowing each other).
    pub contention: Option<frugal_core::ContentionModel>,
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
    /// Jobs the policy cannot place even on the empty cluster.
    pub unschedulable: usize,
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
    /// The service's settings (its newest start in the window).
    pub record: StartRecord,
    /// What every replay ran under: the settings and the cluster.
    pub setup: Setup,
    /// What the replays carried besides the jobs (measured run times, first passes,
    /// cancellations, failures, VM events), indexed as `jobs`; empty for a prediction.
    pub inputs: Inputs,
}

/// Replays the store at `url` (`sqlite:PATH` or `postgres://…`; it is opened as `frugal
/// serve` opens it, an older schema brought up to date) as `w` says; `agents` loads
/// `rl:` policies.
///
/// # Errors
/// A store that does not exist, cannot be read, or has a newer schema; a store without a
/// recorded start (written before frugal recorded its configuration); starts in the
/// window with different clusters, billing or speed-ups; an empty window; a policy that
/// cannot be built on the cluster (named).
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
    let all: Vec<StoredJob> = store
        .jobs()
        .await?
        .into_iter()
        .filter(|j| j.arrival < until)
        .collect();
    let Some(first_in_window) = all.iter().find(|j| j.arrival >= since) else {
        bail!("no job was submitted in the window");
    };
    let window_from = if since.is_finite() {
        since
    } else {
        first_in_window.arrival
    };
    let (record, earlier_policies) = settings(&starts, window_from, until)?;
    // The replay starts with the history whose starts share the window's cluster and
    // speed-up, so the state at the window's start is each policy's own.
    let replay_from = compatible_since(&starts, &record, window_from);
    let jobs: Vec<&StoredJob> = all.iter().filter(|j| j.arrival >= replay_from).collect();
    let origin = jobs.first().map_or(window_from, |j| j.arrival);
    let speedup = record.speedup;
    let recorded = record.cluster.build("the recorded cluster")?;
    let cluster = match &w.cluster {
        Some((c, b)) => (c.clone(), *b),
        None => (recorded.clone(), record.cluster.billing),
    };
    // Service seconds from the replay's start.
    let t = |wall: f64| (wall - origin) * speedup;
    let (from, end) = (t(window_from.max(origin)), t(until));
    let scheduler = record.scheduler().map_err(anyhow::Error::msg)?;

    let mut replayed = Vec::new();
    let mut inputs = Inputs {
        run_times: Some(Vec::new()),
        offered_at: Some(Vec::new()),
        ..Inputs::default()
    };
    let mut in_window = Vec::new();
    let mut measured = 0;
    for (k, j) in jobs.iter().enumerate() {
        let job = j.submission.job(t(j.arrival));
        let placement = j
            .placement
            .clone()
            .map(|executors_per_vm| Placement { executors_per_vm });
        let model = placement
            .as_ref()
            .map(|p| scheduler.duration.duration(&job, &recorded, p));
        // What the service measured, carried to any placement as a multiple of the model.
        let run_time = match (j.state, j.start, j.finish, model) {
            _ if w.estimates_only => None,
            (JobState::Completed | JobState::Failed, Some(s), Some(f), Some(m)) if m > 0.0 => {
                measured += 1;
                if j.state == JobState::Failed {
                    inputs.failures.push(k);
                }
                Some(RunTime::Factor((f - s) * speedup / m))
            }
            // Still running: it has run past the window's end at least.
            (JobState::Running, Some(s), _, Some(m)) if m > 0.0 => {
                Some(RunTime::Factor(((until - s) * speedup / m).max(1.0)))
            }
            _ => None,
        };
        if j.state == JobState::Cancelled
            && !w.estimates_only
            && let Some(f) = j.finish
        {
            inputs.cancels.push((k, t(f)));
        }
        inputs.run_times.as_mut().expect("set above").push(run_time);
        inputs
            .offered_at
            .as_mut()
            .expect("set above")
            .push(j.offered_at.map(t).filter(|_| !w.estimates_only));
        if j.arrival >= since {
            in_window.push(k);
        }
        replayed.push(job);
    }
    inputs.vm_events = store
        .vm_events()
        .await?
        .into_iter()
        .filter(|&(_, at, _)| at >= origin && at < until && !w.estimates_only)
        .map(|(vm, at, refused)| VmEvent {
            at_s: t(at),
            vm,
            event: if refused {
                VmEventKind::Refused
            } else {
                VmEventKind::Lost
            },
        })
        .collect();

    // The actual bill: the stored power record through the fleet's rules, over the window.
    let mut fleet = Fleet::new(&recorded, record.cluster.billing, record.keep_alive);
    for (vm, on, off) in store.vm_intervals().await? {
        if (vm as usize) < recorded.len() {
            fleet.power_on(vm, t(on));
            fleet.power_off(vm, t(off.unwrap_or(until).min(until)));
        }
    }
    let actual_cost = window_bill(
        record.cluster.billing,
        recorded
            .vms
            .iter()
            .map(|v| (fleet.intervals(v.id, end), v.price_per_second)),
        from,
        end,
    );
    let mut actual = Tally::default();
    for &k in &in_window {
        let j = jobs[k];
        actual.add(&replayed[k], j.state, j.start.map(t), j.finish.map(t), end);
    }
    let unfinished = actual.unfinished;
    let cancelled_unstarted = in_window
        .iter()
        .filter(|&&k| jobs[k].state == JobState::Cancelled && jobs[k].start.is_none())
        .count();

    let queue = w.queue.unwrap_or(scheduler.discipline);
    let admission_control = w.admission_control.unwrap_or(scheduler.admission_control);
    let setup = Setup {
        cluster: cluster.0,
        billing: cluster.1,
        queue: Some(queue),
        // The replay's one queue is the service's (or --queue): it applies to every policy.
        policy_queues: Vec::new(),
        admission_control,
        policy: PolicyParams {
            rut: scheduler.rut,
            ..PolicyParams::default()
        },
        charge_decision_time: false,
        backfill: scheduler.backfill,
        duration: frugal_core::DurationModel {
            contention: w.contention.or(scheduler.duration.contention),
            ..scheduler.duration
        },
        boot_latency_s: scheduler.boot_latency_s,
        keep_alive: record.keep_alive,
        budget_per_hour: record.budget_per_hour,
        vm_events: Vec::new(),
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
        let policy = build_policy(p, &setup.policy, &setup.cluster, agents)
            .with_context(|| format!("policy {p}"))?;
        let run = setup.replay(policy, &replayed, &inputs);
        // A prediction runs to its own end, however long the real run took.
        let end = if w.estimates_only {
            let finishes = run.jobs.iter().filter_map(|r| r.finish);
            let offs = run
                .vms
                .iter()
                .flat_map(|v| v.intervals.iter().map(|iv| iv.1));
            finishes
                .chain(offs)
                .filter(|x| x.is_finite())
                .fold(end, f64::max)
        } else {
            end
        };
        let mut tally = Tally::default();
        for &k in &in_window {
            let r = &run.jobs[k];
            tally.add(&replayed[k], r.status, r.start, r.finish, end);
        }
        let cost = window_bill(
            run.billing,
            run.vms
                .iter()
                .map(|v| (v.intervals.clone(), v.price_per_second)),
            from,
            end,
        );
        rows.push(tally.row(
            "replay",
            &p.to_string(),
            queue,
            admission_control,
            cost,
            actual_cost,
        ));
    }
    Ok(WhatIfReport {
        rows,
        window: (window_from.max(origin), until),
        unfinished,
        cancelled_unstarted,
        measured,
        earlier_policies,
        jobs: replayed,
        record,
        setup,
        inputs,
    })
}

/// The bill of `[from, end)` (service seconds) of VMs given as (intervals, price).
fn window_bill(
    billing: BillingGranularity,
    vms: impl Iterator<Item = (Vec<(f64, f64)>, f64)>,
    from: f64,
    end: f64,
) -> f64 {
    vms.map(|(iv, price)| {
        billed_at(billing, &iv, price, end) - billed_at(billing, &iv, price, from)
    })
    .sum()
}

/// The earliest start time from which every start up to `record`'s shares its cluster and
/// speed-up (−∞ if all do), never after `window_from`.
fn compatible_since(starts: &[(f64, StartRecord)], record: &StartRecord, window_from: f64) -> f64 {
    let mut since = f64::NEG_INFINITY;
    for (at, r) in starts {
        if *at > window_from {
            break;
        }
        if r.cluster != record.cluster || r.speedup != record.speedup {
            since = *at;
        }
    }
    since.min(window_from)
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
fn parse_policy(label: &str) -> Result<PolicySpec> {
    label
        .parse()
        .with_context(|| format!("the recorded policy {label:?} is unknown to this frugal"))
}

/// Job outcomes of one row, as they stood at the window's end (`frugal_core::lifecycle`).
#[derive(Default)]
struct Tally {
    jobs: usize,
    completed: usize,
    dropped: usize,
    unschedulable: usize,
    unfinished: usize,
    deadlines: DeadlineCount,
    jct: Vec<f64>,
}

impl Tally {
    /// One job that ended in `state` (started and finished at those service seconds, if
    /// it did), seen at `end`: what had not happened by then had not happened.
    fn add(
        &mut self,
        job: &Job,
        state: JobState,
        start: Option<f64>,
        finish: Option<f64>,
        end: f64,
    ) {
        let started = start.filter(|&s| s < end);
        let (state, finish) = match finish {
            Some(f) if state.has_ended() && f > end => (
                if started.is_some() {
                    JobState::Running
                } else {
                    JobState::Queued
                },
                None,
            ),
            f => (state, f),
        };
        self.jobs += 1;
        self.unfinished += usize::from(!state.has_ended());
        self.deadlines
            .add(deadline_outcome(job.deadline, state, finish, end));
        match state {
            JobState::Completed => {
                self.completed += 1;
                if let Some(f) = finish {
                    self.jct.push(f - job.arrival);
                }
            }
            JobState::Dropped => self.dropped += 1,
            JobState::Unschedulable => self.unschedulable += 1,
            _ => {}
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
            unschedulable: self.unschedulable,
            deadline_jobs: self.deadlines.jobs(),
            deadline_met_pct: self.deadlines.met_pct(),
            mean_jct_s: (!self.jct.is_empty())
                .then(|| self.jct.iter().sum::<f64>() / self.jct.len() as f64),
        }
    }
}

impl WhatIfReport {
    /// Writes the replayed workload (`jobs.csv`, with the replay columns of
    /// [`frugal_sim::workload::read_jobs_csv`]: measured run times, first passes,
    /// cancellations, failures), the VM events (`vm-events.csv`, if any) and the cluster
    /// (`cluster.toml`) to `dir`, and returns the `frugal simulate` command that runs what
    /// the replays ran: every setting of [`WhatIfReport::setup`] that differs from
    /// `simulate`'s default is a flag, the contention model a file (`contention.toml`).
    /// Its rows equal the replay rows over the whole run (the replay's window clips a run
    /// that goes on past `--until`).
    ///
    /// # Errors
    /// The directory cannot be written.
    pub fn export(&self, dir: &Path) -> Result<String> {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
        let write = |name: &str, text: String| -> Result<std::path::PathBuf> {
            let path = dir.join(name);
            std::fs::write(&path, text).with_context(|| format!("{}", path.display()))?;
            Ok(path)
        };
        let csv = write_replay_csv(&self.jobs, &self.inputs).map_err(anyhow::Error::msg)?;
        let jobs = write("jobs.csv", csv)?;
        let s = &self.setup;
        let cfg = frugal_core::ClusterConfig::of(&s.cluster, s.billing);
        let cluster = write("cluster.toml", toml::to_string(&cfg)?)?;
        let replay = &self.rows[self.rows.len().min(2) - 1];
        let policies: Vec<&str> = self.rows[1..].iter().map(|r| r.policy.as_str()).collect();
        let mut cmd = format!(
            "frugal simulate --jobs-csv {} --cluster {} --policies {} --queue {} --backfill {}",
            jobs.display(),
            cluster.display(),
            policies.join(","),
            replay.queue,
            s.backfill,
        );
        if !self.inputs.vm_events.is_empty() {
            let events = write("vm-events.csv", write_vm_events(&self.inputs.vm_events))?;
            cmd.push_str(&format!(" --vm-events {}", events.display()));
        }
        if replay.admission_control {
            cmd.push_str(" --admission-control");
        }
        if let Some(b) = s.budget_per_hour {
            cmd.push_str(&format!(" --budget-per-hour {b}"));
        }
        if s.keep_alive != frugal_core::fleet::KeepAlive::default() {
            cmd.push_str(&format!(" --keep-alive {}", s.keep_alive));
        }
        // Where the service's settings differ from `frugal simulate`'s defaults.
        let defaults = frugal_core::DurationModel::default();
        if s.duration.kind_penalty != defaults.kind_penalty {
            cmd.push_str(&format!(" --kind-penalty {}", s.duration.kind_penalty));
        }
        if s.duration.hybrid_rule != defaults.hybrid_rule {
            cmd.push_str(&format!(" --hybrid-rule {}", s.duration.hybrid_rule));
        }
        if let Some(m) = &s.duration.contention {
            let file = write("contention.toml", m.to_toml())?;
            cmd.push_str(&format!(" --contention {}", file.display()));
        }
        if s.boot_latency_s != 0.0 {
            cmd.push_str(&format!(" --boot-latency {}", s.boot_latency_s));
        }
        if s.policy.rut != frugal_core::Rut::default() {
            cmd.push_str(&format!(" --alpha {}", s.policy.rut.alpha));
        }
        Ok(cmd)
    }
}
