//! Executor placement policies: one trait, one implementation per published algorithm,
//! shared unchanged by the simulator, the RL environment and the service.
//!
//! A policy proposes where all E executors of one job go, given the live cluster; it
//! never mutates the cluster (the [`crate::scheduler::Scheduler`] applies the placement)
//! and returns `None` when the job cannot be placed now, so the job waits.

mod aep;
mod asq;
mod authors_code;
mod best_fit_decreasing;
mod first_fit;
mod gio;
mod interference_aware;
mod milp;
mod morpheus;
pub mod objective;
mod optimal;
mod policy_queue;
mod round_robin;
mod spark_consolidate;
mod spec;

pub use aep::Aep;
pub use asq::Asq;
pub use best_fit_decreasing::BestFitDecreasing;
pub use first_fit::FirstFit;
pub use gio::Gio;
pub use interference_aware::InterferenceAware;
pub use milp::{Milp, MilpBackend};
pub use morpheus::Morpheus;
pub use optimal::Optimal;
pub use policy_queue::PolicyQueue;
pub use round_robin::{RoundRobin, RoundRobinConsolidate};
pub use spark_consolidate::SparkConsolidate;
pub use spec::{PAPER_NAMES, PolicySpec, PolicySpecError};

use std::time::Duration;

use crate::cluster::{Cluster, Site, Vm, VmId};
use crate::index::OffOrder;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;
pub use crate::reading::Reading;
use crate::resources::Resources;
use crate::rut::Rut;

/// An executor placement algorithm (the `PlaceExecutor()` procedure of paper 004 Alg. 1).
pub trait PlacementPolicy: Send + Sync {
    /// Name used on the command line and in tables (e.g. `first-fit`).
    fn name(&self) -> &'static str;

    /// Places all `job.executors` executors or returns `None` (all-or-nothing).
    ///
    /// A returned placement never exceeds any VM's free resources and may use VMs that
    /// are off (the scheduler turns them on). `now` is the current time in seconds.
    ///
    /// Contract the scheduler relies on to skip calls that would fail: whether a job can
    /// be placed depends only on its [`crate::queue::JobShape`] and the free capacity,
    /// and is monotone in free capacity (what fails keeps failing until resources are
    /// freed); a call that returns `None` leaves the policy's state unchanged.
    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement>;

    /// Queue discipline the policy was published with (used unless overridden).
    fn default_queue(&self) -> QueueDiscipline;

    /// True if the policy ranks VMs by their remaining active time (T_vm), so the
    /// cluster should keep its busy subgroups ([`Cluster::keep_busy_groups`]); the
    /// policy is correct either way, only slower without them.
    fn ranks_by_remaining_time(&self) -> bool {
        false
    }

    /// True if the policy prices placements with the contention model's load
    /// ([`PlacementPolicy::observe_load`]): the scheduler then tells it the load before
    /// every call.
    fn uses_load(&self) -> bool {
        false
    }

    /// The load on the contention domains now ([`crate::contention::Load`]), told before
    /// every [`PlacementPolicy::place`] call when [`PlacementPolicy::uses_load`]; `None`
    /// when the run has no contention model, and for the replacement of a running job's
    /// lost executors (never held by load: the job already counts in it). Whether a job can be placed may then also depend on the
    /// load, which only falls when a job ends, and so when resources are freed: the
    /// scheduler's contract (monotone in free capacity) still holds.
    fn observe_load(&mut self, _load: Option<&crate::contention::Load>) {}

    /// False if this policy could not place `job` even on `empty` (the cluster with
    /// every VM off and free); such a job would wait forever and is rejected instead.
    fn can_ever_place(&self, job: &Job, empty: &Cluster) -> bool {
        empty.capacity_slots(&job.executor_demand, |_| true) >= u64::from(job.executors)
    }
}

