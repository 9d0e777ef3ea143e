//! A published multi-zone scenario, every policy on every window: [`ZonesSpec`] → one
//! [`ZoneRow`] per (window, policy), what every face runs (`frugal zones`, experiment files).
//!
//! Each row carries the published cost of the same arm on the same window where the
//! artifact stored one (`data/skynomad/published.csv`, its `research/data` sweeps), and its
//! gap to frugal's exact optimum when that ran. The runner refuses a result in which the
//! exact optimum is above any policy on any window: that would be a wrong optimum, never a
//! number to print.

use frugal_core::spec::Choice;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::SpotError;
use crate::zones::env::{ZonePolicy, run, run_recorded};
use crate::zones::model::{FinalTick, Setting};
pub use crate::zones::policy::ZonePolicyName;
use crate::zones::scenario::{self, Scenario, artifact_start_tick};

frugal_core::choice! {
    /// The published scenarios by name.
    pub enum ScenarioName {
        V100 = "v100": "Fig 9b: three AWS V100 zones (us-east-1c, us-east-2b, us-west-2a), 195-s ticks",
        H100GlobalDiverse = "h100-global-diverse": "Figs 9a, 10a, 12: six GCP H100 zones of three continents, 600-s ticks",
        H100Progressive = "h100-progressive": "Fig 10b: the 13 H100 zones in the order the region-scaling sweep adds them (first_zones: the first n), ratio 1.2",
        H100Us = "h100-us": "Fig 15: the 8 US H100 zones, ratio 1.2",
        H100Europe = "h100-europe": "Fig 15: the 2 European H100 zones, ratio 1.2",
        H100Asia = "h100-asia": "Fig 15: the 3 Asian H100 zones, ratio 1.2",
        H100Global = "h100-global": "Fig 15: all 13 H100 zones, alphabetical, ratio 1.2",
        V100FourNode = "v100-4node": "Table 2: three AWS V100 zones of a 4-node capture, 600-s ticks, 12 windows per ratio (1.5, 2.0)",
        H100EightZone = "h100-8zone": "Table 2: Fig 2's eight GCP H100 zones, 12 windows per ratio (1.5, 2.0)",
    }
}

impl ScenarioName {
    /// Its settings.
    pub fn scenario(self) -> &'static Scenario {
        match self {
            ScenarioName::V100 => &scenario::V100,
            ScenarioName::H100GlobalDiverse => &scenario::H100_GLOBAL_DIVERSE,
            ScenarioName::H100Progressive => &scenario::H100_PROGRESSIVE,
            ScenarioName::H100Us => &scenario::H100_US,
            ScenarioName::H100Europe => &scenario::H100_EUROPE,
            ScenarioName::H100Asia => &scenario::H100_ASIA,
            ScenarioName::H100Global => &scenario::H100_GLOBAL,
            ScenarioName::V100FourNode => &scenario::V100_4NODE,
            ScenarioName::H100EightZone => &scenario::H100_8ZONE,
        }
    }
}

fn all_policies() -> Vec<ZonePolicyName> {
    <ZonePolicyName as Choice>::ALL.to_vec()
}

