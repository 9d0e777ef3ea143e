//! Bags of tasks from SWF logs (paper 003 §4.1, Table 2).
//!
//! Each SWF record becomes one independent single-core task whose work is
//! **w = run time × allocated processors** GHz·s: the paper takes "the trace data [as] the
//! information of tasks running on 1 GHz cores", and this reading reproduces its Table 2
//! exactly (NASA: 18,066 tasks, 71.11 % shorter than one hour). A task runs w / r seconds
//! on an r-GHz core. Its deadline is **d = α · w / 2 s** from t = 0 ("α times its run time
//! on a 2 GHz core"); submit times are ignored (one bag, all tasks available at 0).
//! Records without a positive run time or processor count are dropped, and counted.

use serde::Serialize;

use frugal_traces::swf::SwfLog;

/// One task of the bag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Task {
    /// The SWF job number.
    pub id: u64,
    /// Work, GHz·s (integer; a fractional run time is rounded up).
    pub work: u64,
}

impl Task {
    /// The deadline at `alpha`, seconds from 0: α · w / 2.
    pub fn deadline_s(&self, alpha: u32) -> f64 {
        f64::from(alpha) * self.work as f64 / 2.0
    }
}

/// A bag of tasks and how it was derived from its log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bag {
    /// The tasks, in log order.
    pub tasks: Vec<Task>,
    /// Records in the log.
    pub records: usize,
    /// Records dropped because their run time is 0 or unknown.
    pub dropped_run_time: usize,
    /// Records dropped because their processor count is 0 or unknown.
    pub dropped_processors: usize,
}

impl Bag {
    /// Tasks whose work is below `seconds` GHz·s (strict; the paper's "short" share uses
    /// one hour: NASA 71.11 %).
    pub fn shorter_than(&self, seconds: u64) -> usize {
        self.tasks.iter().filter(|t| t.work < seconds).count()
    }

    /// The first `n` tasks (all if `n` exceeds them), for task-count sweeps (Fig. 12).
    pub fn first(&self, n: usize) -> Bag {
        Bag {
            tasks: self.tasks[..n.min(self.tasks.len())].to_vec(),
            records: self.records,
            dropped_run_time: self.dropped_run_time,
            dropped_processors: self.dropped_processors,
        }
    }

    /// The bag repeated until it holds `n` tasks, numbered 1..=n (a job number of the log
    /// no longer identifies a copy): the documented way to build very large bags from one
    /// log.
    ///
    /// # Errors
    /// [`BagError::TooManyTasks`] above [`MAX_TASKS`].
    pub fn replicated(&self, n: usize) -> Result<Bag, BagError> {
        if n > MAX_TASKS {
            return Err(BagError::TooManyTasks(n));
        }
        let len = self.tasks.len().max(1);
        Ok(Bag {
            tasks: (0..n)
                .filter_map(|i| {
                    let t = self.tasks.get(i % len)?;
                    Some(Task {
                        id: i as u64 + 1,
                        work: t.work,
                    })
                })
                .collect(),
            records: self.records,
            dropped_run_time: self.dropped_run_time,
            dropped_processors: self.dropped_processors,
        })
    }
}

/// Largest work of one task, GHz·s (about 3,200 years on a 1 GHz core): keeps every sum
/// of a bag of up to [`MAX_TASKS`] tasks inside 64 bits.
pub const MAX_TASK_WORK: u64 = 100_000_000_000;

/// Largest bag, tasks.
pub const MAX_TASKS: usize = 50_000_000;

/// A log that cannot become a bag.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BagError {
    /// A record's run time × processors is beyond [`MAX_TASK_WORK`].
    #[error(
        "job {job}: work {work} GHz·s (run time × processors) exceeds the limit of {MAX_TASK_WORK}"
    )]
    TooMuchWork {
        /// The SWF job number.
        job: u64,
        /// Its work.
        work: f64,
    },
    /// More tasks than [`MAX_TASKS`].
    #[error("{0} tasks exceed the limit of {MAX_TASKS}")]
    TooManyTasks(usize),
}

/// The bag of an SWF log (rules in the module documentation).
///
/// # Errors
/// [`BagError`] for a record whose work exceeds [`MAX_TASK_WORK`] or a log of more than
/// [`MAX_TASKS`] records.
pub fn from_swf(log: &SwfLog) -> Result<Bag, BagError> {
    if log.jobs.len() > MAX_TASKS {
        return Err(BagError::TooManyTasks(log.jobs.len()));
    }
    let mut bag = Bag {
        tasks: Vec::with_capacity(log.jobs.len()),
        records: log.jobs.len(),
        dropped_run_time: 0,
        dropped_processors: 0,
    };
    for j in &log.jobs {
        let run = j.run_time.unwrap_or(0.0);
        let procs = j.allocated_processors.unwrap_or(0);
        if run <= 0.0 {
            bag.dropped_run_time += 1;
        } else if procs == 0 {
            bag.dropped_processors += 1;
        } else {
            let work = (run * procs as f64).ceil();
            if work > MAX_TASK_WORK as f64 {
                return Err(BagError::TooMuchWork {
                    job: j.job_number,
                    work,
                });
            }
            bag.tasks.push(Task {
                id: j.job_number,
                work: work as u64,
            });
        }
    }
    Ok(bag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_traces::swf::parse;

    #[test]
    fn work_is_run_time_times_processors_and_bad_records_are_counted() {
        let log = parse(
            "1 0 -1 100 4 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n\
             2 5 -1 0 8 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n\
             3 9 -1 30 -1 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n\
             4 9 -1 2.5 2 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n",
            "t.swf",
        )
        .unwrap();
        let bag = from_swf(&log).unwrap();
        assert_eq!(
            bag.tasks,
            vec![Task { id: 1, work: 400 }, Task { id: 4, work: 5 }]
        );
        assert_eq!(
            (bag.records, bag.dropped_run_time, bag.dropped_processors),
            (4, 1, 1)
        );
        assert_eq!(bag.tasks[0].deadline_s(3), 600.0);
        assert_eq!(
            bag.replicated(5).unwrap().tasks[2],
            Task { id: 3, work: 400 }
        );
    }
}
