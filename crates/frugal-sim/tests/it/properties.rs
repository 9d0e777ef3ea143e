//! Invariants over random clusters and workloads.

use frugal_core::PowerState;
use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::lifecycle::JobState;
use frugal_core::spec::Choice;
use frugal_core::{
    BillingGranularity, DurationModel, Job, JobKind, PolicyKind, PolicyParams, QueueDiscipline,
    Resources, Rut, SchedulerConfig,
};
use frugal_sim::{RunResult, SimConfig, Simulation, simulate};
use proptest::prelude::*;

fn arb_cluster() -> impl Strategy<Value = Cluster> {
    prop::collection::vec(
        (1u32..=12, 1u32..=48, any::<bool>(), 0u32..=10, 1u32..=3),
        1..8,
    )
    .prop_map(|groups| {
        let types = groups
            .iter()
            .enumerate()
            .map(|(i, &(c, m, ..))| InstanceType {
                name: format!("t{i}"),
                capacity: Resources::from_gib(c, m),
            })
            .collect();
        let g: Vec<VmGroup> = groups
            .iter()
            .enumerate()
            .map(|(i, &(_, _, local, price, count))| VmGroup {
                instance_type: i,
                site: if local { Site::Local } else { Site::Cloud },
                count,
                price_per_second: f64::from(price) / 1000.0,
            })
            .collect();
        Cluster::new(types, &g)
    })
}

fn arb_jobs() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec(
        (
            0u32..3,
            1u32..=8,
            1u32..=6,
            1u32..=10,
            0u32..200,
            1u32..300,
            prop::option::of(0u32..2000),
        ),
        1..40,
    )
    .prop_map(|raw| {
        let mut t = 0.0;
        raw.into_iter()
            .enumerate()
            .map(|(i, (k, e, c, m, gap, d, dl))| {
                t += f64::from(gap);
                Job {
                    id: format!("j{i}"),
                    kind: [
                        JobKind::CpuBound,
                        JobKind::MemoryBound,
                        JobKind::NetworkBound,
                    ][k as usize],
                    executors: e,
                    executor_demand: Resources::from_gib(c, m),
                    arrival: t,
                    deadline: dl.map(|x| t + f64::from(x)),
                    t_local: f64::from(d),
                    t_hybrid: 1.3 * f64::from(d),
                }
            })
            .collect()
    })
}

fn arb_config() -> impl Strategy<Value = (PolicyKind, Option<QueueDiscipline>, SimConfig)> {
    (
        0..PolicyKind::ALL.len(),
        0..5usize,
        any::<bool>(),
        0u32..3,
        0u32..3,
        (any::<bool>(), any::<bool>()),
    )
        .prop_map(|(p, q, admission, boot, keep, (hourly, easy))| {
            let policy = PolicyKind::ALL[p];
            let queue = QueueDiscipline::ALL.get(q).copied();
            let discipline =
                queue.unwrap_or_else(|| policy.build(&PolicyParams::default()).default_queue());
            let cfg = SimConfig {
                scheduler: SchedulerConfig {
                    discipline,
                    admission_control: admission,
                    rut: Rut::default(),
                    duration: DurationModel::default(),
                    boot_latency_s: f64::from(boot) * 30.0,
                    charge_decision_time: false,
                    backfill: if easy {
                        frugal_core::Backfill::Easy
                    } else {
                        frugal_core::Backfill::None
                    },
                },
                billing: if hourly {
                    BillingGranularity::PerHour
                } else {
                    BillingGranularity::PerSecond
                },
                keep_alive: frugal_core::KeepAlive::Seconds(f64::from(keep) * 50.0),
                budget_per_hour: None,
            };
            (policy, queue, cfg)
        })
}

