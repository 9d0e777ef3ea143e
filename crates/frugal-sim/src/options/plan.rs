//! From the options to a checked plan of runs: every flag that cannot apply is refused
//! here, before anything runs.

use frugal_core::spec::Choice;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use frugal_core::spec::SpecError;
use serde_json::{Value, json};

use crate::experiment::Setup;
use crate::workload::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, Load, Pattern, SwimHour, SwimRecord, SyntheticConfig,
    TraceMapping, copies, jobs_csv_label, map_alibaba, map_swf, map_swim, paper002_jobs,
    parse_swim, read_jobs_csv, replicate_days, select_hour, synthetic,
};
use frugal_core::job::Job;
use frugal_core::policy::{PolicyKind, PolicyParams};
use frugal_core::queue::QueueDiscipline;
use frugal_core::{Cluster, DurationModel, Reading, Rut};
use frugal_traces::alibaba::Pod;
pub use frugal_traces::sha256_hex;
use frugal_traces::swf::SwfLog;

use super::choices::{AgentLoader, ClusterSource, build_policy, checkpoints_matching};
use super::{Loads, MAX_JOBS, SimulateSpec, TraceHour};
use frugal_core::PolicySpec;

/// Largest cluster on which the default policy set includes `milp`: the papers' largest
/// cluster is 180 VMs.
pub const MILP_DEFAULT_MAX_VMS: usize = 200;

/// One workload to compare the policies on. Its jobs are generated per run from the
/// run's seed, so a plan stays small whatever the repetitions.
pub struct Workload {
    /// Label in tables and output directories.
    pub label: String,
    /// Jobs per run (copies included).
    pub jobs: usize,
    source: Source,
    /// Copies of every job (`--job-copies`).
    copies: u32,
    /// A job CSV's replay columns (measured run times, cancellations, failures), indexed
    /// as its jobs; its VM events are the setup's.
    pub replay: Option<crate::engine::Inputs>,
}

enum Source {
    /// The same jobs for every seed (a job CSV).
    Fixed(Vec<Job>),
    /// The paper 000 generator; its seed is the run's.
    Synthetic(SyntheticConfig),
    /// Trace records mapped with the run's seed.
    Swim(Vec<(f64, SwimRecord)>, TraceMapping),
    /// The first N usable records of an SWF log mapped with the run's seed.
    Swf(Box<SwfLog>, Option<usize>, TraceMapping),
    /// The first N replayable tasks of an Alibaba task list mapped with the run's seed.
    Alibaba(Vec<Pod>, Option<usize>, TraceMapping),
    /// Paper 002's generator at an hour's arrivals, drawn with the run's seed.
    Paper002(Pattern, u32),
}

impl Workload {
    /// The jobs of the run with `seed`.
    pub fn jobs_for(&self, seed: u64) -> Vec<Job> {
        let jobs = match &self.source {
            Source::Fixed(jobs) => jobs.clone(),
            Source::Synthetic(cfg) => synthetic(&SyntheticConfig { seed, ..*cfg }),
            Source::Swim(selected, m) => {
                let refs: Vec<(f64, &SwimRecord)> = selected.iter().map(|(t, r)| (*t, r)).collect();
                map_swim(&refs, &TraceMapping { seed, ..*m })
            }
            Source::Swf(log, n, m) => map_swf(log, *n, &TraceMapping { seed, ..*m }).jobs,
            Source::Alibaba(pods, n, m) => map_alibaba(pods, *n, &TraceMapping { seed, ..*m }).jobs,
            Source::Paper002(pattern, hour) => paper002_jobs(*pattern, *hour, seed),
        };
        if self.copies == 1 {
            jobs
        } else {
            copies(&jobs, self.copies)
        }
    }
}

/// An input file and its digest, for provenance.
pub struct Input {
    /// What it is (`trace`, `jobs_csv`, `cluster`, `checkpoint`).
    pub role: &'static str,
    /// Path as given, or the embedded file's name.
    pub path: String,
    /// SHA-256 of its bytes, hex.
    pub sha256: String,
}

/// Everything a `simulate` run needs, checked.
pub struct Plan {
    /// Conditions shared by every run.
    pub setup: Setup,
    /// The policies, the baseline included.
    pub policies: Vec<PolicySpec>,
    /// The workloads.
    pub workloads: Vec<Workload>,
    /// Seed of repetition 0.
    pub seed: u64,
    /// Simulations per run of the `offline` search.
    pub offline_budget: usize,
    /// Input files read.
    pub inputs: Vec<Input>,
    /// One line describing the cluster and conditions.
    pub header: String,
}

