//! One built-in policy behind a queue discipline other than its published one, as
//! `<policy>=<queue>` (e.g. `milp=deadline-first`).
//!
//! Why per policy: a policy's published queue ([`PlacementPolicy::default_queue`]) is the
//! queue of the paper that named it, but one policy serves two papers. The per-job MILP is
//! paper 000's (Eq. 16, behind EDF) and paper 004's ILP, which §4 and Alg. 1 run behind the
//! same deadline-first queue as BFD ("both of these algorithms can be used as the
//! PlaceExecutor() procedure of Algorithm 1"), while FIFO and Morpheus keep their own. One
//! queue for every policy (`queue`) cannot say that.

use std::fmt;
use std::str::FromStr;

use super::{PlacementPolicy, PolicyKind};
use crate::queue::QueueDiscipline;
use crate::spec::Choice;

/// `policy` runs behind `queue` instead of its published one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PolicyQueue {
    /// The built-in policy.
    pub policy: PolicyKind,
    /// Its queue discipline.
    pub queue: QueueDiscipline,
}

impl PolicyQueue {
    /// The queue `policy` runs behind: its entry in `overrides` if it has one, else `all`
    /// (one queue for every policy) if given, else its published queue. The one rule every
    /// face that builds a run's scheduler calls.
    pub fn resolve(
        overrides: &[PolicyQueue],
        all: Option<QueueDiscipline>,
        policy: &dyn PlacementPolicy,
    ) -> QueueDiscipline {
        overrides
            .iter()
            .find(|o| o.policy.name() == policy.name())
            .map(|o| o.queue)
            .or(all)
            .unwrap_or_else(|| policy.default_queue())
    }
}

impl fmt::Display for PolicyQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.policy.name(), self.queue.name())
    }
}

impl FromStr for PolicyQueue {
    type Err = String;

    fn from_str(s: &str) -> Result<PolicyQueue, String> {
        let (policy, queue) = s
            .split_once('=')
            .ok_or_else(|| format!("'{s}': expected <policy>=<queue>, e.g. milp=deadline-first"))?;
        let policy = PolicyKind::from_name(policy).map_err(|e| format!("'{s}': policy {e}"))?;
        let queue = QueueDiscipline::from_name(queue).map_err(|e| format!("'{s}': queue {e}"))?;
        Ok(PolicyQueue { policy, queue })
    }
}

crate::serde_as_text!(PolicyQueue);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicyParams;

    #[test]
    fn prints_and_parses_back() {
        let q: PolicyQueue = "milp=deadline-first".parse().unwrap();
        assert_eq!(
            q,
            PolicyQueue {
                policy: PolicyKind::Milp,
                queue: QueueDiscipline::DeadlineFirst
            }
        );
        assert_eq!(q.to_string(), "milp=deadline-first");
    }

    #[test]
    fn refusals_name_the_part_that_is_wrong() {
        let e = "milp".parse::<PolicyQueue>().unwrap_err();
        assert!(e.contains("expected <policy>=<queue>"), "{e}");
        let e = "ilp=edf".parse::<PolicyQueue>().unwrap_err();
        assert!(e.contains("policy invalid value \"ilp\""), "{e}");
        let e = "milp=fifo".parse::<PolicyQueue>().unwrap_err();
        assert!(e.contains("queue invalid value \"fifo\""), "{e}");
    }

    /// The override wins over the one queue for all, which wins over the published one.
    #[test]
    fn an_override_beats_the_queue_for_all_which_beats_the_published_one() {
        let params = PolicyParams::default();
        let milp = PolicyKind::Milp.build(&params);
        let ff = PolicyKind::FirstFit.build(&params);
        let o = [PolicyQueue {
            policy: PolicyKind::Milp,
            queue: QueueDiscipline::DeadlineFirst,
        }];
        assert_eq!(
            PolicyQueue::resolve(&[], None, milp.as_ref()),
            QueueDiscipline::Edf
        );
        assert_eq!(
            PolicyQueue::resolve(&o, None, milp.as_ref()),
            QueueDiscipline::DeadlineFirst
        );
        assert_eq!(
            PolicyQueue::resolve(&o, Some(QueueDiscipline::Fcfs), milp.as_ref()),
            QueueDiscipline::DeadlineFirst
        );
        assert_eq!(
            PolicyQueue::resolve(&o, Some(QueueDiscipline::Fcfs), ff.as_ref()),
            QueueDiscipline::Fcfs
        );
        assert_eq!(
            PolicyQueue::resolve(&o, None, ff.as_ref()),
            ff.default_queue()
        );
    }
}