/// What `frugal zones` and experiment files run (the fields are the file's keys).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ZonesSpec {
    /// The published scenario: zones, deadline, windows.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<ScenarioName>(), default_value = "v100"))]
    pub scenario: ScenarioName,
    /// The policies, comma-separated, in row order.
    #[serde(default = "all_policies")]
    #[cfg_attr(feature = "clap", arg( long, value_delimiter = ',', value_parser = frugal_core::flags::choice::<ZonePolicyName>(), default_value = "optimal,up-s,up-a,up-ap" ))]
    pub policies: Vec<ZonePolicyName>,
    /// Only the scenario's first N zones, in its order (Fig 10b adds the zones of
    /// `h100-progressive` one at a time) [default: all].
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub first_zones: Option<usize>,
    /// T/P, the deadline over the work [default: the scenario's: 1.5, or 1.2 for the
    /// Fig 10b and 15 scenarios].
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub ratio: Option<f64>,
    /// S, the checkpoint's size in GB [default: 50].
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub checkpoint_gb: Option<f64>,
    /// What the cost reports: `bill` (the true bill) or `omit` (the artifact's figures: the
    /// tick the job finishes in left out).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<FinalTick>(), default_value = "bill"))]
    pub final_tick: FinalTick,
    /// Only the first N windows [default: all of the scenario's].
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub windows: Option<usize>,
    /// Bill single-zone UP's spot tick i at tick i + 1's price, as the artifact's
    /// single-zone environment does (its usage history runs one tick behind the price
    /// series it indexes; spec §2.3's "UP" bar). Off: every tick at its own price.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub single_zone_price_lag: bool,
    /// Bill a probe of the zone where the job's own instance runs as the artifact's
    /// environment does: not at all beside on-demand; beside spot, the instance's tick as
    /// the probe's 60 s. Off: the probe is billed 60 s of spot like any other.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub artifact_probe_billing: bool,
}

impl ZonesSpec {
    /// Checks the fields; errors name the field.
    ///
    /// # Errors
    /// [`SpotError::Input`]: no policy, a ratio below 1 or not finite, a negative or
    /// non-finite checkpoint size, no window.
    pub fn check(&self) -> Result<(), SpotError> {
        if self.policies.is_empty() {
            return Err(SpotError::Input("policies: none given".into()));
        }
        self.check_setting()
    }

    /// The checks of [`ZonesSpec::check`] but the policies'.
    fn check_setting(&self) -> Result<(), SpotError> {
        if let Some(r) = self.ratio
            && !(r.is_finite() && r >= 1.0)
        {
            return Err(SpotError::Input(format!(
                "ratio: {r} must be at least 1 (T/P)"
            )));
        }
        if let Some(s) = self.checkpoint_gb
            && !(s.is_finite() && s >= 0.0)
        {
            return Err(SpotError::Input(format!(
                "checkpoint_gb: {s} must be at least 0"
            )));
        }
        if self.windows == Some(0) {
            return Err(SpotError::Input("windows: at least 1".into()));
        }
        let zones = self.scenario.scenario().zones.len();
        if let Some(n) = self.first_zones
            && !(1..=zones).contains(&n)
        {
            return Err(SpotError::Input(format!(
                "first_zones: {n} is not between 1 and {zones} ({} has {zones} zones)",
                self.scenario
            )));
        }
        Ok(())
    }
}

/// One run: a policy on a window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneRow {
    /// The scenario.
    pub scenario: String,
    /// T/P.
    pub ratio: f64,
    /// The window's first tick as the paper's sweep names it.
    pub window: usize,
    /// The policy.
    pub policy: String,
    /// The zone a single-zone policy ran in (empty for a multi-zone one).
    pub zone: String,
    /// The cost as `final_tick` reports it, dollars.
    pub cost_usd: f64,
    /// The true bill (every tick billed), dollars.
    pub bill_usd: f64,
    /// Egress, dollars.
    pub egress_usd: f64,
    /// Probes, dollars.
    pub probe_usd: f64,
    /// Launches.
    pub starts: u32,
    /// Starts in another zone than the checkpoint's.
    pub migrations: u32,
    /// Spot instances lost.
    pub preemptions: u32,
    /// When the job finished, hours after its start.
    pub finish_h: f64,
    /// cost − the exact optimum's cost on the window, dollars (when the optimum ran).
    pub gap_usd: Option<f64>,
    /// The artifact's stored cost of the same arm on the same window (the exact optimum is
    /// compared with the artifact's approximate "Optimal"), dollars.
    pub published_usd: Option<f64>,
    /// cost − published, dollars.
    pub diff_published_usd: Option<f64>,
    /// How the row was made: `simulated`, or `infeasible rule` when P + d > T (nothing
    /// runs; the cost is min_z o_z·(P + d)/3600, as the artifact reports it).
    pub note: String,
}