fn read_input(role: &'static str, path: &Path, inputs: &mut Vec<Input>) -> Result<String> {
    // The role is the field that names the file, in the provenance's spelling.
    let bytes = std::fs::read(path)
        .map_err(|e| field(&role.replace('_', "-"), format!("{}: {e}", path.display())))?;
    inputs.push(Input {
        role,
        path: path.display().to_string(),
        sha256: sha256_hex(&bytes),
    });
    String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8 text", path.display()))
}

/// Checks `a` and builds the plan; `agents` loads the `rl:` policies (each is loaded once
/// here, so a bad checkpoint fails before any run).
///
/// # Errors
/// [`SpecError`](frugal_core::spec::SpecError) naming the field that is out of range or
/// conflicts with another ([`SimulateSpec::check`]); a message naming the field (or the
/// file, line and field) for one that cannot apply to its inputs.
pub fn plan(a: &SimulateSpec, agents: &AgentLoader) -> Result<Plan> {
    a.check()?;
    let mut inputs = Vec::new();
    if let ClusterSource::File(p) = &a.cluster {
        let bytes = std::fs::read(p).ok();
        if let Some(b) = bytes {
            inputs.push(Input {
                role: "cluster",
                path: p.display().to_string(),
                sha256: sha256_hex(&b),
            });
        }
    }
    let (cluster, billing) = a.cluster.build(a.pricing, a.billing, a.cluster_scale)?;
    let mut policies =
        expand_checkpoints(a.policies.clone().unwrap_or_else(PolicySpec::all_builtin))?;
    // One MILP per decision over every VM: past the papers' cluster sizes each decision
    // runs into its time limit, so the default set leaves it out there (and says so).
    let milp_left_out = a.policies.is_none() && cluster.len() > MILP_DEFAULT_MAX_VMS;
    if milp_left_out {
        policies.retain(|p| !matches!(p, PolicySpec::Builtin(k) if k.is_solver()));
    }
    if !policies.contains(&a.baseline) {
        policies.insert(0, a.baseline.clone());
    }
    let queue = a.queue;
    for (i, o) in a.policy_queue.iter().enumerate() {
        if !policies.contains(&PolicySpec::Builtin(o.policy)) {
            return Err(field(
                "policy-queue",
                format!("{o}: {} is not among {{policies}}", o.policy.name()),
            ));
        }
        if a.policy_queue[..i].iter().any(|p| p.policy == o.policy) {
            return Err(field(
                "policy-queue",
                format!("{o}: {} is given a queue twice", o.policy.name()),
            ));
        }
    }
    if a.contention.is_none()
        && let Some(why) = PolicySpec::missing_contention(&policies)
    {
        return Err(field("contention", why));
    }
    let params = policy_params(a, &policies, queue)?;
    if a.offline_budget.is_some() && !policies.contains(&PolicySpec::Offline) {
        return Err(field(
            "offline-budget",
            "applies to the offline search, which is not among {policies}",
        ));
    }
    if a.baseline == PolicySpec::Offline {
        return Err(field(
            "baseline",
            "offline: the baseline is an online policy",
        ));
    }
    for p in &policies {
        if let PolicySpec::Rl(path) = p {
            build_policy(p, &params, &cluster, agents)
                .map_err(|e| field("policies", format!("{e:#}")))?;
            for (role, file) in [
                ("checkpoint", path.clone()),
                ("checkpoint", {
                    let mut m = path.as_os_str().to_owned();
                    m.push(".json");
                    m.into()
                }),
            ] {
                let bytes = std::fs::read(&file).map_err(|e| {
                    field("policies", format!("{}: {e}", PolicySpec::Rl(file.clone())))
                })?;
                inputs.push(Input {
                    role,
                    path: file.display().to_string(),
                    sha256: sha256_hex(&bytes),
                });
            }
        }
    }
    if a.repetitions > 1 && a.jobs_csv.is_some() && !a.charge_decision_time {
        return Err(field(
            "repetitions",
            format!(
                "{}: a job CSV is fixed and every policy deterministic, so the repetitions \
                 would repeat one run",
                a.repetitions
            ),
        ));
    }
    let mut workloads = workloads(a, &mut inputs)?;
    if workloads.iter().any(|w| w.replay.is_some()) {
        let refuse = |flag: &str, why: &str| {
            field(
                flag,
                format!(
                    "the job CSV has replay columns (run_time_factor, offered_at_s, cancelled_at_s, failed), {why}"
                ),
            )
        };
        if a.job_copies > 1 {
            return Err(refuse("job-copies", "which belong to one copy of each job"));
        }
        if policies.contains(&PolicySpec::Offline) {
            return Err(refuse(
                "policies",
                "which the offline search does not replay",
            ));
        }
    }
    if a.job_copies > 1 {
        for w in &mut workloads {
            w.jobs = w
                .jobs
                .checked_mul(a.job_copies as usize)
                .filter(|&n| n <= MAX_JOBS)
                .ok_or_else(|| {
                    field(
                        "job-copies",
                        format!(
                            "{}: {} × {} jobs exceeds {MAX_JOBS} jobs",
                            a.job_copies, w.jobs, a.job_copies
                        ),
                    )
                })?;
            w.copies = a.job_copies;
            w.label = format!("{} × {} copies", w.label, a.job_copies);
        }
    }
    let cluster_len = cluster.len();
    let setup = Setup {
        cluster,
        billing,
        queue,
        policy_queues: a.policy_queue.clone(),
        admission_control: a.admission_control,
        policy: params,
        charge_decision_time: a.charge_decision_time,
        backfill: a.backfill,
        duration: DurationModel {
            hybrid_rule: a.hybrid_rule,
            kind_penalty: a.kind_penalty,
            contention: match &a.contention {
                Some(p) => Some(
                    frugal_core::ContentionModel::read(p).map_err(|m| field("contention", m))?,
                ),
                None => None,
            },
        },
        boot_latency_s: a.boot_latency,
        keep_alive: a.keep_alive,
        budget_per_hour: a.budget_per_hour,
        vm_events: match &a.vm_events {
            Some(p) => crate::workload::read_vm_events(p, cluster_len)
                .map_err(|m| field("vm-events", m))?,
            None => Vec::new(),
        },
    };
    let header = format!(
        "cluster {}{} ({} VMs, {}), {}, {} billing\nadmission control {}, seed {}, {} repetition(s){}{}{}",
        a.cluster,
        if a.cluster_scale > 1 {
            format!(" × {}", a.cluster_scale)
        } else {
            String::new()
        },
        setup.cluster.len(),
        setup.cluster.total_capacity,
        match &a.cluster {
            ClusterSource::Preset(p) if p.takes_pricing() => format!(
                "pricing model {}",
                a.pricing.unwrap_or(frugal_core::PricingModel::Model1)
            ),
            ClusterSource::Preset(frugal_core::Preset::AlibabaGpu2023) => {
                "equivalent cloud prices (data/alibaba-gpu-2023/cluster.toml)".to_string()
            }
            ClusterSource::Preset(_) => "AWS hourly prices".to_string(),
            ClusterSource::File(_) => "prices from the file".to_string(),
        },
        setup.billing.name(),
        if a.admission_control { "on" } else { "off" },
        a.seed,
        a.repetitions,
        run_times_line(setup.duration.kind_penalty),
        match &setup.duration.contention {
            Some(c) => format!(
                "\ncontention (frugal's extension, not the papers' model): {} scope, capacity {} {} per domain",
                text_of(&c.scope),
                c.capacity,
                text_of(&c.load),
            ),
            None => String::new(),
        },
        if milp_left_out {
            format!(
                "\nmilp left out of the default policies: {} VMs > {MILP_DEFAULT_MAX_VMS} (name it among the policies to run it)",
                setup.cluster.len()
            )
        } else {
            String::new()
        }
    );
    Ok(Plan {
        setup,
        policies,
        workloads,
        seed: a.seed,
        offline_budget: a.offline_budget.unwrap_or(20_000) as usize,
        inputs,
        header,
    })
}

