//! Morpheus low-cost packing (paper 004 §6.1.3 baseline).

use super::{PlacementPolicy, fill, fill_by_score, off_in};
use crate::cluster::{Cluster, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// Morpheus' executor placement as adapted by paper 004 §6.1.3 ("low-cost packing"):
/// pack onto the most utilised active VMs first (highest dominant-resource share, ties:
/// lower id), then turn on the cheapest off VMs. Its job order — ascending scarce-resource
/// demand, Eq. 10 — is [`QueueDiscipline::Morpheus`].
#[derive(Clone, Debug, Default)]
pub struct Morpheus {
    scratch: Vec<(f64, VmId)>,
}

impl PlacementPolicy for Morpheus {
    fn name(&self) -> &'static str {
        "morpheus"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        let (mut p, rem) = fill_by_score(
            &mut self.scratch,
            cluster,
            job,
            |v| v.is_active(),
            |v| -v.dominant_utilisation(),
        );
        let rem = fill(
            &mut p,
            cluster,
            &job.executor_demand,
            rem,
            off_in(cluster, &cluster.by_price, |_| true),
        );
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Morpheus
    }
}