/// The built-in policies, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// Spark's default spread (FIFO), [`RoundRobin`].
    RoundRobin,
    /// Spark's consolidating round robin (FIFO-C / RRC), [`RoundRobinConsolidate`].
    RoundRobinConsolidate,
    /// Spark standalone's consolidation (paper 004 §6.1.3's FIFO), [`SparkConsolidate`].
    SparkConsolidate,
    /// First Fit (paper 000 Alg. 1), [`FirstFit`].
    FirstFit,
    /// Best Fit Decreasing with RUT (paper 004 Alg. 3), [`BestFitDecreasing`].
    BestFitDecreasing,
    /// Greedy Iterative Optimisation (paper 000 Alg. 2), [`Gio`].
    Gio,
    /// AsQ: local-only or cloud-only (paper 000 §6.2), [`Asq`].
    Asq,
    /// Morpheus low-cost packing (paper 004 §6.1.3), [`Morpheus`].
    Morpheus,
    /// Adaptive Executor Placement: spread or consolidate by job kind (paper 002 §7.1),
    /// [`Aep`].
    Aep,
    /// Exact optimum of the per-job objective (paper 000 Eq. 16), [`Optimal`].
    Optimal,
    /// Per-job MILP through a solver (paper 004 Alg. 2, paper 000 §6.2), [`Milp`].
    Milp,
    /// frugal's extension: paper 000's per-job optimum priced with the contention
    /// model's run times, starting a job only where it slows no one,
    /// [`InterferenceAware`].
    InterferenceAware,
}

/// Parameters some policies need, with the papers' defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyParams {
    /// The paper's text or the authors' code, for the policies where they differ.
    pub reading: Reading,
    /// RUT for BFD (paper 004 Eq. 5–8).
    pub rut: Rut,
    /// Solver of the `milp` policy.
    pub milp_backend: MilpBackend,
    /// Per-decision time limit of the `milp` policy.
    pub milp_time_limit: Duration,
}

impl Default for PolicyParams {
    fn default() -> Self {
        PolicyParams {
            reading: Reading::PaperText,
            rut: Rut::default(),
            milp_backend: MilpBackend::Microlp,
            milp_time_limit: Duration::from_secs(1),
        }
    }
}

impl PolicyKind {
    /// Every built-in policy, in table order.
    pub const ALL: [PolicyKind; 12] = [
        PolicyKind::RoundRobin,
        PolicyKind::RoundRobinConsolidate,
        PolicyKind::SparkConsolidate,
        PolicyKind::FirstFit,
        PolicyKind::BestFitDecreasing,
        PolicyKind::Gio,
        PolicyKind::Asq,
        PolicyKind::Morpheus,
        PolicyKind::Aep,
        PolicyKind::Optimal,
        PolicyKind::Milp,
        PolicyKind::InterferenceAware,
    ];

