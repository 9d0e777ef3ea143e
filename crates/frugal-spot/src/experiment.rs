//! One configuration → tidy rows: the typed spec of a spot comparison, where its traces come
//! from, its windows, and one row per (window, policy) — what the CLI, experiment files,
//! Python and the benchmarks all run.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use frugal_core::progress::Progress;

use crate::SpotError;
use crate::generator;
use crate::model::{Job, Prices};
use crate::policy::{SpotPolicy, SpotPolicySpec};
use crate::sim::{self, LastTick};
use crate::trace::{self, Trace};

/// A spot comparison: which traces, which job, which policies, how many windows. Every
/// field has a default (the paper's §6.2 setting on the synthetic 2-week set); a TOML
/// experiment file or Python keyword names fields as written here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct SpotSpec {
    /// Availability traces: `synthetic` (stand-ins for the paper's 2-week set, shipped),
    /// a set of the paper's traces (`2-week`, `2-month`, `4-node`, `16-node`, read from
    /// $FRUGAL_SPOT_TRACES or shared/data/spot-traces beside the project; refused when
    /// absent, unless --synthetic-fallback), a folder of trace files or one trace file
    /// ({"metadata": {"gap_seconds": g}, "data": [spot instances per tick]}).
    #[cfg_attr(feature = "clap", arg(long, default_value = "synthetic"))]
    pub traces: String,
    /// When the --traces set is not found, run the synthetic stand-ins instead (said on
    /// stderr; the `traces` column says `synthetic`).
    #[cfg_attr(feature = "clap", arg(long))]
    pub synthetic_fallback: bool,
    /// Use only the first N ticks of each trace (the paper's 2-week set: 1781).
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub ticks: Option<usize>,
    /// Only these zones' traces, comma-separated file stems (e.g. us-west-2a_v100_1).
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub zones: Vec<String>,
    /// Policies, comma-separated: on-demand, greedy, time-sliced:N, uniform-progress,
    /// uniform-progress-plain, uniform-progress-oracle, omniscient, omniscient-lookahead:N.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_delimiter = ',',
            default_value = "on-demand,greedy,uniform-progress,omniscient"
        )
    )]
    pub policies: Vec<SpotPolicySpec>,
    /// C(0): the job's work, hours.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 48.0))]
    pub work_h: f64,
    /// f = C(0)/R(0), the job fraction (default 0.8 unless --deadline-h is given).
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "deadline_h"))]
    pub job_fraction: Option<f64>,
    /// R(0): the deadline, hours after the start.
    #[cfg_attr(feature = "clap", arg(long))]
    pub deadline_h: Option<f64>,
    /// d: the changeover delay of every (re)start, hours.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.2))]
    pub changeover_h: f64,
    /// N: instances of the gang (all or none run).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub instances: u32,
    /// Windows drawn per trace [default: 300; 1 with --start-h].
    #[cfg_attr(feature = "clap", arg(long))]
    pub windows: Option<usize>,
    /// Start each trace's one window H hours into the trace instead of drawing random
    /// starts.
    #[cfg_attr(feature = "clap", arg(long, value_name = "H"))]
    pub start_h: Option<f64>,
    /// Trace a window must leave after its start, hours [default: max(R(0), 120)].
    #[cfg_attr(feature = "clap", arg(long))]
    pub min_trace_left_h: Option<f64>,
    /// Seed of the windows (and of the synthetic traces).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Spot price, $/h per instance: every tick's, or for a trace with per-tick `prices`
    /// (the SkyNomad artifact's V100 files) those ticks' own (the flat price past its end;
    /// the oracle's k stays on-demand over this flat price).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.9731))]
    pub spot_price_per_h: f64,
    /// On-demand price, $/h per instance.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 3.06))]
    pub on_demand_price_per_h: f64,
    /// Billing of the last, partly used tick: whole (the authors' simulator) or prorated.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<LastTick>(), default_value = "whole"))]
    pub last_tick: LastTick,
}

