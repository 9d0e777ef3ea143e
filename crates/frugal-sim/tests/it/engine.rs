//! Hand-computed simulations.

use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::lifecycle::JobState;
use frugal_core::{
    BillingGranularity, DurationModel, Job, JobKind, PolicyKind, PolicyParams, QueueDiscipline,
    Resources, Rut, SchedulerConfig,
};
use frugal_sim::{SimConfig, simulate};

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
                contention: None,
                ..Default::default()
            },
            boot_latency_s: boot,
            charge_decision_time: false,
            backfill: frugal_core::Backfill::None,
        },
        billing,
        keep_alive: frugal_core::KeepAlive::Seconds(keep_alive),
        budget_per_hour: None,
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
    assert!(r.jobs.iter().all(|j| j.status == JobState::Completed));
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
    assert!((r.summary.deadline_met_pct.unwrap() - 200.0 / 3.0).abs() < 1e-9);
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
    assert_eq!(r.jobs[0].status, JobState::Unschedulable);
    assert_eq!(r.jobs[1].status, JobState::Completed);
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

/// Two cloud VMs of 4 cores / 16 GiB at $1/h (VM 0) and $10/h (VM 1), per-second billing.
fn one_and_ten_dollar_cluster() -> Cluster {
    let types = vec![InstanceType {
        name: "c4".into(),
        capacity: Resources::from_gib(4, 16),
    }];
    let group = |price_per_hour: f64| VmGroup {
        instance_type: 0,
        site: Site::Cloud,
        count: 1,
        price_per_second: price_per_hour / 3600.0,
    };
    Cluster::new(types, &[group(1.0), group(10.0)])
}

/// a (0–50 s) takes the $1 VM; b (arrives at 10 s) needs a whole VM: the $10 one.
/// At 100 s b has just finished and c arrives: with keep-alive 0 the $10 VM is off for
/// the decision at 100 s, so every policy puts c on the $1 VM:
/// 50 s × $1/h + 90 s × $10/h + 1,000 s × $1/h = $0.5389.
fn marginal_cost_jobs() -> Vec<Job> {
    let mut jobs = vec![
        job("a", 1, 0.0, 50.0),
        job("b", 1, 10.0, 90.0),
        job("c", 1, 100.0, 1000.0),
    ];
    for j in &mut jobs {
        j.executor_demand = Resources::from_gib(4, 4);
        j.deadline = None;
        j.t_hybrid = j.t_local;
    }
    jobs
}

#[test]
fn a_vm_whose_keep_alive_ran_out_is_off_for_decisions_at_that_instant() {
    for kind in PolicyKind::ALL {
        // Spark's consolidation is price-blind: equal free cores tie to the higher id, so
        // a and c take the $10 VM and b the $1 one.
        let (expect, vm) = if kind == PolicyKind::SparkConsolidate {
            ((50.0 * 10.0 + 90.0 * 1.0 + 1000.0 * 10.0) / 3600.0, 1)
        } else {
            ((50.0 * 1.0 + 90.0 * 10.0 + 1000.0 * 1.0) / 3600.0, 0)
        };
        let policy = kind.build(&PolicyParams::default());
        let mut c = cfg(BillingGranularity::PerSecond, 0.0, 0.0);
        c.scheduler.discipline = policy.default_queue();
        let r = simulate(
            &one_and_ten_dollar_cluster(),
            &marginal_cost_jobs(),
            policy,
            c,
        );
        assert!(
            (r.summary.total_cost - expect).abs() < 1e-9,
            "{}: ${} instead of ${expect}",
            kind.name(),
            r.summary.total_cost
        );
        assert_eq!(r.jobs[2].placement, vec![(vm, 1)], "{}", kind.name());
    }
}

#[test]
fn a_vm_inside_its_keep_alive_is_on() {
    // Keep-alive 1 s: at 100 s the $10 VM (idle since 100 s) is still on, so first fit
    // reuses it: c runs on it, and the $1 VM, idle since 50 s, is off.
    let mut c = cfg(BillingGranularity::PerSecond, 0.0, 1.0);
    c.scheduler.discipline = QueueDiscipline::Edf;
    let r = simulate(
        &one_and_ten_dollar_cluster(),
        &marginal_cost_jobs(),
        PolicyKind::FirstFit.build(&PolicyParams::default()),
        c,
    );
    assert_eq!(r.jobs[2].placement, vec![(1, 1)]);
    assert_eq!(r.vms[1].intervals, vec![(10.0, 1101.0)]);
    assert_eq!(r.vms[0].intervals, vec![(0.0, 51.0)]);
}

