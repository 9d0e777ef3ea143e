//! Queue disciplines: the order in which waiting jobs are offered to the placement
//! policy, and whether a job that cannot be placed blocks the jobs behind it.

use std::collections::BTreeMap;
use std::ops::Bound;

/// Queue discipline (paper 004 Alg. 1, paper 000 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

crate::choice! {
    impl Choice for QueueDiscipline {
        Fcfs = "fcfs": "First come, first served; the head blocks (Spark FIFO)",
        Edf = "edf": "Earliest deadline first; the head blocks (paper 000 §5)",
        DeadlineFirst = "deadline-first": "Deadline jobs EDF, then regular jobs by resource demand (paper 004 Alg. 1)",
        Morpheus = "morpheus": "Ascending scarce-resource demand, skipping (paper 004 Eq. 10)",
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

/// What a placement policy can see of a job that decides whether it fits: the executor
/// demand, the executor count E and the kind. Jobs of one shape either all fit the
/// cluster or none does (policies are deterministic and monotone in free capacity).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobShape {
    /// Demand of one executor.
    pub demand: crate::resources::Resources,
    /// Executors E.
    pub executors: u32,
    /// Application class.
    pub kind: crate::job::JobKind,
}

impl JobShape {
    /// The shape of `job`.
    pub fn of(job: &crate::job::Job) -> JobShape {
        JobShape {
            demand: job.executor_demand,
            executors: job.executors,
            kind: job.kind,
        }
    }
}

/// Key of a job inside its shape class: arrival time, then job index.
pub type ShapeJobKey = (OrdF64, usize);

#[derive(Clone, Debug)]
struct ShapeClass {
    shape: JobShape,
    jobs: std::collections::BTreeSet<ShapeJobKey>,
    /// Resource epoch at which a job of this class last failed to be placed.
    failed_epoch: u64,
}

/// Waiting jobs grouped by [`JobShape`], for the skipping disciplines (Morpheus and the
/// regular queue of deadline-first) whose order is a score of the shape, ties broken by
/// arrival and index.
///
/// Why: a skipping discipline offers every waiting job at every pass. Trying jobs one by
/// one costs O(queue) per pass and O(n²) per run under load; one failure per shape per
/// resource epoch is enough, since every other job of that shape would fail too. A pass
/// then costs O(shapes · log shapes + jobs placed · log n).
#[derive(Clone, Debug, Default)]
pub struct ShapeQueue {
    classes: Vec<ShapeClass>,
    index: std::collections::HashMap<JobShape, usize>,
    /// The classes that hold jobs, in no particular order (a pass sorts them), and each
    /// class's position there: passes visit only these.
    nonempty: Vec<usize>,
    position: Vec<Option<usize>>,
    len: usize,
}

impl ShapeQueue {
    /// Adds job `idx` (arriving at `arrival`) of shape `shape`.
    pub fn insert(&mut self, shape: JobShape, arrival: f64, idx: usize) {
        let next = self.classes.len();
        let c = *self.index.entry(shape).or_insert(next);
        if c == next {
            self.classes.push(ShapeClass {
                shape,
                jobs: Default::default(),
                failed_epoch: u64::MAX,
            });
            self.position.push(None);
        }
        if self.classes[c].jobs.insert((OrdF64(arrival), idx)) {
            self.len += 1;
            if self.position[c].is_none() {
                self.position[c] = Some(self.nonempty.len());
                self.nonempty.push(c);
            }
        }
    }

    /// Bookkeeping after a removal from class `c`.
    fn removed(&mut self, c: usize) {
        self.len -= 1;
        if self.classes[c].jobs.is_empty() {
            let at = self.position[c]
                .take()
                .expect("a class that held a job is listed");
            self.nonempty.swap_remove(at);
            if let Some(&moved) = self.nonempty.get(at) {
                self.position[moved] = Some(at);
            }
        }
    }

    /// Removes a job; returns false if it was not there.
    pub fn remove(&mut self, shape: JobShape, arrival: f64, idx: usize) -> bool {
        let Some(&c) = self.index.get(&shape) else {
            return false;
        };
        let removed = self.classes[c].jobs.remove(&(OrdF64(arrival), idx));
        if removed {
            self.removed(c);
        }
        removed
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fills `order` with the groups of one pass: every class that holds jobs, has not
    /// failed in `epoch` and for which `may_fit` holds, sorted by ascending `score` of its
    /// shape; classes of equal score form one group (`order` holds `(score, class)` pairs;
    /// a group is a run of equal scores), whose jobs are offered merged by arrival and
    /// index. A class `may_fit` rejects is marked failed in `epoch`.
    pub fn pass_order(
        &mut self,
        epoch: u64,
        score: impl Fn(&JobShape) -> f64,
        mut may_fit: impl FnMut(&JobShape) -> bool,
        order: &mut Vec<(f64, usize)>,
    ) {
        order.clear();
        for &i in &self.nonempty {
            let c = &mut self.classes[i];
            if c.failed_epoch == epoch {
                continue;
            }
            if may_fit(&c.shape) {
                order.push((score(&c.shape), i));
            } else {
                c.failed_epoch = epoch;
            }
        }
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }

    /// The first job (arrival, index) of `class`, if any.
    pub fn first(&self, class: usize) -> Option<ShapeJobKey> {
        self.classes[class].jobs.first().copied()
    }

    /// Removes the job `key` of class `class` (it was placed or dropped).
    pub fn take(&mut self, class: usize, key: &ShapeJobKey) {
        if self.classes[class].jobs.remove(key) {
            self.removed(class);
        }
    }

    /// Records that a job of `class` failed to be placed in `epoch`.
    pub fn mark_failed(&mut self, class: usize, epoch: u64) {
        self.classes[class].failed_epoch = epoch;
    }

    /// Job indices in class order, each class in arrival order (for inspection).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.classes.iter().flat_map(|c| c.jobs.iter().map(|k| k.1))
    }
}