/// A unit enum's serde name (`cluster`, `jobs`).
fn text_of<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// An error of the spec's field `name` (`{field}` in `message` names another).
fn field(name: &str, message: impl Into<String>) -> anyhow::Error {
    SpecError::new(name, message).into()
}

/// Every `rl:` pattern replaced by the checkpoints it matches ([`checkpoints_matching`]).
fn expand_checkpoints(policies: Vec<PolicySpec>) -> Result<Vec<PolicySpec>> {
    let mut out = Vec::new();
    for p in policies {
        match &p {
            PolicySpec::Rl(path) => out.extend(
                checkpoints_matching(path)
                    .map_err(|e| field("policies", format!("{p}: {e:#}")))?
                    .into_iter()
                    .map(PolicySpec::Rl),
            ),
            _ => out.push(p),
        }
    }
    Ok(out)
}

/// RUT and MILP settings; refuses those no run would use.
fn policy_params(
    a: &SimulateSpec,
    policies: &[PolicySpec],
    queue: Option<QueueDiscipline>,
) -> Result<PolicyParams> {
    let uses = |k: PolicyKind| policies.contains(&PolicySpec::Builtin(k));
    let mut params = PolicyParams::default();
    if let Some(alpha) = a.alpha {
        let deadline_first = queue == Some(QueueDiscipline::DeadlineFirst)
            || (queue.is_none() && uses(PolicyKind::BestFitDecreasing))
            || a.policy_queue
                .iter()
                .any(|o| o.queue == QueueDiscipline::DeadlineFirst);
        if !uses(PolicyKind::BestFitDecreasing) && !deadline_first {
            return Err(field(
                "alpha",
                "weighs CPU in best-fit-decreasing and the deadline-first queue; neither runs \
                 here",
            ));
        }
        params.rut = Rut::with_alpha(alpha).map_err(anyhow::Error::msg)?;
    }
    if !uses(PolicyKind::Milp) {
        for (name, given) in [
            ("milp-backend", a.milp_backend.is_some()),
            ("milp-time-limit", a.milp_time_limit.is_some()),
        ] {
            if given {
                return Err(field(
                    name,
                    "applies to the milp policy, which is not among {policies}",
                ));
            }
        }
    }
    if let Some(b) = a.milp_backend {
        params.milp_backend = b.available().map_err(|e| field("milp-backend", e))?;
    }
    let read = PolicyKind::ALL
        .into_iter()
        .filter(PolicyKind::has_authors_reading);
    if a.policy_reading != Reading::PaperText && !read.clone().any(uses) {
        let names: Vec<_> = read.map(|k| k.name()).collect();
        return Err(field(
            "policy-reading",
            format!(
                "applies to {}, none of which is among {{policies}}",
                names.join(", ")
            ),
        ));
    }
    params.reading = a.policy_reading;
    if let Some(t) = a.milp_time_limit {
        params.milp_time_limit =
            Duration::try_from_secs_f64(t).map_err(|e| field("milp-time-limit", e.to_string()))?;
    }
    Ok(params)
}

