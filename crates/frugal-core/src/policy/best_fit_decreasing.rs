//! Best Fit Decreasing with Resource Unification Thresholds (paper 004 Alg. 3).

use super::{Candidate, PlacementPolicy, Reading, fill_active, fill_all, fill_off};
use crate::cluster::Cluster;
use crate::index::OffOrder;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;
use crate::rut::Rut;

/// BFD, paper 004 §4.4.2, Alg. 3: sort the active VMs by Resource Availability RA
/// (Eq. 8, with RUT α/β) ascending — tightest first, ties by lower id — and fill each with
/// as many executors as fit; while executors remain, turn on the smallest off VM that fits
/// one executor (fewest cores, then least memory, then cheapest, then lowest id) and fill
/// it. The "decreasing" half is the job order: the scheduler of Alg. 1 sorts regular jobs
/// by RD descending ([`QueueDiscipline::DeadlineFirst`]). O(G log G) per job over the
/// placement index's G groups ([`crate::index`]).
///
/// Source: the paper's text ([`Reading::PaperText`], the default). The authors' prototype
/// (github.com/tawfiqul-islam/SLA-Scheduler, `Scheduler/BestFitScheduler.java` and
/// `Entity/Agent.java`) sorts every agent — running or not, as Mesos agents all stay
/// registered — by its free resources unified without normalising, α·free cores +
/// β·free GiB (its `resourceTotal`, with `unificationThreshold` = β), smallest first
/// (ties: lower id, Java's stable sort over the registration order), and fills each in
/// turn ([`Reading::AuthorsCode`]). An idle VM thus competes with running ones on its
/// size alone. Its job order (`BestFitDeadlineScheduler.java`: deadline jobs by
/// deadline, then the others by α·cores·E + β·GiB·E descending) is the text's
/// deadline-first queue up to that normalisation, which is kept.
#[derive(Clone, Debug)]
pub struct BestFitDecreasing {
    rut: Rut,
    reading: Reading,
    scratch: Vec<Candidate>,
}

impl BestFitDecreasing {
    /// BFD with the given thresholds (paper default α = 0.8, β = 0.2), following `reading`.
    pub fn new(rut: Rut, reading: Reading) -> Self {
        BestFitDecreasing {
            rut,
            reading,
            scratch: Vec::new(),
        }
    }
}

impl PlacementPolicy for BestFitDecreasing {
    fn name(&self) -> &'static str {
        "best-fit-decreasing"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        let (rut, d, s) = (self.rut, &job.executor_demand, &mut self.scratch);
        let mut p = Placement::with_capacity(4);
        if self.reading == Reading::AuthorsCode {
            let rem = fill_all(s, &mut p, cluster, d, job.executors, |v| {
                Some(rut.alpha * f64::from(v.free.cores()) + rut.beta * v.free.memory_gib())
            });
            return (rem == 0).then_some(p);
        }
        let rem = fill_active(s, &mut p, cluster, d, job.executors, |v| {
            Some(rut.resource_availability(&v.free, cluster))
        });
        let rem = fill_off(s, &mut p, cluster, d, rem, OffOrder::Smallest, |_| true);
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::DeadlineFirst
    }
}
