//! Contention between co-located jobs: a fluid processor-sharing model of run times on a
//! busy cluster — frugal's extension, off by default, so that every claim judged in a
//! paper's setting keeps that paper's duration model (none of the papers has a term for
//! jobs slowing each other).
//!
//! # The model
//!
//! The VMs are grouped into contention domains ([`Scope`]): the whole cluster, as on a
//! testbed whose VMs share the same physical cores, or one domain per site. A domain d
//! has a capacity κ ([`ContentionModel::capacity`]) in load units ([`LoadUnit`]). Its
//! load L_d(t) is the sum, over the jobs that have started and not ended, of each job's
//! load in d: 1 per job with executors in d (`jobs`), or the cores of its executors in d
//! (`cores`). A job j progresses at the rate
//!
//! ```text
//! r_j(t) = min over the domains d holding its executors of ρ(L_d(t)),
//! ρ(L)   = 1 / (1 + β · max(0, L − κ))
//! ```
//!
//! solo seconds per second. Without a slope β ([`ContentionModel::slope`]), β = 1/κ and
//! ρ(L) = min(1, κ / L): processor sharing of the capacity. With a slope, each load unit
//! above κ adds β to the run time's multiplier: the additive co-runner form of
//! interference models (Pythia, Middleware'18, one term per co-runner; κ = 1, β = 0.13
//! is 1.13× with two jobs and 1.39× with four), which a testbed whose slowdown grows
//! gradually with every job (start-ups, drivers) fits better than a hard capacity. Its work is the run time the duration model gives its
//! placement ([`crate::DurationModel::duration`]: T_C^L or T_C^H with the kind penalty),
//! so a job alone, or on a domain at or below capacity, runs exactly that long; above
//! capacity the domain's capacity is shared in proportion to load (processor sharing, as
//! in SimGrid's fluid models and DSLab's throughput sharing). At every start and end the
//! rates change, each running job's remaining work W_j (solo seconds) is reduced by
//! ∫ r_j dt, and each predicted end is recomputed as if no other job were to arrive.
//!
//! Anchor: on the live testbed (book: Live runs) jobs ran 0.98×, 1.16× and 1.62× their
//! solo run time with about 2, 3 and 4 jobs at once; κ = 2.5 jobs gives 1.0×, 1.2× and
//! 1.6×.
//!
//! # Semantics that change numbers
//!
//! - A job that spans domains runs at its bottleneck's rate; what it leaves unused of its
//!   other domains goes to nobody (no max-min redistribution). With one domain
//!   (`scope = "cluster"`) the model is exact processor sharing.
//! - A job counts in the load from its start (after its VMs boot), not from its placement.
//! - A job whose work ran out but whose end the driver has not reported (a real job
//!   overrunning its estimate) keeps its load until the driver ends it; its predicted end
//!   is then the current instant.
//! - Ends are predicted with the jobs known now; a later arrival moves them, and the
//!   controller reports each moved end ([`crate::control::Effect::Changed`]).
//!
//! Cost: a projection is O(k²) in the k jobs running (at most 2k rate changes of O(k)
//! each); the controller makes one per pass that starts jobs and one per job end while the
//! model is on, and none when it is off.

use serde::{Deserialize, Serialize};

use crate::cluster::{Cluster, Site};
use crate::placement::Placement;
use crate::resources::Resources;

/// How many domains a scope can have (one per site at most).
pub const DOMAINS: usize = 2;

/// Work below this many solo seconds is done (float noise from sums of rates × times).
const DONE_S: f64 = 1e-9;

/// Which VMs share one capacity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Every VM of the cluster shares one capacity (a testbed whose VMs run on the same
    /// physical cores as each other and as the control plane).
    #[default]
    Cluster,
    /// Each site's VMs share one capacity.
    Site,
}

impl Scope {
    /// The domain of a VM on `site`.
    fn domain(self, site: Site) -> usize {
        match self {
            Scope::Cluster => 0,
            Scope::Site => match site {
                Site::Local => 0,
                Site::Cloud => 1,
            },
        }
    }
}

/// What a running job adds to its domains' load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadUnit {
    /// 1 per job with executors in the domain (its driver and executors alike: what the
    /// testbed measures).
    #[default]
    Jobs,
    /// The cores of the job's executors in the domain.
    Cores,
}

/// The contention model's parameters (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentionModel {
    /// Which VMs share a capacity.
    #[serde(default)]
    pub scope: Scope,
    /// The unit of load and capacity.
    #[serde(default)]
    pub load: LoadUnit,
    /// κ: the load a domain carries at full speed, in `load` units (> 0).
    pub capacity: f64,
    /// β: how much each load unit above κ adds to a job's run-time multiplier (≥ 0);
    /// `None`: 1/κ, processor sharing (module doc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slope: Option<f64>,
}

