//! Spark's default round-robin executor placement, spread and consolidate.

use super::authors_code::{self, Rule};
use super::{
    Candidate, PlacementPolicy, Reading, active_fitting_from, needed, push_off, sort_candidates,
};
use crate::cluster::{Cluster, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;
use crate::resources::Resources;

/// Deals executors one at a time over `candidates` (cyclically, from position `start`)
/// to VMs that still have room for one more. Returns the position after the last
/// executor dealt, or `None` after a full cycle without room (executors dealt so far stay
/// in `p`).
fn deal(
    p: &mut Placement,
    cluster: &Cluster,
    d: &Resources,
    executors: u32,
    candidates: &[VmId],
    start: usize,
) -> Result<usize, usize> {
    let n = candidates.len();
    if n == 0 {
        return Err(0);
    }
    let mut i = start % n;
    let mut misses = 0;
    while p.executors() < executors {
        let id = candidates[i];
        if cluster.vm(id).free.copies_of(d) > p.on(id) {
            p.add(id, 1);
            misses = 0;
        } else {
            misses += 1;
            if misses >= n {
                return Err(i);
            }
        }
        i = (i + 1) % n;
    }
    Ok(i)
}

/// Round robin (FIFO's spread, paper 000 §6.2, paper 002 RR): one executor per VM in
/// turn over all VMs of the cluster, on or off, continuing from where the previous job
/// stopped; off VMs are turned on when dealt an executor. Spreads load, wastes money.
/// Its cost is O(E) plus the full VMs it steps over.
///
/// Source: the papers' text ([`Reading::PaperText`], the default). The authors'
/// simulator (RM-Simulator `RRScheduler.java`) restarts every job at the first VM of its
/// list, cloud VMs first ([`Reading::AuthorsCode`], [`super::authors_code`]).
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    reading: Reading,
    cursor: usize,
    all: Vec<VmId>,
    list: authors_code::VmList,
}

impl RoundRobin {
    /// Round robin following `reading`.
    pub fn new(reading: Reading) -> Self {
        RoundRobin {
            reading,
            ..RoundRobin::default()
        }
    }
}

impl PlacementPolicy for RoundRobin {
    fn name(&self) -> &'static str {
        "round-robin"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        if self.reading == Reading::AuthorsCode {
            return authors_code::place(Rule::RoundRobin, &mut self.list, job, cluster);
        }
        if self.all.len() != cluster.len() {
            self.all = (0..cluster.len() as VmId).collect();
        }
        let mut p = Placement::with_capacity(job.executors as usize);
        let next = deal(
            &mut p,
            cluster,
            &job.executor_demand,
            job.executors,
            &self.all,
            self.cursor,
        )
        .ok()?;
        self.cursor = next;
        Some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}

/// Round robin consolidate (FIFO-C, paper 000 §6.2; RRC, paper 002): one executor per VM
/// in turn over the active VMs only (from the VM after the last one used); when they
/// have no room left, turn on the lowest-id off VM that fits an executor, add it to the
/// rotation and go on.
///
/// Source: paper 000 §6.2's text ("packing executors on the already running VMs to avoid
/// choosing the unused VMs"; [`Reading::PaperText`], the default). The authors' simulator
/// (RM-Simulator `RRConsolidate.java`) instead sorts every VM by free cores, fullest
/// first, and fills each before the next ([`Reading::AuthorsCode`],
/// [`super::authors_code`]); Spark's own consolidation option is
/// [`super::SparkConsolidate`].
///
/// Only active VMs with room for one executor can be dealt to, and in one pass each takes
/// one, so the rotation is read (from the placement index's tree, or a scan) as the first
/// E such VMs in cyclic id order from the last one used: the same deals as rotating over
/// every active VM. Once a pass deals nothing every active VM is full for this job, so
/// where the rotation resumes after an off VM is added cannot change the outcome.
#[derive(Clone, Debug, Default)]
pub struct RoundRobinConsolidate {
    reading: Reading,
    last: Option<VmId>,
    candidates: Vec<VmId>,
    off: Vec<Candidate>,
    list: authors_code::VmList,
}

impl RoundRobinConsolidate {
    /// FIFO-C following `reading`.
    pub fn new(reading: Reading) -> Self {
        RoundRobinConsolidate {
            reading,
            ..RoundRobinConsolidate::default()
        }
    }
}

impl PlacementPolicy for RoundRobinConsolidate {
    fn name(&self) -> &'static str {
        "round-robin-consolidate"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        if self.reading == Reading::AuthorsCode {
            return authors_code::place(Rule::Consolidate, &mut self.list, job, cluster);
        }
        let (d, e) = (&job.executor_demand, job.executors);
        // After the last VM used, then wrapped around to the lowest ids.
        let after = self.last.map_or(0, |last| last as usize + 1);
        let wrapped =
            active_fitting_from(cluster, 0, d, None).take_while(|&id| (id as usize) < after);
        let cyclic = active_fitting_from(cluster, after, d, None).chain(wrapped);
        self.candidates.clear();
        self.candidates.extend(cyclic.take(e as usize));
        let mut p = Placement::with_capacity(e as usize);
        let mut start = 0;
        // Off VMs by id, listed at the first full pass; each one added takes at least one
        // executor, so at most E are needed.
        let mut next_off: Option<usize> = None;
        loop {
            match deal(&mut p, cluster, d, e, &self.candidates, start) {
                Ok(next) => {
                    let n = self.candidates.len();
                    self.last = Some(self.candidates[(next + n - 1) % n]);
                    return Some(p);
                }
                Err(_) => {
                    let at = next_off.get_or_insert_with(|| {
                        self.off.clear();
                        push_off(&mut self.off, cluster, d, |_| needed(1, e), |_| Some(0.0));
                        sort_candidates(&mut self.off);
                        0
                    });
                    self.candidates.push(self.off.get(*at)?.1);
                    *at += 1;
                    start = self.candidates.len() - 1;
                }
            }
        }
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}