fn loads(arg: Loads) -> Vec<Load> {
    match arg {
        Loads::Light => vec![Load::Light],
        Loads::High => vec![Load::High],
        Loads::Both => vec![Load::Light, Load::High],
    }
}

/// The workloads; refuses trace-only options elsewhere.
fn workloads(a: &SimulateSpec, inputs: &mut Vec<Input>) -> Result<Vec<Workload>> {
    let trace_only = [
        ("deadline-share", a.deadline_share.is_some()),
        ("deadline-factor", a.deadline_factor.is_some()),
    ];
    let hybrid_penalty = a.hybrid_penalty.unwrap_or(0.3);
    if (a.jobs_csv.is_some() || a.synthetic || a.paper002.is_some())
        && let Some((name, _)) = trace_only.iter().find(|(_, given)| *given)
    {
        return Err(field(
            name,
            format!(
                "shapes the deadlines of trace jobs; {} jobs bring their own",
                if a.synthetic {
                    "synthetic"
                } else if a.paper002.is_some() {
                    "paper 002's (none)"
                } else {
                    "CSV"
                }
            ),
        ));
    }
    if let Some(p) = a.paper002 {
        if a.hybrid_penalty.is_some() {
            return Err(field(
                "hybrid-penalty",
                "paper 002's jobs run on one cloud site and have no cross-site run time",
            ));
        }
        let pattern = p;
        let hour = match a.hour {
            Some(TraceHour::Hour(h)) => h,
            Some(TraceHour::Day) => {
                return Err(field("hour", "day: {paper002} takes the jobs of one hour"));
            }
            None => pattern.eval_hour(),
        };
        let records = parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME)?;
        let available = select_hour(&records, SwimHour::Hour(hour), Some(pattern.jobs())).len();
        if available < pattern.jobs() {
            return Err(field(
                "hour",
                format!(
                    "{hour}: FB-2009 hour {hour} has {available} jobs, the {} pattern needs {}",
                    pattern.name(),
                    pattern.jobs()
                ),
            ));
        }
        inputs.push(Input {
            role: "trace",
            path: format!("embedded:{EMBEDDED_FB2009_NAME}"),
            sha256: sha256_hex(EMBEDDED_FB2009.as_bytes()),
        });
        return Ok(vec![Workload {
            copies: 1,
            replay: None,
            label: format!(
                "paper 002 {} pattern, {} generated jobs at FB-2009 hour {hour}'s arrivals",
                pattern.name(),
                pattern.jobs()
            ),
            jobs: pattern.jobs(),
            source: Source::Paper002(pattern, hour),
        }]);
    }
    if let Some(path) = &a.jobs_csv {
        let text = read_input("jobs_csv", path, inputs)?;
        let read = read_jobs_csv(&text, &path.display().to_string(), hybrid_penalty)?;
        if a.hybrid_penalty.is_some() && read.derived_t_hybrid == 0 {
            return Err(field(
                "hybrid-penalty",
                format!(
                    "every job of {} gives its own t_hybrid_s, so the penalty would not apply \
                     (leave t_hybrid_s empty to derive it)",
                    path.display()
                ),
            ));
        }
        if read.jobs.is_empty() {
            bail!("{}: no job", path.display());
        }
        return Ok(vec![Workload {
            copies: 1,
            replay: read.replay,
            label: jobs_csv_label(path),
            jobs: read.jobs.len(),
            source: Source::Fixed(read.jobs),
        }]);
    }
    if let Some(spec) = &a.swf {
        return swf_workload(spec, a, hybrid_penalty, inputs).map(|w| vec![w]);
    }
    if let Some(spec) = &a.alibaba {
        return alibaba_workload(spec, a, hybrid_penalty, inputs).map(|w| vec![w]);
    }
    if a.synthetic {
        let n = a.jobs.unwrap_or(1000) as usize;
        return Ok(loads(a.load())
            .into_iter()
            .map(|load| Workload {
                copies: 1,
                replay: None,
                label: format!(
                    "synthetic {} load, {n} jobs (paper 000 §6.1{})",
                    if load == Load::Light { "light" } else { "high" },
                    match a.synthetic_reading() {
                        Reading::PaperText => "",
                        Reading::AuthorsCode => ", authors' published workloads",
                    }
                ),
                jobs: n,
                source: Source::Synthetic(SyntheticConfig {
                    load,
                    reading: a.synthetic_reading(),
                    jobs: n,
                    hybrid_penalty,
                    seed: 0,
                }),
            })
            .collect());
    }
    let (text, name) = match &a.trace {
        Some(p) => (read_input("trace", p, inputs)?, p.display().to_string()),
        None => {
            inputs.push(Input {
                role: "trace",
                path: format!("embedded:{EMBEDDED_FB2009_NAME}"),
                sha256: sha256_hex(EMBEDDED_FB2009.as_bytes()),
            });
            (
                EMBEDDED_FB2009.to_string(),
                EMBEDDED_FB2009_NAME.to_string(),
            )
        }
    };
    let records = parse_swim(&text, &name)?;
    let selections: Vec<(SwimHour, Option<usize>, String)> = match a.hour {
        Some(TraceHour::Hour(h)) => vec![(
            SwimHour::Hour(h),
            a.jobs.map(|n| n as usize),
            format!("{name} hour {h}"),
        )],
        Some(TraceHour::Day) => vec![(
            SwimHour::Day,
            a.jobs.map(|n| n as usize),
            format!("{name} day"),
        )],
        None => loads(a.load())
            .into_iter()
            .map(|l| match l {
                Load::Light => (
                    SwimHour::Hour(0),
                    Some(50),
                    format!("light load: {name} hour 0, first 50 jobs"),
                ),
                Load::High => (
                    SwimHour::Hour(6),
                    Some(100),
                    format!("high load: {name} hour 6, first 100 jobs"),
                ),
            })
            .collect(),
    };
    let mapping = trace_mapping(a, hybrid_penalty);
    let mut out = Vec::new();
    for (hour, n, label) in selections {
        let long;
        let source = match (hour, n) {
            (SwimHour::Day, Some(n)) if n > records.len() => {
                long = replicate_days(&records, n);
                &long
            }
            _ => &records,
        };
        let selected: Vec<(f64, SwimRecord)> = select_hour(source, hour, n)
            .into_iter()
            .map(|(t, r)| (t, r.clone()))
            .collect();
        if selected.is_empty() {
            bail!("{label}: the trace has no job there");
        }
        if let Some(n) = n.filter(|&n| n > selected.len()) {
            return Err(field(
                "jobs",
                format!(
                    "{n}: {label} holds only {} jobs ({{hour}} `day` replays the day for more)",
                    selected.len()
                ),
            ));
        }
        out.push(Workload {
            copies: 1,
            replay: None,
            label,
            jobs: selected.len(),
            source: Source::Swim(selected, mapping),
        });
    }
    Ok(out)
}