impl Default for SpotSpec {
    fn default() -> SpotSpec {
        SpotSpec {
            traces: "synthetic".into(),
            synthetic_fallback: false,
            ticks: None,
            zones: Vec::new(),
            policies: vec![
                SpotPolicySpec::OnDemand,
                SpotPolicySpec::Greedy,
                SpotPolicySpec::UniformProgress,
                SpotPolicySpec::Omniscient,
            ],
            work_h: 48.0,
            job_fraction: None,
            deadline_h: None,
            changeover_h: 0.2,
            instances: 1,
            windows: None,
            start_h: None,
            min_trace_left_h: None,
            seed: 1,
            spot_price_per_h: Prices::PAPER.spot_per_h,
            on_demand_price_per_h: Prices::PAPER.on_demand_per_h,
            last_tick: LastTick::Whole,
        }
    }
}

/// The paper's trace sets, by name, and their folders under `spot-traces/`.
const SETS: [(&str, &str); 4] = [
    ("2-week", "availability/1-node/aws-10-26-2022"),
    ("2-month", "availability/1-node/aws-02-15-2023"),
    ("4-node", "preemption/4-node/aws-08-03-2023"),
    ("16-node", "availability/16-node/aws-08-27-2023"),
];

/// Where the traces of a run came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    /// `synthetic`, a set name, or the folder as given.
    pub label: String,
    /// The traces.
    pub traces: Vec<Trace>,
}

impl SpotSpec {
    /// The job this spec describes.
    pub fn job(&self) -> Job {
        let deadline_h = match (self.deadline_h, self.job_fraction) {
            (Some(r), _) => r,
            (None, Some(f)) => self.work_h / f,
            (None, None) => self.work_h / 0.8,
        };
        Job {
            work_s: self.work_h * 3600.0,
            deadline_s: deadline_h * 3600.0,
            changeover_s: self.changeover_h * 3600.0,
            instances: self.instances,
        }
    }

    /// Windows per trace: 1 with `start_h`, else `windows` (default 300).
    pub fn window_count(&self) -> usize {
        if self.start_h.is_some() {
            1
        } else {
            self.windows.unwrap_or(300)
        }
    }

    /// The prices this spec describes.
    pub fn prices(&self) -> Prices {
        Prices {
            spot_per_h: self.spot_price_per_h,
            on_demand_per_h: self.on_demand_price_per_h,
        }
    }

    /// Checks every field that a run does not check itself.
    ///
    /// # Errors
    /// [`SpotError::Input`] naming the field.
    pub fn check(&self) -> Result<(), SpotError> {
        let bad = |m: String| Err(SpotError::Input(m));
        if self.job_fraction.is_some() && self.deadline_h.is_some() {
            return bad("job_fraction and deadline_h: give one, not both".into());
        }
        if let Some(f) = self.job_fraction
            && !(f > 0.0 && f <= 1.0)
        {
            return bad(format!("job_fraction: {f} must be in (0, 1]"));
        }
        if self.windows == Some(0) {
            return bad("windows: at least 1".into());
        }
        if let Some(h) = self.start_h {
            if !(h >= 0.0 && h.is_finite()) {
                return bad(format!("start_h: {h} h must be a number of hours ≥ 0"));
            }
            if self.windows.is_some_and(|w| w != 1) {
                return bad(format!(
                    "windows: {} cannot be used with start_h (one window per trace, at start_h)",
                    self.windows.unwrap_or(0)
                ));
            }
        }
        if self.ticks == Some(0) {
            return bad("ticks: at least 1".into());
        }
        if let Some(h) = self.min_trace_left_h
            && !(h >= 0.0 && h.is_finite())
        {
            return bad(format!(
                "min_trace_left_h: {h} h must be a number of hours ≥ 0"
            ));
        }
        self.prices().check()
    }