    /// Command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => "round-robin",
            PolicyKind::RoundRobinConsolidate => "round-robin-consolidate",
            PolicyKind::SparkConsolidate => "spark-consolidate",
            PolicyKind::FirstFit => "first-fit",
            PolicyKind::BestFitDecreasing => "best-fit-decreasing",
            PolicyKind::Gio => "gio",
            PolicyKind::Asq => "asq",
            PolicyKind::Morpheus => "morpheus",
            PolicyKind::Aep => "aep",
            PolicyKind::Optimal => "optimal",
            PolicyKind::Milp => "milp",
            PolicyKind::InterferenceAware => "interference-aware",
        }
    }

    /// What the policy is and where it is published, as `--help` and the docs list it.
    pub fn description(&self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => {
                "Spark's default spread, FIFO/RR: one executor per VM in turn (paper 000 §6.2, \
                 paper 002 §7.1)"
            }
            PolicyKind::RoundRobinConsolidate => {
                "Spark's consolidating round robin, FIFO-C/RRC (paper 000 §6.2, paper 002 §7.1)"
            }
            PolicyKind::SparkConsolidate => {
                "Spark standalone's consolidation (spreadOut=false): the VM with most free \
                 cores filled first; paper 004's FIFO (§6.1.3)"
            }
            PolicyKind::FirstFit => "First Fit, FF (paper 000 Alg. 1)",
            PolicyKind::BestFitDecreasing => {
                "Best Fit Decreasing with resource unification, BFD (paper 004 Alg. 3)"
            }
            PolicyKind::Gio => "Greedy Iterative Optimisation, GIO (paper 000 Alg. 2)",
            PolicyKind::Asq => "AsQ: local-only or cloud-only, never split (paper 000 §6.2)",
            PolicyKind::Morpheus => "Morpheus low-cost packing (paper 004 §6.1.3)",
            PolicyKind::Aep => "Adaptive Executor Placement, AEP (paper 002 §7.1)",
            PolicyKind::Optimal => "Exact per-job optimum of paper 000 Eq. 16 (capped knapsack DP)",
            PolicyKind::Milp => {
                "Per-job MILP through a solver (paper 004 Alg. 2, paper 000 Eq. 16)"
            }
            PolicyKind::InterferenceAware => {
                "frugal's extension, needs a contention model: paper 000 Eq. 16's per-job \
                 optimum at the run times the model predicts, a job started only where it \
                 slows no running job"
            }
        }
    }

    /// True if the policy has an authors'-code reading ([`Reading::AuthorsCode`]) beside the
    /// paper's text, chosen by [`PolicyParams::reading`].
    pub fn has_authors_reading(&self) -> bool {
        !matches!(
            self,
            PolicyKind::SparkConsolidate
                | PolicyKind::Aep
                | PolicyKind::Optimal
                | PolicyKind::InterferenceAware
        )
    }

    /// True for the policies that solve the per-job objective through a MILP solver: as
    /// costly per decision as they are exact, so runs of every policy leave them out
    /// unless named ([`PolicyKind::Optimal`] reaches the same optimum).
    pub fn is_solver(&self) -> bool {
        matches!(self, PolicyKind::Milp)
    }

    /// True for frugal's extensions that need a contention model
    /// ([`crate::DurationModel::contention`]): runs of every policy leave them out unless
    /// named, and a run that names one without a model is refused.
    pub fn needs_contention(&self) -> bool {
        matches!(self, PolicyKind::InterferenceAware)
    }

    /// True for the policies a run of every policy includes: not the solver-backed ones
    /// on large clusters (decided by the caller) and not those that need a contention
    /// model.
    pub fn in_default_set(&self) -> bool {
        !self.needs_contention()
    }

    /// A fresh instance.
    pub fn build(&self, params: &PolicyParams) -> Box<dyn PlacementPolicy> {
        match self {
            PolicyKind::RoundRobin => Box::new(RoundRobin::new(params.reading)),
            PolicyKind::RoundRobinConsolidate => {
                Box::new(RoundRobinConsolidate::new(params.reading))
            }
            PolicyKind::SparkConsolidate => Box::new(SparkConsolidate::default()),
            PolicyKind::FirstFit => Box::new(FirstFit::new(params.reading)),
            PolicyKind::BestFitDecreasing => {
                Box::new(BestFitDecreasing::new(params.rut, params.reading))
            }
            PolicyKind::Gio => Box::new(Gio::new(params.reading)),
            PolicyKind::Asq => Box::new(Asq::new(params.reading)),
            PolicyKind::Morpheus => Box::new(Morpheus::new(params.reading)),
            PolicyKind::Aep => Box::new(Aep::default()),
            PolicyKind::Optimal => Box::new(Optimal::default()),
            PolicyKind::InterferenceAware => Box::new(InterferenceAware::default()),
            PolicyKind::Milp => Box::new(Milp::new(
                params.milp_backend,
                params.milp_time_limit,
                params.reading,
            )),
        }
    }
}

/// A candidate VM of a greedy fill: (score, id), filled in ascending order of both.
pub(crate) type Candidate = (f64, VmId);

/// The most VMs of a group whose VMs each hold `k` ≥ 1 executors that a greedy fill of
/// `executors` executors can use: ⌈executors / k⌉ ([`crate::index`]).
#[inline]
pub(crate) fn needed(k: u32, executors: u32) -> usize {
    executors.div_ceil(k) as usize
}

/// Pushes to `out`, for every active group whose VMs hold k ≥ 1 executors of `demand` and
/// for whose representative VM (the group's lowest id) `score` gives a value, the group's
/// `need(k)` lowest ids with that score. With `by_busy`, the groups are split by busy key
/// (for scores that depend on the remaining active time). Without a placement index
/// every active VM with room is its own group.
pub(crate) fn push_active(
    out: &mut Vec<Candidate>,
    cluster: &Cluster,
    demand: &Resources,
    by_busy: bool,
    need: impl Fn(u32) -> usize,
    score: impl Fn(&Vm) -> Option<f64>,
) {
    let scored = |v: &Vm| Some((score(v)?, v.id));
    let Some(index) = cluster.index() else {
        let active = cluster
            .vms
            .iter()
            .filter(|v| v.is_active() && v.free.fits(demand));
        out.extend(active.filter_map(scored));
        return;
    };
    for (_, free, g) in index.active() {
        let k = free.copies_of(demand);
        if k == 0 {
            continue;
        }
        let n = need(k);
        let rep = |first: VmId| scored(cluster.vm(first)).map(|c| c.0);
        if by_busy {
            match index.busy(g) {
                Some(subgroups) => {
                    for ids in subgroups {
                        if let Some(s) = rep(ids[0]) {
                            out.extend(ids.iter().take(n).map(|&id| (s, id)));
                        }
                    }
                }
                // Busy subgroups not kept: every VM of the group scored on its own.
                None => out.extend(g.ids.iter().filter_map(|id| scored(cluster.vm(id)))),
            }
        } else if let Some(s) = rep(g.ids.first().expect("groups are never empty")) {
            out.extend(g.ids.iter().take(n).map(|id| (s, id)));
        }
    }
}

