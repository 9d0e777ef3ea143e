//! No job starves behind a budget: driven through the controller over random clusters,
//! queues and budgets, every job that the budget can admit alone (the cheapest VMs that
//! hold it fit the budget on the idle cluster) eventually runs to its end, and every other
//! job is refused before it is queued, as the service refuses it at submission.

use crate::common;

use proptest::prelude::*;

use common::{cluster, job};
use frugal_core::budget::cheapest_price_placement;
use frugal_core::cluster::Site::{Cloud, Local};
use frugal_core::control::{ControlConfig, Controller, Effect, Event};
use frugal_core::{Backfill, JobState, PolicyKind, QueueDiscipline, Scheduler};

fn scheduler(policy: PolicyKind, discipline: QueueDiscipline, budget: f64) -> Scheduler {
    let mut s = common::scheduler(policy, discipline, false, Backfill::Easy);
    s.set_budget_per_hour(Some(budget));
    s
}

/// Runs every job from t = 0 to its end on the controller; returns the jobs refused
/// (never admissible) and each admitted job's final state.
fn drive(
    vms: &[(u32, u32, bool, f64)],
    jobs: &[(u32, u32, f64)],
    policy: PolicyKind,
    discipline: QueueDiscipline,
    budget_per_hour: f64,
) -> (usize, Vec<JobState>) {
    let c = cluster(
        &vms.iter()
            .map(|&(cores, mem, local, price)| {
                (cores, mem, if local { Local } else { Cloud }, price)
            })
            .collect::<Vec<_>>(),
    );
    let mut ctl = Controller::new(
        &c,
        Some(scheduler(policy, discipline, budget_per_hour)),
        ControlConfig::default(),
    );
    let mut refused = 0;
    let mut admitted = Vec::new();
    for (i, &(executors, cores, t)) in jobs.iter().enumerate() {
        let j = job(&format!("j{i}"), executors, cores, 1, t);
        let least = cheapest_price_placement(&j, ctl.empty_cluster())
            .map_or(f64::INFINITY, |(_, per_s)| per_s * 3600.0);
        if least > budget_per_hour * (1.0 + 1e-9) {
            refused += 1;
            continue;
        }
        admitted.push(ctl.add(j, None, 0.0).0);
    }
    let mut now = 0.0;
    let mut ends: Vec<(f64, usize)> = Vec::new();
    for _ in 0..10_000 {
        for e in ctl.handle(Event::Schedule, now) {
            if let Effect::Launch(idx) = e {
                ends.push((ctl.record(idx).finish.unwrap(), idx));
            }
        }
        ends.sort_by(|a, b| b.0.total_cmp(&a.0));
        let next = ends.last().map(|e| e.0);
        let wake = ctl.next_wake();
        let t = match (next, wake) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => break,
        };
        now = t.max(now);
        while ends.last().is_some_and(|e| e.0 <= now) {
            let (_, idx) = ends.pop().unwrap();
            let end = Event::Finish {
                job: idx,
                state: JobState::Completed,
                reason: None,
            };
            ctl.handle(end, now);
        }
    }
    (
        refused,
        admitted.iter().map(|&i| ctl.record(i).state).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_job_the_budget_can_admit_alone_eventually_runs(
        vms in proptest::collection::vec((1u32..=8, 16u32..=32, any::<bool>(), 1u32..=6), 2..=5),
        jobs in proptest::collection::vec((1u32..=3, 1u32..=4, 10u32..=200), 1..=12),
        budget_vms in 1usize..=3,
        policy in prop::sample::select(vec![
            PolicyKind::FirstFit, PolicyKind::RoundRobin, PolicyKind::BestFitDecreasing,
            PolicyKind::Optimal,
        ]),
        discipline in prop::sample::select(vec![
            QueueDiscipline::Fcfs, QueueDiscipline::Edf, QueueDiscipline::Morpheus,
        ]),
    ) {
        // Prices of $0.001–0.006 per second; a budget of the `budget_vms` dearest VMs'
        // summed price, so some jobs are refused and most must share it.
        let vms: Vec<_> = vms.iter().map(|&(c, m, l, p)| (c, m, l, f64::from(p) / 1000.0)).collect();
        let mut prices: Vec<f64> = vms.iter().map(|v| v.3 * 3600.0).collect();
        prices.sort_by(|a, b| b.total_cmp(a));
        let budget: f64 = prices.iter().take(budget_vms).sum();
        let jobs: Vec<_> = jobs.iter().map(|&(e, c, t)| (e, c, f64::from(t))).collect();
        let (_, states) = drive(&vms, &jobs, policy, discipline, budget);
        for (i, s) in states.iter().enumerate() {
            prop_assert_eq!(*s, JobState::Completed, "admitted job {} of {:?} under {:?}/{:?}, budget {}", i, jobs, policy, discipline, budget);
        }
    }
}

/// The operator's case: a budget of $25/h, a job that alone needs $50.40/h, then 1-core
/// jobs that the cheapest VM takes. The big job is refused; the small ones all run.
#[test]
fn a_job_the_budget_can_never_admit_is_refused_and_starves_no_one() {
    // Two VMs at $25.20/h each ($0.007/s); each 4 cores. The big job needs both.
    let vms = [(4, 16, false, 0.007), (4, 16, false, 0.007)];
    let jobs = [(2, 4, 100.0), (1, 1, 50.0), (1, 1, 50.0), (1, 1, 50.0)];
    let (refused, states) = drive(
        &vms,
        &jobs,
        PolicyKind::FirstFit,
        QueueDiscipline::Fcfs,
        25.2,
    );
    assert_eq!(refused, 1);
    assert_eq!(states, vec![JobState::Completed; 3]);
}