/// One tick of one run, as `frugal zones --history` writes it (the state after the policy
/// acted on the tick).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    /// The scenario's name.
    pub scenario: String,
    /// T/P.
    pub ratio: f64,
    /// The window's first tick.
    pub window: usize,
    /// The policy.
    pub policy: String,
    /// Single-zone UP: the zone it ran alone in; else empty.
    pub run_zone: String,
    /// The tick i (from the window's start).
    pub tick: usize,
    /// The zone of the instance that runs through the tick; empty when idle.
    pub zone: String,
    /// `idle`, `spot` or `on-demand`.
    pub mode: String,
    /// Whether a spot instance was preempted at the tick's start.
    pub preempted: bool,
    /// Probes made in the tick.
    pub probes: u32,
    /// Whether the safety net has the tick.
    pub safety_net: bool,
    /// Work done by the tick's start, hours.
    pub work_done_h: f64,
    /// The bill settled by the tick's start, dollars.
    pub bill_usd: f64,
}

/// The arm of the artifact's stored results that `p` is compared with on scenario `sc`
/// (frugal's exact optimum with the artifact's approximate "Optimal"; each SkyNomad arm
/// where the scenario's sweep ran it), if any. Its name is the artifact's arm in
/// `data/skynomad/published.csv` and `fresh-run.csv`.
pub fn published_arm(sc: &Scenario, p: ZonePolicyName) -> Option<&'static str> {
    use ZonePolicyName as P;
    match p {
        P::Optimal => Some("artifact-optimal"),
        P::SkyNomad | P::SkyNomadO if sc.skynomad_rate_ratio => None,
        P::SkyNomadRate | P::SkyNomadORate if !sc.skynomad_rate_ratio => None,
        P::SkyNomad | P::SkyNomadRate => Some("skynomad"),
        P::SkyNomadO | P::SkyNomadORate => Some("skynomad-oracle"),
        other => Some(other.name()),
    }
}

/// The artifact's stored results (`data/skynomad/published.csv`), embedded.
const PUBLISHED: &str = include_str!("../../../../data/skynomad/published.csv");

/// The published cost of `arm` (in `zone` for a single-zone arm, else "") on `window` of
/// scenario `sc` with its zones (the first n of a scenario's), ratio and checkpoint size.
fn published(sc: &Scenario, window: usize, arm: &str, zone: &str) -> Option<f64> {
    let near = |x: &str, y: f64| x.parse::<f64>().ok().is_some_and(|x| (x - y).abs() < 1e-9);
    PUBLISHED.lines().skip(1).find_map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        let matches = f.len() == 9
            && f[0] == sc.name
            && f[1].parse::<usize>().ok() == Some(sc.zones.len())
            && near(f[2], sc.ratio)
            && near(f[3], sc.checkpoint_gb)
            && f[4].parse::<usize>().ok() == Some(window)
            && f[5] == arm
            && f[6] == zone;
        matches.then(|| f[7].parse().ok()).flatten()
    })
}

/// Runs every policy of `spec` on every window, windows in parallel; rows by window, then
/// policy.
///
/// # Errors
/// A bad spec ([`ZonesSpec::check`], [`Setting::check`]); a policy's error; the exact
/// optimum above a policy on a window ([`SpotError::Policy`]: a bug, never printed as a
/// result).
pub fn run_spec(spec: &ZonesSpec) -> Result<Vec<ZoneRow>, SpotError> {
    run_spec_with(spec, &[])
}

/// Makes a fresh instance of a policy of the caller's (one per window).
pub type PolicyFactory = dyn Fn() -> Box<dyn ZonePolicy> + Sync;

