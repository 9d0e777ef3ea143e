//! Morpheus low-cost packing (paper 004 §6.1.3 baseline).

use super::{Candidate, PlacementPolicy, Reading, RoundRobin, fill_active, fill_off};
use crate::cluster::Cluster;
use crate::index::OffOrder;
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// Morpheus' executor placement as adapted by paper 004 §6.1.3 ("low-cost packing"):
/// pack onto the most utilised active VMs first (highest dominant-resource share, ties:
/// lower id), then turn on the cheapest off VMs. Its job order — ascending scarce-resource
/// demand, Eq. 10 — is [`QueueDiscipline::Morpheus`].
///
/// Source: the paper's text ([`Reading::PaperText`], the default). The authors' prototype
/// (github.com/tawfiqul-islam/SLA-Scheduler, `Scheduler/MorpheusScheduler.java`) keeps
/// Eq. 10's job order but places executors round robin, one per agent in turn from where
/// the previous job stopped — a spread, not a packing ([`Reading::AuthorsCode`]: the
/// placement of [`RoundRobin`]).
#[derive(Clone, Debug, Default)]
pub struct Morpheus {
    reading: Reading,
    scratch: Vec<Candidate>,
    spread: RoundRobin,
}

impl Morpheus {
    /// Morpheus following `reading`.
    pub fn new(reading: Reading) -> Self {
        Morpheus {
            reading,
            ..Morpheus::default()
        }
    }
}

impl PlacementPolicy for Morpheus {
    fn name(&self) -> &'static str {
        "morpheus"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        if self.reading == Reading::AuthorsCode {
            return self.spread.place(job, cluster, now);
        }
        let (d, s) = (&job.executor_demand, &mut self.scratch);
        let mut p = Placement::with_capacity(4);
        let rem = fill_active(s, &mut p, cluster, d, job.executors, |v| {
            Some(-v.dominant_utilisation())
        });
        let rem = fill_off(s, &mut p, cluster, d, rem, OffOrder::Cheapest, |_| true);
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Morpheus
    }
}
