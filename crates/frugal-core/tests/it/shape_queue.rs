//! The skipping disciplines (Morpheus, the regular queue of deadline-first) offer jobs
//! class by class; this checks them against the straightforward oracle that sorts every
//! waiting job and offers each to the policy in turn.

use crate::common;

use proptest::prelude::*;

use common::cluster;
use frugal_core::cluster::Site;
use frugal_core::rut::scarce_share;
use frugal_core::{
    Cluster, Decision, DurationModel, Job, JobKind, PolicyKind, PolicyParams, QueueDiscipline,
    Resources, Rut, Scheduler, SchedulerConfig,
};

fn config(discipline: QueueDiscipline, admission_control: bool) -> SchedulerConfig {
    SchedulerConfig {
        discipline,
        admission_control,
        rut: Rut::default(),
        duration: DurationModel::default(),
        boot_latency_s: 0.0,
        charge_decision_time: false,
        backfill: frugal_core::Backfill::None,
    }
}

/// One pass of the oracle: every waiting job sorted by (score, arrival, index), each
/// offered to the policy (after the deadline test of admission control).
fn oracle_pass(
    kind: PolicyKind,
    discipline: QueueDiscipline,
    admission_control: bool,
    jobs: &[Job],
    waiting: &[usize],
    cluster: &mut Cluster,
    now: f64,
) -> Vec<Decision> {
    let mut policy = kind.build(&PolicyParams::default());
    let (used, total) = (cluster.used(), cluster.total_capacity);
    let rut = Rut::default();
    let mut order: Vec<(f64, f64, usize)> = waiting
        .iter()
        .map(|&i| {
            let j = &jobs[i];
            let score = match discipline {
                QueueDiscipline::Morpheus => scarce_share(&j.total_demand(), &used, &total),
                _ => -rut.resource_demand(j, cluster),
            };
            (score, j.arrival, i)
        })
        .collect();
    order.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let mut out = Vec::new();
    for (_, _, i) in order {
        let job = &jobs[i];
        if admission_control && job.deadline.is_some_and(|d| now + job.t_local > d) {
            out.push(Decision::Dropped { job: i });
            continue;
        }
        if let Some(p) = policy.place(job, cluster, now) {
            let finish = now + DurationModel::default().duration(job, cluster, &p);
            if admission_control && job.deadline.is_some_and(|d| finish > d) {
                out.push(Decision::Dropped { job: i });
                continue;
            }
            let mut on = Vec::new();
            cluster
                .reserve(&p, &job.executor_demand, now, 0.0, &mut on)
                .expect("policies respect capacity");
            cluster.extend_busy(&p, finish);
            out.push(Decision::Started {
                job: i,
                start: now,
                finish,
                placement: p,
                powered_on: on,
                cost: None,
            });
        }
    }
    out
}

fn sorted(mut d: Vec<Decision>) -> Vec<Decision> {
    d.sort_by_key(|d| match d {
        Decision::Started { job, .. } => (0, *job),
        Decision::Dropped { job } => (1, *job),
        Decision::Held { job, .. } => (2, *job),
    });
    d
}

fn job_strategy() -> impl Strategy<Value = (u32, u32, u32, u8, u8, f64, Option<f64>)> {
    (
        1u32..4,
        1u32..3,
        1u32..4,
        0u8..3,
        0u8..4,
        1.0f64..50.0,
        proptest::option::of(0.0f64..80.0),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn shape_queue_pass_equals_the_oracle(
        specs in proptest::collection::vec(job_strategy(), 1..30),
        busy in proptest::collection::vec(0u32..5, 3),
        morpheus in any::<bool>(),
        admission_control in any::<bool>(),
        policy in 0usize..4,
    ) {
        let kind = [PolicyKind::FirstFit, PolicyKind::Morpheus, PolicyKind::BestFitDecreasing,
            PolicyKind::Gio][policy];
        let discipline = if morpheus { QueueDiscipline::Morpheus } else { QueueDiscipline::DeadlineFirst };
        let jobs: Vec<Job> = specs.iter().enumerate().map(|(i, &(e, c, m, k, a, t, d))| Job {
            id: format!("j{i}"),
            kind: [JobKind::CpuBound, JobKind::MemoryBound, JobKind::NetworkBound][k as usize],
            executors: e,
            executor_demand: Resources::from_gib(c, m),
            arrival: f64::from(a),
            // Deadline-first keeps deadline jobs in its EDF queue; test its regular queue.
            deadline: if morpheus { d.map(|x| f64::from(a) + x) } else { None },
            t_local: t,
            t_hybrid: 1.3 * t,
        }).collect();
        let mut base = cluster(&[(4, 8, Site::Local, 0.001), (4, 8, Site::Cloud, 0.002),
            (8, 16, Site::Cloud, 0.004)]);
        // Some capacity already taken, so shapes fail and succeed.
        for (vm, &n) in busy.iter().enumerate() {
            if n > 0 {
                let mut p = frugal_core::Placement::default();
                p.add(vm as u32, n.min(base.vm(vm as u32).capacity.cores()));
                base.reserve(&p, &Resources::from_gib(1, 1), 0.0, 0.0, &mut Vec::new()).unwrap();
            }
        }
        let now = 20.0;
        let mut scheduler = Scheduler::new(kind.build(&PolicyParams::default()),
            config(discipline, admission_control));
        let mut c1 = base.clone();
        for (i, j) in jobs.iter().enumerate() {
            scheduler.enqueue(i, j, &c1);
        }
        let mut got = Vec::new();
        scheduler.run_pass(&jobs, &mut c1, now, &mut got);
        let mut c2 = base.clone();
        let waiting: Vec<usize> = (0..jobs.len()).collect();
        let want = oracle_pass(kind, discipline, admission_control, &jobs, &waiting, &mut c2, now);
        prop_assert_eq!(sorted(got), sorted(want));
        prop_assert_eq!(c1, c2);
    }
}