impl Plan {
    /// Provenance of run `repetition` for `summary.json`: frugal's version and commit,
    /// the effective configuration, the seed and the digest of every input file.
    pub fn provenance(&self, args: &SimulateSpec, repetition: u64) -> Value {
        json!({
            "frugal_version": env!("CARGO_PKG_VERSION"),
            "git_commit": option_env!("FRUGAL_GIT_COMMIT"),
            "command": "simulate",
            "configuration": args,
            "effective": {
                "cluster_vms": self.setup.cluster.len(),
                "billing": self.setup.billing.name(),
                "rut_alpha": self.setup.policy.rut.alpha,
                "milp_backend": format!("{:?}", self.setup.policy.milp_backend).to_lowercase(),
                "milp_time_limit_s": self.setup.policy.milp_time_limit.as_secs_f64(),
            },
            "repetition": repetition,
            "seed": self.seed.wrapping_add(repetition),
            "inputs": self.inputs.iter().map(|i| json!({
                "role": i.role, "path": i.path, "sha256": i.sha256,
            })).collect::<Vec<_>>(),
        })
    }

    /// The cluster every run starts from.
    pub fn cluster(&self) -> &Cluster {
        &self.setup.cluster
    }
}

/// How trace records become jobs: the duration and deadline options, seed set per run.
fn trace_mapping(a: &SimulateSpec, hybrid_penalty: f64) -> TraceMapping {
    TraceMapping {
        hybrid_penalty,
        deadline_share: a.deadline_share.unwrap_or(0.5),
        deadline_factor: a.deadline_factor.unwrap_or(2.0),
        seed: 0,
        application: a.application().kind(),
    }
}