impl ContentionModel {
    /// Checks the parameters.
    ///
    /// # Errors
    /// Names the field: `capacity` must be finite and positive, `slope` finite and ≥ 0.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.capacity.is_finite() && self.capacity > 0.0) {
            return Err(format!(
                "capacity: must be a positive number of load units, got {}",
                self.capacity
            ));
        }
        if let Some(b) = self.slope
            && !(b.is_finite() && b >= 0.0)
        {
            return Err(format!(
                "slope: must be a number ≥ 0 (run-time multiplier per load unit above capacity), got {b}"
            ));
        }
        Ok(())
    }

    /// ρ(L): the rate of a job in a domain of load `load` (module doc), in (0, 1].
    #[inline]
    pub fn rate(&self, load: f64) -> f64 {
        let over = (load - self.capacity).max(0.0);
        match self.slope {
            None if over > 0.0 => self.capacity / load,
            None => 1.0,
            Some(b) => 1.0 / (1.0 + b * over),
        }
    }

    /// Parses a contention file (TOML: `scope`, `load`, `capacity`, an optional `slope`,
    /// and an optional `[fit]` table that calibration writes for the reader).
    ///
    /// # Errors
    /// Names `what` (the file) and the field at fault.
    pub fn from_toml(text: &str, what: &str) -> Result<ContentionModel, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            #[serde(default)]
            scope: Scope,
            #[serde(default)]
            load: LoadUnit,
            capacity: f64,
            #[serde(default)]
            slope: Option<f64>,
            /// What calibration found (read by people, not by the model).
            #[serde(default)]
            #[allow(dead_code)]
            fit: Option<toml::Table>,
        }
        let f: File = toml::from_str(text).map_err(|e| format!("{what}: {e}"))?;
        let m = ContentionModel {
            scope: f.scope,
            load: f.load,
            capacity: f.capacity,
            slope: f.slope,
        };
        m.validate().map_err(|e| format!("{what}: {e}"))?;
        Ok(m)
    }

    /// Reads a contention file ([`ContentionModel::from_toml`]).
    ///
    /// # Errors
    /// Names the file, and the field at fault.
    pub fn read(path: &std::path::Path) -> Result<ContentionModel, String> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        ContentionModel::from_toml(&text, &name)
    }

    /// The TOML of this model (what [`ContentionModel::from_toml`] reads).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a contention model serializes")
    }

    /// The load `placement` of executors of `demand` adds to each domain.
    pub fn load_of(
        &self,
        cluster: &Cluster,
        placement: &Placement,
        demand: &Resources,
    ) -> [f64; DOMAINS] {
        let mut load = [0.0; DOMAINS];
        for &(vm, n) in &placement.executors_per_vm {
            let d = self.scope.domain(cluster.vm(vm).site);
            match self.load {
                LoadUnit::Jobs => load[d] = 1.0,
                LoadUnit::Cores => load[d] += f64::from(n * demand.cores()),
            }
        }
        load
    }

    /// The solo-run-time multiplier of jobs running together from start to end in a
    /// domain of load `load`: 1 / ρ(load) (the module doc's rate, constant while the set
    /// does not change); max(1, load / κ) without a slope.
    pub fn slowdown(&self, load: f64) -> f64 {
        1.0 / self.rate(load)
    }
}

/// The load on each contention domain at one instant, as a placement policy sees it
/// ([`crate::PlacementPolicy::observe_load`]): the running jobs' load, and, during a
/// scheduling pass, the jobs placed earlier in the pass (a placed job counts from its
/// placement here, while the fluid counts it from its start: a policy deciding now must
/// see the jobs whose VMs still boot).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Load {
    /// The model the load is measured in.
    pub model: ContentionModel,
    /// L_d per domain, in the model's load units.
    pub load: [f64; DOMAINS],
    /// Jobs counted in `load`.
    pub jobs: u32,
}

impl Load {
    /// No job yet.
    pub fn idle(model: ContentionModel) -> Load {
        Load {
            model,
            load: [0.0; DOMAINS],
            jobs: 0,
        }
    }

    /// Counts a job placed as `placement` (executors of `demand`).
    pub fn add(&mut self, cluster: &Cluster, placement: &Placement, demand: &Resources) {
        let added = self.model.load_of(cluster, placement, demand);
        for (l, a) in self.load.iter_mut().zip(added) {
            *l += a;
        }
        self.jobs += 1;
    }

