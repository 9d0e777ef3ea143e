//! Queue disciplines and admission control.

mod common;

use common::{cluster, job};
use frugal_core::cluster::Site::Cloud;
use frugal_core::{
    Decision, DurationModel, Job, PolicyKind, PolicyParams, QueueDiscipline, Rut, Scheduler,
    SchedulerConfig,
};

fn scheduler(discipline: QueueDiscipline, admission_control: bool) -> Scheduler {
    Scheduler::new(
        PolicyKind::FirstFit.build(&PolicyParams::default()),
        SchedulerConfig {
            discipline,
            admission_control,
            rut: Rut::default(),
            duration: DurationModel {
                kind_penalty: 0.0,
                ..Default::default()
            },
            boot_latency_s: 0.0,
            charge_decision_time: false,
        },
    )
}

fn started(out: &[Decision]) -> Vec<usize> {
    out.iter()
        .filter_map(|d| match d {
            Decision::Started { job, .. } => Some(*job),
            Decision::Dropped { .. } => None,
        })
        .collect()
}

/// Jobs: 0 = big (8 cores), 1 = small (2 cores) with an early deadline, 2 = small.
fn jobs() -> Vec<Job> {
    let mut j = vec![
        job("big", 4, 2, 1, 100.0),
        job("tight", 1, 2, 1, 100.0),
        job("small", 1, 2, 1, 100.0),
    ];
    j[0].deadline = Some(5000.0);
    j[1].arrival = 1.0;
    j[1].deadline = Some(500.0);
    j[2].arrival = 2.0;
    j
}

fn run(discipline: QueueDiscipline) -> Vec<usize> {
    // 6 cores: the big job (8 cores) cannot run; small ones can.
    let mut c = cluster(&[(4, 16, Cloud, 0.001), (2, 16, Cloud, 0.001)]);
    let jobs = jobs();
    let mut s = scheduler(discipline, false);
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 2.0, &mut out);
    started(&out)
}

#[test]
fn fcfs_head_blocks_the_queue() {
    assert_eq!(run(QueueDiscipline::Fcfs), Vec::<usize>::new());
}

#[test]
fn edf_runs_the_earliest_deadline_first_then_blocks() {
    assert_eq!(run(QueueDiscipline::Edf), vec![1]);
}

#[test]
fn deadline_first_blocks_regular_jobs_while_a_deadline_job_waits() {
    // Deadline jobs 1 (placed) and 0 (blocked): regular job 2 must wait (Alg. 1 l. 14).
    assert_eq!(run(QueueDiscipline::DeadlineFirst), vec![1]);
}

#[test]
fn skipping_disciplines_place_what_fits() {
    assert_eq!(run(QueueDiscipline::Morpheus), vec![1, 2]);
}

#[test]
fn deadline_first_orders_regular_jobs_by_resource_demand_and_skips() {
    let mut c = cluster(&[(4, 16, Cloud, 0.001)]);
    let jobs = vec![
        job("a", 1, 1, 1, 10.0),
        job("b", 1, 3, 1, 10.0),
        job("c", 2, 4, 1, 10.0),
    ];
    let mut s = scheduler(QueueDiscipline::DeadlineFirst, false);
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 0.0, &mut out);
    // RD order c (8 cores, cannot fit: skipped), b (3), a (1).
    assert_eq!(started(&out), vec![1, 0]);
}

#[test]
fn admission_control_drops_jobs_that_cannot_meet_their_deadline() {
    let mut c = cluster(&[(4, 16, Cloud, 0.001)]);
    let mut jobs = vec![job("late", 1, 1, 1, 100.0), job("fine", 1, 1, 1, 100.0)];
    jobs[0].deadline = Some(150.0);
    jobs[1].deadline = Some(1000.0);
    let mut s = scheduler(QueueDiscipline::Edf, true);
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 60.0, &mut out);
    assert_eq!(out[0], Decision::Dropped { job: 0 });
    assert_eq!(started(&out), vec![1]);
}
