//! First Fit (paper 000 Alg. 1).

use super::authors_code::{self, Rule};
use super::{Candidate, PlacementPolicy, Reading, active_fitting_from, fill, fill_off};
use crate::cluster::Cluster;
use crate::index::OffOrder;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// First Fit (FF), paper 000 §5.1, Alg. 1: fill the active VMs in id order, as many
/// executors per VM as fit; while executors remain, turn on the cheapest off VM that fits
/// one executor (ties: lower id) and fill it. The active VMs with room come from the
/// placement index's first-fit tree, O(log m) each, and the off VMs from its classes
/// ([`crate::index`]).
///
/// Source: the paper's text ([`Reading::PaperText`], the default). The authors' simulator
/// (RM-Simulator `FirstFitScheduler.java`) orders the running VMs by price, then free
/// resources, rather than by id, and every VM in its list order ([`Reading::AuthorsCode`],
/// [`super::authors_code`]); the model chapter's table of readings compares the two.
#[derive(Clone, Debug, Default)]
pub struct FirstFit {
    reading: Reading,
    scratch: Vec<Candidate>,
    list: authors_code::VmList,
}

impl FirstFit {
    /// First Fit following `reading`.
    pub fn new(reading: Reading) -> Self {
        FirstFit {
            reading,
            ..FirstFit::default()
        }
    }
}

impl PlacementPolicy for FirstFit {
    fn name(&self) -> &'static str {
        "first-fit"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        if self.reading == Reading::AuthorsCode {
            return authors_code::place(Rule::FirstFit, &mut self.list, job, cluster);
        }
        let d = &job.executor_demand;
        let s = &mut self.scratch;
        let mut p = Placement::with_capacity(4);
        let active = active_fitting_from(cluster, 0, d, None);
        let rem = fill(&mut p, cluster, d, job.executors, active);
        let rem = fill_off(s, &mut p, cluster, d, rem, OffOrder::Cheapest, |_| true);
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }
}
