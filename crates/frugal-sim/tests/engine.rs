//! Hand-computed simulations.

use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::{
    BillingGranularity, DurationModel, Job, JobKind, PolicyKind, PolicyParams, QueueDiscipline,
    Resources, Rut, SchedulerConfig,
};
use frugal_sim::{JobStatus, SimConfig, simulate};

fn two_vm_cluster() -> Cluster {
    let types = vec![InstanceType {
        name: "small".into(),
        capacity: Resources::from_gib(4, 16),
    }];
    Cluster::new(
        types,
        &[
            VmGroup {
                instance_type: 0,
                site: Site::Local,
                count: 1,
                price_per_second: 0.001,
            },
            VmGroup {
                instance_type: 0,
                site: Site::Cloud,
                count: 1,
                price_per_second: 0.004,
            },
        ],
    )
}

fn job(id: &str, executors: u32, arrival: f64, t: f64) -> Job {
    Job {
        id: id.into(),
        kind: JobKind::CpuBound,
        executors,
        executor_demand: Resources::from_gib(2, 4),
        arrival,
        deadline: Some(arrival + 3.0 * t),
        t_local: t,
        t_hybrid: 1.3 * t,
    }
}

fn cfg(billing: BillingGranularity, boot: f64, keep_alive: f64) -> SimConfig {
    SimConfig {
        scheduler: SchedulerConfig {
            discipline: QueueDiscipline::Fcfs,
            admission_control: false,
            rut: Rut::default(),
            duration: DurationModel {
                kind_penalty: 0.0,
                ..Default::default()
            },
            boot_latency_s: boot,
            charge_decision_time: false,
        },
        billing,
        keep_alive_s: keep_alive,
    }
}

#[test]
fn cost_durations_and_queueing_are_exact() {
    // a: 2 executors fill the local VM for 100 s. b (10 s) finds it full: first fit turns
    // on the cloud VM, so b runs remote from its data at T_C^H = 1.3 × 50 s.
    let jobs = vec![
        job("a", 2, 0.0, 100.0),
        job("b", 2, 10.0, 50.0),
        job("c", 4, 20.0, 10.0),
    ];
    let r = simulate(
        &two_vm_cluster(),
        &jobs,
        PolicyKind::FirstFit.build(&PolicyParams::default()),
        cfg(BillingGranularity::PerSecond, 0.0, 0.0),
    );
    let [a, b, c] = &r.jobs[..] else { panic!() };
    assert_eq!((a.start, a.finish), (Some(0.0), Some(100.0)));
    assert_eq!((b.start, b.finish), (Some(10.0), Some(10.0 + 65.0)));
    assert!(b.hybrid);
    // c needs 4 × 2 cores = both VMs: waits for a (100 s); b ended at 75 s.
    assert_eq!((c.start, c.finish), (Some(100.0), Some(113.0)));
    assert!(r.jobs.iter().all(|j| j.status == JobStatus::Completed));
    // Local on [0, 113], cloud on [10, 75] and [100, 113].
    let expect = 113.0 * 0.001 + (65.0 + 13.0) * 0.004;
    assert!(
        (r.summary.total_cost - expect).abs() < 1e-9,
        "{}",
        r.summary.total_cost
    );
    assert_eq!(r.vms[1].intervals, vec![(10.0, 75.0), (100.0, 113.0)]);
    assert!((r.summary.makespan_s - 113.0).abs() < 1e-9);
    // c's deadline is 20 + 30 = 50: missed; a and b met.
    assert!((r.summary.deadline_met_pct - 200.0 / 3.0).abs() < 1e-9);
}

#[test]
fn keep_alive_boot_latency_and_hourly_billing() {
    let jobs = vec![job("a", 1, 0.0, 100.0), job("b", 1, 130.0, 100.0)];
    let ff = || PolicyKind::FirstFit.build(&PolicyParams::default());
    // Keep-alive 60 s: the VM idles 100→130 and is reused, off at 230 + 60.
    let r = simulate(
        &two_vm_cluster(),
        &jobs,
        ff(),
        cfg(BillingGranularity::PerSecond, 0.0, 60.0),
    );
    assert_eq!(r.vms[0].intervals, vec![(0.0, 290.0)]);
    // No keep-alive, 20 s boot: two power-ons, each job starts 20 s late.
    let r = simulate(
        &two_vm_cluster(),
        &jobs,
        ff(),
        cfg(BillingGranularity::PerSecond, 20.0, 0.0),
    );
    assert_eq!(r.vms[0].intervals, vec![(0.0, 120.0), (130.0, 250.0)]);
    assert_eq!(r.jobs[1].start, Some(150.0));
    // Hourly billing: two started hours.
    let r = simulate(
        &two_vm_cluster(),
        &jobs,
        ff(),
        cfg(BillingGranularity::PerHour, 20.0, 0.0),
    );
    assert!((r.summary.total_cost - 2.0 * 3600.0 * 0.001).abs() < 1e-9);
    let curve = r.cumulative_cost();
    assert!((curve.last().unwrap().1 - r.summary.total_cost).abs() < 1e-9);
}

#[test]
fn unplaceable_jobs_are_reported_not_waited_for() {
    let mut huge = job("huge", 3, 0.0, 10.0);
    huge.executor_demand = Resources::from_gib(3, 1);
    let jobs = vec![huge, job("ok", 1, 1.0, 10.0)];
    let r = simulate(
        &two_vm_cluster(),
        &jobs,
        PolicyKind::RoundRobin.build(&PolicyParams::default()),
        cfg(BillingGranularity::PerSecond, 0.0, 0.0),
    );
    assert_eq!(r.jobs[0].status, JobStatus::Unschedulable);
    assert_eq!(r.jobs[1].status, JobStatus::Completed);
    assert_eq!(r.summary.never_scheduled, 1);
}

#[test]
fn charged_decision_time_delays_starts() {
    let jobs = vec![job("a", 1, 0.0, 100.0), job("b", 1, 5.0, 100.0)];
    let mut c = cfg(BillingGranularity::PerSecond, 0.0, 0.0);
    c.scheduler.charge_decision_time = true;
    let r = simulate(
        &two_vm_cluster(),
        &jobs,
        PolicyKind::Milp.build(&PolicyParams::default()),
        c,
    );
    for (j, rec) in jobs.iter().zip(&r.jobs) {
        let start = rec.start.unwrap();
        assert!(start > j.arrival && start < j.arrival + 1.0, "{start}");
    }
}