/// Pushes to `out`, for every class with off VMs that hold k ≥ 1 executors of `demand` and
/// for whose lowest-id off VM `score` gives a value, the class's
/// `need(k)` lowest off ids with that score (without a placement index: every off VM
/// that holds one).
pub(crate) fn push_off(
    out: &mut Vec<Candidate>,
    cluster: &Cluster,
    demand: &Resources,
    need: impl Fn(u32) -> usize,
    score: impl Fn(&Vm) -> Option<f64>,
) {
    let classes = cluster.vm_classes();
    let Some(index) = cluster.index() else {
        let off = cluster
            .vms
            .iter()
            .filter(|v| !v.is_active() && v.free.fits(demand));
        out.extend(off.filter_map(|v| Some((score(v)?, v.id))));
        return;
    };
    for (c, ids) in index.off() {
        let class = &classes.all()[c as usize];
        let k = class.capacity.copies_of(demand);
        let Some(first) = ids.first() else { continue };
        if k == 0 {
            continue;
        }
        if let Some(s) = score(cluster.vm(first)) {
            out.extend(ids.iter().take(need(k)).map(|id| (s, id)));
        }
    }
}

/// The active VMs (at `site` if given) with room for one executor of `demand`, ascending
/// from id `from`: from the placement index's first-fit tree, or a scan of the VMs.
pub(crate) fn active_fitting_from<'a>(
    cluster: &'a Cluster,
    from: usize,
    demand: &'a Resources,
    site: Option<Site>,
) -> impl Iterator<Item = VmId> + 'a {
    match cluster.index() {
        Some(index) => Either::Left(index.active_fitting_from(from, demand, site)),
        None => {
            let vms = cluster.vms.get(from..).unwrap_or_default().iter();
            let fit = move |v: &&Vm| {
                v.is_active() && v.free.fits(demand) && site.is_none_or(|s| v.site == s)
            };
            Either::Right(vms.filter(fit).map(|v| v.id))
        }
    }
}

/// One of two iterators of the same items (the indexed or the scanning source).
enum Either<L, R> {
    Left(L),
    Right(R),
}

impl<T, L: Iterator<Item = T>, R: Iterator<Item = T>> Iterator for Either<L, R> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            Either::Left(l) => l.next(),
            Either::Right(r) => r.next(),
        }
    }
}

/// [`push_active`] (split by busy key) then [`push_off`], with the same `score`; without a
/// placement index one pass over the VMs in id order, so the list comes out id-sorted.
pub(crate) fn push_all(
    out: &mut Vec<Candidate>,
    cluster: &Cluster,
    demand: &Resources,
    need: impl Fn(u32) -> usize + Copy,
    score: impl Fn(&Vm) -> Option<f64> + Copy,
) {
    if cluster.index().is_some() {
        push_active(out, cluster, demand, true, need, score);
        push_off(out, cluster, demand, need, score);
        return;
    }
    let fitting = cluster.vms.iter().filter(|v| v.free.fits(demand));
    out.extend(fitting.filter_map(|v| Some((score(v)?, v.id))));
}

/// The first off VM in `order` (ties: lower id) that `keep` admits. `keep` must depend
/// only on the VM's class (capacity, site, price): with the index it is asked of each
/// class's lowest-id off VM.
pub(crate) fn first_off(
    cluster: &Cluster,
    order: OffOrder,
    keep: impl Fn(&Vm) -> bool,
) -> Option<VmId> {
    let classes = cluster.vm_classes();
    let Some(index) = cluster.index() else {
        let mut ids = classes.vms_in(order).iter().copied();
        return ids.find(|&id| !cluster.vm(id).is_active() && keep(cluster.vm(id)));
    };
    let runs = classes.runs(order).iter();
    runs.filter_map(|run| {
        run.iter()
            .filter_map(|&c| index.off_set(c).first())
            .filter(|&id| keep(cluster.vm(id)))
            .min()
    })
    .next()
}

/// Sorts candidates by ascending score, ties by lower id.
#[inline]
pub(crate) fn sort_candidates(out: &mut [Candidate]) {
    out.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
}

