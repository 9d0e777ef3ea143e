//! First Fit (paper 000 Alg. 1).

use super::{PlacementPolicy, active, fill, off_in};
use crate::cluster::Cluster;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// First Fit (FF), paper 000 §5.1, Alg. 1: fill the active VMs in order, as many
/// executors per VM as fit; while executors remain, turn on the cheapest off VM that fits
/// one executor (ties: lower id) and fill it. O(m) per job.
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstFit;

impl PlacementPolicy for FirstFit {
    fn name(&self) -> &'static str {
        "first-fit"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        let d = &job.executor_demand;
        let mut p = Placement::with_capacity(4);
        let rem = fill(&mut p, cluster, d, job.executors, active(cluster));
        let rem = fill(
            &mut p,
            cluster,
            d,
            rem,
            off_in(cluster, &cluster.by_price, |_| true),
        );
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }
}
