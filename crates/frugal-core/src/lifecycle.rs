//! A job's lifecycle and the one rule of "met its deadline", shared by the simulator's
//! metrics, the service's metrics and dashboard, and `frugal whatif`.
//!
//! States: a job is **queued** until placed, then **running**; it ends **completed**,
//! **failed** (ended unsuccessfully on the backend), **cancelled** (by its user),
//! **dropped** (admission control: it would miss its deadline) or **unschedulable** (the
//! policy cannot place it even on the empty cluster).
//!
//! The deadline rule ([`deadline_outcome`]), for a job with a deadline:
//! - **met**: completed at or before its deadline (a tolerance of [`DEADLINE_TOLERANCE_S`]
//!   absorbs floating-point sums of exact times);
//! - **missed**: completed after it; failed, dropped or unschedulable (whenever that
//!   happened); or still queued or running after the deadline has passed;
//! - **pending**: queued or running, deadline not yet passed;
//! - a **cancelled** job counts neither way: its user withdrew it.
//!
//! At the end of a simulation every job is decided (`now` = +∞); the service counts at its clock's now.

use serde::{Deserialize, Serialize};

/// Seconds by which a completion may pass its deadline and still meet it: absorbs
/// floating-point sums of exact times, nothing more.
pub const DEADLINE_TOLERANCE_S: f64 = 1e-9;

/// Where a job is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for resources.
    Queued,
    /// Executors placed and running.
    Running,
    /// Finished successfully.
    Completed,
    /// Ended unsuccessfully on the backend (see its reason).
    Failed,
    /// Cancelled by its user.
    Cancelled,
    /// Dropped by admission control: it could not meet its deadline.
    Dropped,
    /// The policy cannot place it even on the empty cluster.
    Unschedulable,
}

impl JobState {
    /// Every state, in lifecycle order.
    pub const ALL: [JobState; 7] = [
        JobState::Queued,
        JobState::Running,
        JobState::Completed,
        JobState::Failed,
        JobState::Cancelled,
        JobState::Dropped,
        JobState::Unschedulable,
    ];

    /// The name stored and shown (`queued`, `running`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
            JobState::Dropped => "dropped",
            JobState::Unschedulable => "unschedulable",
        }
    }

    /// True for the final states.
    pub fn has_ended(self) -> bool {
        !matches!(self, JobState::Queued | JobState::Running)
    }
}

impl std::fmt::Display for JobState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for JobState {
    type Err = String;

    /// Parses a stored name; an unknown one is an error naming it and the states.
    fn from_str(s: &str) -> Result<JobState, String> {
        JobState::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = JobState::ALL.iter().map(|x| x.as_str()).collect();
                format!("unknown job state {s:?} (one of {})", names.join(", "))
            })
    }
}

/// How a job with a deadline stands against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlineOutcome {
    /// Completed by its deadline.
    Met,
    /// Completed after it, ended otherwise than completed, or still unfinished past it.
    Missed,
    /// Not finished, deadline not passed.
    Pending,
}

/// The outcome of a job in `state` that finished at `finish` (if it did) against its
/// `deadline`, at time `now` (seconds on one clock); `None` for a job without a deadline
/// or a cancelled one. The module doc states the rule.
pub fn deadline_outcome(
    deadline: Option<f64>,
    state: JobState,
    finish: Option<f64>,
    now: f64,
) -> Option<DeadlineOutcome> {
    let d = deadline?;
    Some(match state {
        JobState::Cancelled => return None,
        JobState::Completed => match finish {
            Some(f) if f <= d + DEADLINE_TOLERANCE_S => DeadlineOutcome::Met,
            _ => DeadlineOutcome::Missed,
        },
        JobState::Failed | JobState::Dropped | JobState::Unschedulable => DeadlineOutcome::Missed,
        JobState::Queued | JobState::Running => {
            if now > d + DEADLINE_TOLERANCE_S {
                DeadlineOutcome::Missed
            } else {
                DeadlineOutcome::Pending
            }
        }
    })
}

/// Deadline outcomes counted over many jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeadlineCount {
    /// Jobs that met their deadline.
    pub met: usize,
    /// Jobs that missed it.
    pub missed: usize,
    /// Jobs still able to meet it.
    pub pending: usize,
}