    /// Finds and reads the traces (see [`SpotSpec::traces`]).
    ///
    /// # Errors
    /// [`SpotError::Input`] for an unknown name that is neither a folder nor a file, a set
    /// of the paper's traces that is not found (unless `synthetic_fallback`), or a bad
    /// trace file.
    pub fn source(&self) -> Result<Source, SpotError> {
        let synthetic = || {
            (
                "synthetic".to_string(),
                generator::two_week_set(self.instances, self.seed),
            )
        };
        let (label, traces) = if self.traces == "synthetic" {
            synthetic()
        } else if let Some((name, sub)) = SETS.iter().find(|(n, _)| *n == self.traces) {
            match paper_traces_root() {
                Some(root) => (name.to_string(), Trace::read_dir(&root.join(sub))?),
                None if self.synthetic_fallback => {
                    eprintln!(
                        "note: traces {name}: the paper's traces are not found ({WHERE}); \
                         running the synthetic stand-ins instead (synthetic_fallback), and \
                         the rows say `synthetic`"
                    );
                    synthetic()
                }
                None => {
                    return Err(SpotError::Input(format!(
                        "traces: the paper's {name} set ({sub}/*.json) is not found: \
                         {WHERE}; or run `synthetic`, or set synthetic_fallback to run the \
                         synthetic stand-ins when it is absent"
                    )));
                }
            }
        } else {
            let path = Path::new(&self.traces);
            if path.is_dir() {
                (self.traces.clone(), Trace::read_dir(path)?)
            } else if path.is_file() {
                (self.traces.clone(), vec![Trace::read(path)?])
            } else {
                return Err(SpotError::Input(format!(
                    "traces: {:?} is neither `synthetic`, a set ({}), a folder nor a file",
                    self.traces,
                    SETS.map(|(n, _)| n).join(", ")
                )));
            }
        };
        let traces = if self.zones.is_empty() {
            traces
        } else {
            if let Some(z) = self
                .zones
                .iter()
                .find(|z| !traces.iter().any(|t| &&t.name == z))
            {
                return Err(SpotError::Input(format!(
                    "zones: no trace {z:?} in {label}; its traces: {}",
                    traces
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            traces
                .into_iter()
                .filter(|t| self.zones.contains(&t.name))
                .collect()
        };
        let traces = match self.ticks {
            Some(n) => traces.into_iter().map(|t| t.truncated(n)).collect(),
            None => traces,
        };
        Ok(Source { label, traces })
    }
}

/// Where the paper's trace sets are looked for, as an error or note says it.
const WHERE: &str = "put the folder `spot-traces` of the paper's data at \
                     $FRUGAL_SPOT_TRACES, $FRUGAL_SHARED_DATA/spot-traces or \
                     shared/data/spot-traces in this folder or one above it";

/// The folder of the paper's traces: `$FRUGAL_SPOT_TRACES`, else
/// `$FRUGAL_SHARED_DATA/spot-traces`, else `shared/data/spot-traces` in the working
/// directory or any folder above it.
pub fn paper_traces_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FRUGAL_SPOT_TRACES") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    if let Some(data) = std::env::var_os("FRUGAL_SHARED_DATA") {
        let dir = PathBuf::from(data).join("spot-traces");
        return dir.is_dir().then_some(dir);
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|a| a.join("shared/data/spot-traces"))
        .find(|d| d.is_dir())
}

/// One (window, policy) run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpotRow {
    /// Where the traces came from: `synthetic`, the set's name or the folder.
    pub traces: String,
    /// The zone's trace.
    pub trace: String,
    /// The window's first tick in the trace.
    pub window: usize,
    /// f = C(0)/R(0).
    pub job_fraction: f64,
    /// `tight` (f > 0.75, paper §6.1) or `loose`.
    pub deadline: String,
    /// Percent of the window's T ticks with spot available to the gang.
    pub window_spot_pct: f64,
    /// `high` (more than 50 % of the window's ticks, paper §6.4) or `low`.
    pub spot: String,
    /// d, hours.
    pub changeover_h: f64,
    /// N.
    pub instances: u32,
    /// The policy.
    pub policy: String,
    /// The bill, dollars.
    pub cost_usd: f64,
    /// Billed on-demand hours per instance (changeovers included).
    pub on_demand_h: f64,
    /// Billed spot hours per instance (changeovers included).
    pub spot_h: f64,
    /// Progress made on on-demand, hours (Table 3's "OD hours").
    pub on_demand_work_h: f64,
    /// Progress made on spot, hours (Table 3's "spot hours").
    pub spot_work_h: f64,
    /// Starts that paid a changeover (the first included).
    pub changeovers: u32,
    /// Times spot was lost while the job ran on it.
    pub preemptions: u32,
    /// When the job finished, hours after its start.
    pub finish_h: f64,
    /// Whether it finished by R(0).
    pub deadline_met: bool,
    /// 100 · (1 − cost / on-demand-only cost): the saving against the baseline (§6.1).
    pub savings_pct: f64,
    /// 100 · (cost / omniscient cost − 1) on the same window, when the omniscient policy
    /// is among the policies.
    pub gap_pct: Option<f64>,
    /// 100 · (cost / quick-optimal cost − 1) on the same window, when `quick-optimal` (the
    /// heuristic the authors' figures label "Omniscient") is among the policies; may be
    /// negative.
    pub quick_gap_pct: Option<f64>,
}

/// Runs `spec`: every policy on [`SpotSpec::window_count`] windows of each trace, in parallel over
/// windows; rows in trace × window × policy order, whatever the thread count.
///
/// # Errors
/// [`SpotError::Input`] for a bad spec or trace (named), [`SpotError::Policy`] for a policy
/// that breaks the rules.
pub fn run(spec: &SpotSpec, progress: &dyn Progress) -> Result<Vec<SpotRow>, SpotError> {
    run_with(spec, &mut [], progress)
}

/// [`run`] with policies of the caller's own beside the spec's: they run after the spec's
/// on every window, on this thread (a policy may hold state, or call into Python), and
/// their rows follow the spec's policies' rows of each window, named by
/// [`SpotPolicy::name`].
///
/// # Errors
/// As [`run`].
pub fn run_with(
    spec: &SpotSpec,
    custom: &mut [Box<dyn SpotPolicy + '_>],
    progress: &dyn Progress,
) -> Result<Vec<SpotRow>, SpotError> {
    spec.check()?;
    if spec.policies.is_empty() && custom.is_empty() {
        return Err(SpotError::Input("policies: none given".into()));
    }
    let source = spec.source()?;
    let job = spec.job();
    let prices = spec.prices();
    let (windows, avails) = windows_of(spec, &source, &job)?;
    progress.add(windows.len());
    let baseline = on_demand_cost(&job, &prices, &source.traces);
    let context = |i: usize, start: usize| Window {
        traces: &source.label,
        trace: &source.traces[i],
        start,
        availability: &avails[i][start..],
        spot_prices: window_prices(&source.traces[i], start),
        job: &job,
        prices: &prices,
        last_tick: spec.last_tick,
        baseline: baseline[i],
    };
    let n_custom = custom.len();
    let mut rows: Vec<Vec<SpotRow>> = windows
        .par_iter()
        .map(|&(i, start)| {
            let w = context(i, start);
            let mut rows = Vec::with_capacity(spec.policies.len() + n_custom);
            for p in &spec.policies {
                rows.push(w.row(p.build(&prices).as_mut())?);
            }
            if n_custom == 0 {
                progress.tick();
            }
            Ok(rows)
        })
        .collect::<Result<_, SpotError>>()?;
    if !custom.is_empty() {
        for (k, &(i, start)) in windows.iter().enumerate() {
            let w = context(i, start);
            for p in custom.iter_mut() {
                rows[k].push(w.row(p.as_mut())?);
            }
            progress.tick();
        }
    }
    for (r, &(i, _)) in rows.iter_mut().zip(&windows) {
        gaps(r);
        let horizon_s = job.horizon_ticks(source.traces[i].gap_s) as f64 * source.traces[i].gap_s;
        check_optimum(r, horizon_s, spec.last_tick)?;
    }
    Ok(rows.into_iter().flatten().collect())
}

/// One window and what every row of it shares.
struct Window<'a> {
    traces: &'a str,
    trace: &'a Trace,
    start: usize,
    availability: &'a [bool],
    /// The trace's spot price per tick from the window's start, $/h, when it has them.
    spot_prices: Option<&'a [f64]>,
    job: &'a Job,
    prices: &'a Prices,
    last_tick: LastTick,
    baseline: f64,
}

impl Window<'_> {
    /// Runs `policy` on the window: its row.
    fn row(&self, policy: &mut dyn SpotPolicy) -> Result<SpotRow, SpotError> {
        let (job, g) = (self.job, self.trace.gap_s);
        let o = sim::run(
            policy,
            job,
            self.prices,
            self.spot_prices,
            self.availability,
            g,
            self.last_tick,
        )?;
        let horizon = job.horizon_ticks(g).min(self.availability.len());
        let spot_pct = 100.0 * self.availability[..horizon].iter().filter(|&&a| a).count() as f64
            / horizon.max(1) as f64;
        // Rows carry micro-dollars, micro-hours and 1e-4 percent: the same text on every
        // platform, and shipped result files a third of the size.
        let (usd, h, pct) = (|x| round(x, 6), |x| round(x, 6), |x| round(x, 4));
        Ok(SpotRow {
            traces: self.traces.to_string(),
            trace: self.trace.name.clone(),
            window: self.start,
            job_fraction: job.fraction(),
            deadline: if job.fraction() > 0.75 {
                "tight"
            } else {
                "loose"
            }
            .into(),
            window_spot_pct: pct(spot_pct),
            spot: if spot_pct > 50.0 { "high" } else { "low" }.into(),
            changeover_h: job.changeover_s / 3600.0,
            instances: job.instances,
            policy: policy.name(),
            cost_usd: usd(o.cost_usd),
            on_demand_h: h(o.on_demand_h),
            spot_h: h(o.spot_h),
            on_demand_work_h: h(o.on_demand_work_h),
            spot_work_h: h(o.spot_work_h),
            changeovers: o.changeovers,
            preemptions: o.preemptions,
            finish_h: h(o.finish_h),
            deadline_met: o.deadline_met,
            savings_pct: pct(100.0 * (1.0 - o.cost_usd / self.baseline)),
            gap_pct: None,
            quick_gap_pct: None,
        })
    }
}