    /// The run-time multiplier a job adding `added` to the domains would run at from its
    /// start, if the set of jobs did not change: the largest 1/ρ(L_d + added_d) over the
    /// domains it loads (1 if it loads none).
    pub fn slowdown_with(&self, added: [f64; DOMAINS]) -> f64 {
        (0..DOMAINS)
            .filter(|&d| added[d] > 0.0)
            .map(|d| self.model.slowdown(self.load[d] + added[d]))
            .fold(1.0, f64::max)
    }

    /// The domain of a VM on `site` ([`Scope`]).
    pub fn domain(&self, site: Site) -> usize {
        self.model.scope.domain(site)
    }
}

/// One job in the fluid.
#[derive(Clone, Debug)]
struct FluidJob {
    idx: usize,
    /// When it starts to load its domains (its VMs are ready).
    start: f64,
    /// Remaining work, solo seconds (unknown for a restored job until settled).
    work: f64,
    /// A restored job's stored end, from which its work is solved.
    restored_end: Option<f64>,
    load: [f64; DOMAINS],
}

/// The jobs running under a [`ContentionModel`], their remaining work accounted up to
/// an instant; see the module doc.
#[derive(Clone, Debug)]
pub struct Fluid {
    model: ContentionModel,
    jobs: Vec<FluidJob>,
    /// Work is accounted up to here.
    at: f64,
    /// Scratch: rates and membership of one sweep step.
    rates: Vec<f64>,
}

impl Fluid {
    /// No job yet, accounted from −∞ (the first [`Fluid::advance`] sets the clock).
    pub fn new(model: ContentionModel) -> Fluid {
        Fluid {
            model,
            jobs: Vec::new(),
            at: f64::NEG_INFINITY,
            rates: Vec::new(),
        }
    }

    /// The parameters.
    pub fn model(&self) -> &ContentionModel {
        &self.model
    }