impl DeadlineCount {
    /// Adds one job's outcome (nothing for `None`).
    pub fn add(&mut self, outcome: Option<DeadlineOutcome>) {
        match outcome {
            Some(DeadlineOutcome::Met) => self.met += 1,
            Some(DeadlineOutcome::Missed) => self.missed += 1,
            Some(DeadlineOutcome::Pending) => self.pending += 1,
            None => {}
        }
    }

    /// Jobs counted (with a deadline, not cancelled).
    pub fn jobs(&self) -> usize {
        self.met + self.missed + self.pending
    }

    /// Percent of the decided jobs (met or missed) that met their deadline; `None` when
    /// none is decided.
    pub fn met_pct(&self) -> Option<f64> {
        let decided = self.met + self.missed;
        (decided > 0).then(|| 100.0 * self.met as f64 / decided as f64)
    }
}

/// Jobs counted by state, with their deadline outcomes: what the service's dashboard and
/// `/metrics` report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateCount {
    by_state: [usize; JobState::ALL.len()],
    /// Their deadline outcomes ([`deadline_outcome`]).
    pub deadlines: DeadlineCount,
}

impl StateCount {
    /// Adds one job in `state` with `deadline`, finished at `finish` if it did, seen at
    /// `now` (seconds on one clock).
    pub fn add(&mut self, state: JobState, deadline: Option<f64>, finish: Option<f64>, now: f64) {
        self.by_state[state as usize] += 1;
        self.deadlines
            .add(deadline_outcome(deadline, state, finish, now));
    }

    /// Both counts together.
    pub fn plus(mut self, other: &StateCount) -> StateCount {
        for (a, b) in self.by_state.iter_mut().zip(other.by_state) {
            *a += b;
        }
        self.deadlines.met += other.deadlines.met;
        self.deadlines.missed += other.deadlines.missed;
        self.deadlines.pending += other.deadlines.pending;
        self
    }

    /// Jobs in `state`.
    pub fn of(&self, state: JobState) -> usize {
        self.by_state[state as usize]
    }

    /// Jobs counted.
    pub fn jobs(&self) -> usize {
        self.by_state.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DeadlineOutcome::*;

    /// Hand-computed: three jobs with a 100 s deadline and one without.
    #[test]
    fn jobs_are_counted_by_state_with_their_deadlines() {
        let mut a = StateCount::default();
        a.add(JobState::Completed, Some(100.0), Some(90.0), 200.0);
        a.add(JobState::Queued, Some(100.0), None, 200.0);
        let mut b = StateCount::default();
        b.add(JobState::Running, Some(100.0), None, 50.0);
        b.add(JobState::Completed, None, Some(10.0), 50.0);
        let c = a.plus(&b);
        assert_eq!(c.jobs(), 4);
        assert_eq!(c.of(JobState::Completed), 2);
        assert_eq!(
            (c.deadlines.met, c.deadlines.missed, c.deadlines.pending),
            (1, 1, 1)
        );
    }

    #[test]
    fn the_deadline_rule_by_hand() {
        let at = |state, finish, now| deadline_outcome(Some(100.0), state, finish, now);
        assert_eq!(at(JobState::Completed, Some(100.0), 500.0), Some(Met));
        assert_eq!(
            at(JobState::Completed, Some(100.0 + 1e-10), 500.0),
            Some(Met)
        );
        assert_eq!(at(JobState::Completed, Some(100.001), 500.0), Some(Missed));
        for s in [JobState::Failed, JobState::Dropped, JobState::Unschedulable] {
            assert_eq!(at(s, None, 0.0), Some(Missed), "{s}");
        }
        assert_eq!(at(JobState::Cancelled, Some(50.0), 500.0), None);
        assert_eq!(at(JobState::Running, None, 100.0), Some(Pending));
        assert_eq!(at(JobState::Queued, None, 100.5), Some(Missed));
        assert_eq!(at(JobState::Queued, None, f64::INFINITY), Some(Missed));
        assert_eq!(deadline_outcome(None, JobState::Failed, None, 0.0), None);
        let mut c = DeadlineCount::default();
        for o in [Some(Met), Some(Met), Some(Missed), Some(Pending), None] {
            c.add(o);
        }
        assert_eq!((c.jobs(), c.met_pct()), (4, Some(200.0 / 3.0)));
    }

    #[test]
    fn stored_names_round_trip_and_unknown_ones_are_errors() {
        for s in JobState::ALL {
            assert_eq!(s.as_str().parse::<JobState>(), Ok(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        assert!("paused".parse::<JobState>().unwrap_err().contains("paused"));
    }
}