/// One tick of one (window, policy) run: what `--history` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    /// Where the traces came from.
    pub traces: String,
    /// The zone's trace.
    pub trace: String,
    /// The window's first tick in the trace.
    pub window: usize,
    /// The policy.
    pub policy: String,
    /// The tick, from 0 at the job's start.
    pub tick: usize,
    /// Whether spot could be had in it.
    pub spot_available: bool,
    /// Whether the job lost its spot capacity at the tick's start.
    pub preempted: bool,
    /// `idle`, `spot` or `on-demand`.
    pub mode: String,
    /// Progress by the tick's end, hours.
    pub work_done_h: f64,
    /// The bill by the tick's end, dollars.
    pub cost_usd: f64,
}

/// Every tick of every (window, policy) run of `spec`, in the order of [`run`]'s rows: a
/// per-tick history to see what a policy did and when (the runs are those of [`run`],
/// made again with a recorder).
///
/// # Errors
/// As [`run`].
pub fn history(spec: &SpotSpec) -> Result<Vec<HistoryRow>, SpotError> {
    spec.check()?;
    let source = spec.source()?;
    let job = spec.job();
    let prices = spec.prices();
    let (windows, avails) = windows_of(spec, &source, &job)?;
    let mut out = Vec::new();
    let mut ticks = Vec::new();
    for (i, start) in windows {
        let t = &source.traces[i];
        for p in &spec.policies {
            let mut policy = p.build(&prices);
            ticks.clear();
            sim::run_traced(
                policy.as_mut(),
                &job,
                &prices,
                window_prices(t, start),
                &avails[i][start..],
                t.gap_s,
                spec.last_tick,
                Some(&mut ticks),
            )?;
            out.extend(ticks.iter().map(|k| HistoryRow {
                traces: source.label.clone(),
                trace: t.name.clone(),
                window: start,
                policy: policy.name(),
                tick: k.tick,
                spot_available: k.spot_available,
                preempted: k.preempted,
                mode: k.mode.name().to_string(),
                work_done_h: round(k.work_done_h, 6),
                cost_usd: round(k.cost_usd, 6),
            }));
        }
    }
    Ok(out)
}