    /// The number of jobs started or about to start.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// The jobs in the fluid, in the order they were added.
    pub fn jobs(&self) -> impl Iterator<Item = usize> + '_ {
        self.jobs.iter().map(|j| j.idx)
    }

    /// True if no job runs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The load of every job in the fluid, started or still booting ([`Load`]).
    pub fn load(&self) -> Load {
        let mut l = Load::idle(self.model);
        for j in &self.jobs {
            for (d, w) in l.load.iter_mut().zip(j.load) {
                *d += w;
            }
            l.jobs += 1;
        }
        l
    }

    /// Accounts every job's progress up to `t` (never back).
    pub fn advance(&mut self, t: f64) {
        // NaN never moves the clock either.
        if t.partial_cmp(&self.at) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        if self.at.is_finite() {
            self.settle();
            let mut jobs = std::mem::take(&mut self.jobs);
            self.sweep(&mut jobs, self.at, t, None);
            self.jobs = jobs;
        }
        self.at = t;
    }

    /// Job `idx` starts at `start` (≥ the accounted instant: its VMs may still boot) with
    /// `work` solo seconds to run and `load` per domain ([`ContentionModel::load_of`]).
    pub fn add(&mut self, idx: usize, start: f64, work: f64, load: [f64; DOMAINS]) {
        self.jobs.push(FluidJob {
            idx,
            start,
            work: work.max(0.0),
            restored_end: None,
            load,
        });
    }

    /// Job `idx`, restored with its stored start and predicted `end`: its remaining work
    /// is solved, once every restored job is in, as the work that ends it at `end` under
    /// the same rates (so a restarted driver predicts the ends it stored).
    pub fn add_restored(&mut self, idx: usize, start: f64, end: f64, load: [f64; DOMAINS]) {
        self.jobs.push(FluidJob {
            idx,
            start,
            work: 0.0,
            restored_end: Some(end),
            load,
        });
    }

    /// Job `idx` ended (or was never started).
    pub fn remove(&mut self, idx: usize) {
        self.jobs.retain(|j| j.idx != idx);
    }

    /// Job `idx`'s executors moved (lost and placed again): its new load.
    pub fn set_load(&mut self, idx: usize, load: [f64; DOMAINS]) {
        if let Some(j) = self.jobs.iter_mut().find(|j| j.idx == idx) {
            j.load = load;
        }
    }

    /// The predicted end of every job (in the order they were added), if no other job
    /// were to start.
    pub fn project(&mut self, ends: &mut Vec<(usize, f64)>) {
        ends.clear();
        self.settle();
        // The sweep writes each job's end at the job's own position.
        ends.extend(self.jobs.iter().map(|j| (j.idx, f64::NAN)));
        let mut jobs = self.jobs.clone();
        self.sweep(&mut jobs, self.at, f64::INFINITY, Some(ends));
    }

    /// Solves restored jobs' work from their stored ends: forward from the accounted
    /// instant, each restored job runs until its end at the model's rates, and its work
    /// is what it did in that time.
    fn settle(&mut self) {
        if self.jobs.iter().all(|j| j.restored_end.is_none()) {
            return;
        }
        let mut t = self.at;
        for j in &mut self.jobs {
            if j.restored_end.is_some() {
                j.work = 0.0;
            }
        }
        loop {
            let active =
                |j: &FluidJob, t: f64| j.start <= t && j.restored_end.is_none_or(|e| e > t);
            let mut next = f64::INFINITY;
            for j in &self.jobs {
                if j.start > t {
                    next = next.min(j.start);
                } else if let Some(e) = j.restored_end.filter(|&e| e > t) {
                    next = next.min(e);
                }
            }
            if next == f64::INFINITY {
                break;
            }
            fill_rates(
                &self.jobs,
                |_, j| active(j, t),
                &self.model,
                &mut self.rates,
            );
            for (k, j) in self.jobs.iter_mut().enumerate() {
                if j.restored_end.is_some() && active(j, t) {
                    j.work += self.rates[k] * (next - t);
                }
            }
            t = next;
        }
        for j in &mut self.jobs {
            j.restored_end = None;
        }
    }

    /// Moves `jobs` from `from` to `until`. With `ends` (a projection, one entry per job in
    /// `jobs`' order), a job whose work runs out leaves its domains at that instant and
    /// its end is written at its position; without,
    /// it keeps its load (the driver has not ended it).
    fn sweep(
        &mut self,
        jobs: &mut [FluidJob],
        from: f64,
        until: f64,
        mut ends: Option<&mut Vec<(usize, f64)>>,
    ) {
        let projecting = ends.is_some();
        let mut gone = vec![false; jobs.len()];
        let mut t = from;
        loop {
            // Jobs out of work leave first (a projection).
            if let Some(out) = ends.as_deref_mut() {
                for (k, j) in jobs.iter().enumerate() {
                    if !gone[k] && j.start <= t && j.work <= DONE_S {
                        gone[k] = true;
                        out[k].1 = t.max(j.start);
                    }
                }
            }
            let active = |k: usize, j: &FluidJob| j.start <= t && !gone[k];
            fill_rates(jobs, active, &self.model, &mut self.rates);
            let mut next = until;
            for (k, j) in jobs.iter().enumerate() {
                if gone[k] {
                    continue;
                }
                if j.start > t {
                    next = next.min(j.start);
                } else if j.work > DONE_S && self.rates[k] > 0.0 {
                    next = next.min(t + j.work / self.rates[k]);
                }
            }
            if next == f64::INFINITY {
                // Nothing left to run (a projection): every job has ended.
                debug_assert!(!projecting || gone.iter().all(|&g| g));
                break;
            }
            for (k, j) in jobs.iter_mut().enumerate() {
                let r = self.rates[k];
                if r > 0.0 && j.work > DONE_S {
                    if t + j.work / r <= next {
                        j.work = 0.0;
                    } else {
                        j.work = (j.work - r * (next - t)).max(0.0);
                    }
                }
            }
            t = next;
            if t >= until {
                break;
            }
        }
    }
}

/// Each job's rate (module doc) into `rates`: 0 for a job not `active`, else the
/// bottleneck ρ(L_d) over its domains, L_d summed over the active jobs.
fn fill_rates(
    jobs: &[FluidJob],
    active: impl Fn(usize, &FluidJob) -> bool,
    model: &ContentionModel,
    rates: &mut Vec<f64>,
) {
    let mut load = [0.0; DOMAINS];
    for (k, j) in jobs.iter().enumerate() {
        if active(k, j) {
            for (l, w) in load.iter_mut().zip(j.load) {
                *l += w;
            }
        }
    }
    rates.clear();
    rates.extend(jobs.iter().enumerate().map(|(k, j)| {
        if !active(k, j) {
            return 0.0;
        }
        (0..DOMAINS)
            .filter(|&d| j.load[d] > 0.0)
            .map(|d| model.rate(load[d]))
            .fold(1.0, f64::min)
    }));
}

/// One job of a measured run, as calibration reads it: when it started, its solo run
/// time (the profiled estimate), and how long it really ran (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observed {
    /// Start, seconds on the run's clock.
    pub start: f64,
    /// Solo run time, seconds (> 0).
    pub solo: f64,
    /// Measured run time, seconds (> 0).
    pub measured: f64,
}

