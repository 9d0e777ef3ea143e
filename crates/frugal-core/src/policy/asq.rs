//! AsQ-style site selection (paper 000 §6.2 baseline).

use super::authors_code;
use super::{Candidate, PlacementPolicy, Reading, active_fitting_from, fill, fill_off};
use crate::cluster::{Cluster, Site};
use crate::index::OffOrder;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// AsQ, paper 000 §6.2: never split a job across sites. If the local VMs (on or off) have
/// room for all E executors now, place locally; otherwise, if the cloud VMs have, place in
/// the cloud; otherwise wait. Jobs that neither site could ever hold are rejected
/// ([`PlacementPolicy::can_ever_place`]), as the authors' simulator fails them. Which VMs
/// of the chosen site are filled first depends on the [`Reading`]:
///
/// - [`Reading::PaperText`] (default): the text gives no order; AsQ "maximises the use of
///   the private site", read as First Fit within the site — active VMs in id order, then
///   the cheapest off VMs.
/// - [`Reading::AuthorsCode`], RM-Simulator `Policy/AQSScheduler.java` (155d62d): the
///   authors' GIO cost rule within the site ([`super::authors_code::place_least_cost`]:
///   executor by executor in the simulator's list order, a VM that hosts nothing priced
///   from time zero), with T_C = T_C^L on the local site and T_C^H on the cloud.
#[derive(Clone, Debug, Default)]
pub struct Asq {
    reading: Reading,
    scratch: Vec<Candidate>,
}

impl Asq {
    /// AsQ following `reading`.
    pub fn new(reading: Reading) -> Self {
        Asq {
            reading,
            scratch: Vec::new(),
        }
    }

    fn place_on(
        &mut self,
        site: Site,
        job: &Job,
        cluster: &Cluster,
        now: f64,
    ) -> Option<Placement> {
        let (d, e, s) = (&job.executor_demand, job.executors, &mut self.scratch);
        if cluster.slots(d, |s| s == site) < u64::from(e) {
            return None;
        }
        if self.reading == Reading::AuthorsCode {
            let t_c = match site {
                Site::Local => job.t_local,
                Site::Cloud => job.t_hybrid,
            };
            let ends = authors_code::Ends::BusyUntil;
            return authors_code::place_least_cost(job, cluster, now, t_c, ends, |v| {
                v.site == site
            });
        }
        let mut p = Placement::with_capacity(4);
        let on_site = active_fitting_from(cluster, 0, d, Some(site));
        let rem = fill(&mut p, cluster, d, e, on_site);
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

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        self.place_on(Site::Local, job, cluster, now)
            .or_else(|| self.place_on(Site::Cloud, job, cluster, now))
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }

    fn ranks_by_remaining_time(&self) -> bool {
        self.reading == Reading::AuthorsCode
    }

    fn can_ever_place(&self, job: &Job, empty: &Cluster) -> bool {
        [Site::Local, Site::Cloud].into_iter().any(|site| {
            empty.capacity_slots(&job.executor_demand, |s| s == site) >= u64::from(job.executors)
        })
    }
}