/// A trace's spot price per tick from `start` on, $/h, when it has them (a window's ticks
/// are billed at these; see [`sim::run`]).
fn window_prices(trace: &Trace, start: usize) -> Option<&[f64]> {
    trace
        .prices
        .as_deref()
        .map(|p| p.get(start..).unwrap_or(&[]))
}

/// The (trace, first tick) of every window of `spec` in trace order, and each trace's
/// availability to the gang, after checking the job against each trace (and, when an
/// exact policy runs, that its optimum can be computed: refused before the first window,
/// naming the setting, not after many).
type Windows = (Vec<(usize, usize)>, Vec<Vec<bool>>);

fn windows_of(spec: &SpotSpec, source: &Source, job: &Job) -> Result<Windows, SpotError> {
    let min_left_s = spec
        .min_trace_left_h
        .map(|h| h * 3600.0)
        .unwrap_or(job.deadline_s.max(120.0 * 3600.0));
    let exact = spec.policies.iter().any(|p| {
        matches!(
            p,
            SpotPolicySpec::Omniscient | SpotPolicySpec::OmniscientLookahead(_)
        )
    });
    let (mut windows, mut avails) = (Vec::new(), Vec::new());
    for (i, t) in source.traces.iter().enumerate() {
        job.check(t.gap_s)?;
        if exact {
            crate::optimum::check_solvable(job, t.gap_s)?;
        }
        avails.push(t.availability(spec.instances));
        let starts = match spec.start_h {
            Some(h) => vec![trace::start_at(t, h * 3600.0, min_left_s)?],
            None => trace::window_starts(t, i, spec.window_count(), min_left_s, spec.seed)?,
        };
        windows.extend(starts.into_iter().map(|s| (i, s)));
    }
    Ok((windows, avails))
}

