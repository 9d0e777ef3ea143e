//! Queue disciplines: the order in which waiting jobs are offered to the placement
//! policy, and whether a job that cannot be placed blocks the jobs behind it.

use std::collections::BTreeMap;
use std::ops::Bound;

use serde::{Deserialize, Serialize};

/// Queue discipline (paper 004 Alg. 1, paper 000 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueDiscipline {
    /// First come, first served by arrival; the head blocks the queue (Spark's FIFO).
    Fcfs,
    /// Earliest deadline first; jobs without deadline follow in arrival order; the head
    /// blocks the queue (paper 000 §4.1, §5).
    Edf,
    /// Paper 004 Alg. 1: deadline jobs in EDF order first, blocking; only when none is
    /// waiting, regular jobs by resource demand RD (Eq. 9) descending, a regular job that
    /// cannot be placed being skipped rather than blocking.
    DeadlineFirst,
    /// Morpheus (paper 004 Eq. 10): ascending scarce-resource demand c_job computed at
    /// each pass; jobs that cannot be placed are skipped.
    Morpheus,
}

impl QueueDiscipline {
    /// Every discipline.
    pub const ALL: [QueueDiscipline; 4] = [
        QueueDiscipline::Fcfs,
        QueueDiscipline::Edf,
        QueueDiscipline::DeadlineFirst,
        QueueDiscipline::Morpheus,
    ];

    /// Command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            QueueDiscipline::Fcfs => "fcfs",
            QueueDiscipline::Edf => "edf",
            QueueDiscipline::DeadlineFirst => "deadline-first",
            QueueDiscipline::Morpheus => "morpheus",
        }
    }

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Option<QueueDiscipline> {
        QueueDiscipline::ALL.into_iter().find(|q| q.name() == s)
    }
}

/// `f64` with a total order (`f64::total_cmp`), for queue keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrdF64(pub f64);

impl Eq for OrdF64 {}

impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Sort key of a queued job: two priorities and the job index as the final tie-breaker,
/// so equal priorities keep a deterministic order.
pub type QueueKey = (OrdF64, OrdF64, usize);

/// An ordered set of waiting jobs, each with the resource epoch at which it last failed
/// to be placed (`u64::MAX`: never tried).
#[derive(Clone, Debug, Default)]
pub struct OrderedJobs {
    entries: BTreeMap<QueueKey, u64>,
}

impl OrderedJobs {
    /// Inserts a job under `key`.
    pub fn insert(&mut self, key: QueueKey) {
        self.entries.insert(key, u64::MAX);
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first entry strictly after `after` (or the first entry), with its tried epoch.
    pub fn next_after(&self, after: Option<&QueueKey>) -> Option<(QueueKey, u64)> {
        let lower = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.entries
            .range((lower, Bound::Unbounded))
            .next()
            .map(|(k, t)| (*k, *t))
    }

    /// Removes a job; returns false if it was not there.
    pub fn remove(&mut self, key: &QueueKey) -> bool {
        self.entries.remove(key).is_some()
    }

    /// Records that the job under `key` failed at `epoch`.
    pub fn mark_tried(&mut self, key: &QueueKey, epoch: u64) {
        if let Some(t) = self.entries.get_mut(key) {
            *t = epoch;
        }
    }

    /// All entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&QueueKey, &u64)> {
        self.entries.iter()
    }
}