/// Replays the records and checks capacity at every instant a job starts.
fn check_capacity(cluster: &Cluster, jobs: &[Job], r: &RunResult) -> Result<(), TestCaseError> {
    let started: Vec<usize> = (0..jobs.len())
        .filter(|&i| r.jobs[i].start.is_some())
        .collect();
    for &i in &started {
        let t = r.jobs[i].start.unwrap();
        for vm in &cluster.vms {
            let mut used = Resources::ZERO;
            for &k in &started {
                let (s, f) = (r.jobs[k].start.unwrap(), r.jobs[k].finish.unwrap());
                let n = r.jobs[k]
                    .placement
                    .iter()
                    .find(|e| e.0 == vm.id)
                    .map_or(0, |e| e.1);
                if s <= t && t < f {
                    used = used.plus(&jobs[k].executor_demand.times(n));
                }
            }
            prop_assert!(
                vm.capacity.fits(&used),
                "VM {} over capacity at {t}: {used}",
                vm.id
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn simulation_invariants(cluster in arb_cluster(), jobs in arb_jobs(), (policy, _q, cfg) in arb_config()) {
        let r = simulate(&cluster, &jobs, policy.build(&PolicyParams::default()), cfg);
        check_capacity(&cluster, &jobs, &r)?;
        for (j, rec) in jobs.iter().zip(&r.jobs) {
            if rec.start.is_some() {
                let placed: u32 = rec.placement.iter().map(|e| e.1).sum();
                prop_assert_eq!(placed, j.executors, "job {} not all-or-nothing", j.id);
                prop_assert!(rec.start.unwrap() >= j.arrival);
                // Every VM it used was billed over its whole run.
                for &(vm, _) in &rec.placement {
                    let on = r.vms[vm as usize].intervals.iter()
                        .any(|&(a, b)| a <= rec.start.unwrap() && rec.finish.unwrap() <= b);
                    prop_assert!(on, "job {} ran on VM {} while it was off", j.id, vm);
                }
            }
        }
        let s = &r.summary;
        prop_assert_eq!(s.completed + s.dropped + s.never_scheduled, jobs.len());
        let billed: f64 = r.vms.iter()
            .flat_map(|v| v.intervals.iter().map(move |(a, b)| cfg.billing.billed_seconds(b - a) * v.price_per_second))
            .sum();
        prop_assert!((s.total_cost - billed).abs() <= 1e-9 * billed.max(1.0));
        if cfg.billing == BillingGranularity::PerSecond {
            let on_time_cost: f64 = r.vms.iter().map(|v| v.on_time() * v.price_per_second).sum();
            prop_assert!((s.total_cost - on_time_cost).abs() <= 1e-9 * on_time_cost.max(1.0));
        }
        let curve_end = r.cumulative_cost().last().unwrap().1;
        prop_assert!((curve_end - s.total_cost).abs() <= 1e-6 * s.total_cost.max(1.0));
        // Determinism: the same inputs give identical records.
        let again = simulate(&cluster, &jobs, policy.build(&PolicyParams::default()), cfg);
        prop_assert_eq!(&again.jobs, &r.jobs);
        prop_assert_eq!(&again.vms, &r.vms);
        // No job is left queued at the end: the last pass sees an empty cluster, where
        // every job the policy can ever place fits.
        for rec in &r.jobs {
            prop_assert!(rec.status != JobState::Queued, "job {} left waiting", rec.id);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A VM's power is kept twice: the cluster's state (what a placement reads) and the
    /// fleet's intervals (what the bill reads). After every instant they agree, a VM that
    /// hosts executors is on, and no VM is still booting past the end of its boot.
    #[test]
    fn the_cluster_and_the_bill_agree_on_every_vms_power(cluster in arb_cluster(), jobs in arb_jobs(), (policy, _q, cfg) in arb_config()) {
        let (cluster, scheduler) = cfg.scheduler(&cluster, policy.build(&PolicyParams::default()));
        let mut sim = Simulation::with_scheduler(&cluster, jobs.as_slice(), cfg, scheduler);
        while sim.advance().is_some() {
            sim.schedule();
            let now = sim.now();
            let ctl = sim.controller();
            for vm in &ctl.cluster().vms {
                prop_assert_eq!(ctl.fleet().is_on(vm.id), vm.is_active(), "VM {} at {} s", vm.id, now);
                prop_assert!(vm.executors == 0 || vm.is_active(), "VM {} hosts executors while off", vm.id);
                if let PowerState::Booting { ready_at } = vm.power {
                    prop_assert!(ready_at > now, "VM {} still booting at {} s, ready at {} s", vm.id, now, ready_at);
                }
            }
        }
    }
}