/// Each row's gap to the omniscient optimum of its window and to the quick-optimal
/// heuristic, when they ran.
fn gaps(rows: &mut [SpotRow]) {
    let cost_of = |rows: &[SpotRow], p: SpotPolicySpec| {
        let name = p.to_string();
        rows.iter().find(|r| r.policy == name).map(|r| r.cost_usd)
    };
    let best = cost_of(rows, SpotPolicySpec::Omniscient);
    let quick = cost_of(rows, SpotPolicySpec::QuickOptimal(1));
    for r in rows {
        r.gap_pct = best.map(|b| round(100.0 * (r.cost_usd / b - 1.0), 4));
        r.quick_gap_pct = quick.map(|q| round(100.0 * (r.cost_usd / q - 1.0), 4));
    }
}

/// The runner's own check that the exact optimum is what it says: on one window, no policy
/// that finished within the optimum's horizon (the T whole ticks before the deadline) pays
/// less than `omniscient` (1 µ$ of rounding allowed). Not checked with a prorated last tick,
/// whose bill the DP (whole ticks) does not minimise.
///
/// # Errors
/// [`SpotError::Policy`] naming the window and the policy: a bug of the optimum, never a
/// row to report.
fn check_optimum(rows: &[SpotRow], horizon_s: f64, last_tick: LastTick) -> Result<(), SpotError> {
    let name = SpotPolicySpec::Omniscient.to_string();
    let Some(best) = rows.iter().find(|r| r.policy == name) else {
        return Ok(());
    };
    if last_tick != LastTick::Whole {
        return Ok(());
    }
    match rows
        .iter()
        .find(|r| r.finish_h * 3600.0 <= horizon_s + 1e-3 && r.cost_usd < best.cost_usd - 1e-6)
    {
        Some(r) => Err(SpotError::Policy(format!(
            "trace {} window {}: {} costs ${} < the omniscient optimum's ${}: the optimum is \
             wrong",
            r.trace, r.window, r.policy, r.cost_usd, best.cost_usd
        ))),
        None => Ok(()),
    }
}

/// `x` rounded to `decimals` decimals (0 for −0).
fn round(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f + 0.0
}

/// The on-demand-only bill of `job` at each trace's tick length: ⌈(C(0) + d)/g⌉ ticks.
fn on_demand_cost(job: &Job, prices: &Prices, traces: &[Trace]) -> Vec<f64> {
    traces
        .iter()
        .map(|t| {
            let ticks = crate::model::ceil_ticks(job.work_s + job.changeover_s, t.gap_s);
            ticks as f64 * t.gap_s / 3600.0 * prices.on_demand_per_h * f64::from(job.instances)
        })
        .collect()
}