/// Refuses `jobs` beyond the `found` jobs a trace holds (named `what`).
fn check_limit(limit: Option<usize>, found: usize, name: &str, what: &str) -> Result<()> {
    match limit.filter(|&n| n > found) {
        Some(n) => Err(field(
            "jobs",
            format!("{n}: {name} holds only {found} {what}"),
        )),
        None => Ok(()),
    }
}

/// `"<n> <why>"` for each non-zero count, or `None` when every count is zero.
fn counted(counts: &[(usize, &str)]) -> Option<Vec<String>> {
    let notes: Vec<String> = counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
    (!notes.is_empty()).then_some(notes)
}

/// The `alibaba` workload: the shipped task list or a file, its first `jobs` replayable
/// tasks.
fn alibaba_workload(
    spec: &str,
    a: &SimulateSpec,
    hybrid_penalty: f64,
    inputs: &mut Vec<Input>,
) -> Result<Workload> {
    use frugal_traces::alibaba::{EMBEDDED_PODS, EMBEDDED_PODS_NAME, read_pods};
    let (name, bytes, path) = if spec == "default" {
        let name = EMBEDDED_PODS_NAME.to_string();
        (
            name.clone(),
            EMBEDDED_PODS.to_vec(),
            format!("embedded:{name}"),
        )
    } else {
        let bytes = std::fs::read(spec).map_err(|e| {
            field(
                "alibaba",
                format!("{spec}: not `default` or a readable task-list CSV ({e})"),
            )
        })?;
        (spec.to_string(), bytes, spec.to_string())
    };
    inputs.push(Input {
        role: "alibaba",
        path,
        sha256: sha256_hex(&bytes),
    });
    let pods = read_pods(&bytes, &name).map_err(|e| field("alibaba", format!("{e:#}")))?;
    let mapping = trace_mapping(a, hybrid_penalty);
    let limit = a.jobs.map(|n| n as usize);
    let probe = map_alibaba(&pods, limit, &mapping);
    if probe.jobs.is_empty() {
        return Err(field(
            "alibaba",
            format!("{spec}: no task was scheduled for a positive time"),
        ));
    }
    check_limit(limit, probe.jobs.len(), &name, "replayable tasks")?;
    let notes = counted(&[
        (probe.dropped_never_scheduled, "never scheduled, left out"),
        (probe.dropped_zero_duration, "of zero duration, left out"),
        (probe.cut_at_trace_end, "cut at the trace end"),
    ]);
    let label = format!(
        "Alibaba GPU 2023 {name}{}{}",
        limit.map_or(String::new(), |n| format!(", first {n} tasks")),
        notes.map_or(String::new(), |n| format!(" (tasks: {})", n.join("; ")))
    );
    Ok(Workload {
        copies: 1,
        replay: None,
        label,
        jobs: probe.jobs.len(),
        source: Source::Alibaba(pods, limit, mapping),
    })
}