#[test]
fn a_vm_turned_off_and_on_at_one_instant_keeps_its_interval_and_needs_no_boot() {
    // One VM: a ends at 50 s as b arrives. The VM is off for the pass at 50 s, and b turns
    // it back on at once: no 20 s boot (it never went down), one interval, so hourly
    // billing charges one started hour, not two.
    let types = vec![InstanceType {
        name: "c4".into(),
        capacity: Resources::from_gib(4, 16),
    }];
    let one = Cluster::new(
        types,
        &[VmGroup {
            instance_type: 0,
            site: Site::Cloud,
            count: 1,
            price_per_second: 1.0 / 3600.0,
        }],
    );
    let mut jobs = vec![job("a", 1, 0.0, 50.0), job("b", 1, 50.0, 50.0)];
    for j in &mut jobs {
        j.executor_demand = Resources::from_gib(4, 4);
    }
    let r = simulate(
        &one,
        &jobs,
        PolicyKind::FirstFit.build(&PolicyParams::default()),
        cfg(BillingGranularity::PerHour, 20.0, 0.0),
    );
    // a waits for the boot (20 s); b arrives at 50 s, the VM frees at 70 s.
    assert_eq!(r.jobs[0].start, Some(20.0));
    assert_eq!(r.jobs[1].start, Some(70.0));
    assert_eq!(r.vms[0].intervals, vec![(0.0, 120.0)]);
    assert!((r.summary.total_cost - 1.0).abs() < 1e-9);
    // Without the boot, b starts at 50 s exactly when a ends, on the same interval.
    let r = simulate(
        &one,
        &jobs,
        PolicyKind::FirstFit.build(&PolicyParams::default()),
        cfg(BillingGranularity::PerHour, 0.0, 0.0),
    );
    assert_eq!(r.jobs[1].start, Some(50.0));
    assert_eq!(r.vms[0].intervals, vec![(0.0, 100.0)]);
    assert!((r.summary.total_cost - 1.0).abs() < 1e-9);
}

#[test]
fn contention_stretches_co_located_jobs_and_moves_their_ends() {
    // Contention κ = 1 job over the whole cluster. a (100 s) runs alone 0–10 (90 s
    // left); b (50 s, local VM full, so on the cloud VM at T_C^H = 65 s) starts at 10:
    // both at 1/2. b's 65 s take 130 s: it would end at 140, a's 90 s at 190 — b first,
    // at 140, a having done 65 more (25 left); alone again a ends at 165. Without the
    // model a ends at 100 and b at 75.
    use frugal_core::contention::{ContentionModel, LoadUnit, Scope};
    let jobs = vec![job("a", 2, 0.0, 100.0), job("b", 2, 10.0, 50.0)];
    let run = |scope| {
        let mut c = cfg(BillingGranularity::PerSecond, 0.0, 0.0);
        c.scheduler.duration.contention = Some(ContentionModel {
            scope,
            load: LoadUnit::Jobs,
            capacity: 1.0,
            slope: None,
        });
        let ff = PolicyKind::FirstFit.build(&PolicyParams::default());
        simulate(&two_vm_cluster(), &jobs, ff, c)
    };
    let r = run(Scope::Cluster);
    let [a, b] = &r.jobs[..] else { panic!() };
    assert_eq!((b.start, b.finish), (Some(10.0), Some(140.0)));
    assert_eq!(a.start, Some(0.0));
    assert!((a.finish.unwrap() - 165.0).abs() < 1e-9, "{:?}", a.finish);
    // The bill follows: local on [0, 165], cloud on [10, 140].
    let expect = 165.0 * 0.001 + 130.0 * 0.004;
    assert!(
        (r.summary.total_cost - expect).abs() < 1e-9,
        "{}",
        r.summary.total_cost
    );
    // Per site, κ = 1 job each: a and b do not share, as without the model.
    let r = run(Scope::Site);
    assert_eq!(r.jobs[0].finish, Some(100.0));
    assert_eq!(r.jobs[1].finish, Some(75.0));
}

#[test]
fn interference_aware_placement_waits_instead_of_slowing_a_running_job() {
    // The jobs above, κ = 1 job over the cluster. At 10, a runs (L = 1): b would make it
    // 2 > κ, slowing both, so b waits; a ends at 100 alone (100 s of work at full
    // speed), and b starts there on the local VM (50 s at $0.001/s against the cloud
    // VM's 65 s at $0.004/s), ending at 150. The local VM is on [0, 150] without a power
    // cycle at 100 (keep-alive 0, turned on again at the instant it went idle): $0.15,
    // against first fit's $0.685 above.
    use frugal_core::contention::{ContentionModel, LoadUnit, Scope};
    let jobs = vec![job("a", 2, 0.0, 100.0), job("b", 2, 10.0, 50.0)];
    let mut c = cfg(BillingGranularity::PerSecond, 0.0, 0.0);
    c.scheduler.duration.contention = Some(ContentionModel {
        scope: Scope::Cluster,
        load: LoadUnit::Jobs,
        capacity: 1.0,
        slope: None,
    });
    let p = PolicyKind::InterferenceAware.build(&PolicyParams::default());
    let r = simulate(&two_vm_cluster(), &jobs, p, c);
    let [a, b] = &r.jobs[..] else { panic!() };
    assert_eq!((a.start, a.finish), (Some(0.0), Some(100.0)));
    assert_eq!((b.start, b.finish), (Some(100.0), Some(150.0)));
    assert!(
        (r.summary.total_cost - 0.15).abs() < 1e-9,
        "{}",
        r.summary.total_cost
    );
}
