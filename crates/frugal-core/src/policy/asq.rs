//! AsQ-style site selection (paper 000 §6.2 baseline).

use super::{PlacementPolicy, fill, off_in};
use crate::cluster::{Cluster, Site};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// AsQ, as described in paper 000 §6.2: never split a job across sites. If the local VMs
/// (on or off) can hold all E executors, place locally; otherwise, if the cloud VMs can,
/// place in the cloud; otherwise wait. Within the chosen site it fills active VMs in id
/// order, then turns on the cheapest off VMs (First Fit restricted to one site), which
/// maximises use of the private site as AsQ intends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asq;

impl Asq {
    fn place_on(site: Site, job: &Job, cluster: &Cluster) -> Option<Placement> {
        let d = &job.executor_demand;
        if cluster.slots(d, |v| v.site == site) < u64::from(job.executors) {
            return None;
        }
        let mut p = Placement::with_capacity(4);
        let on_site = cluster
            .vms
            .iter()
            .filter(|v| v.is_active() && v.site == site)
            .map(|v| v.id);
        let rem = fill(&mut p, cluster, d, job.executors, on_site);
        let rem = fill(
            &mut p,
            cluster,
            d,
            rem,
            off_in(cluster, &cluster.by_price, |v| v.site == site),
        );
        (rem == 0).then_some(p)
    }
}

impl PlacementPolicy for Asq {
    fn name(&self) -> &'static str {
        "asq"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        Asq::place_on(Site::Local, job, cluster)
            .or_else(|| Asq::place_on(Site::Cloud, job, cluster))
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }

    fn can_ever_place(&self, job: &Job, empty: &Cluster) -> bool {
        [Site::Local, Site::Cloud].into_iter().any(|site| {
            empty.capacity_slots(&job.executor_demand, |s| s == site) >= u64::from(job.executors)
        })
    }
}