/// The `swf` workload: a shipped log or a file, its first `jobs` usable records.
fn swf_workload(
    spec: &str,
    a: &SimulateSpec,
    hybrid_penalty: f64,
    inputs: &mut Vec<Input>,
) -> Result<Workload> {
    let (name, bytes) = match frugal_traces::swf::embedded(spec) {
        Some(e) => (e.file.to_string(), e.bytes.to_vec()),
        None => (
            spec.to_string(),
            std::fs::read(spec).map_err(|e| {
                field(
                    "swf",
                    format!("{spec}: not `nasa`, `kth` or a readable SWF file ({e})"),
                )
            })?,
        ),
    };
    inputs.push(Input {
        role: "swf",
        path: if frugal_traces::swf::embedded(spec).is_some() {
            format!("embedded:{name}")
        } else {
            name.clone()
        },
        sha256: sha256_hex(&bytes),
    });
    let log =
        frugal_traces::swf::read(&bytes, &name).map_err(|e| field("swf", format!("{e:#}")))?;
    let mapping = trace_mapping(a, hybrid_penalty);
    let limit = a.jobs.map(|n| n as usize);
    let probe = map_swf(&log, limit, &mapping);
    if probe.jobs.is_empty() {
        return Err(field(
            "swf",
            format!("{spec}: no record has a submit time, a run time and a processor count"),
        ));
    }
    check_limit(limit, probe.jobs.len(), &name, "usable jobs")?;
    let dropped = counted(&[
        (probe.dropped_submit_time, "without submit time"),
        (probe.dropped_run_time, "without run time"),
        (probe.dropped_processors, "without processors"),
        (probe.dropped_too_large, "beyond the job limits"),
    ]);
    let label = format!(
        "{name}{}{}",
        limit.map_or(String::new(), |n| format!(", first {n} jobs")),
        dropped.map_or(String::new(), |d| format!(
            " (records dropped: {})",
            d.join(", ")
        ))
    );
    Ok(Workload {
        copies: 1,
        replay: None,
        label,
        jobs: probe.jobs.len(),
        source: Source::Swf(Box::new(log), limit, mapping),
    })
}

/// The header line that says when a job's run time is not its `t_local_s`/`t_hybrid_s`:
/// the job-kind penalty (paper 002 §7.1) with the flag that turns it off; nothing when it
/// is 0.
fn run_times_line(kind_penalty: f64) -> String {
    if kind_penalty > 0.0 {
        format!(
            "\nrun times: t_local_s/t_hybrid_s, × {:.2} when a placement ignores the job's kind (paper 002 §7.1; --kind-penalty 0: off)",
            1.0 + kind_penalty
        )
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::run_times_line;

    /// The header names the factor a mismatched placement runs at (1 + 0.3) and the flag
    /// that turns it off, within 120 columns; with the penalty at 0 it says nothing.
    #[test]
    fn the_header_says_when_run_times_are_not_the_jobs_own() {
        let line = run_times_line(0.3);
        assert_eq!(
            line,
            "\nrun times: t_local_s/t_hybrid_s, × 1.30 when a placement ignores the job's kind \
             (paper 002 §7.1; --kind-penalty 0: off)"
        );
        assert!(line.trim().chars().count() <= 120);
        assert_eq!(run_times_line(0.0), "");
    }
}