/// As [`run_spec`], with the caller's own policies after the spec's, each a row per window
/// under its name (no published value; its gap to the exact optimum when `optimal` runs).
///
/// # Errors
/// As [`run_spec`]; a custom name that is empty, that of a built-in policy, or given twice.
pub fn run_spec_with(
    spec: &ZonesSpec,
    custom: &[(String, &PolicyFactory)],
) -> Result<Vec<ZoneRow>, SpotError> {
    run_spec_recorded(spec, custom, false).map(|(rows, _)| rows)
}

/// As [`run_spec_with`], with every run's per-tick history when `record` (else none).
///
/// # Errors
/// As [`run_spec_with`].
pub fn run_spec_recorded(
    spec: &ZonesSpec,
    custom: &[(String, &PolicyFactory)],
    record: bool,
) -> Result<(Vec<ZoneRow>, Vec<HistoryRow>), SpotError> {
    if custom.is_empty() {
        spec.check()?;
    } else {
        spec.check_setting()?;
    }
    for (k, (name, _)) in custom.iter().enumerate() {
        if name.is_empty() || ZonePolicyName::ALL.iter().any(|p| p.name() == name) {
            return Err(SpotError::Input(format!(
                "custom: {name:?} is empty or the name of a built-in policy"
            )));
        }
        if custom[..k].iter().any(|(n, _)| n == name) {
            return Err(SpotError::Input(format!(
                "custom: {name:?} given twice (one name, one policy)"
            )));
        }
    }
    let mut sc = spec.scenario.scenario().clone();
    if let Some(n) = spec.first_zones {
        sc.zones = &sc.zones[..n];
    }
    if let Some(r) = spec.ratio {
        sc.ratio = r;
    }
    if let Some(s) = spec.checkpoint_gb {
        sc.checkpoint_gb = s;
    }
    let traces = sc.embedded_traces()?;
    let starts: Vec<usize> = sc
        .windows()
        .iter()
        .copied()
        .take(spec.windows.unwrap_or(usize::MAX))
        .collect();
    type Window = Result<(Vec<ZoneRow>, Vec<HistoryRow>), SpotError>;
    let per_window: Vec<Window> = starts
        .par_iter()
        .map(|&start| {
            let tick = artifact_start_tick(start, traces[0].gap_s);
            let mut setting = sc.setting(&traces, tick, spec.final_tick);
            setting.artifact_probe_billing = spec.artifact_probe_billing;
            window_rows(spec, &sc, start, &setting, custom, record)
        })
        .collect();
    let mut rows = Vec::new();
    let mut history = Vec::new();
    for r in per_window {
        let (r, h) = r?;
        rows.extend(r);
        history.extend(h);
    }
    Ok((rows, history))
}

/// The artifact's infeasible rule (no time for a cold start): every arm reports
/// min_z o_z·(P + d)/3600.
fn infeasible_outcome(s: &Setting) -> crate::zones::ZoneOutcome {
    let job = &s.job;
    let od = s
        .zones
        .iter()
        .map(|z| z.on_demand_per_h)
        .fold(f64::INFINITY, f64::min);
    let cost = od * (job.work_s + job.changeover_s) / 3600.0;
    crate::zones::ZoneOutcome {
        cost_usd: cost,
        bill_usd: cost,
        finish_h: (job.work_s + job.changeover_s) / 3600.0,
        ..Default::default()
    }
}

impl ZoneRow {
    fn of(
        sc: &Scenario,
        window: usize,
        policy: &str,
        zone: String,
        o: &crate::zones::ZoneOutcome,
        published: Option<f64>,
        note: &str,
    ) -> ZoneRow {
        ZoneRow {
            scenario: sc.name.to_string(),
            ratio: sc.ratio,
            window,
            policy: policy.to_string(),
            zone,
            cost_usd: o.cost_usd,
            bill_usd: o.bill_usd,
            egress_usd: o.egress_usd,
            probe_usd: o.probe_usd,
            starts: o.starts,
            migrations: o.migrations,
            preemptions: o.preemptions,
            finish_h: o.finish_h,
            gap_usd: None,
            published_usd: published,
            diff_published_usd: published.map(|x| o.cost_usd - x),
            note: note.into(),
        }
    }
}