/// Greedily puts as many of the `remaining` executors as fit on each VM of `order`, in
/// order ("place as many executors as possible in the same VM", paper 000 Alg. 1 l. 4–9).
/// Returns how many executors are still unplaced.
#[inline]
pub(crate) fn fill(
    placement: &mut Placement,
    cluster: &Cluster,
    demand: &Resources,
    mut remaining: u32,
    order: impl IntoIterator<Item = VmId>,
) -> u32 {
    for id in order {
        if remaining == 0 {
            break;
        }
        let k = cluster.vm(id).free.copies_of(demand).min(remaining);
        if k > 0 {
            placement.add(id, k);
            remaining -= k;
        }
    }
    remaining
}

/// Fills `remaining` executors of `demand` greedily on every VM, active or off, in the
/// order of `score` (ties: lower id; a VM without a score is left out), adding to
/// `placement`; returns the executors still unplaced.
pub(crate) fn fill_all(
    scratch: &mut Vec<Candidate>,
    placement: &mut Placement,
    cluster: &Cluster,
    demand: &Resources,
    remaining: u32,
    score: impl Fn(&Vm) -> Option<f64> + Copy,
) -> u32 {
    scratch.clear();
    push_all(scratch, cluster, demand, |k| needed(k, remaining), score);
    sort_candidates(scratch);
    let order = scratch.iter().map(|c| c.1);
    fill(placement, cluster, demand, remaining, order)
}

/// Fills `remaining` executors of `demand` greedily on the active VMs in the order of
/// `score` (ties: lower id), adding to `placement`; returns the executors still unplaced.
pub(crate) fn fill_active(
    scratch: &mut Vec<Candidate>,
    placement: &mut Placement,
    cluster: &Cluster,
    demand: &Resources,
    remaining: u32,
    score: impl Fn(&Vm) -> Option<f64>,
) -> u32 {
    scratch.clear();
    push_active(
        scratch,
        cluster,
        demand,
        false,
        |k| needed(k, remaining),
        score,
    );
    sort_candidates(scratch);
    fill(
        placement,
        cluster,
        demand,
        remaining,
        scratch.iter().map(|c| c.1),
    )
}

/// Fills `remaining` executors greedily on off VMs that `keep` admits (a test of the VM's
/// class: capacity, site, price, asked of each class's lowest-id off VM), turned on in
/// `order` (ties: lower id); returns the executors still unplaced. With a placement index
/// classes are walked in rank order and read with early exit, and only classes that tie
/// in rank are merged by id; without one the VMs are read in that order.
pub(crate) fn fill_off(
    scratch: &mut Vec<Candidate>,
    placement: &mut Placement,
    cluster: &Cluster,
    demand: &Resources,
    mut remaining: u32,
    order: OffOrder,
    keep: impl Fn(&Vm) -> bool,
) -> u32 {
    let classes = cluster.vm_classes();
    let Some(index) = cluster.index() else {
        let ids = classes.vms_in(order).iter().copied();
        let off = ids.filter(|&id| {
            let v = cluster.vm(id);
            !v.is_active() && keep(v)
        });
        return fill(placement, cluster, demand, remaining, off);
    };
    for run in classes.runs(order) {
        if remaining == 0 {
            break;
        }
        let usable = |&&c: &&u32| {
            let class = &classes.all()[c as usize];
            let first = index.off_set(c).first();
            first.is_some_and(|id| keep(cluster.vm(id))) && class.capacity.fits(demand)
        };
        let mut usable_classes = run.iter().filter(usable);
        let (Some(&first), second) = (usable_classes.next(), usable_classes.next()) else {
            continue;
        };
        if second.is_none() {
            let ids = index.off_set(first).iter();
            remaining = fill(placement, cluster, demand, remaining, ids);
            continue;
        }
        scratch.clear();
        for &c in run.iter().filter(usable) {
            let k = classes.all()[c as usize].capacity.copies_of(demand);
            let ids = index.off_set(c).iter().take(needed(k, remaining));
            scratch.extend(ids.map(|id| (0.0, id)));
        }
        sort_candidates(scratch);
        let ids = scratch.iter().map(|c| c.1);
        remaining = fill(placement, cluster, demand, remaining, ids);
    }
    remaining
}

impl crate::spec::Choice for PolicyKind {
    const ALL: &'static [PolicyKind] = &PolicyKind::ALL;

    fn name(self) -> &'static str {
        PolicyKind::name(&self)
    }

    fn help(self) -> &'static str {
        self.description()
    }
}