/// What [`fit`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The fitted model.
    pub model: ContentionModel,
    /// Mean |predicted − measured| / measured run time over the jobs, percent, with the
    /// fitted model.
    pub error_pct: f64,
    /// The same without contention (each job at its solo run time).
    pub error_without_pct: f64,
    /// The best processor-sharing model (no slope) and its error, percent: the fitted
    /// model when no knee-and-slope model beats it.
    pub sharing: (ContentionModel, f64),
    /// Runs and jobs fitted on.
    pub runs: usize,
    /// Jobs fitted on.
    pub jobs: usize,
}

/// The capacities [`fit`] tries, in `jobs`: 0.5 to 16 in steps of 0.05.
pub fn capacity_grid() -> impl Iterator<Item = f64> {
    (10..=320).map(|k| f64::from(k) / 20.0)
}

/// The slopes [`fit`] tries: 0.01 to 1 in steps of 0.01.
pub fn slope_grid() -> impl Iterator<Item = f64> {
    (1..=100).map(|k| f64::from(k) / 100.0)
}

/// Each job's run time the model predicts for a run whose jobs start at their measured
/// starts (the fluid replayed with those starts), in the order given.
pub fn predict_run_times(model: ContentionModel, run: &[Observed]) -> Vec<f64> {
    let mut f = Fluid::new(model);
    let t0 = run.iter().map(|o| o.start).fold(f64::INFINITY, f64::min);
    f.advance(t0);
    for (k, o) in run.iter().enumerate() {
        f.add(k, o.start, o.solo, [1.0, 0.0]);
    }
    let mut ends = Vec::new();
    f.project(&mut ends);
    ends.iter().map(|&(k, end)| end - run[k].start).collect()
}