fn window_rows(
    spec: &ZonesSpec,
    sc: &Scenario,
    start: usize,
    setting: &Setting,
    custom: &[(String, &PolicyFactory)],
    record: bool,
) -> Result<(Vec<ZoneRow>, Vec<HistoryRow>), SpotError> {
    let job = &setting.job;
    let mut history = Vec::new();
    let mut go = |policy: &mut dyn ZonePolicy, s: &Setting, name: &str, zone: &str| {
        if !record {
            return run(policy, s);
        }
        let (o, ticks) = run_recorded(policy, s)?;
        history.extend(ticks.into_iter().map(|t| HistoryRow {
            scenario: sc.name.to_string(),
            ratio: sc.ratio,
            window: start,
            policy: name.to_string(),
            run_zone: zone.to_string(),
            tick: t.tick,
            zone: t.zone.map(|z| s.zones[z].name.clone()).unwrap_or_default(),
            mode: t.mode.name().to_string(),
            preempted: t.preempted,
            probes: t.probes,
            safety_net: t.safety_net,
            work_done_h: t.work_done_s / 3600.0,
            bill_usd: t.bill_usd,
        }));
        Ok(o)
    };
    let infeasible = job.work_s + job.changeover_s > job.deadline_s;
    let mut rows = Vec::new();
    let arms = spec
        .policies
        .iter()
        .map(|&p| Ok(p))
        .chain(custom.iter().map(Err));
    for arm in arms {
        let p = match arm {
            Ok(p) => p,
            Err((name, make)) => {
                let o = if infeasible {
                    infeasible_outcome(setting)
                } else {
                    setting.check()?;
                    go(make().as_mut(), setting, name, "")?
                };
                rows.push(ZoneRow::of(
                    sc,
                    start,
                    name,
                    String::new(),
                    &o,
                    None,
                    "simulated",
                ));
                continue;
            }
        };
        // Single-zone UP runs in each zone alone, its final tick billed (the artifact's
        // single-zone loop); every other policy runs once on all zones.
        let runs: Vec<(String, Setting)> = if p == ZonePolicyName::Up {
            (0..setting.zones.len())
                .map(|z| {
                    let mut one = setting.only(z);
                    one.final_tick = FinalTick::Bill;
                    if spec.single_zone_price_lag {
                        let p = &mut one.zones[0].spot_per_h;
                        if p.len() > 1 {
                            p.remove(0);
                            p.push(*p.last().unwrap_or(&0.0));
                        }
                    }
                    (setting.zones[z].name.clone(), one)
                })
                .collect()
        } else {
            vec![(String::new(), setting.clone())]
        };
        for (zone, s) in runs {
            let (o, note) = if infeasible {
                (infeasible_outcome(&s), "infeasible rule")
            } else {
                s.check()?;
                (go(p.build().as_mut(), &s, p.name(), &zone)?, "simulated")
            };
            let published = published_arm(sc, p).and_then(|arm| published(sc, start, arm, &zone));
            rows.push(ZoneRow::of(sc, start, p.name(), zone, &o, published, note));
        }
    }
    if let Some(best) = rows
        .iter()
        .find(|r| r.policy == "optimal")
        .map(|r| r.cost_usd)
    {
        for r in &mut rows {
            if r.cost_usd < best - 1e-9 {
                return Err(SpotError::Policy(format!(
                    "{} window {start}: {} costs ${:.6}, below the exact optimum's ${best:.6} \
                     (a wrong optimum: a bug)",
                    sc.name, r.policy, r.cost_usd
                )));
            }
            r.gap_usd = Some(r.cost_usd - best);
        }
    }
    Ok((rows, history))
}
