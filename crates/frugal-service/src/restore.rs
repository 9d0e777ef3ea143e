//! Rebuilding the live state from the store when the service starts: every accepted job
//! back in its state, running jobs the backend still runs taken over (others queued
//! again), the decisions' costs, and the fleet's power record — so that a restart changes
//! neither the bill nor any job's course (the parity test in `tests/it/parity.rs` drives a
//! restart midway and compares with the simulator).

use frugal_core::DecisionCost;
use frugal_core::cluster::VmId;
use frugal_core::control::Event;
use frugal_core::placement::Placement;

use crate::backend::Launch;
use crate::state::{Effect, JobState, Restored, State};
use crate::store::StoredJob;

/// Restores `jobs` (in acceptance order, so each keeps its place in the queue's ties),
/// the VMs' power `intervals` `(vm, on, off)` and their losses and refused power-ons
/// `vm_events` `(vm, at, refused)` (oldest first; a VM lost less than the out-of-service
/// time before is still out of service) into the fresh `st` at `now` (service seconds). `reattach` says whether the backend still runs a job stored as running;
/// one it does not run is queued again with a reason. A stored submission that fails
/// today's validation (e.g. a duration written by an older, laxer version) is marked
/// failed rather than scheduled. An idle VM whose interval is open keeps its keep-alive,
/// counted from the end of the last job it hosted
/// ([`frugal_core::control::Controller::restore_power`]). Returns the changes to persist
/// and act on.
pub fn restore_state(
    st: &mut State,
    jobs: Vec<StoredJob>,
    intervals: &[(VmId, f64, Option<f64>)],
    vm_events: &[(VmId, f64, bool)],
    now: f64,
    reattach: &mut dyn FnMut(&Launch) -> bool,
) -> Vec<Effect> {
    let mut effects = Vec::new();
    let mut costs = Vec::new();
    // When each VM last hosted an executor of a job that has ended.
    let mut idle_since = vec![f64::NEG_INFINITY; st.cluster().len()];
    for s in jobs {
        let cost = match (s.start, s.chosen_cost, s.optimal_cost) {
            (Some(at), Some(chosen), Some(optimal)) => {
                let c = DecisionCost { chosen, optimal };
                costs.push((at, c));
                Some(c)
            }
            _ => None,
        };
        let job = s.submission.job(s.arrival);
        let stored = s.state;
        let placement = s.placement.map(|v| Placement {
            executors_per_vm: v,
        });
        if !stored.has_ended()
            && let Err(e) = s.submission.revalidate()
        {
            let (idx, _) = st.add(s.submission, job, JobState::Failed, now);
            st.set_ended(idx, now, format!("invalid stored submission: {e}"));
            effects.push(Effect::Changed(idx));
            continue;
        }
        if stored == JobState::Running
            && let Some(placement) = placement.clone()
        {
            let launch = Launch {
                idx: st.next_index(),
                submission: s.submission.clone(),
                placement: placement.clone(),
                start_s: s.start.unwrap_or(0.0),
                duration_s: s.finish.unwrap_or(0.0) - s.start.unwrap_or(0.0),
            };
            if reattach(&launch) {
                let r = Restored {
                    placement,
                    start: s.start,
                    finish: s.finish,
                    observed: s.observed,
                    offered_at: s.offered_at,
                };
                let idx = st.add_running(s.submission, job, r, now);
                if let Some(c) = cost {
                    st.restore_cost(idx, c);
                }
                continue;
            }
            let (idx, added) = st.add(s.submission, job, JobState::Queued, now);
            st.set_reason(idx, "re-queued after a restart");
            effects.extend(added);
            effects.push(Effect::Changed(idx));
            continue;
        }
        if stored.has_ended()
            && let (Some(p), Some(f)) = (&placement, s.finish)
        {
            for &(vm, _) in &p.executors_per_vm {
                if let Some(t) = idle_since.get_mut(vm as usize) {
                    *t = t.max(f);
                }
            }
        }
        let (idx, added) = st.add(s.submission, job, stored, now);
        effects.extend(added);
        st.restore_offered_at(idx, s.offered_at);
        if stored.has_ended() {
            st.restore_ended(idx, s.start, s.finish, s.reason, placement, s.observed);
            if let Some(c) = cost {
                st.restore_cost(idx, c);
            }
        }
    }
    st.ledger.restore(costs);
    for &(vm, on, off) in intervals {
        let since = idle_since.get(vm as usize).map_or(on, |&t| t.max(on));
        let event = Event::PowerRestored {
            vm,
            on,
            off,
            idle_since: since,
        };
        effects.extend(st.handle(event, now));
    }
    // The newest loss of each VM first: an older one is over if a newer one is.
    for &(vm, at, _) in vm_events.iter().rev() {
        st.handle(Event::LossRestored { vm, at }, now);
    }
    effects
}