/// Calibrates a one-domain (`cluster`), per-job (`jobs`) model on measured runs: the
/// model whose replay of every run (each job started when it really started, with its
/// solo run time as its work) gives the least mean relative error of the run times, among
/// processor sharing (κ on [`capacity_grid`], no slope) and a knee with a slope (κ ≥ 1 on
/// the same grid — a job alone runs its solo time — × β on [`slope_grid`]). Ties go to
/// processor sharing (one parameter), then to the larger κ and the smaller β (less
/// contention). Its cost: (311 + 301 × 100) replays × runs × O(k²) for k jobs per run,
/// about a second for a hundred jobs.
///
/// # Errors
/// Too few jobs to fit (fewer than 4, or no run with two jobs overlapping), or a time
/// that is not a positive finite number (named by run and job index).
pub fn fit(runs: &[Vec<Observed>]) -> Result<Fit, String> {
    for (r, run) in runs.iter().enumerate() {
        for (j, o) in run.iter().enumerate() {
            for (name, v, positive) in [
                ("start", o.start, false),
                ("solo run time", o.solo, true),
                ("measured run time", o.measured, true),
            ] {
                if !v.is_finite() || (positive && v <= 0.0) || v < 0.0 {
                    return Err(format!(
                        "run {} job {}: {name} must be a finite number{}, got {v}",
                        r + 1,
                        j + 1,
                        if positive { " > 0" } else { " ≥ 0" }
                    ));
                }
            }
        }
    }
    let jobs: usize = runs.iter().map(Vec::len).sum();
    if jobs < 4 {
        return Err(format!(
            "{jobs} measured job(s): calibration needs at least 4, with some running at once"
        ));
    }
    let overlaps = runs.iter().any(|run| {
        run.iter().enumerate().any(|(a, x)| {
            run.iter()
                .skip(a + 1)
                .any(|y| x.start < y.start + y.measured && y.start < x.start + x.measured)
        })
    });
    if !overlaps {
        return Err("no two measured jobs ran at once: nothing to calibrate contention on".into());
    }
    let error = |model: Option<ContentionModel>| -> f64 {
        let mut sum = 0.0;
        for run in runs {
            let predicted = match model {
                Some(m) => predict_run_times(m, run),
                None => run.iter().map(|o| o.solo).collect(),
            };
            for (o, p) in run.iter().zip(predicted) {
                sum += (p - o.measured).abs() / o.measured;
            }
        }
        100.0 * sum / jobs as f64
    };
    let model = |capacity, slope| ContentionModel {
        scope: Scope::Cluster,
        load: LoadUnit::Jobs,
        capacity,
        slope,
    };
    let mut sharing = (model(0.5, None), f64::INFINITY);
    for c in capacity_grid() {
        let e = error(Some(model(c, None)));
        if e <= sharing.1 {
            sharing = (model(c, None), e);
        }
    }
    let mut best = sharing;
    for c in capacity_grid().filter(|&c| c >= 1.0) {
        for b in slope_grid() {
            let e = error(Some(model(c, Some(b))));
            // Strictly better than processor sharing and than a knee found before (a
            // smaller κ, or a larger β at this κ): ties keep less contention.
            if e < best.1 - 1e-9
                || (best.0.slope.is_some() && e < best.1 + 1e-9 && c > best.0.capacity)
            {
                best = (model(c, Some(b)), e);
            }
        }
    }
    Ok(Fit {
        model: best.0,
        error_pct: best.1,
        error_without_pct: error(None),
        sharing,
        runs: runs.len(),
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(capacity: f64) -> ContentionModel {
        ContentionModel {
            scope: Scope::Cluster,
            load: LoadUnit::Jobs,
            capacity,
            slope: None,
        }
    }

    const ONE: [f64; DOMAINS] = [1.0, 0.0];

    /// A fluid at κ = `capacity` jobs from t = 0, job k starting at `jobs[k].0` with
    /// `jobs[k].1` seconds of work.
    fn started(capacity: f64, jobs: &[(f64, f64)]) -> Fluid {
        let mut f = Fluid::new(model(capacity));
        f.advance(0.0);
        for (k, &(start, work)) in jobs.iter().enumerate() {
            f.add(k, start, work, ONE);
        }
        f
    }

    fn ends(f: &mut Fluid) -> Vec<(usize, f64)> {
        let mut out = Vec::new();
        f.project(&mut out);
        out
    }

    fn close(a: &[(usize, f64)], b: &[(usize, f64)]) {
        assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.0, y.0, "{a:?} vs {b:?}");
            assert!((x.1 - y.1).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn two_jobs_share_one_capacity() {
        // κ = 1 job: each of two runs at 1/2, so 10 s of work each takes 20 s.
        let mut f = started(1.0, &[(0.0, 10.0), (0.0, 10.0)]);
        close(&ends(&mut f), &[(0, 20.0), (1, 20.0)]);
    }

    #[test]
    fn a_job_leaving_mid_run_speeds_up_the_other() {
        // κ = 1: both at 1/2 until B's 4 s are done at t = 8; A has 10 − 4 = 6 s left
        // and runs alone at full speed: it ends at 14.
        let mut f = started(1.0, &[(0.0, 10.0), (0.0, 4.0)]);
        close(&ends(&mut f), &[(0, 14.0), (1, 8.0)]);
    }

    #[test]
    fn below_capacity_there_is_no_contention() {
        let mut f = started(2.0, &[(0.0, 10.0), (0.0, 30.0)]);
        close(&ends(&mut f), &[(0, 10.0), (1, 30.0)]);
    }

    #[test]
    fn the_testbed_anchor_three_and_four_jobs() {
        // κ = 2.5 jobs: 3 jobs run at 2.5/3 (60 s → 72 s, 1.2×), 4 at 2.5/4 (96 s, 1.6×).
        for (n, end) in [(2, 60.0), (3, 72.0), (4, 96.0)] {
            let mut f = Fluid::new(model(2.5));
            f.advance(0.0);
            for i in 0..n {
                f.add(i, 0.0, 60.0, ONE);
            }
            let want: Vec<_> = (0..n).map(|i| (i, end)).collect();
            close(&ends(&mut f), &want);
            assert!((model(2.5).slowdown(n as f64) * 60.0 - end).abs() < 1e-9);
        }
    }

    #[test]
    fn an_arrival_rescales_the_remaining_work() {
        // κ = 1: A alone for 4 s (6 s left); B (6 s) starts at 4; both at 1/2 end at 16.
        let mut f = started(1.0, &[(0.0, 10.0)]);
        close(&ends(&mut f), &[(0, 10.0)]);
        f.advance(4.0);
        f.add(1, 4.0, 6.0, ONE);
        close(&ends(&mut f), &[(0, 16.0), (1, 16.0)]);
    }

    #[test]
    fn a_booting_job_loads_its_domain_from_its_start() {
        // κ = 1: A alone 0–5 (5 s left), then A and B at 1/2: A ends at 15 with B at 5 s
        // done; B's last 5 s alone end at 20.
        let mut f = started(1.0, &[(0.0, 10.0), (5.0, 10.0)]);
        close(&ends(&mut f), &[(0, 15.0), (1, 20.0)]);
    }

    #[test]
    fn restored_jobs_keep_their_stored_ends() {
        let mut f = started(1.0, &[(0.0, 10.0), (5.0, 10.0), (3.0, 2.0)]);
        f.advance(7.0);
        let before = ends(&mut f);
        let mut g = Fluid::new(model(1.0));
        g.advance(7.0);
        for &(idx, end) in &before {
            let start = [0.0, 5.0, 3.0][idx];
            g.add_restored(idx, start, end, ONE);
        }
        close(&ends(&mut g), &before);
        // And they go on alike.
        g.advance(9.0);
        f.advance(9.0);
        g.add(3, 9.0, 1.0, ONE);
        f.add(3, 9.0, 1.0, ONE);
        close(&ends(&mut g), &ends(&mut f));
    }

    #[test]
    fn an_overrunning_job_loads_its_domain_until_it_is_ended() {
        // κ = 1: A's 10 s are done at 10 but it still runs at 12 when B (5 s) starts: A is
        // predicted to end now (12), and B then runs alone: 17.
        let mut f = started(1.0, &[(0.0, 10.0)]);
        f.advance(12.0);
        f.add(1, 12.0, 5.0, ONE);
        close(&ends(&mut f), &[(0, 12.0), (1, 17.0)]);
        // If it runs on to 14, B ran at 1/2 meanwhile: 1 s done, 4 s left, ends at 18.
        f.advance(14.0);
        f.remove(0);
        close(&ends(&mut f), &[(1, 18.0)]);
    }

    #[test]
    fn sites_are_separate_domains_and_a_spanning_job_runs_at_its_bottleneck() {
        // Per site, κ = 2 cores. A: 2 cores local; B: 2 cores cloud; C: 1 core on each.
        // Local load 3 (rate 2/3), cloud load 3 (2/3): all at 2/3.
        let m = ContentionModel {
            scope: Scope::Site,
            load: LoadUnit::Cores,
            capacity: 2.0,
            slope: None,
        };
        let mut f = Fluid::new(m);
        f.advance(0.0);
        f.add(0, 0.0, 20.0, [2.0, 0.0]);
        f.add(1, 0.0, 20.0, [0.0, 2.0]);
        close(&ends(&mut f), &[(0, 20.0), (1, 20.0)]);
        f.add(2, 0.0, 20.0, [1.0, 1.0]);
        close(&ends(&mut f), &[(0, 30.0), (1, 30.0), (2, 30.0)]);
    }

    /// A knee with a slope: κ = 1, β = 0.13: two jobs of 100 s together run 1 + 0.13 × 1
    /// = 1.13× (113 s), four 1 + 0.13 × 3 = 1.39× (139 s); κ = 2, β = 0.5: two jobs run
    /// at full speed, three at 1 / (1 + 0.5 × 1) (150 s). Without a slope the same κ is
    /// processor sharing: three jobs at κ = 2 run 1.5× as well, four 2×.
    #[test]
    fn a_knee_with_a_slope_adds_beta_per_load_unit_above_capacity() {
        let knee = |capacity, slope| ContentionModel {
            slope: Some(slope),
            ..model(capacity)
        };
        let together = |m: ContentionModel, n: usize| {
            let mut f = Fluid::new(m);
            f.advance(0.0);
            for k in 0..n {
                f.add(k, 0.0, 100.0, ONE);
            }
            ends(&mut f)[0].1
        };
        assert!((together(knee(1.0, 0.13), 2) - 113.0).abs() < 1e-9);
        assert!((together(knee(1.0, 0.13), 4) - 139.0).abs() < 1e-9);
        assert!((together(knee(2.0, 0.5), 2) - 100.0).abs() < 1e-9);
        assert!((together(knee(2.0, 0.5), 3) - 150.0).abs() < 1e-9);
        assert!((together(model(2.0), 3) - 150.0).abs() < 1e-9);
        assert!((together(model(2.0), 4) - 200.0).abs() < 1e-9);
        assert!((knee(1.0, 0.13).slowdown(4.0) - 1.39).abs() < 1e-12);
        assert_eq!(model(2.0).slowdown(1.0), 1.0);
    }

    #[test]
    fn bad_files_name_the_file_and_field() {
        let e = ContentionModel::from_toml("capacity = 1\nslope = -0.1", "c.toml").unwrap_err();
        assert!(e.contains("c.toml") && e.contains("slope"), "{e}");
        let m = ContentionModel::from_toml("capacity = 1\nslope = 0.13", "c.toml").unwrap();
        assert_eq!(m.slope, Some(0.13));
        assert_eq!(
            m,
            ContentionModel::from_toml(&m.to_toml(), "again").unwrap()
        );
        let e = ContentionModel::from_toml("capacity = 0.0", "c.toml").unwrap_err();
        assert!(e.contains("c.toml") && e.contains("capacity"), "{e}");
        let e = ContentionModel::from_toml("capacity = nan", "c.toml").unwrap_err();
        assert!(e.contains("capacity"), "{e}");
        let e = ContentionModel::from_toml("scope = \"cluster\"", "c.toml").unwrap_err();
        assert!(e.contains("capacity"), "{e}");
        let e = ContentionModel::from_toml("capacity = 2\nscpoe = \"site\"", "c.toml").unwrap_err();
        assert!(e.contains("scpoe"), "{e}");
        let e = ContentionModel::from_toml("capacity = 2\nload = \"vms\"", "c.toml").unwrap_err();
        assert!(e.contains("vms") || e.contains("load"), "{e}");
        let m = ContentionModel::from_toml(
            "scope = \"site\"\nload = \"cores\"\ncapacity = 2.5\n[fit]\nruns = 3",
            "c.toml",
        )
        .unwrap();
        assert_eq!(
            m,
            ContentionModel::from_toml(&m.to_toml(), "again").unwrap()
        );
    }

    /// Runs of jobs `(start, solo run time)` as `truth` makes them: each job's measured
    /// run time is the model's prediction.
    fn made_by(truth: ContentionModel, runs: &[Vec<(f64, f64)>]) -> Vec<Vec<Observed>> {
        runs.iter()
            .map(|run| {
                let solo: Vec<Observed> = run
                    .iter()
                    .map(|&(start, solo)| Observed {
                        start,
                        solo,
                        measured: solo,
                    })
                    .collect();
                let times = predict_run_times(truth, &solo);
                solo.iter()
                    .zip(times)
                    .map(|(o, m)| Observed { measured: m, ..*o })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn calibration_recovers_the_capacity_that_made_the_runs() {
        // Runs made by the model at κ = 2.5: the fit finds 2.5 with no error, and the
        // solo run times alone are off.
        let runs = made_by(
            model(2.5),
            &[
                vec![(0.0, 60.0), (2.0, 60.0), (4.0, 50.0), (5.0, 40.0)],
                vec![(0.0, 30.0), (1.0, 45.0), (20.0, 60.0)],
            ],
        );
        let f = fit(&runs).unwrap();
        assert!((f.model.capacity - 2.5).abs() < 1e-9, "{f:?}");
        assert!(f.error_pct < 1e-6, "{f:?}");
        assert!(f.error_without_pct > 5.0, "{f:?}");
        assert_eq!((f.runs, f.jobs), (2, 7));
    }

    /// Runs made by a knee at κ = 1.5 with β = 0.2: the fit finds that model, with less
    /// error than the best processor sharing.
    #[test]
    fn calibration_recovers_a_knee_with_a_slope() {
        let truth = ContentionModel {
            slope: Some(0.2),
            ..model(1.5)
        };
        let runs = made_by(
            truth,
            &[
                vec![(0.0, 60.0), (0.0, 60.0)],
                vec![(0.0, 60.0), (0.0, 60.0), (0.0, 60.0), (0.0, 60.0)],
                vec![(0.0, 30.0), (1.0, 45.0), (3.0, 60.0), (20.0, 60.0)],
            ],
        );
        let f = fit(&runs).unwrap();
        assert!((f.model.capacity - 1.5).abs() < 1e-9, "{f:?}");
        assert!(
            f.model.slope.is_some_and(|b| (b - 0.2).abs() < 1e-9),
            "{f:?}"
        );
        assert!(f.error_pct < 1e-6, "{f:?}");
        assert!(f.sharing.1 > 1.0 && f.sharing.0.slope.is_none(), "{f:?}");
    }

    #[test]
    fn calibration_refuses_what_it_cannot_fit() {
        let o = |start, measured| Observed {
            start,
            solo: 10.0,
            measured,
        };
        let e = fit(&[vec![o(0.0, 10.0), o(1.0, 12.0)]]).unwrap_err();
        assert!(e.contains("at least 4"), "{e}");
        let e = fit(&[vec![
            o(0.0, 10.0),
            o(20.0, 10.0),
            o(40.0, 10.0),
            o(60.0, 10.0),
        ]])
        .unwrap_err();
        assert!(e.contains("at once"), "{e}");
        let e = fit(&[vec![
            o(0.0, 10.0),
            o(1.0, f64::NAN),
            o(2.0, 10.0),
            o(3.0, 10.0),
        ]])
        .unwrap_err();
        assert!(e.contains("run 1 job 2: measured run time"), "{e}");
    }
}
