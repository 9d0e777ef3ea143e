//! Executor placement policies: one trait, one implementation per published algorithm,
//! shared unchanged by the simulator, the RL environment and the service.
//!
//! A policy proposes where all E executors of one job go, given the live cluster; it
//! never mutates the cluster (the [`crate::scheduler::Scheduler`] applies the placement)
//! and returns `None` when the job cannot be placed now, so the job waits.

mod aep;
mod asq;
mod best_fit_decreasing;
mod first_fit;
mod gio;
mod milp;
mod morpheus;
pub mod objective;
mod optimal;
mod round_robin;

pub use aep::Aep;
pub use asq::Asq;
pub use best_fit_decreasing::BestFitDecreasing;
pub use first_fit::FirstFit;
pub use gio::Gio;
pub use milp::{Milp, MilpBackend};
pub use morpheus::Morpheus;
pub use optimal::Optimal;
pub use round_robin::{RoundRobin, RoundRobinConsolidate};

use std::time::Duration;

use crate::cluster::{Cluster, Vm, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;
use crate::resources::Resources;
use crate::rut::Rut;

/// An executor placement algorithm (the `PlaceExecutor()` procedure of paper 004 Alg. 1).
pub trait PlacementPolicy: Send {
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
}

/// Parameters some policies need, with the papers' defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyParams {
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
            rut: Rut::default(),
            milp_backend: MilpBackend::Microlp,
            milp_time_limit: Duration::from_secs(1),
        }
    }
}

impl PolicyKind {
    /// Every built-in policy, in table order.
    pub const ALL: [PolicyKind; 10] = [
        PolicyKind::RoundRobin,
        PolicyKind::RoundRobinConsolidate,
        PolicyKind::FirstFit,
        PolicyKind::BestFitDecreasing,
        PolicyKind::Gio,
        PolicyKind::Asq,
        PolicyKind::Morpheus,
        PolicyKind::Aep,
        PolicyKind::Optimal,
        PolicyKind::Milp,
    ];

    /// Command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => "round-robin",
            PolicyKind::RoundRobinConsolidate => "round-robin-consolidate",
            PolicyKind::FirstFit => "first-fit",
            PolicyKind::BestFitDecreasing => "best-fit-decreasing",
            PolicyKind::Gio => "gio",
            PolicyKind::Asq => "asq",
            PolicyKind::Morpheus => "morpheus",
            PolicyKind::Aep => "aep",
            PolicyKind::Optimal => "optimal",
            PolicyKind::Milp => "milp",
        }
    }

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Option<PolicyKind> {
        PolicyKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// A fresh instance.
    pub fn build(&self, params: &PolicyParams) -> Box<dyn PlacementPolicy> {
        match self {
            PolicyKind::RoundRobin => Box::new(RoundRobin::default()),
            PolicyKind::RoundRobinConsolidate => Box::new(RoundRobinConsolidate::default()),
            PolicyKind::FirstFit => Box::new(FirstFit),
            PolicyKind::BestFitDecreasing => Box::new(BestFitDecreasing::new(params.rut)),
            PolicyKind::Gio => Box::new(Gio::default()),
            PolicyKind::Asq => Box::new(Asq),
            PolicyKind::Morpheus => Box::new(Morpheus::default()),
            PolicyKind::Aep => Box::new(Aep::default()),
            PolicyKind::Optimal => Box::new(Optimal::default()),
            PolicyKind::Milp => Box::new(Milp::new(params.milp_backend, params.milp_time_limit)),
        }
    }
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

/// Scores every VM that `keep` admits and that can host one executor of `job`, sorts them
/// by ascending score (ties: lower id) and fills them greedily. Returns the placement and
/// the count of executors still unplaced. `scratch` is reused to avoid allocation.
pub(crate) fn fill_by_score(
    scratch: &mut Vec<(f64, VmId)>,
    cluster: &Cluster,
    job: &Job,
    keep: impl Fn(&Vm) -> bool,
    score: impl Fn(&Vm) -> f64,
) -> (Placement, u32) {
    let d = &job.executor_demand;
    scratch.clear();
    scratch.extend(
        cluster
            .vms
            .iter()
            .filter(|v| keep(v) && v.free.fits(d))
            .map(|v| (score(v), v.id)),
    );
    scratch.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut p = Placement::with_capacity(4);
    let rem = fill(
        &mut p,
        cluster,
        d,
        job.executors,
        scratch.iter().map(|e| e.1),
    );
    (p, rem)
}

/// Ids of the active (booting or on) VMs, in id order.
#[inline]
pub(crate) fn active(cluster: &Cluster) -> impl Iterator<Item = VmId> + '_ {
    cluster.vms.iter().filter(|v| v.is_active()).map(|v| v.id)
}

/// Ids of the off VMs among `order` that satisfy `keep`.
#[inline]
pub(crate) fn off_in<'a>(
    cluster: &'a Cluster,
    order: &'a [VmId],
    keep: impl Fn(&Vm) -> bool + 'a,
) -> impl Iterator<Item = VmId> + 'a {
    order.iter().copied().filter(move |&id| {
        let v = cluster.vm(id);
        !v.is_active() && keep(v)
    })
}
