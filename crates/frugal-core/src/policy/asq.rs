//! AsQ-style site selection (paper 000 §6.2 baseline).

use super::{Candidate, PlacementPolicy, active_fitting_from, fill, fill_off};
use crate::cluster::{Cluster, Site};
use crate::index::OffOrder;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// AsQ, as described in paper 000 §6.2: never split a job across sites. If the local VMs
/// (on or off) can hold all E executors, place locally; otherwise, if the cloud VMs can,
/// place in the cloud; otherwise wait. Within the chosen site it fills active VMs in id
/// order, then turns on the cheapest off VMs (First Fit restricted to one site), which
/// maximises use of the private site as AsQ intends.
///
/// Source: paper 000 §6.2's text. The authors' simulator (RM-Simulator
/// `AQSScheduler.java`) goes local only when the local VMs have room at once, ranks VMs
/// within the site by GIO's cost rule, and fails jobs that neither site could ever hold
/// (as frugal never runs them); the model chapter's table of readings lists this.
#[derive(Clone, Debug, Default)]
pub struct Asq {
    scratch: Vec<Candidate>,
}

impl Asq {
    fn place_on(&mut self, site: Site, job: &Job, cluster: &Cluster) -> Option<Placement> {
        let (d, s) = (&job.executor_demand, &mut self.scratch);
        if cluster.slots(d, |s| s == site) < u64::from(job.executors) {
            return None;
        }
        let mut p = Placement::with_capacity(4);
        let on_site = active_fitting_from(cluster, 0, d, Some(site));
        let rem = fill(&mut p, cluster, d, job.executors, on_site);
        let rem = fill_off(s, &mut p, cluster, d, rem, OffOrder::Cheapest, |v| {
            v.site == site
        });
        (rem == 0).then_some(p)
    }
}

impl PlacementPolicy for Asq {
    fn name(&self) -> &'static str {
        "asq"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        self.place_on(Site::Local, job, cluster)
            .or_else(|| self.place_on(Site::Cloud, job, cluster))
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
